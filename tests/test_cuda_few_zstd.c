/* test_cuda_few_zstd.c - decoder auto sends a read of few large streams to the CPU's threads when one warp decodes a whole stream (gzip), but weighs a zstd frame a block (128 KiB) at a time, since the GPU decodes a frame's blocks side by side: large zstd frames stay on the GPU unless the read is smaller than the threads' share of blocks. */
#include <stdio.h>
#include <unistd.h>

#include "check.h"
#include "write_file.h"
#include "cuda_layout_read.h"
#include "tessera.h"
#include "codecs/route.h"
#include "engine/cuda_layout.h"

#define GZIP "{\"id\":\"gzip\",\"level\":1}"
#define ZSTD "{\"id\":\"zstd\",\"level\":1}"

/* Lays out a whole read of a fresh store (nchunks chunks of chunk uint16 elements, compressor)
 * with decoder auto on nthreads: *gpu the streams left to the GPU, *few those sent to the CPU
 * for being too few. 0, or -1. */
static int lay(struct tsr_context *ctx, const char *dir, int nchunks, long long chunk,
	       const char *compressor, int nthreads, int64_t *gpu, int64_t *few)
{
	struct layout_read lr;
	*gpu = *few = -1;
	int rc = make_u16_store_with(dir, nchunks, chunk, compressor);
	CHECK_EQ_INT(rc, 0);
	if (rc == 0 && layout_read(ctx, dir, nthreads, TSR_DECODER_AUTO, &lr) == 0) {
		*gpu = lr.L.n_stream;
		*few = lr.L.n_cpu[TSR_WHY_FEW];
	}
	layout_read_free(&lr);
	remove_store(dir, nchunks);
	return *gpu < 0 ? -1 : 0;
}

int main(void)
{
	struct tsr_context *ctx = NULL;
	CHECK_EQ_INT(tsr_context_create(NULL, &ctx), TSR_OK);
	char dir[256];
	snprintf(dir, sizeof(dir), "/tmp/tsr_few_zstd_%d.zarr", (int)getpid());
	const long long m16 = 8LL << 20; /* 16 MiB of uint16 */
	int64_t gpu, few;

	/* 16 gzip chunks of 16 MiB on 16 threads: one warp a chunk outlasts the threads decoding
	 * all 256 MiB (16 MiB x 40 x 16 > 256 MiB), so the CPU decodes them */
	CHECK_EQ_INT(lay(ctx, dir, 16, m16, GZIP, 16, &gpu, &few), 0);
	CHECK_EQ_INT((int)gpu, 0);
	CHECK_EQ_INT((int)few, 16);

	/* the same as zstd frames: a block's 128 KiB x 40 x 16 (80 MiB) is under 256 MiB, so
	 * the GPU decodes them */
	CHECK_EQ_INT(lay(ctx, dir, 16, m16, ZSTD, 16, &gpu, &few), 0);
	CHECK_EQ_INT((int)gpu, 16);
	CHECK_EQ_INT((int)few, 0);

	/* 4 of them (64 MiB, under 80 MiB) go to the CPU; on 4 threads (20 MiB) to the GPU */
	CHECK_EQ_INT(lay(ctx, dir, 4, m16, ZSTD, 16, &gpu, &few), 0);
	CHECK_EQ_INT((int)gpu, 0);
	CHECK_EQ_INT((int)few, 4);
	CHECK_EQ_INT(lay(ctx, dir, 4, m16, ZSTD, 4, &gpu, &few), 0);
	CHECK_EQ_INT((int)gpu, 4);
	CHECK_EQ_INT((int)few, 0);

	/* frames of one block or less weigh their own size: 600 of 64 KiB (37.5 MiB) against
	 * 64 KiB x 40 x 16 (40 MiB) go to the CPU, 700 (43.75 MiB) to the GPU */
	CHECK_EQ_INT(lay(ctx, dir, 600, 32 << 10, ZSTD, 16, &gpu, &few), 0);
	CHECK_EQ_INT((int)few, 600);
	CHECK_EQ_INT(lay(ctx, dir, 700, 32 << 10, ZSTD, 16, &gpu, &few), 0);
	CHECK_EQ_INT((int)gpu, 700);

	/* the serial bytes themselves: zstd capped at a block, every other family not */
	CHECK_EQ_INT((int)(tsr_route_serial_bytes(TSR_FAM_ZSTD * TSR_VARIANTS, 1 << 20) >> 10), 128);
	CHECK_EQ_INT((int)(tsr_route_serial_bytes(TSR_FAM_ZSTD * TSR_VARIANTS, 1000)), 1000);
	CHECK_EQ_INT((int)(tsr_route_serial_bytes(TSR_FAM_INFLATE * TSR_VARIANTS, 1 << 20) >> 10),
		     1024);

	tsr_context_free(ctx);
	CHECK_DONE();
}
