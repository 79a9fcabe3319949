/* context.c - contexts: the thread pool and settings that reads share. */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"

/* The most worker threads a context takes (its default, all online CPUs, stops at 256). */
#define TSR_MAX_THREADS 1024

int tsr_context_create(const struct tsr_context_options *opts, struct tsr_context **ctx_ret)
{
	if (!ctx_ret)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_context_create: ctx_ret is NULL");
	*ctx_ret = NULL;
	struct tsr_context_options o;
	int st0 = tsr_context_options_load(&o, opts, "tsr_context_create");
	if (st0)
		return st0;
	int nthreads = o.nthreads;
	if (nthreads < 0)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_context_create: nthreads %d < 0", nthreads);
	/* (a typo's 100000 would start threads until the system refuses one, tens of thousands) */
	if (nthreads > TSR_MAX_THREADS)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_context_create: nthreads %d > %d", nthreads,
				 TSR_MAX_THREADS);
	if (nthreads == 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		nthreads = n > 0 ? (int)(n > 256 ? 256 : n) : 1;
	}
	struct tsr_context *ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return tsr_error(TSR_E_NOMEM, "tsr_context_create: out of memory");
	ctx->nthreads = nthreads;
	int st = tsr_pool_create(nthreads, &ctx->pool);
	if (st) {
		free(ctx);
		return st;
	}
	pthread_mutex_init(&ctx->state_lock, NULL);
	*ctx_ret = ctx;
	return TSR_OK;
}

void tsr_context_free(struct tsr_context *ctx)
{
	if (!ctx)
		return;
	tsr_pool_free(ctx->pool);
	/* the CUDA state (made last, as reads go) before the CPU one; the FITS memo holds no other */
	for (int id = TSR_CTX_NSTATES - 1; id >= 0; id--)
		if (ctx->state[id])
			ctx->state_free[id](ctx->state[id]);
	pthread_mutex_destroy(&ctx->state_lock);
	free(ctx);
}

int tsr_context_state(struct tsr_context *ctx, enum tsr_ctx_state_id id, tsr_state_make_fn make,
		      tsr_state_free_fn free_fn, void **state_ret)
{
	int st = TSR_OK;
	pthread_mutex_lock(&ctx->state_lock);
	if (!ctx->state[id]) {
		void *state = NULL;
		st = make(ctx, &state);
		if (st == TSR_OK) {
			ctx->state[id] = state;
			ctx->state_free[id] = free_fn;
		}
	}
	*state_ret = ctx->state[id];
	pthread_mutex_unlock(&ctx->state_lock);
	return st;
}

void *tsr_context_state_peek(struct tsr_context *ctx, enum tsr_ctx_state_id id)
{
	pthread_mutex_lock(&ctx->state_lock);
	void *state = ctx->state[id];
	pthread_mutex_unlock(&ctx->state_lock);
	return state;
}

int tsr_context_nthreads(const struct tsr_context *ctx)
{
	return ctx ? ctx->nthreads : 0;
}
