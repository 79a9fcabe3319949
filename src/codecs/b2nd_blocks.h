/* b2nd_blocks.h - Blosc2 b2nd chunks on the CPU: only the blocks a box touches, into C order. */
#ifndef TSR_B2ND_BLOCKS_H
#define TSR_B2ND_BLOCKS_H

#include "blosc.h"
#include "codecs.h"

/*
 * A decoded b2nd chunk is not C order over the chunk: it is padded to whole blocks per axis,
 * blocks lie in C order over the block grid and each block is C order inside (ref->blocked).
 * Blosc blocks decode independently (except with the DELTA filter, which needs block 0 too), so
 * a box of the chunk needs only the blocks it touches.
 *
 * When every axis but the first is whole in both the block and the chunk ("row layout": plain
 * super-chunks, and python-blosc2's default chunk and block shapes), the decoded bytes are
 * already C order over the chunk; the chunk header's own block size then decides which blocks a
 * box needs, and blocks decode straight into the output.
 *
 * Thread safety: pure functions; a struct tsr_scratch belongs to one thread at a time.
 */

/* Decodes the chunk in src (a blosc chunk, or the packed part tsr_chunk_fetch_part made for
 * the same box) into out as ref->codec.elem values in native byte order: box NULL, the whole
 * chunk in C order over ref->extent; otherwise the box alone, in C order over its shape
 * (hi - lo per axis). out_nbytes must hold that. *decoded_nbytes_ret: bytes the blosc decoder
 * produced. */
int tsr_b2nd_decode(void *out, size_t out_nbytes, const struct tsr_chunk_ref *ref,
		    const void *src, size_t src_nbytes, const struct tsr_chunk_box *box,
		    struct tsr_scratch *scratch, uint64_t *decoded_nbytes_ret);

/* The blocks of the b2nd chunk in chunk (nbytes: its stored bytes, at least its header and
 * block table) that decoding the chunk-local box [lo, hi) needs: the blocks tsr_b2nd_decode
 * decodes for that box, as *sel (with block 0 too under DELTA: with0). Returns 1 when that is
 * fewer than all; 0 with sel zeroed (every block) when the box needs them all, or the chunk is
 * not a b2nd chunk of blocks (memcpyed, special, a header the decode refuses), or the choice
 * has more axes than TSR_BLOSC_SEL_AXES. */
int tsr_b2nd_blocks(const struct tsr_chunk_ref *ref, const void *chunk, size_t nbytes,
		    const int64_t *lo, const int64_t *hi, struct tsr_blosc_blocks *sel);

/* tsr_chunk_fetch_part for b2nd chunks: the header, block table, dictionary and the blocks
 * under the box, packed as a smaller chunk that tsr_b2nd_decode takes with the same box. */
int tsr_b2nd_fetch_part(const struct tsr_chunk_ref *ref, const struct tsr_chunk_box *box,
			tsr_chunk_read_fn read, void *arg, unsigned char **buf, size_t *cap,
			uint64_t *nbytes_ret);

/* Sets n elements of w bytes at out to the element at value. */
void tsr_fill_elems(void *out, size_t n, size_t w, const void *value);

#endif
