/* test_place_gather_emu.c - the place kernel's gather (place_core.h, built for the CPU) places random advanced selections of corpus arrays as the CPU engine's tsr_read_index does. */
#define TSR_PLACE_EMU 1
/* rows of a few positions, so that the keys here split their points into many */
#define TSR_PC_SEG 5
#include "cuda/place_core.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/array.h"
#include "plan/plan.h"
#include "engine/gather.h"
#include "test_rng.h"
#include "tessera.h"

/*
 * The CUDA engine turns each task of an advanced selection's plan into a gather: per task, unit
 * tables built on the host from the plan (tsr_gather_table), which the place kernel walks with
 * place_core.h's tsr_pc_rows / tsr_pc_row / tsr_pc_at (CI has no GPU). Here the same code runs
 * on the CPU over chunk values cut from the whole array, laid out as the chunk is stored (its
 * extent from the driver: FITS edge tiles are smaller, Zarr and Blosc2 edge chunks padded, the
 * padding poisoned), for thousands of random keys (integer arrays of 1 and 2 dims with negative
 * indices, masks of 1 and 2 dims, integers, slices of any step, ..., None; NumPy's vectorised
 * form and oindex). Every element must come from inside its chunk, land inside the output, be
 * written exactly once, and equal the CPU engine's read of the same key. Rows are cut to a few
 * positions here (TSR_PC_SEG), so the segments of a long last unit are tested too.
 */

static int64_t rnd(int64_t n) /* [0, n) */
{
	return n > 0 ? (int64_t)(rng() % (uint64_t)n) : 0;
}

/* A random in-range index of an axis of n, negative half the time. */
static int64_t rnd_index(int64_t n)
{
	int64_t i = rnd(n);
	return rng() & 1 ? i - n : i;
}

static void add_slice(struct tsr_index *ix, int64_t n)
{
	struct tsr_sel_item it = {.kind = TSR_SEL_SLICE};
	int64_t step = 1 + rnd(3);
	if (rng() % 4 == 0)
		step = -step;
	it.has_step = 1;
	it.step = step;
	if (rng() & 1) {
		it.has_start = 1;
		it.start = rnd_index(n);
	}
	if (rng() & 1) {
		it.has_stop = 1;
		it.stop = rnd(n + 1);
	}
	CHECK_EQ_INT(tsr_index_add_item(ix, &it), 0);
}

/* A random key for an array of nd axes of shape. Returns the index or NULL. */
static struct tsr_index *random_key(int nd, const int64_t *shape, int *mode_ret)
{
	int mode = rng() % 3 == 0 ? TSR_INDEX_ORTHOGONAL : TSR_INDEX_NUMPY;
	struct tsr_index *ix = NULL;
	if (tsr_index_create(mode, &ix))
		return NULL;
	/* NumPy form: every array broadcasts to B (1 or 2 dims); oindex: 1-D arrays. */
	int bnd = mode == TSR_INDEX_NUMPY && rng() % 3 == 0 ? 2 : 1;
	int64_t bshape[2] = {1 + rnd(7), 1 + rnd(4)};
	int advanced = 0, ellipsis = nd > 1 && rng() % 5 == 0 ? (int)rnd(nd) : -1;
	for (int d = 0; d < nd; d++) {
		int64_t n = shape[d];
		if (d == ellipsis) {
			struct tsr_sel_item it = {.kind = TSR_SEL_ELLIPSIS};
			CHECK_EQ_INT(tsr_index_add_item(ix, &it), 0);
			d++; /* the ellipsis covers this axis and the next */
			continue;
		}
		if (rng() % 9 == 0) {
			struct tsr_sel_item it = {.kind = TSR_SEL_NEWAXIS};
			CHECK_EQ_INT(tsr_index_add_item(ix, &it), 0);
		}
		int kind = (int)rnd(10);
		if (kind < 3 && !(d == nd - 1 && !advanced)) {
			add_slice(ix, n);
		} else if (kind == 3) {
			struct tsr_sel_item it = {.kind = TSR_SEL_INDEX, .start = rnd_index(n)};
			CHECK_EQ_INT(tsr_index_add_item(ix, &it), 0);
		} else if (kind == 4 && mode == TSR_INDEX_NUMPY && bnd == 1 && d + 1 < nd &&
			   d + 1 != ellipsis &&
			   shape[d] * shape[d + 1] <= 4096) {
			/* a 2-D mask over this axis and the next: its nonzero() points */
			int64_t ms[2] = {shape[d], shape[d + 1]};
			unsigned char *m = check_malloc((size_t)(ms[0] * ms[1]));
			int64_t set = 0;
			for (int64_t i = 0; i < ms[0] * ms[1]; i++)
				set += m[i] = rng() % 40 == 0;
			/* its point count must broadcast with B: make it B's size */
			for (int64_t i = 0; i < ms[0] * ms[1] && set < bshape[0]; i++)
				if (!m[i]) {
					m[i] = 1;
					set++;
				}
			for (int64_t i = 0; i < ms[0] * ms[1] && set > bshape[0]; i++)
				if (m[i]) {
					m[i] = 0;
					set--;
				}
			CHECK_EQ_INT(tsr_index_add_mask(ix, 2, ms, m), 0);
			free(m);
			d++;
			advanced = 1;
		} else if (kind == 5 && (mode == TSR_INDEX_ORTHOGONAL || bnd == 1)) {
			/* a 1-D mask: in NumPy's form its point count must be B's */
			int64_t want = mode == TSR_INDEX_NUMPY ? bshape[0] : -1;
			if (want > n) {
				add_slice(ix, n);
				continue;
			}
			unsigned char *m = check_malloc((size_t)n);
			int64_t set = 0;
			for (int64_t i = 0; i < n; i++)
				set += m[i] = rng() % 3 == 0;
			for (int64_t i = 0; want >= 0 && i < n; i++) {
				if (set < want && !m[i]) {
					m[i] = 1;
					set++;
				} else if (set > want && m[i]) {
					m[i] = 0;
					set--;
				}
			}
			CHECK_EQ_INT(tsr_index_add_mask(ix, 1, &n, m), 0);
			free(m);
			advanced = 1;
		} else {
			/* an integer array: B's shape (oindex: 1-D of any length) */
			int and = mode == TSR_INDEX_NUMPY ? bnd : 1;
			int64_t as[2] = {mode == TSR_INDEX_NUMPY ? bshape[0] : 1 + rnd(9), bshape[1]};
			int64_t cnt = and == 2 ? as[0] * as[1] : as[0];
			int64_t *v = check_malloc((size_t)cnt * sizeof(int64_t));
			int64_t base = rnd_index(n);
			for (int64_t i = 0; i < cnt; i++) /* clustered or scattered, repeats allowed */
				v[i] = rng() & 1 ? rnd_index(n) : (base + n + rnd(3)) % n;
			CHECK_EQ_INT(tsr_index_add_array(ix, and, as, v), 0);
			free(v);
			advanced = 1;
		}
	}
	*mode_ret = mode;
	return ix;
}

