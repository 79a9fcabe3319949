/* test_cuda_portion.c - a lone large read the GPU makes every value of goes to the GPU in at least TSR_READ_PORTIONS slots (tsr_cuda_portion), each of at least TSR_PORTION_MIN_NBYTES and one whole chunk, where full slots would have taken fewer; a small read keeps one slot, and a read the CPU decodes keeps full slots. */
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

/* Lays a whole read of the store into slots of the ring's full size, as a lone CUDA read does
 * (portion: capped by tsr_cuda_portion; 0: full slots), and returns how many slots it takes;
 * *most: the most chunks one slot held. */
static int slots_for(struct tsr_context *ctx, const char *dir, int decoder, int portion, int *most)
{
	struct layout_read lr;
	int nslots = 0;
	*most = 0;
	int ok = layout_read(ctx, dir, 16, decoder, &lr) == 0;
	for (int64_t t0 = 0; ok && t0 < lr.plan.ntasks && nslots < 1000; nslots++) {
		struct tsr_cuda_fill f = {.nbytes = TSR_SLOT_CPU_NBYTES, .dec_nbytes = TSR_DEC_NBYTES};
		if (portion)
			tsr_cuda_portion(&lr.L, &f);
		int64_t t1 = tsr_cuda_fill_slot(&lr.plan, lr.tasks, lr.plan.ntasks, t0, NULL, &f);
		CHECK(t1 > t0); /* a fresh slot holds at least one chunk */
		if (t1 <= t0)
			break;
		*most = (int)(t1 - t0) > *most ? (int)(t1 - t0) : *most;
		t0 = t1;
	}
	layout_read_free(&lr);
	return nslots;
}

int main(void)
{
	CHECK_EQ_INT(TSR_READ_PORTIONS, 4); /* (the cases below count for 4) */
	struct tsr_context *ctx = NULL;
	CHECK_EQ_INT(tsr_context_create(NULL, &ctx), TSR_OK);
	char dir[256];
	snprintf(dir, sizeof(dir), "/tmp/tsr_portion_%d.zarr", (int)getpid());
	int most = 0;

	/* 16 raw chunks of 32 MiB (the GPU places them): full 512 MiB slots take 16 in one, the
	 * portions 4 slots of 4 */
	CHECK_EQ_INT(make_u16_store(dir, 16, 16LL << 20, 0), 0);
	CHECK_EQ_INT(slots_for(ctx, dir, TSR_DECODER_AUTO, 0, &most), 1);
	CHECK_EQ_INT(slots_for(ctx, dir, TSR_DECODER_AUTO, 1, &most), 4);
	CHECK_EQ_INT(most, 4);
	remove_store(dir, 16);

	/* 3 chunks of 64 MiB: a slot holds one whole chunk at least, so 3 slots, not 4 */
	CHECK_EQ_INT(make_u16_store(dir, 3, 32LL << 20, 0), 0);
	CHECK_EQ_INT(slots_for(ctx, dir, TSR_DECODER_AUTO, 1, &most), 3);
	CHECK_EQ_INT(most, 1);
	remove_store(dir, 3);

	/* 64 chunks of 256 KiB (16 MiB): a slot is not cut below TSR_PORTION_MIN_NBYTES, so one */
	CHECK_EQ_INT(make_u16_store(dir, 64, 128LL << 10, 0), 0);
	CHECK_EQ_INT(slots_for(ctx, dir, TSR_DECODER_AUTO, 1, &most), 1);
	CHECK_EQ_INT(most, 64);
	remove_store(dir, 64);

	/* 40 chunks of 1 MiB (40 MiB): slots of 16 MiB at least, so 3 */
	CHECK_EQ_INT(make_u16_store(dir, 40, 512LL << 10, 0), 0);
	CHECK_EQ_INT(slots_for(ctx, dir, TSR_DECODER_AUTO, 1, &most), 3);
	remove_store(dir, 40);

	/* zstd chunks the CPU decodes (decoder cpu): the read keeps full slots, whose chunks keep
	 * all threads decoding (tsr_cuda_slot_sizes) */
	CHECK_EQ_INT(make_u16_store(dir, 16, 16LL << 20, 1), 0);
	CHECK_EQ_INT(slots_for(ctx, dir, TSR_DECODER_CPU, 1, &most),
		     slots_for(ctx, dir, TSR_DECODER_CPU, 0, &most));
	CHECK_EQ_INT(slots_for(ctx, dir, TSR_DECODER_CPU, 1, &most), 1);
	remove_store(dir, 16);

	tsr_context_free(ctx);
	CHECK_DONE();
}
