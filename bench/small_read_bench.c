/* small_read_bench.c - the C side of the Python overhead benchmark: how long one small read
 * (a selection string, e.g. "3,5,7") of an array takes through tsr_read, best of R runs of N. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tessera.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct tsr_context *ctx = NULL;
	struct tsr_array *a = NULL;
	struct tsr_selection sel;
	int64_t shape[TSR_MAX_DIM];
	int ndim, n = argc > 3 ? atoi(argv[3]) : 20000, rounds = 10;
	double best = 1e30, t_all[10];
	unsigned char buf[1 << 16];

	if (argc < 3) {
		fprintf(stderr, "usage: small_read_bench FILE SELECTION [N]\n");
		return 2;
	}
	if (tsr_context_create(NULL, &ctx) || tsr_open(ctx, argv[1], NULL, &a) ||
	    tsr_selection_parse(argv[2], &sel) || tsr_selection_shape(a, &sel, &ndim, shape)) {
		fprintf(stderr, "small_read_bench: %s\n", tsr_errmsg());
		return 1;
	}
	struct tsr_buffer dst = {buf, sizeof(buf), TSR_MEM_HOST, NULL};
	for (int r = 0; r < rounds; r++) {
		double t0 = now();
		for (int i = 0; i < n; i++) {
			if (tsr_read(a, &sel, &dst, NULL, NULL)) {
				fprintf(stderr, "small_read_bench: %s\n", tsr_errmsg());
				return 1;
			}
		}
		double t = (now() - t0) / n;
		t_all[r] = t;
		if (t < best)
			best = t;
	}
	/* the median of the rounds too: a busy machine makes the best a lucky one */
	for (int i = 1; i < rounds; i++)
		for (int j = i; j > 0 && t_all[j] < t_all[j - 1]; j--) {
			double x = t_all[j];
			t_all[j] = t_all[j - 1];
			t_all[j - 1] = x;
		}
	printf("{\"file\": \"%s\", \"selection\": \"%s\", \"us_per_read\": %.3f, "
	       "\"us_per_read_median\": %.3f}\n",
	       argv[1], argv[2], best * 1e6, 0.5 * (t_all[rounds / 2 - 1] + t_all[rounds / 2]) * 1e6);
	tsr_array_free(a);
	tsr_context_free(ctx);
	return 0;
}