static int64_t elements_placed, keys_done;

/* One key on array a (whole: its values, all of it): the gathers against tsr_read_index. */
static void one_key(struct tsr_array *a, const unsigned char *whole, const struct tsr_index *ix,
		    const char *name)
{
	const struct tsr_desc *d = &a->desc;
	int nd = d->ndim;
	size_t es = tsr_dtype_size(d->dtype);
	int ond;
	int64_t oshape[TSR_MAX_DIM];
	int st = tsr_index_shape(a, ix, &ond, oshape);
	if (st) /* a key NumPy refuses too (such keys are tests of their own elsewhere) */
		return;
	struct tsr_norm_sel ns;
	CHECK_EQ_INT(tsr_index_normalize(ix, nd, d->shape, &ns), 0);
	if (!ns.ngroups) { /* no arrays or masks drawn: a basic key, placed as boxes */
		tsr_norm_sel_free(&ns);
		return;
	}
	size_t nout = (size_t)ns.out_count;
	unsigned char *want = check_malloc(nout * es), *got = check_malloc(nout * es);
	int *hits = calloc(nout + 1, sizeof(int));
	struct tsr_buffer buf = {.data = want, .nbytes = nout * es, .mem = TSR_MEM_HOST};
	st = tsr_read_index(a, ix, &buf, NULL, NULL);
	CHECK_EQ_INT(st, 0);
	if (st)
		fprintf(stderr, "%s: %s\n", name, tsr_errmsg());
	memset(got, 0xEE, nout * es);
	struct tsr_plan plan;
	CHECK_EQ_INT(tsr_plan_build(d, &ns, &plan), 0);
	CHECK(plan.ngroups > 0 || plan.ntasks == 0);
	for (int64_t t = 0; t < plan.ntasks && !check_failures; t++) {
		int64_t chunk = tsr_task_chunk(&plan, t), rem = chunk, origin[TSR_MAX_DIM];
		struct tsr_chunk_ref ref;
		memset(&ref, 0, sizeof(ref));
		CHECK_EQ_INT(a->ops->chunk_ref(a, chunk, &ref), 0);
		for (int i = nd - 1; i >= 0; i--) {
			origin[i] = (rem % d->grid[i]) * d->chunk_shape[i];
			rem /= d->grid[i];
		}
		/* the chunk's values as stored: C order over its extent, padding poisoned */
		int64_t npix = 1, cstride[TSR_MAX_DIM];
		for (int i = nd - 1; i >= 0; i--) {
			cstride[i] = npix;
			npix *= ref.extent[i];
		}
		unsigned char *vals = check_malloc((size_t)npix * es);
		for (int64_t e = 0; e < npix; e++) {
			int64_t r = e, flat = 0, idx[TSR_MAX_DIM];
			int in = 1;
			for (int i = nd - 1; i >= 0; i--) {
				idx[i] = origin[i] + r % ref.extent[i];
				r /= ref.extent[i];
				in &= idx[i] < d->shape[i];
			}
			for (int i = 0; i < nd; i++)
				flat = flat * d->shape[i] + idx[i];
			if (in)
				memcpy(vals + e * (int64_t)es, whole + flat * (int64_t)es, es);
			else
				memset(vals + e * (int64_t)es, 0xAB, es);
		}
		/* the place as the CUDA engine describes it (its value fields: a plain copy) */
		int64_t words = tsr_gather_words(&plan, t);
		int64_t *tab = check_malloc((size_t)words * sizeof(int64_t));
		tsr_gather_table(&plan, t, ref.extent, tab);
		struct tsr_cuda_place pl;
		memset(&pl, 0, sizeof(pl));
		pl.ndim = nd;
		for (int i = 0; i < nd; i++)
			pl.extent[i] = ref.extent[i];
		tsr_gather_describe(&plan, t, (uint64_t)(uintptr_t)tab, &pl);
		CHECK(pl.nunits >= 1 && pl.nunits <= nd);
		/* the kernel's loops: rows over blocks, elements over threads */
		int64_t n, rows = tsr_pc_rows(&pl, &n);
		for (int64_t r = 0; r < rows; r++) {
			struct tsr_pc_row row;
			tsr_pc_row(&pl, cstride, r, &row);
			CHECK(row.n >= 0 && row.n <= n);
			for (int64_t j = 0; j < row.n; j++) {
				int64_t e, o;
				tsr_pc_at(&row, j, &e, &o);
				if (e < 0 || e >= npix || o < 0 || o >= (int64_t)nout) {
					fprintf(stderr, "%s: task %lld: element %lld -> %lld outside "
						"chunk (%lld) or output (%zu)\n", name, (long long)t,
						(long long)e, (long long)o, (long long)npix, nout);
					check_failures++;
					break;
				}
				memcpy(got + o * (int64_t)es, vals + e * (int64_t)es, es);
				hits[o]++;
				elements_placed++;
			}
		}
		free(tab);
		free(vals);
	}
	for (size_t o = 0; o < nout && !check_failures; o++)
		if (hits[o] != 1) {
			fprintf(stderr, "%s: output element %zu written %d times\n", name, o, hits[o]);
			check_failures++;
		}
	if (!check_failures && memcmp(got, want, nout * es)) {
		fprintf(stderr, "%s: gathered values differ from tsr_read_index's\n", name);
		check_failures++;
	}
	keys_done++;
	tsr_plan_free(&plan);
	tsr_norm_sel_free(&ns);
	free(hits);
	free(want);
	free(got);
}

