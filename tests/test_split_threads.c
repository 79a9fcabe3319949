/* test_split_threads.c - the steps of a read split over devices (shares on threads of their own, slabs, a batch's files, a stream's batches, errors) with host destinations, against the plain reads; ThreadSanitizer runs it (ctest -R threads). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tessera.h"

static const char *g_corpus;

static void path_of(char *dst, size_t cap, const char *rel)
{
	snprintf(dst, cap, "%s/%s", g_corpus, rel);
}

/* Splits one array read over nparts host slabs, back to back in one buffer, and compares. */
static void array_split(struct tsr_context *ctx, const char *rel, const char *spec, int nparts,
			int storage)
{
	char path[4096];
	path_of(path, sizeof(path), rel);
	struct tsr_array *a = NULL;
	struct tsr_selection sel;
	CHECK_EQ_INT(tsr_open(ctx, path, NULL, &a), TSR_OK);
	CHECK_EQ_INT(tsr_selection_parse(spec, &sel), TSR_OK);
	if (!a)
		return;
	void *whole = NULL;
	size_t n = 0;
	int nd;
	int64_t shape[TSR_MAX_DIM];
	CHECK_EQ_INT(tsr_read_alloc(a, &sel, NULL, &whole, &n, &nd, shape, NULL), TSR_OK);
	int axis;
	int64_t first[8], count[8];
	CHECK_EQ_INT(tsr_read_slabs(a, &sel, nparts, &axis, first, count), TSR_OK);
	int64_t rows = 0;
	for (int j = 0; j < nparts; j++)
		rows += count[j];
	size_t row = rows ? n / (size_t)rows : 0;
	unsigned char *buf = malloc(n + 1);
	memset(buf, 0xee, n + 1);
	struct tsr_buffer dsts[8];
	int devices[8];
	size_t at = 0;
	for (int j = 0; j < nparts; j++) {
		size_t nb = axis < 0 ? (j ? 0 : n) : (size_t)count[j] * row;
		dsts[j] = (struct tsr_buffer){buf + at, nb, TSR_MEM_HOST, NULL};
		devices[j] = j;
		at += nb;
	}
	CHECK_EQ_INT(at, n);
	struct tsr_read_options ro = {.struct_size = sizeof(ro), .storage = storage,
				      .devices = devices, .ndevices = nparts};
	struct tsr_receipt r = {.struct_size = sizeof(r)};
	CHECK_EQ_INT(tsr_read_devices(a, &sel, dsts, &ro, &r), TSR_OK);
	if (whole && memcmp(buf, whole, n)) {
		fprintf(stderr, "%s [%s] over %d: the slabs differ from the read\n", rel, spec, nparts);
		check_failures++;
	}
	CHECK(buf[n] == 0xee); /* nothing past the slabs */
	CHECK_EQ_INT(r.bytes_out, n);
	free(buf);
	tsr_free(whole);
	tsr_array_free(a);
}

/* Splits a batch of nfiles copies of a file, and a stream of them, over nparts host shares. */
static void batch_split(struct tsr_context *ctx, const char *rel, int nfiles, int nparts)
{
	char path[4096];
	path_of(path, sizeof(path), rel);
	const char *paths[16];
	for (int i = 0; i < nfiles; i++)
		paths[i] = path;
	struct tsr_array *a = NULL;
	CHECK_EQ_INT(tsr_open(ctx, path, NULL, &a), TSR_OK);
	void *one = NULL;
	size_t per = 0;
	int nd;
	int64_t shape[TSR_MAX_DIM];
	CHECK_EQ_INT(tsr_read_alloc(a, NULL, NULL, &one, &per, &nd, shape, NULL), TSR_OK);
	tsr_array_free(a);
	if (!one)
		return;
	size_t total = per * (size_t)nfiles;
	unsigned char *buf = malloc(total + 1);
	struct tsr_buffer dsts[8];
	int devices[8];
	size_t at = 0;
	for (int j = 0; j < nparts; j++) {
		size_t f, k;
		CHECK_EQ_INT(tsr_device_share((size_t)nfiles, nparts, j, &f, &k), TSR_OK);
		CHECK_EQ_INT(f * per, at);
		dsts[j] = (struct tsr_buffer){buf + at, k * per, TSR_MEM_HOST, NULL};
		devices[j] = 7 * j; /* (host shares: any ordinal) */
		at += k * per;
	}
	struct tsr_read_options ro = {.struct_size = sizeof(ro), .devices = devices,
				      .ndevices = nparts};
	struct tsr_receipt r = {.struct_size = sizeof(r)};
	memset(buf, 0xee, total + 1);
	CHECK_EQ_INT(tsr_read_batch_devices(ctx, paths, (size_t)nfiles, NULL, NULL, dsts, &ro, &r),
		     TSR_OK);
	for (int i = 0; i < nfiles; i++)
		CHECK(memcmp(buf + (size_t)i * per, one, per) == 0);
	CHECK(buf[total] == 0xee);
	CHECK_EQ_INT(r.bytes_out, total);
	/* a stream of them, 3 files a batch, each batch split alike */
	struct tsr_stream *s = NULL;
	struct tsr_stream_options so = {.struct_size = sizeof(so), .files_per_batch = 3};
	CHECK_EQ_INT(tsr_stream_open(ctx, paths, (size_t)nfiles, NULL, NULL, &so, &s), TSR_OK);
	memset(buf, 0xee, total + 1);
	size_t done = 0, got = 1;
	while (s && got) {
		size_t want = (size_t)nfiles - done < 3 ? (size_t)nfiles - done : 3;
		size_t off = done * per;
		for (int j = 0; j < nparts; j++) {
			size_t f, k;
			tsr_device_share(want, nparts, j, &f, &k);
			dsts[j] = (struct tsr_buffer){buf + off, k * per, TSR_MEM_HOST, NULL};
			off += k * per;
		}
		CHECK_EQ_INT(tsr_stream_next_devices(s, dsts, &ro, &got, NULL), TSR_OK);
		CHECK_EQ_INT(got, want);
		done += got;
		if (!want)
			break;
	}
	CHECK_EQ_INT(done, (size_t)nfiles);
	for (int i = 0; i < nfiles; i++)
		CHECK(memcmp(buf + (size_t)i * per, one, per) == 0);
	tsr_stream_free(s);
	free(buf);
	tsr_free(one);
}

