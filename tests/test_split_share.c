/* test_split_share.c - the block shares both engines decode a large chunk in (split.h): a one-chunk b2nd that a CUDA read with decoder cpu lays out as one CPU task splits as the CPU engine's rule says, and its shares (1, 2, 16; run in any order, on several threads) decode the chunk's values into a staging image equal to the CPU engine's read; a corrupt block's failure names file, chunk and block. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "tessera.h"
#include "test_blosc2_frame.h"
#include "engine/cuda_layout.h"
#include "engine/split.h"
#include "plan/plan.h"

/* One CUDA-laid-out read of the whole array (decoder cpu): its plan, descriptions and task. */
struct laid {
	struct tsr_plan plan;
	struct tsr_plan_descs *ds;
	struct tsr_cuda_task task;
	struct tsr_chunk_ref ref;
	struct tsr_chunk_box box; /* the whole chunk */
};

static int lay(struct tsr_array *a, struct laid *l)
{
	struct tsr_norm_sel ns;
	const struct tsr_desc *d = &a->desc;
	CHECK_EQ_INT(tsr_selection_normalize(NULL, d->ndim, d->shape, &ns), TSR_OK);
	CHECK_EQ_INT(tsr_plan_build(d, &ns, &l->plan), TSR_OK);
	CHECK_EQ_INT(l->plan.ntasks, 1);
	const struct tsr_route_device forced = {.gpu = 1, .force_cpu = 1, .blosc = 1,
						.families = ~0u};
	int st = tsr_plan_describe(&l->plan, a, &tsr_storage_posix, 1, &forced, &l->ds);
	CHECK_EQ_INT(st, TSR_OK);
	if (st)
		return st;
	struct tsr_cuda_layout L;
	tsr_cuda_layout(a, &l->plan, l->ds, TSR_DECODER_CPU, 0, 16, &l->task, &L);
	CHECK_EQ_INT(l->task.how, TSR_HOW_CPU);
	/* (it splits: the slot need not hold one whole chunk per thread, tsr_cuda_slot_sizes) */
	CHECK_EQ_INT((int)L.n_cpu_whole, 0);
	tsr_cuda_task_whole(l->ds, &l->task, &l->ref, &l->box);
	return TSR_OK;
}

struct share_run {
	struct tsr_split *s;
	const struct tsr_array *a;
	const struct tsr_split_sink *sink;
	struct tsr_job_error *err;
	int64_t np;
	int first, step; /* this thread's shares: first, first + step, ... (descending: np - 1 - p) */
};

static void *run_shares(void *arg)
{
	struct share_run *r = arg;
	struct tsr_source src;
	tsr_source_init(&src, &tsr_storage_posix, r->a);
	struct tsr_scratch scratch = {0};
	unsigned char *vals = NULL;
	size_t vcap = 0;
	const struct tsr_split_worker w = {&scratch, &vals, &vcap};
	struct tsr_worker_stats stats = {0};
	for (int64_t k = r->first; k < r->np; k += r->step)
		if (tsr_split_share(r->s, r->a, 0, r->np - 1 - k, r->np, r->sink, &src, NULL, &w,
				    &stats, r->err))
			break;
	tsr_source_close(&src);
	tsr_scratch_free(&scratch);
	free(vals);
	return NULL;
}

