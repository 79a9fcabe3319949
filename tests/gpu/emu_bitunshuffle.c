/* emu_bitunshuffle.c - the GPU filter pass's bit unshuffle (bfilter_core.h) run on the CPU as thread blocks of 1, 3, 32 and 256 threads, each thread in turn, against tessera's CPU bit unshuffle: typesizes 1 to 17, Blosc1 and Blosc2 block rules, blocks with tails, destinations 8-byte aligned (the word path for typesizes 1, 2, 4 and 8) and not (the byte path), and no byte written outside the block. */
#define TSR_BF_EMU 1
#include "bfilter_core.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_rng.h"
#include "codecs/blosc.h"

#define MAX_N 70000
#define GUARD 16


int main(void)
{
	static const unsigned nthreads[] = {1, 3, 32, 256};
	static const uint64_t sizes[] = {0, 7, 8, 64, 72, 1000, 4096, 4099, 65536, 65541};
	static const unsigned offsets[] = {0, 8, 1, 4}; /* destination misalignment */
	uint8_t *src = malloc(MAX_N), *want = malloc(MAX_N), *buf = malloc(MAX_N + 2 * GUARD + 8);
	CHECK(src && want && buf);
	if (!src || !want || !buf)
		CHECK_DONE();
	int cases = 0, words = 0;
	for (unsigned ts = 1; ts <= 17; ts++) {
		for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
			uint64_t n = sizes[si] - sizes[si] % ts + (sizes[si] % 3) % ts; /* a tail now and then */
			for (uint64_t i = 0; i < n; i++)
				src[i] = (uint8_t)rng();
			for (unsigned version = 2; version <= 3; version++) {
				tsr_blosc_bitunshuffle(want, src, (size_t)n, ts, (int)version, NULL);
				for (size_t oi = 0; oi < sizeof(offsets) / sizeof(offsets[0]); oi++) {
					/* (buf is malloc's, 16-byte aligned: dst + GUARD is 8-aligned) */
					uint8_t *dst = buf + GUARD + offsets[oi];
					for (size_t ti = 0; ti < sizeof(nthreads) / sizeof(nthreads[0]); ti++) {
						memset(buf, 0xa5, MAX_N + 2 * GUARD + 8);
						for (unsigned t = 0; t < nthreads[ti]; t++)
							tsr_bf_bitunshuffle(dst, src, n, ts, version, t,
									    nthreads[ti]);
						int ok = memcmp(dst, want, (size_t)n) == 0;
						for (uint8_t *p = buf; p < dst; p++)
							ok &= *p == 0xa5;
						for (uint8_t *p = dst + n; p < buf + MAX_N + 2 * GUARD + 8; p++)
							ok &= *p == 0xa5;
						if (!ok)
							fprintf(stderr, "typesize %u, %llu bytes, version %u, "
								"offset %u, %u threads: differs\n", ts,
								(unsigned long long)n, version, offsets[oi],
								nthreads[ti]);
						CHECK(ok);
						cases++;
						words += ((uintptr_t)dst & 7) == 0 &&
							 (ts == 1 || ts == 2 || ts == 4 || ts == 8);
					}
				}
			}
		}
	}
	printf("bit unshuffle steps: %d cases, %d through the word path\n", cases, words);
	CHECK(words > 0 && words < cases);
	free(src);
	free(want);
	free(buf);
	CHECK_DONE();
}
