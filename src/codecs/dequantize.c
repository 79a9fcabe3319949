/* dequantize.c - FITS dither random table and dequantization, bit-identical to CFITSIO. */

/*
 * CFITSIO (imcompress.c unquantize_i4r4 / unquantize_i4r8, fits_init_randoms) is the
 * reference; fpack files are decoded by it, so every rounding step is reproduced:
 *   out = (float)(((double)q - (double)R[k] + 0.5) * zscale + zzero)
 * evaluated left to right in double, the float cast last (none for float64 output). The
 * dither index k walks the 10000-entry table from the tile's seed and advances on every
 * pixel, nulls and DITHER_2 zeros included; at k == 10000 the seed moves on by one and k
 * restarts at (int)(R[seed] * 500). Between two restarts k simply counts up, so the work is
 * done in runs of 9501..10000 pixels with no per-pixel bookkeeping.
 *
 * No fused multiply-add may be formed from `* zscale + zzero`: one rounding fewer changes
 * the last bit of some results, and CFITSIO as shipped (Debian, x86-64 without -march) never
 * fuses. GCC contracts only in its GNU modes (-std=c17, which this project uses, implies
 * -ffp-contract=off) and only when the target has FMA; clang honours the standard pragma.
 * Both are pinned below so that a -march=native or gnu17 build stays bit-identical.
 */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__) && !defined(__STRICT_ANSI__)
#pragma GCC optimize("fp-contract=off")
#endif

#include <math.h>
#include <pthread.h>
#include <stdint.h>

#include "codecs.h"

#define DQ_N_RANDOM 10000
/* CFITSIO's ZERO_VALUE: a DITHER_2 pixel that was exactly 0.0 (not the standard's -2^31+1). */
#define DQ_ZERO_VALUE (-2147483646)

static float dq_rand[DQ_N_RANDOM];
/* dq_rand widened to double (exact), as CFITSIO widens it per pixel. */
static double dq_rand_d[DQ_N_RANDOM];
/* The first table index after seeding with i: (int)(R[i] * 500), a float product. */
static int dq_start[DQ_N_RANDOM];
static pthread_once_t dq_once = PTHREAD_ONCE_INIT;

/*
 * fits_init_randoms: the Park-Miller minimal standard generator computed in double exactly
 * as CFITSIO does (the final seed must be 1043618065; tests/test_dither.c checks it).
 */
static void dq_init(void)
{
	const double a = 16807.0, m = 2147483647.0;
	double seed = 1.0, t;

	for (int i = 0; i < DQ_N_RANDOM; i++) {
		t = a * seed;
		seed = t - m * (double)(int)(t / m);
		dq_rand[i] = (float)(seed / m);
	}
	for (int i = 0; i < DQ_N_RANDOM; i++) {
		dq_rand_d[i] = (double)dq_rand[i];
		/* float * int is a float multiply in C, as in CFITSIO's (int)(R[i] * 500). */
		dq_start[i] = (int)(dq_rand[i] * 500);
	}
}

const float *tsr_dither_randoms(void)
{
	pthread_once(&dq_once, dq_init);
	return dq_rand;
}

/* A run of dithered pixels with no special values, r = &R[k of the first pixel]. */
static void dq_run_f32(float *restrict o, const int32_t *restrict q, const double *restrict r,
		       size_t n, double zscale, double zzero)
{
	for (size_t j = 0; j < n; j++)
		o[j] = (float)(((double)q[j] - r[j] + 0.5) * zscale + zzero);
}

static void dq_run_f64(double *restrict o, const int32_t *restrict q, const double *restrict r,
		       size_t n, double zscale, double zzero)
{
	for (size_t j = 0; j < n; j++)
		o[j] = ((double)q[j] - r[j] + 0.5) * zscale + zzero;
}

/* The same with nulls (q == blank -> NaN, tested first as CFITSIO does) and, when zero is
 * set, DITHER_2 zeros (q == -2147483646 -> 0.0). */
