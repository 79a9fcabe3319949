/* warp.h - values across the 32 lanes of a warp (every lane taking part), for the kernels' cores: the OR, the sum, and the sum of the lanes below; the warp reductions on sm_80 and later, shuffles before. */
#ifndef TSR_CUDA_WARP_H
#define TSR_CUDA_WARP_H

#ifdef __CUDACC__
#include <stdint.h>

static __device__ __forceinline__ uint32_t tsr_warp_or(uint32_t v)
{
#if __CUDA_ARCH__ >= 800
	return __reduce_or_sync(0xffffffffu, v);
#else
	for (int d = 16; d > 0; d >>= 1)
		v |= __shfl_xor_sync(0xffffffffu, v, d);
	return v;
#endif
}

static __device__ __forceinline__ uint32_t tsr_warp_add(uint32_t v)
{
#if __CUDA_ARCH__ >= 800
	return __reduce_add_sync(0xffffffffu, v);
#else
	for (int d = 16; d > 0; d >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, d);
	return v;
#endif
}

/* the sum of the lanes' below this one (exclusive) */
static __device__ __forceinline__ uint32_t tsr_warp_xsum(uint32_t v)
{
	uint32_t s = v, lane = threadIdx.x & 31u;
	for (unsigned d = 1; d < 32; d <<= 1) {
		uint32_t t = __shfl_up_sync(0xffffffffu, s, d);
		s += lane >= d ? t : 0u;
	}
	return s - v;
}
#endif

#endif /* TSR_CUDA_WARP_H */
