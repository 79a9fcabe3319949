/* cuda_blosc.c - blosc chunks on the GPU: their stored and run streams, copied and set in the
 * decode buffer (their zlib streams go to the inflate kernel; src/codecs/blosc_streams.c lists
 * them). */
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

#endif
