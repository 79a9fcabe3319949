/* emu_zstd_vote.c - the zstd sequences' refill taken when another thread of the warp needs it (TSR_ZS_ANY_ACTIVE, zstd_core.h, run on the CPU): a thread that takes a new window at steps where its own bits had not run out still decodes libzstd's bytes, for every data profile at zstd levels -5 to 19, frames of one and of many blocks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "check.h"
#include "lz_profiles.h"

/* the other threads' need, emulated: true at about one step in three, at random */
static unsigned long long own_refills, extra_refills;
static uint64_t vote_s = 7;
static int vote(int own)
{
	if (own) {
		own_refills++;
		return 1;
	}
	int other = lzp_rand(&vote_s) % 3 == 0;
	extra_refills += (unsigned)other;
	return other;
}
#define TSR_ZS_ANY_ACTIVE(p) vote(!!(p))
#include "zstd_host.h"

int main(void)
{
	const size_t sizes[] = {32u << 10, 300u << 10};
	const int levels[] = {-5, 1, 3, 9, 19};
	unsigned long long frames = 0;
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
		size_t n = sizes[si], cap = ZSTD_compressBound(n);
		uint8_t *src = check_malloc(n), *z = check_malloc(cap), *out = check_malloc(n + 64);
		for (int p = 0; p < LZP_N; p++) {
			lzp_fill(p, src, n, 13 + si); /* (LZP_PERIOD: a period of 13 or 14) */
			for (size_t li = 0; li < sizeof levels / sizeof levels[0]; li++) {
				ZSTD_CCtx_reset(cc, ZSTD_reset_session_and_parameters);
				ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, levels[li]);
				ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
				size_t zn = ZSTD_compress2(cc, z, cap, src, n);
				CHECK(!ZSTD_isError(zn));
				if (ZSTD_isError(zn))
					continue;
				size_t got = 0;
				memset(out, 0xA5, n + 64);
				int st = tsr_zstd_host_decode(z, zn, out, n, &got);
				frames++;
				if (st != TSR_CUDA_ZSTD_OK || got != n || memcmp(out, src, n)) {
					fprintf(stderr, "%s, %zu bytes, level %d: status %d, %zu bytes\n",
						lzp_name[p], n, levels[li], st, got);
					CHECK(0);
				}
			}
		}
		free(src);
		free(z);
		free(out);
	}
	ZSTD_freeCCtx(cc);
	printf("%llu frames: %llu refills a thread needed, %llu taken for another\n", frames,
	       own_refills, extra_refills);
	CHECK(frames == 2 * LZP_N * 5 && own_refills > 1000 && extra_refills > 1000);
	CHECK_DONE();
}
