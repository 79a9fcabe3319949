/* inflate.cu - batched GPU DEFLATE/zlib/gzip decoding: one warp per stream (see inflate_core.h). */
#include <cuda_runtime.h>
#include <stdint.h>

#include "tessera.h"
#include "tsr_cuda.h"
#include "inflate_core.h"

/* 4 warps (streams) a block, 27.4 KiB of shared memory (28096 bytes): 8 blocks, 32 warps fill
 * an SM, at 64 registers a thread. TSR_INFLATE_MIN_BLOCKS may be set lower to trade warps for registers (7
 * allows 72, 6 allows 80), but on the H200 7 took the float benchmark from 54.5 to 52.9 GB/s, so
 * the default keeps all 32 warps. */
#define TSR_INFLATE_WARPS 4
#ifndef TSR_INFLATE_MIN_BLOCKS
#define TSR_INFLATE_MIN_BLOCKS 8
#endif

/*
 * Warps take streams from a counter in scratch as they finish, so a few large streams do not
 * leave the rest of the GPU idle behind them and the grid need only fill the GPU once.
 */
__global__ void __launch_bounds__(TSR_INFLATE_WARPS * 32, TSR_INFLATE_MIN_BLOCKS)
tsr_inflate_kernel(const void *const *d_in, const size_t *d_in_nbytes, void *const *d_out,
		   const size_t *d_out_cap, size_t *d_out_nbytes, int *d_status, size_t nstreams,
		   unsigned framing, unsigned long long *next)
{
	__shared__ struct tsr_inflate_smem sm[TSR_INFLATE_WARPS];
	struct tsr_inflate_smem *m = &sm[threadIdx.x >> 5];

	for (;;) {
		unsigned long long i = 0;
		if (TSR_LANE == 0)
			i = atomicAdd(next, 1ull);
		i = __shfl_sync(0xffffffffu, i, 0);
		if (i >= nstreams)
			break;
		size_t got;
		int st = tsr_inflate_stream(m, (const uint8_t *)d_in[i], d_in_nbytes[i],
					    (uint8_t *)d_out[i], d_out_cap[i], framing, &got);
		if (TSR_LANE == 0) {
			if (d_out_nbytes)
				d_out_nbytes[i] = got;
			if (d_status)
				d_status[i] = st;
		}
		__syncwarp();
	}
}

extern "C" const char *tsr_cuda_inflate_status_name(int status)
{
	switch (status) {
	case TSR_CUDA_INFLATE_OK: return "ok";
	case TSR_CUDA_INFLATE_E_TRUNCATED: return "truncated input";
	case TSR_CUDA_INFLATE_E_HEADER: return "bad zlib/gzip header";
	case TSR_CUDA_INFLATE_E_BLOCK_TYPE: return "bad block type";
	case TSR_CUDA_INFLATE_E_STORED_LEN: return "bad stored block length";
	case TSR_CUDA_INFLATE_E_CODE_LENGTHS: return "bad code lengths";
	case TSR_CUDA_INFLATE_E_SYMBOL: return "bad symbol";
	case TSR_CUDA_INFLATE_E_DISTANCE: return "distance too far back";
	case TSR_CUDA_INFLATE_E_OVERFLOW: return "output overflow";
	case TSR_CUDA_INFLATE_E_CHECKSUM: return "checksum mismatch";
	case TSR_CUDA_INFLATE_E_ARGUMENT: return "bad pointer";
	default: return "unknown status";
	}
}

extern "C" int tsr_cuda_inflate_scratch_nbytes(size_t nstreams, size_t *nbytes_ret)
{
	(void)nstreams;
	if (!nbytes_ret)
		return TSR_E_INVALID_ARG;
	*nbytes_ret = 256; /* the work counter, on its own 256 bytes */
	return TSR_OK;
}

/* Resident blocks per device (SMs x blocks per SM), found once: 0 = not yet known. */
#define TSR_MAX_DEVICES 64
static int tsr_inflate_grid[TSR_MAX_DEVICES];

static int tsr_inflate_grid_size(int *blocks_ret)
{
	int dev, sms = 0, per_sm = 0;
	cudaError_t e = cudaGetDevice(&dev);
	if (e != cudaSuccess)
		return tsr_cuda_status(e, TSR_E_INTERNAL);
	if (dev >= 0 && dev < TSR_MAX_DEVICES &&
	    __atomic_load_n(&tsr_inflate_grid[dev], __ATOMIC_RELAXED) > 0) {
		*blocks_ret = __atomic_load_n(&tsr_inflate_grid[dev], __ATOMIC_RELAXED);
		return TSR_OK;
	}
	/* all shared memory, no L1 preference: the tables are what limit residency */
	e = cudaFuncSetAttribute(tsr_inflate_kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
				 cudaSharedmemCarveoutMaxShared);
	if (e == cudaSuccess)
		e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
	if (e == cudaSuccess)
		e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, tsr_inflate_kernel,
								  TSR_INFLATE_WARPS * 32, 0);
	if (e != cudaSuccess)
		return tsr_cuda_status(e, TSR_E_INTERNAL);
	int blocks = sms * (per_sm > 0 ? per_sm : 1);
	if (dev >= 0 && dev < TSR_MAX_DEVICES)
		__atomic_store_n(&tsr_inflate_grid[dev], blocks, __ATOMIC_RELAXED);
	*blocks_ret = blocks;
	return TSR_OK;
}

extern "C" int tsr_cuda_inflate_batch(const void *const *d_in, const size_t *d_in_nbytes,
				      void *const *d_out, const size_t *d_out_cap,
				      size_t *d_out_nbytes, int *d_status, size_t nstreams,
				      int framing, void *d_scratch, size_t scratch_nbytes,
				      void *cuda_stream)
{
	size_t need;
	int blocks = 0, st;

	if (nstreams == 0)
		return TSR_OK;
	tsr_cuda_inflate_scratch_nbytes(nstreams, &need);
	if (!d_in || !d_in_nbytes || !d_out || !d_out_cap || !d_scratch || scratch_nbytes < need ||
	    (framing & ~(0xff | TSR_CUDA_INFLATE_NO_CHECKSUM)) || (framing & 0xff) > TSR_CUDA_GZIP)
		return TSR_E_INVALID_ARG;
	st = tsr_inflate_grid_size(&blocks);
	if (st)
		return st;
	size_t want = (nstreams + TSR_INFLATE_WARPS - 1) / TSR_INFLATE_WARPS;
	if (want < (size_t)blocks)
		blocks = (int)want;
	cudaStream_t stream = (cudaStream_t)cuda_stream;
	cudaError_t e = cudaMemsetAsync(d_scratch, 0, sizeof(unsigned long long), stream);
	if (e != cudaSuccess)
		return tsr_cuda_status(e, TSR_E_INTERNAL);
	tsr_inflate_kernel<<<blocks, TSR_INFLATE_WARPS * 32, 0, stream>>>(
		d_in, d_in_nbytes, d_out, d_out_cap, d_out_nbytes, d_status, nstreams,
		(unsigned)framing, (unsigned long long *)d_scratch);
	return tsr_cuda_status(cudaGetLastError(), TSR_E_INTERNAL);
}
