/* test_gpu_batch_ahead.c - a CUDA batch read with its look-ahead (the next file opened, planned and described on other threads) equals the host batch read byte for byte, and the same read without it; a missing, truncated or other-shaped file in the middle fails the batch naming that file, and the next batch reads right; with the look-ahead each file of many tiles is read with 3/8 of the batch's threads, a batch of small files with all of them (the receipt's nthreads). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fitsio.h>

#include "tessera.h"

#define NFILES 6
#define ROWS 2048 /* row tiles a file: describing is split over threads from 1,024 */
#define COLS 384

static int g_fail;
#define FAIL(...)                                                                                \
	do {                                                                                     \
		fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                             \
		fprintf(stderr, __VA_ARGS__);                                                    \
		fprintf(stderr, "\n");                                                           \
		g_fail++;                                                                        \
	} while (0)

/* A RICE_1 int16 image of ROWS x COLS (CFITSIO's row tiles), of values seeded by seed;
 * rows: its rows (another shape where not ROWS). 0 or -1. */
static int write_rice(const char *path, unsigned seed, long rows)
{
	fitsfile *f = NULL;
	int st = 0;
	long naxes[2] = {COLS, rows};
	char name[600];
	snprintf(name, sizeof(name), "!%s", path);
	short *v = malloc((size_t)rows * COLS * sizeof(short));
	if (!v)
		return -1;
	unsigned s = seed * 2654435761u + 7u;
	for (long i = 0; i < rows * COLS; i++) {
		s = s * 1664525u + 1013904223u;
		v[i] = (short)(1000 + (int)((s >> 16) % 200) - 100);
	}
	fits_create_file(&f, name, &st);
	fits_set_compression_type(f, RICE_1, &st);
	fits_create_img(f, SHORT_IMG, 2, naxes, &st);
	fits_write_img(f, TSHORT, 1, (LONGLONG)rows * COLS, v, &st);
	fits_close_file(f, &st);
	free(v);
	return st ? -1 : 0;
}

/* The batch of paths into device memory on ctx, copied back into got (n files); its status. */
static int device_batch(struct tsr_context *ctx, const char *const *paths, size_t n, void *dev,
			unsigned char *got, struct tsr_receipt *r)
{
	const size_t per = (size_t)ROWS * COLS * 2;
	struct tsr_buffer b = {dev, n * per, TSR_MEM_CUDA, NULL};
	struct tsr_open_options oo = {.struct_size = sizeof(oo), .hdu = 1};
	int st = tsr_read_batch(ctx, paths, n, &oo, NULL, &b, NULL, r);
	if (st == TSR_OK && tsr_cuda_memcpy_to_host(got, dev, n * per))
		FAIL("copy back: %s", tsr_errmsg());
	return st;
}

/* A batch of two files of SMALL row tiles (too few to describe on helpers) equals the host
 * batch, and each file's read kept all of ctx's threads (nthreads). */
#define SMALL 500
static void small_batch(struct tsr_context *ctx, struct tsr_context *host,
			const char *const small[2], void *dev, int nthreads)
{
	const size_t n = 2 * (size_t)SMALL * COLS * 2;
	unsigned char *want = calloc(1, n), *got = calloc(1, n);
	struct tsr_open_options oo = {.struct_size = sizeof(oo), .hdu = 1};
	struct tsr_buffer hb = {want, n, TSR_MEM_HOST, NULL}, db = {dev, n, TSR_MEM_CUDA, NULL};
	struct tsr_receipt r = {.struct_size = sizeof(r)};
	if (!want || !got)
		FAIL("small files: out of memory");
	else if (tsr_read_batch(host, small, 2, &oo, NULL, &hb, NULL, NULL))
		FAIL("small files: host batch: %s", tsr_errmsg());
	else if (tsr_read_batch(ctx, small, 2, &oo, NULL, &db, NULL, &r) ||
		 tsr_cuda_memcpy_to_host(got, dev, n))
		FAIL("small files, %d threads: device batch: %s", nthreads, tsr_errmsg());
	else if (memcmp(got, want, n))
		FAIL("small files, %d threads: the device batch differs from the host's", nthreads);
	else if (r.nthreads != nthreads)
		FAIL("small files, %d threads: the receipt says %d threads read", nthreads,
		     r.nthreads);
	free(want);
	free(got);
}

/* The batch with file k replaced by bad fails naming it (what: the kind of fault), and the
 * good batch read after it equals ref. */
static void bad_file(struct tsr_context *ctx, const char *const *good, int k, const char *bad,
		     const char *what, void *dev, const unsigned char *ref, unsigned char *got)
{
	const char *paths[NFILES];
	memcpy(paths, good, sizeof(paths));
	paths[k] = bad;
	int st = device_batch(ctx, paths, NFILES, dev, got, NULL);
	const char *base = strrchr(bad, '/') ? strrchr(bad, '/') + 1 : bad;
	if (st >= 0)
		FAIL("%s file %d: the batch read succeeded", what, k);
	else if (!strstr(tsr_errmsg(), base))
		FAIL("%s file %d: the message does not name %s: %s", what, k, base, tsr_errmsg());
	const size_t total = (size_t)NFILES * ROWS * COLS * 2;
	memset(got, 0, total);
	st = device_batch(ctx, good, NFILES, dev, got, NULL);
	if (st != TSR_OK)
		FAIL("after the %s file: the good batch: %s", what, tsr_errmsg());
	else if (memcmp(got, ref, total))
		FAIL("after the %s file: the good batch's bytes differ from the host batch", what);
}

