/* test_dtype_descr.c - the C API carries dtypes beyond numbers: a Zarr store of fixed-length
 * bytes, one of datetime64, one structured (written here) give their raw or datetime dtype, the
 * element size, the exact NumPy descr in tsr_array_info (also to callers of the older, shorter
 * struct, without writing past it), their values and fill values; device reads of raw dtypes are
 * refused before any memory is touched. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "tessera.h"

static void put(const char *dir, const char *name, const void *p, size_t n)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f) {
		perror(path);
		exit(1);
	}
	fwrite(p, 1, n, f);
	fclose(f);
}

static struct tsr_array *open_store(struct tsr_context *ctx, const char *dir, const char *meta)
{
	struct tsr_array *a = NULL;
	put(dir, ".zarray", meta, strlen(meta));
	int st = tsr_open(ctx, dir, NULL, &a);
	if (st)
		fprintf(stderr, "%s: %s\n", dir, tsr_errmsg());
	CHECK_EQ_INT(st, TSR_OK);
	return a;
}

int main(void)
{
	struct tsr_context *ctx;
	struct tsr_context_options co = {sizeof(co), 2};
	CHECK_EQ_INT(tsr_context_create(&co, &ctx), TSR_OK);
	char base[] = "/tmp/tsr_dtype_descr_XXXXXX";
	if (!mkdtemp(base))
		return 1;
	char dir[600];

	/* |S5, 4 elements in chunks of 2: chunk 0 written, chunk 1 missing (fill "ab" in base64) */
	snprintf(dir, sizeof(dir), "%s/s5.zarr", base);
	mkdir(dir, 0755);
	put(dir, "0", "hello\0\0\0\0\0", 10);
	struct tsr_array *a = open_store(ctx, dir, "{\"zarr_format\": 2, \"shape\": [4], \"chunks\": "
					 "[2], \"dtype\": \"|S5\", \"fill_value\": \"YWI=\", \"order\": "
					 "\"C\", \"compressor\": null, \"filters\": null}");
	if (a) {
		struct tsr_array_info in = {.struct_size = sizeof(in)};
		CHECK_EQ_INT(tsr_array_info(a, &in), TSR_OK);
		CHECK(in.dtype == TSR_DTYPE_RAW_OF(5));
		CHECK_EQ_INT(tsr_dtype_size(in.dtype), 5);
		CHECK(strcmp(tsr_dtype_name(in.dtype), "raw") == 0);
		CHECK(in.descr && strcmp(in.descr, "|S5") == 0);
		/* a caller built before descr existed: accepted, nothing written past its struct */
		unsigned char old[sizeof(struct tsr_array_info)];
		memset(old, 0xA5, sizeof(old));
		struct tsr_array_info *po = (struct tsr_array_info *)old;
		po->struct_size = offsetof(struct tsr_array_info, descr);
		CHECK_EQ_INT(tsr_array_info(a, po), TSR_OK);
		CHECK_EQ_INT(po->ndim, 1);
		for (size_t i = offsetof(struct tsr_array_info, descr); i < sizeof(old); i++)
			CHECK(old[i] == 0xA5);
		void *data = NULL;
		size_t nbytes = 0;
		int ndim;
		int64_t shape[TSR_MAX_DIM];
		CHECK_EQ_INT(tsr_read_alloc(a, NULL, NULL, &data, &nbytes, &ndim, shape, NULL), TSR_OK);
		CHECK_EQ_INT(nbytes, 20);
		CHECK(data && memcmp(data, "hello\0\0\0\0\0ab\0\0\0ab\0\0\0", 20) == 0);
		tsr_free(data);
		/* device reads of raw elements: refused, the destination untouched */
		char dev[20];
		struct tsr_buffer dst = {dev, sizeof(dev), TSR_MEM_CUDA, NULL};
		CHECK_EQ_INT(tsr_read(a, NULL, &dst, NULL, NULL), TSR_E_UNSUPPORTED);
		CHECK(strstr(tsr_errmsg(), "|S5") != NULL);
		tsr_array_free(a);
	}

	/* >M8[ms], big-endian counts read as native; fill null is NaT */
	snprintf(dir, sizeof(dir), "%s/m8.zarr", base);
	mkdir(dir, 0755);
	unsigned char be[16] = {0, 0, 0, 0, 0, 0, 0, 7, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe};
	put(dir, "0", be, 16);
	a = open_store(ctx, dir, "{\"zarr_format\": 2, \"shape\": [3], \"chunks\": [2], \"dtype\": "
		       "\">M8[ms]\", \"fill_value\": null, \"order\": \"C\", \"compressor\": null, "
		       "\"filters\": null}");
	if (a) {
		struct tsr_array_info in = {.struct_size = sizeof(in)};
		CHECK_EQ_INT(tsr_array_info(a, &in), TSR_OK);
		CHECK(in.dtype == TSR_DATETIME64);
		CHECK(strcmp(in.descr, "<M8[ms]") == 0);
		CHECK(strcmp(tsr_dtype_name(in.dtype), "datetime64") == 0);
		int64_t v[3];
		struct tsr_buffer dst = {v, sizeof(v), TSR_MEM_HOST, NULL};
		CHECK_EQ_INT(tsr_read(a, NULL, &dst, NULL, NULL), TSR_OK);
		CHECK_EQ_INT(v[0], 7);
		CHECK_EQ_INT(v[1], -2);
		CHECK(v[2] == INT64_MIN);
		tsr_array_free(a);
	}

	/* a structured dtype with a subarray field: its descr as NumPy writes it in NPY */
	snprintf(dir, sizeof(dir), "%s/st.zarr", base);
	mkdir(dir, 0755);
	a = open_store(ctx, dir, "{\"zarr_format\": 2, \"shape\": [2], \"chunks\": [2], \"dtype\": "
		       "[[\"a\", \"<i4\"], [\"b\", \">f8\", [2]], [\"c\", \"<U1\"]], \"fill_value\": null, "
		       "\"order\": \"C\", \"compressor\": null, \"filters\": null}");
	if (a) {
		struct tsr_array_info in = {.struct_size = sizeof(in)};
		CHECK_EQ_INT(tsr_array_info(a, &in), TSR_OK);
		CHECK(in.dtype == TSR_DTYPE_RAW_OF(24));
		CHECK(strcmp(in.descr, "[('a', '<i4'), ('b', '>f8', (2,)), ('c', '<U1')]") == 0);
		tsr_array_free(a);
	}

	/* variable-length strings: a clear error */
	snprintf(dir, sizeof(dir), "%s/vlen.zarr", base);
	mkdir(dir, 0755);
	const char *vlen = "{\"zarr_format\": 2, \"shape\": [2], \"chunks\": [2], \"dtype\": "
			   "\"|O\", \"fill_value\": null, \"order\": \"C\", \"compressor\": null, "
			   "\"filters\": [{\"id\": \"vlen-utf8\"}]}";
	put(dir, ".zarray", vlen, strlen(vlen));
	a = NULL;
	CHECK_EQ_INT(tsr_open(ctx, dir, NULL, &a), TSR_E_UNSUPPORTED);
	CHECK(strstr(tsr_errmsg(), "variable-length") != NULL);

	char cmd[700];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", base);
	tsr_context_free(ctx);
	CHECK_DONE();
}
