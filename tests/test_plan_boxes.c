/* test_plan_boxes.c - a basic selection's plan, built without I/O from hand-made array
 * descriptions (FITS-like row and square tiles, Zarr chunks with edge chunks, a shard's inner
 * chunk grid, a b2nd-like 3-D chunking), lists each selected element exactly once: every task's
 * box (first, step, count per axis, chunk-local) and output mapping (out_first, out strides)
 * are checked element by element against a brute-force walk of the selection, for steps of
 * both signs and negative indices; so are its bounds, the prefix of the chunk it needs, and the
 * parts of it that tsr_box_clip cuts for sub-boxes of the chunk. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "plan/plan.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static int64_t rnd(int64_t n) /* in [0, n) */
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (int64_t)(rng_state % (uint64_t)n);
}

static int64_t elements_checked, tasks_checked, clips_checked;

/* The description a driver would fill: shape and chunk shape; the grid as tsr_array_grid
 * derives it. */
static void make_desc(struct tsr_desc *d, int nd, const int64_t *shape, const int64_t *chunk)
{
	memset(d, 0, sizeof(*d));
	d->ndim = nd;
	d->nchunks = 1;
	for (int i = 0; i < nd; i++) {
		d->shape[i] = shape[i];
		d->chunk_shape[i] = chunk[i];
		d->grid[i] = (shape[i] + chunk[i] - 1) / chunk[i];
		d->nchunks *= d->grid[i];
	}
}

/* Walks the j vectors of box b (C order), calling fn for each with its chunk-local index and
 * output offset as the box says them. */
static void box_walk(const struct tsr_box *b, void (*fn)(void *, const int64_t *, int64_t),
		     void *arg)
{
	int64_t j[TSR_MAX_DIM] = {0}, local[TSR_MAX_DIM];
	for (int i = 0; i < b->ndim; i++)
		if (b->count[i] <= 0)
			return;
	for (;;) {
		int64_t out = b->out_first;
		for (int i = 0; i < b->ndim; i++) {
			local[i] = b->first[i] + j[i] * b->step[i];
			out += j[i] * b->out_stride[i];
		}
		fn(arg, local, out);
		int i = b->ndim - 1;
		for (; i >= 0; i--) {
			if (++j[i] < b->count[i])
				break;
			j[i] = 0;
		}
		if (i < 0)
			return;
	}
}

struct walk {
	const struct tsr_desc *d;
	int64_t origin[TSR_MAX_DIM], extent[TSR_MAX_DIM];
	int64_t *got;             /* per output element: the flat array index placed there */
	int *hits;
	int64_t nout;
	int64_t lo[TSR_MAX_DIM], hi[TSR_MAX_DIM], maxc; /* seen bounds and C-order maximum */
	/* clip checks: the elements inside [clo, chi), by output offset */
	const int64_t *clo, *chi;
	int64_t *inside;          /* per output element: its chunk-local C index + 1, 0: none */
	int64_t ninside, nsub;
	int bad;
};

static void on_element(void *arg, const int64_t *local, int64_t out)
{
	struct walk *w = arg;
	const struct tsr_desc *d = w->d;
	int64_t flat = 0, c = 0;
	for (int i = 0; i < d->ndim; i++) {
		if (local[i] < 0 || local[i] >= w->extent[i]) {
			if (!w->bad++)
				fprintf(stderr, "element outside its chunk on axis %d: %lld of %lld\n", i,
					(long long)local[i], (long long)w->extent[i]);
			return;
		}
		flat = flat * d->shape[i] + w->origin[i] + local[i];
		c = c * w->extent[i] + local[i];
		w->lo[i] = local[i] < w->lo[i] ? local[i] : w->lo[i];
		w->hi[i] = local[i] + 1 > w->hi[i] ? local[i] + 1 : w->hi[i];
	}
	w->maxc = c > w->maxc ? c : w->maxc;
	if (out < 0 || out >= w->nout) {
		if (!w->bad++)
			fprintf(stderr, "output offset %lld outside [0, %lld)\n", (long long)out,
				(long long)w->nout);
		return;
	}
	w->got[out] = flat;
	w->hits[out]++;
	elements_checked++;
}

