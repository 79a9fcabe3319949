/* test_plan_split.c - a chunk may become several tasks: tsr_plan_split repeats each task as its
 * shares, in order, with the chunk, box and output mapping unchanged; and tsr_plan_k_range (which
 * maps a chunk-local box back to selection positions) agrees with brute force for any step. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "plan/plan.h"

static void check_split(void)
{
	/* a 10 x 7 array in 4 x 3 chunks, all of it: 3 x 3 = 9 chunk tasks */
	struct tsr_desc d;
	memset(&d, 0, sizeof(d));
	d.ndim = 2;
	d.shape[0] = 10, d.shape[1] = 7;
	d.chunk_shape[0] = 4, d.chunk_shape[1] = 3;
	d.grid[0] = 3, d.grid[1] = 3;
	d.nchunks = 9;
	struct tsr_norm_sel ns;
	CHECK_EQ_INT(tsr_selection_normalize(NULL, 2, d.shape, &ns), TSR_OK);
	struct tsr_plan plan, split;
	CHECK_EQ_INT(tsr_plan_build(&d, &ns, &plan), TSR_OK);
	CHECK_EQ_INT(plan.ntasks, 9);
	CHECK(plan.part == NULL);
	CHECK_EQ_INT(tsr_task_nshares(&plan, 4), 1);
	int64_t nshares[9] = {1, 3, 1, 1, 2, 1, 1, 1, 5};
	CHECK_EQ_INT(tsr_plan_split(&plan, nshares, &split), TSR_OK);
	CHECK_EQ_INT(split.ntasks, 16);
	int64_t at = 0;
	for (int64_t t = 0; t < plan.ntasks; t++)
		for (int64_t p = 0; p < nshares[t]; p++, at++) {
			CHECK_EQ_INT(tsr_task_chunk(&split, at), tsr_task_chunk(&plan, t));
			CHECK_EQ_INT(tsr_task_share(&split, at), p);
			CHECK_EQ_INT(tsr_task_nshares(&split, at), nshares[t]);
			CHECK_EQ_INT(tsr_task_origin(&split, at), t);
			CHECK(memcmp(tsr_task_k0(&split, at), tsr_task_k0(&plan, t), 2 * sizeof(int64_t)) == 0);
			CHECK(memcmp(tsr_task_k1(&split, at), tsr_task_k1(&plan, t), 2 * sizeof(int64_t)) == 0);
			CHECK(memcmp(tsr_task_first(&split, at), tsr_task_first(&plan, t), 2 * sizeof(int64_t)) == 0);
			CHECK_EQ_INT(tsr_task_out_first(&split, at), tsr_task_out_first(&plan, t));
		}
	CHECK(memcmp(split.out_stride, plan.out_stride, sizeof(plan.out_stride)) == 0);
	/* a share count below 1 is refused, leaving nothing to free */
	nshares[2] = 0;
	struct tsr_plan bad;
	CHECK(tsr_plan_split(&plan, nshares, &bad) < 0);
	CHECK(bad.tasks == NULL && bad.part == NULL);
	tsr_plan_free(&split);
	tsr_plan_free(&plan);
}

static void check_k_range(void)
{
	int64_t steps[] = {1, 2, 3, -1, -2, -5};
	for (size_t si = 0; si < sizeof(steps) / sizeof(steps[0]); si++)
		for (int64_t start = 0; start < 20; start++) {
			int64_t step = steps[si];
			struct tsr_dim_sel s = {start, step, 0, 1};
			for (int64_t i = start; i >= 0 && i < 20; i += step)
				s.count++;
			for (int64_t lo = 0; lo < 20; lo++)
				for (int64_t hi = lo; hi <= 20; hi++) {
					int64_t k0, k1, b0 = -1, b1 = -1;
					tsr_plan_k_range(&s, lo, hi, &k0, &k1);
					for (int64_t k = 0; k < s.count; k++) {
						int64_t i = start + k * step;
						if (i >= lo && i < hi) {
							if (b0 < 0)
								b0 = k;
							b1 = k + 1;
						}
					}
					if (b0 < 0)
						CHECK(k0 >= k1);
					else
						CHECK(k0 == b0 && k1 == b1);
				}
		}
}

int main(void)
{
	check_split();
	check_k_range();
	CHECK_DONE();
}
