/* lz_launch.h - the launch of an LZ decoding kernel (lz4.cu, blosclz.cu and their few-streams kernels): its stream loop, which kernel, grid size, work counter, errors. */
#ifndef TSR_LZ_LAUNCH_H
#define TSR_LZ_LAUNCH_H

#include <cuda_runtime.h>

#include "lz_core.h"
#include "tessera.h"
#include "tsr_cuda.h"

/* 8 warps a block (16 streams): a stream needs only its 128-byte window of shared memory. The
 * few-streams kernels (lz4_few.cu, blosclz_few.cu) set 2, so that a launch of few streams
 * spreads over the multiprocessors (on 16 a block, 256 streams ran on 16 of the H200's 132). */
#ifndef TSR_LZ_WARPS
#define TSR_LZ_WARPS 8
#endif

/* Streams a multiprocessor at most for the few-streams kernels alone (tsr_lz_pick): on the H200
 * (132 multiprocessors) they beat the many-streams kernels on 256, 1,024 and 2,048 streams of
 * 128 KiB (15.5 a multiprocessor) and lost on 10,000 coded streams of 64 KiB (design-notes,
 * "lzfew landed"). */
#define TSR_LZ_FEW_PER_SM 16

/* The kernel forced by tsr_cuda_lz_force (lz4.cu), TSR_CUDA_LZ_AUTO by default. */
extern int tsr_cuda_lz_mode;

/* The loop of every LZ kernel: each group takes the next stream, decodes it with
 * dec(m, in, n, out, cap, &got), and writes its size and status. take (NULL: none) is where
 * a kernel of the batch's share (lz4.cu) said which kernel decodes the batch: one that is not
 * `mine` returns. */
template <typename F>
static __device__ __forceinline__ void
tsr_lz_streams(F dec, const void *const *d_in, const size_t *d_in_nbytes, void *const *d_out,
	       const size_t *d_out_cap, size_t *d_out_nbytes, int *d_status, size_t nstreams,
	       const int *take, int mine, unsigned long long *next)
{
	if (take && *take != mine)
		return;
	__shared__ struct tsr_lz_smem sm[TSR_LZ_WARPS * 32 / TSR_LZ_GROUP];
	struct tsr_lz_smem *m = &sm[threadIdx.x / TSR_LZ_GROUP];
	for (;;) {
		unsigned long long i = 0;
		if (TSR_LZ_LANE == 0)
			i = atomicAdd(next, 1ull);
		i = __shfl_sync(TSR_LZ_MASK, i, 0, TSR_LZ_GROUP);
		if (i >= nstreams)
			break;
		uint64_t got;
		int st = dec(m, (const uint8_t *)d_in[i], (uint64_t)d_in_nbytes[i],
			     (uint8_t *)d_out[i], (uint64_t)d_out_cap[i], &got);
		if (TSR_LZ_LANE == 0) {
			if (d_out_nbytes)
				d_out_nbytes[i] = got;
			if (d_status)
				d_status[i] = st;
		}
		TSR_LZ_SYNCWARP();
	}
}

/* What tsr_lz_pick gives a launch. */
enum { TSR_LZ_PICK_MANY, TSR_LZ_PICK_FEW, TSR_LZ_PICK_SHARE };

/* Which kernel a launch of nstreams takes: forced, or the few-streams kernel for at most
 * TSR_LZ_FEW_PER_SM streams a multiprocessor of the current device (all of them resident at
 * once, a warp each, every multiprocessor with work), where the many-streams kernel's groups
 * of 16 lanes would sit on a few multiprocessors; a larger batch the many-streams kernel, or,
 * where the family says (by_share: LZ4), the one its stored share picks on the device
 * (lz_core.h, tsr_lz_share_take). */
static inline int tsr_lz_pick(size_t nstreams, int by_share, int *pick_ret)
{
	static int sms_cache[64];
	int mode = __atomic_load_n(&tsr_cuda_lz_mode, __ATOMIC_RELAXED);
	if (mode == TSR_CUDA_LZ_MANY || mode == TSR_CUDA_LZ_FEW) {
		*pick_ret = mode == TSR_CUDA_LZ_FEW ? TSR_LZ_PICK_FEW : TSR_LZ_PICK_MANY;
		return TSR_OK;
	}
	if (mode == TSR_CUDA_LZ_SHARE && by_share) {
		*pick_ret = TSR_LZ_PICK_SHARE;
		return TSR_OK;
	}
	int dev, sms = 0;
	cudaError_t e = cudaGetDevice(&dev);
	if (e != cudaSuccess)
		return tsr_cuda_status(e, TSR_E_INTERNAL);
	if (dev >= 0 && dev < 64)
		sms = __atomic_load_n(&sms_cache[dev], __ATOMIC_RELAXED);
	if (sms <= 0) {
		e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
		if (e != cudaSuccess)
			return tsr_cuda_status(e, TSR_E_INTERNAL);
		if (dev >= 0 && dev < 64)
			__atomic_store_n(&sms_cache[dev], sms, __ATOMIC_RELAXED);
	}
	*pick_ret = nstreams <= (size_t)sms * TSR_LZ_FEW_PER_SM ? TSR_LZ_PICK_FEW
		    : by_share				    ? TSR_LZ_PICK_SHARE
							    : TSR_LZ_PICK_MANY;
	return TSR_OK;
}

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
