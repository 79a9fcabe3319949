/* test_place_blocked_emu.c - the place kernel's blocked source addressing (place_core.h, built for the CPU) places random sections of random b2nd block layouts as a brute-force walk of the layout says. */
#define TSR_PLACE_EMU 1
/* rows of a few positions, so that gathers split their last unit into segments */
#define TSR_PC_SEG 5
#include "cuda/place_core.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_rng.h"

/*
 * A decoded Blosc2 b2nd chunk lies block by block: blocks of the block shape in C order over
 * the block grid of the padded chunk (the chunk shape rounded up to whole blocks), each block
 * a C-order box, edge blocks padded to the full block. The CUDA engine's place kernel reads
 * such a chunk with place_core.h's blocked mode (CI has no GPU: the same code runs here).
 *
 * The source here is built by walking that definition literally (block after block, element
 * after element, counting), holding at each in-extent element its C-order index over the
 * chunk's extent plus one, and POISON in the padding (past the extent of an edge chunk, and
 * past the chunk shape in padded blocks). Random layouts (1 to 5 axes, blocks of 1 to 5,
 * edge chunks smaller than the chunk shape) are placed for random strided boxes and random
 * gathers; every element must come from inside the source, never from padding, land inside
 * the output exactly once, and be the element the section names.
 */

#define POISON (-7)

struct layout {
	int nd;
	int64_t extent[TSR_CUDA_MAX_DIM], chunk[TSR_CUDA_MAX_DIM], block[TSR_CUDA_MAX_DIM];
	int64_t padded[TSR_CUDA_MAX_DIM];
	int64_t nsrc, npix;
};

static int64_t rnd(int64_t n)
{
	return (int64_t)(rng() % (uint64_t)n);
}

static void random_layout(struct layout *L)
{
	L->nd = 1 + (int)rnd(5);
	L->nsrc = L->npix = 1;
	for (int d = 0; d < L->nd; d++) {
		L->block[d] = 1 + rnd(5);
		L->chunk[d] = 1 + rnd(11);
		/* an edge chunk is clipped by the array (b2nd stores it padded to the chunk) */
		L->extent[d] = rnd(2) ? L->chunk[d] : 1 + rnd(L->chunk[d]);
		L->padded[d] = (L->chunk[d] + L->block[d] - 1) / L->block[d] * L->block[d];
		L->nsrc *= L->padded[d];
		L->npix *= L->extent[d];
	}
}

/* The source by the definition: walk blocks in C order over the grid, then each block's
 * elements in C order, numbering the source positions as they come. */
static void build_source(const struct layout *L, int64_t *src)
{
	int nd = L->nd;
	int64_t grid[TSR_CUDA_MAX_DIM], g[TSR_CUDA_MAX_DIM] = {0}, nblocks = 1, belem = 1;
	for (int d = 0; d < nd; d++) {
		grid[d] = L->padded[d] / L->block[d];
		nblocks *= grid[d];
		belem *= L->block[d];
	}
	int64_t pos = 0;
	for (int64_t b = 0; b < nblocks; b++) {
		int64_t x[TSR_CUDA_MAX_DIM] = {0};
		for (int64_t k = 0; k < belem; k++) {
			int inside = 1;
			int64_t lin = 0;
			for (int d = 0; d < nd; d++) {
				int64_t c = g[d] * L->block[d] + x[d];
				inside &= c < L->extent[d];
				lin = lin * L->extent[d] + c;
			}
			src[pos++] = inside ? lin + 1 : POISON;
			for (int d = nd - 1; d >= 0; d--) { /* next element of the block */
				if (++x[d] < L->block[d])
					break;
				x[d] = 0;
			}
		}
		for (int d = nd - 1; d >= 0; d--) { /* next block of the grid */
			if (++g[d] < grid[d])
				break;
			g[d] = 0;
		}
	}
	CHECK_EQ_INT(pos, L->nsrc);
}

static void set_layout(const struct layout *L, struct tsr_cuda_place *pl)
{
	memset(pl, 0, sizeof(*pl));
	pl->ndim = L->nd;
	pl->blocked = 1;
	pl->src_npix = L->nsrc;
	for (int d = 0; d < L->nd; d++) {
		pl->extent[d] = L->extent[d];
		pl->block[d] = L->block[d];
		pl->padded[d] = L->padded[d];
	}
}

/* Runs the place over src into out (nout elements, -1 where unwritten): counts writes. */
static int run_place(const struct tsr_cuda_place *pl, const struct layout *L, const int64_t *src,
		     int64_t *out, int64_t nout)
{
	int64_t cstride[TSR_CUDA_MAX_DIM], n = 1;
	for (int d = L->nd - 1; d >= 0; d--) {
		cstride[d] = n;
		n *= L->extent[d];
	}
	int bad = 0;
	int64_t nmax, rows = tsr_pc_rows(pl, &nmax);
	for (int64_t r = 0; r < rows; r++) {
		struct tsr_pc_row row;
		tsr_pc_row(pl, cstride, r, &row);
		CHECK(row.n <= nmax);
		for (int64_t j = 0; j < row.n; j++) {
			int64_t e, o;
			tsr_pc_at(&row, j, &e, &o);
			if (e < 0 || e >= L->nsrc || o < 0 || o >= nout || out[o] != -1) {
				bad++;
				continue;
			}
			out[o] = src[e];
		}
	}
	return bad;
}

