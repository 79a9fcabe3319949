/* test_open_dtype.c - tsr_open_options.dtype: plain Blosc2 super-chunks (no dtype stored) read as
 * the caller names them or as unsigned integers of their item size; any other array's values
 * reinterpreted at equal size; sizes checked; older struct sizes keep working. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "tessera.h"

static char corpus[1024];

/* Each call's path lives in its own slot, so that several may be held at once. */
static const char *cpath(const char *name)
{
	static char buf[4][2048];
	static int next;
	char *p = buf[next++ % 4];
	snprintf(p, sizeof(buf[0]), "%s/%s", corpus, name);
	return p;
}

/* Opens path with dtype (NULL: none); returns the status, fills *info on success. */
static int open_as(struct tsr_context *ctx, const char *path, const char *dtype,
		   struct tsr_array_info *info, struct tsr_array **a_ret)
{
	struct tsr_open_options oo = {.struct_size = sizeof(oo), .hdu = -1, .level = -1,
				      .dtype = dtype};
	struct tsr_array *a = NULL;
	int st = tsr_open(ctx, path, &oo, &a);
	if (st == TSR_OK) {
		info->struct_size = sizeof(*info);
		CHECK_EQ_INT(tsr_array_info(a, info), TSR_OK);
	}
	if (a_ret)
		*a_ret = a;
	else
		tsr_array_free(a);
	return st;
}

int main(void)
{
	const char *env = getenv("TSR_CORPUS");
	snprintf(corpus, sizeof(corpus), "%s", env ? env : "../../shared/corpus");
	struct tsr_context *ctx;
	struct tsr_context_options co = {sizeof(co), 1};
	CHECK_EQ_INT(tsr_context_create(&co, &ctx), TSR_OK);
	struct tsr_array_info in;
	const char *sc = cpath("blosc2/schunk_zstd_delta_i8.b2frame");

	/* no dtype named: unsigned items of the item size, and info says so */
	CHECK_EQ_INT(open_as(ctx, sc, NULL, &in, NULL), TSR_OK);
	CHECK_EQ_INT(in.dtype, TSR_UINT64);
	CHECK(strcmp(in.dtype_source, "itemsize") == 0);
	/* named, in any NumPy spelling of that size */
	const char *eight[] = {"<i8", "i8", "int64", "=i8", "|i8"};
	for (size_t i = 0; i < sizeof(eight) / sizeof(eight[0]); i++) {
		CHECK_EQ_INT(open_as(ctx, sc, eight[i], &in, NULL), TSR_OK);
		CHECK_EQ_INT(in.dtype, TSR_INT64);
		CHECK(strcmp(in.dtype_source, "caller") == 0);
	}
	CHECK_EQ_INT(open_as(ctx, sc, "float64", &in, NULL), TSR_OK);
	CHECK_EQ_INT(in.dtype, TSR_FLOAT64);
	/* another size, or no dtype at all: a clear error naming both sizes */
	CHECK_EQ_INT(open_as(ctx, sc, "<f4", &in, NULL), TSR_E_INVALID_ARG);
	CHECK(strstr(tsr_errmsg(), "8-byte items") && strstr(tsr_errmsg(), "4-byte items") &&
	      strstr(tsr_errmsg(), "schunk_zstd_delta_i8"));
	CHECK_EQ_INT(open_as(ctx, sc, "f5", &in, NULL), TSR_E_INVALID_ARG);
	CHECK(strstr(tsr_errmsg(), "'f5'") != NULL);

	/* the values: int64 named, the same bytes as the unnamed uint64 read */
	struct tsr_array *a1, *a2;
	void *d1 = NULL, *d2 = NULL;
	size_t n1 = 0, n2 = 0;
	int nd;
	int64_t shape[TSR_MAX_DIM];
	CHECK_EQ_INT(open_as(ctx, sc, NULL, &in, &a1), TSR_OK);
	CHECK_EQ_INT(open_as(ctx, sc, "<i8", &in, &a2), TSR_OK);
	CHECK_EQ_INT(tsr_read_alloc(a1, NULL, NULL, &d1, &n1, &nd, shape, NULL), TSR_OK);
	CHECK_EQ_INT(tsr_read_alloc(a2, NULL, NULL, &d2, &n2, &nd, shape, NULL), TSR_OK);
	CHECK(n1 == n2 && n1 == 30000 * 8 && d1 && d2 && memcmp(d1, d2, n1) == 0);
	tsr_free(d1);
	tsr_free(d2);
	tsr_array_free(a1);
	tsr_array_free(a2);

	/* an array whose file names its dtype: the values viewed at equal size */
	const char *f4 = cpath("blosc2/lz4_shuffle_f4_3d.b2nd");
	CHECK_EQ_INT(open_as(ctx, f4, NULL, &in, NULL), TSR_OK);
	CHECK_EQ_INT(in.dtype, TSR_FLOAT32);
	CHECK(strcmp(in.dtype_source, "file") == 0);
	CHECK_EQ_INT(open_as(ctx, f4, "uint32", &in, NULL), TSR_OK);
	CHECK_EQ_INT(in.dtype, TSR_UINT32);
	CHECK(strcmp(in.dtype_source, "caller") == 0);
	CHECK_EQ_INT(open_as(ctx, f4, "<f8", &in, NULL), TSR_E_INVALID_ARG);
	/* values come back in native order: a big-endian view is refused */
	CHECK_EQ_INT(open_as(ctx, f4, ">i4", &in, NULL), TSR_E_UNSUPPORTED);

	/* callers built before the fields existed: shorter structs still work */
	struct tsr_open_options old = {.struct_size = offsetof(struct tsr_open_options, dtype),
				       .hdu = -1, .level = -1,
				       .dtype = "garbage that must not be read"};
	struct tsr_array *a = NULL;
	CHECK_EQ_INT(tsr_open(ctx, sc, &old, &a), TSR_OK);
	struct tsr_array_info small;
	memset(&small, 0xab, sizeof(small));
	small.struct_size = offsetof(struct tsr_array_info, dtype_source);
	CHECK_EQ_INT(tsr_array_info(a, &small), TSR_OK);
	CHECK_EQ_INT(small.dtype, TSR_UINT64);
	/* the field past the caller's struct is left alone */
	const char *untouched;
	memset(&untouched, 0xab, sizeof(untouched));
	CHECK(memcmp(&small.dtype_source, &untouched, sizeof(untouched)) == 0);
	tsr_array_free(a);

	tsr_context_free(ctx);
	CHECK_DONE();
}
