/* demo.c - `tessera demo`: writes sample FITS files with CFITSIO, reads them back with tessera and CFITSIO, checks and times. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mkdtemp, clock_gettime under -std=c17 */
#endif
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <fitsio.h>

#include "cli.h"

/*
 * Every timed read opens the file, reads and closes it, with both libraries: a user reading a
 * file pays for the open, and a fresh handle keeps CFITSIO's per-handle tile cache from
 * serving repeated cutouts out of memory. The files are read once (the check) before any
 * timing, so they sit in the page cache.
 */

/* Float pixels holding this value are written as nulls (ZBLANK); both readers return NaN. */
#define DEMO_NULL -9999.0f
#define DEMO_RUNS 3     /* best of, whole images */
#define DEMO_CUT_RUNS 5 /* best of, cutouts (milliseconds are noisier) */
#define DEMO_CUT 100    /* cutout edge */
#define DEMO_PATH 4096
#define DEMO_FILE (DEMO_PATH + 64) /* a folder of DEMO_PATH and a file name */

struct demo_case {
	const char *file;
	int bitpix;   /* SHORT_IMG, LONG_IMG, FLOAT_IMG */
	int comptype; /* 0: an ordinary image HDU */
	long tile;    /* 0: one tile per row (CFITSIO's default); n: n x n tiles */
	float qlevel; /* floats: quantization level */
};

static const struct demo_case demo_cases[] = {
	{"int16.fits", SHORT_IMG, 0, 0, 0},
	{"int16_gzip1.fits", SHORT_IMG, GZIP_1, 0, 0},
	{"int32_gzip2.fits", LONG_IMG, GZIP_2, 0, 0},
	{"int16_rice.fits", SHORT_IMG, RICE_1, 0, 0},
	{"int16_rice_tiles.fits", SHORT_IMG, RICE_1, 128, 0},
	{"float32_rice_q4.fits", FLOAT_IMG, RICE_1, 0, 4.0f},
};
#define DEMO_NCASES (sizeof(demo_cases) / sizeof(demo_cases[0]))

struct demo_result {
	char codec[32], dtype[16], reader[16];
	uint64_t stored;
	double t_tsr, t_cfi, c_tsr, c_cfi; /* best seconds; < 0 when not measured */
	int ok;
	char msg[512];
};

/* One read: the whole image or the cutout, with tessera (ctx set) or CFITSIO (ctx NULL). */
struct demo_read {
	struct tsr_context *ctx;
	const char *path;
	int bitpix;
	long size;
	int cutout;
	void *dst;
	size_t nbytes;
	char err[256];
};

static void demo_usage(FILE *f)
{
	fprintf(f, "usage: tessera demo [--dir DIR] [--keep] [--size N]\n"
		   "Writes a sample set of FITS images with CFITSIO (uncompressed int16, GZIP_1\n"
		   "int16, GZIP_2 int32, RICE_1 int16 in row tiles and in 128x128 tiles, float32\n"
		   "quantized q=4 with SUBTRACTIVE_DITHER_1 and a few null pixels), NxN pixels\n"
		   "(default 2048) of Gaussian noise around 1000. Reads each back with tessera\n"
		   "(all threads) and with CFITSIO, checks the values are identical (floats bit\n"
		   "for bit, NaN equal to NaN), and prints the read speed of both (MB = 10^6 bytes\n"
		   "of decoded output, best of %d, open + read + close) and the time of one\n"
		   "%dx%d cutout (best of %d).\n\n"
		   "  --dir DIR    write the files into DIR (created if missing) and keep them\n"
		   "  --keep       keep the temporary folder (under $TMPDIR or /tmp)\n"
		   "  --size N     images are NxN pixels\n\n"
		   "Exit status 0 when every check passes, 1 otherwise.\n",
		DEMO_RUNS, DEMO_CUT, DEMO_CUT, DEMO_CUT_RUNS);
}