/* Elements of the task's box inside [clo, chi): their chunk-local C index by output offset. */
static void on_inside(void *arg, const int64_t *local, int64_t out)
{
	struct walk *w = arg;
	int64_t c = 0;
	for (int i = 0; i < w->d->ndim; i++) {
		if (local[i] < w->clo[i] || local[i] >= w->chi[i])
			return;
		c = c * w->extent[i] + local[i];
	}
	if (out >= 0 && out < w->nout && !w->inside[out]) {
		w->inside[out] = c + 1;
		w->ninside++;
	}
}

/* Each element of the clipped box must be one of those, once. */
static void on_sub(void *arg, const int64_t *local, int64_t out)
{
	struct walk *w = arg;
	int64_t c = 0;
	for (int i = 0; i < w->d->ndim; i++)
		c = c * w->extent[i] + local[i];
	if (out < 0 || out >= w->nout || w->inside[out] != c + 1) {
		if (!w->bad++)
			fprintf(stderr, "clipped element (output %lld) not in the clip box\n",
				(long long)out);
		return;
	}
	w->inside[out] = -1; /* seen */
	w->nsub++;
}

static void check_plan(const struct tsr_desc *d, const char *spec)
{
	struct tsr_selection sel;
	struct tsr_norm_sel ns;
	if (tsr_selection_parse(spec, &sel) != TSR_OK) {
		fprintf(stderr, "bad spec %s\n", spec);
		check_failures++;
		return;
	}
	int st = tsr_selection_normalize(&sel, d->ndim, d->shape, &ns);
	if (st != TSR_OK)
		return; /* an index out of range: nothing to plan */
	int nd = d->ndim;
	int64_t nout = ns.out_count;
	/* Brute force: every selected element's flat array index, by output offset (C order over
	 * the kept axes' counts). */
	int64_t *want = malloc((size_t)nout * sizeof(int64_t) + 8);
	int64_t *got = malloc((size_t)nout * sizeof(int64_t) + 8);
	int64_t *inside = malloc((size_t)nout * sizeof(int64_t) + 8);
	int *hits = calloc((size_t)nout + 1, sizeof(int));
	int64_t k[TSR_MAX_DIM] = {0};
	for (int64_t o = 0; o < nout; o++) {
		/* o's position along each axis: C order over the kept axes */
		int64_t rem = o, flat = 0;
		for (int i = nd - 1; i >= 0; i--) {
			if (ns.dim[i].keep) {
				k[i] = rem % ns.dim[i].count;
				rem /= ns.dim[i].count;
			} else {
				k[i] = 0;
			}
		}
		for (int i = 0; i < nd; i++)
			flat = flat * d->shape[i] + ns.dim[i].start + k[i] * ns.dim[i].step;
		want[o] = flat;
	}
	struct tsr_plan plan;
	CHECK_EQ_INT(tsr_plan_build(d, &ns, &plan), TSR_OK);
	struct walk w = {.d = d, .got = got, .hits = hits, .nout = nout, .inside = inside};
	for (int64_t t = 0; t < plan.ntasks && !w.bad; t++) {
		int64_t chunk = tsr_task_chunk(&plan, t), rem = chunk;
		CHECK(chunk >= 0 && chunk < d->nchunks);
		for (int i = nd - 1; i >= 0; i--) {
			w.origin[i] = (rem % d->grid[i]) * d->chunk_shape[i];
			rem /= d->grid[i];
			int64_t left = d->shape[i] - w.origin[i];
			w.extent[i] = left < d->chunk_shape[i] ? left : d->chunk_shape[i];
			w.lo[i] = INT64_MAX;
			w.hi[i] = INT64_MIN;
		}
		w.maxc = -1;
		struct tsr_box b;
		tsr_task_box(&plan, t, &b);
		CHECK_EQ_INT(b.ndim, nd);
		int64_t before = elements_checked;
		box_walk(&b, on_element, &w);
		CHECK(elements_checked > before); /* no empty tasks */
		/* the bounds and needed prefix the planner gives are the walk's, exactly */
		int64_t lo[TSR_MAX_DIM], hi[TSR_MAX_DIM];
		tsr_task_bounds(&plan, t, lo, hi);
		for (int i = 0; i < nd; i++) {
			CHECK_EQ_INT(lo[i], w.lo[i]);
			CHECK_EQ_INT(hi[i], w.hi[i]);
		}
		CHECK_EQ_INT(tsr_task_needed(&plan, t, w.extent), w.maxc + 1);
		int64_t org[TSR_MAX_DIM];
		tsr_plan_chunk_origin(&plan, chunk, org);
		CHECK(memcmp(org, w.origin, (size_t)nd * sizeof(int64_t)) == 0);
		/* a few sub-boxes of the chunk: the clipped box is exactly the box's elements
		 * inside, with the same output offsets */
		for (int r = 0; r < 4; r++) {
			int64_t clo[TSR_MAX_DIM], chi[TSR_MAX_DIM];
			for (int i = 0; i < nd; i++) {
				clo[i] = rnd(w.extent[i]);
				chi[i] = clo[i] + 1 + rnd(w.extent[i] - clo[i]);
			}
			memset(inside, 0, (size_t)nout * sizeof(int64_t));
			w.clo = clo;
			w.chi = chi;
			w.ninside = w.nsub = 0;
			box_walk(&b, on_inside, &w);
			struct tsr_box sub;
			int any = tsr_box_clip(&b, clo, chi, &sub);
			CHECK_EQ_INT(any, w.ninside > 0);
			if (any)
				box_walk(&sub, on_sub, &w);
			CHECK_EQ_INT(w.nsub, w.ninside);
			clips_checked++;
		}
		tasks_checked++;
	}
	if (w.bad)
		check_failures++;
	for (int64_t o = 0; o < nout && !w.bad; o++) {
		if (hits[o] != 1 || got[o] != want[o]) {
			fprintf(stderr, "%s: output %lld: placed %d times, array index %lld, want %lld\n",
				spec, (long long)o, hits[o], (long long)got[o], (long long)want[o]);
			check_failures++;
			break;
		}
	}
	if (check_failures)
		fprintf(stderr, "  (selection \"%s\" of a %d-D array)\n", spec, nd);
	tsr_plan_free(&plan);
	free(want);
	free(got);
	free(inside);
	free(hits);
}