int main(void)
{
	const char *corpus = getenv("TSR_CORPUS");
	if (!corpus)
		corpus = "../shared/corpus";
	/* edge tiles smaller than the grid (FITS), padded edge chunks (Zarr, Blosc2), 2 to 4 dims */
	static const struct {
		const char *path;
		int hdu;
	} cases[] = {
		{"fits/c_gzip2_i32_tiles.fits", 1},
		{"fits/c_rice_f32_sd1.fits", 1},
		{"zarr2/4d_u16.zarr", 0},
		{"zarr2/nested_f32_3d.zarr", 0},
		{"blosc2/lz4_shuffle_f4_3d.b2nd", 0},
	};
	struct tsr_context *ctx = NULL;
	CHECK_EQ_INT(tsr_context_create(NULL, &ctx), 0);
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", corpus, cases[c].path);
		struct tsr_open_options oo;
		memset(&oo, 0, sizeof(oo));
		oo.struct_size = sizeof(oo);
		oo.hdu = cases[c].hdu;
		struct tsr_array *a = NULL;
		int st = tsr_open(ctx, path, cases[c].hdu ? &oo : NULL, &a);
		CHECK_EQ_INT(st, 0);
		if (st) {
			fprintf(stderr, "%s: %s\n", path, tsr_errmsg());
			continue;
		}
		void *whole = NULL;
		size_t nbytes = 0;
		int wnd;
		int64_t wshape[TSR_MAX_DIM];
		CHECK_EQ_INT(tsr_read_alloc(a, NULL, NULL, &whole, &nbytes, &wnd, wshape, NULL), 0);
		for (int k = 0; k < 600 && !check_failures; k++) {
			int mode = 0;
			struct tsr_index *ix = random_key(a->desc.ndim, a->desc.shape, &mode);
			if (!ix)
				continue;
			char name[4200];
			snprintf(name, sizeof(name), "%s key %d (%s)", cases[c].path, k,
				 mode == TSR_INDEX_NUMPY ? "vectorised" : "oindex");
			one_key(a, whole, ix, name);
			tsr_index_free(ix);
		}
		tsr_free(whole);
		tsr_array_free(a);
	}
	tsr_context_free(ctx);
	printf("%lld keys, %lld elements gathered\n", (long long)keys_done,
	       (long long)elements_placed);
	CHECK(keys_done > 2000);
	CHECK_DONE();
}
