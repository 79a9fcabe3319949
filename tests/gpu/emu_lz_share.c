/* emu_lz_share.c - which kernel a large LZ4 batch's stored share picks (lz_core.h, tsr_lz_share_take), run on the CPU: 9/10 of its capacity or more stored goes to the few-streams kernel, at every size, without overflow. */
#define TSR_LZ_EMU 1
#include "lz_core.h"

#include <lz4.h>
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "lz_profiles.h"

/* The rule against its statement in exact arithmetic (in >= 9/10 of cap, for caps that tenths
 * divide), at the edges of 9/10. */
static void edges(void)
{
	static const uint64_t caps[] = {10, 20, 640, 655360000, (uint64_t)10 << 40,
					UINT64_MAX / 10 * 10};
	for (size_t c = 0; c < sizeof caps / sizeof *caps; c++) {
		const uint64_t cap = caps[c], lo = cap / 10 * 9;
		for (uint64_t in = lo - 2; in <= lo + 2; in++)
			CHECK_EQ_INT(tsr_lz_share_take(in, cap),
				     in >= lo ? TSR_LZ_TAKE_FEW : TSR_LZ_TAKE_MANY);
		if (cap < (uint64_t)1 << 60) /* (LZ4's overhead: more stored than decoded) */
			CHECK_EQ_INT(tsr_lz_share_take(cap + cap / 100, cap), TSR_LZ_TAKE_FEW);
		CHECK_EQ_INT(tsr_lz_share_take(0, cap), TSR_LZ_TAKE_MANY);
	}
	/* the largest sums: no product wraps into the other answer */
	CHECK_EQ_INT(tsr_lz_share_take(UINT64_MAX, UINT64_MAX), TSR_LZ_TAKE_FEW);
	CHECK_EQ_INT(tsr_lz_share_take(UINT64_MAX / 2, UINT64_MAX), TSR_LZ_TAKE_MANY);
	CHECK_EQ_INT(tsr_lz_share_take(0, 0), TSR_LZ_TAKE_FEW); /* (nothing to decode) */
	/* a stream counts up to 4 GiB: a capacity "as large as can be" does not swamp the sums */
	CHECK_EQ_INT(tsr_lz_share_size(UINT64_MAX), (uint64_t)1 << 32);
	CHECK_EQ_INT(tsr_lz_share_size(65536), 65536);
}

/* What liblz4 makes of incompressible floats is a batch the few-streams kernel takes; of
 * byte-shuffled ones, the many-streams kernel. */
static void batches(void)
{
	enum { N = 65536, STREAMS = 16 };
	static unsigned char src[N], z[N + N / 128 + 64];
	static const int profiles[] = {LZP_FLOATS, LZP_FLOATS_SHUFFLED};
	for (int p = 0; p < 2; p++) {
		uint64_t in = 0, cap = 0;
		for (uint64_t seed = 1; seed <= STREAMS; seed++) {
			lzp_fill(profiles[p], src, N, seed);
			int zn = LZ4_compress_default((const char *)src, (char *)z, N, (int)sizeof z);
			CHECK(zn > 0);
			in += tsr_lz_share_size((uint64_t)zn);
			cap += tsr_lz_share_size(N);
		}
		CHECK_EQ_INT(tsr_lz_share_take(in, cap), p ? TSR_LZ_TAKE_MANY : TSR_LZ_TAKE_FEW);
	}
}

int main(void)
{
	edges();
	batches();
	if (check_failures)
		return 1;
	printf("emu_lz_share: the batch's kernel by its stored share, at 9/10's edges and at the "
	       "largest sums\n");
	return 0;
}
