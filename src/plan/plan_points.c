/* plan_points.c - advanced selections x chunk grid -> chunk tasks: each point group's points
 * sorted by chunk, so that every chunk the points touch is one task, read and decoded once.
 *
 * A task keeps the basic plan's form (chunk, k0[ndim], k1[ndim], first[ndim], out_first) and
 * adds its bounds (hi[ndim]): on a basic axis [k0, k1) are slice positions as always; on a
 * group's axes they are the run of the group's sorted points that lie in the chunk, and the
 * box's first and hi are the run's lowest and one past its highest chunk-local coordinate. Tasks are the product of the basic axes' chunk lists and the groups'
 * runs, so a chunk appears once however many points it holds. */
#include <stdlib.h>
#include <string.h>

#include "plan.h"

struct tsr_pt_key {
	int64_t key, p;
};

static int tsr_pt_cmp(const void *x, const void *y)
{
	const struct tsr_pt_key *a = x, *b = y;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->p > b->p) - (a->p < b->p);
}

/* Sorts group g's points by chunk into pg and lists its runs: run r is points [e[0], e[1]) of
 * chunk coordinates e[2..2+naxes) on the group's axes, whose chunk-local bounds [lo, hi) on the
 * group's axis j are e[2+naxes+j] and e[2+2*naxes+j]. */
static int tsr_plan_group(const struct tsr_desc *desc, const struct tsr_sel_group *sg,
			  struct tsr_plan_group *pg, int64_t **runs_ret, int64_t *nruns_ret)
{
	int na = sg->naxes;
	int64_t n = sg->npts, w = 2 + 3 * (int64_t)na;
	pg->naxes = na;
	memcpy(pg->axes, sg->axes, sizeof(pg->axes));
	pg->npts = n;
	pg->coords = malloc((size_t)n * (size_t)na * sizeof(int64_t) + 1);
	pg->dst = malloc((size_t)n * sizeof(int64_t) + 1);
	struct tsr_pt_key *keys = malloc((size_t)n * sizeof(*keys) + 1);
	int64_t *runs = malloc((size_t)n * (size_t)w * sizeof(int64_t) + 1);
	if (!pg->coords || !pg->dst || !keys || !runs) {
		free(keys);
		free(runs);
		return tsr_error(TSR_E_NOMEM, "plan: out of memory for %lld points", (long long)n);
	}
	for (int64_t p = 0; p < n; p++) {
		int64_t key = 0;
		for (int j = 0; j < na; j++) {
			int a = sg->axes[j];
			key = key * desc->grid[a] + sg->coords[p * na + j] / desc->chunk_shape[a];
		}
		keys[p].key = key;
		keys[p].p = p;
	}
	qsort(keys, (size_t)n, sizeof(*keys), tsr_pt_cmp);
	int64_t nruns = 0;
	for (int64_t k = 0; k < n; k++) {
		int64_t p = keys[k].p;
		memcpy(pg->coords + k * na, sg->coords + p * na, (size_t)na * sizeof(int64_t));
		pg->dst[k] = p * sg->out_stride;
		int64_t *e = runs + w * nruns;
		if (k == 0 || keys[k].key != keys[k - 1].key) {
			e = runs + w * nruns++;
			e[0] = k;
			for (int j = 0; j < na; j++) {
				int64_t cs = desc->chunk_shape[sg->axes[j]];
				e[2 + j] = sg->coords[p * na + j] / cs;
				e[2 + na + j] = INT64_MAX;
				e[2 + 2 * na + j] = INT64_MIN;
			}
		} else {
			e -= w;
		}
		e[1] = k + 1;
		for (int j = 0; j < na; j++) {
			int64_t c = sg->coords[p * na + j] - e[2 + j] * desc->chunk_shape[sg->axes[j]];
			e[2 + na + j] = c < e[2 + na + j] ? c : e[2 + na + j];
			e[2 + 2 * na + j] = c + 1 > e[2 + 2 * na + j] ? c + 1 : e[2 + 2 * na + j];
		}
	}
	free(keys);
	*runs_ret = runs;
	*nruns_ret = nruns;
	return TSR_OK;
}

