/* cmd_bench.c - `tessera bench`: phase timings of reading files, a terminal table and a JSON report. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>
#include <fitsio.h>
#include <libdeflate.h>
#include <lz4.h>
#include <zstd.h>
#ifdef TSR_WITH_CUDA
/* Device name, memory and runtime/driver versions have no public tessera call yet, and the
 * CLI links the same cudart as the library, so it asks the runtime itself. */
#include <cuda_runtime.h>
#endif

#include "cli.h"

/*
 * How a phase is measured: one iteration runs the phase over every FILE once, in order; one
 * untimed warm-up iteration comes first (it also brings the files into the page cache: the
 * storage mode is "real", nothing is dropped from or faked into the cache; the decode-only
 * phase's warm-up fills its handles' mock-host caches), then --iterations timed ones. Output buffers are allocated once, outside the timing, and reused.
 */

#define BENCH_RAW_BLOCK ((size_t)8 << 20) /* pread size of the raw-read phase */
#define BENCH_SCHEMA_VERSION 1

enum bench_status { BENCH_OK, BENCH_FAILED, BENCH_SKIPPED, BENCH_NOT_IMPLEMENTED };
#define BENCH_MOCK(s) ((s) == TSR_STORAGE_MOCK_HOST || (s) == TSR_STORAGE_MOCK_DEVICE)
static const char *const bench_status_name[] = {"ok", "failed", "skipped", "not_implemented"};

struct bench_file {
	const char *path;
	char **parts;           /* regular files under a store directory (or the file itself) */
	size_t nparts;
	uint64_t disk_nbytes;   /* bytes of all of parts */
	char format[16], codec[32], reader[16];
	enum tsr_dtype dtype;
	int ndim;               /* of the selection */
	int64_t shape[TSR_MAX_DIM];
	int64_t nchunks;
	uint64_t stored_nbytes; /* compressed bytes of the array's data (tsr_array_info) */
	size_t out_nbytes;      /* decoded bytes of the selection */
	/* Compressed bytes a read of the selection fetches (its receipt's bytes_read, from the
	 * first end-to-end read that ran), or else stored_nbytes; 0: unknown (Zarr stores do not
	 * say without a read). */
	uint64_t compressed_nbytes;
	int compressed_from_read;
};

struct bench;

/* The receipt times a phase keeps per iteration (bench_phase.rt). */
#define TSR_BENCH_RT 6

struct bench_phase {
	const char *id, *name;
	/* One iteration over the workload; 0, or -1 with p->error set. */
	int (*run)(struct bench *b, struct bench_phase *p);
	int receipts;           /* 1: tessera reads, whose receipts are summed per iteration */
	enum bench_status status;
	char error[1024];
	int iterations;         /* timed iterations done */
	double *ms;             /* elapsed per timed iteration */
	double *rt[TSR_BENCH_RT]; /* receipt plan/fetch/decode/place/total/wait ms per timed
				     iteration */
	uint64_t bytes_in, bytes_out; /* per iteration */
	struct tsr_receipt sum; /* receipts of the current iteration, summed over files */
};

struct bench {
	struct tsr_context *ctx;
	struct tsr_open_options oo;
	struct tsr_selection sel;
	struct bench_file *files;
	const char **paths;
	size_t nfiles;
	int iterations, threads, device_cpu, device_cuda, batchable, tty;
	enum tsr_storage storage; /* of the per-file end-to-end phases */
	enum tsr_decoder decoder; /* --decoder, of every read (CUDA reads heed it) */
	int files_per_batch;    /* batch and stream phases: files per tsr_read_batch / batch
				   (0: batch phases all files, the stream 1) */
	int prefetch;           /* stream phase: files read ahead (0: the library's default) */
	int cuda_present;       /* a CUDA device answers */
	int cuda_ok;            /* ... and the device buffer of the CUDA phases is there */
	char cuda_reason[512];
	void *host, *dev;
	size_t host_nbytes, dev_nbytes;
	unsigned char *rawbuf;
	struct tsr_array **mock; /* decode-only phases, and end-to-end phases with a mock
				    --storage: a handle per FILE, open across iterations */
	/* progress */
	const char *phase_name;
	double phase_t0, last_print;
	long units_done, units_total;
};

static double bench_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Median of n values (n >= 1); sorts v. */
static double bench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Progress on a terminal only: a pipe or a log file gets the table alone. Redrawn at most
 * five times a second, and only once a phase has run for a second, so short runs stay quiet. */
static void bench_progress(struct bench *b)
{
	b->units_done++;
	if (!b->tty)
		return;
	double now = bench_now();
	if (now - b->phase_t0 < 1.0 || now - b->last_print < 0.2)
		return;
	b->last_print = now;
	int width = 30, fill = (int)(width * b->units_done / (b->units_total ? b->units_total : 1));
	fprintf(stderr, "\r%-31s [%.*s%*s] %ld/%ld reads", b->phase_name, fill,
		"##############################", width - fill, "", b->units_done, b->units_total);
	fflush(stderr);
}

static void bench_progress_end(struct bench *b)
{
	if (b->tty && b->last_print > 0)
		fprintf(stderr, "\r\033[K");
	b->last_print = 0;
}

static int bench_fail(struct bench_phase *p, const char *what, const char *path)
{
	snprintf(p->error, sizeof(p->error), "%s%s%s", path ? path : "", path ? ": " : "", what);
	return -1;
}

/* ---------------------------------------------------------------------------------------- */
/* Phases. */

static int bench_open_plan(struct bench *b, struct bench_phase *p)
{
	for (size_t i = 0; i < b->nfiles; i++) {
		struct tsr_array *a = NULL;
		int ndim;
		int64_t shape[TSR_MAX_DIM];
		if (tsr_open(b->ctx, b->files[i].path, &b->oo, &a) ||
		    tsr_selection_shape(a, &b->sel, &ndim, shape)) {
			bench_fail(p, tsr_errmsg(), NULL);
			tsr_array_free(a);
			return -1;
		}
		tsr_array_free(a);
		bench_progress(b);
	}
	return 0;
}

/* Storage alone: every byte of every file (all files of a store directory) with pread, one
 * thread, into one buffer that is overwritten. */
