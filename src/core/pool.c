/* pool.c - a fixed thread pool that runs one function on N workers at once, with the caller or
 * in the background. */
#include <pthread.h>
#include <stdlib.h>

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

int tsr_pool_create(int nthreads, struct tsr_pool **pool_ret)
{
	struct tsr_pool *pool = calloc(1, sizeof(*pool));
	if (!pool)
		return tsr_error(TSR_E_NOMEM, "thread pool: out of memory");
	if (nthreads < 1)
		nthreads = 1;
	pool->nthreads = nthreads;
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
	for (int i = 1; i < nthreads; i++) {
		struct tsr_pool_thread_arg *start = malloc(sizeof(*start));
		if (!start || (start->pool = pool, start->id = i,
			       pthread_create(&pool->threads[i], NULL, tsr_pool_main, start) != 0)) {
			free(start);
			pool->nthreads = i;
			tsr_pool_free(pool);
			return tsr_error(TSR_E_NOMEM, "thread pool: cannot start thread %d", i);
		}
	}
	*pool_ret = pool;
	return TSR_OK;
}

void tsr_pool_free(struct tsr_pool *pool)
{
	if (!pool)
		return;
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
