/* shuffle_bench.c - one core's speed of the blosc byte and bit unshuffles on a block, per typesize. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* clock_gettime under -std=c17 */
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../src/codecs/blosc.h"

/*
 * Usage: shuffle_bench [BLOCK_NBYTES=131072] [CALLS=4000]
 * For typesizes 1, 2, 4, 8: GB/s (10^9 bytes of block a second, best of 5 rounds of CALLS calls)
 * of tsr_blosc_unshuffle and tsr_blosc_bitunshuffle (Blosc2 rule, with scratch) on one block of
 * pseudo-random bytes, as the CPU engine undoes them once per block; a checksum of the output
 * keeps the work from being optimised away and lets two builds be compared.
 */

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 131072;
	int calls = argc > 2 ? atoi(argv[2]) : 4000;
	uint8_t *src = malloc(n + 1), *dst = malloc(n + 1), *tmp = malloc(n + 1);
	if (!src || !dst || !tmp || calls <= 0)
		return 1;
	uint64_t x = 0x9E3779B97F4A7C15ULL;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		src[i] = (uint8_t)x;
	}
	printf("| typesize | unshuffle GB/s | bitunshuffle GB/s | checksum |\n|---:|---:|---:|---|\n");
	static const size_t sizes[] = {1, 2, 4, 8};
	for (int s = 0; s < 4; s++) {
		size_t ts = sizes[s];
		double best[2] = {1e30, 1e30};
		uint64_t sum = 0;
		for (int round = 0; round < 5; round++) {
			for (int which = 0; which < 2; which++) {
				double t0 = now();
				for (int c = 0; c < calls; c++) {
					if (which == 0)
						tsr_blosc_unshuffle(dst, src, n, ts);
					else
						tsr_blosc_bitunshuffle(dst, src, n, ts, 4, tmp);
				}
				double e = now() - t0;
				best[which] = e < best[which] ? e : best[which];
				for (size_t i = 0; i < n; i += 61)
					sum = sum * 31 + dst[i];
			}
		}
		printf("| %zu | %.2f | %.2f | %016llx |\n", ts, (double)n * calls / best[0] / 1e9,
		       (double)n * calls / best[1] / 1e9, (unsigned long long)sum);
	}
	free(src);
	free(dst);
	free(tmp);
	return 0;
}
