/* blosc2_latency.c - times tessera reads of a Blosc2 array: single elements (median latency over
 * random indices, warm cache), whole reads, and random-section throughput from many threads.
 *
 *   blosc2_latency elem PATH [N=10000] [SEED=1]       one random element per read
 *   blosc2_latency whole PATH [REPEAT=3] [fresh|fresh-open]
 *                                                      the whole array (best of REPEAT), into
 *                                                      one reused buffer, or with "fresh" into
 *                                                      a new one each time (tsr_read_alloc);
 *                                                      "fresh-open": each time also opened and
 *                                                      closed, as tessera.read(path) does;
 *                                                      read_s: every call's time, in order
 *   blosc2_latency sections PATH EDGE THREADS [SECONDS=3] [SEED=1]
 *                                                      random EDGE^ndim boxes (clipped), THREADS
 *                                                      threads sharing one handle
 * Prints one line of key=value pairs for bench/blosc2_bench.py. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tessera.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t rnd(uint64_t *s)
{
	/* splitmix64 */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void die(const char *what)
{
	fprintf(stderr, "blosc2_latency: %s: %s\n", what, tsr_errmsg());
	exit(1);
}

/* A random box: each axis a run of up to `edge` positions (edge 1: one element). */
static void random_box(struct tsr_selection *sel, const struct tsr_array_info *in, int64_t edge,
		       uint64_t *seed)
{
	sel->nitems = in->ndim;
	for (int d = 0; d < in->ndim; d++) {
		struct tsr_sel_item *it = &sel->items[d];
		memset(it, 0, sizeof(*it));
		int64_t e = edge < in->shape[d] ? edge : in->shape[d];
		int64_t a = (int64_t)(rnd(seed) % (uint64_t)(in->shape[d] - e + 1));
		if (edge == 1) {
			it->kind = TSR_SEL_INDEX;
			it->start = a;
		} else {
			it->kind = TSR_SEL_SLICE;
			it->start = a;
			it->stop = a + e;
			it->has_start = it->has_stop = 1;
		}
	}
}

struct sec_job {
	struct tsr_array *a;
	const struct tsr_array_info *in;
	int64_t edge;
	double until;
	uint64_t seed;
	long reads;
	double bytes;
	int failed;
};

