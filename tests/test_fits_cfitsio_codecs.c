/* test_fits_cfitsio_codecs.c - HCOMPRESS_1 / PLIO_1 through CFITSIO: valid tiles, bad input. */
#include <fitsio.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "codecs/codecs.h"

/* CFITSIO's pliocomp.c, declared only in its private fitsio2.h. */
int pl_p2li(int *pxsrc, int xs, short *lldst, int npix);

static uint64_t rng_state = 0xC0FFEE1234567ull;
static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1Dull;
}

/* ---- HCOMPRESS_1 ---- */

/* Compresses an nx (fast) x ny tile as CFITSIO does for a tile; returns the length. */
static long hc_encode(const int32_t *pix, int nx, int ny, int scale, int wide, unsigned char *c,
		      long cap)
{
	long nbytes = cap;
	int status = 0;
	size_t n = (size_t)nx * (size_t)ny;
	if (wide) {
		LONGLONG *a = malloc(n * sizeof(*a));
		for (size_t i = 0; i < n; i++)
			a[i] = pix[i];
		fits_hcompress64(a, nx, ny, scale, (char *)c, &nbytes, &status);
		free(a);
	} else {
		int *a = malloc(n * sizeof(*a));
		for (size_t i = 0; i < n; i++)
			a[i] = pix[i];
		fits_hcompress(a, nx, ny, scale, (char *)c, &nbytes, &status);
		free(a);
	}
	CHECK_EQ_INT(status, 0);
	return status ? -1 : nbytes;
}

/* CFITSIO's own decode of the same bytes, as its tile reader calls it. */
static void hc_cfitsio(const unsigned char *c, long len, int smooth, int wide, int32_t *out,
		       size_t n)
{
	unsigned char *copy = calloc((size_t)len + 65536, 1);
	int a = 0, b = 0, scale = 0, status = 0;
	memcpy(copy, c, (size_t)len);
	if (wide) {
		LONGLONG *w = malloc(n * sizeof(*w));
		fits_hdecompress64(copy, smooth, w, &a, &b, &scale, &status);
		memcpy(out, w, n * sizeof(int32_t));
		free(w);
	} else {
		fits_hdecompress(copy, smooth, out, &a, &b, &scale, &status);
	}
	CHECK_EQ_INT(status, 0);
	free(copy);
}

static void hc_case(int nx, int ny, int scale, int smooth, int bytepix, int truncate)
{
	size_t n = (size_t)nx * (size_t)ny;
	int32_t *pix = malloc(n * sizeof(*pix)), *got = malloc(n * sizeof(*got));
	int32_t *ref = malloc(n * sizeof(*ref));
	long cap = (long)(n * 16 + 1024), len;
	unsigned char *c = malloc((size_t)cap);
	int wide = bytepix == 4;
	int rc;

	for (size_t i = 0; i < n; i++) {
		int x = (int)(i % (size_t)nx), y = (int)(i / (size_t)nx);
		int32_t v = 1000 + 3 * x - 2 * y + (int32_t)(rng() % 61) - 30;
		if (bytepix == 1)
			v = (int32_t)(rng() % 256);
		if (wide && i % 5 == 0)
			v = (int32_t)(rng() % 2000000000) - 1000000000;
		pix[i] = v;
	}
	len = hc_encode(pix, nx, ny, scale, wide, c, cap);
	if (len <= 0)
		goto out;
	unsigned char *exact = malloc((size_t)len);
	memcpy(exact, c, (size_t)len);

	rc = tsr_hcompress_decode_cfitsio(got, n, nx, ny, exact, (size_t)len, smooth, bytepix);
	if (rc != TSR_OK)
		fprintf(stderr, "hcompress %dx%d: %s\n", nx, ny, tsr_errmsg());
	CHECK_EQ_INT(rc, TSR_OK);
	hc_cfitsio(c, len, smooth, wide, ref, n);
	CHECK(memcmp(got, ref, n * sizeof(*got)) == 0);
	if (scale == 0)
		CHECK(memcmp(got, pix, n * sizeof(*got)) == 0);

	/* The tile's shape must match the stream's (transposed, or a different size, fails). */
	if (nx != ny)
		CHECK_EQ_INT(tsr_hcompress_decode_cfitsio(got, n, ny, nx, exact, (size_t)len, smooth,
							  bytepix),
			     TSR_E_CORRUPT);
	CHECK(tsr_hcompress_decode_cfitsio(got, n - 1, nx, ny, exact, (size_t)len, smooth,
					   bytepix) != TSR_OK);
	CHECK_EQ_INT(tsr_hcompress_decode_cfitsio(got, n, nx, ny, exact, (size_t)len, smooth, 3),
		     TSR_E_INVALID_ARG);

	if (truncate) {
		/* The stream's exact length is known from its content, so every cut, down to
		 * the last sign bit, must be reported (and must not reach CFITSIO, whose error
		 * paths deadlock in a reentrant build). */
		for (long cut = 0; cut < len; cut++) {
			unsigned char *part = malloc(cut ? (size_t)cut : 1);
			memcpy(part, c, (size_t)cut);
			rc = tsr_hcompress_decode_cfitsio(got, n, nx, ny, part, (size_t)cut, smooth,
							  bytepix);
			if (rc != TSR_E_CORRUPT)
				fprintf(stderr, "hcompress %dx%d: cut at %ld of %ld -> %d\n", nx, ny, cut,
					len, rc);
			CHECK_EQ_INT(rc, TSR_E_CORRUPT);
			free(part);
		}
	}
	free(exact);
out:
	free(pix);
	free(got);
	free(ref);
	free(c);
}