/* A random basic item for an axis of n: a slice with either sign of bounds and step, or an
 * integer index (negative ones count from the end). */
static int rand_item(char *buf, size_t cap, int64_t n)
{
	switch (rnd(6)) {
	case 0:
		return snprintf(buf, cap, ":");
	case 1:
		return snprintf(buf, cap, "%lld", (long long)(rnd(2 * n) - n));
	case 2:
		return snprintf(buf, cap, "%lld:%lld", (long long)(rnd(2 * n + 2) - n - 1),
				(long long)(rnd(2 * n + 2) - n - 1));
	case 3:
		return snprintf(buf, cap, "::%lld", (long long)(rnd(2) ? 1 + rnd(4) : -1 - rnd(4)));
	default: {
		long long s = rnd(2) ? 1 + rnd(5) : -1 - rnd(5);
		long long a = rnd(2 * n + 2) - n - 1, z = rnd(2 * n + 2) - n - 1;
		if (rnd(4) == 0)
			return snprintf(buf, cap, "%lld::%lld", a, s);
		return snprintf(buf, cap, "%lld:%lld:%lld", a, z, s);
	}
	}
}

static void check_layout(const char *what, int nd, const int64_t *shape, const int64_t *chunk,
			 const char *const *specs, int nrandom)
{
	struct tsr_desc d;
	make_desc(&d, nd, shape, chunk);
	int before = check_failures;
	for (const char *const *s = specs; *s; s++)
		check_plan(&d, *s);
	for (int r = 0; r < nrandom && check_failures == before; r++) {
		char spec[512];
		size_t n = 0;
		for (int i = 0; i < nd; i++) {
			if (i)
				spec[n++] = ',';
			if (rnd(12) == 0)
				n += (size_t)snprintf(spec + n, sizeof(spec) - n, "None,");
			n += (size_t)rand_item(spec + n, sizeof(spec) - n, shape[i]);
		}
		spec[n] = '\0';
		check_plan(&d, spec);
	}
	if (check_failures != before)
		fprintf(stderr, "%s: failed\n", what);
}

