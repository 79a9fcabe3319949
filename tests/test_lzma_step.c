/* test_lzma_step.c - the LZMA bytes step: .xz, .lzma and either; a stream past its room, a
 * truncated one and one whose header asks for a huge dictionary fail, naming why. */
#include <lzma.h>
#include <string.h>

#include "check.h"
#include "codecs/codecs.h"

static int decode(int format, const void *src, size_t n, size_t expect, size_t cap, void *want,
		  size_t want_n)
{
	struct tsr_bytes_step step = {.id = TSR_CODEC_LZMA, .lzma_format = format};
	struct tsr_scratch s = {0};
	void *out;
	size_t got = 0;
	int st = tsr_bytes_decode(&step, src, n, &s, 0, expect, cap, NULL, &out, &got);
	if (st == TSR_OK && want) {
		CHECK_EQ_INT(got, want_n);
		CHECK(got == want_n && !memcmp(out, want, want_n));
	}
	tsr_scratch_free(&s);
	return st;
}

int main(void)
{
	enum { N = 5000 };
	unsigned char raw[N], xz[N + 1024], alone[N + 1024];
	check_fill(raw, N / 2, 7);
	memset(raw + N / 2, 'a', N - N / 2);
	size_t xn = 0, an = 0;
	CHECK_EQ_INT(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, raw, N, xz, &xn, sizeof(xz)),
		     LZMA_OK);
	lzma_stream z = LZMA_STREAM_INIT;
	lzma_options_lzma opt;
	lzma_lzma_preset(&opt, 1);
	CHECK_EQ_INT(lzma_alone_encoder(&z, &opt), LZMA_OK);
	z.next_in = raw;
	z.avail_in = N;
	z.next_out = alone;
	z.avail_out = sizeof(alone);
	CHECK_EQ_INT(lzma_code(&z, LZMA_FINISH), LZMA_STREAM_END);
	an = sizeof(alone) - z.avail_out;
	lzma_end(&z);

	/* each format as numcodecs names it; 0 takes either */
	CHECK_EQ_INT(decode(1, xz, xn, N, 0, raw, N), TSR_OK);
	CHECK_EQ_INT(decode(2, alone, an, N, 0, raw, N), TSR_OK);
	CHECK_EQ_INT(decode(0, xz, xn, N, 0, raw, N), TSR_OK);
	CHECK_EQ_INT(decode(0, alone, an, N, 0, raw, N), TSR_OK);
	CHECK_EQ_INT(decode(1, xz, xn, 0, N + 100, raw, N), TSR_OK); /* size unknown: up to cap */
	CHECK_EQ_INT(decode(1, alone, an, N, 0, NULL, 0), TSR_E_CORRUPT);
	CHECK(strstr(tsr_errmsg(), "not an .xz or .lzma stream") != NULL);

	/* more bytes than the chunk allows */
	CHECK_EQ_INT(decode(1, xz, xn, N - 1, 0, NULL, 0), TSR_E_CORRUPT);
	CHECK(strstr(tsr_errmsg(), "more bytes than expected") != NULL);
	CHECK_EQ_INT(decode(2, alone, an, 0, N - 10, NULL, 0), TSR_E_CORRUPT);
	CHECK(strstr(tsr_errmsg(), "more bytes than this chunk") != NULL);

	/* truncated, and a damaged byte (the xz check catches what the decoder does not) */
	CHECK_EQ_INT(decode(1, xz, xn - 9, N, 0, NULL, 0), TSR_E_CORRUPT);
	CHECK(strstr(tsr_errmsg(), "lzma: corrupt or truncated") != NULL);
	for (size_t i = 12; i < xn; i += 7) {
		unsigned char bad[sizeof(xz)];
		memcpy(bad, xz, xn);
		bad[i] ^= 0x21;
		CHECK_EQ_INT(decode(1, bad, xn, N, 0, NULL, 0), TSR_E_CORRUPT);
	}

	/* a .lzma header asking for a 4 GiB dictionary: refused, nothing that large allocated */
	unsigned char big[sizeof(alone)];
	memcpy(big, alone, an);
	memset(big + 1, 0xff, 4);
	CHECK_EQ_INT(decode(2, big, an, N, 0, NULL, 0), TSR_E_UNSUPPORTED);
	CHECK(strstr(tsr_errmsg(), "bytes of decoder memory") != NULL);
	CHECK_DONE();
}
