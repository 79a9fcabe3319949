/* thread_reads.h - the concurrency harness of test_fits_threads.c and test_zarr_threads.c:
 * random NumPy selections with their own index oracle, 16 threads on one handle, and threads
 * opening handles of their own on one context; every result is checked against a slice of a
 * single-threaded whole read. */
#ifndef TSR_THREAD_READS_H
#define TSR_THREAD_READS_H

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "tessera.h"

#define TR_NTHREADS 16
/* Largest section one read asks for, in elements: big enough to span many chunks of the
 * corpus arrays, small enough that the TSan run stays in seconds. */
#define TR_MAX_ELEMS ((size_t)1 << 16)

/* One array of the corpus and its reference: the whole array, read by one thread. */
struct tr_target {
	char path[1024];
	const char *label;
	struct tsr_open_options oo;
	struct tsr_array_info in; /* of the reference handle: shape, dtype */
	unsigned char *ref;
	size_t es;
};

/* splitmix64: each thread's sequence follows from the printed seed alone. */
static uint64_t tr_rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int64_t tr_below(uint64_t *s, int64_t n)
{
	return n > 0 ? (int64_t)(tr_rnd(s) % (uint64_t)n) : 0;
}

/* The seed of this run: TSR_THREAD_SEED repeats a failing one. */
static uint64_t tr_seed(void)
{
	const char *e = getenv("TSR_THREAD_SEED");
	uint64_t s = e ? strtoull(e, NULL, 0) : (uint64_t)time(NULL) * 1000003u ^ (uint64_t)getpid();
	printf("seed %llu (TSR_THREAD_SEED=%llu repeats this run)\n", (unsigned long long)s,
	       (unsigned long long)s);
	return s;
}

/* Per-axis picks of one random selection; idx[d] holds count[d] array indices, in order. */
struct tr_pick {
	int ndim;
	int64_t count[TSR_MAX_DIM];
	int64_t *idx[TSR_MAX_DIM];
	char spec[512]; /* the selection as NumPy would write it, for failure reports */
};

/* Python's slice.indices(n) then range(): the oracle is written from the language's rules,
 * not from the library's normalisation, so the two can disagree. */
static int64_t tr_slice(int64_t n, const struct tsr_sel_item *it, int64_t *out)
{
	int64_t step = it->has_step ? it->step : 1, a, b, c = 0;
	if (step > 0) {
		a = it->has_start ? it->start : 0;
		b = it->has_stop ? it->stop : n;
		a = a < 0 ? (a + n < 0 ? 0 : a + n) : (a > n ? n : a);
		b = b < 0 ? (b + n < 0 ? 0 : b + n) : (b > n ? n : b);
		for (int64_t i = a; i < b; i += step)
			out[c++] = i;
	} else {
		a = it->has_start ? it->start : n - 1;
		b = it->has_stop ? it->stop : -1 - n; /* absent: past the front */
		a = a < 0 ? (a + n < 0 ? -1 : a + n) : (a > n - 1 ? n - 1 : a);
		b = b < 0 ? (b + n < 0 ? -1 : b + n) : (b > n - 1 ? n - 1 : b);
		for (int64_t i = a; i > b; i += step)
			out[c++] = i;
	}
	return c;
}

__attribute__((format(printf, 2, 3)))
static void tr_spec_add(struct tr_pick *pk, const char *fmt, ...)
{
	size_t n = strlen(pk->spec);
	va_list ap;
	va_start(ap, fmt);
	if (n + 1 < sizeof(pk->spec))
		vsnprintf(pk->spec + n, sizeof(pk->spec) - n, fmt, ap);
	va_end(ap);
}

/* A random basic-indexing selection: integers (also negative), slices with any step, start
 * and stop absent or negative or beyond the axis, now and then a leading "..." or a None. */
