/* test_cuda_describe_on.c - a CUDA read's places and stream arguments made on several threads (tsr_cuda_describe_on) give each task the place one thread gives it and tsr_cuda_describe makes for it alone, byte for byte, runs of tasks unfolded (tsr_cuda_place_task), and each stream what tsr_cuda_stream_args gives it, whatever the thread count, part boundaries and selection; a whole store's chunks are one place; fewer tasks than a part stay on the caller's thread. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "write_file.h"
#include "cuda_layout_read.h"
#include "core/internal.h"
#include "tessera.h"
#include "engine/cuda_layout.h"
#include "plan/plan.h"

#define NCHUNKS 5003 /* (parts of uneven length on 2, 3, 4 and 7 threads) */

/* Lays out the store's read of spec (the whole when NULL), gives every task a distinct slot and
 * decode offset (as a slot fill would), and checks the places of nthreads equal one thread's:
 * both arrays filled with a pattern first, so a field one of them leaves unwritten differs. */
/* Lays out dir's read (through spec) as decoder gpu lays it out (zstd chunks: streams), makes
 * its places and stream arguments on one thread and on nthreads, and checks them; returns the
 * number of stream tasks. */
static int64_t check_same(struct tsr_context *ctx, const char *dir, const char *spec,
			  struct tsr_pool *pool, int nthreads)
{
	struct layout_read lr;
	int64_t nstream = 0;
	if (layout_read(ctx, dir, 16, TSR_DECODER_GPU, &lr) == 0 && spec) {
		/* the same store, read through a selection: planned again */
		struct tsr_selection sel;
		tsr_plan_free(&lr.plan);
		tsr_norm_sel_free(&lr.ns);
		tsr_plan_descs_free(lr.ds);
		lr.ds = NULL;
		CHECK_EQ_INT(tsr_selection_parse(spec, &sel), TSR_OK);
		CHECK_EQ_INT(tsr_selection_normalize(&sel, 1, lr.a->desc.shape, &lr.ns), TSR_OK);
		CHECK_EQ_INT(tsr_plan_build(&lr.a->desc, &lr.ns, &lr.plan), TSR_OK);
		const struct tsr_route_device rdev = {.gpu = 1, .families = ~0u};
		CHECK_EQ_INT(tsr_plan_describe(&lr.plan, lr.a, &tsr_storage_posix, 1, &rdev, &lr.ds),
			     TSR_OK);
		if (lr.ds)
			tsr_cuda_layout(lr.a, &lr.plan, lr.ds, TSR_DECODER_GPU, 0, 16, lr.tasks,
					&lr.L);
	}
	if (!lr.ds) {
		layout_read_free(&lr);
		return 0;
	}
	int64_t n = lr.plan.ntasks;
	for (int64_t t = 0; t < n; t++) {
		lr.tasks[t].slot_offset = 64 * (size_t)t;
		lr.tasks[t].dec_offset = 128 * (size_t)t + 16;
		lr.tasks[t].stream = (int)t; /* (each its own: the arguments land there) */
		lr.tasks[t].name = (int)(t % 3);
	}
	size_t nb = (size_t)n * sizeof(struct tsr_cuda_place);
	size_t nio = 4 * (size_t)n * sizeof(uint64_t), nck = (size_t)n * sizeof(struct tsr_cuda_check);
	struct tsr_cuda_place *one = malloc(nb), *many = malloc(nb), *ref = malloc(nb);
	uint64_t *io1 = malloc(nio), *ion = malloc(nio);
	struct tsr_cuda_check *ck1 = malloc(nck), *ckn = malloc(nck);
	CHECK(one && many && ref && io1 && ion && ck1 && ckn);
	if (one && many && ref && io1 && ion && ck1 && ckn) {
		memset(one, 0xa5, nb), memset(many, 0xa5, nb), memset(ref, 0xa5, nb);
		memset(io1, 0xa5, nio), memset(ion, 0xa5, nio);
		memset(ck1, 0xa5, nck), memset(ckn, 0xa5, nck);
		/* with them, the stream arguments: each task's at its stream index */
		struct tsr_cuda_stream_out so1 = {.io = io1, .cap = (size_t)n, .checks = ck1,
						  .prefix_at = 77};
		struct tsr_cuda_stream_out son = so1;
		son.io = ion, son.checks = ckn;
		struct tsr_cuda_described r1, rn;
		tsr_cuda_describe_on(&lr.plan, lr.ds, lr.tasks, n, 0x7000000000ull, 0, NULL, one,
				     &so1, NULL, 1, &r1);
		tsr_cuda_describe_on(&lr.plan, lr.ds, lr.tasks, n, 0x7000000000ull, 0, NULL, many,
				     &son, pool, nthreads, &rn);
		for (int64_t t = 0; t < n; t++) /* each task's own place */
			tsr_cuda_describe(&lr.plan, lr.ds, &lr.tasks[t], 0x7000000000ull, 0, NULL,
					  &ref[t]);
		CHECK_EQ_INT(rn.general, r1.general);
		CHECK_EQ_INT(r1.general, 0); /* (boxes of Zarr chunks: no gather, no blocked source) */
		CHECK(r1.nplaces >= 1 && r1.nplaces <= (size_t)n && rn.nplaces >= r1.nplaces);
		if (!spec) {
			/* every chunk whole, one after another in the output and the buffers: one
			 * run, whose 5,003 rows of 64 take 32 a CTA (8 lanes a row) */
			CHECK_EQ_INT((int64_t)r1.nplaces, 1);
			CHECK_EQ_INT(r1.max_rows, (n + 31) / 32);
			CHECK(rn.nplaces <= (size_t)nthreads);
		}
		/* unfolded, both give each task what tsr_cuda_describe gives it */
		int64_t bad = -1;
		for (int m = 0; m < 2; m++) {
			const struct tsr_cuda_place *pls = m ? many : one;
			size_t np = m ? rn.nplaces : r1.nplaces;
			int64_t t = 0;
			for (size_t i = 0; i < np && bad < 0; i++)
				for (int k = 0; k < pls[i].run && bad < 0; k++, t++) {
					struct tsr_cuda_place p1;
					memset(&p1, 0x5a, sizeof(p1));
					tsr_cuda_place_task(&pls[i], k, &p1);
					if (t >= n || memcmp(&p1, &ref[t], sizeof(p1)))
						bad = t;
				}
			if (bad < 0 && t != n)
				bad = t;
			if (bad >= 0)
				fprintf(stderr, "%s %s on %d threads: the place of task %lld differs\n",
					dir, spec ? spec : "(all)", m ? nthreads : 1, (long long)bad);
		}
		CHECK_EQ_INT((int)bad, -1);
		/* the places were made: each task's own source offset (stream tasks: the decode
		 * buffer's) */
		const int dec = lr.tasks[n - 1].how == TSR_HOW_STREAM;
		CHECK(ref[n - 1].src_offset ==
		      (dec ? 128 * (uint64_t)(n - 1) + 16 : 64 * (uint64_t)(n - 1)));
		/* every stream task's arguments and check, on one thread and on many, are what
		 * tsr_cuda_stream_args gives it, with the prefix and its name's index */
		int64_t sbad = -1;
		for (int64_t t = 0; t < n; t++) {
			const struct tsr_cuda_task *ct = &lr.tasks[t];
			if (ct->how != TSR_HOW_STREAM)
				continue;
			nstream++;
			uint64_t io[4];
			struct tsr_cuda_check c;
			memset(&c, 0, sizeof(c));
			tsr_cuda_stream_args(ct, tsr_task_chunk(&lr.plan, ct->t), io, &c);
			int same = 1;
			for (const struct tsr_cuda_check *k = ck1; k; k = k == ck1 ? ckn : NULL)
				same &= k[t].chunk == c.chunk && k[t].rc.npix == c.rc.npix &&
					k[t].rc.width == c.rc.width && k[t].rc.elem == c.rc.elem &&
					k[t].rc.out == c.rc.out && k[t].rc.kind == c.rc.kind &&
					k[t].rc.elem_from_size == c.rc.elem_from_size &&
					k[t].rc.xform == c.rc.xform && k[t].prefix_at == 77 &&
					k[t].name == t % 3 && !k[t].has_label;
			for (int j = 0; j < 4; j++)
				same &= io1[j * n + t] == io[j] && ion[j * n + t] == io[j];
			if (!same && sbad < 0)
				sbad = t;
		}
		if (sbad >= 0)
			fprintf(stderr, "%s %s on %d threads: stream of task %lld differs\n", dir,
				spec ? spec : "(all)", nthreads, (long long)sbad);
		CHECK_EQ_INT((int)sbad, -1);
	}
	free(one), free(many), free(ref), free(io1), free(ion), free(ck1), free(ckn);
	layout_read_free(&lr);
	return nstream;
}

