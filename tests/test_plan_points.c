/* test_plan_points.c - an advanced selection's plan (integer arrays, NumPy's vectorised rules
 * and orthogonal ones, negative indices, repeated points, slices of both step signs), built
 * without I/O from a hand-made description of Zarr-like chunks with edge chunks: each task's
 * gather tables (tsr_plan_unit_offsets, from its planned box and bounds) place every selected
 * element exactly once, from the array element a brute-force walk of the key names; the bounds
 * are the tight box of the task's elements and the needed prefix ends at its last one. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "plan/plan.h"

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static int64_t rnd(int64_t n) /* in [0, n) */
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (int64_t)(rng_state % (uint64_t)n);
}

static int64_t elements_checked, tasks_checked;

enum { VEC_SEPARATED, VEC_ADJACENT, ORTHO };

/* One key over a 3-D array: integer arrays ys (axis 0) and xs (axis 2) around a slice of axis 1
 * (VEC_ADJACENT: the slice first, on axis 0, then ys on axis 1 and xs on axis 2). */
static void check_key(const struct tsr_desc *d, int kind, const int64_t *ys, int ny,
		      const int64_t *xs, int nx, const char *slice)
{
	char spec[4096];
	size_t n = 0;
	char ybuf[1024] = "", xbuf[1024] = "";
	for (int i = 0, m = 0; i < ny; i++)
		m += snprintf(ybuf + m, sizeof(ybuf) - (size_t)m, "%s%lld", i ? "," : "", (long long)ys[i]);
	for (int i = 0, m = 0; i < nx; i++)
		m += snprintf(xbuf + m, sizeof(xbuf) - (size_t)m, "%s%lld", i ? "," : "", (long long)xs[i]);
	if (kind == VEC_ADJACENT)
		n = (size_t)snprintf(spec, sizeof(spec), "%s,[%s],[%s]", slice, ybuf, xbuf);
	else
		n = (size_t)snprintf(spec, sizeof(spec), "[%s],%s,[%s]", ybuf, slice, xbuf);
	(void)n;
	struct tsr_index *ix = NULL;
	CHECK_EQ_INT(tsr_index_parse(spec, kind == ORTHO ? TSR_INDEX_ORTHOGONAL : TSR_INDEX_NUMPY,
				     &ix), TSR_OK);
	struct tsr_norm_sel ns;
	CHECK_EQ_INT(tsr_index_normalize(ix, 3, d->shape, &ns), TSR_OK);
	int sa = kind == VEC_ADJACENT ? 0 : 1; /* the sliced axis */
	const struct tsr_dim_sel *s = &ns.dim[sa];
	/* Brute force: each output element's array element, from the key as NumPy reads it. */
	int64_t nout = ns.out_count, *want = malloc((size_t)nout * sizeof(int64_t) + 8);
	int64_t *got = malloc((size_t)nout * sizeof(int64_t) + 8);
	int *hits = calloc((size_t)nout + 1, sizeof(int));
	int64_t expect = kind == ORTHO ? (int64_t)ny * s->count * nx : (int64_t)ny * s->count;
	CHECK_EQ_INT(nout, expect);
	int64_t a[3], o = 0;
	if (kind == ORTHO) {
		for (int yi = 0; yi < ny; yi++)
			for (int64_t j = 0; j < s->count; j++)
				for (int xi = 0; xi < nx; xi++, o++) {
					a[0] = ys[yi] < 0 ? ys[yi] + d->shape[0] : ys[yi];
					a[1] = s->start + j * s->step;
					a[2] = xs[xi] < 0 ? xs[xi] + d->shape[2] : xs[xi];
					want[o] = (a[0] * d->shape[1] + a[1]) * d->shape[2] + a[2];
				}
	} else if (kind == VEC_SEPARATED) { /* broadcast axis first: (n, slice) */
		for (int p = 0; p < ny; p++)
			for (int64_t j = 0; j < s->count; j++, o++) {
				a[0] = ys[p] < 0 ? ys[p] + d->shape[0] : ys[p];
				a[1] = s->start + j * s->step;
				a[2] = xs[p] < 0 ? xs[p] + d->shape[2] : xs[p];
				want[o] = (a[0] * d->shape[1] + a[1]) * d->shape[2] + a[2];
			}
	} else { /* adjacent arrays: (slice, n) */
		for (int64_t j = 0; j < s->count; j++)
			for (int p = 0; p < ny; p++, o++) {
				a[0] = s->start + j * s->step;
				a[1] = ys[p] < 0 ? ys[p] + d->shape[1] : ys[p];
				a[2] = xs[p] < 0 ? xs[p] + d->shape[2] : xs[p];
				want[o] = (a[0] * d->shape[1] + a[1]) * d->shape[2] + a[2];
			}
	}
	struct tsr_plan plan;
	CHECK_EQ_INT(tsr_plan_build(d, &ns, &plan), TSR_OK);
	CHECK(plan.ngroups > 0);
	int bad = 0;
	for (int64_t t = 0; t < plan.ntasks && !bad; t++) {
		int64_t chunk = tsr_task_chunk(&plan, t), rem = chunk;
		int64_t origin[3], extent[3], lo[3], hi[3], cstr[3], bstr[3], wlo[3], whi[3];
		for (int i = 2; i >= 0; i--) {
			origin[i] = (rem % d->grid[i]) * d->chunk_shape[i];
			rem /= d->grid[i];
			int64_t left = d->shape[i] - origin[i];
			extent[i] = left < d->chunk_shape[i] ? left : d->chunk_shape[i];
			wlo[i] = INT64_MAX;
			whi[i] = INT64_MIN;
		}
		tsr_task_bounds(&plan, t, lo, hi);
		for (int i = 0; i < 3; i++)
			if (lo[i] < 0 || hi[i] <= lo[i] || hi[i] > extent[i]) {
				fprintf(stderr, "%s: task %lld: bounds [%lld, %lld) on axis %d\n", spec,
					(long long)t, (long long)lo[i], (long long)hi[i], i);
				bad = 1;
			}
		if (bad)
			break;
		cstr[2] = bstr[2] = 1;
		for (int i = 1; i >= 0; i--) {
			cstr[i] = cstr[i + 1] * extent[i + 1];
			bstr[i] = bstr[i + 1] * (hi[i + 1] - lo[i + 1]);
		}
		struct tsr_box b;
		tsr_task_box(&plan, t, &b);
		int axis[TSR_MAX_DIM];
		int64_t cnt[TSR_MAX_DIM], total;
		int nu = tsr_plan_units(&plan, tsr_task_k0(&plan, t), tsr_task_k1(&plan, t), axis, cnt,
					&total);
		CHECK(nu > 0);
		if (nu <= 0) {
			bad = 1;
			break;
		}
		/* the tables for the chunk's values, and for values of just the bounds' box */
		int64_t *tab = malloc((size_t)(2 * total) * sizeof(int64_t));
		int64_t *btab = malloc((size_t)(2 * total) * sizeof(int64_t));
		tsr_plan_unit_offsets(&plan, t, nu, axis, cnt, NULL, cstr, tab);
		tsr_plan_unit_offsets(&plan, t, nu, axis, cnt, lo, bstr, btab);
		int64_t *so[TSR_MAX_DIM], *dof[TSR_MAX_DIM], *bso[TSR_MAX_DIM], k[TSR_MAX_DIM] = {0};
		for (int u = 0, at = 0; u < nu; at += 2 * (int)cnt[u], u++) {
			so[u] = tab + at;
			dof[u] = tab + at + cnt[u];
			bso[u] = btab + at;
			/* a basic axis's positions are the planned box's: first + j * step */
			int i = axis[u];
			if (!plan.group_of[i])
				for (int64_t j = 0; j < cnt[u]; j++)
					CHECK_EQ_INT(so[u][j], (b.first[i] + j * b.step[i]) * cstr[i]);
			else
				CHECK_EQ_INT(b.step[i], 0);
		}
		int64_t maxc = -1;
		for (;;) {
			int64_t src = 0, bsrc = 0, out = 0, loc[3], bloc[3], flat = 0;
			for (int u = 0; u < nu; u++) {
				src += so[u][k[u]];
				bsrc += bso[u][k[u]];
				out += dof[u][k[u]];
			}
			maxc = src > maxc ? src : maxc;
			for (int i = 0; i < 3; i++) {
				loc[i] = src / cstr[i] % extent[i];
				bloc[i] = bsrc / bstr[i] % (hi[i] - lo[i]);
				flat = flat * d->shape[i] + origin[i] + loc[i];
				CHECK_EQ_INT(bloc[i] + lo[i], loc[i]);
				wlo[i] = loc[i] < wlo[i] ? loc[i] : wlo[i];
				whi[i] = loc[i] + 1 > whi[i] ? loc[i] + 1 : whi[i];
			}
			if (src < 0 || src >= extent[0] * cstr[0] || out < 0 || out >= nout) {
				fprintf(stderr, "%s: task %lld: element %lld or output %lld outside\n", spec,
					(long long)t, (long long)src, (long long)out);
				bad = 1;
				break;
			}
			got[out] = flat;
			hits[out]++;
			elements_checked++;
			int u = nu - 1;
			for (; u >= 0; u--) {
				if (++k[u] < cnt[u])
					break;
				k[u] = 0;
			}
			if (u < 0)
				break;
		}
		for (int i = 0; i < 3 && !bad; i++) {
			CHECK_EQ_INT(lo[i], wlo[i]);
			CHECK_EQ_INT(hi[i], whi[i]);
			if (plan.group_of[i])
				CHECK_EQ_INT(b.first[i], lo[i]);
		}
		CHECK_EQ_INT(tsr_task_needed(&plan, t, extent), maxc + 1);
		free(tab);
		free(btab);
		tasks_checked++;
	}
	for (int64_t q = 0; q < nout && !bad; q++)
		if (hits[q] != 1 || got[q] != want[q]) {
			fprintf(stderr, "%s: output %lld placed %d times, from %lld, want %lld\n", spec,
				(long long)q, hits[q], (long long)got[q], (long long)want[q]);
			bad = 1;
		}
	if (bad)
		check_failures++;
	tsr_plan_free(&plan);
	tsr_norm_sel_free(&ns);
	tsr_index_free(ix);
	free(want);
	free(got);
	free(hits);
}

