/* test_rice.c - RICE_1 decoder: round trips through CFITSIO's encoder, CFITSIO agreement, bad input. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_rng.h"
#include "codecs/codecs.h"

/* CFITSIO's Rice coder (ricecomp.c), exported by libcfitsio but declared only in fitsio2.h. */
int fits_rcomp(int a[], int nx, unsigned char *c, int clen, int nblock);
int fits_rcomp_short(short a[], int nx, unsigned char *c, int clen, int nblock);
int fits_rcomp_byte(signed char a[], int nx, unsigned char *c, int clen, int nblock);
int fits_rdecomp(unsigned char *c, int clen, unsigned int array[], int nx, int nblock);
int fits_rdecomp_short(unsigned char *c, int clen, unsigned short array[], int nx, int nblock);
int fits_rdecomp_byte(unsigned char *c, int clen, unsigned char array[], int nx, int nblock);


enum pattern {
	PAT_CONST,     /* one value: every block has fs < 0 */
	PAT_RAMP,      /* constant difference */
	PAT_GAUSS1,    /* small noise */
	PAT_GAUSS30,   /* sky-like noise */
	PAT_GAUSS3000, /* wide noise */
	PAT_UNIFORM,   /* full-range: raw (fs == FSMAX) blocks */
	PAT_EXTREMES,  /* alternating min / max of the type */
	PAT_SPIKES,    /* flat with rare huge spikes: unary runs longer than 56 bits */
	PAT_RUNS,      /* constant runs broken by steps */
	PAT_COUNT
};

/* Fills v[0..n) with pattern values representable in w bytes (as signed for 2 and 4). */
static void fill(int64_t *v, size_t n, enum pattern pat, int w)
{
	int64_t lo = w == 1 ? 0 : w == 2 ? INT16_MIN : INT32_MIN;
	int64_t hi = w == 1 ? 255 : w == 2 ? INT16_MAX : INT32_MAX;
	int64_t base = w == 1 ? 100 : 1000;
	for (size_t i = 0; i < n; i++) {
		int64_t x = base;
		switch (pat) {
		case PAT_CONST:
			x = w == 1 ? 77 : -12345 % (hi + 1);
			break;
		case PAT_RAMP:
			x = (int64_t)(i * 3) % (w == 1 ? 200 : 30000);
			break;
		case PAT_GAUSS1:
			x = base + (int64_t)lround(gauss());
			break;
		case PAT_GAUSS30:
			x = base + (int64_t)lround(30.0 * gauss());
			break;
		case PAT_GAUSS3000:
			x = base + (int64_t)lround(3000.0 * gauss());
			break;
		case PAT_UNIFORM:
			x = lo + (int64_t)(rng() % (uint64_t)(hi - lo + 1));
			break;
		case PAT_EXTREMES:
			x = (i / 3) % 2 ? hi : lo;
			break;
		case PAT_SPIKES:
			x = rng() % 97 == 0 ? (rng() % 2 ? hi : lo) : base + (int64_t)(rng() % 3);
			break;
		case PAT_RUNS:
			x = base + (int64_t)((i / 50) % 7) * 13;
			break;
		default:
			break;
		}
		if (x < lo)
			x = lo;
		if (x > hi)
			x = hi;
		v[i] = x;
	}
}

/* Compresses v with CFITSIO's coder for width w; returns the length or -1. */
static int encode(const int64_t *v, size_t n, int w, int bs, unsigned char *c, int clen)
{
	int r = -1;
	if (w == 1) {
		signed char *a = malloc(n ? n : 1);
		for (size_t i = 0; i < n; i++)
			a[i] = (signed char)(uint8_t)v[i];
		r = fits_rcomp_byte(a, (int)n, c, clen, bs);
		free(a);
	} else if (w == 2) {
		short *a = malloc((n ? n : 1) * sizeof(*a));
		for (size_t i = 0; i < n; i++)
			a[i] = (short)v[i];
		r = fits_rcomp_short(a, (int)n, c, clen, bs);
		free(a);
	} else {
		int *a = malloc((n ? n : 1) * sizeof(*a));
		for (size_t i = 0; i < n; i++)
			a[i] = (int)v[i];
		r = fits_rcomp(a, (int)n, c, clen, bs);
		free(a);
	}
	return r;
}

