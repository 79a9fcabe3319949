/* emu_zstd_groups.c - the literals by groups of lanes (TSR_ZS_LIT_GROUP: 8, 16 or 32 of a warp's 32 lanes a block; zstd_core.h's tsr_zs_block_lits and tsr_zs_huf_fill): 32 CPU threads as a warp's lanes, each group with a barrier of its own for its __syncwarp, decode a stream's blocks' literals a group a block, as the block kernel's groups do, to the one-lane emulation's bytes and statuses (valid and damaged frames), and the group masks partition the warp. */
#include "zstd_groups.h"

int main(void)
{
	/* the masks: each lane in its own, g lanes each, the groups cover the warp once */
	for (unsigned g = 1; g <= 32; g *= 2) {
		uint32_t cover = 0;
		for (unsigned lane = 0; lane < 32; lane++) {
			uint32_t m = tsr_zs_group_mask(lane, g);
			CHECK(m >> lane & 1);
			CHECK((unsigned)__builtin_popcount(m) == g);
			CHECK(m == tsr_zs_group_mask(lane / g * g, g));
			if (lane % g == 0) {
				CHECK((cover & m) == 0);
				cover |= m;
			}
		}
		CHECK(cover == 0xffffffffu);
	}
	static const size_t sizes[] = {3000, 65536, 1000000};
	static const int levels[] = {-1, 3, 12};
	uint64_t seed = 11;
	char what[96];
	int combo = 0;
	for (int p = 0; p < LZP_N; p++)
		for (size_t si = 0; si < 3; si++)
			for (size_t li = 0; li < 3; li++) {
				size_t n = sizes[si], zn;
				uint8_t *z = zstd_profile_frame(p, n, (uint64_t)(++combo % 64 + 1),
								levels[li], &zn);
				snprintf(what, sizeof what, "%s n=%zu level=%d", lzp_name[p], n, levels[li]);
				unsigned g = 8u << (combo % 3);
				check_groups(z, zn, g, what);
				for (int t = 0; t < 8 && zn > 20; t++) { /* damaged copies */
					z[12 + lzp_rand(&seed) % (zn - 12)] ^= (uint8_t)(1u << (lzp_rand(&seed) % 8));
					check_groups(z, zn, g, what);
				}
				free(z);
			}
	printf("%ld streams (%ld with a damaged block), %ld blocks' literals by groups of 8, 16 and 32 "
	       "as one lane's\n", nstreams, ndamaged, nblocks_by_groups);
	CHECK(nstreams > 400 && ndamaged > 30 && nblocks_by_groups > 1000);
	CHECK_DONE();
}