static int bench_raw_read(struct bench *b, struct bench_phase *p)
{
	uint64_t total = 0;
	for (size_t i = 0; i < b->nfiles; i++) {
		const struct bench_file *f = &b->files[i];
		for (size_t k = 0; k < f->nparts; k++) {
			int fd = open(f->parts[k], O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				return bench_fail(p, strerror(errno), f->parts[k]);
			for (off_t off = 0;;) {
				ssize_t n = pread(fd, b->rawbuf, BENCH_RAW_BLOCK, off);
				if (n < 0 && errno == EINTR)
					continue;
				if (n < 0) {
					int e = errno;
					close(fd);
					return bench_fail(p, strerror(e), f->parts[k]);
				}
				if (n == 0)
					break;
				off += n;
				total += (uint64_t)n;
			}
			close(fd);
		}
		bench_progress(b);
	}
	p->bytes_in = total;
	p->bytes_out = 0;
	return 0;
}

static void bench_receipt_add(struct tsr_receipt *s, const struct tsr_receipt *r)
{
	/* Names and the fallback text: the first file's that has them. */
	if (!s->engine[0]) {
		memcpy(s->driver, r->driver, sizeof(s->driver));
		memcpy(s->backend, r->backend, sizeof(s->backend));
		memcpy(s->engine, r->engine, sizeof(s->engine));
		memcpy(s->codec, r->codec, sizeof(s->codec));
		memcpy(s->reader, r->reader, sizeof(s->reader));
	}
	if (!s->fallback[0])
		memcpy(s->fallback, r->fallback, sizeof(s->fallback));
	if (!s->decoder[0])
		memcpy(s->decoder, r->decoder, sizeof(s->decoder));
	s->nthreads = r->nthreads;
	s->chunks_total += r->chunks_total;
	s->chunks_read += r->chunks_read;
	s->bytes_read += r->bytes_read;
	s->bytes_decoded += r->bytes_decoded;
	s->bytes_out += r->bytes_out;
	s->t_plan += r->t_plan;
	s->t_fetch += r->t_fetch;
	s->t_decode += r->t_decode;
	s->t_place += r->t_place;
	s->t_total += r->t_total;
	s->t_wait += r->t_wait;
}

static int bench_held_reads(struct bench *b, struct bench_phase *p, enum tsr_mem mem, int storage);

/* open + tsr_read + close of every file, into host or device memory; with a mock --storage,
 * reads of handles kept open (the warm-up fills their caches). */
static int bench_e2e(struct bench *b, struct bench_phase *p, enum tsr_mem mem)
{
	if (BENCH_MOCK(b->storage))
		return bench_held_reads(b, p, mem, b->storage);
	struct tsr_read_options ro = {.struct_size = sizeof(ro), .storage = b->storage,
				       .decoder = b->decoder};
	uint64_t out = 0;
	for (size_t i = 0; i < b->nfiles; i++) {
		struct bench_file *f = &b->files[i];
		struct tsr_array *a = NULL;
		struct tsr_buffer dst = {mem == TSR_MEM_CUDA ? b->dev : b->host, f->out_nbytes, mem, NULL};
		struct tsr_receipt r = {.struct_size = sizeof(r)};
		if (tsr_open(b->ctx, f->path, &b->oo, &a) || tsr_read(a, &b->sel, &dst, &ro, &r)) {
			bench_fail(p, tsr_errmsg(), NULL);
			tsr_array_free(a);
			return -1;
		}
		tsr_array_free(a);
		bench_receipt_add(&p->sum, &r);
		if (!f->compressed_from_read) {
			f->compressed_nbytes = r.bytes_read;
			f->compressed_from_read = 1;
		}
		out += f->out_nbytes;
		bench_progress(b);
	}
	p->bytes_in = p->sum.bytes_read;
	p->bytes_out = out;
	return 0;
}

/* Reads of handles kept open across iterations (b->mock), from `storage`. With a mock storage
 * the warm-up read fills each handle's cache from the files and the timed reads do no I/O at
 * all. bytes in: the stored bytes the reads took (from the caches). */
static int bench_held_reads(struct bench *b, struct bench_phase *p, enum tsr_mem mem, int storage)
{
	struct tsr_read_options ro = {.struct_size = sizeof(ro), .storage = storage,
				       .decoder = b->decoder};
	uint64_t out = 0;
	for (size_t i = 0; i < b->nfiles; i++) {
		struct bench_file *f = &b->files[i];
		struct tsr_buffer dst = {mem == TSR_MEM_CUDA ? b->dev : b->host, f->out_nbytes, mem,
					 NULL};
		struct tsr_receipt r = {.struct_size = sizeof(r)};
		if ((!b->mock[i] && tsr_open(b->ctx, f->path, &b->oo, &b->mock[i])) ||
		    tsr_read(b->mock[i], &b->sel, &dst, &ro, &r))
			return bench_fail(p, tsr_errmsg(), NULL);
		bench_receipt_add(&p->sum, &r);
		out += f->out_nbytes;
		bench_progress(b);
	}
	p->bytes_in = p->sum.bytes_read;
	p->bytes_out = out;
	return 0;
}

/* Decoding alone on the CPU: mock-host reads into host memory. */
static int bench_decode_only(struct bench *b, struct bench_phase *p)
{
	return bench_held_reads(b, p, TSR_MEM_HOST, TSR_STORAGE_MOCK_HOST);
}

/* The GPU's part alone: mock-device reads into device memory (GPU decode and place kernels
 * straight from device copies of the chunks; CPU-decoded chunks replay their values). */
static int bench_cuda_decode_only(struct bench *b, struct bench_phase *p)
{
	return bench_held_reads(b, p, TSR_MEM_CUDA, TSR_STORAGE_MOCK_DEVICE);
}

/* The held handles and their caches (the files' stored bytes) go once a phase is done. */
static void bench_close_mock(struct bench *b)
{
	for (size_t i = 0; b->mock && i < b->nfiles; i++) {
		tsr_array_free(b->mock[i]);
		b->mock[i] = NULL;
	}
}

static int bench_cpu(struct bench *b, struct bench_phase *p)
{
	return bench_e2e(b, p, TSR_MEM_HOST);
}

static int bench_cuda(struct bench *b, struct bench_phase *p)
{
	return bench_e2e(b, p, TSR_MEM_CUDA);
}

/* Files stacked into one (B, ...) output by tsr_read_batch calls of --files-per-batch files
 * (default: all in one call), each batch into the same buffer. */
static int bench_batch(struct bench *b, struct bench_phase *p, enum tsr_mem mem)
{
	struct tsr_read_options ro = {.struct_size = sizeof(ro), .decoder = b->decoder};
	size_t per = b->files[0].out_nbytes;
	size_t group = b->files_per_batch > 0 ? (size_t)b->files_per_batch : b->nfiles;
	for (size_t i = 0; i < b->nfiles; i += group) {
		size_t n = b->nfiles - i < group ? b->nfiles - i : group;
		struct tsr_buffer dst = {mem == TSR_MEM_CUDA ? b->dev : b->host, per * n, mem, NULL};
		struct tsr_receipt r = {.struct_size = sizeof(r)};
		if (tsr_read_batch(b->ctx, b->paths + i, n, &b->oo, &b->sel, &dst, &ro, &r))
			return bench_fail(p, tsr_errmsg(), NULL);
		bench_receipt_add(&p->sum, &r);
		for (size_t k = 0; k < n; k++)
			bench_progress(b);
	}
	p->bytes_in = p->sum.bytes_read;
	p->bytes_out = per * b->nfiles;
	return 0;
}

static int bench_cpu_batch(struct bench *b, struct bench_phase *p)
{
	return bench_batch(b, p, TSR_MEM_HOST);
}

static int bench_cuda_batch(struct bench *b, struct bench_phase *p)
{
	return bench_batch(b, p, TSR_MEM_CUDA);
}

/* A streamed read: --files-per-batch files (default 1) per batch into the same buffer, the
 * next files read ahead (--prefetch). */
static int bench_stream(struct bench *b, struct bench_phase *p, enum tsr_mem mem)
{
	struct tsr_read_options ro = {.struct_size = sizeof(ro), .decoder = b->decoder};
	int fpb = b->files_per_batch > 0 ? b->files_per_batch : 1;
	struct tsr_stream_options so = {.struct_size = sizeof(so), .files_per_batch = fpb,
					.prefetch = b->prefetch};
	size_t per = b->files[0].out_nbytes, n = 0, files = 0;
	size_t most = (size_t)fpb < b->nfiles ? (size_t)fpb : b->nfiles; /* what the buffer holds */
	struct tsr_buffer dst = {mem == TSR_MEM_CUDA ? b->dev : b->host, per * most, mem, NULL};
	struct tsr_stream *s = NULL;
	if (tsr_stream_open(b->ctx, b->paths, b->nfiles, &b->oo, &b->sel, &so, &s))
		return bench_fail(p, tsr_errmsg(), NULL);
	for (;;) {
		struct tsr_receipt r = {.struct_size = sizeof(r)};
		if (tsr_stream_next(s, &dst, &ro, &n, &r)) {
			tsr_stream_free(s);
			return bench_fail(p, tsr_errmsg(), NULL);
		}
		if (n == 0)
			break;
		files += n;
		bench_receipt_add(&p->sum, &r);
		for (size_t k = 0; k < n; k++)
			bench_progress(b);
	}
	tsr_stream_free(s);
	p->bytes_in = p->sum.bytes_read;
	p->bytes_out = per * files;
	return 0;
}

static int bench_cuda_stream(struct bench *b, struct bench_phase *p)
{
	return bench_stream(b, p, TSR_MEM_CUDA);
}

/* Why a phase does not run here; NULL when it does. */
static const char *bench_skip_reason(const struct bench *b, const struct bench_phase *p)
{
	int cuda = !strncmp(p->id, "cuda", 4), cpu = !strncmp(p->id, "cpu", 3);
	int batch = strstr(p->id, "batch") != NULL || strstr(p->id, "stream") != NULL;
	if (cpu && !b->device_cpu)
		return "--device cuda: CPU phases not asked for";
	if (cuda && !b->device_cuda)
		return "--device cpu: CUDA phases not asked for";
	if (cuda && !b->cuda_ok)
		return b->cuda_reason;
	if (batch && b->nfiles < 2)
		return "a batch needs two or more FILEs";
	if (batch && !b->batchable)
		return "the FILEs differ in selected shape or dtype, so they cannot be stacked";
	if (batch && BENCH_MOCK(b->storage))
		return "--storage: batch and stream reads open their files each time, and mock "
		       "storage lives on handles kept open";
	if (!strcmp(p->id, "cpu") &&
	    (b->storage == TSR_STORAGE_MOCK_DEVICE || b->storage == TSR_STORAGE_CUFILE))
		return "--storage mock-device and cufile read into device memory: CUDA phases only";
	return NULL;
}

static void bench_run_phase(struct bench *b, struct bench_phase *p)
{
	if (!p->run)
		return; /* not implemented: status and reason were set with the table */
	const char *why = bench_skip_reason(b, p);
	if (why) {
		p->status = BENCH_SKIPPED;
		snprintf(p->error, sizeof(p->error), "%s", why);
		return;
	}
	p->ms = calloc((size_t)b->iterations, sizeof(double));
	int lacking = !p->ms;
	for (int k = 0; k < TSR_BENCH_RT; k++)
		lacking |= !(p->rt[k] = calloc((size_t)b->iterations, sizeof(double)));
	if (lacking) {
		p->status = BENCH_FAILED;
		snprintf(p->error, sizeof(p->error), "out of memory");
		return;
	}
	b->phase_name = p->name;
	b->phase_t0 = bench_now();
	b->units_done = 0;
	b->units_total = (long)b->nfiles * (b->iterations + 1);
	p->status = BENCH_OK;
	for (int it = -1; it < b->iterations; it++) { /* -1: the warm-up */
		memset(&p->sum, 0, sizeof(p->sum));
		p->sum.struct_size = sizeof(p->sum);
		double t0 = bench_now();
		int st = p->run(b, p);
		double t1 = bench_now();
		if (st) {
			p->status = BENCH_FAILED;
			if (!p->error[0]) /* the report promises a reason */
				snprintf(p->error, sizeof(p->error), "failed without a message");
			break;
		}
		if (it < 0)
			continue;
		p->ms[it] = (t1 - t0) * 1e3;
		p->rt[0][it] = p->sum.t_plan * 1e3;
		p->rt[1][it] = p->sum.t_fetch * 1e3;
		p->rt[2][it] = p->sum.t_decode * 1e3;
		p->rt[3][it] = p->sum.t_place * 1e3;
		p->rt[4][it] = p->sum.t_total * 1e3;
		p->rt[5][it] = p->sum.t_wait * 1e3;
		p->iterations = it + 1;
	}
	bench_progress_end(b);
}

/* ---------------------------------------------------------------------------------------- */
/* Workload: what each FILE holds, checked before any phase runs. */

static int bench_add_part(struct bench_file *f, const char *path, uint64_t nbytes)
{
	char **parts = realloc(f->parts, (f->nparts + 1) * sizeof(*parts));
	if (!parts)
		return -1;
	f->parts = parts;
	if (!(parts[f->nparts] = strdup(path)))
		return -1;
	f->nparts++;
	f->disk_nbytes += nbytes;
	return 0;
}

/* Every regular file under dir (a Zarr store, a sparse Blosc2 frame), depth first. */
static int bench_walk(struct bench_file *f, const char *dir)
{
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "tessera bench: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	int rc = 0;
	struct dirent *e;
	while (!rc && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char path[PATH_MAX];
		struct stat st;
		if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= (int)sizeof(path) ||
		    stat(path, &st)) {
			fprintf(stderr, "tessera bench: %s/%s: %s\n", dir, e->d_name,
				errno ? strerror(errno) : "path too long");
			rc = -1;
		} else if (S_ISDIR(st.st_mode)) {
			rc = bench_walk(f, path);
		} else if (S_ISREG(st.st_mode) && bench_add_part(f, path, (uint64_t)st.st_size)) {
			fprintf(stderr, "tessera bench: out of memory\n");
			rc = -1;
		}
	}
	closedir(d);
	return rc;
}

