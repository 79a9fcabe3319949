/* test_place_lanes_emu.c - the place kernel's threads (place_core.h's tsr_pc_share_of and tsr_pc_vec_split, built for the CPU) visit each element of each row of a task once, whatever the grid, and the grid the host sizes (cuda_layout.c) needs no CTA to take a row twice. */
#define TSR_PLACE_EMU 1
#include "cuda/place_core.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "test_rng.h"

/*
 * The kernel (place.cu) gives CTA y of gy and thread t the rows r0, r0 + rstep, ... of its task
 * and, of each row, the elements lane, lane + lanes, ...; a contiguous row whose source and
 * output share their alignment goes as a scalar head, 16-byte vectors, then a scalar tail, each
 * strided by lanes the same way. Here every (CTA, thread) of random grids walks random tasks
 * (rows of 1 to 5,000 elements of 1, 2, 4 or 8 bytes, source and output at random offsets from a
 * 16-byte line) exactly as the kernel's loops do, and each byte of each row must be written
 * once. With the grid the host asks for (ceil(rows / (TSR_PC_THREADS / lanes)) CTAs, at most
 * 4096: tsr_cuda_place_launch), a thread's second row must exist only past that cap.
 */

static int64_t rnd(int64_t n) /* [0, n) */
{
	return n > 0 ? (int64_t)(rng() % (uint64_t)n) : 0;
}

/* Counts a write of byte i of the task's rows (row r's bytes from r * row_nbytes), a write
 * outside them as bad. */
static void mark(unsigned char *hits, int64_t r, int64_t row_nbytes, int64_t i, int64_t *bad)
{
	if (i < 0 || i >= row_nbytes)
		(*bad)++;
	else
		hits[r * row_nbytes + i]++;
}

/* One task: rows of n elements of wi bytes; returns the bytes written other than once. */
static int64_t one_task(int64_t rows, int64_t n, int wi, unsigned gy, uintptr_t soff,
			uintptr_t doff, int vec)
{
	size_t nb = (size_t)(rows * n * wi);
	unsigned char *hits = calloc(nb ? nb : 1, 1);
	if (!hits) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	int64_t bad = 0;
	for (unsigned y = 0; y < gy; y++)
		for (unsigned t = 0; t < TSR_PC_THREADS; t++) {
			struct tsr_pc_share sh = tsr_pc_share_of(n, y, gy, t);
			if (sh.lanes < 8 || sh.lanes > TSR_PC_THREADS || (sh.lanes & (sh.lanes - 1)))
				bad++;
			for (int64_t r = sh.r0; r < rows; r += sh.rstep) {
				/* its addresses as the kernel sees them */
				int64_t rb = n * wi;
				uintptr_t sp = 4096 * (uintptr_t)(r + 1) + soff;
				uintptr_t dp = 8192 * (uintptr_t)(r + 1) + doff;
				int64_t j0 = 0, head, nvec;
				if (vec && tsr_pc_vec_split(sp, dp, wi, n, &head, &nvec)) {
					if (head < 0 || head > n || nvec < 0 ||
					    head + nvec * 16 / wi > n ||
					    (nvec && ((dp + (uintptr_t)(head * wi)) & 15)))
						bad++;
					for (int64_t k = sh.lane; k < nvec; k += sh.lanes)
						for (int b = 0; b < 16; b++)
							mark(hits, r, rb, head * wi + k * 16 + b,
							     &bad);
					for (int64_t j = sh.lane; j < head; j += sh.lanes)
						for (int b = 0; b < wi; b++)
							mark(hits, r, rb, j * wi + b, &bad);
					j0 = head + nvec * 16 / wi;
				}
				for (int64_t j = j0 + sh.lane; j < n; j += sh.lanes)
					for (int b = 0; b < wi; b++)
						mark(hits, r, rb, j * wi + b, &bad);
			}
		}
	for (size_t i = 0; i < nb; i++)
		bad += hits[i] != 1;
	free(hits);
	return bad;
}

int main(void)
{
	static const int widths[4] = {1, 2, 4, 8};
	int64_t bad = 0, twice = 0;
	for (int i = 0; i < 3000; i++) {
		int64_t n = 1 + (rng() & 1 ? rnd(100) : rnd(5000));
		int64_t rows = 1 + rnd(i % 8 ? 40 : 600);
		int wi = widths[rnd(4)];
		int vec = (int)(rng() & 1);
		uintptr_t doff = (uintptr_t)rnd(16), soff = rng() & 1 ? doff : (uintptr_t)rnd(16);
		/* the host's grid (cuda_layout.c), or any other */
		int64_t want = tsr_pc_ctas(rows, n);
		unsigned gy = i % 3 ? (unsigned)(want < 4096 ? want : 4096) : 1 + (unsigned)rnd(9);
		bad += one_task(rows, n, wi, gy, soff, doff, vec);
		if (i % 3 && want <= 4096)
			for (unsigned t = 0; t < TSR_PC_THREADS; t++) {
				struct tsr_pc_share sh = tsr_pc_share_of(n, gy - 1, gy, t);
				twice += sh.r0 + sh.rstep < rows;
			}
	}
	CHECK_EQ_INT(bad, 0);
	CHECK_EQ_INT(twice, 0);
	/* rows of 50 uint16 (a 50^3 chunk's): 8 lanes a row, 32 rows a CTA */
	CHECK_EQ_INT(tsr_pc_row_lanes(50), 8);
	CHECK_EQ_INT(tsr_pc_row_lanes(64), 8);
	CHECK_EQ_INT(tsr_pc_row_lanes(4096), TSR_PC_THREADS);
	CHECK_EQ_INT(tsr_pc_row_lanes(65), 16);
	CHECK_DONE();
}
