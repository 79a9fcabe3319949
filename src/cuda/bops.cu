/* bops.cu - a slot's uncoded blosc streams copied and set in one launch: one thread block an operation (bops_core.h). */
#include <cuda_runtime.h>
#include <stdint.h>

#include "bops_core.h"

#define TSR_BOP_THREADS 256

__global__ void __launch_bounds__(TSR_BOP_THREADS)
tsr_bops_kernel(const struct tsr_cuda_bop *ops, size_t n, uint8_t *dec, const uint8_t *stage)
{
	for (size_t k = blockIdx.x; k < n; k += gridDim.x) {
		const struct tsr_cuda_bop op = ops[k];
		tsr_bop_run(&op, dec, stage, threadIdx.x, blockDim.x);
	}
}

extern "C" int tsr_cuda_bops_launch(const struct tsr_cuda_bop *ops, size_t n, uint8_t *dec,
				    const uint8_t *stage, void *stream)
{
	if (n == 0)
		return 0;
	if (!ops || !dec || !stage)
		return (int)cudaErrorInvalidValue;
	/* a grid the GPU holds at once is plenty: the operations are taken in turn */
	unsigned grid = n < 16384 ? (unsigned)n : 16384u;
	tsr_bops_kernel<<<grid, TSR_BOP_THREADS, 0, (cudaStream_t)stream>>>(ops, n, dec, stage);
	return (int)cudaGetLastError();
}