static void hc_bad(void)
{
	int32_t out[64 * 64];
	unsigned char s[4096];
	int rc;

	memset(s, 0, sizeof(s));
	CHECK_EQ_INT(tsr_hcompress_decode_cfitsio(out, 256, 16, 16, s, sizeof(s), 0, 2),
		     TSR_E_CORRUPT); /* bad magic */
	CHECK_EQ_INT(tsr_hcompress_decode_cfitsio(out, 256, 16, 16, s, 10, 0, 2), TSR_E_CORRUPT);
	CHECK_EQ_INT(tsr_hcompress_decode_cfitsio(out, 256, 0, 16, s, sizeof(s), 0, 2),
		     TSR_E_INVALID_ARG);

	/* Random streams behind a valid header: no crash, and too many bit planes rejected. */
	for (int iter = 0; iter < 3000; iter++) {
		int nx = 1 + (int)(rng() % 64), ny = 1 + (int)(rng() % 64);
		size_t len = 25 + (size_t)(rng() % 400);
		int bytepix = rng() % 2 ? 4 : 2;
		for (size_t i = 0; i < len; i++)
			s[i] = (unsigned char)rng();
		s[0] = 0xDD, s[1] = 0x99;
		s[2] = s[3] = s[4] = 0, s[5] = (unsigned char)ny;
		s[6] = s[7] = s[8] = 0, s[9] = (unsigned char)nx;
		if (iter % 4)
			for (int q = 0; q < 3; q++)
				s[22 + q] = (unsigned char)(rng() % 20);
		unsigned char *exact = malloc(len);
		memcpy(exact, s, len);
		rc = tsr_hcompress_decode_cfitsio(out, (size_t)nx * (size_t)ny, nx, ny, exact, len,
						  (int)(rng() % 2), bytepix);
		CHECK(rc == TSR_OK || rc == TSR_E_CORRUPT || rc == TSR_E_UNSUPPORTED);
		free(exact);
	}

	/* A one-column tile with bit planes in an empty quadrant is refused before CFITSIO. */
	memset(s, 0, 64);
	s[0] = 0xDD, s[1] = 0x99, s[5] = 16, s[9] = 1, s[22] = 3, s[23] = 3, s[24] = 0;
	CHECK_EQ_INT(tsr_hcompress_decode_cfitsio(out, 16, 1, 16, s, 64, 0, 2), TSR_E_UNSUPPORTED);
	/* 40 bit planes: fine for the 64-bit decoder, not for the 32-bit one */
	s[9] = 16, s[22] = 40;
	CHECK_EQ_INT(tsr_hcompress_decode_cfitsio(out, 256, 16, 16, s, 64, 0, 2), TSR_E_CORRUPT);
}

