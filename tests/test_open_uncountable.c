/* test_open_uncountable.c - an array of more elements than int64 counts (a Zarr array of
 * shape (2^22)^3, 2^66 elements) is refused at open with TSR_E_UNSUPPORTED naming the file:
 * it opened, then every selection, even 0:2,0:2,0:2, failed with TSR_E_INVALID_ARG. An array
 * of 2^62 elements still opens and reads a small selection (its fill value). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "tessera.h"
#include "write_file.h"

static void store(const char *dir, long long side)
{
	char path[256], doc[512];
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/.zarray", dir);
	snprintf(doc, sizeof(doc), "{\"zarr_format\": 2, \"shape\": [%lld, %lld, %lld], "
		 "\"chunks\": [1024, 1024, 1024], \"dtype\": \"<f8\", \"compressor\": null, "
		 "\"fill_value\": 1.5, \"filters\": null, \"order\": \"C\"}", side, side, side);
	CHECK_EQ_INT(write_file(path, doc, strlen(doc)), 0);
}

static void unstore(const char *dir)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/.zarray", dir);
	remove(path);
	rmdir(dir);
}

int main(void)
{
	char big[] = "/tmp/tsr_uncountXXXXXX", ok[] = "/tmp/tsr_countXXXXXX";
	CHECK(mkdtemp(big) && mkdtemp(ok));
	store(big, 1LL << 22);
	store(ok, 1LL << 20); /* 2^60 elements */
	struct tsr_context *ctx = NULL;
	CHECK_EQ_INT(tsr_context_create(NULL, &ctx), TSR_OK);
	struct tsr_array *a = NULL;
	CHECK_EQ_INT(tsr_open(ctx, big, NULL, &a), TSR_E_UNSUPPORTED);
	CHECK(a == NULL && strstr(tsr_errmsg(), big) && strstr(tsr_errmsg(), "more than INT64_MAX elements"));

	CHECK_EQ_INT(tsr_open(ctx, ok, NULL, &a), TSR_OK);
	struct tsr_selection sel;
	CHECK_EQ_INT(tsr_selection_parse("0:2,0:2,0:2", &sel), TSR_OK);
	double v[8] = {0};
	struct tsr_buffer dst = {v, sizeof(v), TSR_MEM_HOST, NULL};
	CHECK_EQ_INT(tsr_read(a, &sel, &dst, NULL, NULL), TSR_OK);
	CHECK(v[0] == 1.5 && v[7] == 1.5);
	tsr_array_free(a);
	tsr_context_free(ctx);
	unstore(big);
	unstore(ok);
	CHECK_DONE();
}
