/* bops_core.h - one copy or set operation of a blosc slot's uncoded streams, as thread t of nt runs it; the kernel and the CPU emulator test share it. */
#ifndef TSR_CUDA_BOPS_CORE_H
#define TSR_CUDA_BOPS_CORE_H

#include <stdint.h>

#include "bops.h"

#ifdef __CUDACC__
#define TSR_BOP_FN static __device__ __forceinline__
#else
#define TSR_BOP_FN static inline
#endif

/* Thread t of nt writes bytes t, t + nt, ... of the operation's destination: neighbours write
 * neighbouring bytes, so a warp's stores (and a copy's loads) fall in one or two segments. */
TSR_BOP_FN void tsr_bop_run(const struct tsr_cuda_bop *op, uint8_t *dec, const uint8_t *stage,
			    unsigned t, unsigned nt)
{
	/* (the decode buffer and the staging are different allocations) */
	uint8_t *__restrict__ d = dec + op->dst;
	if (op->value < 0) {
		const uint8_t *__restrict__ s = stage + op->src;
		for (uint64_t i = t; i < op->n; i += nt)
			d[i] = s[i];
	} else {
		const uint8_t v = (uint8_t)op->value;
		for (uint64_t i = t; i < op->n; i += nt)
			d[i] = v;
	}
}

#endif