/* ---- PLIO_1 ---- */

/* Line list words to the big-endian bytes of a FITS 1PI column. */
static unsigned char *plio_bytes(const short *ll, size_t nwords)
{
	unsigned char *b = malloc(nwords * 2 + 1);
	for (size_t i = 0; i < nwords; i++) {
		b[2 * i] = (unsigned char)((uint16_t)ll[i] >> 8);
		b[2 * i + 1] = (unsigned char)((uint16_t)ll[i] & 0xFF);
	}
	return b;
}

static void plio_round_trip(const int32_t *pix, size_t n, int truncate)
{
	short *ll = calloc(n * 3 + 16, sizeof(*ll));
	int32_t *got = malloc(n * sizeof(*got));
	int nwords = pl_p2li((int *)pix, 1, ll, (int)n);
	unsigned char *b;
	int rc;

	CHECK(nwords > 0);
	b = plio_bytes(ll, (size_t)nwords);
	rc = tsr_plio_decode_cfitsio(got, n, b, (size_t)nwords * 2);
	if (rc != TSR_OK)
		fprintf(stderr, "plio: %s\n", tsr_errmsg());
	CHECK_EQ_INT(rc, TSR_OK);
	for (size_t i = 0; i < n; i++)
		if (got[i] != (pix[i] > 0 ? pix[i] : 0)) { /* PLIO stores non-negative values */
			fprintf(stderr, "plio: pixel %zu = %d, want %d\n", i, got[i], pix[i]);
			check_failures++;
			break;
		}
	if (truncate)
		for (int cut = 0; cut < nwords; cut++) {
			rc = tsr_plio_decode_cfitsio(got, n, b, (size_t)cut * 2);
			CHECK_EQ_INT(rc, TSR_E_CORRUPT);
		}
	/* odd byte count */
	CHECK_EQ_INT(tsr_plio_decode_cfitsio(got, n, b, (size_t)nwords * 2 - 1), TSR_E_CORRUPT);
	free(b);
	free(ll);
	free(got);
}

