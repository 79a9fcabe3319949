/* cuda_blosc.c - blosc chunks on the GPU: their stored and run streams, copied and set in the
 * decode buffer (their coded streams go to their families' kernels; src/codecs/blosc_streams.c
 * lists them), then the filter pass over the chunks with filters or fills. */
#include <string.h>

#include "engine.h"

#ifdef TSR_WITH_CUDA
#include "cuda_engine.h"

int tsr_cuda_bops_grow(struct tsr_cuda_slot *s, size_t need)
{
	if (need <= s->bops_cap)
		return TSR_OK;
	/* pinned, so that the upload kernel reads it (grown rarely: cudaFreeHost may wait for the
	 * device; this slot's kernels that read the old table are done, the slot being open) */
	size_t cap = s->bops_cap * 2 > need ? s->bops_cap * 2 : need < 256 ? 256 : need;
	struct tsr_cuda_bop *b = NULL;
	cudaError_t e = cudaHostAlloc((void **)&b, cap * sizeof(*b), cudaHostAllocDefault);
	if (e)
		return tsr_cuda_fail(e, "blosc streams table");
	if (s->nbops)
		memcpy(b, s->bops, s->nbops * sizeof(*b));
	cudaFreeHost(s->bops);
	s->bops = b;
	s->bops_cap = cap;
	return TSR_OK;
}

cudaError_t tsr_cuda_bops_table(struct tsr_cuda_slot *s)
{
	if (s->dev_bops_cap < s->nbops) {
		/* (grown rarely: cudaFree waits for the device, whose earlier launches may read
		 * the old table) */
		size_t cap = s->nbops > 4096 ? s->nbops : 4096;
		cudaFree(s->dev_bops);
		s->dev_bops = NULL;
		s->dev_bops_cap = 0;
		cudaError_t e = cudaMalloc((void **)&s->dev_bops, cap * sizeof(*s->dev_bops));
		if (e)
			return e;
		s->dev_bops_cap = cap;
	}
	return (cudaError_t)tsr_cuda_upload(s->dev_bops, s->bops, s->nbops * sizeof(*s->bops),
					    s->stream);
}

int tsr_cuda_blosc_ops(struct tsr_cuda_slot *s)
{
	if (!s->nbops)
		return TSR_OK;
	int ke = tsr_cuda_bops_launch(s->dev_bops, s->nbops, s->dec, s->dev, s->stream);
	return ke ? tsr_cuda_fail((cudaError_t)ke, "blosc streams") : TSR_OK;
}

int tsr_cuda_blosc_filters(struct tsr_cuda_slot *s)
{
	if (!s->nbf)
		return TSR_OK;
	int ke = tsr_cuda_bfilter_launch(s->dec, s->dev, s->dev_bf, s->nbf, s->bf_blocks,
					 s->bf_passes, s->stream);
	return ke ? tsr_cuda_fail((cudaError_t)ke, "blosc filter pass") : TSR_OK;
}

#endif
