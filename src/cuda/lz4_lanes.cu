/* lz4_lanes.cu - the LZ4 kernel of a lane a stream (lz4_lane_core.h), for batches of many streams; tsr_cuda_lz4_batch runs it when forced (TSR_CUDA_LZ_LANES). */
#include <cuda_runtime.h>
#include <stdint.h>

#include "lz4_lane_core.h"
#include "tessera.h"
#include "tsr_cuda.h"

/* A warp a block: a batch of 10,000 streams is 313 warps, which the scheduler spreads 2 or 3
 * to each of the H200's 132 multiprocessors (larger blocks would crowd fewer). */
#define TSR_L4_THREADS 32

__global__ void __launch_bounds__(TSR_L4_THREADS)
tsr_lz4_lanes_kernel(const void *const *d_in, const size_t *d_in_nbytes, void *const *d_out,
		     const size_t *d_out_cap, size_t *d_out_nbytes, int *d_status, size_t nstreams,
		     int variant)
{
	const size_t i = (size_t)blockIdx.x * TSR_L4_THREADS + threadIdx.x;
	if (i >= nstreams)
		return;
	uint64_t got;
	const int st = tsr_l4_stream((const uint8_t *)d_in[i], (uint64_t)d_in_nbytes[i],
				     (uint8_t *)d_out[i], (uint64_t)d_out_cap[i], variant, &got);
	if (d_out_nbytes)
		d_out_nbytes[i] = got;
	if (d_status)
		d_status[i] = st;
}

extern "C" int tsr_cuda_lz4_lanes_batch(const void *const *d_in, const size_t *d_in_nbytes,
					void *const *d_out, const size_t *d_out_cap,
					size_t *d_out_nbytes, int *d_status, size_t nstreams,
					int variant, void *cuda_stream)
{
	if (variant != TSR_CUDA_LZ4_RAW && variant != TSR_CUDA_LZ4_SIZED)
		return TSR_E_INVALID_ARG;
	if (nstreams == 0)
		return TSR_OK;
	if (!d_in || !d_in_nbytes || !d_out || !d_out_cap)
		return TSR_E_INVALID_ARG;
	const size_t blocks = (nstreams + TSR_L4_THREADS - 1) / TSR_L4_THREADS;
	if (blocks > 0x7fffffffu)
		return TSR_E_INVALID_ARG;
	tsr_lz4_lanes_kernel<<<(unsigned)blocks, TSR_L4_THREADS, 0, (cudaStream_t)cuda_stream>>>(
		d_in, d_in_nbytes, d_out, d_out_cap, d_out_nbytes, d_status, nstreams, variant);
	return tsr_cuda_status(cudaGetLastError(), TSR_E_INTERNAL);
}
