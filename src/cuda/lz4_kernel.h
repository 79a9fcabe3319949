/* lz4_kernel.h - the LZ4 kernel and its launch, built by lz4.cu (many streams) and lz4_few.cu (few) under the names they give (TSR_LZ4_KERNEL, TSR_LZ4_LAUNCH). */
#ifndef TSR_LZ4_KERNEL_H
#define TSR_LZ4_KERNEL_H
#include <cuda_runtime.h>
#include <stdint.h>

#include "lz4_core.h"
#include "lz_launch.h"

__global__ void __launch_bounds__(TSR_LZ_WARPS * 32)
TSR_LZ4_KERNEL(const void *const *d_in, const size_t *d_in_nbytes, void *const *d_out,
	       const size_t *d_out_cap, size_t *d_out_nbytes, int *d_status, size_t nstreams,
	       int variant, const int *take, int mine, unsigned long long *next)
{
	tsr_lz_streams(
		[variant](struct tsr_lz_smem *m, const uint8_t *in, uint64_t n, uint8_t *out,
			  uint64_t cap, uint64_t *got) {
			return tsr_lz4_stream(m, in, n, out, cap, variant, got);
		},
		d_in, d_in_nbytes, d_out, d_out_cap, d_out_nbytes, d_status, nstreams, take, mine, next);
}

static int tsr_lz4_grid_cache[64];

/* Checks the variant and launches the kernel (arguments as tsr_cuda_lz4_batch's, then
 * take and mine as tsr_lz_streams's). */
static int TSR_LZ4_LAUNCH(const void *const *d_in, const size_t *d_in_nbytes,
			  void *const *d_out, const size_t *d_out_cap, size_t *d_out_nbytes,
			  int *d_status, size_t nstreams, int variant, void *d_scratch,
			  size_t scratch_nbytes, void *cuda_stream, const int *take, int mine)
{
	if (variant != TSR_CUDA_LZ4_RAW && variant != TSR_CUDA_LZ4_SIZED)
		return TSR_E_INVALID_ARG;
	return tsr_lz_launch(TSR_LZ4_KERNEL, tsr_lz4_grid_cache, 64, d_in, d_in_nbytes, d_out,
			     d_out_cap, nstreams, d_scratch, scratch_nbytes, cuda_stream, d_in,
			     d_in_nbytes, d_out, d_out_cap, d_out_nbytes, d_status, nstreams,
			     variant, take, mine);
}

#endif
