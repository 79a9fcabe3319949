/* test_blosc_delta_order.c - a Blosc2 chunk whose DELTA filter is followed on decode by another (python-blosc2's filters=[SHUFFLE, DELTA]) decodes on the CPU to python-blosc2's values, where it was refused ("DELTA followed on decode by filter 1"), and the codec route keeps it off the GPU, whose filter pass undoes DELTA only last; DELTA undone last still goes to the GPU. Files written once by python-blosc2 4.15 (tests/data/blosc2-delta: x = (arange(600, int64).reshape(20, 30) * 7919) % 100003, chunks (20, 30), blocks (5, 30), LZ4). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "codecs/blosc.h"
#include "codecs/route.h"
#include "core/array.h"
#include "io/storage.h"
#include "tessera.h"

static void one(struct tsr_context *ctx, const char *dir, const char *name, int gpu_ok)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	struct tsr_array *a = NULL;
	CHECK_EQ_INT(tsr_open(ctx, path, NULL, &a), TSR_OK);
	if (!a)
		return;
	int64_t got[600], want[600];
	struct tsr_buffer dst = {got, sizeof got, TSR_MEM_HOST, NULL};
	CHECK_EQ_INT(tsr_read(a, NULL, &dst, NULL, NULL), TSR_OK);
	for (int i = 0; i < 600; i++)
		want[i] = (int64_t)i * 7919 % 100003;
	CHECK(memcmp(got, want, sizeof got) == 0);
	/* a section inside block 2 (its DELTA reads block 0) */
	struct tsr_selection sel;
	CHECK_EQ_INT(tsr_selection_parse("11:13,4:9", &sel), TSR_OK);
	int64_t part[10];
	struct tsr_buffer pd = {part, sizeof part, TSR_MEM_HOST, NULL};
	CHECK_EQ_INT(tsr_read(a, &sel, &pd, NULL, NULL), TSR_OK);
	for (int r = 0; r < 2; r++)
		for (int c = 0; c < 5; c++)
			CHECK(part[r * 5 + c] == want[(11 + r) * 30 + 4 + c]);

	/* the route: the chunk's bytes as the CUDA engine would see them */
	struct tsr_chunk_ref ref;
	CHECK_EQ_INT(tsr_storage_posix.chunk_ref(a, 0, 1, &ref), 0);
	struct tsr_source src;
	tsr_source_init(&src, &tsr_storage_posix, a);
	unsigned char *buf = NULL;
	size_t cap = 0;
	const unsigned char *bytes = NULL;
	CHECK_EQ_INT(tsr_storage_fetch(&src, 0, &ref, &buf, &cap, &bytes), 0);
	struct tsr_route rt;
	int codec = -1;
	tsr_route_blosc_ref(bytes, &ref, ~0u, &rt, &codec);
	CHECK_EQ_INT(rt.how, gpu_ok ? TSR_ROUTE_BLOSC : TSR_ROUTE_CPU);
	tsr_source_close(&src);
	free(buf);
	tsr_array_free(a);
}

int main(void)
{
	const char *root = getenv("TSR_SRC");
	char dir[2048];
	snprintf(dir, sizeof(dir), "%s/tests/data/blosc2-delta", root ? root : "..");
	struct tsr_context *ctx = NULL;
	CHECK_EQ_INT(tsr_context_create(NULL, &ctx), TSR_OK);
	one(ctx, dir, "shuffle_delta_i8.b2nd", 0);
	one(ctx, dir, "delta_shuffle_i8.b2nd", 1);
	tsr_context_free(ctx);
	CHECK_DONE();
}
