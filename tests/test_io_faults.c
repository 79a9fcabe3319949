/* test_io_faults.c - storage faults: EIO on the k-th read, short reads, and files truncated
 * between open and read, for every format. This program interposes pread (the POSIX
 * backend's only read call), so the library under test is the real one. Every failure must
 * be a negative status naming the file, never a success with half-filled output; the context
 * must stay usable; LeakSanitizer (the ASan run) checks that nothing leaks. */
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "tessera.h"

enum { FAULT_NONE, FAULT_EIO, FAULT_SHORT };
static atomic_int fault_kind;
static atomic_long fault_countdown; /* the read that fails: 0 = the next one */
static atomic_long nreads;

typedef ssize_t (*pread_fn)(int, void *, size_t, off_t);

static ssize_t real_pread(int fd, void *buf, size_t n, off_t off)
{
	static pread_fn fn;
	if (!fn)
		fn = (pread_fn)dlsym(RTLD_NEXT, "pread");
	return fn(fd, buf, n, off);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	atomic_fetch_add(&nreads, 1);
	int kind = atomic_load(&fault_kind);
	if (kind == FAULT_SHORT && n > 1)
		return real_pread(fd, buf, n / 2 + 1, off); /* every read comes back short */
	if (kind == FAULT_EIO && atomic_fetch_sub(&fault_countdown, 1) == 0) {
		errno = EIO;
		return -1;
	}
	return real_pread(fd, buf, n, off);
}

ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
	return pread(fd, buf, n, off);
}

static char corpus[1024];

/* Reads path whole; returns status, fills *data (tsr_free it). */
static int read_all(struct tsr_context *ctx, const char *path, void **data, size_t *nbytes)
{
	struct tsr_array *a = NULL;
	int ndim;
	int64_t shape[TSR_MAX_DIM];
	*data = NULL;
	int st = tsr_open(ctx, path, NULL, &a);
	if (st == TSR_OK)
		st = tsr_read_alloc(a, NULL, NULL, data, nbytes, &ndim, shape, NULL);
	tsr_array_free(a);
	return st;
}

static void check_file(struct tsr_context *ctx, const char *rel)
{
	char path[2048];
	snprintf(path, sizeof(path), "%s/%s", corpus, rel);
	const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
	void *clean = NULL, *got = NULL;
	size_t clean_n = 0, got_n = 0;
	atomic_store(&fault_kind, FAULT_NONE);
	atomic_store(&nreads, 0);
	CHECK_EQ_INT(read_all(ctx, path, &clean, &clean_n), TSR_OK);
	long reads = atomic_load(&nreads);
	CHECK(reads > 0);

	/* EIO on each read in turn: an error naming the file, or (never) a wrong success. */
	int failures = 0;
	for (long k = 0; k < reads; k++) {
		atomic_store(&fault_countdown, k);
		atomic_store(&fault_kind, FAULT_EIO);
		int st = read_all(ctx, path, &got, &got_n);
		atomic_store(&fault_kind, FAULT_NONE);
		if (st == TSR_OK) {
			/* The faulted read was not needed (e.g. a directory listing): values exact. */
			CHECK(got_n == clean_n && memcmp(got, clean, clean_n) == 0);
		} else {
			failures++;
			CHECK(st < 0);
			if (!strstr(tsr_errmsg(), base))
				fprintf(stderr, "%s: EIO at read %ld: message lacks the file: %s\n", rel, k,
					tsr_errmsg());
			CHECK(strstr(tsr_errmsg(), base) != NULL);
		}
		tsr_free(got);
		got = NULL;
	}
	CHECK(failures > 0);

	/* Short reads are retried: same values. */
	atomic_store(&fault_kind, FAULT_SHORT);
	CHECK_EQ_INT(read_all(ctx, path, &got, &got_n), TSR_OK);
	atomic_store(&fault_kind, FAULT_NONE);
	CHECK(got && got_n == clean_n && memcmp(got, clean, clean_n) == 0);
	tsr_free(got);

	/* The context is still usable. */
	CHECK_EQ_INT(read_all(ctx, path, &got, &got_n), TSR_OK);
	tsr_free(got);
	tsr_free(clean);
}

/* A file cut short after tsr_open: the read fails and names it. */
static void check_truncated(struct tsr_context *ctx, const char *rel)
{
	char src[2048], dst[] = "/tmp/tsr_trunc_XXXXXX";
	snprintf(src, sizeof(src), "%s/%s", corpus, rel);
	int fd = mkstemp(dst);
	FILE *in = fopen(src, "rb");
	CHECK(fd >= 0 && in);
	char buf[65536];
	size_t n, total = 0;
	while (in && (n = fread(buf, 1, sizeof(buf), in)) > 0) {
		CHECK(write(fd, buf, n) == (ssize_t)n);
		total += n;
	}
	if (in)
		fclose(in);
	close(fd);
	struct tsr_array *a = NULL;
	CHECK_EQ_INT(tsr_open(ctx, dst, NULL, &a), TSR_OK);
	CHECK_EQ_INT(truncate(dst, (off_t)(total * 2 / 3)), 0);
	void *data = NULL;
	size_t nb;
	int ndim;
	int64_t shape[TSR_MAX_DIM];
	int st = tsr_read_alloc(a, NULL, NULL, &data, &nb, &ndim, shape, NULL);
	CHECK(st < 0 && data == NULL);
	CHECK(strstr(tsr_errmsg(), dst + 5) != NULL);
	tsr_array_free(a);
	unlink(dst);
}

int main(void)
{
	const char *env = getenv("TSR_CORPUS");
	snprintf(corpus, sizeof(corpus), "%s", env ? env : "../../shared/corpus");
	struct tsr_context *ctx;
	struct tsr_context_options co = {sizeof(co), 2};
	CHECK_EQ_INT(tsr_context_create(&co, &ctx), TSR_OK);
	check_file(ctx, "fits/u_i16_primary.fits");
	check_file(ctx, "fits/c_rice_i16_tiles.fits");
	check_file(ctx, "fits/c_gzip2_i32_tiles.fits");
	check_file(ctx, "zarr2/blosc_lz4_shuffle_i16.zarr");
	check_file(ctx, "blosc2/zstd_shuffle_i2_4d.b2nd");
	check_truncated(ctx, "fits/u_i16_primary.fits");
	check_truncated(ctx, "fits/c_rice_i16_tiles.fits");
	check_truncated(ctx, "blosc2/zstd_shuffle_i2_4d.b2nd");
	tsr_context_free(ctx);
	CHECK_DONE();
}