/* A strided box: first, step, count per axis; the output C order over count after out_first. */
static void test_box(const struct layout *L, const int64_t *src)
{
	struct tsr_cuda_place pl;
	set_layout(L, &pl);
	int64_t nout = 1;
	for (int d = 0; d < L->nd; d++) {
		pl.first[d] = rnd(L->extent[d]);
		pl.step[d] = 1 + rnd(3);
		int64_t most = (L->extent[d] - 1 - pl.first[d]) / pl.step[d] + 1;
		pl.count[d] = 1 + rnd(most);
	}
	for (int d = L->nd - 1; d >= 0; d--) {
		pl.out_stride[d] = nout;
		nout *= pl.count[d];
	}
	pl.out_first = rnd(4);
	nout += pl.out_first;
	int64_t *out = malloc((size_t)nout * sizeof(int64_t));
	for (int64_t i = 0; i < nout; i++)
		out[i] = -1;
	CHECK_EQ_INT(run_place(&pl, L, src, out, nout), 0);
	/* brute force: every point of the box, from its coordinates */
	int64_t k[TSR_CUDA_MAX_DIM] = {0}, npts = nout - pl.out_first, wrong = 0;
	for (int64_t p = 0; p < npts; p++) {
		int64_t lin = 0, o = pl.out_first;
		for (int d = 0; d < L->nd; d++) {
			lin = lin * L->extent[d] + pl.first[d] + k[d] * pl.step[d];
			o += k[d] * pl.out_stride[d];
		}
		wrong += out[o] != lin + 1;
		for (int d = L->nd - 1; d >= 0; d--) {
			if (++k[d] < pl.count[d])
				break;
			k[d] = 0;
		}
	}
	for (int64_t i = 0; i < pl.out_first; i++)
		wrong += out[i] != -1;
	CHECK_EQ_INT(wrong, 0);
	free(out);
}

/* A gather: one unit per axis, each a few random coordinates (repeats allowed), whose
 * tables give C-order chunk offsets (as tsr_gather_table does) and output offsets. */
static void test_gather(const struct layout *L, const int64_t *src)
{
	struct tsr_cuda_place pl;
	set_layout(L, &pl);
	int nd = L->nd;
	int64_t cstride[TSR_CUDA_MAX_DIM], ostride[TSR_CUDA_MAX_DIM], n = 1, words = 0;
	int64_t coord[TSR_CUDA_MAX_DIM][16];
	for (int d = nd - 1; d >= 0; d--) {
		cstride[d] = n;
		n *= L->extent[d];
	}
	for (int d = 0; d < nd; d++) {
		/* the last unit long enough, at times, for several segments */
		pl.count[d] = 1 + rnd(d == nd - 1 ? 16 : 4);
		words += 2 * pl.count[d];
		for (int64_t k = 0; k < pl.count[d]; k++)
			coord[d][k] = rnd(L->extent[d]);
	}
	int64_t nout = 1;
	for (int d = nd - 1; d >= 0; d--) {
		ostride[d] = nout;
		nout *= pl.count[d];
	}
	int64_t *tab = malloc((size_t)words * sizeof(int64_t)), at = 0;
	for (int d = 0; d < nd; d++) {
		for (int64_t k = 0; k < pl.count[d]; k++) {
			tab[at + k] = coord[d][k] * cstride[d];
			tab[at + pl.count[d] + k] = k * ostride[d];
		}
		at += 2 * pl.count[d];
	}
	pl.nunits = nd;
	pl.units = (uint64_t)(uintptr_t)tab;
	int64_t *out = malloc((size_t)nout * sizeof(int64_t));
	for (int64_t i = 0; i < nout; i++)
		out[i] = -1;
	CHECK_EQ_INT(run_place(&pl, L, src, out, nout), 0);
	int64_t k[TSR_CUDA_MAX_DIM] = {0}, wrong = 0;
	for (int64_t p = 0; p < nout; p++) {
		int64_t lin = 0, o = 0;
		for (int d = 0; d < nd; d++) {
			lin = lin * L->extent[d] + coord[d][k[d]];
			o += k[d] * ostride[d];
		}
		wrong += out[o] != lin + 1;
		for (int d = nd - 1; d >= 0; d--) {
			if (++k[d] < pl.count[d])
				break;
			k[d] = 0;
		}
	}
	CHECK_EQ_INT(wrong, 0);
	free(out);
	free(tab);
}

int main(void)
{
	int padded_blocks = 0, clipped = 0, poisoned_src = 0;
	for (int trial = 0; trial < 3000; trial++) {
		struct layout L;
		random_layout(&L);
		int64_t *src = malloc((size_t)L.nsrc * sizeof(int64_t));
		build_source(&L, src);
		for (int d = 0; d < L.nd; d++) {
			padded_blocks += L.padded[d] != L.chunk[d];
			clipped += L.extent[d] != L.chunk[d];
		}
		poisoned_src += L.nsrc != L.npix;
		/* the element index of every extent element, through tsr_pc_blocked_elem */
		struct tsr_cuda_place pl;
		set_layout(&L, &pl);
		int64_t wrong = 0;
		for (int64_t e = 0; e < L.npix; e++) {
			int64_t s = tsr_pc_blocked_elem(&pl, e);
			wrong += s < 0 || s >= L.nsrc || src[s] != e + 1;
		}
		CHECK_EQ_INT(wrong, 0);
		for (int k = 0; k < 4; k++)
			test_box(&L, src);
		test_gather(&L, src);
		free(src);
	}
	/* the random layouts did hold padded edge blocks, clipped edge chunks and padding */
	CHECK(padded_blocks > 100 && clipped > 100 && poisoned_src > 1000);
	CHECK_DONE();
}
