/* demo.c - `tessera demo`: writes sample FITS files with CFITSIO, reads them back with tessera and CFITSIO, checks and times. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fits_sample.h"

/*
 * Every timed read opens the file, reads and closes it, with both libraries: a user reading a
 * file pays for the open, and a fresh handle keeps CFITSIO's per-handle tile cache from
 * serving repeated cutouts out of memory. The files are read once (the check) before any
 * timing, so they sit in the page cache.
 */

#define DEMO_RUNS 3     /* best of, whole images */
#define DEMO_CUT_RUNS 5 /* best of, cutouts (milliseconds are noisier) */

static const struct tsr_sample_file demo_cases[] = {
	{"int16.fits", SHORT_IMG, 0, 0, 0, 0},
	{"int16_gzip1.fits", SHORT_IMG, GZIP_1, 0, 0, 0},
	{"int32_gzip2.fits", LONG_IMG, GZIP_2, 0, 0, 0},
	{"int16_rice.fits", SHORT_IMG, RICE_1, 0, 0, 0},
	{"int16_rice_tiles.fits", SHORT_IMG, RICE_1, 128, 0, 0},
	{"float32_rice_q4.fits", FLOAT_IMG, RICE_1, 0, 4.0f, 1},
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
		DEMO_RUNS, TSR_SAMPLE_CUT, TSR_SAMPLE_CUT, DEMO_CUT_RUNS);
}

static int demo_read_tessera(struct demo_read *r)
{
	struct tsr_array *a = NULL;
	int rc = tsr_open(r->ctx, r->path, NULL, &a);
	if (!rc)
		rc = tsr_sample_read_tessera(a, r->size, r->cutout, r->dst, r->nbytes, NULL);
	/* Copy the message before tsr_array_free(), which is a tessera call too. */
	if (rc)
		snprintf(r->err, sizeof(r->err), "tessera: %s", tsr_errmsg());
	tsr_array_free(a);
	return rc;
}

static int demo_read_cfitsio(struct demo_read *r)
{
	fitsfile *f = NULL;
	int st = 0, cst = 0;
	tsr_sample_fits_open(r->path, &f, &st);
	tsr_sample_read_cfitsio(f, r->bitpix, r->size, r->cutout, r->dst, &st);
	if (f)
		fits_close_file(f, &cst);
	if (st || cst) {
		tsr_sample_fits_error(st ? st : cst, r->err, sizeof(r->err));
		return -1;
	}
	return 0;
}

static int demo_read(void *arg)
{
	struct demo_read *r = arg;
	return r->ctx ? demo_read_tessera(r) : demo_read_cfitsio(r);
}

/* Checks tessera's values against CFITSIO's; returns 1 when equal, else writes where not. */
static int demo_check(const void *t, const void *c, long h, long w, long y0, long x0,
		      int bitpix, const char *what, char *msg, size_t len)
{
	long long i = tsr_sample_compare(t, c, (size_t)h * (size_t)w, bitpix);
	if (i < 0)
		return 1;
	char vt[48], vc[48];
	tsr_sample_value(vt, sizeof(vt), t, (size_t)i, bitpix);
	tsr_sample_value(vc, sizeof(vc), c, (size_t)i, bitpix);
	snprintf(msg, len, "%s differs first at pixel [%lld, %lld] (y, x): tessera %s, CFITSIO %s",
		 what, y0 + i / w, x0 + i % w, vt, vc);
	return 0;
}

