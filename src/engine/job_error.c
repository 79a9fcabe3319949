/* job_error.c - a pool job's failure, named by file, HDU/array and chunk; both engines' workers record into it. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "engine.h"

void tsr_job_error_init(struct tsr_job_error *e)
{
	pthread_mutex_init(&e->lock, NULL);
	atomic_init(&e->failed, 0);
	e->status = TSR_OK;
	e->chunk = -1;
	e->msg[0] = '\0';
}

void tsr_job_error_destroy(struct tsr_job_error *e)
{
	pthread_mutex_destroy(&e->lock);
}

/*
 * Several workers may fail in one read (a corrupt shard fails every inner chunk they take),
 * in whatever order the threads happen to run. The one kept is the lowest chunk number: the
 * first failing chunk in C order. Workers claim tasks in plan order, finish a task once
 * claimed, and after a failure still run the tasks of chunks that rank before it
 * (tsr_job_ranks_before), so every chunk before the one kept runs and reports, and the same
 * input always gives the same message whatever the thread count, timing or steps.
 */
static int tsr_job_ranks_first(const struct tsr_job_error *e, int64_t chunk)
{
	if (!e->status)
		return 1;
	if (e->chunk < 0)
		return 0; /* a failure of the whole job (named by the file) stays */
	return chunk < 0 || chunk < e->chunk;
}

void tsr_job_fail(struct tsr_job_error *e, const struct tsr_array *a, int64_t chunk, int status)
{
	/* The names are made outside the lock: other workers may be failing too. */
	char prefix[1400], label[320];
	if (chunk >= 0)
		tsr_array_chunk_name(a, chunk, prefix, sizeof(prefix), label, sizeof(label));
	pthread_mutex_lock(&e->lock);
	if (tsr_job_ranks_first(e, chunk)) {
		e->status = status;
		e->chunk = chunk;
		if (chunk >= 0)
			snprintf(e->msg, sizeof(e->msg), "%s %s: %s", prefix, label, tsr_errmsg());
		else
			snprintf(e->msg, sizeof(e->msg), "%s: %s", a->path, tsr_errmsg());
	}
	pthread_mutex_unlock(&e->lock);
	atomic_store(&e->failed, 1);
}

int tsr_job_ranks_before(struct tsr_job_error *e, int64_t chunk)
{
	pthread_mutex_lock(&e->lock);
	int before = !e->status || (e->chunk >= 0 && chunk >= 0 && chunk < e->chunk);
	pthread_mutex_unlock(&e->lock);
	return before;
}

int tsr_job_error_take(struct tsr_job_error *e)
{
	if (e->status)
		tsr_error_set_text(e->msg);
	return e->status;
}
