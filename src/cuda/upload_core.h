/* upload_core.h - a small host table copied to device memory as thread t of nt of the upload kernel copies it; the kernel and the CPU emulator test share it. */
#ifndef TSR_CUDA_UPLOAD_CORE_H
#define TSR_CUDA_UPLOAD_CORE_H

#include <stdint.h>

#ifdef __CUDACC__
#define TSR_UP_FN static __device__ __forceinline__
typedef uint4 tsr_up_word; /* (one 16-byte load and store) */
#else
#define TSR_UP_FN static inline
typedef struct {
	uint32_t w[4];
} tsr_up_word;
#endif

/* Thread t of nt copies 16-byte words t, t + nt, ... where both ends are 16-byte aligned (the
 * slot's tables are: cudaHostAlloc and cudaMalloc align to 256), then the bytes of the tail (of
 * the whole, where they are not) the same way. Neighbouring threads move neighbouring words, so
 * a warp's loads from host memory go as few, whole requests. */
TSR_UP_FN void tsr_upload_run(uint8_t *dst, const uint8_t *src, uint64_t n, uint64_t t,
			      uint64_t nt)
{
	const uint64_t words = (((uintptr_t)dst | (uintptr_t)src) & 15) == 0 ? n / 16 : 0;
	for (uint64_t i = t; i < words; i += nt)
		((tsr_up_word *)(void *)dst)[i] = ((const tsr_up_word *)(const void *)src)[i];
	for (uint64_t i = words * 16 + t; i < n; i += nt)
		dst[i] = src[i];
}

#endif
