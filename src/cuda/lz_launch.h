/* lz_launch.h - the launch of a one-warp-per-stream LZ decoding kernel (lz4.cu, blosclz.cu): grid size, work counter, errors. */
#ifndef TSR_LZ_LAUNCH_H
#define TSR_LZ_LAUNCH_H

#include <cuda_runtime.h>

#include "tessera.h"
#include "tsr_cuda.h"

/* 8 warps a block (16 streams): a stream needs only its 128-byte window of shared memory. */
#define TSR_LZ_WARPS 8

/* Resident blocks of kernel k on the current device (cached per device in grid[]). */
template <typename K> static int tsr_lz_grid(K k, int *grid, int ngrid, int *blocks_ret)
{
	int dev, sms = 0, per_sm = 0;
	cudaError_t e = cudaGetDevice(&dev);
	if (e != cudaSuccess)
		return tsr_cuda_status(e, TSR_E_INTERNAL);
	if (dev >= 0 && dev < ngrid && __atomic_load_n(&grid[dev], __ATOMIC_RELAXED) > 0) {
		*blocks_ret = __atomic_load_n(&grid[dev], __ATOMIC_RELAXED);
		return TSR_OK;
	}
	e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
	if (e == cudaSuccess)
		e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, TSR_LZ_WARPS * 32, 0);
	if (e != cudaSuccess)
		return tsr_cuda_status(e, TSR_E_INTERNAL);
	int blocks = sms * (per_sm > 0 ? per_sm : 1);
	if (dev >= 0 && dev < ngrid)
		__atomic_store_n(&grid[dev], blocks, __ATOMIC_RELAXED);
	*blocks_ret = blocks;
	return TSR_OK;
}

/* Checks the arguments, resets the work counter and launches k on enough blocks. */
template <typename K, typename... A>
static int tsr_lz_launch(K k, int *grid, int ngrid, const void *const *d_in,
			 const size_t *d_in_nbytes, void *const *d_out, const size_t *d_out_cap,
			 size_t nstreams, void *d_scratch, size_t scratch_nbytes, void *cuda_stream,
			 A... args)
{
	if (nstreams == 0)
		return TSR_OK;
	if (!d_in || !d_in_nbytes || !d_out || !d_out_cap || !d_scratch || scratch_nbytes < 256)
		return TSR_E_INVALID_ARG;
	int blocks = 0, st = tsr_lz_grid(k, grid, ngrid, &blocks);
	if (st)
		return st;
	size_t per_block = TSR_LZ_WARPS * 32 / TSR_LZ_GROUP;
	size_t want = (nstreams + per_block - 1) / per_block;
	if (want < (size_t)blocks)
		blocks = (int)want;
	cudaStream_t stream = (cudaStream_t)cuda_stream;
	cudaError_t e = cudaMemsetAsync(d_scratch, 0, sizeof(unsigned long long), stream);
	if (e != cudaSuccess)
		return tsr_cuda_status(e, TSR_E_INTERNAL);
	k<<<blocks, TSR_LZ_WARPS * 32, 0, stream>>>(args..., (unsigned long long *)d_scratch);
	return tsr_cuda_status(cudaGetLastError(), TSR_E_INTERNAL);
}

#endif /* TSR_LZ_LAUNCH_H */
