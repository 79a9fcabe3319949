/* blosclz.cu - batched GPU BloscLZ decoding: one group of lanes (half a warp) per stream (see blosclz_core.h and lz_core.h). */
#include <cuda_runtime.h>
#include <stdint.h>

#include "blosclz_core.h"
#include "lz_launch.h"

__global__ void __launch_bounds__(TSR_LZ_WARPS * 32)
tsr_blosclz_kernel(const void *const *d_in, const size_t *d_in_nbytes, void *const *d_out,
		   const size_t *d_out_cap, size_t *d_out_nbytes, int *d_status, size_t nstreams,
		   unsigned long long *next)
{
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
		int st = tsr_blosclz_stream(m, (const uint8_t *)d_in[i], d_in_nbytes[i],
					    (uint8_t *)d_out[i], d_out_cap[i], &got);
		if (TSR_LZ_LANE == 0) {
			if (d_out_nbytes)
				d_out_nbytes[i] = got;
			if (d_status)
				d_status[i] = st;
		}
		TSR_LZ_SYNCWARP();
	}
}

#define TSR_BLOSCLZ_MAX_DEVICES 64
static int tsr_blosclz_grid_cache[TSR_BLOSCLZ_MAX_DEVICES];

extern "C" int tsr_cuda_blosclz_batch(const void *const *d_in, const size_t *d_in_nbytes,
				      void *const *d_out, const size_t *d_out_cap,
				      size_t *d_out_nbytes, int *d_status, size_t nstreams,
				      int variant, void *d_scratch, size_t scratch_nbytes,
				      void *cuda_stream)
{
	if (variant != 0)
		return TSR_E_INVALID_ARG;
	return tsr_lz_launch(tsr_blosclz_kernel, tsr_blosclz_grid_cache, TSR_BLOSCLZ_MAX_DEVICES,
			     d_in, d_in_nbytes, d_out, d_out_cap, nstreams, d_scratch,
			     scratch_nbytes, cuda_stream, d_in, d_in_nbytes, d_out, d_out_cap,
			     d_out_nbytes, d_status, nstreams);
}
