/* pool.c - a fixed thread pool that runs one function on N workers at once, with the caller or
 * in the background. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"

struct tsr_pool {
	int nthreads;            /* workers including the caller */
	pthread_t *threads;
	pthread_mutex_t lock;    /* guards the fields below */
	pthread_cond_t wake, done, idle;
	int busy;                /* a job holds the pool (one at a time; any thread may end it) */
	tsr_pool_fn fn;
	void *arg;
	int want;                /* workers 1..want-1 take part in this job */
	unsigned long generation;
	int running;
	int quit;
	/* The process whose threads these are. A fork's child has only the thread that forked,
	 * so its first job starts the workers again (ML loaders fork their workers after the
	 * parent has read); claim is the process that took that on. */
	atomic_int pid, claim;
};

struct tsr_pool_thread_arg {
	struct tsr_pool *pool;
	int id;
};

static void *tsr_pool_main(void *p)
{
	struct tsr_pool_thread_arg *start = p;
	struct tsr_pool *pool = start->pool;
	int id = start->id;
	unsigned long seen = 0;
	free(start);
	pthread_mutex_lock(&pool->lock);
	for (;;) {
		while (!pool->quit && pool->generation == seen)
			pthread_cond_wait(&pool->wake, &pool->lock);
		if (pool->quit)
			break;
		seen = pool->generation;
		if (id >= pool->want)
			continue;
		tsr_pool_fn fn = pool->fn;
		void *arg = pool->arg;
		pthread_mutex_unlock(&pool->lock);
		fn(arg, id);
		pthread_mutex_lock(&pool->lock);
		if (--pool->running == 0)
			pthread_cond_signal(&pool->done);
	}
	pthread_mutex_unlock(&pool->lock);
	return NULL;
}

/* Starts workers first..nthreads-1; on a failure the pool keeps those that started. */
static int tsr_pool_spawn(struct tsr_pool *pool, int first)
{
	for (int i = first; i < pool->nthreads; i++) {
		struct tsr_pool_thread_arg *start = malloc(sizeof(*start));
		if (!start || (start->pool = pool, start->id = i,
			       pthread_create(&pool->threads[i], NULL, tsr_pool_main, start) != 0)) {
			free(start);
			pool->nthreads = i;
			return tsr_error(TSR_E_NOMEM, "thread pool: cannot start thread %d", i);
		}
	}
	return TSR_OK;
}

/* In a fork's child, the pool as new: its lock and conditions as the parent's threads left
 * them may be held or waited on, and its workers are not there. One thread of the child does
 * it; any other that comes meanwhile waits for it. (A job the parent had running at the fork is
 * lost with its threads: the child starts with none.) */
static void tsr_pool_after_fork(struct tsr_pool *pool)
{
	int me = (int)getpid();
	if (atomic_load(&pool->pid) == me)
		return;
	int seen = atomic_load(&pool->claim);
	if (seen == me || !atomic_compare_exchange_strong(&pool->claim, &seen, me)) {
		while (atomic_load(&pool->pid) != me)
			sched_yield();
		return;
	}
	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->wake, NULL);
	pthread_cond_init(&pool->done, NULL);
	pthread_cond_init(&pool->idle, NULL);
	pool->busy = pool->running = pool->quit = 0;
	pool->generation = 0;
	if (tsr_pool_spawn(pool, 1))
		tsr_error_clear(); /* (fewer workers: the jobs still run, on those that started) */
	atomic_store(&pool->pid, me);
}

int tsr_pool_create(int nthreads, struct tsr_pool **pool_ret)
{
	struct tsr_pool *pool = calloc(1, sizeof(*pool));
	if (!pool)
		return tsr_error(TSR_E_NOMEM, "thread pool: out of memory");
	if (nthreads < 1)
		nthreads = 1;
	pool->nthreads = nthreads;
	atomic_init(&pool->pid, (int)getpid());
	atomic_init(&pool->claim, 0);
	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->wake, NULL);
	pthread_cond_init(&pool->done, NULL);
	pthread_cond_init(&pool->idle, NULL);
	pool->threads = calloc((size_t)nthreads, sizeof(pthread_t));
	if (!pool->threads) {
		tsr_pool_free(pool);
		return tsr_error(TSR_E_NOMEM, "thread pool: out of memory");
	}
	/* Thread 0 is always the caller; start the others. */
	int st = tsr_pool_spawn(pool, 1);
	if (st) {
		tsr_pool_free(pool);
		return st;
	}
	*pool_ret = pool;
	return TSR_OK;
}

void tsr_pool_free(struct tsr_pool *pool)
{
	if (!pool)
		return;
	if (atomic_load(&pool->pid) != (int)getpid()) {
		/* a fork's child that never used it: the workers are the parent's, not to be
		 * joined, and the lock may be held by one of them */
		free(pool->threads);
		free(pool);
		return;
	}
	pthread_mutex_lock(&pool->lock);
	pool->quit = 1;
	pthread_cond_broadcast(&pool->wake);
	pthread_mutex_unlock(&pool->lock);
	for (int i = 1; i < pool->nthreads; i++)
		pthread_join(pool->threads[i], NULL);
	pthread_mutex_destroy(&pool->lock);
	pthread_cond_destroy(&pool->wake);
	pthread_cond_destroy(&pool->done);
	pthread_cond_destroy(&pool->idle);
	free(pool->threads);
	free(pool);
}

void tsr_pool_start(struct tsr_pool *pool, int nworkers, tsr_pool_fn fn, void *arg)
{
	tsr_pool_after_fork(pool);
	if (nworkers > pool->nthreads)
		nworkers = pool->nthreads;
	pthread_mutex_lock(&pool->lock);
	while (pool->busy)
		pthread_cond_wait(&pool->idle, &pool->lock);
	pool->busy = 1;
	pool->fn = fn;
	pool->arg = arg;
	pool->want = nworkers > 1 ? nworkers : 1;
	pool->running = pool->want - 1;
	if (pool->running) {
		pool->generation++;
		pthread_cond_broadcast(&pool->wake);
	}
	pthread_mutex_unlock(&pool->lock);
}

void tsr_pool_wait(struct tsr_pool *pool)
{
	pthread_mutex_lock(&pool->lock);
	while (pool->running > 0)
		pthread_cond_wait(&pool->done, &pool->lock);
	pool->busy = 0;
	pthread_cond_signal(&pool->idle);
	pthread_mutex_unlock(&pool->lock);
}

void tsr_pool_run(struct tsr_pool *pool, int nworkers, tsr_pool_fn fn, void *arg)
{
	if (nworkers <= 1 || pool->nthreads <= 1) {
		fn(arg, 0);
		return;
	}
	tsr_pool_start(pool, nworkers, fn, arg);
	fn(arg, 0);
	tsr_pool_wait(pool);
}
