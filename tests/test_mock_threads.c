/* test_mock_threads.c - mock-host reads of one fresh handle from many threads at once: their first reads race to hang the storage state on the handle's backend slot and to create its cache, and every read still equals a real read. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tessera.h"

#define NTHREADS 8

struct job {
	struct tsr_array *a;
	pthread_barrier_t *start;
	const char *spec;
	void *data;
	size_t nbytes;
	int status;
};

static void *run(void *p)
{
	struct job *j = p;
	struct tsr_selection sel;
	struct tsr_read_options ro = {.struct_size = sizeof(ro), .nthreads = 1,
				      .storage = TSR_STORAGE_MOCK_HOST};
	int ndim;
	int64_t shape[TSR_MAX_DIM];
	j->status = tsr_selection_parse(j->spec, &sel);
	pthread_barrier_wait(j->start); /* every thread's first read at once */
	if (j->status == TSR_OK)
		j->status = tsr_read_alloc(j->a, &sel, &ro, &j->data, &j->nbytes, &ndim, shape, NULL);
	return NULL;
}

/* NTHREADS first reads of one fresh handle, each of its own selection (a few the same), against
 * the same selections read from the files by one thread. */
static void check_file(struct tsr_context *ctx, const char *corpus, const char *rel,
		       const char *const specs[NTHREADS])
{
	char path[2048];
	snprintf(path, sizeof(path), "%s/%s", corpus, rel);
	struct tsr_array *a = NULL, *real = NULL;
	CHECK_EQ_INT(tsr_open(ctx, path, NULL, &a), TSR_OK);
	CHECK_EQ_INT(tsr_open(ctx, path, NULL, &real), TSR_OK);
	if (!a || !real) {
		tsr_array_free(a);
		tsr_array_free(real);
		return;
	}
	pthread_barrier_t start;
	pthread_barrier_init(&start, NULL, NTHREADS);
	struct job jobs[NTHREADS];
	pthread_t th[NTHREADS];
	for (int i = 0; i < NTHREADS; i++) {
		jobs[i] = (struct job){.a = a, .start = &start, .spec = specs[i]};
		CHECK(pthread_create(&th[i], NULL, run, &jobs[i]) == 0);
	}
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&start);
	for (int i = 0; i < NTHREADS; i++) {
		struct tsr_selection sel;
		void *want = NULL;
		size_t want_n = 0;
		int ndim;
		int64_t shape[TSR_MAX_DIM];
		CHECK_EQ_INT(jobs[i].status, TSR_OK);
		CHECK_EQ_INT(tsr_selection_parse(specs[i], &sel), TSR_OK);
		CHECK_EQ_INT(tsr_read_alloc(real, &sel, NULL, &want, &want_n, &ndim, shape, NULL),
			     TSR_OK);
		if (!(jobs[i].nbytes == want_n && jobs[i].data && want &&
		      memcmp(jobs[i].data, want, want_n) == 0)) {
			fprintf(stderr, "%s [%s]: the mock-host read differs from the real one\n",
				rel, specs[i]);
			CHECK(0);
		}
		tsr_free(want);
		tsr_free(jobs[i].data);
	}
	tsr_array_free(a); /* frees the cache through the slot (ASan: no leak) */
	tsr_array_free(real);
}

int main(void)
{
	const char *env = getenv("TSR_CORPUS");
	const char *corpus = env ? env : "../../shared/corpus";
	struct tsr_context *ctx = NULL;
	struct tsr_context_options co = {sizeof(co), 4};
	CHECK_EQ_INT(tsr_context_create(&co, &ctx), TSR_OK);
	if (!ctx)
		CHECK_DONE();
	/* make test-tsan asks for 40: half of that keeps this program to about 12 s there */
	const char *it_env = getenv("TSR_THREAD_ITERS");
	int iters = it_env ? atoi(it_env) / 2 : 4;
	for (int it = 0; it < (iters > 0 ? iters : 1); it++) {
		const char *const fits[NTHREADS] = {"", "3:17,::3", "", "0,:", "::5,2:9", "", "-1",
						    "4:6,4:6"};
		check_file(ctx, corpus, "fits/c_rice_i16_tiles.fits", fits);
		const char *const zarr[NTHREADS] = {"", "1:7,...", "", "0", "...,::2", "", "-1",
						    "2:4,..."};
		check_file(ctx, corpus, "zarr3/shard_end_zstd_f4.zarr", zarr);
		const char *const b2[NTHREADS] = {"", "::2,1:5", "", "0", "...,1", "", "-1",
						  "1:3,..."};
		check_file(ctx, corpus, "blosc2/lz4_shuffle_f4_3d.b2nd", b2);
	}
	tsr_context_free(ctx);
	CHECK_DONE();
}
