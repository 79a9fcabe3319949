/* bfilter.cu - the blosc filter pass: one thread block a chunk block, running its steps (bfilter_core.h) between barriers. */
#include <cuda_runtime.h>
#include <stdint.h>

#include "bfilter_core.h"

#define TSR_BF_THREADS 256

/* The chunk whose blocks hold the launch's block g (chunks in order of `first`). */
static __device__ size_t tsr_bf_find(const struct tsr_cuda_bfilter *c, size_t n, uint64_t g)
{
	size_t lo = 0, hi = n;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (c[mid].first <= g)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

__global__ void __launch_bounds__(TSR_BF_THREADS)
tsr_bfilter_kernel(uint8_t *dec, uint8_t *stage, const struct tsr_cuda_bfilter *chunks, size_t n,
		   uint64_t nblocks, int pass)
{
	__shared__ uint64_t agg[TSR_BF_THREADS];
	__shared__ struct tsr_cuda_bfilter c;
	for (uint64_t g = blockIdx.x; g < nblocks; g += gridDim.x) {
		if (threadIdx.x == 0)
			c = chunks[tsr_bf_find(chunks, n, g)];
		__syncthreads();
		uint64_t k = g - c.first, b = k < c.nblocks ? tsr_bf_block(&c, k) : 0;
		unsigned steps = k < c.nblocks ? tsr_bf_nsteps(&c, b, pass) : 0;
		struct tsr_bf_view v;
		v.block = b;
		v.at = b * c.blocksize;
		v.n = steps ? tsr_bf_block_n(&c, b) : 0;
		v.a = dec + c.dec + v.at;
		v.b = stage + c.scratch + v.at;
		v.a0 = dec + c.dec;
		v.pat = c.pat_src == TSR_CUDA_BF_PAT_INLINE ? c.pat : stage + c.pat_src;
		for (unsigned s = 0; s < steps; s++) {
			tsr_bf_step(&c, &v, pass, s, threadIdx.x, blockDim.x, agg);
			__syncthreads();
		}
		__syncthreads(); /* (c is rewritten for the next block) */
	}
}

extern "C" int tsr_cuda_bfilter_describe(const struct tsr_blosc_pipeline *p, uint64_t dec,
					 uint64_t stage, uint64_t first,
					 struct tsr_cuda_bfilter *c)
{
	return tsr_bf_describe(p, dec, stage, first, c);
}

extern "C" int tsr_cuda_bfilter_in_stage(const struct tsr_cuda_bfilter *c)
{
	return tsr_bf_in_stage(c);
}

extern "C" int tsr_cuda_bfilter_passes(const struct tsr_cuda_bfilter *c)
{
	return tsr_bf_passes(c);
}

extern "C" int tsr_cuda_bfilter_launch(void *d_dec, void *d_stage,
				       const struct tsr_cuda_bfilter *d_chunks, size_t n,
				       uint64_t nblocks, int passes, void *stream)
{
	if (n == 0 || nblocks == 0)
		return 0;
	if (!d_chunks || !d_dec || !d_stage)
		return (int)cudaErrorInvalidValue;
	/* a grid the GPU holds at once is plenty: the blocks are taken in turn */
	unsigned grid = nblocks < 65536 ? (unsigned)nblocks : 65536u;
	for (int pass = 0; pass < passes; pass++) {
		tsr_bfilter_kernel<<<grid, TSR_BF_THREADS, 0, (cudaStream_t)stream>>>(
			(uint8_t *)d_dec, (uint8_t *)d_stage, d_chunks, n, nblocks, pass);
		cudaError_t e = cudaGetLastError();
		if (e != cudaSuccess)
			return (int)e;
	}
	return 0;
}