static int bench_describe(struct bench *b, struct bench_file *f)
{
	struct stat st;
	if (stat(f->path, &st)) {
		fprintf(stderr, "tessera bench: %s: %s\n", f->path, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode) ? bench_walk(f, f->path)
				: bench_add_part(f, f->path, (uint64_t)st.st_size))
		return -1;
	struct tsr_array *a = NULL;
	struct tsr_array_info in = {.struct_size = sizeof(in)};
	if (tsr_open(b->ctx, f->path, &b->oo, &a) || tsr_array_info(a, &in) ||
	    tsr_selection_shape(a, &b->sel, &f->ndim, f->shape)) {
		fprintf(stderr, "tessera bench: %s\n", tsr_errmsg());
		tsr_array_free(a);
		return -1;
	}
	snprintf(f->format, sizeof(f->format), "%s", in.format ? in.format : "");
	snprintf(f->codec, sizeof(f->codec), "%s", in.codec ? in.codec : "");
	snprintf(f->reader, sizeof(f->reader), "%s", in.reader ? in.reader : "");
	f->dtype = in.dtype;
	f->nchunks = in.nchunks;
	f->stored_nbytes = in.stored_nbytes;
	f->compressed_nbytes = in.stored_nbytes;
	f->out_nbytes = tsr_dtype_size(in.dtype);
	for (int d = 0; d < f->ndim; d++)
		f->out_nbytes *= (size_t)f->shape[d];
	tsr_array_free(a);
	return 0;
}

