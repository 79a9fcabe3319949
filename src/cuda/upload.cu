/* upload.cu - a small host table (pinned) copied to device memory by a kernel's own loads, so that it does not wait behind the copy engine's queue (upload_core.h). */
#include <cuda_runtime.h>
#include <stdint.h>

#include "tsr_cuda.h"
#include "upload_core.h"

#define TSR_UP_THREADS 256
#define TSR_UP_MAX_BLOCKS 256u

__global__ void __launch_bounds__(TSR_UP_THREADS)
tsr_upload_kernel(uint8_t *dst, const uint8_t *src, uint64_t n)
{
	tsr_upload_run(dst, src, n, (uint64_t)blockIdx.x * blockDim.x + threadIdx.x,
		       (uint64_t)gridDim.x * blockDim.x);
}

extern "C" int tsr_cuda_upload(void *d_dst, const void *h_src, size_t n, void *stream)
{
	if (n == 0)
		return 0;
	if (!d_dst || !h_src)
		return (int)cudaErrorInvalidValue;
	/* the device's address of the pinned buffer (the host's own where addressing is unified);
	 * a buffer that is not pinned fails here, not in the kernel */
	void *src = NULL;
	cudaError_t e = cudaHostGetDevicePointer(&src, (void *)h_src, 0);
	if (e)
		return (int)e;
	uint64_t words = n / 16 + 1;
	uint64_t blocks = (words + TSR_UP_THREADS - 1) / TSR_UP_THREADS;
	unsigned grid = blocks < TSR_UP_MAX_BLOCKS ? (unsigned)blocks : TSR_UP_MAX_BLOCKS;
	tsr_upload_kernel<<<grid, TSR_UP_THREADS, 0, (cudaStream_t)stream>>>(
		(uint8_t *)d_dst, (const uint8_t *)src, (uint64_t)n);
	return (int)cudaGetLastError();
}
