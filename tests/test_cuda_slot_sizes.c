/* test_cuda_slot_sizes.c - a CUDA read's staging slots hold one chunk per thread where the CPU decodes chunks whole (zstd frames): the layout counts them and tsr_cuda_slot_sizes grows the slot to that, up to TSR_SLOT_CPU_NBYTES; raw chunks the GPU places and small chunks keep the 128 MiB slot. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "write_file.h"
#include "tessera.h"
#include "engine/cuda_layout.h"
#include "plan/plan.h"

#define MIB ((size_t)1 << 20)

/* A Zarr v2 uint16 store of nchunks chunks of chunk elements (compressor: zstd or null). The
 * layout reads only metadata and file sizes: a zstd chunk file holds a few stand-in bytes, a raw
 * one is a sparse file of the chunk's size. */
static void make_store(const char *dir, int nchunks, long long chunk, int zstd)
{
	char path[512], meta[512];
	mkdir(dir, 0755);
	snprintf(meta, sizeof(meta),
		 "{\"zarr_format\":2,\"shape\":[%lld],\"chunks\":[%lld],\"dtype\":\"<u2\","
		 "\"compressor\":%s,\"fill_value\":0,\"order\":\"C\",\"filters\":null}",
		 (long long)nchunks * chunk, chunk, zstd ? "{\"id\":\"zstd\",\"level\":1}" : "null");
	snprintf(path, sizeof(path), "%s/.zarray", dir);
	CHECK_EQ_INT(write_file(path, meta, strlen(meta)), 0);
	for (int c = 0; c < nchunks; c++) {
		snprintf(path, sizeof(path), "%s/%d", dir, c);
		CHECK_EQ_INT(write_file(path, "stand-in", 8), 0);
		if (!zstd)
			CHECK_EQ_INT(truncate(path, (off_t)(2 * chunk)), 0);
	}
}

/* Lays out a whole read of the store on nthreads with decoder (TSR_DECODER_*) and returns the slot size the
 * ring would open with; *n_whole: the chunks counted as decoded whole. */
static size_t slot_for(struct tsr_context *ctx, const char *dir, int nthreads, int decoder,
		       int64_t *n_whole)
{
	struct tsr_array *a = NULL;
	size_t slot = 0, dec = 0;
	*n_whole = -1;
	CHECK_EQ_INT(tsr_open(ctx, dir, NULL, &a), TSR_OK);
	if (!a)
		return 0;
	const struct tsr_desc *d = &a->desc;
	struct tsr_norm_sel ns;
	struct tsr_plan plan;
	CHECK_EQ_INT(tsr_selection_normalize(NULL, d->ndim, d->shape, &ns), TSR_OK);
	CHECK_EQ_INT(tsr_plan_build(d, &ns, &plan), TSR_OK);
	const struct tsr_route_device rdev = {.gpu = 1, .force_cpu = decoder == TSR_DECODER_CPU,
					      .families = ~0u};
	struct tsr_plan_descs *ds = NULL;
	CHECK_EQ_INT(tsr_plan_describe(&plan, a, &tsr_storage_posix, 1, &rdev, &ds), TSR_OK);
	struct tsr_cuda_task *tasks = calloc((size_t)plan.ntasks, sizeof(*tasks));
	if (ds && tasks) {
		struct tsr_cuda_layout L;
		tsr_cuda_layout(a, &plan, ds, decoder, 0, nthreads, tasks, &L);
		*n_whole = L.n_cpu_whole;
		tsr_cuda_slot_sizes(&L, 0, &slot, &dec);
	}
	free(tasks);
	tsr_plan_descs_free(ds);
	tsr_plan_free(&plan);
	tsr_array_free(a);
	return slot;
}

int main(void)
{
	struct tsr_context *ctx = NULL;
	CHECK_EQ_INT(tsr_context_create(NULL, &ctx), TSR_OK);
	char dir[256];
	snprintf(dir, sizeof(dir), "/tmp/tsr_slot_sizes_%d.zarr", (int)getpid());
	const long long c32 = 16LL << 20; /* 32 MiB of uint16 */
	int64_t n = 0;

	/* 64 zstd chunks of 32 MiB: 16 threads want 16 of them in a slot (512 MiB, the cap);
	 * 4 threads 4 (128 MiB); 32 threads still 16 (the cap) */
	make_store(dir, 64, c32, 1);
	CHECK_EQ_INT((int)(slot_for(ctx, dir, 16, TSR_DECODER_CPU, &n) / MIB), 512);
	CHECK_EQ_INT((int)n, 64);
	CHECK_EQ_INT((int)(slot_for(ctx, dir, 4, TSR_DECODER_CPU, &n) / MIB), 128);
	CHECK_EQ_INT((int)(slot_for(ctx, dir, 32, TSR_DECODER_CPU, &n) / MIB), 512);
	remove_store(dir, 64);

	/* 6 of them on 16 threads: all 6 (192 MiB) */
	make_store(dir, 6, c32, 1);
	CHECK_EQ_INT((int)(slot_for(ctx, dir, 16, TSR_DECODER_CPU, &n) / MIB), 192);
	CHECK_EQ_INT((int)n, 6);
	remove_store(dir, 6);

	/* 64 chunks of 4 MiB: 16 fit the 128 MiB slot already */
	make_store(dir, 64, c32 / 8, 1);
	CHECK_EQ_INT((int)(slot_for(ctx, dir, 16, TSR_DECODER_CPU, &n) / MIB), 128);
	CHECK_EQ_INT((int)n, 64);
	remove_store(dir, 64);

	/* raw chunks are staged as stored and placed by the GPU under either decoder (nothing to
	 * decode): nothing counted */
	make_store(dir, 64, c32, 0);
	CHECK_EQ_INT((int)(slot_for(ctx, dir, 16, TSR_DECODER_AUTO, &n) / MIB), 128);
	CHECK_EQ_INT((int)n, 0);
	CHECK_EQ_INT((int)(slot_for(ctx, dir, 16, TSR_DECODER_CPU, &n) / MIB), 128);
	CHECK_EQ_INT((int)n, 0);
	remove_store(dir, 64);

	/* one chunk alone: the slot holds it, in 16 MiB steps, as before */
	make_store(dir, 1, c32 * 2, 1);
	CHECK_EQ_INT((int)(slot_for(ctx, dir, 16, TSR_DECODER_CPU, &n) / MIB), 80);
	CHECK_EQ_INT((int)n, 1);
	remove_store(dir, 1);

	tsr_context_free(ctx);
	CHECK_DONE();
}
