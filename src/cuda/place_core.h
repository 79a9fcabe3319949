/* place_core.h - where the place kernel's rows and elements come from and go (a task's strided
 * box, or its gather units); also builds as C for the CPU (TSR_PLACE_EMU). */
#ifndef TSR_PLACE_CORE_H
#define TSR_PLACE_CORE_H

#include <stdint.h>

#include "place.h"

#ifdef TSR_PLACE_EMU
#define TSR_PC static inline
#else
#define TSR_PC static __device__ __forceinline__
#endif

/*
 * A task is rows of elements. A box: its last axis is a row, the others count rows, and an
 * element lies at a fixed step from the row's first. A gather (nunits > 0): its last unit, in
 * segments of at most TSR_PC_SEG positions, is a row, the others (and the segments) count
 * rows, and each unit's position adds its tabled offsets, so points go where the plan says
 * with no stride (src/engine/cpu.c places them on the CPU the same way). Segments let many
 * blocks share a chunk whose points are all in one unit (a vectorised key's one group).
 */
struct tsr_pc_row {
	int64_t s, d;            /* the row's base: chunk-local element, output element */
	int64_t n;               /* its elements */
	int64_t sstep, dstep;    /* box: one element's move */
	const int64_t *ls, *ld;  /* gather: the row's offsets in the last unit (NULL: box) */
	/* Blocked source, box: s is the source element of the row's other coordinates; its
	 * element j is at last-axis coordinate x = x0 + j * sstep, in block x / bl (bn elements
	 * a block) at x % bl. bl 0: not blocked. */
	int64_t x0, bl, bn;
	/* Blocked source, gather: the place whose layout maps a C-order element (NULL: none) */
	const struct tsr_cuda_place *bpl;
};

/* The rows and elements thread t of CTA y (of gy along the grid's y) takes of a task whose rows
 * have at most nmax elements: rows r0, r0 + rstep, ... and of each row the elements (or 16-byte
 * vectors) lane, lane + lanes, ... (place.h: tsr_pc_row_lanes). */
struct tsr_pc_share {
	int r0, rstep; /* (a grid's y is at most 65,535 CTAs of at most 32 rows) */
	int lane, lanes;
};

TSR_PC struct tsr_pc_share tsr_pc_share_of(int64_t nmax, unsigned y, unsigned gy, unsigned t)
{
	struct tsr_pc_share sh;
	sh.lanes = tsr_pc_row_lanes(nmax);
	int per = tsr_pc_row_per(nmax);
	sh.lane = (int)(t % (unsigned)sh.lanes);
	sh.r0 = (int)y * per + (int)(t / (unsigned)sh.lanes);
	sh.rstep = (int)gy * per;
	return sh;
}

/* A contiguous row of n elements of wi bytes from source address sp to output address dp, when
 * both share their alignment (returns 1): its first *head elements one at a time (they align
 * the output), then *nvec 16-byte vectors, then the rest one at a time; an output whose
 * elements straddle 16-byte lines goes all one at a time (*head = n). Returns 0 otherwise. */
TSR_PC int tsr_pc_vec_split(uintptr_t sp, uintptr_t dp, int wi, int64_t n, int64_t *head,
			    int64_t *nvec)
{
	if ((sp - dp) & 15)
		return 0;
	int64_t h = (int64_t)(((16 - (dp & 15)) & 15) / (uintptr_t)wi);
	if ((dp & 15) % (uintptr_t)wi)
		h = n;
	h = h < n ? h : n;
	*head = h;
	*nvec = (n - h) * wi / 16;
	return 1;
}

/* Elements of a block of a blocked source. */
TSR_PC int64_t tsr_pc_block_nelem(const struct tsr_cuda_place *pl)
{
	int64_t bn = 1;
	for (int d = 0; d < pl->ndim; d++)
		bn *= pl->block[d];
	return bn;
}

/* The source element of C-order chunk element e (over extent) in a blocked source: each axis
 * adds its block's place in the block grid and its place in the block, so the sum separates
 * by axis (tsr_pc_row uses that for a box's rows). */
TSR_PC int64_t tsr_pc_blocked_elem(const struct tsr_cuda_place *pl, int64_t e)
{
	int64_t bn = tsr_pc_block_nelem(pl), gs = bn, bs = 1, s = 0;
	for (int d = pl->ndim - 1; d >= 0; d--) {
		int64_t c = e % pl->extent[d];
		e /= pl->extent[d];
		s += c / pl->block[d] * gs + c % pl->block[d] * bs;
		gs *= pl->padded[d] / pl->block[d];
		bs *= pl->block[d];
	}
	return s;
}

/* Row r of a place's rows (a run's: its tasks' rows one task after another, trows each): the
 * task k it is of (returned) and its row *rr of that task. */
TSR_PC int64_t tsr_pc_run_row(int64_t r, int64_t trows, int run, int64_t *rr)
{
	if (run <= 1) {
		*rr = r;
		return 0;
	}
	/* in 32 bits where both fit (a slot's rows do): a 64-bit division costs a GPU thread
	 * several times more */
	int64_t k = (r | trows) >> 31 ? r / trows : (int64_t)((uint32_t)r / (uint32_t)trows);
	*rr = r - k * trows;
	return k;
}

/* Row r of a box of a C-order source (neither gather nor blocked source); cstride: the
 * chunk's C-order strides. The place kernel's variant without the general paths uses it
 * alone. */
