/* test_dither.c - the FITS dither table and dequantization against a per-pixel reference. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "codecs/codecs.h"

#define N_RANDOM 10000
#define ZERO_VALUE (-2147483646)

static float ref_table[N_RANDOM];

/* The table recomputed here from the published recipe (CFITSIO fits_init_randoms). */
static void make_reference_table(void)
{
	double a = 16807.0, m = 2147483647.0, seed = 1.0, t;
	for (int i = 0; i < N_RANDOM; i++) {
		t = a * seed;
		seed = t - m * (int)(t / m);
		ref_table[i] = (float)(seed / m);
	}
	CHECK_EQ_INT((int)seed, 1043618065);
}

static uint32_t fbits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static uint64_t dbits(double d)
{
	uint64_t u;
	memcpy(&u, &d, 8);
	return u;
}

static void table_checks(void)
{
	const float *r = tsr_dither_randoms();
	CHECK(r != NULL);
	CHECK(r == tsr_dither_randoms());
	make_reference_table();
	CHECK(memcmp(r, ref_table, sizeof(ref_table)) == 0);
	/* The published check values (9 significant digits identify a float exactly). */
	CHECK_EQ_INT(fbits(r[0]), fbits(7.82636926e-06f));
	CHECK_EQ_INT(fbits(r[1]), fbits(0.131537795f));
	CHECK_EQ_INT(fbits(r[9999]), fbits(0.485972524f));
}

/*
 * The reference: CFITSIO's unquantize_i4r4 / unquantize_i4r8 loop, pixel by pixel. The seed
 * uses a mathematical modulo so that dither_row 0 stays inside the table.
 */
static void reference(void *out, int f64, const int32_t *q, size_t n, double zscale,
		      double zzero, int dither, int64_t row, int has_blank, int64_t blank,
		      int zero_test)
{
	int64_t s = (row - 1) % N_RANDOM;
	if (s < 0)
		s += N_RANDOM;
	int iseed = (int)s;
	int k = (int)(ref_table[iseed] * 500);
	for (size_t i = 0; i < n; i++) {
		double d;
		if (has_blank && q[i] == blank)
			d = NAN;
		else if (dither == TSR_DITHER_NONE)
			d = (double)q[i] * zscale + zzero;
		else if (dither == TSR_DITHER_2 && zero_test && q[i] == ZERO_VALUE)
			d = 0.0;
		else
			d = ((double)q[i] - ref_table[k] + 0.5) * zscale + zzero;
		if (f64)
			((double *)out)[i] = d;
		else
			((float *)out)[i] = (float)d;
		if (dither != TSR_DITHER_NONE) {
			k++;
			if (k == N_RANDOM) {
				iseed++;
				if (iseed == N_RANDOM)
					iseed = 0;
				k = (int)(ref_table[iseed] * 500);
			}
		}
	}
}

static uint64_t rng_state = 0x0123456789ABCDEFull;
static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1Dull;
}

/* Runs one case through tsr_dequantize and the reference and compares bit patterns. */
static void compare(const int32_t *q, size_t n, double zscale, double zzero, int dither,
		    int64_t row, int has_blank, int64_t blank, int zero_test, int f64)
{
	size_t w = f64 ? 8 : 4;
	void *got = malloc(n * w + 8), *want = malloc(n * w + 8);
	size_t bad = 0;
	tsr_dequantize(got, f64 ? TSR_FLOAT64 : TSR_FLOAT32, q, n, zscale, zzero,
		       (enum tsr_dither)dither, row, has_blank, blank, zero_test);
	reference(want, f64, q, n, zscale, zzero, dither, row, has_blank, blank, zero_test);
	for (size_t i = 0; i < n; i++) {
		int same = f64 ? dbits(((double *)got)[i]) == dbits(((double *)want)[i])
			       : fbits(((float *)got)[i]) == fbits(((float *)want)[i]);
		if (!same && bad++ < 3)
			fprintf(stderr,
				"dither %d row %lld f64 %d blank %d zero %d: pixel %zu q %d differs\n",
				dither, (long long)row, f64, has_blank, zero_test, i, q[i]);
	}
	CHECK_EQ_INT(bad, 0);
	free(got);
	free(want);
}

