/* zstd_cells_core.h - phase c of a large zstd frame with its blocks in parallel: each block's output as 32-bit cells (a byte, or where in an earlier block it comes from), then a thread a byte following them; also builds as C for the CPU. */
#ifndef TSR_ZSTD_CELLS_CORE_H
#define TSR_ZSTD_CELLS_CORE_H

#include "zstd_exec_core.h"

/*
 * tsr_zs_frame_exec runs a frame's sequences in order on one warp: a frame of 32 MiB (256
 * blocks, about 4 million sequences) is then one warp's serial work while the rest of the GPU
 * idles. Executing a block needs two things from the blocks before it, and both can be had
 * without waiting for them (docs/zstd-phase-c-research.md, design A):
 * - Its repeat offsets on entry. A block's sequences move the three repeat offsets in a way
 *   that depends only on its own sequences, so each block's exit offsets are a function of its
 *   entry ones: each is a value of its own, or entry offset s minus d (the "offset 1 - 1"
 *   code). tsr_zs_block_reps finds that function for every block in parallel; the frame's
 *   blocks then compose them in order (tsr_zs_frame_entries: a few operations a block).
 * - The bytes its matches copy from earlier blocks. A block writes cells, not bytes: a literal
 *   byte is TSR_ZS_CELL_BYTE | byte; a match byte whose source lies in an earlier block is the
 *   source's position in the frame (a pointer), found without reading it; a match byte whose
 *   source lies in this block copies that cell (already final: a match reads only positions
 *   before it). So every block runs at once (tsr_zs_block_cells: a warp a block).
 * Then each output byte follows its pointers to a byte (tsr_zs_cell_byte: a thread a byte).
 * Every pointer a cell holds is below the first position of the block the cell is in, so a
 * chain strictly descends and ends, whatever the input; on the bench's volume data at level 3
 * about half the bytes are pointers, 2.4 hops on average (the research notes).
 * Positions are frame-relative and below 2^31 (a frame of 2 GiB or more keeps
 * tsr_zs_frame_exec). The cells are 4 bytes an output byte of scratch.
 * Statuses are tsr_zs_frame_exec's: a block's checks are the same, made in the same order
 * with the same offsets once the blocks before it are sound, and a frame reports its first
 * failing block (a block after a failed one may see wrong entry offsets and fail otherwise,
 * but a failed frame's later blocks are not reported, and their cells are never followed).
 */


/* A block's repeat offsets on exit as a function of those on entry: offset i is v[i] itself
 * (src[i] < 0) or entry offset src[i] minus v[i]. */
struct tsr_zs_reps {
	uint64_t v[3];
	int32_t src[3];
};

/* Where a block starts in its frame's output, and its repeat offsets on entry; frame and use
 * are the launcher's (the frame's index, and whether it runs by cells). */
struct tsr_zs_entry {
	uint64_t at;
	uint64_t rep[3];
	uint32_t frame, use;
};

/* The identity: every offset its entry one. */
TSR_ZD void tsr_zs_reps_identity(struct tsr_zs_reps *r)
{
	for (int i = 0; i < 3; i++) {
		r->v[i] = 0;
		r->src[i] = i;
	}
}

/* r, then sequences [from, to) of sq. Follows tsr_zs_place's updates; an offset it would
 * refuse (0) is carried as a value, and the block's execution refuses it. */
TSR_ZD void tsr_zs_reps_run(struct tsr_zs_reps *r, const struct tsr_zs_seq *sq, uint32_t from,
			    uint32_t to)
{
	for (uint32_t k = from; k < to; k++) {
		uint64_t ov = sq[k].of;
		uint64_t nv;
		int32_t ns;
		if (ov > 3) {
			nv = ov - 3;
			ns = -1;
		} else {
			unsigned idx = (unsigned)ov - 1 + (sq[k].ll == 0);
			if (idx == 0)
				continue;
			if (idx == 1) {
				nv = r->v[1];
				ns = r->src[1];
				r->v[1] = r->v[0];
				r->src[1] = r->src[0];
				r->v[0] = nv;
				r->src[0] = ns;
				continue;
			}
			if (idx == 2) {
				nv = r->v[2];
				ns = r->src[2];
			} else { /* offset 1 minus one: a value less one, or its entry's one more */
				ns = r->src[0];
				nv = ns < 0 ? r->v[0] - 1 : r->v[0] + 1;
			}
		}
		r->v[2] = r->v[1];
		r->src[2] = r->src[1];
		r->v[1] = r->v[0];
		r->src[1] = r->src[0];
		r->v[0] = nv;
		r->src[0] = ns;
	}
}

/* *f, then g, into *f: offset i of g is its own value, or offset src of f less g's value
 * (itself f's value, or f's entry offset less f's value). Arithmetic is modulo 2^64, as the
 * updates one by one are, so the result is theirs whatever the grouping. */
TSR_ZD void tsr_zs_reps_then(struct tsr_zs_reps *f, const struct tsr_zs_reps *g)
{
	struct tsr_zs_reps h;
	for (int i = 0; i < 3; i++) {
		int32_t j = g->src[i];
		if (j < 0) {
			h.v[i] = g->v[i];
			h.src[i] = -1;
		} else if (f->src[j] < 0) {
			h.v[i] = f->v[j] - g->v[i];
			h.src[i] = -1;
		} else {
			h.v[i] = f->v[j] + g->v[i];
			h.src[i] = f->src[j];
		}
	}
	*f = h;
}

