/* test_trim_threads.c - tsr_context_trim gives back what a context keeps between host reads (split chunks' spare buffers, idle workers' states), and reads after it, or beside it on other threads, still equal their data. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engine/engine.h"
#include "b2w_arrays.h"
#include "tessera.h"

#define NARRAYS 2
#define C 480

static const int64_t rows[NARRAYS] = {640, 1280};
static struct b2w_arrays A; /* the arrays and their values */
static struct tsr_context *ctx;
static atomic_int readers_left;

/* Reads array k whole; 0 when it equals its data. */
static int read_equal(int k)
{
	size_t nbytes = (size_t)(rows[k] * C) * 4;
	int32_t *got = malloc(nbytes);
	if (!got)
		return -1;
	memset(got, 0xA5, nbytes);
	struct tsr_buffer dst = {got, nbytes, TSR_MEM_HOST, NULL};
	int st = tsr_read(A.arr[k], NULL, &dst, NULL, NULL);
	int bad = st != TSR_OK || memcmp(got, A.data[k], nbytes) != 0;
	if (bad)
		fprintf(stderr, "array %d: read %d (%s), %s\n", k, st, tsr_errmsg(),
			st ? "failed" : "values differ");
	free(got);
	return bad;
}

static void *reader(void *p)
{
	int iters = *(const int *)p, bad = 0;
	for (int i = 0; i < iters; i++)
		bad += read_equal(i % NARRAYS);
	atomic_fetch_sub(&readers_left, 1);
	return (void *)(intptr_t)bad;
}

static void *trimmer(void *p)
{
	(void)p;
	int bad = 0;
	while (atomic_load(&readers_left) > 0)
		bad += tsr_context_trim(ctx) != TSR_OK;
	return (void *)(intptr_t)bad;
}

int main(void)
{
	const char *e = getenv("TSR_THREAD_ITERS");
	int iters = e && atoi(e) > 0 ? atoi(e) : 20;
	CHECK_EQ_INT(tsr_context_trim(NULL), TSR_E_INVALID_ARG);
	struct tsr_context_options co = {sizeof(co), 4};
	CHECK_EQ_INT(tsr_context_create(&co, &ctx), TSR_OK);
	CHECK_EQ_INT(tsr_context_trim(ctx), TSR_OK); /* nothing kept yet */
	/* each array one chunk, which a whole read splits over the threads */
	b2w_arrays_open(&A, ctx, "trim", NARRAYS, rows, C);
	if (!A.arr[0] || !A.arr[1])
		CHECK_DONE();
	/* one thread: what a read leaves is kept, a trim frees it, the next read is right */
	for (int round = 0; round < 3; round++) {
		for (int k = 0; k < NARRAYS; k++) {
			CHECK_EQ_INT(read_equal(k), 0);
			int nidle = 0;
			size_t kept = tsr_cpu_kept_nbytes(ctx, &nidle);
			CHECK(kept > 0);  /* the split chunk's stored bytes' buffers */
			CHECK(nidle > 0); /* the workers' states */
			CHECK_EQ_INT(tsr_context_trim(ctx), TSR_OK);
			CHECK(tsr_cpu_kept_nbytes(ctx, &nidle) == 0);
			CHECK_EQ_INT(nidle, 0);
		}
	}
	/* trims beside reads on three threads */
	enum { NREADERS = 3 };
	pthread_t rd[NREADERS], tr;
	atomic_store(&readers_left, NREADERS);
	CHECK_EQ_INT(pthread_create(&tr, NULL, trimmer, NULL), 0);
	for (int t = 0; t < NREADERS; t++)
		CHECK_EQ_INT(pthread_create(&rd[t], NULL, reader, &iters), 0);
	for (int t = 0; t < NREADERS; t++) {
		void *bad = NULL;
		pthread_join(rd[t], &bad);
		CHECK_EQ_INT((int)(intptr_t)bad, 0);
	}
	void *tbad = NULL;
	pthread_join(tr, &tbad);
	CHECK_EQ_INT((int)(intptr_t)tbad, 0);
	b2w_arrays_close(&A);
	tsr_context_free(ctx);
	CHECK_DONE();
}
