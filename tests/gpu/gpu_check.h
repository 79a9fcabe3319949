/* gpu_check.h - CK (exit on a CUDA error, naming the call) and tu_xmalloc (exit when malloc fails), shared by the GPU tests and benches. */
#ifndef TSR_GPU_CHECK_H
#define TSR_GPU_CHECK_H

/* Plain C that also compiles as C++ (the benches are .cu files). */
#include <stdio.h>
#include <stdlib.h>

#ifdef CUDART_VERSION /* (the CUDA runtime's header came first) */
#define CK(x)                                                                                    \
	do {                                                                                     \
		cudaError_t e_ = (x);                                                            \
		if (e_ != cudaSuccess) {                                                         \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,               \
				cudaGetErrorString(e_));                                         \
			exit(1);                                                                 \
		}                                                                                \
	} while (0)
#endif

static inline void *tu_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fprintf(stderr, "out of memory (%zu bytes)\n", n);
		exit(2);
	}
	return p;
}

#endif /* TSR_GPU_CHECK_H */