int main(void)
{
	struct tsr_desc d;
	memset(&d, 0, sizeof(d));
	d.ndim = 3;
	int64_t shape[3] = {13, 10, 17}, chunk[3] = {4, 3, 5};
	d.nchunks = 1;
	for (int i = 0; i < 3; i++) {
		d.shape[i] = shape[i];
		d.chunk_shape[i] = chunk[i];
		d.grid[i] = (shape[i] + chunk[i] - 1) / chunk[i];
		d.nchunks *= d.grid[i];
	}
	static const char *const slices[] = {":", "::-1", "1:9:3", "-2::-4", "-7:-1"};
	for (int r = 0; r < 600 && !check_failures; r++) {
		int kind = (int)rnd(3), n = 1 + (int)rnd(12), nx = kind == ORTHO ? 1 + (int)rnd(6) : n;
		int64_t ys[16], xs[16];
		int64_t yn = d.shape[kind == VEC_ADJACENT ? 1 : 0];
		for (int i = 0; i < n; i++) /* negative ones count from the end; repeats too */
			ys[i] = i && rnd(5) == 0 ? ys[i - 1] : rnd(2 * yn) - yn;
		for (int i = 0; i < nx; i++)
			xs[i] = i && rnd(5) == 0 ? xs[i - 1] : rnd(2 * d.shape[2]) - d.shape[2];
		const char *sl = slices[rnd(5)];
		check_key(&d, kind, ys, n, xs, nx, sl);
	}
	printf("%lld elements in %lld tasks checked\n", (long long)elements_checked,
	       (long long)tasks_checked);
	CHECK(elements_checked > 10000);
	CHECK_DONE();
}
