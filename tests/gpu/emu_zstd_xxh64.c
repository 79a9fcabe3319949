/* emu_zstd_xxh64.c - the zstd decoders' frame checksum (tsr_zs_xxh64_lanes, zstd_exec_core.h, run on the CPU as one lane taking the four chains): XXH64's low 32 bits equal those libzstd stores after a frame, for every length to 300 bytes and longer ones, at every alignment of the bytes, and the word reads stay inside them. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <zstd.h>

#include "check.h"

/* Every word the lanes read (tsr_zs_word), checked against the run being hashed. */
static const uint8_t *run_lo, *run_hi;
static unsigned long long words_outside;
#define TSR_ZS_NOTE_READ(p, n)                                                                \
	(words_outside += ((const uint8_t *)(p) < run_lo || (const uint8_t *)(p) + (n) > run_hi))

#define TSR_ZSTD_EMU 1
#include "cuda/zstd_core.h"
#include "cuda/zstd_exec_core.h"

#include "test_rng.h"

/* The checksum libzstd writes after a frame of src[0..n) (its last 4 bytes). */
static uint32_t zstd_sum(ZSTD_CCtx *cc, const uint8_t *src, size_t n, uint8_t *z, size_t zc)
{
	ZSTD_CCtx_reset(cc, ZSTD_reset_session_and_parameters);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, 1);
	size_t r = ZSTD_compress2(cc, z, zc, src, n);
	if (ZSTD_isError(r) || r < 4)
		return 0;
	return (uint32_t)z[r - 4] | (uint32_t)z[r - 3] << 8 | (uint32_t)z[r - 2] << 16 |
	       (uint32_t)z[r - 1] << 24;
}

int main(void)
{
	enum { BIG = 70000 };
	static uint8_t buf[BIG + 8], z[BIG + 1024];
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (uint8_t)(rng() >> 56);
	unsigned long long cases = 0, wrong = 0;
	uint64_t hv[4];
	for (size_t n = 0; n <= BIG; n += n < 300 ? 1 : n < 2000 ? 37 : 6007)
		for (unsigned al = 0; al < 4; al++) {
			const uint8_t *p = buf + al;
			uint32_t want = zstd_sum(cc, p, n, z, sizeof z);
			run_lo = p;
			run_hi = p + n;
			uint32_t lanes = (uint32_t)tsr_zs_xxh64_lanes(p, n, hv);
			cases++;
			if (lanes != want && wrong++ < 5)
				fprintf(stderr, "%zu bytes at +%u: lanes %08x, libzstd %08x\n", n, al, lanes,
					want);
		}
	ZSTD_freeCCtx(cc);
	/* the digest the xxHash reference publishes for the empty input */
	CHECK(tsr_zs_xxh64_lanes((const uint8_t *)"", 0, hv) == 0xEF46DB3751D8E999ull);
	printf("%llu lengths and alignments: %llu differ from libzstd; %llu words read outside the "
	       "bytes\n", cases, wrong, words_outside);
	CHECK(cases > 1300);
	CHECK(wrong == 0);
	CHECK(words_outside == 0);
	CHECK_DONE();
}
