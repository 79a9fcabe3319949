/* raw_box.h - part of an uncompressed chunk: only the bytes a box of it spans, read and placed. */
#ifndef TSR_RAW_BOX_H
#define TSR_RAW_BOX_H

#include "codecs.h"

/* Whether the chunk's stored bytes are its values as the output holds them, so that a box of it
 * is a copy of rows: no bytes step, no element codec, filter, value change, axis order or byte
 * swap. */
int tsr_raw_boxes(const struct tsr_chunk_ref *ref);

/* Reads, into *buf (grown as needed), the stored bytes from the box's first element to its last
 * in C order, where that span is under half the chunk (a one-element read of a 1 GiB chunk reads
 * its element). *nbytes_ret: the span's bytes, or 0 where the chunk should be fetched whole
 * (small chunks, wide boxes, a stored size that is not the chunk's: its whole decode says so). */
int tsr_raw_fetch_part(const struct tsr_chunk_ref *ref, const struct tsr_chunk_box *box,
		       tsr_chunk_read_fn read, void *arg, unsigned char **buf, size_t *cap,
		       uint64_t *nbytes_ret);

/* The box's values into out (C order over its shape) from src: the whole chunk, or the span
 * tsr_raw_fetch_part read for the same box; another size is TSR_E_CORRUPT. */
int tsr_raw_decode_box(const struct tsr_chunk_ref *ref, const void *src, size_t src_nbytes,
		       const struct tsr_chunk_box *box, void *out, uint64_t *decoded_nbytes_ret);

#endif /* TSR_RAW_BOX_H */