int tsr_plan_build_points(const struct tsr_desc *desc, const struct tsr_norm_sel *sel,
			  struct tsr_plan *plan)
{
	int nd = desc->ndim, status = TSR_OK;
	memset(plan, 0, sizeof(*plan));
	plan->ndim = nd;
	plan->stride = 2 + 4 * (int64_t)nd;
	memcpy(plan->out_stride, sel->axis_stride, sizeof(plan->out_stride));
	memcpy(plan->group_of, sel->group_of, sizeof(plan->group_of));
	for (int d = 0; d < nd; d++) {
		plan->step[d] = sel->group_of[d] ? 0 : sel->dim[d].step;
		plan->grid[d] = desc->grid[d];
		plan->chunk_shape[d] = desc->chunk_shape[d];
	}
	if (sel->out_count == 0)
		return TSR_OK;
	plan->groups = calloc((size_t)sel->ngroups, sizeof(*plan->groups));
	if (!plan->groups)
		return tsr_error(TSR_E_NOMEM, "plan: out of memory");
	plan->ngroups = sel->ngroups;

	/* Units, in axis order: a basic axis (its chunks, each with a k range) or a group (its
	 * runs), each a list of entries of w int64 words. */
	int nunits = 0, unit_axis[TSR_MAX_DIM], unit_group[TSR_MAX_DIM];
	int64_t *lists[TSR_MAX_DIM] = {0}, nlist[TSR_MAX_DIM], width[TSR_MAX_DIM];
	int64_t total = 1;
	for (int d = 0; d < nd && !status; d++) {
		int g = sel->group_of[d] - 1, u = nunits;
		if (g >= 0 && sel->groups[g].axes[0] != d)
			continue; /* a group is one unit, at its first axis */
		nunits++;
		unit_axis[u] = d;
		unit_group[u] = g;
		if (g >= 0) {
			width[u] = 2 + 3 * (int64_t)sel->groups[g].naxes;
			status = tsr_plan_group(desc, &sel->groups[g], &plan->groups[g], &lists[u],
						&nlist[u]);
		} else {
			const struct tsr_dim_sel *s = &sel->dim[d];
			int64_t cs = desc->chunk_shape[d];
			int64_t first = s->start, last = s->start + (s->count - 1) * s->step;
			int64_t c0 = (first < last ? first : last) / cs;
			int64_t c1 = (first < last ? last : first) / cs;
			width[u] = 3;
			nlist[u] = 0;
			lists[u] = malloc((size_t)(c1 - c0 + 1) * 3 * sizeof(int64_t));
			if (!lists[u]) {
				status = tsr_error(TSR_E_NOMEM, "plan: out of memory");
				break;
			}
			for (int64_t i = 0; i <= c1 - c0; i++) {
				int64_t c = s->step > 0 ? c0 + i : c1 - i, k0, k1;
				tsr_plan_k_range(s, c * cs, (c + 1) * cs, &k0, &k1);
				if (k0 < k1) {
					int64_t *e = lists[u] + 3 * nlist[u]++;
					e[0] = k0;
					e[1] = k1;
					e[2] = c;
				}
			}
		}
		if (!status && __builtin_mul_overflow(total, nlist[u], &total))
			status = tsr_error(TSR_E_NOMEM, "plan: too many tasks");
	}
	if (!status) {
		plan->tasks = malloc((size_t)total * (size_t)plan->stride * sizeof(int64_t) + 1);
		if (!plan->tasks)
			status = tsr_error(TSR_E_NOMEM, "plan: out of memory for %lld tasks",
					   (long long)total);
	}
	if (!status) {
		plan->ntasks = total;
		int64_t idx[TSR_MAX_DIM] = {0}, cc[TSR_MAX_DIM];
		for (int64_t t = 0; t < total; t++) {
			int64_t *task = plan->tasks + t * plan->stride, chunk = 0, out_first = 0;
			int64_t *first = task + 1 + 2 * nd, *hi = task + 2 + 3 * nd;
			for (int u = 0; u < nunits; u++) {
				const int64_t *e = lists[u] + width[u] * idx[u];
				int g = unit_group[u];
				if (g < 0) {
					int d = unit_axis[u];
					const struct tsr_dim_sel *s = &sel->dim[d];
					int64_t cs = desc->chunk_shape[d];
					task[1 + d] = e[0];
					task[1 + nd + d] = e[1];
					cc[d] = e[2];
					/* the box: position k0's index from the chunk's corner, and one
					 * past its furthest position */
					first[d] = s->start + e[0] * s->step - e[2] * cs;
					int64_t last = first[d] + (e[1] - 1 - e[0]) * s->step;
					hi[d] = (first[d] > last ? first[d] : last) + 1;
					out_first += e[0] * plan->out_stride[d];
					continue;
				}
				int na = sel->groups[g].naxes;
				for (int j = 0; j < na; j++) {
					int d = sel->groups[g].axes[j];
					task[1 + d] = e[0];
					task[1 + nd + d] = e[1];
					cc[d] = e[2 + j];
					first[d] = e[2 + na + j];
					hi[d] = e[2 + 2 * na + j];
				}
			}
			for (int d = 0; d < nd; d++)
				chunk = chunk * desc->grid[d] + cc[d];
			task[0] = chunk;
			task[1 + 3 * nd] = out_first;
			for (int u = nunits - 1; u >= 0; u--) {
				if (++idx[u] < nlist[u])
					break;
				idx[u] = 0;
			}
		}
	}
	for (int u = 0; u < nunits; u++)
		free(lists[u]);
	if (status)
		tsr_plan_free(plan);
	return status;
}

