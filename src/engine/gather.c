/* gather.c - an advanced selection's tasks as the place kernel's gathers: each task's unit
 * tables (chunk-local and output offsets of its positions), built from the plan on the host. */
#include "gather.h"

int64_t tsr_gather_words(const struct tsr_plan *p, int64_t t)
{
	int axis[TSR_MAX_DIM];
	int64_t cnt[TSR_MAX_DIM], total;
	return tsr_plan_units(p, tsr_task_k0(p, t), tsr_task_k1(p, t), axis, cnt, &total) ? 2 * total
											  : 0;
}

void tsr_gather_table(const struct tsr_plan *p, int64_t t, const int64_t *extent, int64_t *tab)
{
	int axis[TSR_MAX_DIM];
	int64_t cnt[TSR_MAX_DIM], total, cstride[TSR_MAX_DIM], s = 1;
	for (int i = p->ndim - 1; i >= 0; i--) {
		cstride[i] = s;
		s *= extent[i];
	}
	int nu = tsr_plan_units(p, tsr_task_k0(p, t), tsr_task_k1(p, t), axis, cnt, &total);
	tsr_plan_unit_offsets(p, t, nu, axis, cnt, NULL, cstride, tab);
}

void tsr_gather_describe(const struct tsr_plan *p, int64_t t, uint64_t tab_dev,
			 struct tsr_cuda_place *pl)
{
	int axis[TSR_MAX_DIM];
	int64_t cnt[TSR_MAX_DIM], total;
	int nu = tsr_plan_units(p, tsr_task_k0(p, t), tsr_task_k1(p, t), axis, cnt, &total);
	pl->units = tab_dev;
	pl->nunits = nu ? nu : 1; /* nothing selected: one unit of no positions */
	for (int u = 0; u < TSR_CUDA_MAX_DIM; u++) {
		pl->count[u] = u < nu ? cnt[u] : 0;
		pl->first[u] = pl->step[u] = pl->out_stride[u] = 0;
	}
	pl->out_first = 0;
}
