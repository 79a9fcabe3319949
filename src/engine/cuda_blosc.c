/* cuda_blosc.c - blosc chunks on the GPU: their stored and run streams, copied and set in the
 * decode buffer (their coded streams go to their families' kernels; src/codecs/blosc_streams.c
 * lists them), then the filter pass over the chunks with filters or fills. */
#include "engine.h"

#ifdef TSR_WITH_CUDA
#include "cuda_engine.h"

int tsr_cuda_blosc_ops(struct tsr_cuda_slot *s)
{
	if (!s->nbops)
		return TSR_OK;
	cudaError_t e = cudaSuccess;
	if (s->dev_bops_cap < s->nbops) {
		/* (grown rarely: cudaFree waits for the device, whose earlier launches may read
		 * the old table) */
		size_t cap = s->nbops > 4096 ? s->nbops : 4096;
		cudaFree(s->dev_bops);
		s->dev_bops = NULL;
		s->dev_bops_cap = 0;
		if ((e = cudaMalloc((void **)&s->dev_bops, cap * sizeof(*s->dev_bops))))
			return tsr_cuda_fail(e, "blosc streams table");
		s->dev_bops_cap = cap;
	}
	/* (pageable source: the call returns once the bytes are staged, so the host table may
	 * be refilled; the launch after it on the slot's stream sees them) */
	if ((e = cudaMemcpyAsync(s->dev_bops, s->bops, s->nbops * sizeof(*s->bops),
				 cudaMemcpyHostToDevice, s->stream)))
		return tsr_cuda_fail(e, "blosc streams table");
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