/* Decodes the laid-out chunk in np shares on nth threads into a staging image; its status. */
static int decode_shares(struct tsr_array *a, const struct laid *l, int64_t np, int nth,
			 unsigned char *img)
{
	struct tsr_split *s = tsr_split_new(&l->ref, &l->box, np);
	CHECK(s != NULL);
	struct tsr_split_sink sink;
	tsr_split_sink_whole(s->ndim, s->extent, img, l->task.ti->out_nbytes, &sink);
	struct tsr_job_error err;
	tsr_job_error_init(&err);
	pthread_t th[8];
	struct share_run run[8];
	for (int i = 0; i < nth; i++) {
		run[i] = (struct share_run){s, a, &sink, &err, np, i, nth};
		CHECK_EQ_INT(pthread_create(&th[i], NULL, run_shares, &run[i]), 0);
	}
	for (int i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	tsr_split_free(s);
	int st = tsr_job_error_take(&err);
	tsr_job_error_destroy(&err);
	return st;
}

/* The CPU engine's bytes of the whole array. */
static void *cpu_read(struct tsr_array *a, size_t nbytes)
{
	void *got = malloc(nbytes);
	struct tsr_buffer dst = {got, nbytes, TSR_MEM_HOST, NULL};
	CHECK_EQ_INT(tsr_read(a, NULL, &dst, NULL, NULL), TSR_OK);
	return got;
}

static void check_array(struct tsr_context *ctx, const char *path, const struct b2w_array *b,
			const char *name)
{
	CHECK_EQ_INT(b2w_write(path, b), 0);
	struct tsr_array *a;
	CHECK_EQ_INT(tsr_open(ctx, path, NULL, &a), TSR_OK);
	if (!a)
		return;
	struct laid l;
	if (lay(a, &l)) {
		tsr_array_free(a);
		return;
	}
	size_t n = (size_t)l.ref.npix * (size_t)b->typesize;
	unsigned char *want = cpu_read(a, n);
	/* the data as written, too: the CPU engine's read is the reference here */
	CHECK(memcmp(want, b->data, n) == 0);
	/* the CPU engine's rule: a one-task read on 16 threads of a chunk of this size splits */
	int64_t ns = 0;
	CHECK_EQ_INT(tsr_cuda_split_shares(l.ds, &l.task, 1, 16, &ns), ns);
	CHECK_EQ_INT(ns, tsr_split_nshares(&l.ref, &l.box, (size_t)b->typesize, 1, 16));
	CHECK(ns >= 2);
	/* one thread: nothing splits */
	CHECK_EQ_INT(tsr_cuda_split_shares(l.ds, &l.task, 1, 1, &ns), 1);
	CHECK_EQ_INT(ns, 1);
	/* a task the GPU decodes is never split here */
	struct tsr_cuda_task gpu = l.task;
	gpu.how = TSR_HOW_BLOSC;
	CHECK_EQ_INT(tsr_cuda_split_shares(l.ds, &gpu, 1, 16, &ns), 1);
	static const int64_t nps[] = {1, 2, 16};
	unsigned char *img = malloc(n);
	for (size_t k = 0; k < sizeof(nps) / sizeof(nps[0]); k++)
		for (int nth = 1; nth <= 4; nth += 3) {
			memset(img, 0xA5, n);
			CHECK_EQ_INT(decode_shares(a, &l, nps[k], nth, img), TSR_OK);
			if (memcmp(img, want, n)) {
				fprintf(stderr, "%s: %lld shares on %d threads differ from the CPU "
					"engine\n", name, (long long)nps[k], nth);
				check_failures++;
			}
		}
	free(img);
	free(want);
	tsr_plan_descs_free(l.ds);
	tsr_plan_free(&l.plan);
	tsr_array_free(a);
}

/* A block's compressed size in its stream overwritten (block 5 of the chunk's, through the
 * header's table of block starts): the shares fail, naming the file, chunk and block. */
static void check_corrupt(struct tsr_context *ctx, const char *path, const struct b2w_array *b)
{
	CHECK_EQ_INT(b2w_write(path, b), 0);
	struct tsr_array *a;
	CHECK_EQ_INT(tsr_open(ctx, path, NULL, &a), TSR_OK);
	if (!a)
		return;
	struct laid l;
	uint64_t at = 0;
	if (lay(a, &l) == TSR_OK) {
		at = l.ref.offset;
		tsr_plan_descs_free(l.ds);
		tsr_plan_free(&l.plan);
	}
	tsr_array_free(a);
	FILE *f = fopen(path, "r+b");
	CHECK(f != NULL && at > 0);
	if (!f || !at) {
		if (f)
			fclose(f);
		return;
	}
	unsigned char w[4];
	CHECK_EQ_INT(fseek(f, (long)(at + 32 + 4 * 5), SEEK_SET), 0); /* bstarts[5] */
	CHECK_EQ_INT(fread(w, 1, 4, f), 4);
	uint32_t start = (uint32_t)w[0] | (uint32_t)w[1] << 8 | (uint32_t)w[2] << 16 |
			 (uint32_t)w[3] << 24;
	b2w_le32(w, 0x7ffffff0u);
	CHECK_EQ_INT(fseek(f, (long)(at + start), SEEK_SET), 0);
	CHECK_EQ_INT(fwrite(w, 1, 4, f), 4);
	fclose(f);
	CHECK_EQ_INT(tsr_open(ctx, path, NULL, &a), TSR_OK);
	if (!a)
		return;
	if (lay(a, &l) == TSR_OK) {
		size_t n = (size_t)l.ref.npix * (size_t)b->typesize;
		unsigned char *img = malloc(n);
		for (int np = 2; np <= 16; np += 14) {
			int st = decode_shares(a, &l, np, 4, img);
			CHECK(st < 0);
			const char *msg = tsr_errmsg();
			if (!strstr(msg, path) || !strstr(msg, "chunk") || !strstr(msg, "block 5")) {
				fprintf(stderr, "the message names not file, chunk and block: %s\n",
					msg);
				check_failures++;
			}
		}
		free(img);
		tsr_plan_descs_free(l.ds);
		tsr_plan_free(&l.plan);
	}
	tsr_array_free(a);
}

int main(void)
{
	char dir[] = "/tmp/tsr_splitshare_XXXXXX", path[600];
	CHECK(mkdtemp(dir) != NULL);
	struct tsr_context_options co = {sizeof(co), 4};
	struct tsr_context *ctx;
	CHECK_EQ_INT(tsr_context_create(&co, &ctx), TSR_OK);
	/* rows of whole-row blocks (pieces are runs of the chunk's values), and boxes of blocks
	 * that reach into padding on both axes (pieces are boxes, placed) */
	const int64_t R = 700, C = 520, R2 = 650, C2 = 470;
	int32_t *d1 = malloc((size_t)(R * C) * 4);
	float *d2 = malloc((size_t)(R2 * C2) * 4);
	for (int64_t i = 0; i < R * C; i++)
		d1[i] = (int32_t)((i / 7) % 1000 + ((i * 2654435761u) >> 26));
	for (int64_t i = 0; i < R2 * C2; i++)
		d2[i] = (float)((i % 977) * 0.25 + (double)((i * 40503u) >> 20));
	struct b2w_array rows = {.ndim = 2, .shape = {R, C}, .chunks = {R, C}, .blocks = {16, C},
				 .typesize = 4, .dtype = "<i4", .data = d1};
	struct b2w_array boxes = {.ndim = 2, .shape = {R2, C2}, .chunks = {R2, C2},
				  .blocks = {48, 64}, .typesize = 4, .dtype = "<f4", .data = d2};
	snprintf(path, sizeof(path), "%s/rows.b2nd", dir);
	check_array(ctx, path, &rows, "rows");
	unlink(path);
	snprintf(path, sizeof(path), "%s/boxes.b2nd", dir);
	check_array(ctx, path, &boxes, "boxes");
	unlink(path);
	snprintf(path, sizeof(path), "%s/corrupt.b2nd", dir);
	check_corrupt(ctx, path, &rows);
	unlink(path);
	free(d1);
	free(d2);
	tsr_context_free(ctx);
	rmdir(dir);
	CHECK_DONE();
}