static void dq_run_special_f32(float *restrict o, const int32_t *restrict q,
			       const double *restrict r, size_t n, double zscale, double zzero,
			       int has_blank, int32_t blank, int zero)
{
	for (size_t j = 0; j < n; j++) {
		int32_t v = q[j];
		if (has_blank && v == blank)
			o[j] = NAN;
		else if (zero && v == DQ_ZERO_VALUE)
			o[j] = 0.0f;
		else
			o[j] = (float)(((double)v - r[j] + 0.5) * zscale + zzero);
	}
}

static void dq_run_special_f64(double *restrict o, const int32_t *restrict q,
			       const double *restrict r, size_t n, double zscale, double zzero,
			       int has_blank, int32_t blank, int zero)
{
	for (size_t j = 0; j < n; j++) {
		int32_t v = q[j];
		if (has_blank && v == blank)
			o[j] = (double)NAN;
		else if (zero && v == DQ_ZERO_VALUE)
			o[j] = 0.0;
		else
			o[j] = ((double)v - r[j] + 0.5) * zscale + zzero;
	}
}

/* NO_DITHER: CFITSIO's fffi4r4 / fffi4r8, q * zscale + zzero in double. */
static void dq_linear(void *out, int f64, const int32_t *restrict q, size_t n, double zscale,
		      double zzero, int has_blank, int32_t blank)
{
	if (f64) {
		double *restrict o = out;
		for (size_t j = 0; j < n; j++)
			o[j] = has_blank && q[j] == blank ? (double)NAN
							  : (double)q[j] * zscale + zzero;
	} else {
		float *restrict o = out;
		for (size_t j = 0; j < n; j++)
			o[j] = has_blank && q[j] == blank ? NAN
							  : (float)((double)q[j] * zscale + zzero);
	}
}

void tsr_dequantize(void *out, enum tsr_dtype out_type, const int32_t *q, size_t n, double zscale,
		    double zzero, enum tsr_dither dither, int64_t dither_row, int has_blank,
		    int64_t blank, int zero_test)
{
	const int f64 = out_type == TSR_FLOAT64;
	int32_t blank32 = 0;
	int special, zero, seed, k;
	size_t i = 0;

	/* A ZBLANK outside the int32 range can never match a stored value. */
	if (has_blank && (blank < INT32_MIN || blank > INT32_MAX))
		has_blank = 0;
	if (has_blank)
		blank32 = (int32_t)blank;

	if (dither == TSR_DITHER_NONE) {
		dq_linear(out, f64, q, n, zscale, zzero, has_blank, blank32);
		return;
	}

	pthread_once(&dq_once, dq_init);
	/* CFITSIO: iseed = (row - 1) % 10000. A row below 1 (ZDITHER0 = 0) would index before
	 * its table; the mathematical modulo keeps the walk inside ours. */
	seed = (int)((dither_row - 1) % DQ_N_RANDOM);
	if (seed < 0)
		seed += DQ_N_RANDOM;
	k = dq_start[seed];
	/* CFITSIO tests ZERO_VALUE only for SUBTRACTIVE_DITHER_2, and only on int32 tiles. */
	zero = dither == TSR_DITHER_2 && zero_test;
	special = has_blank || zero;

	while (i < n) {
		size_t run = (size_t)(DQ_N_RANDOM - k);
		if (run > n - i)
			run = n - i;
		if (f64) {
			double *o = (double *)out + i;
			if (special)
				dq_run_special_f64(o, q + i, dq_rand_d + k, run, zscale, zzero,
						   has_blank, blank32, zero);
			else
				dq_run_f64(o, q + i, dq_rand_d + k, run, zscale, zzero);
		} else {
			float *o = (float *)out + i;
			if (special)
				dq_run_special_f32(o, q + i, dq_rand_d + k, run, zscale, zzero,
						   has_blank, blank32, zero);
			else
				dq_run_f32(o, q + i, dq_rand_d + k, run, zscale, zzero);
		}
		i += run;
		k += (int)run;
		if (k == DQ_N_RANDOM) {
			seed = (seed + 1) % DQ_N_RANDOM;
			k = dq_start[seed];
		}
	}
}
