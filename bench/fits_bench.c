/* fits_bench.c - read speed of FITS images, tessera (1 thread, all cores) against CFITSIO's fits_read_img. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fits_sample.h" /* tools/: the sample images and readers `tessera demo` uses too */

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

static const struct tsr_sample_file bench_files[] = {
	{"i16_none.fits", SHORT_IMG, 0, 0, 0, 0},
	{"i16_gzip1.fits", SHORT_IMG, GZIP_1, 0, 0, 0},
	{"i16_gzip2.fits", SHORT_IMG, GZIP_2, 0, 0, 0},
	{"i16_rice.fits", SHORT_IMG, RICE_1, 0, 0, 0},
	{"i16_rice_256.fits", SHORT_IMG, RICE_1, 256, 0, 0},
	{"f32_rice_q4_d1.fits", FLOAT_IMG, RICE_1, 0, 4.0f, 0},
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

/* 1 when path holds the image a bench_files entry describes at this size, so --dir can reuse it. */
static int bench_file_fits(const char *path, const struct tsr_sample_file *bf, long size)
{
	fitsfile *f;
	int st = 0, cst = 0, bitpix = 0, naxis = 0, ok = 0;
	long naxes[2] = {0, 0}, z1 = 0, z2 = 0;
	char cmp[FLEN_VALUE] = "";
	if (access(path, R_OK))
		return 0;
	tsr_sample_fits_open(path, &f, &st);
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
	tsr_sample_fits_open(r->path, &r->f, &st);
	if (st) {
		tsr_sample_fits_error(st, r->err, sizeof(r->err));
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
static int bench_read(void *arg)
{
	struct bench_reader *r = arg;
	if (r->ctx) {
		struct tsr_receipt rec = {.struct_size = sizeof(rec)};
		if (tsr_sample_read_tessera(r->a, r->size, r->cutout, r->dst, r->nbytes, &rec)) {
			snprintf(r->err, sizeof(r->err), "tessera: %s", tsr_errmsg());
			return -1;
		}
		snprintf(r->reader, sizeof(r->reader), "%s", rec.reader);
		return 0;
	}
	int st = 0;
	tsr_sample_read_cfitsio(r->f, r->bitpix, r->size, r->cutout, r->dst, &st);
	if (st) {
		tsr_sample_fits_error(st, r->err, sizeof(r->err));
		return -1;
	}
	return 0;
}

static int bench_open_read_close(void *arg)
{
	struct bench_reader *r = arg;
	int rc = bench_open(r);
	if (!rc)
		rc = bench_read(r);
	bench_close(r);
	return rc;
}

/* Best wall time of runs reads, or -1 if one failed. */
static double bench_best(struct bench_reader *r, int runs, int keep_open)
{
	if (keep_open && (bench_open(r) || bench_read(r))) {
		bench_close(r);
		return -1;
	}
	double best = tsr_sample_best(keep_open ? bench_read : bench_open_read_close, r, runs);
	bench_close(r);
	return best;
}

/* Runs one case with every reader; the untimed first read of each is checked against CFITSIO's. */
static void bench_run(const struct bench_case *bc, const char *path, long size, int runs,
		      struct tsr_context *ctx1, struct tsr_context *ctxn, struct bench_result *res)
{
	const struct tsr_sample_file *bf = &bench_files[bc->file];
	long y0 = 0, x0 = 0, h = size, w = size, e;
	if (bc->cutout) {
		tsr_sample_cutout(size, &y0, &x0, &e);
		h = w = e;
	}
	size_t n = (size_t)h * (size_t)w, nb = n * tsr_sample_esize(bf->bitpix);
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
		long long i = m ? tsr_sample_compare(out, ref, n, bf->bitpix) : -1;
		if (i >= 0) {
			char vt[48], vc[48];
			tsr_sample_value(vt, sizeof(vt), out, (size_t)i, bf->bitpix);
			tsr_sample_value(vc, sizeof(vc), ref, (size_t)i, bf->bitpix);
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
		const struct tsr_sample_file *bf = &bench_files[bc->file];
		const struct bench_result *r = &res[i];
		double mb = (double)size * (double)size * (double)tsr_sample_esize(bf->bitpix) / 1e6;
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

	char dir[TSR_SAMPLE_PATH];
	int drc = tsr_sample_make_dir("fits_bench", dir_opt, "tessera-bench", dir, sizeof(dir), &keep);
	if (drc)
		return drc;

	int rc = 0, written = 0;
	struct tsr_context *ctx1 = NULL, *ctxn = NULL;
	struct bench_result res[BENCH_NCASES];
	char path[TSR_SAMPLE_FILE], err[256], cfv[32];
	tsr_sample_cfitsio_version(cfv, sizeof(cfv));

	double t0 = tsr_sample_now();
	for (size_t i = 0; i < BENCH_NFILES; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, bench_files[i].name);
		if (dir_opt && bench_file_fits(path, &bench_files[i], size))
			continue;
		if (tsr_sample_write(path, &bench_files[i], size, 0xbe4c0000u + i, err, sizeof(err))) {
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
	       size, size, dir, written, tsr_sample_now() - t0, BENCH_NFILES - (size_t)written,
	       tsr_version(), cfv, sysconf(_SC_NPROCESSORS_ONLN), runs);
	fflush(stdout);

	long cy, cx, ce;
	tsr_sample_cutout(size, &cy, &cx, &ce);
	printf("| case | CFITSIO MB/s | tessera 1 thread MB/s | ratio | tessera all cores (%d) MB/s "
	       "| ratio |\n|---|---:|---:|---:|---:|---:|\n", nthreads);
	for (size_t i = 0; i < BENCH_NCASES; i++) {
		const struct bench_case *bc = &bench_cases[i];
		const struct tsr_sample_file *bf = &bench_files[bc->file];
		struct bench_result *r = &res[i];
		snprintf(path, sizeof(path), "%s/%s", dir, bf->name);
		bench_run(bc, path, size, runs, ctx1, ctxn, r);
		double mb = (double)size * (double)size * (double)tsr_sample_esize(bf->bitpix) / 1e6;
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
		tsr_sample_remove_dir("fits_bench", dir, bench_files, BENCH_NFILES);
	return rc;
}