static int bench_same_shape(const struct bench_file *x, const struct bench_file *y)
{
	return x->dtype == y->dtype && x->ndim == y->ndim &&
	       !memcmp(x->shape, y->shape, (size_t)x->ndim * sizeof(x->shape[0]));
}

/* ---------------------------------------------------------------------------------------- */
/* Report. */

static cJSON *bench_json_versions(void)
{
	cJSON *v = cJSON_CreateObject();
	char s[64];
	cJSON_AddStringToObject(v, "tessera", tsr_version());
	/* libdeflate has no runtime version call: the header's. */
	cJSON_AddStringToObject(v, "libdeflate", LIBDEFLATE_VERSION_STRING);
	cJSON_AddStringToObject(v, "zstd", ZSTD_versionString());
	cJSON_AddStringToObject(v, "lz4", LZ4_versionString());
	/* The header's full version; the runtime gives only a float ("4.2"), kept for a mismatch. */
	float fv = 0;
	fits_get_version(&fv);
	snprintf(s, sizeof(s), "%d.%d.%d", CFITSIO_MAJOR, CFITSIO_MINOR, CFITSIO_MICRO);
	cJSON_AddStringToObject(v, "cfitsio", s);
	snprintf(s, sizeof(s), "%.3g", fv);
	cJSON_AddStringToObject(v, "cfitsio_runtime", s);
	cJSON_AddStringToObject(v, "cjson", cJSON_Version());
#ifdef TSR_WITH_CUDA
	int rt = 0, dr = 0;
	if (cudaRuntimeGetVersion(&rt) == cudaSuccess && rt > 0)
		snprintf(s, sizeof(s), "%d.%d", rt / 1000, rt % 1000 / 10);
	else
		snprintf(s, sizeof(s), "unavailable");
	cJSON_AddStringToObject(v, "cuda_runtime", s);
	/* 0 means no driver is installed. */
	if (cudaDriverGetVersion(&dr) == cudaSuccess && dr > 0)
		snprintf(s, sizeof(s), "%d.%d", dr / 1000, dr % 1000 / 10);
	else
		snprintf(s, sizeof(s), "unavailable");
	cJSON_AddStringToObject(v, "cuda_driver", s);
#else
	cJSON_AddStringToObject(v, "cuda_runtime", "unavailable");
	cJSON_AddStringToObject(v, "cuda_driver", "unavailable");
#endif
	return v;
}

static cJSON *bench_json_capabilities(const struct bench *b)
{
	cJSON *c = cJSON_CreateObject(), *cuda = cJSON_AddObjectToObject(c, "cuda");
	cJSON_AddBoolToObject(cuda, "available", b->cuda_present);
	if (b->cuda_present)
		cJSON_AddNullToObject(cuda, "reason");
	else
		cJSON_AddStringToObject(cuda, "reason", b->cuda_reason);
	cJSON *devs = cJSON_AddArrayToObject(cuda, "devices");
	cJSON *dec = cJSON_CreateArray();
#ifdef TSR_WITH_CUDA
	int n = 0;
	if (b->cuda_present && cudaGetDeviceCount(&n) == cudaSuccess) {
		for (int i = 0; i < n; i++) {
			struct cudaDeviceProp pr;
			if (cudaGetDeviceProperties(&pr, i) != cudaSuccess)
				continue;
			char cc[16];
			cJSON *d = cJSON_CreateObject();
			cJSON_AddNumberToObject(d, "index", i);
			cJSON_AddStringToObject(d, "name", pr.name);
			cJSON_AddNumberToObject(d, "memory_bytes", (double)pr.totalGlobalMem);
			snprintf(cc, sizeof(cc), "%d.%d", pr.major, pr.minor);
			cJSON_AddStringToObject(d, "compute_capability", cc);
			cJSON_AddItemToArray(devs, d);
		}
	}
#else
	(void)devs;
#endif
	/* Decoder families compiled into this build (src/cuda); whether a read used one shows in
	 * its phase's receipt fallback text. */
	struct tsr_capabilities caps = {.struct_size = sizeof(caps)};
	if (tsr_capabilities(&caps) == TSR_OK)
		for (char *save = NULL, *name = strtok_r(caps.gpu_decoders, ",", &save); name;
		     name = strtok_r(NULL, ",", &save))
			cJSON_AddItemToArray(dec, cJSON_CreateString(name));
	cJSON_AddItemToObject(c, "gpu_decoders", dec);
	cJSON *gds = cJSON_AddObjectToObject(c, "gds");
	char why[256];
	cJSON_AddBoolToObject(gds, "native", tsr_cufile_usable(why, sizeof(why)));
	cJSON_AddStringToObject(gds, "reason", why);
	return c;
}

static cJSON *bench_json_shape(int ndim, const int64_t *shape)
{
	cJSON *a = cJSON_CreateArray();
	for (int d = 0; d < ndim; d++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber((double)shape[d]));
	return a;
}

static cJSON *bench_json_workload(const struct bench *b)
{
	cJSON *w = cJSON_CreateObject(), *files = cJSON_AddArrayToObject(w, "files");
	cJSON *codecs = cJSON_CreateArray();
	uint64_t disk = 0, stored = 0, decoded = 0, compressed = 0;
	int compressed_known = 1;
	for (size_t i = 0; i < b->nfiles; i++) {
		const struct bench_file *f = &b->files[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "path", f->path);
		cJSON_AddStringToObject(o, "format", f->format);
		cJSON_AddStringToObject(o, "codec", f->codec);
		cJSON_AddStringToObject(o, "reader", f->reader);
		cJSON_AddStringToObject(o, "dtype", tsr_dtype_name(f->dtype));
		cJSON_AddItemToObject(o, "shape", bench_json_shape(f->ndim, f->shape));
		cJSON_AddNumberToObject(o, "chunks", (double)f->nchunks);
		cJSON_AddNumberToObject(o, "disk_files", (double)f->nparts);
		cJSON_AddNumberToObject(o, "disk_bytes", (double)f->disk_nbytes);
		cJSON_AddNumberToObject(o, "stored_bytes", (double)f->stored_nbytes);
		if (f->compressed_nbytes || f->compressed_from_read)
			cJSON_AddNumberToObject(o, "compressed_bytes", (double)f->compressed_nbytes);
		else
			cJSON_AddNullToObject(o, "compressed_bytes");
		cJSON_AddStringToObject(o, "compressed_bytes_from",
					f->compressed_from_read ? "receipt" : "array_info");
		cJSON_AddNumberToObject(o, "decoded_bytes", (double)f->out_nbytes);
		cJSON_AddItemToArray(files, o);
		disk += f->disk_nbytes;
		stored += f->stored_nbytes;
		compressed += f->compressed_nbytes;
		compressed_known &= f->compressed_nbytes || f->compressed_from_read;
		decoded += f->out_nbytes;
		int seen = 0;
		for (size_t k = 0; k < i; k++)
			seen |= !strcmp(b->files[k].codec, f->codec);
		if (!seen)
			cJSON_AddItemToArray(codecs, cJSON_CreateString(f->codec));
	}
	cJSON_AddNumberToObject(w, "nfiles", (double)b->nfiles);
	cJSON_AddNumberToObject(w, "disk_bytes", (double)disk);
	cJSON_AddNumberToObject(w, "stored_bytes", (double)stored);
	if (compressed_known)
		cJSON_AddNumberToObject(w, "compressed_bytes", (double)compressed);
	else
		cJSON_AddNullToObject(w, "compressed_bytes");
	cJSON_AddNumberToObject(w, "decoded_bytes", (double)decoded);
	cJSON_AddItemToObject(w, "codecs", codecs);
	cJSON_AddBoolToObject(w, "batchable", b->batchable);
	return w;
}