static double demo_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* splitmix64: deterministic, so every run writes the same pixels. */
static uint64_t demo_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* Box-Muller; the uniforms lie in (0, 1) so the logarithm stays finite. */
static double demo_gauss(uint64_t *s)
{
	double u1 = ((double)(demo_next(s) >> 11) + 0.5) * 0x1p-53;
	double u2 = ((double)(demo_next(s) >> 11) + 0.5) * 0x1p-53;
	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

static int demo_fits_type(int bitpix)
{
	return bitpix == SHORT_IMG ? TSHORT : bitpix == LONG_IMG ? TINT : TFLOAT;
}

static enum tsr_dtype demo_dtype(int bitpix)
{
	return bitpix == SHORT_IMG ? TSR_INT16 : bitpix == LONG_IMG ? TSR_INT32 : TSR_FLOAT32;
}

static size_t demo_esize(int bitpix)
{
	return bitpix == SHORT_IMG ? 2 : 4;
}

/* Gaussian noise, sigma 30 around 1000; floats get about one null pixel in 16384. */
static void *demo_pixels(int bitpix, long size, uint64_t seed)
{
	size_t n = (size_t)size * (size_t)size;
	void *p = malloc(n * demo_esize(bitpix));
	if (!p)
		return NULL;
	uint64_t s = seed;
	for (size_t i = 0; i < n; i++) {
		double v = 1000.0 + 30.0 * demo_gauss(&s);
		if (bitpix == SHORT_IMG)
			((int16_t *)p)[i] = (int16_t)lround(v);
		else if (bitpix == LONG_IMG)
			((int32_t *)p)[i] = (int32_t)lround(v);
		else
			((float *)p)[i] = (demo_next(&s) & 16383) == 0 ? DEMO_NULL : (float)v;
	}
	return p;
}

static void demo_fits_error(int status, char *err, size_t errlen)
{
	char text[FLEN_STATUS];
	fits_get_errstatus(status, text);
	snprintf(err, errlen, "CFITSIO status %d: %s", status, text);
	fits_clear_errmsg();
}

/* Writes one sample file; fits_create_diskfile takes the name literally (no "!", no "[...]"). */
static int demo_write(const char *path, const struct demo_case *c, long size, uint64_t seed,
		      char *err, size_t errlen)
{
	void *pix = demo_pixels(c->bitpix, size, seed);
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
	if (c->comptype) {
		if (c->tile)
			tile[0] = tile[1] = c->tile;
		fits_set_compression_type(f, c->comptype, &st);
		fits_set_tile_dim(f, 2, tile, &st);
		if (c->bitpix == FLOAT_IMG) {
			fits_set_quantize_level(f, c->qlevel, &st);
			fits_set_quantize_method(f, SUBTRACTIVE_DITHER_1, &st);
			/* The default seed comes from the clock; a fixed one keeps the files identical. */
			fits_set_dither_seed(f, 1, &st);
		}
	}
	fits_create_img(f, c->bitpix, 2, naxes, &st);
	if (c->bitpix == FLOAT_IMG) {
		/* fits_write_img would quantize a NaN into garbage; nulls go through nulval. */
		float nul = DEMO_NULL;
		fits_write_imgnull(f, TFLOAT, 1, n, pix, &nul, &st);
	} else {
		fits_write_img(f, demo_fits_type(c->bitpix), 1, n, pix, &st);
	}
	if (f)
		fits_close_file(f, &cst);
	free(pix);
	if (st || cst) {
		demo_fits_error(st ? st : cst, err, errlen);
		return -1;
	}
	return 0;
}

/*
 * The cutout straddles a multiple of 256 near the middle, so it crosses tile borders in both
 * axes, as most cutouts do; that also keeps CFITSIO's tile cache (one tile per tile column)
 * from holding what a repeated cutout needs.
 */
static void demo_cutout(long size, long *y0, long *x0, long *edge)
{
	long mid = size / 2 >= 256 ? size / 2 / 256 * 256 : size / 2;
	*edge = size < DEMO_CUT ? size : DEMO_CUT;
	*y0 = mid - 43;
	*x0 = mid - 57;
	if (*y0 < 0 || *y0 + *edge > size)
		*y0 = size - *edge;
	if (*x0 < 0 || *x0 + *edge > size)
		*x0 = size - *edge;
}

static int demo_read_tessera(struct demo_read *r)
{
	struct tsr_selection sel;
	struct tsr_array *a = NULL;
	struct tsr_buffer buf = {.data = r->dst, .nbytes = r->nbytes, .mem = TSR_MEM_HOST};
	int rc = 0;
	if (r->cutout) {
		long y0, x0, e;
		char spec[96];
		demo_cutout(r->size, &y0, &x0, &e);
		snprintf(spec, sizeof(spec), "%ld:%ld,%ld:%ld", y0, y0 + e, x0, x0 + e);
		rc = tsr_selection_parse(spec, &sel);
	}
	if (!rc)
		rc = tsr_open(r->ctx, r->path, NULL, &a);
	if (!rc)
		rc = tsr_read(a, r->cutout ? &sel : NULL, &buf, NULL, NULL);
	/* Copy the message before tsr_array_free(), which is a tessera call too. */
	if (rc)
		snprintf(r->err, sizeof(r->err), "tessera: %s", tsr_errmsg());
	tsr_array_free(a);
	return rc;
}

/* Opens path at its image: HDU 2 of a tile-compressed file, whose primary HDU is empty. */
static int demo_read_cfitsio(struct demo_read *r)
{
	fitsfile *f = NULL;
	int st = 0, cst = 0, naxis = 0, any = 0, type = 0;
	/* A NaN nulval makes CFITSIO return NaN for nulls, as tessera does; 0 would turn null
	 * checking off. Integers carry no BLANK here, so 0 is fine for them. */
	float fnul = NAN;
	int inul = 0;
	short snul = 0;
	void *nul = r->bitpix == FLOAT_IMG ? (void *)&fnul : r->bitpix == LONG_IMG ? (void *)&inul
										  : (void *)&snul;
	fits_open_diskfile(&f, r->path, READONLY, &st);
	fits_get_img_dim(f, &naxis, &st);
	if (!st && naxis == 0)
		fits_movabs_hdu(f, 2, &type, &st);
	if (r->cutout) {
		long y0, x0, e;
		demo_cutout(r->size, &y0, &x0, &e);
		long fpix[2] = {x0 + 1, y0 + 1}, lpix[2] = {x0 + e, y0 + e}, inc[2] = {1, 1};
		fits_read_subset(f, demo_fits_type(r->bitpix), fpix, lpix, inc, nul, r->dst, &any, &st);
	} else {
		fits_read_img(f, demo_fits_type(r->bitpix), 1, (LONGLONG)r->size * r->size, nul,
			      r->dst, &any, &st);
	}
	if (f)
		fits_close_file(f, &cst);
	if (st || cst) {
		demo_fits_error(st ? st : cst, r->err, sizeof(r->err));
		return -1;
	}
	return 0;
}

static int demo_read(struct demo_read *r)
{
	return r->ctx ? demo_read_tessera(r) : demo_read_cfitsio(r);
}

/* Best wall time of runs reads, or -1 if one failed. */
static double demo_best(struct demo_read *r, int runs)
{
	double best = -1;
	for (int i = 0; i < runs; i++) {
		double t0 = demo_now();
		if (demo_read(r))
			return -1;
		double dt = demo_now() - t0;
		if (best < 0 || dt < best)
			best = dt;
	}
	return best;
}

/* Index of the first differing element, or -1. Floats compare bit patterns (so -0.0 != 0.0)
 * except that any NaN equals any NaN. */
static long long demo_compare(const void *a, const void *b, size_t n, int bitpix)
{
	if (bitpix != FLOAT_IMG) {
		if (!memcmp(a, b, n * demo_esize(bitpix)))
			return -1;
		for (size_t i = 0; i < n; i++)
			if (memcmp((const char *)a + i * demo_esize(bitpix),
				   (const char *)b + i * demo_esize(bitpix), demo_esize(bitpix)))
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

static void demo_value(char *s, size_t len, const void *p, size_t i, int bitpix)
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

/* Checks tessera's values against CFITSIO's; returns 1 when equal, else writes where not. */
static int demo_check(const void *t, const void *c, long h, long w, long y0, long x0,
		      int bitpix, const char *what, char *msg, size_t len)
{
	long long i = demo_compare(t, c, (size_t)h * (size_t)w, bitpix);
	if (i < 0)
		return 1;
	char vt[48], vc[48];
	demo_value(vt, sizeof(vt), t, (size_t)i, bitpix);
	demo_value(vc, sizeof(vc), c, (size_t)i, bitpix);
	snprintf(msg, len, "%s differs first at pixel [%lld, %lld] (y, x): tessera %s, CFITSIO %s",
		 what, y0 + i / w, x0 + i % w, vt, vc);
	return 0;
}

/* Reads one file every way, checks, times; fills res. */
static void demo_run_case(struct tsr_context *ctx, const char *path, const struct demo_case *c,
			  long size, struct demo_result *res)
{
	size_t n = (size_t)size * (size_t)size, es = demo_esize(c->bitpix);
	long y0, x0, e;
	demo_cutout(size, &y0, &x0, &e);
	size_t cn = (size_t)e * (size_t)e;
	void *cf = malloc(n * es), *tc = malloc(cn * es), *cc = malloc(cn * es), *tf = NULL;
	struct tsr_array *a = NULL;
	memset(res, 0, sizeof(*res));
	res->t_tsr = res->t_cfi = res->c_tsr = res->c_cfi = -1;
	snprintf(res->codec, sizeof(res->codec), "?");
	snprintf(res->dtype, sizeof(res->dtype), "?");
	if (!cf || !tc || !cc) {
		snprintf(res->msg, sizeof(res->msg), "out of memory");
		goto done;
	}

	/* Describe and read all through the allocating call; this also fills the page cache. */
	struct tsr_array_info in = {.struct_size = sizeof(in)};
	size_t tn = 0;
	int ndim = 0;
	int64_t shape[TSR_MAX_DIM];
	if (tsr_open(ctx, path, NULL, &a) || tsr_array_info(a, &in)) {
		snprintf(res->msg, sizeof(res->msg), "tessera: %s", tsr_errmsg());
		goto done;
	}
	snprintf(res->codec, sizeof(res->codec), "%s", in.codec);
	snprintf(res->dtype, sizeof(res->dtype), "%s", tsr_dtype_name(in.dtype));
	snprintf(res->reader, sizeof(res->reader), "%s", in.reader);
	res->stored = in.stored_nbytes;
	if (tsr_read_alloc(a, NULL, NULL, &tf, &tn, &ndim, shape, NULL)) {
		snprintf(res->msg, sizeof(res->msg), "tessera: %s", tsr_errmsg());
		goto done;
	}
	tsr_array_free(a);
	a = NULL;
	if (in.dtype != demo_dtype(c->bitpix) || ndim != 2 || shape[0] != size ||
	    shape[1] != size || tn != n * es) {
		snprintf(res->msg, sizeof(res->msg),
			 "tessera returned %s %lldx%lld (%zu bytes), expected %s %ldx%ld",
			 tsr_dtype_name(in.dtype), (long long)shape[0],
			 (long long)(ndim > 1 ? shape[1] : 0), tn,
			 tsr_dtype_name(demo_dtype(c->bitpix)), size, size);
		goto done;
	}

	struct demo_read rt = {ctx, path, c->bitpix, size, 0, tf, n * es, ""};
	struct demo_read rc = {NULL, path, c->bitpix, size, 0, cf, n * es, ""};
	if (demo_read(&rc)) {
		snprintf(res->msg, sizeof(res->msg), "%s", rc.err);
		goto done;
	}
	if (!demo_check(tf, cf, size, size, 0, 0, c->bitpix, "image", res->msg, sizeof(res->msg)))
		goto done;

	struct demo_read ct = {ctx, path, c->bitpix, size, 1, tc, cn * es, ""};
	struct demo_read cc_ = {NULL, path, c->bitpix, size, 1, cc, cn * es, ""};
	if (demo_read(&ct) || demo_read(&cc_)) {
		snprintf(res->msg, sizeof(res->msg), "cutout: %s", ct.err[0] ? ct.err : cc_.err);
		goto done;
	}
	if (!demo_check(tc, cc, e, e, y0, x0, c->bitpix, "cutout", res->msg, sizeof(res->msg)))
		goto done;

	res->t_tsr = demo_best(&rt, DEMO_RUNS);
	res->t_cfi = demo_best(&rc, DEMO_RUNS);
	res->c_tsr = demo_best(&ct, DEMO_CUT_RUNS);
	res->c_cfi = demo_best(&cc_, DEMO_CUT_RUNS);
	if (res->t_tsr < 0 || res->t_cfi < 0 || res->c_tsr < 0 || res->c_cfi < 0) {
		const char *why = rt.err[0] ? rt.err : rc.err[0] ? rc.err : ct.err[0] ? ct.err : cc_.err;
		snprintf(res->msg, sizeof(res->msg), "timed read failed: %s", why);
		goto done;
	}
	res->ok = 1;
done:
	tsr_array_free(a);
	tsr_free(tf);
	free(cf);
	free(tc);
	free(cc);
}

static void demo_cell(char *s, size_t len, double v, const char *fmt)
{
	if (v < 0)
		snprintf(s, len, "-");
	else
		snprintf(s, len, fmt, v);
}

static void demo_remove_dir(const char *dir)
{
	char path[DEMO_FILE];
	for (size_t i = 0; i < DEMO_NCASES; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, demo_cases[i].file);
		remove(path);
	}
	if (rmdir(dir))
		fprintf(stderr, "tessera demo: could not remove %s: %s\n", dir, strerror(errno));
}

int tsr_cli_demo(int argc, char **argv)
{
	const char *dir_opt = NULL;
	int keep = 0;
	long size = 2048;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			demo_usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--dir") && i + 1 < argc) {
			dir_opt = argv[++i];
		} else if (!strcmp(argv[i], "--keep")) {
			keep = 1;
		} else if (!strcmp(argv[i], "--size") && i + 1 < argc) {
			char *end;
			size = strtol(argv[++i], &end, 10);
			if (*end || size < 1 || size > 65536) {
				fprintf(stderr, "tessera demo: bad --size '%s' (1 to 65536)\n", argv[i]);
				return 2;
			}
		} else {
			fprintf(stderr, "tessera demo: unexpected argument '%s' (see --help)\n", argv[i]);
			return 2;
		}
	}

	char dir[DEMO_PATH];
	if (dir_opt) {
		if (mkdir(dir_opt, 0777) && errno != EEXIST) {
			fprintf(stderr, "tessera demo: %s: %s\n", dir_opt, strerror(errno));
			return 1;
		}
		if (snprintf(dir, sizeof(dir), "%s", dir_opt) >= (int)sizeof(dir)) {
			fprintf(stderr, "tessera demo: --dir path too long\n");
			return 2;
		}
		keep = 1;
	} else {
		const char *tmp = getenv("TMPDIR");
		int n = snprintf(dir, sizeof(dir), "%s/tessera-demo-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (n >= (int)sizeof(dir))
			errno = ENAMETOOLONG;
		if (n >= (int)sizeof(dir) || !mkdtemp(dir)) {
			fprintf(stderr, "tessera demo: mkdtemp %s: %s\n", dir, strerror(errno));
			return 1;
		}
	}

	int rc = 0;
	struct tsr_context *ctx = NULL;
	struct demo_result res[DEMO_NCASES];
	char path[DEMO_FILE], err[256];
	float cfv = 0;
	fits_get_version(&cfv);
	/* fits_get_version() encodes 4.2.0 as 4.02 (major + minor / 100 + micro / 10000). */
	long vi = lround(cfv * 10000.0f);
	printf("tessera %s demo: %zu FITS images of %ldx%ld pixels in %s\n", tsr_version(),
	       DEMO_NCASES, size, size, dir);
	fflush(stdout);
	double t0 = demo_now();
	for (size_t i = 0; i < DEMO_NCASES; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, demo_cases[i].file);
		if (demo_write(path, &demo_cases[i], size, 0x7e55e7a0u + i, err, sizeof(err))) {
			fprintf(stderr, "tessera demo: writing %s: %s\n", path, err);
			rc = 1;
			goto done;
		}
	}
	printf("written with CFITSIO %ld.%ld.%ld in %.2f s\n", vi / 10000, vi / 100 % 100, vi % 100,
	       demo_now() - t0);

	struct tsr_context_options co = {sizeof(co), 0};
	if (tsr_context_create(&co, &ctx)) {
		fprintf(stderr, "tessera demo: %s\n", tsr_errmsg());
		rc = 1;
		goto done;
	}
	printf("reading with tessera (%d threads) and CFITSIO (1 thread); MB = 10^6 bytes of "
	       "decoded output; best of %d, open + read + close\n\n",
	       tsr_context_nthreads(ctx), DEMO_RUNS);

	long y0, x0, e;
	demo_cutout(size, &y0, &x0, &e);
	char cuthdr[32];
	snprintf(cuthdr, sizeof(cuthdr), "---- %ldx%ld cutout, ms ----", e, e);
	printf("%-22s %-8s %-7s %-11s %9s %12s %12s %7s   %31s\n", "", "", "", "", "stored",
	       "tessera", "CFITSIO", "", cuthdr);
	printf("%-22s %-8s %-7s %-11s %9s %12s %12s %7s   %11s %11s %7s  %s\n", "file", "codec",
	       "dtype", "shape", "MB", "MB/s", "MB/s", "speedup", "tessera", "CFITSIO", "speedup",
	       "check");
	for (size_t i = 0; i < DEMO_NCASES; i++) {
		const struct demo_case *c = &demo_cases[i];
		struct demo_result *r = &res[i];
		snprintf(path, sizeof(path), "%s/%s", dir, c->file);
		demo_run_case(ctx, path, c, size, r);
		double mb = (double)size * (double)size * (double)demo_esize(c->bitpix) / 1e6;
		char shape[32], st[16], a[16], b[16], s1[16], ca[16], cb[16], s2[16];
		snprintf(shape, sizeof(shape), "%ldx%ld", size, size);
		demo_cell(st, sizeof(st), r->stored ? (double)r->stored / 1e6 : -1, "%.2f");
		demo_cell(a, sizeof(a), r->t_tsr > 0 ? mb / r->t_tsr : -1, "%.0f");
		demo_cell(b, sizeof(b), r->t_cfi > 0 ? mb / r->t_cfi : -1, "%.0f");
		demo_cell(s1, sizeof(s1), r->t_tsr > 0 && r->t_cfi >= 0 ? r->t_cfi / r->t_tsr : -1,
			  "%.1fx");
		demo_cell(ca, sizeof(ca), r->c_tsr >= 0 ? r->c_tsr * 1e3 : -1, "%.3f");
		demo_cell(cb, sizeof(cb), r->c_cfi >= 0 ? r->c_cfi * 1e3 : -1, "%.3f");
		demo_cell(s2, sizeof(s2), r->c_tsr > 0 && r->c_cfi >= 0 ? r->c_cfi / r->c_tsr : -1,
			  "%.1fx");
		printf("%-22s %-8s %-7s %-11s %9s %12s %12s %7s   %11s %11s %7s  %s\n", c->file,
		       r->codec, r->dtype, shape, st, a, b, s1, ca, cb, s2, r->ok ? "OK" : "FAIL");
		fflush(stdout);
		if (!r->ok)
			rc = 1;
	}
	printf("\n");
	for (size_t i = 0; i < DEMO_NCASES; i++) {
		if (!res[i].ok)
			printf("FAIL %s: %s\n", demo_cases[i].file, res[i].msg);
		else if (res[i].reader[0] && strcmp(res[i].reader, "tessera"))
			printf("note %s: tessera read it through its CFITSIO fallback\n",
			       demo_cases[i].file);
	}
	printf("%s: tessera and CFITSIO %s\n", rc ? "FAIL" : "OK",
	       rc ? "disagree or failed on some files (above)" : "return identical values for every file");
done:
	tsr_context_free(ctx);
	if (keep)
		printf("files kept in %s\n", dir);
	else
		demo_remove_dir(dir);
	return rc;
}
