/* context.c - contexts: the thread pool and settings that reads share. */
#include <stdlib.h>
#include <unistd.h>

#include "../engine/engine.h"
#include "internal.h"

int tsr_context_create(const struct tsr_context_options *opts, struct tsr_context **ctx_ret)
{
	if (!ctx_ret)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_context_create: ctx_ret is NULL");
	*ctx_ret = NULL;
	int nthreads = 0;
	if (opts) {
		if (opts->struct_size < sizeof(size_t) + sizeof(int))
			return tsr_error(TSR_E_INVALID_ARG, "tsr_context_create: bad struct_size");
		nthreads = opts->nthreads;
	}
	if (nthreads < 0)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_context_create: nthreads %d < 0", nthreads);
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
	/* no cache (out of memory) only makes reads allocate their own worker states */
	ctx->cpu_cache = tsr_cpu_cache_create();
	*ctx_ret = ctx;
	return TSR_OK;
}

void tsr_context_free(struct tsr_context *ctx)
{
	if (!ctx)
		return;
	tsr_pool_free(ctx->pool);
	tsr_cuda_state_free(ctx->cuda);
	tsr_cpu_cache_free(ctx->cpu_cache);
	free(ctx);
}

int tsr_context_nthreads(const struct tsr_context *ctx)
{
	return ctx ? ctx->nthreads : 0;
}