/* The value of element i of a decoded w-byte buffer, sign-extended like fill()'s values. */
static int64_t elem(const void *buf, size_t i, int w)
{
	if (w == 1)
		return ((const uint8_t *)buf)[i];
	if (w == 2) {
		int16_t s;
		memcpy(&s, (const uint8_t *)buf + 2 * i, 2);
		return s;
	}
	int32_t l;
	memcpy(&l, (const uint8_t *)buf + 4 * i, 4);
	return l;
}

static int cfitsio_decode(unsigned char *c, int clen, void *out, size_t n, int w, int bs)
{
	if (w == 1)
		return fits_rdecomp_byte(c, clen, out, (int)n, bs);
	if (w == 2)
		return fits_rdecomp_short(c, clen, out, (int)n, bs);
	return fits_rdecomp(c, clen, out, (int)n, bs);
}

static size_t total_pixels, total_streams, variants_run[2];

/* Encodes with CFITSIO, decodes with ours and with CFITSIO, checks all three agree; with
 * `truncate` set, also checks that every proper prefix of the stream is TSR_E_CORRUPT. */
static void round_trip(enum pattern pat, size_t n, int w, int bs, int truncate)
{
	int64_t *v = malloc((n ? n : 1) * sizeof(*v));
	int clen = (int)(n * (size_t)w * 2 + 64);
	unsigned char *c = malloc((size_t)clen);
	void *ours = malloc(n * (size_t)w + 1), *theirs = malloc(n * (size_t)w + 1);
	int len, rc, mism = 0;

	fill(v, n, pat, w);
	len = encode(v, n, w, bs, c, clen);
	CHECK(len > 0);
	if (len <= 0)
		goto out;
	/* Exactly-sized copy so ASan flags any read past the end. */
	unsigned char *exact = malloc((size_t)len);
	memcpy(exact, c, (size_t)len);

	rc = tsr_rice_decode(ours, n, exact, (size_t)len, w, bs);
	if (rc != TSR_OK)
		fprintf(stderr, "pattern %d n %zu w %d bs %d: %s\n", pat, n, w, bs, tsr_errmsg());
	CHECK_EQ_INT(rc, TSR_OK);
	for (size_t i = 0; i < n && rc == TSR_OK; i++)
		if (elem(ours, i, w) != v[i] && mism++ < 3)
			fprintf(stderr, "pattern %d n %zu w %d bs %d: pixel %zu = %lld, want %lld\n",
				pat, n, w, bs, i, (long long)elem(ours, i, w), (long long)v[i]);
	CHECK_EQ_INT(mism, 0);

	/* CFITSIO's decoder on the same bytes (its over-read stays inside c). */
	CHECK_EQ_INT(cfitsio_decode(c, len, theirs, n, w, bs), 0);
	CHECK(memcmp(ours, theirs, n * (size_t)w) == 0);

	/* Both inner loops (portable, LZCNT where the CPU has it) give the same pixels. */
	for (int variant = 0; variant < 2; variant++) {
		memset(ours, 0, n * (size_t)w);
		rc = tsr_rice_decode_variant(ours, n, exact, (size_t)len, w, bs, variant);
		if (rc == TSR_E_UNSUPPORTED && variant == 1)
			continue;
		CHECK_EQ_INT(rc, TSR_OK);
		CHECK(memcmp(ours, theirs, n * (size_t)w) == 0);
		variants_run[variant]++;
	}

	/* Trailing bytes after the last block are ignored, as CFITSIO does. */
	{
		unsigned char *longer = malloc((size_t)len + 5);
		memcpy(longer, c, (size_t)len);
		memset(longer + len, 0xA5, 5);
		memset(ours, 0, n * (size_t)w);
		CHECK_EQ_INT(tsr_rice_decode(ours, n, longer, (size_t)len + 5, w, bs), TSR_OK);
		CHECK(memcmp(ours, theirs, n * (size_t)w) == 0);
		free(longer);
	}

	if (truncate) {
		for (int cut = 0; cut < len; cut++) {
			unsigned char *part = malloc(cut ? (size_t)cut : 1);
			memcpy(part, c, (size_t)cut);
			for (int variant = 0; variant < 2; variant++) {
				rc = tsr_rice_decode_variant(ours, n, part, (size_t)cut, w, bs, variant);
				if (rc == TSR_E_UNSUPPORTED && variant == 1)
					continue;
				if (rc != TSR_E_CORRUPT)
					fprintf(stderr, "pattern %d n %zu w %d bs %d: variant %d: cut at "
						"%d of %d -> %d\n", pat, n, w, bs, variant, cut, len, rc);
				CHECK_EQ_INT(rc, TSR_E_CORRUPT);
			}
			free(part);
		}
		CHECK(strstr(tsr_errmsg(), "RICE_1") != NULL);
	}
	free(exact);
	total_pixels += n;
	total_streams++;
out:
	free(v);
	free(c);
	free(ours);
	free(theirs);
}

