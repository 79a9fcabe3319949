/* cuda_blosc.c - blosc chunks on the GPU: their stored and run streams, copied and set in the
 * decode buffer (their coded streams go to their families' kernels; src/codecs/blosc_streams.c
 * lists them), then the filter pass over the chunks with filters or fills. */
#include "engine.h"

#ifdef TSR_WITH_CUDA
#include "cuda_engine.h"

int tsr_cuda_blosc_ops(struct tsr_cuda_slot *s)
{
	cudaError_t e = cudaSuccess;
	for (size_t k = 0; k < s->nbops && !e; k++) {
		const struct tsr_cuda_bop *op = &s->bops[k];
		if (op->value < 0)
			e = cudaMemcpyAsync(s->dec + op->dst, s->dev + op->src, op->n,
					    cudaMemcpyDeviceToDevice, s->stream);
		else
			e = cudaMemsetAsync(s->dec + op->dst, op->value, op->n, s->stream);
	}
	return e ? tsr_cuda_fail(e, "blosc streams") : TSR_OK;
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
