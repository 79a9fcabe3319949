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
	*nbytes_ret = 256; /* the work counter, on its own 256 bytes */
	return TSR_OK;
}

extern "C" int tsr_cuda_lz4_batch(const void *const *d_in, const size_t *d_in_nbytes,
				  void *const *d_out, const size_t *d_out_cap,
				  size_t *d_out_nbytes, int *d_status, size_t nstreams, int variant,
				  void *d_scratch, size_t scratch_nbytes, void *cuda_stream)
{
	int pick = 0, st = tsr_lz_pick(nstreams, 1, &pick);
	if (st)
		return st;
	return tsr_lz_run(pick, tsr_lz4_launch_many, tsr_cuda_lz4_few_batch, d_in, d_in_nbytes,
			  d_out, d_out_cap, d_out_nbytes, d_status, nstreams, variant, d_scratch,
			  scratch_nbytes, cuda_stream);
}
