/* plan.c - selection x chunk grid -> chunk tasks. */
#include <stdlib.h>
#include <string.h>

#include "plan.h"

/* floor division for possibly negative numerators, positive d */
static int64_t tsr_floordiv(int64_t a, int64_t d)
{
	int64_t q = a / d;
	return (a % d != 0 && a < 0) ? q - 1 : q;
}

/* The positions k in [0, count) whose index start + k*step lies in [lo, hi). */
void tsr_plan_k_range(const struct tsr_dim_sel *s, int64_t lo, int64_t hi, int64_t *k0, int64_t *k1)
{
	int64_t a, b;
	if (s->step > 0) {
		/* start + k*step >= lo  <=>  k >= ceil((lo - start)/step) */
		a = -tsr_floordiv(s->start - lo, s->step);
		b = -tsr_floordiv(s->start - hi, s->step);
	} else {
		int64_t m = -s->step;
		/* start - k*m < hi  <=>  k > (start - hi)/m ; start - k*m >= lo <=> k <= (start-lo)/m */
		a = tsr_floordiv(s->start - hi, m) + 1;
		b = tsr_floordiv(s->start - lo, m) + 1;
	}
	if (a < 0)
		a = 0;
	if (b > s->count)
		b = s->count;
	*k0 = a;
	*k1 = b > a ? b : a;
}

int tsr_plan_build(const struct tsr_desc *desc, const struct tsr_norm_sel *sel, struct tsr_plan *plan)
{
	if (sel->ngroups)
		return tsr_plan_build_points(desc, sel, plan);
	int nd = desc->ndim;
	memset(plan, 0, sizeof(*plan));
	plan->ndim = nd;
	plan->stride = 2 + 3 * (int64_t)nd;
	for (int d = 0; d < nd; d++) {
		plan->step[d] = sel->dim[d].step;
		plan->grid[d] = desc->grid[d];
		plan->chunk_shape[d] = desc->chunk_shape[d];
	}

	/* Output strides: C order over the kept axes (None axes have size 1: no effect). */
	int64_t st = 1;
	for (int d = nd - 1; d >= 0; d--) {
		plan->out_stride[d] = st;
		if (sel->dim[d].keep)
			st *= sel->dim[d].count;
	}
	if (sel->out_count == 0)
		return TSR_OK;

	/* Per axis: the chunks touched, each with its k range. */
	int64_t *lists[TSR_MAX_DIM] = {0};
	int64_t nlist[TSR_MAX_DIM];
	int64_t total = 1;
	int status = TSR_OK;
	for (int d = 0; d < nd; d++) {
		const struct tsr_dim_sel *s = &sel->dim[d];
		int64_t cs = desc->chunk_shape[d];
		int64_t first = s->start, last = s->start + (s->count - 1) * s->step;
		int64_t c0 = (first < last ? first : last) / cs, c1 = (first < last ? last : first) / cs;
		/* at most a chunk a position: a long step over small chunks touches few of those
		 * it spans (a[::2**30] of 2^40 one-element chunks: 1,024, not 2^40) */
		int64_t most = c1 - c0 + 1 < s->count ? c1 - c0 + 1 : s->count;
		lists[d] = malloc((size_t)most * 3 * sizeof(int64_t));
		if (!lists[d]) {
			status = tsr_error(TSR_E_NOMEM, "plan: out of memory for %lld chunks along axis "
					   "%d", (long long)most, d);
			goto done;
		}
		nlist[d] = 0;
		/* Walk the chunks the positions visit, in their order: from each position, the
		 * run of positions in its chunk. */
		for (int64_t k = 0; k < s->count;) {
			int64_t c = (s->start + k * s->step) / cs, k0, k1;
			tsr_plan_k_range(s, c * cs, (c + 1) * cs, &k0, &k1);
			if (k1 <= k) /* (cannot be: position k lies in chunk c) */
				k1 = k + 1;
			int64_t *e = lists[d] + 3 * nlist[d]++;
			e[0] = c;
			e[1] = k;
			e[2] = k1;
			k = k1;
		}
		if (total > INT64_MAX / nlist[d]) {
			status = tsr_error(TSR_E_NOMEM, "plan: more tasks than can be counted");
			goto done;
		}
		total *= nlist[d];
	}
	plan->tasks = (uint64_t)total > SIZE_MAX / sizeof(int64_t) / (size_t)plan->stride
			      ? NULL
			      : malloc((size_t)total * (size_t)plan->stride * sizeof(int64_t));
	if (!plan->tasks) {
		status = tsr_error(TSR_E_NOMEM, "plan: out of memory for %lld tasks", (long long)total);
		goto done;
	}
	plan->ntasks = total;
	int64_t idx[TSR_MAX_DIM] = {0};
	for (int64_t t = 0; t < total; t++) {
		int64_t *task = plan->tasks + t * plan->stride, chunk = 0, out_first = 0;
		for (int d = 0; d < nd; d++) {
			const int64_t *e = lists[d] + 3 * idx[d];
			const struct tsr_dim_sel *s = &sel->dim[d];
			chunk = chunk * desc->grid[d] + e[0];
			task[1 + d] = e[1];
			task[1 + nd + d] = e[2];
			/* the box's first element: position k0's index, from the chunk's corner */
			task[1 + 2 * nd + d] = s->start + e[1] * s->step - e[0] * desc->chunk_shape[d];
			out_first += e[1] * plan->out_stride[d];
		}
		task[0] = chunk;
		task[1 + 3 * nd] = out_first;
		for (int d = nd - 1; d >= 0; d--) {
			if (++idx[d] < nlist[d])
				break;
			idx[d] = 0;
		}
	}
done:
	for (int d = 0; d < nd; d++)
		free(lists[d]);
	if (status)
		tsr_plan_free(plan);
	return status;
}

