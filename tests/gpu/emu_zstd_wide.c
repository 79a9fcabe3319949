/* emu_zstd_wide.c - the GPU zstd decoder (zstd_core.h, run on the CPU) on sequences whose extra bits and state updates take more than 64 bits, so a step takes its updates from a second window: libzstd's bytes, by frames and by cells. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "check.h"
#include "lz_profiles.h"

static unsigned long long split_steps; /* sequences that took more than 64 bits */
#define TSR_ZS_NOTE_SPLIT() (split_steps++)
#include "zstd_host.h"

/*
 * A sequence takes at most 89 bits: offset extra bits (up to 31), match and literal length
 * extra bits (16 each), its three state updates (9, 9 and 8). The decoder takes them from one
 * 64-bit window when they fit and otherwise reads the updates from a window of their own. Such
 * sequences need a far offset, a long literal run and a long match together, which ordinary data
 * never makes: here 50 KB runs of fresh random bytes each followed by a 66 KB copy from 6 MiB or
 * more back, compressed with long-distance matching in a 16 MiB window. The test checks that
 * such steps occurred, then that every frame decodes to libzstd's bytes both ways.
 */

int main(void)
{
	const size_t base = (size_t)6 << 20, npat = 24;
	size_t cap = base + npat * 140000;
	uint8_t *src = check_malloc(cap);
	uint64_t s = 99;
	for (size_t i = 0; i < base; i++)
		src[i] = (uint8_t)(lzp_rand(&s) >> 56);
	size_t n = base;
	for (size_t k = 0; k < npat; k++) {
		size_t lit = 50000 + 300 * k, far = 66000 + 40 * k, from = (k * 250007) % (base / 4);
		for (size_t i = 0; i < lit; i++)
			src[n++] = (uint8_t)(lzp_rand(&s) >> 56);
		memcpy(src + n, src + from, far);
		n += far;
		for (size_t i = 0; i < 200 + 13 * k; i++)
			src[n++] = (uint8_t)(lzp_rand(&s) >> 56);
		memcpy(src + n, src + base / 2 + from, 14000);
		n += 14000;
	}
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	size_t zcap = ZSTD_compressBound(n);
	uint8_t *z = check_malloc(zcap), *out = check_malloc(n + 64), *cout = check_malloc(n + 64);
	const int levels[] = {1, 3, 9};
	for (size_t li = 0; li < sizeof levels / sizeof levels[0]; li++) {
		ZSTD_CCtx_reset(cc, ZSTD_reset_session_and_parameters);
		ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, levels[li]);
		ZSTD_CCtx_setParameter(cc, ZSTD_c_windowLog, 24);
		ZSTD_CCtx_setParameter(cc, ZSTD_c_enableLongDistanceMatching, 1);
		ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
		size_t zn = ZSTD_compress2(cc, z, zcap, src, n);
		if (ZSTD_isError(zn)) {
			fprintf(stderr, "ZSTD_compress2: %s\n", ZSTD_getErrorName(zn));
			return 2;
		}
		/* exactly zn bytes, so that ASan sees any read outside the input */
		uint8_t *in = check_malloc(zn);
		memcpy(in, z, zn);
		unsigned long long before = split_steps;
		size_t got = 0, cgot = 0;
		memset(out, 0xA5, n + 64);
		memset(cout, 0xA5, n + 64);
		int st = tsr_zstd_host_decode(in, zn, out, n, &got);
		int cst = tsr_zstd_host_decode_cells(in, zn, cout, n, &cgot);
		printf("level %d: %zu bytes in %zu, %llu sequences of more than 64 bits\n", levels[li],
		       n, zn, split_steps - before);
		CHECK(split_steps - before > 0);
		CHECK_EQ_INT(st, TSR_CUDA_ZSTD_OK);
		CHECK(got == n && memcmp(out, src, n) == 0);
		CHECK_EQ_INT(cst, TSR_CUDA_ZSTD_OK);
		CHECK(cgot == n && memcmp(cout, src, n) == 0);
		free(in);
	}
	ZSTD_freeCCtx(cc);
	free(src);
	free(z);
	free(out);
	free(cout);
	CHECK_DONE();
}
