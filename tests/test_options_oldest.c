/* test_options_oldest.c - every entry point that takes an options struct accepts the first published one (its smallest struct_size), reads no byte past it, and refuses a smaller one before any other work. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tessera.h"

/* The first published sizes (tessera.h's first release of each struct). */
#define CTX_V1 (offsetof(struct tsr_context_options, nthreads) + sizeof(int))
#define OPEN_V1 offsetof(struct tsr_open_options, array)
#define READ_V1 (offsetof(struct tsr_read_options, nthreads) + sizeof(int))
#define STREAM_V1 (offsetof(struct tsr_stream_options, prefetch) + sizeof(int))

static int same(const void *a, const void *b, size_t n)
{
	return a && b && memcmp(a, b, n) == 0;
}

static int says(const char *what)
{
	return strstr(tsr_errmsg(), what) != NULL;
}

int main(void)
{
	const char *corpus = getenv("TSR_CORPUS");
	char path[1100];
	snprintf(path, sizeof(path), "%s/fits/u_multi_hdu.fits", corpus ? corpus : "../../shared/corpus");
	const char *paths[2] = {path, path};
	int dev0 = 0;

	/* Old structs whose later fields, past struct_size, hold values that would each change
	 * the result (or fail) if the library read them: a caller built against the old header
	 * owns no such bytes. */
	struct tsr_context_options co = {.struct_size = CTX_V1, .nthreads = 1};
	struct tsr_open_options oo = {.struct_size = OPEN_V1, .hdu = 2, .raw = 0, .array = "x",
				      .level = 7, .hdu_name = "NO SUCH HDU", .hdu_ver = 9,
				      .dtype = "i8"};
	struct tsr_read_options ro = {.struct_size = READ_V1, .nthreads = 1, .decoder = 99,
				      .storage = 99, .devices = &dev0, .ndevices = 1};
	struct tsr_stream_options so = {.struct_size = STREAM_V1, .files_per_batch = 2,
					.prefetch = 1};
	struct tsr_open_options oo_tiny = {.struct_size = sizeof(size_t)};
	struct tsr_read_options ro_tiny = {.struct_size = sizeof(size_t)};
	struct tsr_context_options co_tiny = {.struct_size = sizeof(size_t), .nthreads = 1};
	struct tsr_stream_options so_tiny = {.struct_size = sizeof(size_t), .files_per_batch = 1};

	struct tsr_context *ctx = NULL;
	CHECK_EQ_INT(tsr_context_create(&co_tiny, &ctx), TSR_E_INVALID_ARG);
	CHECK(says("tsr_context_create") && says("first published size"));
	CHECK_EQ_INT(tsr_context_create(&co, &ctx), TSR_OK);
	if (!ctx)
		CHECK_DONE();
	CHECK_EQ_INT(tsr_context_nthreads(ctx), 1);

	/* The reference: HDU 2 (int32, 64 x 128) read with every option at its default. */
	struct tsr_array *a = NULL;
	CHECK_EQ_INT(tsr_open(ctx, path, &oo_tiny, &a), TSR_E_INVALID_ARG);
	CHECK(a == NULL && says("tsr_open") && says("first published size"));
	CHECK_EQ_INT(tsr_open(ctx, path, &oo, &a), TSR_OK);
	if (!a) {
		tsr_context_free(ctx);
		CHECK_DONE();
	}
	struct tsr_array_info in = {.struct_size = sizeof(in)};
	CHECK_EQ_INT(tsr_array_info(a, &in), TSR_OK);
	CHECK_EQ_INT(in.index, 2);
	CHECK_EQ_INT(in.dtype, TSR_INT32);
	const size_t nb = 64 * 128 * 4;
	void *ref = NULL, *got = NULL;
	size_t got_nb = 0;
	int ndim = 0;
	int64_t shape[TSR_MAX_DIM];
	CHECK_EQ_INT(tsr_read_alloc(a, NULL, NULL, &ref, &got_nb, &ndim, shape, NULL), TSR_OK);
	CHECK_EQ_INT(got_nb, nb);
	unsigned char *buf = calloc(2, nb);
	struct tsr_buffer dst = {.data = buf, .nbytes = 2 * nb, .mem = TSR_MEM_HOST};
	struct tsr_buffer one = {.data = buf, .nbytes = nb, .mem = TSR_MEM_HOST};

	/* tsr_read, tsr_read_alloc */
	CHECK_EQ_INT(tsr_read(a, NULL, &one, &ro, NULL), TSR_OK);
	CHECK(same(buf, ref, nb));
	CHECK_EQ_INT(tsr_read(a, NULL, &one, &ro_tiny, NULL), TSR_E_INVALID_ARG);
	CHECK(says("read options") && says("first published size"));
	CHECK_EQ_INT(tsr_read_alloc(a, NULL, &ro, &got, &got_nb, &ndim, shape, NULL), TSR_OK);
	CHECK(got_nb == nb && same(got, ref, nb));
	tsr_free(got);
	got = NULL;
	CHECK_EQ_INT(tsr_read_alloc(a, NULL, &ro_tiny, &got, &got_nb, &ndim, shape, NULL),
		     TSR_E_INVALID_ARG);
	CHECK(got == NULL && says("first published size"));

	/* tsr_read_index, tsr_read_index_alloc: rows 0 and 63, all columns */
	struct tsr_index *ix = NULL;
	CHECK_EQ_INT(tsr_index_parse("[0, 63], :", TSR_INDEX_NUMPY, &ix), TSR_OK);
	if (ix) {
		const size_t row = 128 * 4;
		memset(buf, 0, 2 * nb);
		struct tsr_buffer rows = {.data = buf, .nbytes = 2 * row, .mem = TSR_MEM_HOST};
		CHECK_EQ_INT(tsr_read_index(a, ix, &rows, &ro, NULL), TSR_OK);
		CHECK(same(buf, ref, row) && same(buf + row, (char *)ref + 63 * row, row));
		CHECK_EQ_INT(tsr_read_index(a, ix, &rows, &ro_tiny, NULL), TSR_E_INVALID_ARG);
		CHECK(says("first published size"));
		CHECK_EQ_INT(tsr_read_index_alloc(a, ix, &ro, &got, &got_nb, &ndim, shape, NULL),
			     TSR_OK);
		CHECK(got_nb == 2 * row && same(got, ref, row) &&
		      same((char *)got + row, (char *)ref + 63 * row, row));
		tsr_free(got);
		got = NULL;
		CHECK_EQ_INT(tsr_read_index_alloc(a, ix, &ro_tiny, &got, &got_nb, &ndim, shape, NULL),
			     TSR_E_INVALID_ARG);
		CHECK(got == NULL && says("first published size"));
		tsr_index_free(ix);
	}

	/* tsr_read_batch: the old open options pick HDU 2 in each file; a too-small struct is
	 * refused before any file opens, so even with no files */
	memset(buf, 0, 2 * nb);
	CHECK_EQ_INT(tsr_read_batch(ctx, paths, 2, &oo, NULL, &dst, &ro, NULL), TSR_OK);
	CHECK(same(buf, ref, nb) && same(buf + nb, ref, nb));
	CHECK_EQ_INT(tsr_read_batch(ctx, paths, 0, &oo, NULL, &dst, &ro_tiny, NULL),
		     TSR_E_INVALID_ARG);
	CHECK(says("first published size"));
	CHECK_EQ_INT(tsr_read_batch(ctx, paths, 0, &oo_tiny, NULL, &dst, &ro, NULL),
		     TSR_E_INVALID_ARG);
	CHECK(says("tsr_read_batch") && says("first published size"));

	/* tsr_stream_open, tsr_stream_next: one batch of both files, then the end, which still
	 * refuses what a read refuses */
	struct tsr_stream *s = NULL;
	CHECK_EQ_INT(tsr_stream_open(ctx, paths, 2, &oo, NULL, &so_tiny, &s), TSR_E_INVALID_ARG);
	CHECK(s == NULL && says("tsr_stream_open") && says("first published size"));
	CHECK_EQ_INT(tsr_stream_open(ctx, paths, 2, &oo_tiny, NULL, &so, &s), TSR_E_INVALID_ARG);
	CHECK(s == NULL && says("tsr_stream_open") && says("first published size"));
	CHECK_EQ_INT(tsr_stream_open(ctx, paths, 2, &oo, NULL, &so, &s), TSR_OK);
	if (s) {
		size_t nfiles = 0;
		memset(buf, 0, 2 * nb);
		CHECK_EQ_INT(tsr_stream_next(s, &dst, &ro_tiny, &nfiles, NULL), TSR_E_INVALID_ARG);
		CHECK(nfiles == 0 && says("first published size"));
		CHECK_EQ_INT(tsr_stream_next(s, &dst, &ro, &nfiles, NULL), TSR_OK);
		CHECK_EQ_INT(nfiles, 2);
		CHECK(same(buf, ref, nb) && same(buf + nb, ref, nb));
		CHECK_EQ_INT(tsr_stream_next(s, &dst, &ro_tiny, &nfiles, NULL), TSR_E_INVALID_ARG);
		CHECK_EQ_INT(tsr_stream_next(s, &dst, &ro, &nfiles, NULL), TSR_OK);
		CHECK_EQ_INT(nfiles, 0);
		tsr_stream_free(s);
	}

	/* The split reads need the devices fields, which the oldest struct lacks: each says so
	 * (were the bytes past it read, they would name device 0), and each refuses a struct
	 * below the first published size. */
	CHECK_EQ_INT(tsr_read_devices(a, NULL, &one, &ro, NULL), TSR_E_INVALID_ARG);
	CHECK(says("no CUDA devices"));
	CHECK_EQ_INT(tsr_read_devices(a, NULL, &one, &ro_tiny, NULL), TSR_E_INVALID_ARG);
	CHECK(says("first published size"));
	CHECK_EQ_INT(tsr_read_batch_devices(ctx, paths, 2, &oo, NULL, &dst, &ro, NULL),
		     TSR_E_INVALID_ARG);
	CHECK(says("no CUDA devices"));
	CHECK_EQ_INT(tsr_read_batch_devices(ctx, paths, 2, &oo, NULL, &dst, &ro_tiny, NULL),
		     TSR_E_INVALID_ARG);
	CHECK(says("first published size"));
	CHECK_EQ_INT(tsr_read_batch_devices(ctx, paths, 0, &oo_tiny, NULL, &dst, &ro, NULL),
		     TSR_E_INVALID_ARG);
	CHECK(says("tsr_read_batch_devices") && says("first published size"));
	s = NULL;
	CHECK_EQ_INT(tsr_stream_open(ctx, paths, 2, &oo, NULL, &so, &s), TSR_OK);
	if (s) {
		size_t nfiles = 7;
		CHECK_EQ_INT(tsr_stream_next_devices(s, &dst, &ro, &nfiles, NULL), TSR_E_INVALID_ARG);
		CHECK(nfiles == 0 && says("no CUDA devices"));
		CHECK_EQ_INT(tsr_stream_next_devices(s, &dst, &ro_tiny, &nfiles, NULL),
			     TSR_E_INVALID_ARG);
		CHECK(says("first published size"));
		tsr_stream_free(s);
	}

	free(buf);
	tsr_free(ref);
	tsr_array_free(a);
	tsr_context_free(ctx);
	CHECK_DONE();
}
