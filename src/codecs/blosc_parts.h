/* blosc_parts.h - a blosc chunk split into pieces (its blocks) that threads decode at once. */
#ifndef TSR_BLOSC_PARTS_H
#define TSR_BLOSC_PARTS_H

#include "codecs.h"

/*
 * A blosc chunk's blocks decode independently of each other (DELTA aside: every block refers to
 * block 0, decoded once when the chunk is opened). Where a decoded block is a piece of the
 * chunk's values as they stand, a read of one large chunk can spread its blocks over threads:
 * Zarr v2/v3 blosc chunks (and Blosc2 row layouts) decode to C order over the chunk, so a block
 * is a run of the chunk's values; a b2nd chunk's blocks are boxes of it.
 *
 * The chunk is opened once (its stored bytes read once, header parsed once, checksums checked
 * once) and is then only read: any number of threads decode its pieces at once, each with its
 * own scratch. Anything a piece decode would not handle (special and memcpyed chunks, sizes that
 * disagree with the array, one block only) opens with no pieces: decode the chunk whole, whose
 * decoder gives the verdict.
 *
 * Thread safety: tsr_chunk_parts_decode and _piece may run concurrently on one opened chunk.
 */

/* What one piece decodes to: a run of the chunk's values, elements [first, first + count) in C
 * order over its extent; or a box of the chunk, values in C order over the box's shape (hi - lo
 * per axis, which may reach past the extent into the block padding). The decode writes nbytes
 * (a run's count * element size, unless its block reaches into padding). */
struct tsr_chunk_piece {
	int is_box;
	int64_t first, count;
	struct tsr_chunk_box box;
	size_t nbytes;
};

struct tsr_chunk_parts;

/* The decoded bytes of the blocks decoding `box` of the chunk would need, when ref's chain lets
 * the chunk split into pieces (a blosc chunk, after checksums only, whose values are its decoded
 * bytes); 0 when it does not. Decided from the description alone, without the chunk's bytes. */
uint64_t tsr_chunk_split_nbytes(const struct tsr_chunk_ref *ref, const struct tsr_chunk_box *box);

/* Opens the stored bytes src (ref->nbytes of them; only read, and they must outlive the
 * result) for piece decoding of the blocks under box: checks checksums, parses the header,
 * decodes block 0 under DELTA. scratch: the calling thread's. */
int tsr_chunk_parts_open(const struct tsr_chunk_ref *ref, const void *src, size_t src_nbytes,
			 const struct tsr_chunk_box *box, struct tsr_scratch *scratch,
			 struct tsr_chunk_parts **parts_ret);
void tsr_chunk_parts_free(struct tsr_chunk_parts *parts);

/* How many pieces the box needs (0: decode the chunk whole instead). */
int64_t tsr_chunk_parts_count(const struct tsr_chunk_parts *parts);

/* Where piece i (0 <= i < count) lands. */
void tsr_chunk_parts_piece(const struct tsr_chunk_parts *parts, int64_t i,
			   struct tsr_chunk_piece *piece);

/* The stored bytes piece i decodes from: nbytes at *off (from the start of the chunk's stored
 * bytes), where no other piece's lie; decoding it reads nothing else of the chunk but the head
 * (tsr_chunk_parts_head). 0 when pieces cannot be read on their own (the whole chunk must be in
 * memory before any decodes). */
int tsr_chunk_parts_span(const struct tsr_chunk_parts *parts, int64_t i, uint64_t *off,
			 uint64_t *nbytes);

/* Reading a large chunk before its pieces decode is one thread's work; read piece by piece, by
 * the threads that decode them, it is all threads' work. The head of the stored bytes (the blosc
 * header, block table and dictionary) must come first: given the first `have` of src_nbytes
 * stored bytes at src, returns how many the head is (read more when that is over have, and ask
 * again), or 0 when the chunk must be read whole before it opens (steps before blosc,
 * DELTA, special or memcpyed chunks, anything unusual). tsr_chunk_parts_open then takes a buffer
 * of src_nbytes holding just the head, and tsr_chunk_parts_span says what each piece reads, or
 * that the rest must be read at once. */
size_t tsr_chunk_parts_head(const struct tsr_chunk_ref *ref, const void *src, size_t have,
			    uint64_t src_nbytes);

/* Decodes piece i into dst (piece.nbytes), values in native byte order; *decoded_ret += the
 * bytes decoded. A corrupt block's message names the block. */
int tsr_chunk_parts_decode(const struct tsr_chunk_parts *parts, int64_t i, void *dst,
			   struct tsr_scratch *scratch, uint64_t *decoded_ret);

#endif
