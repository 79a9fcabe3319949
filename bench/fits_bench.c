/* fits_bench.c - read speed of FITS images, tessera (1 thread, all cores) against CFITSIO's fits_read_img. */
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

#include "tessera.h"

/*
 * The images are written with CFITSIO (fpack's defaults: one tile per row, unless a case asks
 * for square tiles) into a temporary folder, or reused from --dir. Each file is read once by
 * every reader before timing, so it sits in the page cache, and that read is checked against
 * CFITSIO's values. A timed run is open + read + close, best of --runs: a fresh handle is
 * what a user reading a file gets, and it keeps CFITSIO's per-handle tile cache out of the
 * cutout numbers. The "handle kept open" cutouts time the read alone, to show how much of a
 * cutout is the open; their cutouts span two tile rows, so CFITSIO's cache (one tile per
 * tile column) misses on every run there too. Speeds are MB (10^6 bytes) of decoded output
 * per second.
 */

#define BENCH_CUT 100
#define BENCH_PATH 4096
#define BENCH_FILE (BENCH_PATH + 64) /* a folder of BENCH_PATH and a file name */

struct bench_file {
	const char *name;
	int bitpix;   /* SHORT_IMG or FLOAT_IMG */
	int comptype; /* 0: an ordinary image HDU */
	long tile;    /* 0: one tile per row; n: n x n tiles */
	float qlevel; /* floats: quantization level (SUBTRACTIVE_DITHER_1) */
};

static const struct bench_file bench_files[] = {
	{"i16_none.fits", SHORT_IMG, 0, 0, 0},
	{"i16_gzip1.fits", SHORT_IMG, GZIP_1, 0, 0},
	{"i16_gzip2.fits", SHORT_IMG, GZIP_2, 0, 0},
	{"i16_rice.fits", SHORT_IMG, RICE_1, 0, 0},
	{"i16_rice_256.fits", SHORT_IMG, RICE_1, 256, 0},
	{"f32_rice_q4_d1.fits", FLOAT_IMG, RICE_1, 0, 4.0f},
};
#define BENCH_NFILES (sizeof(bench_files) / sizeof(bench_files[0]))

struct bench_case {
	const char *label;
	int file;      /* index into bench_files */
	int cutout;    /* 1: the 100x100 cutout, timed in ms */
	int keep_open; /* 1: time the read alone on a handle opened once */
};

static const struct bench_case bench_cases[] = {
	{"uncompressed int16", 0, 0, 0},
	{"GZIP_1 int16", 1, 0, 0},
	{"GZIP_2 int16", 2, 0, 0},
	{"RICE_1 int16", 3, 0, 0},
	{"RICE_1 int16, 256x256 tiles", 4, 0, 0},
	{"float32 RICE_1 q=4 SUBTRACTIVE_DITHER_1", 5, 0, 0},
	{"cutout, RICE_1 256x256 tiles", 4, 1, 0},
	{"cutout, RICE_1 row tiles", 3, 1, 0},
	{"cutout, RICE_1 256x256 tiles, handle open", 4, 1, 1},
	{"cutout, RICE_1 row tiles, handle open", 3, 1, 1},
};
#define BENCH_NCASES (sizeof(bench_cases) / sizeof(bench_cases[0]))

/* One reader of one case: tessera on ctx, or CFITSIO when ctx is NULL. */
struct bench_reader {
	struct tsr_context *ctx;
	const char *path;
	int bitpix;
	long size;
	int cutout;
	struct tsr_array *a; /* handles while open */
	fitsfile *f;
	void *dst;
	size_t nbytes;
	char reader[16]; /* what tessera's receipt named ("tessera" or "cfitsio") */
	char err[256];
};

struct bench_result {
	double t[3]; /* best seconds: CFITSIO, tessera 1 thread, tessera all cores; < 0: failed */
	int ok;
	char msg[512];
};

