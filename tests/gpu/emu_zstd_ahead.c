/* emu_zstd_ahead.c - the zstd kernels' short copies with each lane's bytes loaded before any is stored (TSR_ZS_COPY_AHEAD, zstd_core.h's tsr_zs_copy_lanes), run on the CPU lane by lane for warps of 1 to 32 lanes: every length below the wide bound at every alignment, the bytes copied exactly and none written outside. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

#define TSR_ZSTD_EMU 1
#define TSR_ZS_COPY_AHEAD 8u
#include "cuda/zstd_exec_core.h"

/*
 * A lane's loads all come before its stores, and the source never overlaps the destination,
 * so the lanes run one after another here give the warp's bytes. The copy takes that way when
 * n fits TSR_ZS_COPY_AHEAD bytes a lane (and is below the wide bound), and the byte loop or the
 * wide copy otherwise: both are run, and counted.
 */

#define SPAN 300u /* past TSR_ZS_WIDE_COPY, so that the wide copy's side is tried too */

int main(void)
{
	static uint8_t src[SPAN + 8], dst[SPAN + 64], want[SPAN + 64];
	uint64_t s = 7;
	for (size_t i = 0; i < sizeof src; i++) {
		s = s * 6364136223846793005ull + 1442695040888963407ull;
		src[i] = (uint8_t)(s >> 56);
	}
	static const uint32_t lanes[] = {1, 2, 3, 8, 16, 32};
	unsigned long cases = 0, ahead = 0, other = 0;
	for (size_t li = 0; li < sizeof lanes / sizeof lanes[0]; li++) {
		uint32_t nl = lanes[li];
		for (uint32_t n = 0; n <= SPAN; n++)
			for (unsigned sa = 0; sa < 4; sa++)
				for (unsigned da = 0; da < 16; da++) {
					uint8_t *d = dst + 16 + da;
					memset(dst, 0xa5, sizeof dst);
					memcpy(want, dst, sizeof dst);
					memcpy(want + 16 + da, src + sa, n);
					for (uint32_t lane = 0; lane < nl; lane++)
						tsr_zs_copy_lanes(d, src + sa, n, lane, nl);
					if (memcmp(dst, want, sizeof dst) && check_failures++ < 10)
						fprintf(stderr, "FAIL %u bytes, %u lanes, source +%u, "
							"destination +%u\n", n, nl, sa, da);
					cases++;
					if (n < TSR_ZS_WIDE_COPY && n <= TSR_ZS_COPY_AHEAD * nl)
						ahead++;
					else
						other++;
				}
	}
	printf("%lu copies (%lu with the lanes' loads ahead, %lu the other ways), every byte "
	       "right\n", cases, ahead, other);
	CHECK(ahead > 10000 && other > 10000);
	CHECK_DONE();
}
