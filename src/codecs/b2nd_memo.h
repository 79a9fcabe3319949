/* b2nd_memo.h - a thread's last decoded Blosc2 block, kept with the exact bytes it came from. */
#ifndef TSR_B2ND_MEMO_H
#define TSR_B2ND_MEMO_H

#include <stddef.h>
#include <stdint.h>

#include "blosc.h"
#include "codecs.h"

/*
 * A read inside one block (a[3, 5, 7], or neighbouring elements one call at a time) decodes the
 * whole block: up to megabytes of zstd for a few bytes. The memo keeps, in the thread's
 * struct tsr_scratch, the last such block decoded and the bytes that decide its values: the
 * chunk header (its cbytes field aside, which a part fetch rewrites), the dictionary and the
 * block's own streams. A later one-block read of the same bytes copies from the memo instead
 * of decoding; any other bytes decode afresh. Keyed by content, not by file or handle, so it
 * can never hand out another array's block or a rewritten file's old one, and needs no
 * invalidation. Not for DELTA chunks (their blocks need block 0 too), nor blocks over 32 MiB.
 * Memory: one block and its stored bytes per worker state.
 */

/* Block b (not the chunk's last unless whole: see tsr_blosc_decode_blocks) of the blosc chunk
 * src, decoded: from the memo when its bytes match, else decoded into the memo. *run_ret points
 * into the memo until the scratch's next use; *decoded_ret grows by the bytes decoded (0 on a
 * match). Returns 1 when the memo cannot take the block (no memory, DELTA, too large): decode
 * it as usual. */
int tsr_b2nd_memo_block(const struct tsr_blosc_info *in, const void *src, size_t src_nbytes,
			int64_t b, struct tsr_scratch *s, uint8_t **run_ret, uint64_t *decoded_ret);

/* Frees the memo of a scratch (tsr_scratch_free calls it). */
void tsr_b2nd_memo_free(void *memo);

#endif
