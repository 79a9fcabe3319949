/* test_place_box_emu.c - the place kernel's box-only rows (place_core.h's tsr_pc_row_box, built for the CPU) put every element of random strided boxes where the selection says, as the general rows do. */
#define TSR_PLACE_EMU 1
#include "cuda/place_core.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_rng.h"

/*
 * A slot whose places are all boxes of C-order sources runs the place kernel without its gather
 * and blocked paths (place.cu: tsr_place_kernel<false>), which walks a task's rows with
 * tsr_pc_row_box and element j of a row at s + j * sstep, d + j * dstep. Here, for thousands of
 * random boxes (1 to 5 axes, steps of either sign, outputs with room around the box), the rows
 * are walked that way and each element's source and output are checked against the selection
 * computed directly (first + k * step on each axis, C-order strides; out_first + k . out_stride):
 * every output element written once, from the right source element, nothing around it; and the
 * general kernel's rows (tsr_pc_row, tsr_pc_at) are the same rows.
 */

static int64_t rnd(int64_t n) /* [0, n) */
{
	return n > 0 ? (int64_t)(rng() % (uint64_t)n) : 0;
}

static int one_box(void)
{
	struct tsr_cuda_place pl;
	memset(&pl, 0, sizeof(pl));
	int nd = 1 + (int)rnd(5);
	pl.ndim = nd;
	int64_t cstride[TSR_CUDA_MAX_DIM], npix = 1, nsel = 1;
	for (int d = 0; d < nd; d++) {
		pl.extent[d] = 1 + rnd(9);
		int64_t step = 1 + rnd(3);
		int64_t span = (pl.extent[d] - 1) / step + 1; /* positions a step allows */
		pl.count[d] = 1 + rnd(span);
		int64_t room = pl.extent[d] - ((pl.count[d] - 1) * step + 1);
		if (rng() & 1) {
			pl.step[d] = -step;
			pl.first[d] = pl.extent[d] - 1 - rnd(room + 1);
		} else {
			pl.step[d] = step;
			pl.first[d] = rnd(room + 1);
		}
		nsel *= pl.count[d];
	}
	for (int d = nd - 1; d >= 0; d--) {
		cstride[d] = npix;
		npix *= pl.extent[d];
	}
	/* the output: the box inside a larger C-order array, at a random corner */
	int64_t oshape[TSR_CUDA_MAX_DIM], ocorner[TSR_CUDA_MAX_DIM], onpix = 1;
	for (int d = 0; d < nd; d++) {
		oshape[d] = pl.count[d] + rnd(3);
		ocorner[d] = rnd(oshape[d] - pl.count[d] + 1);
	}
	for (int d = nd - 1; d >= 0; d--) {
		pl.out_stride[d] = onpix;
		onpix *= oshape[d];
	}
	pl.out_first = 0;
	for (int d = 0; d < nd; d++)
		pl.out_first += ocorner[d] * pl.out_stride[d];

	/* the expected source element of each output element (-1: none) */
	int64_t *want = malloc((size_t)onpix * sizeof(*want));
	int64_t *got = malloc((size_t)onpix * sizeof(*got));
	int *hits = calloc((size_t)onpix, sizeof(*hits));
	if (!want || !got || !hits) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	for (int64_t o = 0; o < onpix; o++)
		want[o] = got[o] = -1;
	for (int64_t i = 0; i < nsel; i++) {
		int64_t rem = i, s = 0, o = pl.out_first;
		for (int d = nd - 1; d >= 0; d--) {
			int64_t k = rem % pl.count[d];
			rem /= pl.count[d];
			s += (pl.first[d] + k * pl.step[d]) * cstride[d];
			o += k * pl.out_stride[d];
		}
		want[o] = s;
	}

	int bad = 0;
	int64_t nmax, rows = tsr_pc_rows(&pl, &nmax);
	for (int64_t r = 0; r < rows; r++) {
		struct tsr_pc_row row, grow;
		tsr_pc_row_box(&pl, cstride, r, &row);
		tsr_pc_row(&pl, cstride, r, &grow);
		if (row.n > nmax || row.s != grow.s || row.d != grow.d || row.n != grow.n ||
		    row.sstep != grow.sstep || row.dstep != grow.dstep || grow.ls || grow.bl)
			bad++;
		for (int64_t j = 0; j < row.n; j++) {
			int64_t e = row.s + j * row.sstep, o = row.d + j * row.dstep, ge, go;
			tsr_pc_at(&grow, j, &ge, &go);
			if (ge != e || go != o || e < 0 || e >= npix || o < 0 || o >= onpix) {
				bad++;
				continue;
			}
			got[o] = e;
			hits[o]++;
		}
	}
	for (int64_t o = 0; o < onpix; o++)
		if (got[o] != want[o] || hits[o] != (want[o] >= 0))
			bad++;
	free(want), free(got), free(hits);
	return bad;
}

int main(void)
{
	int bad_boxes = 0;
	for (int i = 0; i < 5000; i++)
		bad_boxes += one_box() != 0;
	CHECK_EQ_INT(bad_boxes, 0);
	CHECK_DONE();
}