/* Reads one file every way, checks, times; fills res. */
static void demo_run_case(struct tsr_context *ctx, const char *path,
			  const struct tsr_sample_file *c, long size, struct demo_result *res)
{
	size_t n = (size_t)size * (size_t)size, es = tsr_sample_esize(c->bitpix);
	long y0, x0, e;
	tsr_sample_cutout(size, &y0, &x0, &e);
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
	if (in.dtype != tsr_sample_dtype(c->bitpix) || ndim != 2 || shape[0] != size ||
	    shape[1] != size || tn != n * es) {
		snprintf(res->msg, sizeof(res->msg),
			 "tessera returned %s %lldx%lld (%zu bytes), expected %s %ldx%ld",
			 tsr_dtype_name(in.dtype), (long long)shape[0],
			 (long long)(ndim > 1 ? shape[1] : 0), tn,
			 tsr_dtype_name(tsr_sample_dtype(c->bitpix)), size, size);
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

	res->t_tsr = tsr_sample_best(demo_read, &rt, DEMO_RUNS);
	res->t_cfi = tsr_sample_best(demo_read, &rc, DEMO_RUNS);
	res->c_tsr = tsr_sample_best(demo_read, &ct, DEMO_CUT_RUNS);
	res->c_cfi = tsr_sample_best(demo_read, &cc_, DEMO_CUT_RUNS);
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

	char dir[TSR_SAMPLE_PATH];
	int drc = tsr_sample_make_dir("tessera demo", dir_opt, "tessera-demo", dir, sizeof(dir), &keep);
	if (drc)
		return drc;

	int rc = 0;
	struct tsr_context *ctx = NULL;
	struct demo_result res[DEMO_NCASES];
	char path[TSR_SAMPLE_FILE], err[256], cfv[32];
	tsr_sample_cfitsio_version(cfv, sizeof(cfv));
	printf("tessera %s demo: %zu FITS images of %ldx%ld pixels in %s\n", tsr_version(),
	       DEMO_NCASES, size, size, dir);
	fflush(stdout);
	double t0 = tsr_sample_now();
	for (size_t i = 0; i < DEMO_NCASES; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, demo_cases[i].name);
		if (tsr_sample_write(path, &demo_cases[i], size, 0x7e55e7a0u + i, err, sizeof(err))) {
			fprintf(stderr, "tessera demo: writing %s: %s\n", path, err);
			rc = 1;
			goto done;
		}
	}
	printf("written with CFITSIO %s in %.2f s\n", cfv, tsr_sample_now() - t0);

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
	tsr_sample_cutout(size, &y0, &x0, &e);
	char cuthdr[32];
	snprintf(cuthdr, sizeof(cuthdr), "---- %ldx%ld cutout, ms ----", e, e);
	printf("%-22s %-8s %-7s %-11s %9s %12s %12s %7s   %31s\n", "", "", "", "", "stored",
	       "tessera", "CFITSIO", "", cuthdr);
	printf("%-22s %-8s %-7s %-11s %9s %12s %12s %7s   %11s %11s %7s  %s\n", "file", "codec",
	       "dtype", "shape", "MB", "MB/s", "MB/s", "speedup", "tessera", "CFITSIO", "speedup",
	       "check");
	for (size_t i = 0; i < DEMO_NCASES; i++) {
		const struct tsr_sample_file *c = &demo_cases[i];
		struct demo_result *r = &res[i];
		snprintf(path, sizeof(path), "%s/%s", dir, c->name);
		demo_run_case(ctx, path, c, size, r);
		double mb = (double)size * (double)size * (double)tsr_sample_esize(c->bitpix) / 1e6;
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
		printf("%-22s %-8s %-7s %-11s %9s %12s %12s %7s   %11s %11s %7s  %s\n", c->name,
		       r->codec, r->dtype, shape, st, a, b, s1, ca, cb, s2, r->ok ? "OK" : "FAIL");
		fflush(stdout);
		if (!r->ok)
			rc = 1;
	}
	printf("\n");
	for (size_t i = 0; i < DEMO_NCASES; i++) {
		if (!res[i].ok)
			printf("FAIL %s: %s\n", demo_cases[i].name, res[i].msg);
		else if (res[i].reader[0] && strcmp(res[i].reader, "tessera"))
			printf("note %s: tessera read it through its CFITSIO fallback\n",
			       demo_cases[i].name);
	}
	printf("%s: tessera and CFITSIO %s\n", rc ? "FAIL" : "OK",
	       rc ? "disagree or failed on some files (above)" : "return identical values for every file");
done:
	tsr_context_free(ctx);
	if (keep)
		printf("files kept in %s\n", dir);
	else
		tsr_sample_remove_dir("tessera demo", dir, demo_cases, DEMO_NCASES);
	return rc;
}