/* Decodes a hand-built stream, independently of CFITSIO's coder. */
static void hand_built(void)
{
	/* bytepix 2, blocksize 4, 6 pixels: first pixel 0x0102 = 258.
	 * block 0: code 2 (fs 1) as 4 bits 0010; diffs (mapped) 0, 3, 4, 1:
	 *   0 -> top 0 low 0: "1" "0";  3 -> top 1 low 1: "01" "1";
	 *   4 -> top 2 low 0: "001" "0";  1 -> top 0 low 1: "1" "1"
	 *   unmapped 0, -2, +2, -1 -> 258, 256, 258, 257
	 * block 1 (2 pixels): code 0 (fs -1): 0000 -> 257, 257
	 * bits: 0010 10 011 0010 11 0000 -> 0010 1001 1001 0110 000(0 pad)
	 *       = 0x29 0x96 0x00 */
	const unsigned char s[] = {0x01, 0x02, 0x29, 0x96, 0x00};
	const int16_t want[6] = {258, 256, 258, 257, 257, 257};
	int16_t got[6];
	CHECK_EQ_INT(tsr_rice_decode(got, 6, s, sizeof(s), 2, 4), TSR_OK);
	CHECK(memcmp(got, want, sizeof(want)) == 0);

	/* bytepix 4, code 31 = fs 30 > FSMAX 25: rejected (CFITSIO would misdecode it). */
	const unsigned char bad[] = {0, 0, 0, 1, 0xF8, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
	int32_t g4[4];
	CHECK_EQ_INT(tsr_rice_decode(g4, 4, bad, sizeof(bad), 4, 32), TSR_E_CORRUPT);

	/* bytepix 1, blocksize 3, raw block (code 7 = fs 6 = FSMAX): 8-bit differences. */
	/* first 10; code 111; diffs mapped 2 (+1), 255 (~127 = -128), 0 -> 11, 139 (mod 256), 139 */
	/* bits: 111 00000010 11111111 00000000 -> 1110 0000 0101 1111 1110 0000 0000 0(000) */
	const unsigned char raw[] = {10, 0xE0, 0x5F, 0xE0, 0x00, 0x00};
	uint8_t g1[3];
	CHECK_EQ_INT(tsr_rice_decode(g1, 3, raw, sizeof(raw), 1, 3), TSR_OK);
	CHECK_EQ_INT(g1[0], 11);
	CHECK_EQ_INT(g1[1], (11 - 128) & 255);
	CHECK_EQ_INT(g1[2], (11 - 128) & 255);
}

static void bad_args(void)
{
	const unsigned char s[8] = {0};
	int32_t out[4];
	CHECK_EQ_INT(tsr_rice_decode(out, 4, s, sizeof(s), 3, 32), TSR_E_INVALID_ARG);
	CHECK_EQ_INT(tsr_rice_decode(out, 4, s, sizeof(s), 8, 32), TSR_E_INVALID_ARG);
	CHECK_EQ_INT(tsr_rice_decode(out, 4, s, sizeof(s), 0, 32), TSR_E_INVALID_ARG);
	CHECK_EQ_INT(tsr_rice_decode(out, 4, s, sizeof(s), 4, 0), TSR_E_INVALID_ARG);
	CHECK_EQ_INT(tsr_rice_decode(out, 4, s, sizeof(s), 4, -32), TSR_E_INVALID_ARG);
	CHECK_EQ_INT(tsr_rice_decode(out, 0, NULL, 0, 4, 32), TSR_OK);
	CHECK_EQ_INT(tsr_rice_decode(out, 4, s, 3, 4, 32), TSR_E_CORRUPT);
	CHECK_EQ_INT(tsr_rice_decode(out, 4, s, 0, 2, 32), TSR_E_CORRUPT);
}

/* Random bytes, sizes and parameters: the decoder must return OK or CORRUPT, never crash
 * or read outside the (exactly sized) input. */
static void garbage(void)
{
	static const int widths[3] = {1, 2, 4};
	size_t ok = 0, corrupt = 0;
	for (int iter = 0; iter < 20000; iter++) {
		size_t nbytes = (size_t)(rng() % 200);
		size_t npix = (size_t)(rng() % 300) + 1;
		int w = widths[rng() % 3];
		int bs = (int)(rng() % 40) + 1;
		unsigned char *s = malloc(nbytes ? nbytes : 1);
		void *out = malloc(npix * 4);
		/* Mostly-zero bytes make long unary runs; mostly-one bytes make raw blocks. */
		int flavour = (int)(rng() % 3);
		for (size_t i = 0; i < nbytes; i++) {
			uint8_t b = (uint8_t)rng();
			s[i] = flavour == 0 ? b : flavour == 1 ? (uint8_t)(b & (uint8_t)rng() & (uint8_t)rng())
							     : (uint8_t)(b | (uint8_t)rng());
		}
		int rc = tsr_rice_decode(out, npix, s, nbytes, w, bs);
		CHECK(rc == TSR_OK || rc == TSR_E_CORRUPT);
		if (rc == TSR_OK)
			ok++;
		else
			corrupt++;
		free(s);
		free(out);
	}
	CHECK(ok > 0);
	CHECK(corrupt > 0);
}

int main(void)
{
	static const int widths[3] = {1, 2, 4};
	static const size_t lengths[] = {1, 2, 15, 16, 17, 31, 32, 33, 100, 1000, 4096, 4099, 65537};
	static const int blocks[] = {16, 32, 7};

	hand_built();
	bad_args();
	for (int wi = 0; wi < 3; wi++)
		for (int pat = 0; pat < PAT_COUNT; pat++)
			for (size_t li = 0; li < sizeof(lengths) / sizeof(lengths[0]); li++)
				for (int bi = 0; bi < 3; bi++) {
					if (bi == 2 && lengths[li] > 4096)
						continue;
					/* every cut of the shorter streams must be detected */
					round_trip((enum pattern)pat, lengths[li], widths[wi], blocks[bi],
						   lengths[li] <= 100);
				}
	/* a larger image-sized tile per width */
	for (int wi = 0; wi < 3; wi++) {
		round_trip(PAT_GAUSS30, 1 << 20, widths[wi], 32, 0);
		round_trip(PAT_SPIKES, 300000, widths[wi], 32, 0);
	}
	garbage();
	fprintf(stderr, "test_rice: %zu streams, %zu pixels round-tripped; %zu portable-loop and "
		"%zu LZCNT-loop decodes compared\n", total_streams, total_pixels, variants_run[0],
		variants_run[1]);
	CHECK(variants_run[0] == total_streams);
	CHECK_DONE();
}
