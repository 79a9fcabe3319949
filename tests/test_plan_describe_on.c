/* test_plan_describe_on.c - describing a plan on several threads (tsr_plan_describe_on) gives what one thread gives: every task's description, path (interned: equal paths one pointer) and info the same, the same distinct paths; and where the driver fails on two chunks in different threads' runs, the read fails naming the first, with nothing kept. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/internal.h"
#include "io/storage.h"
#include "plan/plan.h"
#include "shard_ref.h"

static int64_t fail_a = -1, fail_b = -1;
static atomic_int driver_calls;

/* A 2-D array of 200 x 40 chunks of 4 x 5, in shards of 2 x 4 chunks, each its own file; the
 * chunks whose number is a multiple of 7 were never written (fill), every 11th is raw. */
static int shard_chunk_ref(const struct tsr_array *a, int64_t chunk, struct tsr_chunk_ref *ref)
{
	atomic_fetch_add(&driver_calls, 1);
	if (chunk == fail_a || chunk == fail_b)
		return tsr_error(TSR_E_FORMAT, "shard index: bad entry %lld", (long long)chunk);
	shard_ref(a, chunk, ref);
	if (chunk % 11 == 0) {
		ref->codec_name = "raw";
		if (chunk % 7) /* (a fill stays one) */
			ref->codec.id = TSR_CODEC_NONE;
	}
	return TSR_OK;
}

static void make_array(struct tsr_array *a, struct tsr_driver_ops *ops)
{
	memset(a, 0, sizeof(*a));
	a->path = "test.array";
	a->ops = ops;
	a->desc.ndim = 2;
	a->desc.shape[0] = 800, a->desc.shape[1] = 200;
	a->desc.chunk_shape[0] = 4, a->desc.chunk_shape[1] = 5;
	a->desc.grid[0] = 200, a->desc.grid[1] = 40;
	a->desc.nchunks = 8000;
	a->desc.unit_noun = "array";
	a->desc.chunk_noun = "chunk";
}

static void plan_of(const struct tsr_array *a, const char *spec, struct tsr_plan *plan)
{
	struct tsr_selection sel;
	struct tsr_norm_sel ns;
	CHECK_EQ_INT(tsr_selection_parse(spec, &sel), TSR_OK);
	CHECK_EQ_INT(tsr_selection_normalize(&sel, 2, a->desc.shape, &ns), TSR_OK);
	CHECK_EQ_INT(tsr_plan_build(&a->desc, &ns, plan), TSR_OK);
}

/* Describes spec over a on one thread and on nthreads of pool; checks the two agree. */
static void check_same(const struct tsr_array *a, const char *spec, struct tsr_pool *pool,
		       int nthreads, const struct tsr_route_device *dev)
{
	struct tsr_plan plan;
	plan_of(a, spec, &plan);
	struct tsr_plan_descs *one = NULL, *many = NULL;
	CHECK_EQ_INT(tsr_plan_describe(&plan, a, &tsr_storage_posix, 0, dev, &one), TSR_OK);
	atomic_store(&driver_calls, 0);
	CHECK_EQ_INT(tsr_plan_describe_on(&plan, a, &tsr_storage_posix, 0, dev, pool, nthreads,
					  &many),
		     TSR_OK);
	CHECK_EQ_INT(atomic_load(&driver_calls), plan.ntasks); /* once a task */
	if (!one || !many)
		return;
	CHECK_EQ_INT(tsr_plan_descs_npaths(many), tsr_plan_descs_npaths(one));
	int bad = 0;
	for (int64_t t = 0; t < plan.ntasks && bad < 5; t++) {
		struct tsr_chunk_ref r1, rn;
		memset(&r1, 0, sizeof(r1)); /* (the path is copied up to its NUL) */
		memset(&rn, 0, sizeof(rn));
		tsr_task_desc(one, t, &r1);
		tsr_task_desc(many, t, &rn);
		int same = !memcmp(&r1, &rn, sizeof(r1)); /* (drivers zero their refs) */
		struct tsr_task_info i1 = *tsr_task_info(one, t), in = *tsr_task_info(many, t);
		same &= !strcmp(i1.path, in.path);
		i1.path = in.path = NULL;
		same &= !memcmp(&i1, &in, sizeof(i1));
		same &= !memcmp(tsr_task_extent(one, t), tsr_task_extent(many, t),
				2 * sizeof(int64_t));
		/* interned: the task before's path, if equal, is the same pointer */
		if (t > 0 && !strcmp(tsr_task_info(many, t - 1)->path, tsr_task_info(many, t)->path))
			same &= tsr_task_info(many, t - 1)->path == tsr_task_info(many, t)->path;
		if (!same) {
			fprintf(stderr, "%s: task %lld differs\n", spec, (long long)t);
			bad++;
		}
	}
	CHECK_EQ_INT(bad, 0);
	/* equal paths anywhere are one pointer (the shards' first and last tasks) */
	for (int64_t t = 0; t < plan.ntasks; t += 97)
		for (int64_t u = t + 1; u < plan.ntasks; u += 389)
			if (!strcmp(tsr_task_desc_path(many, t), tsr_task_desc_path(many, u)))
				CHECK(tsr_task_info(many, t)->path == tsr_task_info(many, u)->path);
	tsr_plan_descs_free(one);
	tsr_plan_descs_free(many);
	tsr_plan_free(&plan);
}

int main(void)
{
	struct tsr_pool *pool = NULL;
	CHECK_EQ_INT(tsr_pool_create(4, &pool), TSR_OK);
	struct tsr_driver_ops ops = {.name = "shard", .chunk_ref = shard_chunk_ref};
	struct tsr_array a;
	make_array(&a, &ops);
	const struct tsr_route_device gpu = {.gpu = 1, .families = ~0u};
	check_same(&a, "", pool, 4, NULL);                  /* 8,000 tasks, 4 runs */
	check_same(&a, "", pool, 4, &gpu);                  /* routed too */
	check_same(&a, "", pool, 3, &gpu);                  /* runs of uneven length */
	check_same(&a, "797:3:-1,::-3", pool, 4, &gpu);     /* backwards, every third column */
	check_same(&a, "0:2100", pool, 4, NULL);            /* 2 runs of 512 or more: 525 tasks */
	check_same(&a, "0:40,0:20", pool, 4, NULL);         /* 40 tasks: one thread */

	/* two failures in different runs (8,000 tasks in 4: chunks 2500 and 6500): the read fails
	 * naming the first, with nothing kept */
	fail_a = 6500, fail_b = 2500;
	struct tsr_plan plan;
	plan_of(&a, "", &plan);
	struct tsr_plan_descs *ds = (struct tsr_plan_descs *)&a; /* must become NULL */
	CHECK_EQ_INT(tsr_plan_describe_on(&plan, &a, &tsr_storage_posix, 0, NULL, pool, 4, &ds),
		     TSR_E_FORMAT);
	CHECK(ds == NULL);
	const char *msg = tsr_errmsg();
	CHECK(strstr(msg, "chunk 2500") != NULL && strstr(msg, "bad entry 2500") != NULL);
	if (!strstr(msg, "chunk 2500"))
		fprintf(stderr, "message: %s\n", msg);
	tsr_plan_free(&plan);
	tsr_pool_free(pool);
	CHECK_DONE();
}