/* The function of block b's sequences (sq: its records; a raw or RLE block: the identity). */
TSR_ZD void tsr_zs_block_reps(const struct tsr_zs_block *b, const struct tsr_zs_seq *sq,
			      struct tsr_zs_reps *r)
{
	tsr_zs_reps_identity(r);
	if (b->type == 2)
		tsr_zs_reps_run(r, sq, 0, b->nseq);
}

/* tsr_zs_block_reps by the lanes of a warp: each lane the function of a run of the block's
 * sequences into part[lane] (part: TSR_ZS_NLANES of them, shared memory on the GPU), then
 * lane 0 those functions one after another into *r (a lone thread walked every sequence). */
TSR_ZD void tsr_zs_block_reps_lanes(const struct tsr_zs_block *b, const struct tsr_zs_seq *sq,
				    struct tsr_zs_reps *part, struct tsr_zs_reps *r)
{
	uint32_t n = b->type == 2 ? b->nseq : 0, each = (n + TSR_ZS_NLANES - 1) / TSR_ZS_NLANES;
	uint32_t from = TSR_ZS_LANE * each < n ? TSR_ZS_LANE * each : n;
	uint32_t to = n - from < each ? n : from + each;
	tsr_zs_reps_identity(&part[TSR_ZS_LANE]);
	tsr_zs_reps_run(&part[TSR_ZS_LANE], sq, from, to);
	TSR_ZS_SYNC();
	if (TSR_ZS_LANE == 0) {
		struct tsr_zs_reps acc = part[0];
		for (uint32_t l = 1; l < TSR_ZS_NLANES; l++)
			tsr_zs_reps_then(&acc, &part[l]);
		*r = acc;
	}
	TSR_ZS_SYNC(); /* (before the lanes write part again) */
}

/* Frame f's blocks' entries (e, one a block), from their functions (reps, one a block), in
 * order: a few operations a block, for one thread a frame. */
TSR_ZD void tsr_zs_frame_entries(const struct tsr_zs_frame *f, const struct tsr_zs_block *blocks,
				 const struct tsr_zs_reps *reps, struct tsr_zs_entry *e)
{
	uint64_t at = 0, r[3] = {1, 4, 8};
	for (uint32_t k = 0; k < f->nblocks; k++) {
		const struct tsr_zs_reps *s = &reps[f->first_block + k];
		struct tsr_zs_entry *ek = &e[f->first_block + k];
		ek->at = at;
		uint64_t n[3];
		for (int i = 0; i < 3; i++) {
			ek->rep[i] = r[i];
			n[i] = s->src[i] < 0 ? s->v[i] : r[s->src[i]] - s->v[i];
		}
		for (int i = 0; i < 3; i++)
			r[i] = n[i];
		at += blocks[f->first_block + k].out_size;
	}
}

/* Frame f's decoded bytes (blocks: its stream's, phase b done). */
TSR_ZD uint64_t tsr_zs_frame_size(const struct tsr_zs_frame *f, const struct tsr_zs_block *blocks)
{
	uint64_t size = 0;
	for (uint32_t k = 0; k < f->nblocks; k++)
		size += blocks[f->first_block + k].out_size;
	return size;
}

/*
 * Block k of frame f (decoded by phase b; e: its entry) executed into the frame's cells by
 * the lanes of one warp (x: the warp's shared batch), 32 sequences at a time as
 * tsr_zs_frame_exec does, with the same checks in the same order (tsr_zs_place). Returns a
 * status.
 */
TSR_ZD int tsr_zs_block_cells(struct tsr_zs_xs *x, const uint8_t *in, const struct tsr_zs_frame *f,
			      const struct tsr_zs_block *b, const struct tsr_zs_entry *e,
			      const uint8_t *lits, const struct tsr_zs_seq *seqs, uint32_t *cells)
{
	uint32_t op = (uint32_t)e->at; /* (a frame by cells is below 2 GiB: zstd.cu) */
	if (b->type == 0) {
		tsr_zs_lit_cells(cells, op, in + b->in_at, b->out_size);
		return TSR_CUDA_ZSTD_OK;
	}
	if (b->type == 1) {
		uint32_t v = TSR_ZS_CELL_BYTE | in[b->in_at];
		for (uint32_t i = TSR_ZS_LANE; i < b->out_size; i += TSR_ZS_NLANES)
			cells[op + i] = v;
		return TSR_CUDA_ZSTD_OK;
	}
	/* (the entry offsets modulo 2^32: tsr_zs_place's are 32-bit, and tsr_zs_reps_then's
	 * arithmetic is modular, so they are the walk's in order) */
	uint32_t r[3] = {(uint32_t)e->rep[0], (uint32_t)e->rep[1], (uint32_t)e->rep[2]};
	return tsr_zs_block_run(x, in, b, lits, seqs, tsr_zs_window32(f), &op, r, NULL, cells, op,
				1);
}

/* The byte at frame position p, once every block of its frame wrote its cells without
 * failing: its cell's pointers followed down to a byte (each below the last). */
TSR_ZD uint8_t tsr_zs_cell_byte(const uint32_t *cells, uint64_t p)
{
	uint32_t c = cells[p];
	while (!(c & TSR_ZS_CELL_BYTE))
		c = cells[c];
	return (uint8_t)c;
}

#endif /* TSR_ZSTD_CELLS_CORE_H */
