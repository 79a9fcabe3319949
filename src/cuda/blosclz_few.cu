/* blosclz_few.cu - the BloscLZ kernel of batches of few streams (tsr_cuda_blosclz_batch picks it): a warp a stream, two a block. */
#define TSR_LZ_GROUP 32
#define TSR_LZ_WARPS 2
#define TSR_BLOSCLZ_KERNEL tsr_blosclz_few_kernel
#define TSR_BLOSCLZ_LAUNCH tsr_blosclz_launch_few
#include "blosclz_kernel.h"

extern "C" int tsr_cuda_blosclz_few_batch(const void *const *d_in, const size_t *d_in_nbytes,
					  void *const *d_out, const size_t *d_out_cap,
					  size_t *d_out_nbytes, int *d_status, size_t nstreams,
					  int variant, void *d_scratch, size_t scratch_nbytes,
					  void *cuda_stream, const int *take, int mine)
{
	return tsr_blosclz_launch_few(d_in, d_in_nbytes, d_out, d_out_cap, d_out_nbytes,
				      d_status, nstreams, variant, d_scratch, scratch_nbytes,
				      cuda_stream, take, mine);
}
