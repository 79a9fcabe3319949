/* zstd_host.h - the GPU zstd decoder's three phases (src/cuda/zstd_core.h; phase c also as blocks in parallel, zstd_cells_core.h) run one after another on the CPU, for the emulator tests and the fuzz target. */
#ifndef TSR_ZSTD_HOST_H
#define TSR_ZSTD_HOST_H

#include <stdlib.h>

#define TSR_ZSTD_EMU 1
#include "cuda/zstd_core.h"
#include "cuda/zstd_lits_core.h"
#include "cuda/zstd_exec_core.h"
#include "cuda/zstd_cells_core.h"

/* What the cells' phase c did over a process (tsr_zstd_host_decode_cells): cells that
 * pointed into an earlier block, and the hops of the longest chain followed. */
static unsigned long long tsr_zs_host_pointers, tsr_zs_host_max_hops;

/* Blocks whose literals phase b decoded into the output (tsr_zs_lits_out), over a process. */
static unsigned long long tsr_zs_host_lits_out;

/* Frame f's bytes from its cells once each of its blocks wrote them (bst: their statuses,
 * indexed as the stream's blocks): the first failing block's status, or every byte followed (in
 * reverse order: no byte waits for another; counted in tsr_zs_host_pointers and _max_hops) and
 * the checksum checked. */
static int tsr_zstd_host_cells_out(const uint32_t *cells, const int32_t *bst,
				   const struct tsr_zs_frame *f, uint64_t size, uint8_t *out)
{
	for (uint32_t k = f->first_block; k < f->first_block + f->nblocks; k++)
		if (bst[k] != TSR_CUDA_ZSTD_OK)
			return bst[k];
	for (uint64_t p = size; p-- > 0;) {
		uint32_t c = cells[p];
		unsigned long long hops = 0;
		tsr_zs_host_pointers += !(c & TSR_ZS_CELL_BYTE);
		while (!(c & TSR_ZS_CELL_BYTE)) {
			c = cells[c];
			hops++;
		}
		if (hops > tsr_zs_host_max_hops)
			tsr_zs_host_max_hops = hops;
		out[f->out_at + p] = tsr_zs_cell_byte(cells, p);
	}
	uint64_t hv[4]; /* (the checksum's chains, as the cells' checksum kernel runs them) */
	if (f->has_checksum && (uint32_t)tsr_zs_xxh64_lanes(out + f->out_at, size, hv) != f->checksum)
		return TSR_CUDA_ZSTD_E_CHECKSUM;
	return TSR_CUDA_ZSTD_OK;
}

/* Frame f by cells (zstd_cells_core.h) as a launcher would run it: every block's repeat
 * function, the frame's entries, every block's cells (in reverse order: no block waits for
 * another), the frame's first failing block's status, or every byte followed (in reverse
 * order) and the checksum. -1 when malloc fails. */
static int tsr_zstd_host_frame_cells(struct tsr_zs_xs *xs, const uint8_t *in,
				     const struct tsr_zs_frame *f, const struct tsr_zs_block *bl,
				     const uint8_t *lits, const struct tsr_zs_seq *seqs,
				     uint8_t *out)
{
	uint64_t size = tsr_zs_frame_size(f, bl);
	/* (reps, e and bst indexed as the stream's blocks) */
	size_t nb = (size_t)f->first_block + f->nblocks + 1;
	uint32_t *cells = malloc(size * sizeof *cells + 1);
	struct tsr_zs_reps *reps = malloc(nb * sizeof *reps);
	struct tsr_zs_entry *e = malloc(nb * sizeof *e);
	int32_t *bst = malloc(nb * sizeof *bst);
	int st = -1;
	if (!cells || !reps || !e || !bst)
		goto out;
	const uint32_t b0 = f->first_block, b1 = f->first_block + f->nblocks;
	for (uint32_t k = b1; k-- > b0;)
		tsr_zs_block_reps(&bl[k], seqs + (bl[k].type == 2 ? bl[k].seq_at : 0), &reps[k]);
	tsr_zs_frame_entries(f, bl, reps, e);
	for (uint32_t k = b1; k-- > b0;)
		bst[k] = tsr_zs_block_cells(xs, in, f, &bl[k], &e[k], lits, seqs, cells);
	st = tsr_zstd_host_cells_out(cells, bst, f, size, out);
out:
	free(cells);
	free(reps);
	free(e);
	free(bst);
	return st;
}

