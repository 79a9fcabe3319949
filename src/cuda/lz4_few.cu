/* lz4_few.cu - the LZ4 kernel of batches of few streams (tsr_cuda_lz4_batch picks it): a warp a stream, two a block, long literal runs copied as 16-byte vectors (lz_core.h). */
#define TSR_LZ_GROUP 32
#define TSR_LZ_WARPS 2
#define TSR_LZ_WIDE 1
#define TSR_LZ_WANT_JUMPS 1 /* (its batches parsed in parallel) */
#define TSR_LZ4_KERNEL tsr_lz4_few_kernel
#define TSR_LZ4_LAUNCH tsr_lz4_launch_few
#include "lz4_kernel.h"

extern "C" int tsr_cuda_lz4_few_batch(const void *const *d_in, const size_t *d_in_nbytes,
				      void *const *d_out, const size_t *d_out_cap,
				      size_t *d_out_nbytes, int *d_status, size_t nstreams,
				      int variant, void *d_scratch, size_t scratch_nbytes,
				      void *cuda_stream, const int *take, int mine)
{
	return tsr_lz4_launch_few(d_in, d_in_nbytes, d_out, d_out_cap, d_out_nbytes, d_status,
				  nstreams, variant, d_scratch, scratch_nbytes, cuda_stream, take, mine);
}
