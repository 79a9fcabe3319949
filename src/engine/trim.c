/* trim.c - tsr_context_trim: a context gives back the memory it keeps between reads. */
#include "engine.h"

int tsr_context_trim(struct tsr_context *ctx)
{
	if (!ctx)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_context_trim: ctx is NULL");
	tsr_cpu_trim(ctx);
	tsr_cuda_trim(ctx);
	return TSR_OK;
}