static double bench_rate(uint64_t nbytes, double ms)
{
	return ms > 0 ? (double)nbytes / (ms * 1e-3) / 1e6 : 0;
}

static cJSON *bench_json_phase(const struct bench_phase *p)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "id", p->id);
	cJSON_AddStringToObject(o, "name", p->name);
	cJSON_AddStringToObject(o, "status", bench_status_name[p->status]);
	cJSON_AddBoolToObject(o, "ok", p->status == BENCH_OK);
	if (p->error[0])
		cJSON_AddStringToObject(o, "error", p->error);
	else
		cJSON_AddNullToObject(o, "error");
	cJSON_AddNumberToObject(o, "iterations", p->iterations);
	if (p->status != BENCH_OK || !p->iterations) {
		cJSON_AddNullToObject(o, "elapsed_ms");
		cJSON_AddNullToObject(o, "bytes_in");
		cJSON_AddNullToObject(o, "bytes_out");
		cJSON_AddNullToObject(o, "mb_per_s_in");
		cJSON_AddNullToObject(o, "mb_per_s_out");
		cJSON_AddNullToObject(o, "receipt");
		return o;
	}
	double *ms = malloc((size_t)p->iterations * sizeof(double));
	if (!ms)
		return o;
	memcpy(ms, p->ms, (size_t)p->iterations * sizeof(double));
	double med = bench_median(ms, p->iterations);
	cJSON *e = cJSON_AddObjectToObject(o, "elapsed_ms");
	cJSON_AddNumberToObject(e, "min", ms[0]);
	cJSON_AddNumberToObject(e, "median", med);
	cJSON_AddNumberToObject(e, "max", ms[p->iterations - 1]);
	cJSON *all = cJSON_AddArrayToObject(e, "all");
	for (int i = 0; i < p->iterations; i++)
		cJSON_AddItemToArray(all, cJSON_CreateNumber(p->ms[i]));
	cJSON_AddNumberToObject(o, "bytes_in", (double)p->bytes_in);
	cJSON_AddNumberToObject(o, "bytes_out", (double)p->bytes_out);
	/* null, not 0, for phases that move no bytes that way (open+plan; raw read's output) */
	if (p->bytes_in)
		cJSON_AddNumberToObject(o, "mb_per_s_in", bench_rate(p->bytes_in, med));
	else
		cJSON_AddNullToObject(o, "mb_per_s_in");
	if (p->bytes_out)
		cJSON_AddNumberToObject(o, "mb_per_s_out", bench_rate(p->bytes_out, med));
	else
		cJSON_AddNullToObject(o, "mb_per_s_out");
	if (!p->receipts) {
		cJSON_AddNullToObject(o, "receipt");
	} else {
		static const char *const names[TSR_BENCH_RT] = {
			"plan_ms", "fetch_ms", "decode_ms", "place_ms", "total_ms", "wait_ms"};
		cJSON *r = cJSON_AddObjectToObject(o, "receipt");
		cJSON_AddStringToObject(r, "driver", p->sum.driver);
		cJSON_AddStringToObject(r, "backend", p->sum.backend);
		cJSON_AddStringToObject(r, "engine", p->sum.engine);
		cJSON_AddStringToObject(r, "codec", p->sum.codec);
		cJSON_AddStringToObject(r, "reader", p->sum.reader);
		cJSON_AddStringToObject(r, "fallback", p->sum.fallback);
		cJSON_AddStringToObject(r, "decoder", p->sum.decoder);
		cJSON_AddNumberToObject(r, "nthreads", p->sum.nthreads);
		cJSON_AddNumberToObject(r, "chunks_read", (double)p->sum.chunks_read);
		cJSON_AddNumberToObject(r, "bytes_read", (double)p->sum.bytes_read);
		cJSON_AddNumberToObject(r, "bytes_decoded", (double)p->sum.bytes_decoded);
		cJSON_AddNumberToObject(r, "bytes_out", (double)p->sum.bytes_out);
		for (int k = 0; k < TSR_BENCH_RT; k++) {
			memcpy(ms, p->rt[k], (size_t)p->iterations * sizeof(double));
			cJSON_AddNumberToObject(r, names[k], bench_median(ms, p->iterations));
		}
	}
	free(ms);
	return o;
}

/* FILE.tmp, fsync, rename, fsync of the folder: a reader sees the old report or the new one,
 * never half of one, even after a crash. */
static int bench_write_atomic(const char *path, const char *text)
{
	size_t n = strlen(path) + 5;
	char *tmp = malloc(n);
	if (!tmp)
		return -1;
	snprintf(tmp, n, "%s.tmp", path);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		goto fail;
	for (size_t len = strlen(text), off = 0; off < len;) {
		ssize_t w = write(fd, text + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			int e = errno;
			close(fd);
			unlink(tmp);
			errno = e;
			goto fail;
		}
		off += (size_t)w;
	}
	if (fsync(fd) || close(fd) || rename(tmp, path)) {
		int e = errno;
		unlink(tmp);
		errno = e;
		goto fail;
	}
	free(tmp);
	/* The rename itself is durable once the folder is synced. */
	char *dir = strdup(path);
	if (dir) {
		char *slash = strrchr(dir, '/');
		if (slash)
			slash[slash == dir] = 0; /* "/r.json" -> "/", "a/r.json" -> "a" */
		int dfd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0) {
			fsync(dfd);
			close(dfd);
		}
		free(dir);
	}
	return 0;
fail:
	fprintf(stderr, "tessera bench: %s: %s\n", tmp, strerror(errno));
	free(tmp);
	return -1;
}

/* Before any phase runs: a long run must not end in a report that cannot be written. */
static int bench_output_ok(const char *path)
{
	struct stat st;
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		fprintf(stderr, "tessera bench: --output-json %s is a directory\n", path);
		return 0;
	}
	char *dir = strdup(path);
	if (!dir)
		return 0;
	char *slash = strrchr(dir, '/');
	const char *d = ".";
	if (slash) {
		*slash = 0;
		d = slash == dir ? "/" : dir;
	}
	int ok = !access(d, W_OK | X_OK);
	if (!ok)
		fprintf(stderr, "tessera bench: --output-json %s: %s: %s\n", path, d, strerror(errno));
	free(dir);
	return ok;
}

/* ---------------------------------------------------------------------------------------- */
/* Terminal table. */

