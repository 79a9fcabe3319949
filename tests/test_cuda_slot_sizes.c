/* test_cuda_slot_sizes.c - a CUDA read's staging slots hold one chunk per thread where the CPU decodes chunks whole (zstd frames): the layout counts them and tsr_cuda_slot_sizes grows the slot to that, up to TSR_SLOT_CPU_NBYTES; raw chunks the GPU places and small chunks keep the 128 MiB slot. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "write_file.h"
#include "cuda_layout_read.h"
#include "tessera.h"
#include "engine/cuda_layout.h"
#include "plan/plan.h"

#define MIB ((size_t)1 << 20)

/* Lays out a whole read of the store on nthreads with decoder (TSR_DECODER_*) and returns the slot size the
 * ring would open with; *n_whole: the chunks counted as decoded whole. */
static size_t slot_for(struct tsr_context *ctx, const char *dir, int nthreads, int decoder,
		       int64_t *n_whole)
{
	struct layout_read lr;
	size_t slot = 0, dec = 0;
	*n_whole = -1;
	if (layout_read(ctx, dir, nthreads, decoder, &lr) == 0) {
		*n_whole = lr.L.n_cpu_whole;
		tsr_cuda_slot_sizes(&lr.L, 0, &slot, &dec);
	}
	layout_read_free(&lr);
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
	CHECK_EQ_INT(make_u16_store(dir, 64, c32, 1), 0);
	CHECK_EQ_INT((int)(slot_for(ctx, dir, 16, TSR_DECODER_CPU, &n) / MIB), 512);
	CHECK_EQ_INT((int)n, 64);
	CHECK_EQ_INT((int)(slot_for(ctx, dir, 4, TSR_DECODER_CPU, &n) / MIB), 128);
	CHECK_EQ_INT((int)(slot_for(ctx, dir, 32, TSR_DECODER_CPU, &n) / MIB), 512);
	remove_store(dir, 64);

	/* 6 of them on 16 threads: all 6 (192 MiB) */
	CHECK_EQ_INT(make_u16_store(dir, 6, c32, 1), 0);
	CHECK_EQ_INT((int)(slot_for(ctx, dir, 16, TSR_DECODER_CPU, &n) / MIB), 192);
	CHECK_EQ_INT((int)n, 6);
	remove_store(dir, 6);

	/* 64 chunks of 4 MiB: 16 fit the 128 MiB slot already */
	CHECK_EQ_INT(make_u16_store(dir, 64, c32 / 8, 1), 0);
	CHECK_EQ_INT((int)(slot_for(ctx, dir, 16, TSR_DECODER_CPU, &n) / MIB), 128);
	CHECK_EQ_INT((int)n, 64);
	remove_store(dir, 64);

	/* raw chunks are staged as stored and placed by the GPU under either decoder (nothing to
	 * decode): nothing counted */
	CHECK_EQ_INT(make_u16_store(dir, 64, c32, 0), 0);
	CHECK_EQ_INT((int)(slot_for(ctx, dir, 16, TSR_DECODER_AUTO, &n) / MIB), 128);
	CHECK_EQ_INT((int)n, 0);
	CHECK_EQ_INT((int)(slot_for(ctx, dir, 16, TSR_DECODER_CPU, &n) / MIB), 128);
	CHECK_EQ_INT((int)n, 0);
	remove_store(dir, 64);

	/* one chunk alone: the slot holds it, in 16 MiB steps, as before */
	CHECK_EQ_INT(make_u16_store(dir, 1, c32 * 2, 1), 0);
	CHECK_EQ_INT((int)(slot_for(ctx, dir, 16, TSR_DECODER_CPU, &n) / MIB), 80);
	CHECK_EQ_INT((int)n, 1);
	remove_store(dir, 1);

	tsr_context_free(ctx);
	CHECK_DONE();
}