int main(void)
{
	const size_t n = 47000; /* crosses four or five table restarts */
	int32_t *q = malloc(n * sizeof(*q));
	static const int64_t rows[] = {1, 2, 3, 500, 9999, 10000, 10001, 12345, 20000, 0, -5};
	size_t nblank = 0, nzero = 0;

	table_checks();

	/* Quantized sky: noise around a level, sprinkled with the null and zero markers. */
	for (size_t i = 0; i < n; i++) {
		uint64_t r = rng();
		q[i] = (int32_t)(r % 2001) - 1000 + (int32_t)(i % 37);
		if (r % 101 == 0) {
			q[i] = -2147483647;
			nblank++;
		} else if (r % 103 == 0) {
			q[i] = ZERO_VALUE;
			nzero++;
		}
	}
	q[0] = INT32_MIN + 1;
	q[1] = INT32_MAX;
	q[2] = INT32_MIN;
	CHECK(nblank > 100 && nzero > 100);

	for (size_t ri = 0; ri < sizeof(rows) / sizeof(rows[0]); ri++)
		for (int f64 = 0; f64 < 2; f64++) {
			compare(q, n, 0.0123, 1234.5, TSR_DITHER_1, rows[ri], 0, 0, 0, f64);
			compare(q, n, 0.0123, 1234.5, TSR_DITHER_1, rows[ri], 1, -2147483647, 0, f64);
			compare(q, n, 2.5e-3, -7.25, TSR_DITHER_2, rows[ri], 1, -2147483647, 1, f64);
			compare(q, n, 2.5e-3, -7.25, TSR_DITHER_2, rows[ri], 0, 0, 1, f64);
			/* zero_test off (8/16-bit tiles): -2147483646 is an ordinary value */
			compare(q, n, 2.5e-3, -7.25, TSR_DITHER_2, rows[ri], 1, -2147483647, 0, f64);
		}
	/* Short tiles, and tiles that end exactly where the walk restarts. */
	for (size_t len = 0; len < 40; len++)
		compare(q, len, 0.5, 3.0, TSR_DITHER_1, 77, 1, -2147483647, 0, 0);
	{
		const float *r = tsr_dither_randoms();
		size_t first_run = (size_t)(N_RANDOM - (int)(r[6] * 500)); /* row 7: seed 6 */
		for (size_t d = 0; d < 3; d++) {
			compare(q, first_run - 1 + d, 0.5, 3.0, TSR_DITHER_1, 7, 0, 0, 0, 0);
			compare(q, first_run - 1 + d, 0.5, 3.0, TSR_DITHER_2, 7, 1, -2147483647, 1,
				1);
		}
	}

	/* NO_DITHER, with and without blanks; a BLANK outside int32 never matches. */
	for (int f64 = 0; f64 < 2; f64++) {
		compare(q, n, 0.0123, 1234.5, TSR_DITHER_NONE, 1, 0, 0, 0, f64);
		compare(q, n, 0.0123, 1234.5, TSR_DITHER_NONE, 1, 1, -2147483647, 0, f64);
		compare(q, n, 1.0, 0.0, TSR_DITHER_NONE, 1, 1, (int64_t)1 << 40, 0, f64);
	}

	/* Direct checks of the rules, independent of the reference loop. */
	{
		const float *r = tsr_dither_randoms();
		int32_t qq[4] = {100, -2147483647, 100, ZERO_VALUE};
		float f[4];
		double dd[4];
		int k0 = (int)(r[0] * 500); /* row 1 -> seed 0 */
		tsr_dequantize(f, TSR_FLOAT32, qq, 4, 0.25, 10.0, TSR_DITHER_2, 1, 1, -2147483647,
			       1);
		CHECK_EQ_INT(fbits(f[0]), fbits((float)((100.0 - r[k0] + 0.5) * 0.25 + 10.0)));
		CHECK(isnan(f[1]));
		/* the null still advanced the walk: pixel 2 uses R[k0 + 2] */
		CHECK_EQ_INT(fbits(f[2]), fbits((float)((100.0 - r[k0 + 2] + 0.5) * 0.25 + 10.0)));
		CHECK_EQ_INT(fbits(f[3]), fbits(0.0f));
		tsr_dequantize(dd, TSR_FLOAT64, qq, 4, 0.25, 10.0, TSR_DITHER_1, 1, 1, -2147483647,
			       1);
		CHECK_EQ_INT(dbits(dd[0]), dbits((100.0 - r[k0] + 0.5) * 0.25 + 10.0));
		CHECK(isnan(dd[1]));
		/* DITHER_1 has no zero marker */
		CHECK_EQ_INT(dbits(dd[3]),
			     dbits(((double)ZERO_VALUE - r[k0 + 3] + 0.5) * 0.25 + 10.0));
		tsr_dequantize(dd, TSR_FLOAT64, qq, 1, 0.25, 10.0, TSR_DITHER_NONE, 1, 0, 0, 0);
		CHECK_EQ_INT(dbits(dd[0]), dbits(35.0));
	}
	free(q);
	CHECK_DONE();
}
