/* blosclz_kernel.h - the BloscLZ kernel and its launch, built by blosclz.cu (many streams) and blosclz_few.cu (few) under the names they give (TSR_BLOSCLZ_KERNEL, TSR_BLOSCLZ_LAUNCH). */
#ifndef TSR_BLOSCLZ_KERNEL_H
#define TSR_BLOSCLZ_KERNEL_H
#include <cuda_runtime.h>
#include <stdint.h>

#include "blosclz_core.h"
#include "lz_launch.h"

__global__ void __launch_bounds__(TSR_LZ_WARPS * 32)
TSR_BLOSCLZ_KERNEL(const void *const *d_in, const size_t *d_in_nbytes, void *const *d_out,
		   const size_t *d_out_cap, size_t *d_out_nbytes, int *d_status, size_t nstreams,
		   const int *take, int mine, unsigned long long *next)
{
	tsr_lz_streams(tsr_blosclz_stream, d_in, d_in_nbytes, d_out, d_out_cap, d_out_nbytes,
		       d_status, nstreams, take, mine, next);
}

static int tsr_blosclz_grid_cache[64];

/* Checks the variant (0) and launches the kernel (arguments as tsr_cuda_blosclz_batch's,
 * then take and mine as tsr_lz_streams's). */
static int TSR_BLOSCLZ_LAUNCH(const void *const *d_in, const size_t *d_in_nbytes,
			      void *const *d_out, const size_t *d_out_cap, size_t *d_out_nbytes,
			      int *d_status, size_t nstreams, int variant, void *d_scratch,
			      size_t scratch_nbytes, void *cuda_stream, const int *take, int mine)
{
	if (variant != 0)
		return TSR_E_INVALID_ARG;
	return tsr_lz_launch(TSR_BLOSCLZ_KERNEL, tsr_blosclz_grid_cache, 64, d_in, d_in_nbytes,
			     d_out, d_out_cap, nstreams, d_scratch, scratch_nbytes, cuda_stream,
			     d_in, d_in_nbytes, d_out, d_out_cap, d_out_nbytes, d_status,
			     nstreams, take, mine);
}

#endif
