/* test_api.c - the public API's contracts: statuses, per-thread messages, NULL frees, buffer
 * sizes, receipts, thread counts. Reads corpus files. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tessera.h"

static char corpus[1024];

static const char *cpath(const char *name)
{
	static _Thread_local char buf[2048];
	snprintf(buf, sizeof(buf), "%s/fits/%s", corpus, name);
	return buf;
}

static void *thread_error(void *arg)
{
	struct tsr_context *ctx = arg;
	struct tsr_array *a = NULL;
	int st = tsr_open(ctx, cpath("does-not-exist.fits"), NULL, &a);
	int ok = st == TSR_E_NOT_FOUND && strstr(tsr_errmsg(), "does-not-exist") != NULL;
	return (void *)(intptr_t)ok;
}

int main(void)
{
	const char *env = getenv("TSR_CORPUS");
	snprintf(corpus, sizeof(corpus), "%s", env ? env : "../../shared/corpus");

	/* Status strings come from one list. */
	CHECK(strcmp(tsr_strerror(TSR_OK), "success") == 0);
	CHECK(strcmp(tsr_status_name(TSR_E_CORRUPT), "TSR_E_CORRUPT") == 0);
	for (int s = 0; s >= -12; s--)
		CHECK(strcmp(tsr_strerror(s), "unknown status") != 0);
	CHECK(strcmp(tsr_strerror(-999), "unknown status") == 0);
	CHECK(strcmp(tsr_version(), TSR_VERSION_STRING) == 0);
	CHECK_EQ_INT(tsr_dtype_size(TSR_FLOAT64), 8);
	CHECK(strcmp(tsr_dtype_npy_descr(TSR_UINT16), "<u2") == 0);

	/* Frees accept NULL. */
	tsr_context_free(NULL);
	tsr_array_free(NULL);
	tsr_free(NULL);

	CHECK_EQ_INT(tsr_context_create(NULL, NULL), TSR_E_INVALID_ARG);
	struct tsr_context_options bad = {sizeof(bad), -3};
	struct tsr_context *ctx = NULL;
	CHECK_EQ_INT(tsr_context_create(&bad, &ctx), TSR_E_INVALID_ARG);
	struct tsr_context_options co = {sizeof(co), 3};
	CHECK_EQ_INT(tsr_context_create(&co, &ctx), TSR_OK);
	CHECK_EQ_INT(tsr_context_nthreads(ctx), 3);

	/* Messages are per thread: a failure on another thread leaves ours alone. */
	struct tsr_array *a = NULL;
	CHECK_EQ_INT(tsr_open(ctx, cpath("u_multi_hdu.fits"), &(struct tsr_open_options){sizeof(struct tsr_open_options), 42, 0, NULL, 0, NULL, 0}, &a), TSR_E_RANGE);
	CHECK(a == NULL);
	char mine[1024];
	snprintf(mine, sizeof(mine), "%s", tsr_errmsg());
	CHECK(strstr(mine, "HDU 42") != NULL);
	pthread_t th;
	void *ok = NULL;
	pthread_create(&th, NULL, thread_error, ctx);
	pthread_join(th, &ok);
	CHECK(ok == (void *)1);
	CHECK(strcmp(mine, tsr_errmsg()) == 0);

	/* Info, then reads into caller buffers and library buffers. */
	CHECK_EQ_INT(tsr_open(ctx, cpath("c_rice_i16_tiles.fits"), NULL, &a), TSR_OK);
	struct tsr_array_info info = {.struct_size = sizeof(info)};
	CHECK_EQ_INT(tsr_array_info(a, &info), TSR_OK);
	CHECK_EQ_INT(info.index, 1);
	CHECK_EQ_INT(info.dtype, TSR_INT16);
	CHECK_EQ_INT(info.ndim, 2);
	CHECK_EQ_INT(info.shape[0], 200);
	CHECK_EQ_INT(info.shape[1], 300);
	CHECK_EQ_INT(info.chunk_shape[0], 48);
	CHECK_EQ_INT(info.chunk_shape[1], 64);
	CHECK_EQ_INT(info.nchunks, 5 * 5);
	CHECK(strcmp(info.codec, "RICE_1") == 0);

	size_t n = 200 * 300 * 2;
	int16_t *buf = malloc(n), *buf2 = NULL;
	struct tsr_buffer dst = {buf, n - 1, TSR_MEM_HOST, NULL};
	CHECK_EQ_INT(tsr_read(a, NULL, &dst, NULL, NULL), TSR_E_TOO_SMALL);
	dst.nbytes = n;
	struct tsr_buffer cuda = {buf, n, TSR_MEM_CUDA, NULL};
	CHECK_EQ_INT(tsr_read(a, NULL, &cuda, NULL, NULL), TSR_E_NO_DEVICE);
	struct tsr_receipt r = {.struct_size = sizeof(r)};
	CHECK_EQ_INT(tsr_read(a, NULL, &dst, NULL, &r), TSR_OK);
	CHECK(strcmp(r.driver, "fits") == 0 && strcmp(r.engine, "cpu") == 0);
	CHECK(strcmp(r.codec, "RICE_1") == 0);
	CHECK_EQ_INT(r.chunks_read, 25);
	CHECK_EQ_INT(r.bytes_out, n);
	CHECK_EQ_INT(r.bytes_decoded, n);
	CHECK(r.bytes_read > 0 && r.bytes_read < n);
	CHECK(r.t_total > 0 && r.nthreads >= 1 && r.nthreads <= 3);

	/* A section through the same data matches the whole read; only touched tiles are read. */
	struct tsr_selection sel;
	CHECK_EQ_INT(tsr_selection_parse("40:50, 60:65", &sel), TSR_OK);
	int ndim = 0;
	int64_t shape[TSR_MAX_DIM];
	size_t nb = 0;
	struct tsr_read_options ro = {.struct_size = sizeof(ro), .nthreads = 1};
	CHECK_EQ_INT(tsr_read_alloc(a, &sel, &ro, (void **)&buf2, &nb, &ndim, shape, &r), TSR_OK);
	CHECK_EQ_INT(ndim, 2);
	CHECK_EQ_INT(shape[0], 10);
	CHECK_EQ_INT(shape[1], 5);
	CHECK_EQ_INT(nb, 100);
	CHECK_EQ_INT(r.chunks_read, 4); /* rows 40-49 and columns 60-64 straddle 48x64 tiles */
	CHECK_EQ_INT(r.nthreads, 1);
	for (int i = 0; i < 10 && buf2; i++)
		for (int j = 0; j < 5; j++)
			CHECK_EQ_INT(buf2[i * 5 + j], buf[(40 + i) * 300 + 60 + j]);
	tsr_free(buf2);
	CHECK_EQ_INT(tsr_selection_shape(a, &sel, &ndim, shape), TSR_OK);
	CHECK_EQ_INT(shape[0], 10);

	/* A selection error names the file and HDU. */
	CHECK_EQ_INT(tsr_selection_parse("0,0,0", &sel), TSR_OK);
	CHECK_EQ_INT(tsr_read(a, &sel, &dst, NULL, NULL), TSR_E_SELECTION);
	CHECK(strstr(tsr_errmsg(), "c_rice_i16_tiles.fits: HDU 1") != NULL);
	tsr_array_free(a);

	/* Raw mode returns stored values: BZERO unsigned data come back as int16. */
	struct tsr_open_options raw = {sizeof(raw), 0, 1, NULL, 0, NULL, 0};
	CHECK_EQ_INT(tsr_open(ctx, cpath("u_u16_bzero.fits"), &raw, &a), TSR_OK);
	CHECK_EQ_INT(tsr_array_info(a, &info), TSR_OK);
	CHECK_EQ_INT(info.dtype, TSR_INT16);
	tsr_array_free(a);
	CHECK_EQ_INT(tsr_open(ctx, cpath("u_u16_bzero.fits"), NULL, &a), TSR_OK);
	CHECK_EQ_INT(tsr_array_info(a, &info), TSR_OK);
	CHECK_EQ_INT(info.dtype, TSR_UINT16);
	tsr_array_free(a);

	/* The CFITSIO fallback is named in the receipt. */
	CHECK_EQ_INT(tsr_open(ctx, cpath("fp_hcomp_i16.fits.fz"), NULL, &a), TSR_OK);
	void *p = NULL;
	CHECK_EQ_INT(tsr_read_alloc(a, NULL, NULL, &p, &nb, &ndim, shape, &r), TSR_OK);
	CHECK(strcmp(r.reader, "cfitsio") == 0 && strstr(r.fallback, "HCOMPRESS_1") != NULL);
	tsr_free(p);
	tsr_array_free(a);

	free(buf);
	tsr_context_free(ctx);
	CHECK_DONE();
}