static void bench_fmt_bytes(char *s, size_t n, uint64_t v)
{
	if (v >= 1000000000ull)
		snprintf(s, n, "%.2f GB", (double)v / 1e9);
	else if (v >= 1000000ull)
		snprintf(s, n, "%.2f MB", (double)v / 1e6);
	else if (v >= 1000ull)
		snprintf(s, n, "%.1f kB", (double)v / 1e3);
	else
		snprintf(s, n, "%llu B", (unsigned long long)v);
}

static void bench_print(const struct bench *b, const struct bench_phase *ph, size_t nph)
{
	uint64_t disk = 0, stored = 0, decoded = 0;
	for (size_t i = 0; i < b->nfiles; i++) {
		disk += b->files[i].disk_nbytes;
		stored += b->files[i].compressed_nbytes;
		decoded += b->files[i].out_nbytes;
	}
	char s1[32], s2[32], s3[32];
	bench_fmt_bytes(s1, sizeof(s1), disk);
	bench_fmt_bytes(s2, sizeof(s2), stored);
	bench_fmt_bytes(s3, sizeof(s3), decoded);
	printf("tessera bench: %zu file%s (%s on disk, %s compressed, %s decoded), %d iteration%s "
	       "after 1 warm-up, %d thread%s, storage %s\n",
	       b->nfiles, b->nfiles == 1 ? "" : "s", s1, s2, s3, b->iterations,
	       b->iterations == 1 ? "" : "s", tsr_context_nthreads(b->ctx),
	       tsr_context_nthreads(b->ctx) == 1 ? "" : "s", tsr_cli_storage_name(b->storage));
	for (size_t i = 0; i < b->nfiles; i++) {
		const struct bench_file *f = &b->files[i];
		char shape[160] = "";
		size_t o = 0;
		for (int d = 0; d < f->ndim && o < sizeof(shape); d++)
			o += (size_t)snprintf(shape + o, sizeof(shape) - o, "%s%lld", d ? "x" : "",
					      (long long)f->shape[d]);
		bench_fmt_bytes(s1, sizeof(s1), f->disk_nbytes);
		printf("  %s: %s %s %s %s, %s on disk\n", f->path, f->format, f->codec,
		       tsr_dtype_name(f->dtype), f->ndim ? shape : "scalar", s1);
	}
	printf("\n%-31s %-8s %10s %10s %10s %10s %10s\n", "phase", "status", "ms min", "ms median",
	       "ms max", "MB/s out", "MB/s in");
	for (size_t i = 0; i < nph; i++) {
		const struct bench_phase *p = &ph[i];
		if (p->status != BENCH_OK || !p->iterations) {
			printf("%-31s %-8s %s\n", p->name,
			       p->status == BENCH_NOT_IMPLEMENTED ? "n/a" : bench_status_name[p->status],
			       p->error);
			continue;
		}
		double *ms = malloc((size_t)p->iterations * sizeof(double));
		if (!ms)
			continue;
		memcpy(ms, p->ms, (size_t)p->iterations * sizeof(double));
		double med = bench_median(ms, p->iterations);
		char in[16] = "-", out[16] = "-";
		if (p->bytes_out)
			snprintf(out, sizeof(out), "%.1f", bench_rate(p->bytes_out, med));
		if (p->bytes_in)
			snprintf(in, sizeof(in), "%.1f", bench_rate(p->bytes_in, med));
		printf("%-31s %-8s %10.3f %10.3f %10.3f %10s %10s\n", p->name, "ok", ms[0], med,
		       ms[p->iterations - 1], out, in);
		if (p->receipts) {
			double t[TSR_BENCH_RT];
			for (int k = 0; k < TSR_BENCH_RT; k++) {
				memcpy(ms, p->rt[k], (size_t)p->iterations * sizeof(double));
				t[k] = bench_median(ms, p->iterations);
			}
			printf("%-31s engine %s, reader %s; ms plan %.3f fetch %.3f decode %.3f "
			       "place %.3f (medians; fetch/decode/place summed over threads)\n",
			       "", p->sum.engine, p->sum.reader, t[0], t[1], t[2], t[3]);
			if (!strcmp(p->sum.engine, "cuda")) /* (host reads never wait so) */
				printf("%-31s the reads' own threads: %.3f ms working, %.3f waiting "
				       "for the GPU and the storage reads (medians)\n",
				       "", t[4] - t[5], t[5]);
			if (p->sum.fallback[0])
				printf("%-31s fallback: %s\n", "", p->sum.fallback);
			if (p->sum.decoder[0])
				printf("%-31s decoder: %s\n", "", p->sum.decoder);
		}
		free(ms);
	}
}

/* ---------------------------------------------------------------------------------------- */

static void bench_free_list(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

static int bench_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* DIR's entries (files and store directories), sorted by name, hidden ones left out; at most
 * max of them (0: all). */
static int bench_list_dir(const char *dir, int max, char ***list_ret, size_t *n_ret)
{
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "tessera bench: --dir %s: %s\n", dir, strerror(errno));
		return -1;
	}
	char **v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	int rc = 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			char **nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				rc = -1;
				break;
			}
			v = nv;
		}
		size_t len = strlen(dir) + strlen(e->d_name) + 2;
		if (!(v[n] = malloc(len))) {
			rc = -1;
			break;
		}
		snprintf(v[n++], len, "%s/%s", dir, e->d_name);
	}
	closedir(d);
	if (rc) {
		fprintf(stderr, "tessera bench: out of memory\n");
		bench_free_list(v, n);
		return -1;
	}
	if (!n) {
		fprintf(stderr, "tessera bench: --dir %s: no entries\n", dir);
		free(v);
		return -1;
	}
	qsort(v, n, sizeof(*v), bench_cmp_str);
	if (max > 0 && (size_t)max < n) {
		for (size_t i = (size_t)max; i < n; i++)
			free(v[i]);
		n = (size_t)max;
	}
	*list_ret = v;
	*n_ret = n;
	return 0;
}

static void bench_usage(FILE *f)
{
	fprintf(f,
		"usage: tessera bench [--hdu N | --array PATH] [--level K] [--section SPEC]\n"
		"                     [--device cpu|cuda|both] [--iterations K] [--threads T]\n"
		"                     [--storage real|mock-host|mock-device|posix|cufile]\n"
		"                     [--decoder auto|cpu|gpu]\n"
		"                     [--files-per-batch B]\n"
		"                     [--prefetch P] [--dir DIR [--max-files M]]\n"
		"                     [--output-json FILE] [FILE...]\n"
		"Times reading FILEs (FITS files, Zarr stores, Blosc2 frames), phase by phase: open+plan,\n"
		"raw read (every byte of the files with pread, one thread), end-to-end CPU and CUDA\n"
		"(open + tsr_read + close of each FILE), and CPU and CUDA batches (tsr_read_batch of all\n"
		"FILEs, when their selections have one shape and dtype). Each phase runs one warm-up and\n"
		"K timed iterations (default 5) over all FILEs; the page cache is left as it is. The\n"
		"table gives ms min/median/max and MB/s (10^6 bytes) of decoded output and of stored\n"
		"input at the median. CUDA phases are skipped, with the reason, without a device.\n"
		"The decode-only phases read from mock storage: mock-host (CPU) and mock-device (CUDA:\n"
		"chunks replayed from device memory, so the GPU kernels run alone). --storage makes\n"
		"the per-file end-to-end phases read from mock storage too (handles kept open; batch\n"
		"and stream phases are then skipped). --files-per-batch B: batch phases read B files\n"
		"per tsr_read_batch (default all), the stream phase B per batch (default 1);\n"
		"--decoder: which decoder the CUDA phases' reads use (auto: GPU kernels where they\n"
		"exist and pay; cpu: every chunk decoded on the CPU, then copied to the device).\n"
		"--prefetch P: files the stream reads ahead. --dir DIR adds DIR's entries (files and\n"
		"stores, by name, hidden ones left out) to the FILEs, at most M with --max-files.\n"
		"--output-json writes the report (docs/bench-report.md) once all phases have run.\n"
		"Exit status: 0; 1 when a phase failed (the report is still written) or a FILE cannot\n"
		"be read before the phases start (no report is written); 2 for a bad argument.\n");
}