static void bench_usage(FILE *f)
{
	fprintf(f, "usage: fits_bench [--dir DIR] [--keep] [--size N] [--runs N] [--json FILE]\n"
		   "Writes NxN (default 4096) images with CFITSIO: int16 uncompressed, GZIP_1,\n"
		   "GZIP_2, RICE_1 (row tiles and 256x256 tiles), float32 RICE_1 quantized q=4\n"
		   "SUBTRACTIVE_DITHER_1; Gaussian noise, sigma 30 around 1000. Reads each with\n"
		   "CFITSIO (one thread), tessera with 1 thread and with all cores; prints MB/s\n"
		   "of decoded output (MB = 10^6 bytes), and ms for a 100x100 cutout, best of N\n"
		   "(default 5) open + read + close runs, as a markdown table.\n\n"
		   "  --dir DIR    write the files into DIR, or reuse the ones there; kept\n"
		   "  --keep       keep the temporary folder (under $TMPDIR or /tmp)\n"
		   "  --size N     images are NxN pixels\n"
		   "  --runs N     best of N runs\n"
		   "  --json FILE  also write the results as JSON\n\n"
		   "Exit status 1 when tessera's values differ from CFITSIO's or a read fails.\n");
}

static double bench_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* splitmix64: deterministic, so every run writes the same pixels. */
static uint64_t bench_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* Box-Muller; the uniforms lie in (0, 1) so the logarithm stays finite. */
static double bench_gauss(uint64_t *s)
{
	double u1 = ((double)(bench_next(s) >> 11) + 0.5) * 0x1p-53;
	double u2 = ((double)(bench_next(s) >> 11) + 0.5) * 0x1p-53;
	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

static size_t bench_esize(int bitpix)
{
	return bitpix == SHORT_IMG ? 2 : 4;
}

static int bench_fits_type(int bitpix)
{
	return bitpix == SHORT_IMG ? TSHORT : TFLOAT;
}

static void bench_fits_error(int status, char *err, size_t errlen)
{
	char text[FLEN_STATUS];
	fits_get_errstatus(status, text);
	snprintf(err, errlen, "CFITSIO status %d: %s", status, text);
	fits_clear_errmsg();
}

/* Moves an open file to its image: HDU 2 of a tile-compressed file, whose primary is empty. */
static void bench_fits_open(const char *path, fitsfile **f, int *st)
{
	int naxis = 0, type;
	*f = NULL;
	fits_open_diskfile(f, path, READONLY, st);
	fits_get_img_dim(*f, &naxis, st);
	if (!*st && naxis == 0)
		fits_movabs_hdu(*f, 2, &type, st);
}

/* 1 when path holds the image bench_file describes at this size, so --dir can reuse it. */
static int bench_file_fits(const char *path, const struct bench_file *bf, long size)
{
	fitsfile *f;
	int st = 0, cst = 0, bitpix = 0, naxis = 0, ok = 0;
	long naxes[2] = {0, 0}, z1 = 0, z2 = 0;
	char cmp[FLEN_VALUE] = "";
	if (access(path, R_OK))
		return 0;
	bench_fits_open(path, &f, &st);
	fits_get_img_param(f, 2, &bitpix, &naxis, naxes, &st);
	if (!st && bitpix == bf->bitpix && naxis == 2 && naxes[0] == size && naxes[1] == size) {
		int compressed = fits_is_compressed_image(f, &st);
		if (!bf->comptype) {
			ok = !compressed;
		} else if (compressed) {
			fits_read_key(f, TSTRING, "ZCMPTYPE", cmp, NULL, &st);
			fits_read_key(f, TLONG, "ZTILE1", &z1, NULL, &st);
			fits_read_key(f, TLONG, "ZTILE2", &z2, NULL, &st);
			ok = !st && !strcmp(cmp, bf->comptype == GZIP_1 ? "GZIP_1" :
					    bf->comptype == GZIP_2 ? "GZIP_2" : "RICE_1") &&
			     z1 == (bf->tile ? bf->tile : size) && z2 == (bf->tile ? bf->tile : 1);
		}
	}
	if (f)
		fits_close_file(f, &cst);
	fits_clear_errmsg();
	return ok;
}

/* Writes one image; fits_create_diskfile takes the name literally (no "!", no "[...]"). */
static int bench_write(const char *path, const struct bench_file *bf, long size, uint64_t seed,
		       char *err, size_t errlen)
{
	size_t n = (size_t)size * (size_t)size;
	void *pix = malloc(n * bench_esize(bf->bitpix));
	if (!pix) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	uint64_t s = seed;
	for (size_t i = 0; i < n; i++) {
		double v = 1000.0 + 30.0 * bench_gauss(&s);
		if (bf->bitpix == SHORT_IMG)
			((int16_t *)pix)[i] = (int16_t)lround(v);
		else
			((float *)pix)[i] = (float)v;
	}
	fitsfile *f = NULL;
	int st = 0, cst = 0;
	long naxes[2] = {size, size}, tile[2] = {size, 1};
	remove(path);
	fits_create_diskfile(&f, path, &st);
	if (bf->comptype) {
		if (bf->tile)
			tile[0] = tile[1] = bf->tile;
		fits_set_compression_type(f, bf->comptype, &st);
		fits_set_tile_dim(f, 2, tile, &st);
		if (bf->bitpix == FLOAT_IMG) {
			fits_set_quantize_level(f, bf->qlevel, &st);
			fits_set_quantize_method(f, SUBTRACTIVE_DITHER_1, &st);
			/* The default seed comes from the clock; a fixed one keeps the files identical. */
			fits_set_dither_seed(f, 1, &st);
		}
	}
	fits_create_img(f, bf->bitpix, 2, naxes, &st);
	fits_write_img(f, bench_fits_type(bf->bitpix), 1, (LONGLONG)n, pix, &st);
	if (f)
		fits_close_file(f, &cst);
	free(pix);
	if (st || cst) {
		bench_fits_error(st ? st : cst, err, errlen);
		return -1;
	}
	return 0;
}

/* The cutout straddles a multiple of 256 near the middle, so it crosses tile borders in both
 * axes (2x2 of the 256x256 tiles, 100 row tiles). */
static void bench_cutout(long size, long *y0, long *x0, long *edge)
{
	long mid = size / 2 >= 256 ? size / 2 / 256 * 256 : size / 2;
	*edge = size < BENCH_CUT ? size : BENCH_CUT;
	*y0 = mid - 43;
	*x0 = mid - 57;
	if (*y0 < 0 || *y0 + *edge > size)
		*y0 = size - *edge;
	if (*x0 < 0 || *x0 + *edge > size)
		*x0 = size - *edge;
}

static int bench_open(struct bench_reader *r)
{
	if (r->ctx) {
		if (tsr_open(r->ctx, r->path, NULL, &r->a)) {
			snprintf(r->err, sizeof(r->err), "tessera: %s", tsr_errmsg());
			return -1;
		}
		return 0;
	}
	int st = 0;
	bench_fits_open(r->path, &r->f, &st);
	if (st) {
		bench_fits_error(st, r->err, sizeof(r->err));
		if (r->f)
			fits_close_file(r->f, &st);
		r->f = NULL;
		return -1;
	}
	return 0;
}

static void bench_close(struct bench_reader *r)
{
	int st = 0;
	tsr_array_free(r->a);
	r->a = NULL;
	if (r->f)
		fits_close_file(r->f, &st);
	r->f = NULL;
}

/* Reads the whole image or the cutout through the open handle into r->dst. */
static int bench_read(struct bench_reader *r)
{
	long y0, x0, e;
	bench_cutout(r->size, &y0, &x0, &e);
	if (r->ctx) {
		struct tsr_selection sel;
		struct tsr_buffer buf = {.data = r->dst, .nbytes = r->nbytes, .mem = TSR_MEM_HOST};
		struct tsr_receipt rec = {.struct_size = sizeof(rec)};
		int rc = 0;
		if (r->cutout) {
			char spec[96];
			snprintf(spec, sizeof(spec), "%ld:%ld,%ld:%ld", y0, y0 + e, x0, x0 + e);
			rc = tsr_selection_parse(spec, &sel);
		}
		if (!rc)
			rc = tsr_read(r->a, r->cutout ? &sel : NULL, &buf, NULL, &rec);
		if (rc) {
			snprintf(r->err, sizeof(r->err), "tessera: %s", tsr_errmsg());
			return -1;
		}
		snprintf(r->reader, sizeof(r->reader), "%s", rec.reader);
		return 0;
	}
	/* A NaN nulval makes CFITSIO return NaN for nulls, as tessera does; 0 would turn null
	 * checking off. */
	float fnul = NAN;
	short snul = 0;
	void *nul = r->bitpix == FLOAT_IMG ? (void *)&fnul : (void *)&snul;
	int st = 0, any = 0;
	if (r->cutout) {
		long fpix[2] = {x0 + 1, y0 + 1}, lpix[2] = {x0 + e, y0 + e}, inc[2] = {1, 1};
		fits_read_subset(r->f, bench_fits_type(r->bitpix), fpix, lpix, inc, nul, r->dst,
				 &any, &st);
	} else {
		fits_read_img(r->f, bench_fits_type(r->bitpix), 1, (LONGLONG)r->size * r->size, nul,
			      r->dst, &any, &st);
	}
	if (st) {
		bench_fits_error(st, r->err, sizeof(r->err));
		return -1;
	}
	return 0;
}

static int bench_open_read_close(struct bench_reader *r)
{
	int rc = bench_open(r);
	if (!rc)
		rc = bench_read(r);
	bench_close(r);
	return rc;
}

/* Best wall time of runs reads, or -1 if one failed. */
static double bench_best(struct bench_reader *r, int runs, int keep_open)
{
	double best = -1;
	if (keep_open && (bench_open(r) || bench_read(r))) {
		bench_close(r);
		return -1;
	}
	for (int i = 0; i < runs; i++) {
		double t0 = bench_now();
		if (keep_open ? bench_read(r) : bench_open_read_close(r)) {
			best = -1;
			break;
		}
		double dt = bench_now() - t0;
		if (best < 0 || dt < best)
			best = dt;
	}
	bench_close(r);
	return best;
}

/* Index of the first differing element, or -1. Floats compare bit patterns except that any
 * NaN equals any NaN. */
static long long bench_compare(const void *a, const void *b, size_t n, int bitpix)
{
	if (bitpix == SHORT_IMG) {
		const int16_t *sa = a, *sb = b;
		for (size_t i = 0; i < n; i++)
			if (sa[i] != sb[i])
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

static void bench_value(char *s, size_t len, const void *p, size_t i, int bitpix)
{
	if (bitpix == SHORT_IMG) {
		snprintf(s, len, "%d", ((const int16_t *)p)[i]);
	} else {
		uint32_t u;
		memcpy(&u, (const float *)p + i, 4);
		snprintf(s, len, "%.9g (0x%08x)", ((const float *)p)[i], (unsigned)u);
	}
}

/* Runs one case with every reader; the untimed first read of each is checked against CFITSIO's. */
static void bench_run(const struct bench_case *bc, const char *path, long size, int runs,
		      struct tsr_context *ctx1, struct tsr_context *ctxn, struct bench_result *res)
{
	const struct bench_file *bf = &bench_files[bc->file];
	long y0 = 0, x0 = 0, h = size, w = size, e;
	if (bc->cutout) {
		bench_cutout(size, &y0, &x0, &e);
		h = w = e;
	}
	size_t n = (size_t)h * (size_t)w, nb = n * bench_esize(bf->bitpix);
	void *ref = malloc(nb), *out = malloc(nb);
	struct tsr_context *ctxs[3] = {NULL, ctx1, ctxn};
	static const char *names[3] = {"CFITSIO", "tessera 1 thread", "tessera all cores"};
	memset(res, 0, sizeof(*res));
	res->t[0] = res->t[1] = res->t[2] = -1;
	res->ok = 1;
	if (!ref || !out) {
		snprintf(res->msg, sizeof(res->msg), "out of memory");
		res->ok = 0;
		goto done;
	}
	for (int m = 0; m < 3; m++) {
		struct bench_reader r = {ctxs[m], path, bf->bitpix, size, bc->cutout, NULL, NULL,
					 m ? out : ref, nb, "", ""};
		if (bench_open_read_close(&r)) {
			snprintf(res->msg, sizeof(res->msg), "%s: %s", names[m], r.err);
			res->ok = 0;
			continue;
		}
		if (m && strcmp(r.reader, "tessera") && !res->msg[0])
			snprintf(res->msg, sizeof(res->msg), "note: tessera read it through its %s fallback",
				 r.reader);
		long long i = m ? bench_compare(out, ref, n, bf->bitpix) : -1;
		if (i >= 0) {
			char vt[48], vc[48];
			bench_value(vt, sizeof(vt), out, (size_t)i, bf->bitpix);
			bench_value(vc, sizeof(vc), ref, (size_t)i, bf->bitpix);
			snprintf(res->msg, sizeof(res->msg),
				 "%s differs from CFITSIO first at pixel [%lld, %lld] (y, x): %s vs %s",
				 names[m], y0 + i / w, x0 + i % w, vt, vc);
			res->ok = 0;
			continue;
		}
		res->t[m] = bench_best(&r, runs, bc->keep_open);
		if (res->t[m] < 0) {
			snprintf(res->msg, sizeof(res->msg), "%s: %s", names[m], r.err);
			res->ok = 0;
		}
	}
done:
	free(ref);
	free(out);
}

/* A table cell: MB/s for whole images, ms for cutouts; "-" when the reader failed. */
static void bench_cell(char *s, size_t len, double t, double mb, int cutout)
{
	if (t <= 0)
		snprintf(s, len, "-");
	else if (cutout)
		snprintf(s, len, "%.3f ms", t * 1e3);
	else
		snprintf(s, len, "%.0f", mb / t);
}

static void bench_ratio(char *s, size_t len, double tc, double tt)
{
	if (tc <= 0 || tt <= 0)
		snprintf(s, len, "-");
	else
		snprintf(s, len, "%.2fx", tc / tt);
}

static void bench_json_num(FILE *f, double v)
{
	if (v > 0 && isfinite(v))
		fprintf(f, "%.6g", v);
	else
		fprintf(f, "null");
}

static int bench_json(const char *path, long size, int runs, int nthreads, const char *cfv,
		      const struct bench_result *res)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "{\n  \"tessera_version\": \"%s\",\n  \"cfitsio_version\": \"%s\",\n"
		   "  \"online_cpus\": %ld,\n  \"threads_all_cores\": %d,\n  \"size\": [%ld, %ld],\n"
		   "  \"runs\": %d,\n  \"timing\": \"best of runs, open + read + close unless "
		   "handle_open; files in page cache\",\n  \"mb\": 1000000,\n  \"results\": [\n",
		tsr_version(), cfv, sysconf(_SC_NPROCESSORS_ONLN), nthreads, size, size, runs);
	for (size_t i = 0; i < BENCH_NCASES; i++) {
		const struct bench_case *bc = &bench_cases[i];
		const struct bench_file *bf = &bench_files[bc->file];
		const struct bench_result *r = &res[i];
		double mb = (double)size * (double)size * (double)bench_esize(bf->bitpix) / 1e6;
		fprintf(f, "    {\"case\": \"%s\", \"file\": \"%s\", \"cutout\": %s, \"handle_open\": %s, "
			   "\"unit\": \"%s\", ",
			bc->label, bf->name, bc->cutout ? "true" : "false",
			bc->keep_open ? "true" : "false", bc->cutout ? "ms" : "MB/s");
		const char *keys[3] = {"cfitsio", "tessera_1", "tessera_all"};
		for (int m = 0; m < 3; m++) {
			fprintf(f, "\"%s\": ", keys[m]);
			bench_json_num(f, r->t[m] <= 0 ? -1 : bc->cutout ? r->t[m] * 1e3 : mb / r->t[m]);
			fprintf(f, ", ");
		}
		/* Ratios are speedups over CFITSIO in both units. */
		fprintf(f, "\"ratio_1\": ");
		bench_json_num(f, r->t[0] > 0 && r->t[1] > 0 ? r->t[0] / r->t[1] : -1);
		fprintf(f, ", \"ratio_all\": ");
		bench_json_num(f, r->t[0] > 0 && r->t[2] > 0 ? r->t[0] / r->t[2] : -1);
		fprintf(f, ", \"check\": %s}%s\n", r->ok ? "true" : "false",
			i + 1 < BENCH_NCASES ? "," : "");
	}
	fprintf(f, "  ]\n}\n");
	return fclose(f) ? -1 : 0;
}

static void bench_remove_dir(const char *dir)
{
	char path[BENCH_FILE];
	for (size_t i = 0; i < BENCH_NFILES; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, bench_files[i].name);
		remove(path);
	}
	if (rmdir(dir))
		fprintf(stderr, "fits_bench: could not remove %s: %s\n", dir, strerror(errno));
}