static void tr_random_sel(const struct tsr_array_info *in, uint64_t *s, struct tsr_selection *sel,
			  struct tr_pick *pk)
{
	int nd = in->ndim, k = 0;
	pk->ndim = nd;
	pk->spec[0] = '\0';
	int ellipsis = nd > 1 && tr_below(s, 10) == 0; /* axis 0 whole, through "..." */
	int newaxis = tr_below(s, 10) == 0 ? (int)tr_below(s, nd + 1) : -1;
	for (int d = 0; d < nd; d++) {
		int64_t n = in->shape[d];
		if (d == newaxis) {
			sel->items[k++] = (struct tsr_sel_item){.kind = TSR_SEL_NEWAXIS};
			tr_spec_add(pk, "None,");
		}
		struct tsr_sel_item *it = &sel->items[k];
		memset(it, 0, sizeof(*it));
		if (d == 0 && ellipsis) {
			it->kind = TSR_SEL_ELLIPSIS;
			k++;
			tr_spec_add(pk, "...,");
			for (int64_t i = 0; i < n; i++)
				pk->idx[d][i] = i;
			pk->count[d] = n;
			continue;
		}
		int r = (int)tr_below(s, 100);
		if (r < 20) {
			int64_t i = tr_below(s, n);
			it->kind = TSR_SEL_INDEX;
			it->start = tr_below(s, 2) ? i : i - n;
			pk->idx[d][0] = i;
			pk->count[d] = 1;
			k++;
			tr_spec_add(pk, "%lld,", (long long)it->start);
			continue;
		}
		it->kind = TSR_SEL_SLICE;
		static const int64_t steps[] = {1, 1, 1, 1, 2, 3, 7, -1, -1, -2, -5};
		int64_t step = steps[tr_below(s, (int64_t)(sizeof(steps) / sizeof(steps[0])))];
		/* short runs (a few elements, inside one chunk or across a boundary) or long ones */
		int64_t len = r < 55 ? 1 + tr_below(s, 8) : 1 + tr_below(s, n);
		int64_t a = tr_below(s, n), b = a + len * step;
		it->has_step = step != 1 || tr_below(s, 2);
		it->step = step;
		it->has_start = tr_below(s, 8) != 0;
		it->start = tr_below(s, 4) == 0 ? a - n : a;
		it->has_stop = tr_below(s, 8) != 0;
		/* Negative stops count from the end and clamp below -n; tr_slice gives what Python
		 * makes of each, so any value is a fair test. */
		it->stop = b < 0 ? b - n * tr_below(s, 2) : b;
		if (it->has_stop && b >= 0 && b < n && tr_below(s, 4) == 0)
			it->stop = b - n; /* the same stop, counted from the end */
		pk->count[d] = tr_slice(n, it, pk->idx[d]);
		k++;
		if (it->has_start)
			tr_spec_add(pk, "%lld", (long long)it->start);
		tr_spec_add(pk, ":");
		if (it->has_stop)
			tr_spec_add(pk, "%lld", (long long)it->stop);
		if (it->has_step)
			tr_spec_add(pk, ":%lld", (long long)it->step);
		tr_spec_add(pk, ",");
	}
	if (newaxis == nd) {
		sel->items[k++] = (struct tsr_sel_item){.kind = TSR_SEL_NEWAXIS};
		tr_spec_add(pk, "None,");
	}
	sel->nitems = k;
}

/* Compares got with the picked elements of the reference; returns the first bad element or
 * -1. A None or an integer does not change the C order of what is left. */
static int64_t tr_compare(const struct tr_target *t, const struct tr_pick *pk, const unsigned char *got,
			  size_t total)
{
	int nd = pk->ndim;
	size_t es = t->es;
	int64_t k[TSR_MAX_DIM] = {0};
	for (size_t o = 0; o < total; o++) {
		int64_t g = 0;
		for (int d = 0; d < nd; d++)
			g = g * t->in.shape[d] + pk->idx[d][k[d]];
		if (memcmp(got + o * es, t->ref + (size_t)g * es, es) != 0)
			return (int64_t)o;
		for (int d = nd - 1; d >= 0; d--) {
			if (++k[d] < pk->count[d])
				break;
			k[d] = 0;
		}
	}
	return -1;
}