static void plio_cases(void)
{
	enum { N = 5000 };
	static int32_t pix[N];

	/* a mask: zeros, runs, isolated pixels, values needing the two-word set (> 4095) */
	for (int i = 0; i < N; i++) {
		int32_t v = 0;
		if (i % 700 < 120)
			v = 1 + (i / 700) % 5;
		if (i % 97 == 0)
			v = 5000 + i;
		if (i % 1300 == 3)
			v = 1 << 22;
		if (i % 211 == 5)
			v = -3;
		pix[i] = v;
	}
	plio_round_trip(pix, N, 0);
	plio_round_trip(pix, 300, 1);
	for (int i = 0; i < N; i++)
		pix[i] = 0;
	plio_round_trip(pix, N, 1);
	for (int i = 0; i < N; i++)
		pix[i] = (int32_t)(rng() % 4) * (int32_t)(rng() % 9000);
	plio_round_trip(pix, N, 0);
	plio_round_trip(pix, 1, 1);

	/* A hand-built list in the old header layout (notes section 4): w[2] = length,
	 * instructions from word 3. pv starts at 1.
	 *   0x0003 3 zeros | 0x4002 2 x pv(1) | 0x1005 0x0001 pv = (1 << 12) + 5 = 4101
	 *   0x6000 pv += 0, emit 1 | 0x5003 2 zeros then pv | 0x3002 pv -= 2 (4099)
	 *   0x7001 pv -= 1 (4098), emit 1 | 0x2004 pv += 4 (4102) | 0x4001 1 x pv
	 * then the tail is zero-filled. */
	{
		const short ll[] = {0,      0,      15,     0x0003, 0x4002, 0x1005, 0x0001, 0x6000,
				    0x5003, 0x3002, 0x7001, 0x2004, 0x4001, 0x7FFF, 0x7FFF};
		const int32_t want[16] = {0, 0, 0, 1, 1, 4101, 0, 0, 4101, 4098, 4102, 0, 0, 0, 0, 0};
		int32_t got[16];
		unsigned char *b = plio_bytes(ll, 13); /* length 15 > 13 words: truncated */
		CHECK_EQ_INT(tsr_plio_decode_cfitsio(got, 16, b, 26), TSR_E_CORRUPT);
		free(b);
		short l2[sizeof(ll) / sizeof(ll[0])];
		memcpy(l2, ll, sizeof(ll));
		l2[2] = 13; /* the two 0x7FFF words are now beyond the list */
		b = plio_bytes(l2, 15);
		memset(got, 0x55, sizeof(got));
		CHECK_EQ_INT(tsr_plio_decode_cfitsio(got, 16, b, 30), TSR_OK);
		CHECK(memcmp(got, want, sizeof(want)) == 0);
		free(b);

		/* the same instructions in the new layout, as CFITSIO writes it */
		short nl[7 + 10];
		memset(nl, 0, sizeof(nl));
		nl[1] = 7, nl[2] = -100, nl[3] = 17, nl[4] = 0;
		memcpy(nl + 7, ll + 3, 10 * sizeof(short));
		b = plio_bytes(nl, 17);
		memset(got, 0x55, sizeof(got));
		CHECK_EQ_INT(tsr_plio_decode_cfitsio(got, 16, b, 34), TSR_OK);
		CHECK(memcmp(got, want, sizeof(want)) == 0);
		/* bad headers: negative first word, non-positive and oversized lengths */
		nl[1] = -4;
		free(b);
		b = plio_bytes(nl, 17);
		CHECK_EQ_INT(tsr_plio_decode_cfitsio(got, 16, b, 34), TSR_E_CORRUPT);
		free(b);
		nl[1] = 7, nl[3] = 0;
		b = plio_bytes(nl, 17);
		CHECK_EQ_INT(tsr_plio_decode_cfitsio(got, 16, b, 34), TSR_E_CORRUPT);
		free(b);
		nl[3] = 100;
		b = plio_bytes(nl, 17);
		CHECK_EQ_INT(tsr_plio_decode_cfitsio(got, 16, b, 34), TSR_E_CORRUPT);
		nl[3] = 0, nl[4] = 1; /* 32768 words */
		free(b);
		b = plio_bytes(nl, 17);
		CHECK_EQ_INT(tsr_plio_decode_cfitsio(got, 16, b, 34), TSR_E_CORRUPT);
		free(b);
		CHECK_EQ_INT(tsr_plio_decode_cfitsio(got, 16, "\0\0", 2), TSR_E_CORRUPT);
		CHECK_EQ_INT(tsr_plio_decode_cfitsio(got, 0, NULL, 0), TSR_OK);
	}

	/* Random words with a consistent header: any output, never a crash or a write past
	 * the tile (ASan watches the exactly sized buffers). */
	for (int iter = 0; iter < 5000; iter++) {
		size_t nwords = 3 + (size_t)(rng() % 60), npix = 1 + (size_t)(rng() % 200);
		short *ll = malloc(nwords * sizeof(*ll));
		int32_t *out = malloc(npix * sizeof(*out));
		for (size_t i = 0; i < nwords; i++)
			ll[i] = (short)rng();
		if (iter % 2) {
			ll[2] = (short)(1 + rng() % nwords);
		} else if (nwords >= 5) {
			ll[1] = (short)(rng() % 8), ll[2] = -100;
			ll[3] = (short)(1 + rng() % nwords), ll[4] = 0;
		}
		unsigned char *b = plio_bytes(ll, nwords);
		int rc = tsr_plio_decode_cfitsio(out, npix, b, nwords * 2);
		CHECK(rc == TSR_OK || rc == TSR_E_CORRUPT);
		free(b);
		free(ll);
		free(out);
	}
}

int main(void)
{
	hc_case(16, 16, 0, 0, 2, 1);
	hc_case(37, 20, 0, 0, 2, 1);
	hc_case(20, 37, 0, 0, 1, 0);
	hc_case(100, 16, 0, 0, 4, 1);
	hc_case(64, 48, 4, 0, 2, 0);
	hc_case(64, 48, 4, 1, 2, 0);
	hc_case(33, 17, 8, 1, 4, 0);
	hc_case(4, 4, 0, 0, 2, 1);
	hc_case(256, 16, 0, 0, 2, 0);
	hc_bad();
	plio_cases();
	CHECK_DONE();
}
