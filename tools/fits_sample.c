/* fits_sample.c - sample FITS images written with CFITSIO and read back by both readers, shared by `tessera demo` and bench/fits_bench. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mkdtemp, clock_gettime under -std=c17 */
#endif
#include "fits_sample.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

double tsr_sample_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* splitmix64: deterministic, so every run writes the same pixels. */
static uint64_t sample_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* Box-Muller; the uniforms lie in (0, 1) so the logarithm stays finite. */
static double sample_gauss(uint64_t *s)
{
	double u1 = ((double)(sample_next(s) >> 11) + 0.5) * 0x1p-53;
	double u2 = ((double)(sample_next(s) >> 11) + 0.5) * 0x1p-53;
	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

int tsr_sample_fits_type(int bitpix)
{
	return bitpix == SHORT_IMG ? TSHORT : bitpix == LONG_IMG ? TINT : TFLOAT;
}

enum tsr_dtype tsr_sample_dtype(int bitpix)
{
	return bitpix == SHORT_IMG ? TSR_INT16 : bitpix == LONG_IMG ? TSR_INT32 : TSR_FLOAT32;
}

size_t tsr_sample_esize(int bitpix)
{
	return bitpix == SHORT_IMG ? 2 : 4;
}

void tsr_sample_fits_error(int status, char *err, size_t errlen)
{
	char text[FLEN_STATUS];
	fits_get_errstatus(status, text);
	snprintf(err, errlen, "CFITSIO status %d: %s", status, text);
	fits_clear_errmsg();
}

void tsr_sample_cfitsio_version(char *s, size_t len)
{
	float v = 0;
	fits_get_version(&v);
	/* fits_get_version() encodes 4.2.0 as 4.02 (major + minor / 100 + micro / 10000). */
	long vi = lround(v * 10000.0f);
	snprintf(s, len, "%ld.%ld.%ld", vi / 10000, vi / 100 % 100, vi % 100);
}

/* The pixels; the null draw is made only for files with nulls, so the others' values do not
 * depend on it. */
static void *sample_pixels(const struct tsr_sample_file *sf, long size, uint64_t seed)
{
	size_t n = (size_t)size * (size_t)size;
	void *p = malloc(n * tsr_sample_esize(sf->bitpix));
	if (!p)
		return NULL;
	uint64_t s = seed;
	for (size_t i = 0; i < n; i++) {
		double v = 1000.0 + 30.0 * sample_gauss(&s);
		if (sf->bitpix == SHORT_IMG)
			((int16_t *)p)[i] = (int16_t)lround(v);
		else if (sf->bitpix == LONG_IMG)
			((int32_t *)p)[i] = (int32_t)lround(v);
		else if (sf->nulls && (sample_next(&s) & 16383) == 0)
			((float *)p)[i] = TSR_SAMPLE_NULL;
		else
			((float *)p)[i] = (float)v;
	}
	return p;
}

/* fits_create_diskfile takes the name literally (no "!", no "[...]"). */
int tsr_sample_write(const char *path, const struct tsr_sample_file *sf, long size, uint64_t seed,
		     char *err, size_t errlen)
{
	void *pix = sample_pixels(sf, size, seed);
	if (!pix) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	fitsfile *f = NULL;
	int st = 0, cst = 0;
	long naxes[2] = {size, size};
	long tile[2] = {size, 1};
	LONGLONG n = (LONGLONG)size * size;
	remove(path);
	fits_create_diskfile(&f, path, &st);
	if (sf->comptype) {
		if (sf->tile)
			tile[0] = tile[1] = sf->tile;
		fits_set_compression_type(f, sf->comptype, &st);
		fits_set_tile_dim(f, 2, tile, &st);
		if (sf->bitpix == FLOAT_IMG) {
			fits_set_quantize_level(f, sf->qlevel, &st);
			fits_set_quantize_method(f, SUBTRACTIVE_DITHER_1, &st);
			/* The default seed comes from the clock; a fixed one keeps the files identical. */
			fits_set_dither_seed(f, 1, &st);
		}
	}
	fits_create_img(f, sf->bitpix, 2, naxes, &st);
	if (sf->bitpix == FLOAT_IMG && sf->nulls) {
		/* fits_write_img would quantize a NaN into garbage; nulls go through nulval. */
		float nul = TSR_SAMPLE_NULL;
		fits_write_imgnull(f, TFLOAT, 1, n, pix, &nul, &st);
	} else {
		fits_write_img(f, tsr_sample_fits_type(sf->bitpix), 1, n, pix, &st);
	}
	if (f)
		fits_close_file(f, &cst);
	free(pix);
	if (st || cst) {
		tsr_sample_fits_error(st ? st : cst, err, errlen);
		return -1;
	}
	return 0;
}

/*
 * The cutout straddles a multiple of 256 near the middle, so it crosses tile borders in both
 * axes (2x2 of 256x256 tiles, 100 row tiles), as most cutouts do; that also keeps CFITSIO's
 * tile cache (one tile per tile column) from holding what a repeated cutout needs.
 */
void tsr_sample_cutout(long size, long *y0, long *x0, long *edge)
{
	long mid = size / 2 >= 256 ? size / 2 / 256 * 256 : size / 2;
	*edge = size < TSR_SAMPLE_CUT ? size : TSR_SAMPLE_CUT;
	*y0 = mid - 43;
	*x0 = mid - 57;
	if (*y0 < 0 || *y0 + *edge > size)
		*y0 = size - *edge;
	if (*x0 < 0 || *x0 + *edge > size)
		*x0 = size - *edge;
}

void tsr_sample_fits_open(const char *path, fitsfile **f, int *st)
{
	int naxis = 0, type;
	*f = NULL;
	fits_open_diskfile(f, path, READONLY, st);
	fits_get_img_dim(*f, &naxis, st);
	if (!*st && naxis == 0)
		fits_movabs_hdu(*f, 2, &type, st);
}

void tsr_sample_read_cfitsio(fitsfile *f, int bitpix, long size, int cutout, void *dst, int *st)
{
	/* A NaN nulval makes CFITSIO return NaN for nulls, as tessera does; 0 would turn null
	 * checking off. Integers carry no BLANK here, so 0 is fine for them. */
	float fnul = NAN;
	int inul = 0;
	short snul = 0;
	void *nul = bitpix == FLOAT_IMG ? (void *)&fnul : bitpix == LONG_IMG ? (void *)&inul
									     : (void *)&snul;
	int any = 0;
	if (cutout) {
		long y0, x0, e;
		tsr_sample_cutout(size, &y0, &x0, &e);
		long fpix[2] = {x0 + 1, y0 + 1}, lpix[2] = {x0 + e, y0 + e}, inc[2] = {1, 1};
		fits_read_subset(f, tsr_sample_fits_type(bitpix), fpix, lpix, inc, nul, dst, &any, st);
	} else {
		fits_read_img(f, tsr_sample_fits_type(bitpix), 1, (LONGLONG)size * size, nul, dst,
			      &any, st);
	}
}

int tsr_sample_read_tessera(struct tsr_array *a, long size, int cutout, void *dst, size_t nbytes,
			    struct tsr_receipt *rec)
{
	struct tsr_selection sel;
	struct tsr_buffer buf = {.data = dst, .nbytes = nbytes, .mem = TSR_MEM_HOST};
	int rc = 0;
	if (cutout) {
		long y0, x0, e;
		char spec[96];
		tsr_sample_cutout(size, &y0, &x0, &e);
		snprintf(spec, sizeof(spec), "%ld:%ld,%ld:%ld", y0, y0 + e, x0, x0 + e);
		rc = tsr_selection_parse(spec, &sel);
	}
	if (!rc)
		rc = tsr_read(a, cutout ? &sel : NULL, &buf, NULL, rec);
	return rc;
}

double tsr_sample_best(int (*read)(void *arg), void *arg, int runs)
{
	double best = -1;
	for (int i = 0; i < runs; i++) {
		double t0 = tsr_sample_now();
		if (read(arg))
			return -1;
		double dt = tsr_sample_now() - t0;
		if (best < 0 || dt < best)
			best = dt;
	}
	return best;
}

long long tsr_sample_compare(const void *a, const void *b, size_t n, int bitpix)
{
	size_t es = tsr_sample_esize(bitpix);
	if (bitpix != FLOAT_IMG) {
		if (!memcmp(a, b, n * es))
			return -1;
		for (size_t i = 0; i < n; i++)
			if (memcmp((const char *)a + i * es, (const char *)b + i * es, es))
				return (long long)i;
		return -1;
	}
	const uint32_t *ua = a, *ub = b;
	const float *fa = a, *fb = b;
	for (size_t i = 0; i < n; i++)
		if (ua[i] != ub[i] && !(isnan(fa[i]) && isnan(fb[i])))
			return (long long)i;
	return -1;
}

void tsr_sample_value(char *s, size_t len, const void *p, size_t i, int bitpix)
{
	if (bitpix == SHORT_IMG) {
		snprintf(s, len, "%d", ((const int16_t *)p)[i]);
	} else if (bitpix == LONG_IMG) {
		snprintf(s, len, "%d", (int)((const int32_t *)p)[i]);
	} else {
		uint32_t u;
		memcpy(&u, (const float *)p + i, 4);
		snprintf(s, len, "%.9g (0x%08x)", ((const float *)p)[i], (unsigned)u);
	}
}

int tsr_sample_make_dir(const char *prog, const char *dir_opt, const char *tmpl, char *dir,
			size_t len, int *keep)
{
	if (dir_opt) {
		if (mkdir(dir_opt, 0777) && errno != EEXIST) {
			fprintf(stderr, "%s: %s: %s\n", prog, dir_opt, strerror(errno));
			return 1;
		}
		if (snprintf(dir, len, "%s", dir_opt) >= (int)len) {
			fprintf(stderr, "%s: --dir path too long\n", prog);
			return 2;
		}
		*keep = 1;
		return 0;
	}
	const char *tmp = getenv("TMPDIR");
	int n = snprintf(dir, len, "%s/%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", tmpl);
	if (n >= (int)len)
		errno = ENAMETOOLONG;
	if (n >= (int)len || !mkdtemp(dir)) {
		fprintf(stderr, "%s: mkdtemp %s: %s\n", prog, dir, strerror(errno));
		return 1;
	}
	return 0;
}

void tsr_sample_remove_dir(const char *prog, const char *dir, const struct tsr_sample_file *files,
			   size_t n)
{
	char path[TSR_SAMPLE_FILE];
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i].name);
		remove(path);
	}
	if (rmdir(dir))
		fprintf(stderr, "%s: could not remove %s: %s\n", prog, dir, strerror(errno));
}
