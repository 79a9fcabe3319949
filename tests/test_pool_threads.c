/* test_pool_threads.c - the thread pool's background jobs (tsr_pool_start / tsr_pool_wait), which
 * the CUDA engine's feed runs on: workers 1..n-1 only, the caller free meanwhile, later jobs
 * held back until the wait, and the wait callable from another thread. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "check.h"
#include "core/internal.h"

struct job {
	atomic_int ran;       /* workers that entered */
	atomic_int worker0;   /* worker 0 entered (must not, in the background) */
	atomic_int release;   /* workers may return */
	atomic_int order;     /* incremented by each job that finishes, to check sequencing */
	int finished_at;      /* the value of order when this job finished */
};

static void hold(void *arg, int w)
{
	struct job *j = arg;
	if (w == 0)
		atomic_store(&j->worker0, 1);
	atomic_fetch_add(&j->ran, 1);
	while (!atomic_load(&j->release))
		sched_yield();
}

static atomic_int seq;

static void quick(void *arg, int w)
{
	struct job *j = arg;
	atomic_fetch_add(&j->ran, 1);
	if (w == 0)
		j->finished_at = atomic_fetch_add(&seq, 1);
}

struct runner {
	struct tsr_pool *pool;
	struct job *job;
};

static void *run_other(void *arg)
{
	struct runner *r = arg;
	tsr_pool_run(r->pool, 4, quick, r->job); /* must wait for the background job */
	return NULL;
}

static void *wait_other(void *arg)
{
	tsr_pool_wait(arg);
	return NULL;
}

int main(void)
{
	int iters = getenv("TSR_THREAD_ITERS") ? atoi(getenv("TSR_THREAD_ITERS")) : 20;
	struct tsr_pool *pool = NULL;
	CHECK_EQ_INT(tsr_pool_create(4, &pool), TSR_OK);
	if (!pool)
		return 1;
	for (int it = 0; it < iters; it++) {
		/* A background job of 4 runs on workers 1..3 while this thread goes on. */
		struct job bg = {0}, fg = {0};
		tsr_pool_start(pool, 4, hold, &bg);
		while (atomic_load(&bg.ran) < 3)
			sched_yield(); /* would hang if the caller had to be worker 0 */
		CHECK_EQ_INT(atomic_load(&bg.worker0), 0);
		/* Another thread's job waits for it. */
		struct runner r = {pool, &fg};
		pthread_t t;
		CHECK_EQ_INT(pthread_create(&t, NULL, run_other, &r), 0);
		for (int k = 0; k < 1000; k++)
			sched_yield();
		CHECK_EQ_INT(atomic_load(&fg.ran), 0);
		int before = atomic_load(&seq);
		atomic_store(&bg.release, 1);
		/* The wait may come from another thread than the start. */
		pthread_t w;
		CHECK_EQ_INT(pthread_create(&w, NULL, wait_other, pool), 0);
		pthread_join(w, NULL);
		pthread_join(t, NULL);
		CHECK_EQ_INT(atomic_load(&bg.ran), 3);
		CHECK_EQ_INT(atomic_load(&fg.ran), 4);
		CHECK_EQ_INT(fg.finished_at, before);
		/* One worker: nothing runs in the background, and the wait returns. */
		struct job none = {0};
		tsr_pool_start(pool, 1, hold, &none);
		tsr_pool_wait(pool);
		CHECK_EQ_INT(atomic_load(&none.ran), 0);
	}
	tsr_pool_free(pool);
	CHECK_DONE();
}