int main(int argc, char **argv)
{
	const char *dir_opt = NULL, *json = NULL;
	int keep = 0, runs = 5;
	long size = 4096;
	for (int i = 1; i < argc; i++) {
		char *end;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			bench_usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--dir") && i + 1 < argc) {
			dir_opt = argv[++i];
		} else if (!strcmp(argv[i], "--json") && i + 1 < argc) {
			json = argv[++i];
		} else if (!strcmp(argv[i], "--keep")) {
			keep = 1;
		} else if (!strcmp(argv[i], "--size") && i + 1 < argc) {
			size = strtol(argv[++i], &end, 10);
			if (*end || size < 1 || size > 65536) {
				fprintf(stderr, "fits_bench: bad --size '%s' (1 to 65536)\n", argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
			runs = (int)strtol(argv[++i], &end, 10);
			if (*end || runs < 1 || runs > 1000) {
				fprintf(stderr, "fits_bench: bad --runs '%s' (1 to 1000)\n", argv[i]);
				return 2;
			}
		} else {
			fprintf(stderr, "fits_bench: unexpected argument '%s' (see --help)\n", argv[i]);
			return 2;
		}
	}

	char dir[BENCH_PATH];
	if (dir_opt) {
		if (mkdir(dir_opt, 0777) && errno != EEXIST) {
			fprintf(stderr, "fits_bench: %s: %s\n", dir_opt, strerror(errno));
			return 1;
		}
		if (snprintf(dir, sizeof(dir), "%s", dir_opt) >= (int)sizeof(dir)) {
			fprintf(stderr, "fits_bench: --dir path too long\n");
			return 2;
		}
		keep = 1;
	} else {
		const char *tmp = getenv("TMPDIR");
		int n = snprintf(dir, sizeof(dir), "%s/tessera-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (n >= (int)sizeof(dir))
			errno = ENAMETOOLONG;
		if (n >= (int)sizeof(dir) || !mkdtemp(dir)) {
			fprintf(stderr, "fits_bench: mkdtemp %s: %s\n", dir, strerror(errno));
			return 1;
		}
	}

	int rc = 0, written = 0;
	struct tsr_context *ctx1 = NULL, *ctxn = NULL;
	struct bench_result res[BENCH_NCASES];
	char path[BENCH_FILE], err[256], cfv[32];
	float v = 0;
	fits_get_version(&v);
	/* fits_get_version() encodes 4.2.0 as 4.02 (major + minor / 100 + micro / 10000). */
	long vi = lround(v * 10000.0f);
	snprintf(cfv, sizeof(cfv), "%ld.%ld.%ld", vi / 10000, vi / 100 % 100, vi % 100);

	double t0 = bench_now();
	for (size_t i = 0; i < BENCH_NFILES; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, bench_files[i].name);
		if (dir_opt && bench_file_fits(path, &bench_files[i], size))
			continue;
		if (bench_write(path, &bench_files[i], size, 0xbe4c0000u + i, err, sizeof(err))) {
			fprintf(stderr, "fits_bench: writing %s: %s\n", path, err);
			rc = 1;
			goto done;
		}
		written++;
	}
	struct tsr_context_options o1 = {sizeof(o1), 1}, on = {sizeof(on), 0};
	if (tsr_context_create(&o1, &ctx1) || tsr_context_create(&on, &ctxn)) {
		fprintf(stderr, "fits_bench: %s\n", tsr_errmsg());
		rc = 1;
		goto done;
	}
	int nthreads = tsr_context_nthreads(ctxn);
	printf("fits_bench: %ldx%ld images in %s (%d written with CFITSIO in %.1f s, %zu reused)\n"
	       "tessera %s, CFITSIO %s, %ld online CPUs; best of %d, open + read + close unless "
	       "\"handle open\"; page cache warm; MB = 10^6 bytes of decoded output; ratio = "
	       "speedup over CFITSIO\n\n",
	       size, size, dir, written, bench_now() - t0, BENCH_NFILES - (size_t)written,
	       tsr_version(), cfv, sysconf(_SC_NPROCESSORS_ONLN), runs);
	fflush(stdout);

	long cy, cx, ce;
	bench_cutout(size, &cy, &cx, &ce);
	printf("| case | CFITSIO MB/s | tessera 1 thread MB/s | ratio | tessera all cores (%d) MB/s "
	       "| ratio |\n|---|---:|---:|---:|---:|---:|\n", nthreads);
	for (size_t i = 0; i < BENCH_NCASES; i++) {
		const struct bench_case *bc = &bench_cases[i];
		const struct bench_file *bf = &bench_files[bc->file];
		struct bench_result *r = &res[i];
		snprintf(path, sizeof(path), "%s/%s", dir, bf->name);
		bench_run(bc, path, size, runs, ctx1, ctxn, r);
		double mb = (double)size * (double)size * (double)bench_esize(bf->bitpix) / 1e6;
		char c0[32], c1[32], c2[32], r1[16], r2[16], label[96];
		bench_cell(c0, sizeof(c0), r->t[0], mb, bc->cutout);
		bench_cell(c1, sizeof(c1), r->t[1], mb, bc->cutout);
		bench_cell(c2, sizeof(c2), r->t[2], mb, bc->cutout);
		bench_ratio(r1, sizeof(r1), r->t[0], r->t[1]);
		bench_ratio(r2, sizeof(r2), r->t[0], r->t[2]);
		if (bc->cutout)
			snprintf(label, sizeof(label), "%ldx%ld %s", ce, ce, bc->label);
		else
			snprintf(label, sizeof(label), "%s", bc->label);
		printf("| %s | %s | %s | %s | %s | %s |\n", label, c0, c1, r1, c2, r2);
		fflush(stdout);
		if (!r->ok)
			rc = 1;
	}
	printf("\n");
	for (size_t i = 0; i < BENCH_NCASES; i++)
		if (res[i].msg[0])
			printf("%s %s (%s): %s\n", res[i].ok ? "note" : "FAIL", bench_cases[i].label,
			       bench_files[bench_cases[i].file].name, res[i].msg);
	if (!rc)
		printf("values: tessera = CFITSIO in every case\n");
	if (json && bench_json(json, size, runs, nthreads, cfv, res)) {
		fprintf(stderr, "fits_bench: %s: %s\n", json, strerror(errno));
		rc = 1;
	}
done:
	tsr_context_free(ctx1);
	tsr_context_free(ctxn);
	if (keep)
		printf("files kept in %s\n", dir);
	else
		bench_remove_dir(dir);
	return rc;
}