int main(void)
{
	/* FITS tile-compressed images: row tiles (ZTILE1 = NAXIS1, ZTILE2 = 1) and square tiles
	 * with edge tiles, in C order (NAXIS2, NAXIS1) */
	static const char *const fits_specs[] = {
		"", "5", "-1", "-37", "10:20", "::-1", "-5:-30:-3,7::4", "3:4,-1::-7", "::2,::-2",
		"None,::3,-3", "...,-10:", NULL};
	check_layout("FITS row tiles", 2, (int64_t[]){37, 53}, (int64_t[]){1, 53}, fits_specs, 300);
	check_layout("FITS square tiles", 2, (int64_t[]){37, 53}, (int64_t[]){16, 16}, fits_specs,
		     300);
	/* a FITS cube of 2-D tiles */
	static const char *const cube_specs[] = {"", "1", "-1,::-5", "::-2,3:30:4,-40:-1:3", NULL};
	check_layout("FITS cube tiles", 3, (int64_t[]){5, 37, 41}, (int64_t[]){1, 8, 41}, cube_specs,
		     200);
	/* Zarr chunks, edge chunks on every axis */
	static const char *const zarr_specs[] = {
		"", "0", "-1,-1,-1", "1:9:3,::-4,-2::-5", "::-1,::-1,::-1", "4:8,5:10,3:6", NULL};
	check_layout("Zarr chunks", 3, (int64_t[]){10, 11, 12}, (int64_t[]){4, 5, 3}, zarr_specs,
		     300);
	/* a shard's inner chunks are the grid the planner sees (which of them are missing is the
	 * chunk description's business): 4-D, inner chunks 2 x 3 x 4 x 5 */
	static const char *const shard_specs[] = {"", "::3,1:,::-2,-6:-1", "-1,-1,:,::-3", NULL};
	check_layout("shard inner chunks", 4, (int64_t[]){7, 8, 9, 11}, (int64_t[]){2, 3, 4, 5},
		     shard_specs, 200);
	/* b2nd-like chunking (its blocks are the codec's: the plan gives the box they decode) */
	static const char *const b2nd_specs[] = {"", "10:90:7,-3::-11,::13", NULL};
	check_layout("b2nd chunks", 3, (int64_t[]){100, 60, 70}, (int64_t[]){32, 32, 32}, b2nd_specs,
		     40);
	/* one chunk holding everything, and a chunk per element */
	static const char *const one_specs[] = {"", "::-1,2", "-3:,::2", NULL};
	check_layout("one chunk", 2, (int64_t[]){6, 7}, (int64_t[]){6, 7}, one_specs, 50);
	check_layout("element chunks", 2, (int64_t[]){6, 7}, (int64_t[]){1, 1}, one_specs, 50);
	/* 1-D */
	static const char *const line_specs[] = {"", "-100::-9", "3:97:5", "-1", NULL};
	check_layout("1-D", 1, (int64_t[]){100}, (int64_t[]){7}, line_specs, 200);
	printf("%lld elements in %lld tasks checked, %lld clips\n", (long long)elements_checked,
	       (long long)tasks_checked, (long long)clips_checked);
	CHECK(elements_checked > 100000);
	CHECK_DONE();
}
