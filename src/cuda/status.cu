/* status.cu - the one mapping of a CUDA error to a tessera status, for the kernels' launchers and the CUDA engine alike. */
#include <cuda_runtime.h>

#include "tessera.h"
#include "tsr_cuda.h"

/* The last CUDA error this thread mapped, so that the engine's message can name the error a
 * launcher turned into a bare status. */
static thread_local int tsr_cuda_last_error;

extern "C" int tsr_cuda_status(int cuda_error, int other)
{
	cudaError_t e = (cudaError_t)cuda_error;
	if (e == cudaSuccess)
		return TSR_OK;
	tsr_cuda_last_error = cuda_error;
	(void)cudaGetLastError(); /* clear it, if it is not sticky: the next call starts clean */
	switch (e) {
	case cudaErrorNoDevice:
	case cudaErrorInsufficientDriver:
	case cudaErrorInvalidDevice:
	case cudaErrorNoKernelImageForDevice:
		return TSR_E_NO_DEVICE;
	case cudaErrorMemoryAllocation:
		return TSR_E_NOMEM;
	default:
		return other;
	}
}

extern "C" int tsr_cuda_status_take_error(void)
{
	int e = tsr_cuda_last_error;
	tsr_cuda_last_error = 0;
	return e;
}

extern "C" const char *tsr_cuda_error_string(int cuda_error)
{
	return cudaGetErrorString((cudaError_t)cuda_error);
}