int main(void)
{
	int ndev = 0;
	if (tsr_cuda_device_count(&ndev) != TSR_OK || ndev < 1) {
		printf("test_gpu_batch_ahead: no CUDA device, skipped\n");
		return 0;
	}
	char dir[64], paths_s[NFILES][128], missing[160], truncated[160], other[160], small_s[2][160];
	snprintf(dir, sizeof(dir), "/tmp/tsr_batch_ahead_%d", (int)getpid());
	if (mkdir(dir, 0755)) {
		perror(dir);
		return 1;
	}
	const char *paths[NFILES];
	for (int i = 0; i < NFILES; i++) {
		snprintf(paths_s[i], sizeof(paths_s[i]), "%s/f%d.fits", dir, i);
		paths[i] = paths_s[i];
		if (write_rice(paths[i], (unsigned)i + 1, ROWS)) {
			FAIL("writing %s", paths[i]);
			return 1;
		}
	}
	snprintf(missing, sizeof(missing), "%s/missing.fits", dir);
	snprintf(other, sizeof(other), "%s/other_shape.fits", dir);
	snprintf(truncated, sizeof(truncated), "%s/truncated.fits", dir);
	const char *small[2] = {small_s[0], small_s[1]};
	for (int i = 0; i < 2; i++)
		snprintf(small_s[i], sizeof(small_s[i]), "%s/small%d.fits", dir, i);
	if (write_rice(other, 99, ROWS / 2) || write_rice(truncated, 98, ROWS) ||
	    write_rice(small_s[0], 97, SMALL) || write_rice(small_s[1], 96, SMALL)) {
		FAIL("writing the bad files");
		return 1;
	}
	FILE *tf = fopen(truncated, "r+");
	if (tf) { /* the heap cut at 70%: header and tile table whole, tiles past it gone */
		fseek(tf, 0, SEEK_END);
		long n = ftell(tf);
		fclose(tf);
		if (truncate(truncated, n * 7 / 10))
			FAIL("truncating %s", truncated);
	}

	const size_t total = (size_t)NFILES * ROWS * COLS * 2;
	unsigned char *ref = calloc(1, total), *got = calloc(1, total);
	void *dev = NULL;
	if (!ref || !got || tsr_cuda_malloc_on(0, total, &dev)) {
		FAIL("memory: %s", tsr_errmsg());
		return 1;
	}
	/* the host batch: the reference */
	struct tsr_context *host = NULL;
	struct tsr_open_options oo = {.struct_size = sizeof(oo), .hdu = 1};
	struct tsr_buffer hb = {ref, total, TSR_MEM_HOST, NULL};
	if (tsr_context_create(NULL, &host) ||
	    tsr_read_batch(host, paths, NFILES, &oo, NULL, &hb, NULL, NULL)) {
		FAIL("host batch: %s", tsr_errmsg());
		return 1;
	}
	/* 16 threads: the look-ahead, each file's read with 6 of them (engine.h's
	 * TSR_AHEAD_READ_EIGHTHS, 3; its receipt says so), 3 + 3 describing; 2: none (file by
	 * file), each file's read with both */
	const int threads[2] = {16, 2};
	for (int t = 0; t < 2; t++) {
		struct tsr_context_options co = {.struct_size = sizeof(co), .nthreads = threads[t]};
		struct tsr_context *ctx = NULL;
		if (tsr_context_create(&co, &ctx)) {
			FAIL("context of %d threads: %s", threads[t], tsr_errmsg());
			continue;
		}
		for (int rep = 0; rep < 2; rep++) {
			memset(got, 0, total);
			struct tsr_receipt r = {.struct_size = sizeof(r)};
			int st = device_batch(ctx, paths, NFILES, dev, got, &r);
			const int want = threads[t] >= 4 ? threads[t] * 3 / 8 : threads[t];
			if (st != TSR_OK)
				FAIL("%d threads: device batch: %s", threads[t], tsr_errmsg());
			else if (memcmp(got, ref, total))
				FAIL("%d threads: device batch differs from the host batch",
				     threads[t]);
			else if (r.nthreads != want)
				FAIL("%d threads: the receipt says %d threads read, not %d",
				     threads[t], r.nthreads, want);
		}
		bad_file(ctx, paths, 3, missing, "missing", dev, ref, got);
		bad_file(ctx, paths, 1, truncated, "truncated", dev, ref, got);
		bad_file(ctx, paths, NFILES - 1, truncated, "truncated (last)", dev, ref, got);
		bad_file(ctx, paths, 4, other, "other-shaped", dev, ref, got);
		bad_file(ctx, paths, 0, missing, "missing (first)", dev, ref, got);
		small_batch(ctx, host, small, dev, threads[t]);
		tsr_context_free(ctx);
	}
	tsr_cuda_free(dev);
	tsr_context_free(host);
	for (int i = 0; i < NFILES; i++)
		unlink(paths[i]);
	unlink(other);
	unlink(truncated);
	unlink(small_s[0]);
	unlink(small_s[1]);
	rmdir(dir);
	free(ref);
	free(got);
	if (g_fail) {
		fprintf(stderr, "test_gpu_batch_ahead: %d failure(s)\n", g_fail);
		return 1;
	}
	printf("test_gpu_batch_ahead: ok (%d files of %d row tiles, 16 and 2 threads, 5 bad files "
	       "and a batch of 2 small files each)\n", NFILES, ROWS);
	return 0;
}