void tsr_plan_free(struct tsr_plan *plan)
{
	free(plan->tasks);
	free(plan->part);
	plan->tasks = NULL;
	plan->part = NULL;
	plan->ntasks = 0;
	for (int g = 0; g < plan->ngroups; g++) {
		free(plan->groups[g].coords);
		free(plan->groups[g].dst);
	}
	free(plan->groups);
	plan->groups = NULL;
	plan->ngroups = 0;
}

int tsr_plan_split(const struct tsr_plan *plan, const int64_t *nshares, struct tsr_plan *out)
{
	int64_t n = 0;
	*out = *plan;
	out->tasks = NULL;
	out->part = NULL;
	out->ntasks = 0;
	out->ngroups = 0; /* point groups are the plan's own (reads of points never split) */
	out->groups = NULL;
	if (plan->ngroups)
		return tsr_error(TSR_E_INTERNAL, "plan: a plan of points cannot split");
	for (int64_t t = 0; t < plan->ntasks; t++) {
		if (nshares[t] < 1 || nshares[t] > INT64_MAX / 4 - n)
			return tsr_error(TSR_E_INTERNAL, "plan: task %lld in %lld shares", (long long)t,
					 (long long)nshares[t]);
		n += nshares[t];
	}
	out->tasks = malloc((size_t)n * (size_t)plan->stride * sizeof(int64_t));
	out->part = malloc((size_t)n * 3 * sizeof(int64_t));
	if (!out->tasks || !out->part) {
		tsr_plan_free(out);
		return tsr_error(TSR_E_NOMEM, "plan: out of memory for %lld tasks", (long long)n);
	}
	int64_t at = 0;
	for (int64_t t = 0; t < plan->ntasks; t++)
		for (int64_t p = 0; p < nshares[t]; p++, at++) {
			memcpy(out->tasks + at * plan->stride, plan->tasks + t * plan->stride,
			       (size_t)plan->stride * sizeof(int64_t));
			out->part[3 * at] = p;
			out->part[3 * at + 1] = nshares[t];
			out->part[3 * at + 2] = tsr_task_origin(plan, t);
		}
	out->ntasks = n;
	return TSR_OK;
}