/* Reads the whole array with one thread, on a context and handle of its own. */
static int tr_reference(struct tr_target *t)
{
	struct tsr_context_options one = {sizeof(one), 1};
	struct tsr_context *ctx;
	struct tsr_array *a = NULL;
	void *data = NULL;
	size_t nbytes;
	int ndim;
	int64_t shape[TSR_MAX_DIM];
	if (tsr_context_create(&one, &ctx) != TSR_OK)
		return -1;
	int st = tsr_open(ctx, t->path, &t->oo, &a);
	if (st == TSR_OK) {
		t->in.struct_size = sizeof(t->in);
		tsr_array_info(a, &t->in);
		t->es = tsr_dtype_size(t->in.dtype);
		st = tsr_read_alloc(a, NULL, NULL, &data, &nbytes, &ndim, shape, NULL);
	}
	if (st != TSR_OK)
		fprintf(stderr, "%s: reference read: %s\n", t->label, tsr_errmsg());
	t->ref = data;
	tsr_array_free(a);
	tsr_context_free(ctx);
	return st;
}

/* One random read of a handle, checked; 0 when it matched. */
static int tr_one_read(struct tsr_array *a, const struct tr_target *t, uint64_t *seed, int it,
		       struct tr_pick *pk, unsigned char *got, char *why, size_t why_cap)
{
	struct tsr_selection sel;
	size_t total;
	for (;;) {
		tr_random_sel(&t->in, seed, &sel, pk);
		total = 1;
		for (int d = 0; d < pk->ndim; d++)
			total *= (size_t)pk->count[d];
		if (total > 0 && total <= TR_MAX_ELEMS)
			break;
	}
	/* Every third read takes integer lists (unsorted, repeats allowed, never longer than the
	 * slice they replace) on some sliced axes: orthogonally, or one list the NumPy way (where
	 * no integer joins it as an advanced index: that could move the list's axis to the
	 * front), which selects the same elements in the same order, so the oracle holds. */
	struct tsr_index *ix = NULL;
	if (it % 3 == 2) {
		int has_int = 0;
		for (int k = 0; k < sel.nitems; k++)
			has_int |= sel.items[k].kind == TSR_SEL_INDEX;
		int mode = has_int || tr_below(seed, 2) ? TSR_INDEX_ORTHOGONAL : TSR_INDEX_NUMPY;
		int lists = 0;
		int ok = tsr_index_create(mode, &ix) == TSR_OK;
		for (int k = 0, d = 0; ok && k < sel.nitems; k++) {
			const struct tsr_sel_item *item = &sel.items[k];
			if (item->kind == TSR_SEL_SLICE && (mode == TSR_INDEX_ORTHOGONAL || !lists) &&
			    tr_below(seed, 2)) {
				int64_t c = 1 + tr_below(seed, pk->count[d]);
				for (int64_t j = 0; j < c; j++)
					pk->idx[d][j] = tr_below(seed, t->in.shape[d]);
				pk->count[d] = c;
				ok = tsr_index_add_array(ix, 1, &c, pk->idx[d]) == TSR_OK;
				lists++;
			} else {
				ok = tsr_index_add_item(ix, item) == TSR_OK;
			}
			d += item->kind != TSR_SEL_NEWAXIS;
		}
		tr_spec_add(pk, " (%d lists, %s)", lists, mode ? "oindex" : "numpy");
		if (!ok) {
			snprintf(why, why_cap, "index [%s]: %s", pk->spec, tsr_errmsg());
			tsr_index_free(ix);
			return 1;
		}
		total = 1;
		for (int d = 0; d < pk->ndim; d++)
			total *= (size_t)pk->count[d];
	}
	/* odd reads decode on the caller's thread, even ones on the context's pool */
	struct tsr_read_options ro = {.struct_size = sizeof(ro), .nthreads = it % 2 ? 1 : 0};
	struct tsr_buffer dst = {got, total * t->es, TSR_MEM_HOST, NULL};
	memset(got, 0xA5, total * t->es); /* stale bytes must not pass for values */
	int st = ix ? tsr_read_index(a, ix, &dst, &ro, NULL) : tsr_read(a, &sel, &dst, &ro, NULL);
	tsr_index_free(ix);
	if (st != TSR_OK) {
		snprintf(why, why_cap, "read [%s] failed: %s", pk->spec, tsr_errmsg());
		return 1;
	}
	int64_t bad = tr_compare(t, pk, got, total);
	if (bad >= 0) {
		snprintf(why, why_cap, "read [%s]: element %lld of %zu differs from the reference",
			 pk->spec, (long long)bad, total);
		return 1;
	}
	return 0;
}

