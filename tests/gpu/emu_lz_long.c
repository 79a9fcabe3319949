/* emu_lz_long.c - the GPU LZ decoders' 32-bit offsets (lz_core.h), run on the CPU: a stream past 2 GiB - 1 refused, a capacity past it taken as it, and run lengths of 255s that sum past 2^32 refused as the CPU decoders refuse them, not wrapped. */
#define TSR_LZ_EMU 1
#include "blosclz_core.h"
#include "lz4_core.h"

#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "codecs/blosc.h"

static struct tsr_lz_smem smem;

/* 255s enough that a length of them, with its last byte, is 2^32 + 5 (wrapped: 5). */
#define LONG_255S 16843008u
#define LONG_LAST 246u /* 15 + 255 * LONG_255S + 246 = 2^32 + 5 (LZ4's literal count) */

/* An LZ4 block: a literal count of 2^32 + 5 (token 15, then LONG_255S 255s and LONG_LAST),
 * and 5 literals after it, the input's end. Wrapped to 32 bits it would decode as 5 literals. */
static void lz4_long_literals(void)
{
	size_t n = 1 + LONG_255S + 1 + 5;
	unsigned char *z = (unsigned char *)check_malloc(n);
	z[0] = 0xf0;
	memset(z + 1, 255, LONG_255S);
	z[1 + LONG_255S] = (unsigned char)LONG_LAST;
	memcpy(z + 2 + LONG_255S, "abcde", 5);
	unsigned char out[64];
	uint64_t got = 99;
	int st = tsr_lz4_stream(&smem, z, n, out, sizeof out, TSR_CUDA_LZ4_RAW, &got);
	CHECK_EQ_INT(st, TSR_CUDA_LZ_E_TRUNCATED);
	CHECK(got == 0);
	CHECK(LZ4_decompress_safe((const char *)z, (char *)out, (int)n, (int)sizeof out) < 0);
	free(z);
}

/* A BloscLZ stream: a literal, then a match whose length (code 7, then LONG_255S 255s and
 * LONG_LAST + 3, plus 3) is 2^32 + 2 at distance 1 (wrapped: a match of 2 bytes). */
static void blosclz_long_match(void)
{
	size_t n = 2 + 1 + LONG_255S + 1 + 1;
	unsigned char *z = (unsigned char *)check_malloc(n);
	size_t k = 0;
	z[k++] = 0x00; /* one literal */
	z[k++] = 'x';
	z[k++] = 0xe0; /* length code 7, distance high bits 0 */
	memset(z + k, 255, LONG_255S);
	k += LONG_255S;
	z[k++] = (unsigned char)(LONG_LAST + 3u); /* 6 + 255 * LONG_255S + 249 + 3 = 2^32 + 2 */
	z[k++] = 0;                               /* distance 1 */
	unsigned char out[64];
	uint64_t got = 99;
	int st = tsr_blosclz_stream(&smem, z, n, out, sizeof out, &got);
	CHECK_EQ_INT(st, TSR_CUDA_LZ_E_OVERFLOW);
	CHECK(got == 1);
	size_t cpu_got = 0;
	CHECK(tsr_blosclz_decode(out, sizeof out, z, n, &cpu_got) < 0);
	free(z);
}

/* Input of 2^31 bytes is refused before a byte of it is read; a capacity of 2^32 + 7 decodes a
 * block as a capacity of 2^31 - 1 would. */
static void sizes(void)
{
	static const unsigned char one = 0;
	unsigned char out[64];
	uint64_t got = 99;
	int st = tsr_lz4_stream(&smem, &one, (uint64_t)1 << 31, out, sizeof out, TSR_CUDA_LZ4_RAW,
				&got);
	CHECK_EQ_INT(st, TSR_CUDA_LZ_E_LONG);
	CHECK(got == 0);
	st = tsr_blosclz_stream(&smem, &one, (uint64_t)1 << 31, out, sizeof out, &got);
	CHECK_EQ_INT(st, TSR_CUDA_LZ_E_LONG);
	CHECK(strcmp(tsr_lz_status_text(TSR_CUDA_LZ_E_LONG), "unknown status") != 0);

	unsigned char src[256], z[300];
	for (int i = 0; i < 256; i++)
		src[i] = (unsigned char)(i % 7);
	int zn = LZ4_compress_default((const char *)src, (char *)z, 256, (int)sizeof z);
	CHECK(zn > 0);
	unsigned char dec[256];
	st = tsr_lz4_stream(&smem, z, (uint64_t)zn, dec, ((uint64_t)1 << 32) + 7, TSR_CUDA_LZ4_RAW,
			    &got);
	CHECK_EQ_INT(st, TSR_CUDA_LZ_OK);
	CHECK(got == 256 && memcmp(dec, src, 256) == 0);
}

int main(void)
{
	sizes();
	lz4_long_literals();
	blosclz_long_match();
	CHECK_DONE();
}