static void *sec_worker(void *arg)
{
	struct sec_job *j = arg;
	size_t cap = 1;
	for (int d = 0; d < j->in->ndim; d++)
		cap *= (size_t)(j->edge < j->in->shape[d] ? j->edge : j->in->shape[d]);
	cap *= tsr_dtype_size(j->in->dtype);
	void *buf = malloc(cap);
	struct tsr_buffer dst = {buf, cap, TSR_MEM_HOST, NULL};
	/* each thread reads on its own: one thread per read, many reads at once */
	struct tsr_read_options ro = {.struct_size = sizeof(ro), .nthreads = 1};
	struct tsr_selection sel;
	while (now() < j->until) {
		for (int k = 0; k < 16; k++) {
			random_box(&sel, j->in, j->edge, &j->seed);
			struct tsr_receipt r = {.struct_size = sizeof(r)};
			if (tsr_read(j->a, &sel, &dst, &ro, &r)) {
				j->failed = 1;
				free(buf);
				return NULL;
			}
			j->reads++;
			j->bytes += (double)r.bytes_out;
		}
	}
	free(buf);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: blosc2_latency elem|whole|sections PATH ...\n");
		return 2;
	}
	const char *mode = argv[1], *path = argv[2];
	struct tsr_context *ctx;
	struct tsr_array *a;
	if (tsr_context_create(NULL, &ctx))
		die("context");
	if (tsr_open(ctx, path, NULL, &a))
		die(path);
	struct tsr_array_info in = {.struct_size = sizeof(in)};
	tsr_array_info(a, &in);
	size_t es = tsr_dtype_size(in.dtype);
	if (!strcmp(mode, "elem")) {
		int n = argc > 3 ? atoi(argv[3]) : 10000;
		uint64_t seed = argc > 4 ? strtoull(argv[4], NULL, 10) : 1;
		double *t = malloc((size_t)n * sizeof(*t));
		unsigned char val[16];
		struct tsr_buffer dst = {val, sizeof(val), TSR_MEM_HOST, NULL};
		struct tsr_selection sel;
		/* warm the page cache and the handle: every index once, untimed */
		uint64_t s2 = seed;
		for (int i = 0; i < n; i++) {
			random_box(&sel, &in, 1, &s2);
			if (tsr_read(a, &sel, &dst, NULL, NULL))
				die("read");
		}
		for (int i = 0; i < n; i++) {
			random_box(&sel, &in, 1, &seed);
			double t0 = now();
			if (tsr_read(a, &sel, &dst, NULL, NULL))
				die("read");
			t[i] = now() - t0;
		}
		double sum = 0;
		for (int i = 0; i < n; i++)
			sum += t[i];
		qsort(t, (size_t)n, sizeof(*t), cmp_d);
		printf("mode=elem n=%d median_us=%.2f p10_us=%.2f p90_us=%.2f mean_us=%.2f\n", n,
		       1e6 * t[n / 2], 1e6 * t[n / 10], 1e6 * t[n * 9 / 10], 1e6 * sum / n);
		free(t);
	} else if (!strcmp(mode, "whole")) {
		int repeat = argc > 3 ? atoi(argv[3]) : 3;
		int fresh = argc > 4 && !strncmp(argv[4], "fresh", 5);
		int reopen = fresh && !strcmp(argv[4], "fresh-open");
		size_t nb = es;
		for (int d = 0; d < in.ndim; d++)
			nb *= (size_t)in.shape[d];
		void *buf = fresh ? NULL : malloc(nb);
		if (buf)
			memset(buf, 0, nb); /* fault the pages in once: time reads, not the kernel */
		struct tsr_buffer dst = {buf, nb, TSR_MEM_HOST, NULL};
		double best = 1e30;
		double *rd = calloc(repeat > 0 ? (size_t)repeat : 1, sizeof(*rd));
		if (!rd)
			die("out of memory");
		struct tsr_receipt r = {.struct_size = sizeof(r)};
		for (int k = 0; k < repeat; k++) {
			double t0 = now();
			if (fresh) {
				void *data;
				size_t n;
				int ndim;
				int64_t shape[TSR_MAX_DIM];
				struct tsr_array *h = a;
				if (reopen && tsr_open(ctx, path, NULL, &h))
					die(path);
				if (tsr_read_alloc(h, NULL, NULL, &data, &n, &ndim, shape, &r))
					die("read");
				if (reopen)
					tsr_array_free(h);
				rd[k] = now() - t0;
				tsr_free(data);
			} else if (tsr_read(a, NULL, &dst, NULL, &r)) {
				die("read");
			}
			double dt = now() - t0;
			if (!fresh)
				rd[k] = dt;
			if (dt < best)
				best = dt;
		}
		/* best_s: the call and, fresh, the buffer's free; read_s: each call alone (a fresh
		 * buffer's free is the caller's later work, as a Python array's is) */
		printf("mode=whole%s nbytes=%zu best_s=%.4f gbps=%.3f threads=%d read_s=",
		       reopen ? "_fresh_open" : fresh ? "_fresh" : "", nb, best, (double)nb / best / 1e9, r.nthreads);
		for (int k = 0; k < repeat; k++)
			printf("%s%.5f", k ? "," : "", rd[k]);
		printf("\n");
		free(rd);
		free(buf);
	} else if (!strcmp(mode, "sections") && argc >= 5) {
		int64_t edge = atoll(argv[3]);
		int nth = atoi(argv[4]);
		double secs = argc > 5 ? atof(argv[5]) : 3.0;
		uint64_t seed = argc > 6 ? strtoull(argv[6], NULL, 10) : 1;
		struct sec_job *jobs = calloc((size_t)nth, sizeof(*jobs));
		pthread_t *th = calloc((size_t)nth, sizeof(*th));
		double t0 = now();
		for (int i = 0; i < nth; i++) {
			jobs[i] = (struct sec_job){a, &in, edge, t0 + secs, seed + 7919u * (uint64_t)i, 0, 0, 0};
			pthread_create(&th[i], NULL, sec_worker, &jobs[i]);
		}
		long reads = 0;
		double bytes = 0;
		int failed = 0;
		for (int i = 0; i < nth; i++) {
			pthread_join(th[i], NULL);
			reads += jobs[i].reads;
			bytes += jobs[i].bytes;
			failed |= jobs[i].failed;
		}
		double dt = now() - t0;
		if (failed)
			die("read");
		printf("mode=sections edge=%lld threads=%d reads=%ld reads_per_s=%.0f mbps=%.1f\n",
		       (long long)edge, nth, reads, reads / dt, bytes / dt / 1e6);
		free(jobs);
		free(th);
	} else {
		fprintf(stderr, "blosc2_latency: unknown mode '%s'\n", mode);
		return 2;
	}
	tsr_array_free(a);
	tsr_context_free(ctx);
	return 0;
}