static int tr_pick_alloc(struct tr_pick *pk, const struct tr_target *targets, int ntargets)
{
	int64_t most = 1;
	for (int i = 0; i < ntargets; i++)
		for (int d = 0; d < targets[i].in.ndim; d++)
			most = targets[i].in.shape[d] > most ? targets[i].in.shape[d] : most;
	for (int d = 0; d < TSR_MAX_DIM; d++)
		if (!(pk->idx[d] = malloc((size_t)most * sizeof(int64_t))))
			return -1;
	return 0;
}

static void tr_pick_free(struct tr_pick *pk)
{
	for (int d = 0; d < TSR_MAX_DIM; d++)
		free(pk->idx[d]);
}

/* ---- 16 threads, one handle ---- */

struct tr_worker {
	struct tr_target *t;      /* phase 1: the target; phase 2: the list */
	int ntargets;
	struct tsr_array *a;      /* phase 1: the shared handle */
	struct tsr_context *ctx;  /* phase 2: the shared context */
	uint64_t seed;
	int iters, reads, bad;
	char why[768];
};

static void *tr_shared_handle_main(void *arg)
{
	struct tr_worker *w = arg;
	struct tr_pick pk = {0};
	unsigned char *got = malloc(TR_MAX_ELEMS * 16);
	if (!got || tr_pick_alloc(&pk, w->t, 1)) {
		snprintf(w->why, sizeof(w->why), "out of memory");
		w->bad = 1;
		free(got);
		return NULL;
	}
	for (int it = 0; it < w->iters && !w->bad; it++) {
		w->bad = tr_one_read(w->a, w->t, &w->seed, it, &pk, got, w->why, sizeof(w->why));
		w->reads += !w->bad;
	}
	tr_pick_free(&pk);
	free(got);
	return NULL;
}

/* 16 threads read random sections of one freshly opened handle (its caches cold, so the
 * threads race to fill them). Returns the sections compared. */
static int tr_shared_handle(struct tsr_context *ctx, struct tr_target *t, uint64_t seed, int iters)
{
	struct tsr_array *a;
	if (tsr_open(ctx, t->path, &t->oo, &a) != TSR_OK) {
		fprintf(stderr, "%s: %s\n", t->label, tsr_errmsg());
		CHECK(0);
		return 0;
	}
	pthread_t th[TR_NTHREADS];
	struct tr_worker w[TR_NTHREADS];
	for (int i = 0; i < TR_NTHREADS; i++) {
		w[i] = (struct tr_worker){.t = t, .ntargets = 1, .a = a, .iters = iters,
					  .seed = seed + 7919u * (uint64_t)i};
		CHECK_EQ_INT(pthread_create(&th[i], NULL, tr_shared_handle_main, &w[i]), 0);
	}
	int reads = 0;
	for (int i = 0; i < TR_NTHREADS; i++) {
		pthread_join(th[i], NULL);
		reads += w[i].reads;
		if (w[i].bad) {
			fprintf(stderr, "%s: thread %d: %s\n", t->label, i, w[i].why);
			CHECK(0);
		}
	}
	tsr_array_free(a);
	printf("%s: %d threads on one handle, %d sections equal to the single-threaded read\n",
	       t->label, TR_NTHREADS, reads);
	return reads;
}

/* ---- 16 threads, one context, handles of their own ---- */

