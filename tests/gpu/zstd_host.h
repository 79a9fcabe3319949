/* zstd_host.h - the GPU zstd decoder's three phases (src/cuda/zstd_core.h) run one after another on the CPU, for the emulator test and the fuzz target. */
#ifndef TSR_ZSTD_HOST_H
#define TSR_ZSTD_HOST_H

#include <stdlib.h>

#define TSR_ZSTD_EMU 1
#include "cuda/zstd_core.h"

/* Decodes stream in[0..n) into out (cap bytes) as the launcher does: scan (count, then
 * store), every compressed block (in reverse order, to show blocks need no earlier block's
 * decoding), layout, frames. *got: decoded bytes (0 on failure). Returns a status, or -1 when
 * malloc fails. */
static int tsr_zstd_host_decode(const uint8_t *in, size_t n, uint8_t *out, size_t cap,
				size_t *got)
{
	struct tsr_zs_count c, c2;
	struct tsr_zs_xs xs;
	*got = 0;
	int st = tsr_zs_scan(in, n, NULL, 0, NULL, 0, &c);
	if (st != TSR_CUDA_ZSTD_OK)
		return st;
	if (c.nlit > cap || c.nseq * 3 > cap)
		return TSR_CUDA_ZSTD_E_OVERFLOW; /* (the launcher's scratch bound) */
	struct tsr_zs_frame *fr = malloc((c.nframes + 1) * sizeof *fr);
	struct tsr_zs_block *bl = malloc((c.nblocks + 1) * sizeof *bl);
	uint8_t *lits = malloc(c.nlit + 1);
	struct tsr_zs_seq *seqs = malloc((c.nseq + 1) * sizeof *seqs);
	struct tsr_zs_work *w = malloc(sizeof *w);
	if (!fr || !bl || !lits || !seqs || !w) {
		st = -1;
		goto out;
	}
	st = tsr_zs_scan(in, n, fr, c.nframes, bl, c.nblocks, &c2);
	if (st != TSR_CUDA_ZSTD_OK)
		goto out;
	for (uint32_t i = c.nblocks; i-- > 0;)
		if (bl[i].type == 2)
			bl[i].status = tsr_zs_block_decode(w, in, bl, i, lits + bl[i].lit_at,
							   seqs + bl[i].seq_at);
	uint64_t total;
	st = tsr_zs_layout(fr, c.nframes, bl, cap, &total);
	for (uint32_t f = 0; f < c.nframes && st == TSR_CUDA_ZSTD_OK; f++)
		st = tsr_zs_frame_exec(&xs, in, &fr[f], bl, lits, seqs, out);
	if (st == TSR_CUDA_ZSTD_OK)
		*got = total;
out:
	free(fr);
	free(bl);
	free(lits);
	free(seqs);
	free(w);
	return st;
}

#endif
