/* test_blosc2_threads.c - 16 threads read random sections of one Blosc2 handle at once (large
 * chunks, so most reads fetch and decode a few blocks; zeros and raw chunks among them); every
 * result must equal the same section cut from a single-threaded whole read, which must equal
 * the data written. CI runs it under ThreadSanitizer too (make test: test-tsan). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "tessera.h"
#include "test_blosc2_frame.h"

#define NTHREADS 16

struct shared {
	struct tsr_array *a;
	struct tsr_array_info in;
	const uint8_t *ref;   /* the whole array, read by one thread */
	int iters;
};

struct worker {
	struct shared *sh;
	uint64_t seed;
	int reads, bad;
	char why[256];
};

static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A random basic-indexing selection and, per axis, the indices it picks. */
static void random_sel(const struct tsr_array_info *in, uint64_t *seed, struct tsr_selection *sel,
		       int64_t idx[][512], int64_t *count, int *keep)
{
	sel->nitems = in->ndim;
	for (int d = 0; d < in->ndim; d++) {
		int64_t n = in->shape[d];
		struct tsr_sel_item *it = &sel->items[d];
		memset(it, 0, sizeof(*it));
		int r = (int)(rnd(seed) % 100);
		keep[d] = 1;
		count[d] = 0;
		if (r < 25) {
			it->kind = TSR_SEL_INDEX;
			it->start = (int64_t)(rnd(seed) % (uint64_t)n);
			idx[d][count[d]++] = it->start;
			keep[d] = 0;
			continue;
		}
		it->kind = TSR_SEL_SLICE;
		int64_t step = r < 75 ? 1 : (int64_t[]){2, 3, -1, -2}[rnd(seed) % 4];
		int64_t len = r < 60 ? 1 + (int64_t)(rnd(seed) % 8) : 1 + (int64_t)(rnd(seed) % 200);
		int64_t a = (int64_t)(rnd(seed) % (uint64_t)n);
		it->step = step;
		it->has_step = 1;
		it->start = a;
		it->has_start = 1;
		if (step > 0) {
			int64_t b = a + len * step < n ? a + len * step : n;
			it->stop = b;
			it->has_stop = 1;
			for (int64_t i = a; i < b && count[d] < 512; i += step)
				idx[d][count[d]++] = i;
		} else {
			int64_t b = a + len * step; /* exclusive; below 0 means "to the start" */
			if (b >= 0) {
				it->stop = b;
				it->has_stop = 1;
			}
			for (int64_t i = a; i > b && i >= 0 && count[d] < 512; i += step)
				idx[d][count[d]++] = i;
		}
	}
}

static void *reader(void *arg)
{
	struct worker *w = arg;
	struct shared *sh = w->sh;
	const struct tsr_array_info *in = &sh->in;
	size_t es = tsr_dtype_size(in->dtype);
	static _Thread_local int64_t idx[8][512];
	int64_t count[8];
	int keep[8];
	uint8_t *got = malloc(512 * 512 * 8), *want = malloc(512 * 512 * 8);
	for (int it = 0; it < sh->iters && !w->bad; it++) {
		struct tsr_selection sel;
		size_t total = 1;
		do {
			random_sel(in, &w->seed, &sel, idx, count, keep);
			total = 1;
			for (int d = 0; d < in->ndim; d++)
				total *= (size_t)count[d];
		} while (total * es > 512 * 512 * 8 || total == 0);
		/* odd reads on the caller's thread, even ones through the context's pool */
		struct tsr_read_options ro = {.struct_size = sizeof(ro), .nthreads = it % 2 ? 1 : 0};
		struct tsr_buffer dst = {got, total * es, TSR_MEM_HOST, NULL};
		if (tsr_read(sh->a, &sel, &dst, &ro, NULL) != TSR_OK) {
			snprintf(w->why, sizeof(w->why), "read failed: %s", tsr_errmsg());
			w->bad = 1;
			break;
		}
		/* the expected values, cut from the reference */
		int64_t k[8] = {0};
		for (size_t o = 0; o < total; o++) {
			int64_t g = 0;
			for (int d = 0; d < in->ndim; d++)
				g = g * in->shape[d] + idx[d][k[d]];
			memcpy(want + o * es, sh->ref + (size_t)g * es, es);
			for (int d = in->ndim - 1; d >= 0; d--) {
				if (++k[d] < count[d])
					break;
				k[d] = 0;
			}
		}
		if (memcmp(got, want, total * es) != 0) {
			snprintf(w->why, sizeof(w->why), "read %d of %zu elements differs", it, total);
			w->bad = 1;
		}
		w->reads++;
	}
	free(got);
	free(want);
	return NULL;
}

