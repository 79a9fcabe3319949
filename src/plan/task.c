/* task.c - what a planned task says about its chunk: its box, the box's bounds, the prefix of
 * the chunk it needs, and a part of its box (engines read these; none recompute them). */
#include "plan.h"

void tsr_plan_chunk_origin(const struct tsr_plan *p, int64_t chunk, int64_t *origin)
{
	for (int i = p->ndim - 1; i >= 0; i--) {
		origin[i] = (chunk % p->grid[i]) * p->chunk_shape[i];
		chunk /= p->grid[i];
	}
}

void tsr_task_box(const struct tsr_plan *p, int64_t t, struct tsr_box *b)
{
	const int64_t *k0 = tsr_task_k0(p, t), *k1 = tsr_task_k1(p, t), *first = tsr_task_first(p, t);
	b->ndim = p->ndim;
	for (int i = 0; i < p->ndim; i++) {
		b->first[i] = first[i];
		b->step[i] = p->step[i];
		b->count[i] = k1[i] - k0[i];
		b->out_stride[i] = p->out_stride[i];
	}
	b->out_first = tsr_task_out_first(p, t);
}

int tsr_box_clip(const struct tsr_box *b, const int64_t *lo, const int64_t *hi,
		 struct tsr_box *sub)
{
	sub->ndim = b->ndim;
	sub->out_first = b->out_first;
	for (int i = 0; i < b->ndim; i++) {
		/* positions j of the box's own axis: index first + j * step */
		struct tsr_dim_sel s = {.start = b->first[i], .step = b->step[i], .count = b->count[i]};
		int64_t j0, j1;
		tsr_plan_k_range(&s, lo[i], hi[i], &j0, &j1);
		if (j0 >= j1)
			return 0;
		sub->first[i] = b->first[i] + j0 * b->step[i];
		sub->step[i] = b->step[i];
		sub->count[i] = j1 - j0;
		sub->out_stride[i] = b->out_stride[i];
		sub->out_first += j0 * b->out_stride[i];
	}
	return 1;
}

void tsr_task_bounds(const struct tsr_plan *p, int64_t t, int64_t *lo, int64_t *hi)
{
	const int64_t *k0 = tsr_task_k0(p, t), *k1 = tsr_task_k1(p, t), *first = tsr_task_first(p, t);
	for (int i = 0; i < p->ndim; i++) {
		if (p->step[i] == 0) { /* a point group's axis: bounds planned with its points */
			lo[i] = first[i];
			hi[i] = p->tasks[t * p->stride + 2 + 3 * p->ndim + i];
			continue;
		}
		int64_t a = first[i], b = first[i] + (k1[i] - k0[i] - 1) * p->step[i];
		lo[i] = a < b ? a : b;
		hi[i] = (a < b ? b : a) + 1;
	}
}

int64_t tsr_task_needed(const struct tsr_plan *p, int64_t t, const int64_t *extent)
{
	const int64_t *k0 = tsr_task_k0(p, t), *k1 = tsr_task_k1(p, t), *first = tsr_task_first(p, t);
	int64_t cstr[TSR_MAX_DIM], stride = 1, last = 0;
	for (int i = p->ndim - 1; i >= 0; i--) {
		cstr[i] = stride;
		stride *= extent[i];
		if (p->group_of[i])
			continue;
		/* the furthest position: the last one going up, the first one going down */
		int64_t far = p->step[i] > 0 ? first[i] + (k1[i] - k0[i] - 1) * p->step[i] : first[i];
		last += far * cstr[i];
	}
	if (p->ngroups) {
		/* points: the furthest point of each group, whatever their order (strides are
		 * positive, so the maxima add up) */
		int64_t origin[TSR_MAX_DIM];
		tsr_plan_chunk_origin(p, tsr_task_chunk(p, t), origin);
		for (int g = 0; g < p->ngroups; g++) {
			const struct tsr_plan_group *pg = &p->groups[g];
			int64_t most = 0;
			for (int64_t k = k0[pg->axes[0]]; k < k1[pg->axes[0]]; k++) {
				int64_t at = 0;
				for (int j = 0; j < pg->naxes; j++)
					at += (pg->coords[k * pg->naxes + j] - origin[pg->axes[j]]) *
					      cstr[pg->axes[j]];
				most = at > most ? at : most;
			}
			last += most;
		}
	}
	return last + 1;
}