int main(void)
{
	g_corpus = getenv("TSR_CORPUS");
	if (!g_corpus)
		g_corpus = "corpus";
	struct tsr_context *ctx = NULL;
	struct tsr_context_options co = {.struct_size = sizeof(co), .nthreads = 4};
	CHECK_EQ_INT(tsr_context_create(&co, &ctx), TSR_OK);
	for (int parts = 1; parts <= 4; parts++) {
		array_split(ctx, "zarr2/zstd_i32_3d.zarr", "", parts, TSR_STORAGE_REAL);
		array_split(ctx, "zarr2/zstd_i32_3d.zarr", "::-2, 5:77", parts, TSR_STORAGE_REAL);
		array_split(ctx, "zarr2/gzip_u16.zarr", "None, 7:139:3", parts, TSR_STORAGE_REAL);
		array_split(ctx, "zarr2/nested_f32_3d.zarr", "2, ::-1", parts, TSR_STORAGE_REAL);
		array_split(ctx, "fits/c_gzip2_i32_tiles.fits", "", parts, TSR_STORAGE_REAL);
		/* the shares fill one handle's mock-host cache at once */
		array_split(ctx, "fits/c_gzip2_i32_tiles.fits", "::3", parts, TSR_STORAGE_MOCK_HOST);
		batch_split(ctx, "zarr2/zstd_i32_3d.zarr", 7, parts);
		batch_split(ctx, "zarr2/blosc_lz4_shuffle_i16.zarr", 5, parts);
	}
	/* a share's failure: the call fails naming its device and the file; the others ran */
	char good[4096], bad[4096];
	path_of(good, sizeof(good), "zarr2/zstd_i32_3d.zarr");
	path_of(bad, sizeof(bad), "zarr2/no_such_array.zarr");
	const char *paths[4] = {good, good, good, bad};
	static unsigned char buf[4 * 12 * 80 * 90 * 4];
	struct tsr_buffer dsts[2] = {{buf, sizeof(buf) / 2, TSR_MEM_HOST, NULL},
				     {buf + sizeof(buf) / 2, sizeof(buf) / 2, TSR_MEM_HOST, NULL}};
	int devices[2] = {0, 1};
	struct tsr_read_options ro = {.struct_size = sizeof(ro), .devices = devices, .ndevices = 2};
	int st = tsr_read_batch_devices(ctx, paths, 4, NULL, NULL, dsts, &ro, NULL);
	CHECK(st == TSR_E_NOT_FOUND || st == TSR_E_IO);
	CHECK(strstr(tsr_errmsg(), "no_such_array") != NULL);
	/* files of another shape in a later share: TSR_E_FORMAT naming the file */
	char other[4096];
	path_of(other, sizeof(other), "zarr2/gzip_u16.zarr");
	const char *mixed[4] = {good, good, other, other};
	st = tsr_read_batch_devices(ctx, mixed, 4, NULL, NULL, dsts, &ro, NULL);
	CHECK_EQ_INT(st, TSR_E_FORMAT);
	CHECK(strstr(tsr_errmsg(), "gzip_u16") != NULL);
	tsr_context_free(ctx);
	CHECK_DONE();
}
