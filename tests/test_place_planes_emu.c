/* test_place_planes_emu.c - where the place kernel finds an element's bytes in byte planes (place_core.h's tsr_pc_planes, built for the CPU): the same place as the planes' definition gives, for planes that restart every block elements and for one set of planes, with indices on both sides of 2^31 (the 32-bit division and its 64-bit fallback). */
#define TSR_PLACE_EMU 1
#include "cuda/place_core.h"

#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "test_rng.h"

/* The definition: element e of nsrc, planes of w bytes restarting every block elements (the last
 * set holding the rest), byte b of element e at start * w + b * (its set's length) + (e - start). */
static void want(int64_t e, int64_t nsrc, int w, int64_t block, int64_t *at, int64_t *n)
{
	int64_t start = block > 0 ? e - e % block : 0;
	int64_t len = block > 0 ? (nsrc - start < block ? nsrc - start : block) : nsrc;
	*at = start * w + (e - start);
	*n = len;
}

int main(void)
{
	int cases = 0, wide = 0;
	for (int i = 0; i < 200000; i++) {
		int w = 1 << (rng() % 4);
		int big = i % 4 == 0; /* a quarter with indices past 2^31 */
		int64_t nsrc = 1 + (int64_t)(rng() % (big ? (1ull << 36) : (1ull << 24)));
		int64_t block = i % 5 == 0 ? 0 : 1 + (int64_t)(rng() % (uint64_t)nsrc);
		if (i % 7 == 0 && block > 0)
			block = (int64_t)1 << (rng() % 31); /* powers of two, as blosc's blocks */
		int64_t e = (int64_t)(rng() % (uint64_t)nsrc);
		int64_t at, n, wat, wn;
		tsr_pc_planes(e, nsrc, w, block, &at, &n);
		want(e, nsrc, w, block, &wat, &wn);
		if (at != wat || n != wn) {
			fprintf(stderr, "e %lld of %lld, w %d, block %lld: at %lld n %lld, want %lld %lld\n",
				(long long)e, (long long)nsrc, w, (long long)block, (long long)at,
				(long long)n, (long long)wat, (long long)wn);
			CHECK(0);
		}
		cases++;
		wide += e >> 31 != 0;
	}
	printf("byte planes: %d elements placed, %d past 2^31\n", cases, wide);
	CHECK(wide > 1000 && wide < cases);
	CHECK_DONE();
}
