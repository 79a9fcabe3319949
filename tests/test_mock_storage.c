/* test_mock_storage.c - mock-host storage: reads equal real reads, and once a handle's cache is
 * filled its reads do no pread at all (this program interposes pread, as test_io_faults.c). */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "tessera.h"

static atomic_long nreads;

typedef ssize_t (*pread_fn)(int, void *, size_t, off_t);

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	static pread_fn fn;
	if (!fn)
		fn = (pread_fn)dlsym(RTLD_NEXT, "pread");
	atomic_fetch_add(&nreads, 1);
	return fn(fd, buf, n, off);
}

ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
	return pread(fd, buf, n, off);
}

static char corpus[1024];

/* Reads sel from a; returns status, fills *data (tsr_free it) and the receipt. */
static int read_sel(struct tsr_array *a, const char *spec, int storage, void **data,
		    size_t *nbytes, struct tsr_receipt *r)
{
	struct tsr_selection sel;
	struct tsr_read_options ro = {.struct_size = sizeof(ro), .storage = storage};
	int ndim;
	int64_t shape[TSR_MAX_DIM];
	*data = NULL;
	r->struct_size = sizeof(*r);
	int st = tsr_selection_parse(spec, &sel);
	if (st == TSR_OK)
		st = tsr_read_alloc(a, &sel, &ro, data, nbytes, &ndim, shape, r);
	return st;
}

/* Real and mock-host reads of spec agree; a filled cache serves the read without pread. */
static void check_spec(struct tsr_context *ctx, const char *path, const char *spec)
{
	struct tsr_array *real = NULL, *mock = NULL;
	struct tsr_receipt rr, rm;
	void *want = NULL, *got = NULL;
	size_t want_n = 0, got_n = 0;
	CHECK_EQ_INT(tsr_open(ctx, path, NULL, &real), TSR_OK);
	CHECK_EQ_INT(tsr_open(ctx, path, NULL, &mock), TSR_OK);
	if (!real || !mock) {
		tsr_array_free(real);
		tsr_array_free(mock);
		return;
	}
	CHECK_EQ_INT(read_sel(real, spec, TSR_STORAGE_REAL, &want, &want_n, &rr), TSR_OK);
	CHECK(strcmp(rr.backend, "posix") == 0);

	/* The first mock-host read fills the cache from the files. */
	atomic_store(&nreads, 0);
	CHECK_EQ_INT(read_sel(mock, spec, TSR_STORAGE_MOCK_HOST, &got, &got_n, &rm), TSR_OK);
	CHECK(strcmp(rm.backend, "mock-host") == 0);
	CHECK(got_n == want_n && got && memcmp(got, want, want_n) == 0);
	CHECK(atomic_load(&nreads) > 0 || rr.bytes_read == 0);
	tsr_free(got);

	/* Filled: the same read again, and again on more threads than chunks, no pread. */
	for (int rep = 0; rep < 2; rep++) {
		atomic_store(&nreads, 0);
		CHECK_EQ_INT(read_sel(mock, spec, TSR_STORAGE_MOCK_HOST, &got, &got_n, &rm), TSR_OK);
		if (atomic_load(&nreads) != 0)
			fprintf(stderr, "%s [%s]: %ld preads after the cache was filled\n", path, spec,
				atomic_load(&nreads));
		CHECK_EQ_INT(atomic_load(&nreads), 0);
		CHECK(strcmp(rm.backend, "mock-host") == 0);
		CHECK(got_n == want_n && got && memcmp(got, want, want_n) == 0);
		CHECK(rm.bytes_out == rr.bytes_out);
		tsr_free(got);
	}
	/* A real read of the same handle is still a real read. */
	atomic_store(&nreads, 0);
	CHECK_EQ_INT(read_sel(mock, spec, TSR_STORAGE_REAL, &got, &got_n, &rm), TSR_OK);
	CHECK(strcmp(rm.backend, "posix") == 0);
	CHECK(atomic_load(&nreads) > 0 || rr.bytes_read == 0);
	CHECK(got_n == want_n && got && memcmp(got, want, want_n) == 0);
	tsr_free(got);
	tsr_free(want);
	tsr_array_free(real);
	tsr_array_free(mock); /* frees the cache: LeakSanitizer checks */
}

/* Whole, then a section on a fresh handle, then a section and the whole on one handle (the
 * second read adds the chunks the first did not touch). */
static void check_file(struct tsr_context *ctx, const char *rel, const char *section)
{
	char path[2048];
	snprintf(path, sizeof(path), "%s/%s", corpus, rel);
	check_spec(ctx, path, "");
	check_spec(ctx, path, section);

	struct tsr_array *a = NULL, *b = NULL;
	struct tsr_receipt r;
	void *x = NULL, *y = NULL;
	size_t xn = 0, yn = 0;
	CHECK_EQ_INT(tsr_open(ctx, path, NULL, &a), TSR_OK);
	CHECK_EQ_INT(tsr_open(ctx, path, NULL, &b), TSR_OK);
	CHECK_EQ_INT(read_sel(a, section, TSR_STORAGE_MOCK_HOST, &x, &xn, &r), TSR_OK);
	tsr_free(x);
	CHECK_EQ_INT(read_sel(a, "", TSR_STORAGE_MOCK_HOST, &x, &xn, &r), TSR_OK);
	CHECK_EQ_INT(read_sel(b, "", TSR_STORAGE_REAL, &y, &yn, &r), TSR_OK);
	CHECK(xn == yn && x && y && memcmp(x, y, xn) == 0);
	tsr_free(x);
	tsr_free(y);
	tsr_array_free(a);
	tsr_array_free(b);
}