TSR_PC void tsr_pc_row_box(const struct tsr_cuda_place *pl, const int64_t *cstride, int64_t r,
			   struct tsr_pc_row *row)
{
	int64_t rem = r, sidx = 0, didx = pl->out_first;
	int nd = pl->ndim;
	row->bpl = 0;
	row->x0 = row->bl = row->bn = 0;
	for (int d = nd - 2; d >= 0; d--) {
		int64_t k = rem % pl->count[d];
		rem /= pl->count[d];
		sidx += (pl->first[d] + k * pl->step[d]) * cstride[d];
		didx += k * pl->out_stride[d];
	}
	if (nd)
		sidx += pl->first[nd - 1];
	row->s = sidx;
	row->d = didx;
	row->n = nd ? pl->count[nd - 1] : 1;
	row->sstep = nd ? pl->step[nd - 1] : 0;
	row->dstep = nd ? pl->out_stride[nd - 1] : 0;
	row->ls = row->ld = 0;
}

/* Row r (0 <= r < rows) of the task; cstride: the chunk's C-order strides (box only). */
TSR_PC void tsr_pc_row(const struct tsr_cuda_place *pl, const int64_t *cstride, int64_t r,
		       struct tsr_pc_row *row)
{
	int64_t rem = r, sidx = 0, didx = 0;
	if (pl->nunits > 0) {
		const int64_t *tab = (const int64_t *)(uintptr_t)pl->units;
		int nu = pl->nunits;
		int64_t at[TSR_CUDA_MAX_DIM], off = 0;
		for (int u = 0; u < nu; u++) {
			at[u] = off;
			off += 2 * pl->count[u];
		}
		int64_t last = pl->count[nu - 1];
		int64_t nseg = last > TSR_PC_SEG ? (last + TSR_PC_SEG - 1) / TSR_PC_SEG : 1;
		int64_t seg = rem % nseg;
		rem /= nseg;
		for (int u = nu - 2; u >= 0; u--) {
			int64_t k = rem % pl->count[u];
			rem /= pl->count[u];
			sidx += tab[at[u] + k];
			didx += tab[at[u] + pl->count[u] + k];
		}
		row->s = sidx;
		row->d = didx;
		row->n = nseg > 1 ? (seg + 1 < nseg ? TSR_PC_SEG : last - seg * TSR_PC_SEG) : last;
		row->ls = tab + at[nu - 1] + (nseg > 1 ? seg * TSR_PC_SEG : 0);
		row->ld = tab + at[nu - 1] + last + (nseg > 1 ? seg * TSR_PC_SEG : 0);
		row->sstep = row->dstep = 0;
		row->x0 = row->bl = row->bn = 0;
		row->bpl = pl->blocked ? pl : 0;
		return;
	}
	int nd = pl->ndim;
	didx = pl->out_first;
	row->bpl = 0;
	if (pl->blocked && nd) {
		/* gs: elements of the block grid's step on axis d; bs: of the in-block step */
		int64_t bn = tsr_pc_block_nelem(pl), gs = bn, bs = 1;
		for (int d = nd - 1; d >= 0; d--) {
			if (d < nd - 1) {
				int64_t k = rem % pl->count[d];
				rem /= pl->count[d];
				int64_t c = pl->first[d] + k * pl->step[d];
				sidx += c / pl->block[d] * gs + c % pl->block[d] * bs;
				didx += k * pl->out_stride[d];
			}
			gs *= pl->padded[d] / pl->block[d];
			bs *= pl->block[d];
		}
		row->s = sidx;
		row->d = didx;
		row->n = pl->count[nd - 1];
		row->sstep = pl->step[nd - 1];
		row->dstep = pl->out_stride[nd - 1];
		row->ls = row->ld = 0;
		row->x0 = pl->first[nd - 1];
		row->bl = pl->block[nd - 1];
		row->bn = bn;
		return;
	}
	tsr_pc_row_box(pl, cstride, r, row);
}

/* Where the bytes of source element e lie in byte planes (plane b holds byte b of every
 * element; FITS GZIP_2 tiles, blosc chunks with a lone shuffle): byte b at *at + b * *n. The
 * planes restart every `block` elements (blosc shuffles each block alone, the last holding the
 * rest of the nsrc elements: a b2nd chunk's padded ones), or block 0: one set for all. */
TSR_PC void tsr_pc_planes(int64_t e, int64_t nsrc, int w, int64_t block, int64_t *at, int64_t *n)
{
	int64_t start = 0;
	if (block > 0) {
		/* in 32 bits where both fit (a blosc chunk holds under 2 GiB, so always there): a
		 * 64-bit division, once an element, costs a GPU thread several times more */
		int64_t b = (e | block) >> 31 ? e / block
					       : (int64_t)((uint32_t)e / (uint32_t)block);
		start = b * block;
		nsrc = nsrc - start < block ? nsrc - start : block;
	}
	*at = start * w + (e - start);
	*n = nsrc;
}

/* Element j of a row: its source element *e (chunk-local: C order over the extent, or where a
 * blocked source holds it) and output element *o. */
TSR_PC void tsr_pc_at(const struct tsr_pc_row *row, int64_t j, int64_t *e, int64_t *o)
{
	if (row->ls) {
		*e = row->s + row->ls[j];
		*o = row->d + row->ld[j];
		if (row->bpl)
			*e = tsr_pc_blocked_elem(row->bpl, *e);
	} else if (row->bl) {
		/* in 32 bits (a blosc chunk holds under 2 GiB, so its coordinates fit): a 64-bit
		 * division costs a GPU thread several times more */
		uint32_t x = (uint32_t)(row->x0 + j * row->sstep), bl = (uint32_t)row->bl;
		*e = row->s + (int64_t)(x / bl) * row->bn + (int64_t)(x % bl);
		*o = row->d + j * row->dstep;
	} else {
		*e = row->s + j * row->sstep;
		*o = row->d + j * row->dstep;
	}
}

#endif
