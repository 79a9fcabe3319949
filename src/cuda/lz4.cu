/* lz4.cu - batched GPU LZ4 block decoding: one group of lanes (half a warp) per stream, or the few-streams kernel (lz4_few.cu) for a batch of few (see lz4_core.h and lz_core.h). */
/* no batches of short sequences (lz4_core.h) here: their registers (80 against 40) halved the
 * resident streams, and the kernel lost 37% on 10,000 x 64 KiB shuffled floats (H200) */
#define TSR_LZ4_BATCHED 0
#define TSR_LZ4_KERNEL tsr_lz4_kernel
#define TSR_LZ4_LAUNCH tsr_lz4_launch_many
#include "lz4_kernel.h"

int tsr_cuda_lz_mode = TSR_CUDA_LZ_AUTO;

extern "C" const char *tsr_cuda_lz_status_name(int status)
{
	return tsr_lz_status_text(status);
}

extern "C" void tsr_cuda_lz_force(int mode)
{
	__atomic_store_n(&tsr_cuda_lz_mode, mode, __ATOMIC_RELAXED);
}

extern "C" int tsr_cuda_lz_scratch_nbytes(size_t nstreams, size_t *nbytes_ret)
{
	(void)nstreams;
	if (!nbytes_ret)
		return TSR_E_INVALID_ARG;
	*nbytes_ret = 256; /* the work counter and the share's answer, on their own 256 bytes */
	return TSR_OK;
}

/* Where in the launch's scratch tsr_lz4_share_kernel writes its answer (the work counter is
 * at 0). */
#define TSR_LZ_TAKE_AT 16u

/* One block: the batch's stored bytes and capacity summed, and which kernel decodes it
 * (lz_core.h, tsr_lz_share_take) written to *take. */
static __global__ void __launch_bounds__(256)
tsr_lz4_share_kernel(const size_t *d_in_nbytes, const size_t *d_out_cap, size_t nstreams,
		     int *take)
{
	__shared__ unsigned long long s_in[8], s_cap[8];
	unsigned long long a = 0, b = 0;
	for (size_t i = threadIdx.x; i < nstreams; i += 256) {
		a += tsr_lz_share_size(d_in_nbytes[i]);
		b += tsr_lz_share_size(d_out_cap[i]);
	}
	for (int o = 16; o; o >>= 1) {
		a += __shfl_down_sync(0xffffffffu, a, o);
		b += __shfl_down_sync(0xffffffffu, b, o);
	}
	if ((threadIdx.x & 31u) == 0)
		s_in[threadIdx.x >> 5] = a, s_cap[threadIdx.x >> 5] = b;
	__syncthreads();
	if (threadIdx.x == 0) {
		for (int w = 1; w < 8; w++)
			a += s_in[w], b += s_cap[w];
		*take = tsr_lz_share_take(a, b);
	}
}

extern "C" int tsr_cuda_lz4_batch(const void *const *d_in, const size_t *d_in_nbytes,
				  void *const *d_out, const size_t *d_out_cap,
				  size_t *d_out_nbytes, int *d_status, size_t nstreams, int variant,
				  void *d_scratch, size_t scratch_nbytes, void *cuda_stream)
{
	int pick = 0, st = tsr_lz_pick(nstreams, 1, &pick);
	if (st)
		return st;
	if (pick != TSR_LZ_PICK_SHARE)
		return (pick == TSR_LZ_PICK_FEW ? tsr_cuda_lz4_few_batch : tsr_lz4_launch_many)(
			d_in, d_in_nbytes, d_out, d_out_cap, d_out_nbytes, d_status, nstreams,
			variant, d_scratch, scratch_nbytes, cuda_stream, NULL, 0);
	/* by the batch's share: the share kernel, then both launches, of which the one it did
	 * not name returns at once */
	if (nstreams == 0)
		return TSR_OK;
	if (!d_in_nbytes || !d_out_cap || !d_scratch || scratch_nbytes < 256)
		return TSR_E_INVALID_ARG;
	int *take = (int *)((char *)d_scratch + TSR_LZ_TAKE_AT);
	tsr_lz4_share_kernel<<<1, 256, 0, (cudaStream_t)cuda_stream>>>(d_in_nbytes, d_out_cap,
								       nstreams, take);
	st = tsr_cuda_status(cudaGetLastError(), TSR_E_INTERNAL);
	if (!st)
		st = tsr_lz4_launch_many(d_in, d_in_nbytes, d_out, d_out_cap, d_out_nbytes,
					 d_status, nstreams, variant, d_scratch, scratch_nbytes,
					 cuda_stream, take, TSR_LZ_TAKE_MANY);
	if (!st)
		st = tsr_cuda_lz4_few_batch(d_in, d_in_nbytes, d_out, d_out_cap, d_out_nbytes,
					    d_status, nstreams, variant, d_scratch,
					    scratch_nbytes, cuda_stream, take, TSR_LZ_TAKE_FEW);
	return st;
}