static int bench_int_arg(const char *opt, const char *s, int min, int *v)
{
	char *end;
	long x = strtol(s, &end, 10);
	if (!*s || *end || x < min || x > INT_MAX) {
		fprintf(stderr, "tessera bench: bad %s '%s'\n", opt, s);
		return -1;
	}
	*v = (int)x;
	return 0;
}

int tsr_cli_bench(int argc, char **argv)
{
	const char *section = "", *array = NULL, *json = NULL, *device = "both", *dir = NULL;
	int hdu = -1, level = -1, iterations = 5, threads = 0, rc = 1;
	int storage = TSR_STORAGE_REAL, files_per_batch = 0, prefetch = 0, max_files = 0;
	int decoder = TSR_DECODER_AUTO;
	const char **paths = calloc((size_t)argc, sizeof(*paths));
	size_t npaths = 0;
	char **dir_paths = NULL; /* --dir's entries, owned */
	size_t ndir = 0;
	if (!paths) {
		fprintf(stderr, "tessera bench: out of memory\n");
		return 1;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int more = i + 1 < argc;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			bench_usage(stdout);
			free(paths);
			return 0;
		} else if (!strcmp(a, "--hdu") && more) {
			if (bench_int_arg(a, argv[++i], 0, &hdu))
				goto usage;
		} else if (!strcmp(a, "--array") && more) {
			array = argv[++i];
		} else if (!strcmp(a, "--level") && more) {
			if (bench_int_arg(a, argv[++i], 0, &level))
				goto usage;
		} else if (!strcmp(a, "--section") && more) {
			section = argv[++i];
		} else if (!strcmp(a, "--device") && more) {
			device = argv[++i];
			if (strcmp(device, "cpu") && strcmp(device, "cuda") && strcmp(device, "both")) {
				fprintf(stderr, "tessera bench: --device is cpu, cuda or both, not '%s'\n",
					device);
				goto usage;
			}
		} else if (!strcmp(a, "--iterations") && more) {
			if (bench_int_arg(a, argv[++i], 1, &iterations))
				goto usage;
		} else if (!strcmp(a, "--threads") && more) {
			if (bench_int_arg(a, argv[++i], 0, &threads))
				goto usage;
		} else if (!strcmp(a, "--output-json") && more) {
			json = argv[++i];
		} else if (!strcmp(a, "--storage") && more) {
			const char *v = argv[++i];
			if ((storage = tsr_cli_storage(v)) < 0) {
				fprintf(stderr, "tessera bench: --storage is " TSR_CLI_STORAGE_CHOICES
					", not '%s'\n", v);
				goto usage;
			}
		} else if (!strcmp(a, "--decoder") && more) {
			const char *v = argv[++i];
			if ((decoder = tsr_cli_decoder(v)) < 0) {
				fprintf(stderr, "tessera bench: --decoder is " TSR_CLI_DECODER_CHOICES
					", not '%s'\n", v);
				goto usage;
			}
		} else if (!strcmp(a, "--files-per-batch") && more) {
			if (bench_int_arg(a, argv[++i], 1, &files_per_batch))
				goto usage;
		} else if (!strcmp(a, "--prefetch") && more) {
			if (bench_int_arg(a, argv[++i], 0, &prefetch))
				goto usage;
		} else if (!strcmp(a, "--dir") && more) {
			dir = argv[++i];
		} else if (!strcmp(a, "--max-files") && more) {
			if (bench_int_arg(a, argv[++i], 1, &max_files))
				goto usage;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "tessera bench: unexpected argument '%s'\n", a);
			goto usage;
		} else {
			paths[npaths++] = a;
		}
	}
	if (max_files && !dir) {
		fprintf(stderr, "tessera bench: --max-files needs --dir\n");
		goto usage;
	}
	if (dir) {
		if (bench_list_dir(dir, max_files, &dir_paths, &ndir)) {
			free(paths);
			return 1;
		}
		const char **all = realloc(paths, (npaths + ndir + 1) * sizeof(*paths));
		if (!all) {
			fprintf(stderr, "tessera bench: out of memory\n");
			goto usage;
		}
		paths = all;
		for (size_t k = 0; k < ndir; k++)
			paths[npaths++] = dir_paths[k];
	}
	if (!npaths) {
		fprintf(stderr, "tessera bench: need at least one FILE (see --help)\n");
		goto usage;
	}
	if (hdu >= 0 && array) {
		fprintf(stderr, "tessera bench: --hdu and --array exclude each other\n");
		goto usage;
	}
	if (json && !bench_output_ok(json)) {
		free(paths);
		return 2;
	}

	struct bench b = {0};
	b.oo = (struct tsr_open_options){.struct_size = sizeof(b.oo), .hdu = hdu, .array = array,
					 .level = level};
	b.paths = paths;
	b.nfiles = npaths;
	b.iterations = iterations;
	b.threads = threads;
	b.storage = storage;
	b.decoder = decoder;
	b.files_per_batch = files_per_batch;
	b.prefetch = prefetch;
	b.device_cpu = strcmp(device, "cuda") != 0;
	b.device_cuda = strcmp(device, "cpu") != 0;
	b.tty = isatty(STDERR_FILENO);
	b.files = calloc(npaths, sizeof(*b.files));
	b.mock = calloc(npaths, sizeof(*b.mock));
	struct tsr_context_options co = {.struct_size = sizeof(co), .nthreads = threads};
	cJSON *root = NULL;
	char *text = NULL;
	struct bench_phase ph[] = {
		{.id = "open_plan", .name = "open+plan", .run = bench_open_plan, .receipts = 0},
		{.id = "raw_read", .name = "raw read", .run = bench_raw_read, .receipts = 0},
		{.id = "decode_only", .name = "decode only (mock storage)", .run = bench_decode_only,
		 .receipts = 1},
		{.id = "cuda_decode_only", .name = "decode only CUDA (mock-device)",
		 .run = bench_cuda_decode_only, .receipts = 1},
		{.id = "cpu", .name = "end-to-end CPU", .run = bench_cpu, .receipts = 1},
		{.id = "cpu_batch", .name = "end-to-end CPU batch", .run = bench_cpu_batch, .receipts = 1},
		{.id = "cuda", .name = "end-to-end CUDA", .run = bench_cuda, .receipts = 1},
		{.id = "cuda_batch", .name = "end-to-end CUDA batch", .run = bench_cuda_batch, .receipts = 1},
		{.id = "cuda_stream", .name = "end-to-end CUDA stream", .run = bench_cuda_stream,
		 .receipts = 1},
	};
	const size_t nph = sizeof(ph) / sizeof(ph[0]);

	if (!b.files || !b.mock) {
		fprintf(stderr, "tessera bench: out of memory\n");
		goto done;
	}
	if (tsr_selection_parse(section, &b.sel)) {
		fprintf(stderr, "tessera bench: --section: %s\n", tsr_errmsg());
		goto done;
	}
	if (tsr_context_create(&co, &b.ctx)) {
		fprintf(stderr, "tessera bench: %s\n", tsr_errmsg());
		goto done;
	}
	/* Every FILE must open before any phase runs: an early failure writes no report. */
	size_t most = 0;
	b.batchable = npaths > 1;
	for (size_t i = 0; i < npaths; i++) {
		b.files[i].path = paths[i];
		if (bench_describe(&b, &b.files[i]))
			goto done;
		if (b.files[i].out_nbytes > most)
			most = b.files[i].out_nbytes;
		b.batchable &= bench_same_shape(&b.files[0], &b.files[i]);
	}
	if (b.batchable && b.files[0].out_nbytes * npaths > most)
		most = b.files[0].out_nbytes * npaths;
	b.rawbuf = malloc(BENCH_RAW_BLOCK);
	b.host = malloc(most ? most : 1);
	if (!b.rawbuf || !b.host) {
		fprintf(stderr, "tessera bench: out of memory (%zu bytes of output)\n", most);
		goto done;
	}
	int ndev = 0;
	if (tsr_cuda_device_count(&ndev) || ndev < 1) {
		snprintf(b.cuda_reason, sizeof(b.cuda_reason), "%s",
			 tsr_errmsg()[0] ? tsr_errmsg() : "no CUDA device");
	} else {
		b.cuda_present = 1;
		if (!b.device_cuda)
			; /* the CUDA phases are skipped for --device cpu */
		else if (tsr_cuda_malloc(most, &b.dev))
			snprintf(b.cuda_reason, sizeof(b.cuda_reason),
				 "cannot allocate %zu bytes on the device: %s", most, tsr_errmsg());
		else
			b.cuda_ok = 1;
	}

	for (size_t i = 0; i < nph; i++) {
		bench_run_phase(&b, &ph[i]);
		bench_close_mock(&b);
	}
	bench_print(&b, ph, nph);

	int failed = 0;
	for (size_t i = 0; i < nph; i++)
		failed |= ph[i].status == BENCH_FAILED;
	/* --device cuda where no CUDA phase can run: nothing asked for ran, which a script must
	 * see (it read "ok": true and exit 0) */
	if (!b.device_cpu && !b.cuda_ok) {
		fprintf(stderr, "tessera bench: --device cuda: no CUDA phase ran: %s\n",
			b.cuda_reason[0] ? b.cuda_reason : "no CUDA device");
		failed = 1;
	}
	rc = failed;
	if (json) {
		root = cJSON_CreateObject();
		char when[32];
		time_t now = time(NULL);
		struct tm tm;
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
		cJSON_AddStringToObject(root, "schema", "tessera-bench-report");
		cJSON_AddNumberToObject(root, "schema_version", BENCH_SCHEMA_VERSION);
		cJSON_AddStringToObject(root, "created", when);
		cJSON_AddBoolToObject(root, "ok", !failed);
		cJSON *host = cJSON_AddObjectToObject(root, "host");
		char hn[256] = "";
		gethostname(hn, sizeof(hn) - 1);
		cJSON_AddStringToObject(host, "hostname", hn);
		cJSON_AddNumberToObject(host, "cpus", (double)sysconf(_SC_NPROCESSORS_ONLN));
		cJSON *cmd = cJSON_AddArrayToObject(root, "command");
		cJSON_AddItemToArray(cmd, cJSON_CreateString("tessera"));
		for (int i = 0; i < argc; i++)
			cJSON_AddItemToArray(cmd, cJSON_CreateString(argv[i]));
		cJSON_AddStringToObject(root, "storage", tsr_cli_storage_name(storage));
		cJSON *op = cJSON_AddObjectToObject(root, "options");
		if (hdu >= 0)
			cJSON_AddNumberToObject(op, "hdu", hdu);
		else
			cJSON_AddNullToObject(op, "hdu");
		if (array)
			cJSON_AddStringToObject(op, "array", array);
		else
			cJSON_AddNullToObject(op, "array");
		if (level >= 0)
			cJSON_AddNumberToObject(op, "level", level);
		else
			cJSON_AddNullToObject(op, "level");
		cJSON_AddStringToObject(op, "section", section);
		cJSON_AddStringToObject(op, "device", device);
		cJSON_AddStringToObject(op, "decoder", tsr_cli_decoder_name(decoder));
		cJSON_AddNumberToObject(op, "iterations", iterations);
		cJSON_AddNumberToObject(op, "warmup", 1);
		cJSON_AddNumberToObject(op, "threads", threads);
		cJSON_AddNumberToObject(op, "threads_used", tsr_context_nthreads(b.ctx));
		cJSON_AddNumberToObject(op, "raw_read_block_bytes", (double)BENCH_RAW_BLOCK);
		cJSON_AddNumberToObject(op, "files_per_batch", files_per_batch);
		cJSON_AddNumberToObject(op, "prefetch", prefetch);
		if (dir)
			cJSON_AddStringToObject(op, "dir", dir);
		else
			cJSON_AddNullToObject(op, "dir");
		cJSON_AddNumberToObject(op, "max_files", max_files);
		cJSON_AddItemToObject(root, "versions", bench_json_versions());
		cJSON_AddItemToObject(root, "capabilities", bench_json_capabilities(&b));
		cJSON_AddItemToObject(root, "workload", bench_json_workload(&b));
		cJSON *pa = cJSON_AddArrayToObject(root, "phases");
		for (size_t i = 0; i < nph; i++)
			cJSON_AddItemToArray(pa, bench_json_phase(&ph[i]));
		text = tsr_cli_json_utf8(cJSON_Print(root));
		if (!text || bench_write_atomic(json, text)) {
			if (!text)
				fprintf(stderr, "tessera bench: out of memory writing the report\n");
			rc = 1;
		} else {
			printf("\nreport: %s\n", json);
		}
	}
done:
	free(text);
	cJSON_Delete(root);
	for (size_t i = 0; i < nph; i++) {
		free(ph[i].ms);
		for (int k = 0; k < TSR_BENCH_RT; k++)
			free(ph[i].rt[k]);
	}
	if (b.files)
		for (size_t i = 0; i < npaths; i++) {
			for (size_t k = 0; k < b.files[i].nparts; k++)
				free(b.files[i].parts[k]);
			free(b.files[i].parts);
		}
	free(b.files);
	bench_close_mock(&b); /* a phase loop cut short */
	free(b.mock);
	free(b.rawbuf);
	free(b.host);
	tsr_cuda_free(b.dev);
	tsr_context_free(b.ctx);
	free(paths);
	bench_free_list(dir_paths, ndir);
	return rc;
usage:
	free(paths);
	bench_free_list(dir_paths, ndir);
	return 2;
}