static void run(struct tsr_context *ctx, const char *path, const void *data, size_t nbytes,
		int iters)
{
	struct shared sh = {.iters = iters};
	struct tsr_context_options one = {sizeof(one), 1};
	struct tsr_context *ctx1;
	CHECK_EQ_INT(tsr_context_create(&one, &ctx1), TSR_OK);
	/* the reference: one thread, whole array, on a handle of its own */
	struct tsr_array *a1;
	if (tsr_open(ctx1, path, NULL, &a1) != TSR_OK) {
		fprintf(stderr, "%s: %s\n", path, tsr_errmsg());
		CHECK(0);
		tsr_context_free(ctx1);
		return;
	}
	void *ref = NULL;
	size_t ref_nbytes;
	int ndim;
	int64_t shape[TSR_MAX_DIM];
	CHECK_EQ_INT(tsr_read_alloc(a1, NULL, NULL, &ref, &ref_nbytes, &ndim, shape, NULL), TSR_OK);
	if (data) {
		CHECK_EQ_INT(ref_nbytes, nbytes);
		CHECK(ref && memcmp(ref, data, nbytes) == 0);
	}
	tsr_array_free(a1);
	tsr_context_free(ctx1);

	CHECK_EQ_INT(tsr_open(ctx, path, NULL, &sh.a), TSR_OK);
	sh.in.struct_size = sizeof(sh.in);
	tsr_array_info(sh.a, &sh.in);
	sh.ref = ref;
	pthread_t th[NTHREADS];
	struct worker w[NTHREADS];
	for (int i = 0; i < NTHREADS; i++) {
		w[i] = (struct worker){&sh, 1234567u + 7919u * (uint64_t)i, 0, 0, ""};
		pthread_create(&th[i], NULL, reader, &w[i]);
	}
	int reads = 0;
	for (int i = 0; i < NTHREADS; i++) {
		pthread_join(th[i], NULL);
		reads += w[i].reads;
		if (w[i].bad) {
			fprintf(stderr, "%s: thread %d: %s\n", path, i, w[i].why);
			CHECK(0);
		}
	}
	printf("%s: %d threads, %d sections equal to the single-threaded read\n", path, NTHREADS,
	       reads);
	tsr_array_free(sh.a);
	tsr_free(ref);
}

int main(void)
{
	const char *env = getenv("TSR_CORPUS");
	char dir[] = "/tmp/tsr_b2threads_XXXXXX", path[256];
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	struct tsr_context_options co = {sizeof(co), 4};
	struct tsr_context *ctx;
	CHECK_EQ_INT(tsr_context_create(&co, &ctx), TSR_OK);
	/* iterations are fewer under sanitizers' slowdowns, set by the build (TSR_THREAD_ITERS) */
	const char *ie = getenv("TSR_THREAD_ITERS");
	int iters = ie ? atoi(ie) : 150;

	/* 3-D float32, chunks of 1.6 MB in 160 blocks, edge chunks, zeros and raw chunks */
	struct b2w_array a = {3, {40, 300, 260}, {16, 128, 200}, {4, 16, 40}, 4, "<f4", NULL, 5, 7};
	size_t n = 40 * 300 * 260;
	float *fa = malloc(n * sizeof(float));
	for (size_t i = 0; i < n; i++)
		fa[i] = (float)((i / 7) % 1000) * 0.5f;
	a.data = fa;
	snprintf(path, sizeof(path), "%s/blocks3d.b2nd", dir);
	CHECK_EQ_INT(b2w_write(path, &a), 0);
	run(ctx, path, fa, n * sizeof(float), iters);

	/* 2-D int16 in row layout: blocks span whole rows */
	struct b2w_array b = {2, {1000, 700}, {300, 700}, {20, 700}, 2, "<i2", NULL, 0, 3};
	size_t m = 1000 * 700;
	int16_t *ib = malloc(m * sizeof(int16_t));
	for (size_t i = 0; i < m; i++)
		ib[i] = (int16_t)((i % 977) - 400);
	b.data = ib;
	snprintf(path, sizeof(path), "%s/rows2d.b2nd", dir);
	CHECK_EQ_INT(b2w_write(path, &b), 0);
	run(ctx, path, ib, m * sizeof(int16_t), iters);

	/* corpus frames written by C-Blosc2: a sparse frame and a DELTA one */
	if (env) {
		snprintf(path, sizeof(path), "%s/blosc2/sparse_lz4_shuffle_f4_2d.b2nd", env);
		run(ctx, path, NULL, 0, iters / 3);
		snprintf(path, sizeof(path), "%s/blosc2/lz4_delta_bitshuffle_i2_3d.b2nd", env);
		run(ctx, path, NULL, 0, iters / 3);
	}
	free(fa);
	free(ib);
	snprintf(path, sizeof(path), "%s/blocks3d.b2nd", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/rows2d.b2nd", dir);
	unlink(path);
	rmdir(dir);
	tsr_context_free(ctx);
	CHECK_DONE();
}