/* Decodes stream in[0..n) into out (cap bytes) as the launcher does: scan (count, then
 * store), every compressed block (in reverse order, to show blocks need no earlier block's
 * decoding), layout, frames (cells: by tsr_zstd_host_frame_cells, else tsr_zs_frame_exec).
 * With cells the sequences take their 32-bit tables too (tsr_zs_seqx, a small batch's
 * kernel), so a test comparing the two ways compares both table widths.
 * *got: decoded bytes (0 on failure). Returns a status, or -1 when malloc fails. */
static int tsr_zstd_host_run(const uint8_t *in, size_t n, uint8_t *out, size_t cap, size_t *got,
			     int cells)
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
	/* a thread's tables, the 32-bit ones (cells) over the 16-bit ones as the kernel lays
	 * them out for a small batch (tsr_zs_seqx_over) */
	struct tsr_zs_seqw *q = malloc(TSR_ZS_SEQX_NBYTES > TSR_ZS_SEQW_NBYTES ? TSR_ZS_SEQX_NBYTES
									 : TSR_ZS_SEQW_NBYTES);
	if (!fr || !bl || !lits || !seqs || !w || !q) {
		st = -1;
		goto out;
	}
	st = tsr_zs_scan(in, n, fr, c.nframes, bl, c.nblocks, &c2);
	if (st != TSR_CUDA_ZSTD_OK)
		goto out;
	for (uint32_t i = c.nblocks; i-- > 0;) {
		if (bl[i].type != 2)
			continue;
		uint8_t *direct = tsr_zs_lits_out(&bl[i], out, cap, cells);
		bl[i].lit_out = direct != NULL;
		tsr_zs_host_lits_out += bl[i].lit_out;
		/* the sequences even where the literals failed, as the launcher's kernels side by
		 * side decode them (zstd.cu, tsr_zs_side); the literals' failure first */
		int ls = tsr_zs_block_lits(w, in, bl, i, tsr_zs_lits_dst(&bl[i], direct, lits), 1);
		int qs = tsr_zs_block_seqs(q, cells ? tsr_zs_seqx_over(q) : NULL, in, bl, i,
					   seqs + bl[i].seq_at);
		bl[i].status = tsr_zs_block_status(ls, qs);
	}
	uint64_t total;
	st = tsr_zs_layout(fr, c.nframes, bl, cap, &total);
	for (uint32_t f = 0; f < c.nframes && st == TSR_CUDA_ZSTD_OK; f++)
		st = cells ? tsr_zstd_host_frame_cells(&xs, in, &fr[f], bl, lits, seqs, out)
			   : tsr_zs_frame_exec(&xs, in, &fr[f], bl, lits, seqs, out);
	if (st == TSR_CUDA_ZSTD_OK)
		*got = total;
out:
	free(fr);
	free(bl);
	free(lits);
	free(seqs);
	free(w);
	free(q);
	return st;
}

/* The launcher's decoding, phase c a warp a frame (tsr_zs_frame_exec). */
static inline int tsr_zstd_host_decode(const uint8_t *in, size_t n, uint8_t *out,
				       size_t cap, size_t *got)
{
	return tsr_zstd_host_run(in, n, out, cap, got, 0);
}

/* The same, phase c by cells (zstd_cells_core.h). */
static inline int tsr_zstd_host_decode_cells(const uint8_t *in, size_t n, uint8_t *out,
					     size_t cap, size_t *got)
{
	return tsr_zstd_host_run(in, n, out, cap, got, 1);
}

#endif