int tsr_plan_units(const struct tsr_plan *p, const int64_t *k0, const int64_t *k1,
		   int axis[TSR_MAX_DIM], int64_t cnt[TSR_MAX_DIM], int64_t *total)
{
	int nu = 0;
	*total = 0;
	for (int i = 0; i < p->ndim; i++) {
		int g = p->group_of[i] - 1;
		if (g >= 0 && p->groups[g].axes[0] != i)
			continue;
		axis[nu] = i;
		cnt[nu] = k1[i] - k0[i];
		if (cnt[nu] <= 0)
			return 0;
		*total += cnt[nu++];
	}
	return nu;
}

void tsr_plan_unit_offsets(const struct tsr_plan *p, int64_t t, int nu, const int *axis,
			   const int64_t *cnt, const int64_t *lo, const int64_t *cstride,
			   int64_t *tab)
{
	const int64_t *k0 = tsr_task_k0(p, t), *first = tsr_task_first(p, t);
	int64_t origin[TSR_MAX_DIM];
	tsr_plan_chunk_origin(p, tsr_task_chunk(p, t), origin);
	for (int u = 0; u < nu; u++) {
		int i = axis[u], g = p->group_of[i] - 1;
		int64_t *so = tab, *dof = tab + cnt[u];
		tab += 2 * cnt[u];
		if (g < 0) {
			int64_t at = first[i] - (lo ? lo[i] : 0);
			for (int64_t j = 0; j < cnt[u]; j++) {
				so[j] = (at + j * p->step[i]) * cstride[i];
				dof[j] = (k0[i] + j) * p->out_stride[i];
			}
			continue;
		}
		const struct tsr_plan_group *pg = &p->groups[g];
		const int64_t *c = pg->coords + k0[i] * pg->naxes;
		for (int64_t j = 0; j < cnt[u]; j++, c += pg->naxes) {
			int64_t off = 0;
			for (int a = 0; a < pg->naxes; a++) {
				int ax = pg->axes[a];
				off += (c[a] - origin[ax] - (lo ? lo[ax] : 0)) * cstride[ax];
			}
			so[j] = off;
			dof[j] = pg->dst[k0[i] + j];
		}
	}
}