int main(void)
{
	struct tsr_context *ctx = NULL;
	CHECK_EQ_INT(tsr_context_create(NULL, &ctx), TSR_OK);
	struct tsr_pool *pool = NULL;
	CHECK_EQ_INT(tsr_pool_create(7, &pool), TSR_OK);
	char dir[256];
	snprintf(dir, sizeof(dir), "/tmp/tsr_describe_on_%d.zarr", (int)getpid());

	/* 5,003 zstd chunks of 64 uint16: stream tasks, each read whole */
	CHECK_EQ_INT(make_u16_store(dir, NCHUNKS, 64, 1), 0);
	for (int k = 2; k <= 7; k++)
		CHECK_EQ_INT(check_same(ctx, dir, NULL, pool, k), NCHUNKS);
	CHECK(check_same(ctx, dir, "::-3", pool, 4) > 0); /* backwards, every third element */
	CHECK(check_same(ctx, dir, "5:300000:7", pool, 3) > 0); /* parts of the chunks, strided */
	CHECK(check_same(ctx, dir, "0:60000", pool, 7) > 0); /* 938 tasks: under a part, one thread */
	remove_store(dir, NCHUNKS);

	/* the same of raw chunks: the staging's values, not the decode buffer's */
	CHECK_EQ_INT(make_u16_store(dir, NCHUNKS, 64, 0), 0);
	CHECK_EQ_INT(check_same(ctx, dir, NULL, pool, 5), 0);
	remove_store(dir, NCHUNKS);

	tsr_pool_free(pool);
	tsr_context_free(ctx);
	CHECK_DONE();
}