static void *tr_own_handles_main(void *arg)
{
	struct tr_worker *w = arg;
	struct tr_pick pk = {0};
	unsigned char *got = malloc(TR_MAX_ELEMS * 16);
	if (!got || tr_pick_alloc(&pk, w->t, w->ntargets)) {
		snprintf(w->why, sizeof(w->why), "out of memory");
		w->bad = 1;
		free(got);
		return NULL;
	}
	/* Each round opens a handle (opens race with other threads' opens and reads), reads a
	 * few sections through it, and closes it. */
	for (int it = 0; it < w->iters && !w->bad;) {
		const struct tr_target *t = &w->t[tr_below(&w->seed, w->ntargets)];
		struct tsr_array *a;
		if (tsr_open(w->ctx, t->path, &t->oo, &a) != TSR_OK) {
			snprintf(w->why, sizeof(w->why), "%s: open failed: %s", t->label, tsr_errmsg());
			w->bad = 1;
			break;
		}
		for (int j = 0; j < 4 && it < w->iters && !w->bad; j++, it++) {
			w->bad = tr_one_read(a, t, &w->seed, it, &pk, got, w->why, sizeof(w->why));
			if (w->bad) {
				size_t n = strlen(w->why);
				snprintf(w->why + n, sizeof(w->why) - n, " (%s)", t->label);
			}
			w->reads += !w->bad;
		}
		tsr_array_free(a);
	}
	tr_pick_free(&pk);
	free(got);
	return NULL;
}

static int tr_own_handles(struct tsr_context *ctx, struct tr_target *t, int ntargets, uint64_t seed,
			  int iters)
{
	pthread_t th[TR_NTHREADS];
	struct tr_worker w[TR_NTHREADS];
	for (int i = 0; i < TR_NTHREADS; i++) {
		w[i] = (struct tr_worker){.t = t, .ntargets = ntargets, .ctx = ctx, .iters = iters,
					  .seed = seed ^ (0x51ed27u + 104729u * (uint64_t)i)};
		CHECK_EQ_INT(pthread_create(&th[i], NULL, tr_own_handles_main, &w[i]), 0);
	}
	int reads = 0;
	for (int i = 0; i < TR_NTHREADS; i++) {
		pthread_join(th[i], NULL);
		reads += w[i].reads;
		if (w[i].bad) {
			fprintf(stderr, "own handles: thread %d: %s\n", i, w[i].why);
			CHECK(0);
		}
	}
	printf("%d threads, one context, a handle each: %d sections equal to the single-threaded "
	       "reads\n", TR_NTHREADS, reads);
	return reads;
}

/* The whole test over a list of targets: references, then both phases. */
static int tr_run_all(struct tr_target *t, int n)
{
	const char *env = getenv("TSR_CORPUS");
	const char *corpus = env ? env : "../../shared/corpus";
	for (int i = 0; i < n; i++) {
		char rel[1024];
		snprintf(rel, sizeof(rel), "%s", t[i].path);
		snprintf(t[i].path, sizeof(t[i].path), "%s/%s", corpus, rel);
	}
	/* fewer iterations under the sanitizers' slowdown (make test-tsan sets 40) */
	const char *ie = getenv("TSR_THREAD_ITERS");
	int iters = ie ? atoi(ie) : 100;
	uint64_t seed = tr_seed();
	for (int i = 0; i < n; i++)
		if (tr_reference(&t[i]) != TSR_OK) {
			CHECK(0);
			return 1;
		}
	struct tsr_context_options co = {sizeof(co), 4};
	struct tsr_context *ctx;
	CHECK_EQ_INT(tsr_context_create(&co, &ctx), TSR_OK);
	int total = 0;
	for (int i = 0; i < n; i++)
		total += tr_shared_handle(ctx, &t[i], seed + 1000003u * (uint64_t)i, iters);
	total += tr_own_handles(ctx, t, n, seed, iters);
	printf("%d sections compared in all\n", total);
	tsr_context_free(ctx);
	for (int i = 0; i < n; i++)
		tsr_free(t[i].ref);
	return 0;
}

#endif
