/* job_error.c - a pool job's first failure, named by file, HDU/array and chunk; both engines' workers record into it. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "engine.h"

void tsr_job_error_init(struct tsr_job_error *e)
{
	pthread_mutex_init(&e->lock, NULL);
	atomic_init(&e->failed, 0);
	e->status = TSR_OK;
	e->msg[0] = '\0';
}

void tsr_job_error_destroy(struct tsr_job_error *e)
{
	pthread_mutex_destroy(&e->lock);
}

void tsr_job_fail(struct tsr_job_error *e, const struct tsr_array *a, int64_t chunk, int status)
{
	/* The names are made outside the lock: other workers may be failing too. */
	char prefix[1400], label[320];
	if (chunk >= 0)
		tsr_array_chunk_name(a, chunk, prefix, sizeof(prefix), label, sizeof(label));
	pthread_mutex_lock(&e->lock);
	if (!e->status) {
		e->status = status;
		if (chunk >= 0)
			snprintf(e->msg, sizeof(e->msg), "%s %s: %s", prefix, label, tsr_errmsg());
		else
			snprintf(e->msg, sizeof(e->msg), "%s: %s", a->path, tsr_errmsg());
	}
	pthread_mutex_unlock(&e->lock);
	atomic_store(&e->failed, 1);
}

int tsr_job_error_take(struct tsr_job_error *e)
{
	if (e->status)
		tsr_error_set_text(e->msg);
	return e->status;
}
