/* test_place_runs_emu.c - the place kernel's rows of a run of tasks (place_core.h's tsr_pc_run_row, built for the CPU): with any grid, each row of each of the run's tasks is taken once, and a row's task and its row in it are the quotient and remainder of its row. */
#define TSR_PLACE_EMU 1
#include "cuda/place_core.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "test_rng.h"

static int64_t rnd(int64_t n) /* [0, n) */
{
	return n > 0 ? (int64_t)(rng() % (uint64_t)n) : 0;
}

/* Every (CTA, thread) of a grid of gy CTAs walks a run of `run` tasks of trows rows of n
 * elements as the kernel does (place.cu: rows r0, r0 + rstep, ... of trows x run, each split by
 * tsr_pc_run_row); returns the task rows taken other than once, and the walks out of range. */
static int64_t one_run(int64_t trows, int run, int64_t n, unsigned gy)
{
	int64_t rows = trows * run, bad = 0;
	unsigned char *hits = calloc((size_t)rows, 1);
	if (!hits) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	for (unsigned y = 0; y < gy; y++)
		for (unsigned t = 0; t < TSR_PC_THREADS; t++) {
			struct tsr_pc_share sh = tsr_pc_share_of(n, y, gy, t);
			if (sh.lane) /* (a row's lanes share its task and row) */
				continue;
			for (int64_t r = sh.r0; r < rows; r += sh.rstep) {
				int64_t rr, k = tsr_pc_run_row(r, trows, run, &rr);
				if (k < 0 || k >= (run > 1 ? run : 1) || rr < 0 || rr >= trows)
					bad++;
				else
					hits[k * trows + rr]++;
			}
		}
	for (int64_t i = 0; i < rows; i++)
		bad += hits[i] != 1;
	free(hits);
	return bad;
}

int main(void)
{
	int64_t bad = 0;
	for (int i = 0; i < 2000; i++) {
		int64_t trows = 1 + rnd(i % 4 ? 4 : 60);
		int run = 1 + (int)rnd(i % 5 ? 300 : 5000);
		int64_t n = 1 + rnd(5000);
		/* the host's grid (cuda_layout.c: tsr_pc_ctas of the run's rows, at most 4096), or
		 * any other */
		int64_t want = tsr_pc_ctas(trows * run, n);
		unsigned gy = i % 3 ? (unsigned)(want < 4096 ? want : 4096) : 1 + (unsigned)rnd(9);
		bad += one_run(trows, run, n, gy);
	}
	CHECK_EQ_INT(bad, 0);
	/* past 32 bits, the 64-bit division */
	int64_t rr, k = tsr_pc_run_row(((int64_t)3 << 33) + 7, 1000, 1 << 30, &rr);
	CHECK_EQ_INT(k, (((int64_t)3 << 33) + 7) / 1000);
	CHECK_EQ_INT(rr, (((int64_t)3 << 33) + 7) % 1000);
	/* a lone task: every row its own */
	k = tsr_pc_run_row(123, 7, 1, &rr);
	CHECK_EQ_INT(k, 0);
	CHECK_EQ_INT(rr, 123);
	CHECK_DONE();
}
