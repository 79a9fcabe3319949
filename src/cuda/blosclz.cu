/* blosclz.cu - batched GPU BloscLZ decoding: one group of lanes (half a warp) per stream, or the few-streams kernel (blosclz_few.cu) for a batch of few (see blosclz_core.h and lz_core.h). */
#define TSR_BLOSCLZ_KERNEL tsr_blosclz_kernel
#define TSR_BLOSCLZ_LAUNCH tsr_blosclz_launch_many
#include "blosclz_kernel.h"

extern "C" int tsr_cuda_blosclz_batch(const void *const *d_in, const size_t *d_in_nbytes,
				      void *const *d_out, const size_t *d_out_cap,
				      size_t *d_out_nbytes, int *d_status, size_t nstreams,
				      int variant, void *d_scratch, size_t scratch_nbytes,
				      void *cuda_stream)
{
	/* (never by the batch's share: the few-streams BloscLZ kernel, which copies bytes, lost on
	 * incompressible floats too; H100, 10,000 x 64 KiB: 322 against 390 GB/s) */
	int pick = 0, st = tsr_lz_pick(nstreams, 0, &pick);
	if (st)
		return st;
	return (pick == TSR_LZ_PICK_FEW ? tsr_cuda_blosclz_few_batch : tsr_blosclz_launch_many)(
		d_in, d_in_nbytes, d_out, d_out_cap, d_out_nbytes, d_status, nstreams, variant,
		d_scratch, scratch_nbytes, cuda_stream, NULL, 0);
}