/* Older option structs (no storage field) read real storage; bad values and CUDA
 * destinations are refused with a reason. */
static void check_options(struct tsr_context *ctx)
{
	char path[2048];
	snprintf(path, sizeof(path), "%s/%s", corpus, "fits/c_rice_i16_tiles.fits");
	struct tsr_array *a = NULL;
	CHECK_EQ_INT(tsr_open(ctx, path, NULL, &a), TSR_OK);
	if (!a)
		return;
	void *data = NULL;
	size_t n;
	int ndim;
	int64_t shape[TSR_MAX_DIM];
	struct tsr_read_options ro = {.struct_size = sizeof(ro), .storage = TSR_STORAGE_MOCK_HOST};
	struct tsr_receipt r = {.struct_size = sizeof(r)};
	ro.struct_size = offsetof(struct tsr_read_options, storage);
	CHECK_EQ_INT(tsr_read_alloc(a, NULL, &ro, &data, &n, &ndim, shape, &r), TSR_OK);
	CHECK(strcmp(r.backend, "posix") == 0);
	ro.struct_size = sizeof(ro);
	ro.storage = 7;
	CHECK_EQ_INT(tsr_read(a, NULL, &(struct tsr_buffer){data, n, TSR_MEM_HOST, NULL}, &ro, NULL),
		     TSR_E_INVALID_ARG);
	/* mock-device replays from device memory: a host destination cannot use it. */
	ro.storage = TSR_STORAGE_MOCK_DEVICE;
	CHECK_EQ_INT(tsr_read(a, NULL, &(struct tsr_buffer){data, n, TSR_MEM_HOST, NULL}, &ro, NULL),
		     TSR_E_UNSUPPORTED);
	CHECK(strstr(tsr_errmsg(), "mock-device") != NULL);
	CHECK(strstr(tsr_errmsg(), "c_rice_i16_tiles.fits") != NULL);
	/* cuFile reads land in device memory only; posix storage reads as real storage does. */
	ro.storage = TSR_STORAGE_CUFILE;
	CHECK_EQ_INT(tsr_read(a, NULL, &(struct tsr_buffer){data, n, TSR_MEM_HOST, NULL}, &ro, NULL),
		     TSR_E_UNSUPPORTED);
	CHECK(strstr(tsr_errmsg(), "cufile") != NULL);
	ro.storage = TSR_STORAGE_CUFILE + 1;
	CHECK_EQ_INT(tsr_read(a, NULL, &(struct tsr_buffer){data, n, TSR_MEM_HOST, NULL}, &ro, NULL),
		     TSR_E_INVALID_ARG);
	/* The decoder option: auto, cpu and gpu are accepted (host reads decode on the CPU
	 * whatever it says), anything else is refused. */
	ro.storage = TSR_STORAGE_POSIX;
	for (int dec = TSR_DECODER_AUTO; dec <= TSR_DECODER_GPU; dec++) {
		ro.decoder = dec;
		CHECK_EQ_INT(tsr_read(a, NULL, &(struct tsr_buffer){data, n, TSR_MEM_HOST, NULL}, &ro,
				      NULL), TSR_OK);
	}
	ro.decoder = TSR_DECODER_GPU + 1;
	CHECK_EQ_INT(tsr_read(a, NULL, &(struct tsr_buffer){data, n, TSR_MEM_HOST, NULL}, &ro, NULL),
		     TSR_E_INVALID_ARG);
	CHECK(strstr(tsr_errmsg(), "decoder 3") != NULL);
	ro.decoder = TSR_DECODER_AUTO;
	memset(&r, 0, sizeof(r));
	r.struct_size = sizeof(r);
	CHECK_EQ_INT(tsr_read(a, NULL, &(struct tsr_buffer){data, n, TSR_MEM_HOST, NULL}, &ro, &r),
		     TSR_OK);
	CHECK(strcmp(r.backend, "posix") == 0);
	/* The GDS probe always gives its reason. */
	char why[256] = "";
	int usable = tsr_cufile_usable(why, sizeof(why));
	CHECK(usable == 0 || usable == 1);
	CHECK(why[0] != '\0');
	printf("cuFile here: %s (%s)\n", usable ? "usable" : "not usable", why);
	tsr_free(data);
	tsr_array_free(a);
}

int main(void)
{
	const char *env = getenv("TSR_CORPUS");
	snprintf(corpus, sizeof(corpus), "%s", env ? env : "../../shared/corpus");
	struct tsr_context *ctx;
	struct tsr_context_options co = {sizeof(co), 4};
	CHECK_EQ_INT(tsr_context_create(&co, &ctx), TSR_OK);
	check_file(ctx, "fits/c_rice_i16_tiles.fits", "3:17,::3");
	check_file(ctx, "fits/c_gzip2_i32_tiles.fits", "5:40,2:9");
	/* Uncompressed big-endian values with BZERO / BSCALE: decoding must not swap the cached
	 * bytes in place (a second read gave other values before). */
	check_file(ctx, "fits/u_u16_bzero.fits", "2:30,::2");
	check_file(ctx, "fits/u_scaled_blank.fits", "1:20,3:");
	check_file(ctx, "zarr3/shard_end_zstd_f4.zarr", "1:7,...");
	check_file(ctx, "zarr3/shard_sparse_i2.zarr", "...,1:3");
	check_file(ctx, "blosc2/zstd_shuffle_i2_4d.b2nd", "1,...,1:3");
	check_file(ctx, "blosc2/lz4_shuffle_f4_3d.b2nd", "::2,1:5");
	check_options(ctx);
	tsr_context_free(ctx);
	CHECK_DONE();
}
