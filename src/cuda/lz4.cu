/* lz4.cu - batched GPU LZ4 block decoding: one group of lanes (half a warp) per stream (see lz4_core.h and lz_core.h). */
#include <cuda_runtime.h>
#include <stdint.h>

#include "lz4_core.h"
#include "lz_launch.h"

__global__ void __launch_bounds__(TSR_LZ_WARPS * 32)
tsr_lz4_kernel(const void *const *d_in, const size_t *d_in_nbytes, void *const *d_out,
	       const size_t *d_out_cap, size_t *d_out_nbytes, int *d_status, size_t nstreams,
	       int variant, unsigned long long *next)
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
		int st = tsr_lz4_stream(m, (const uint8_t *)d_in[i], d_in_nbytes[i],
					(uint8_t *)d_out[i], d_out_cap[i], variant, &got);
		if (TSR_LZ_LANE == 0) {
			if (d_out_nbytes)
				d_out_nbytes[i] = got;
			if (d_status)
				d_status[i] = st;
		}
		TSR_LZ_SYNCWARP();
	}
}

#define TSR_LZ4_MAX_DEVICES 64
static int tsr_lz4_grid_cache[TSR_LZ4_MAX_DEVICES];

extern "C" const char *tsr_cuda_lz_status_name(int status)
{
	return tsr_lz_status_text(status);
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
	if (variant != TSR_CUDA_LZ4_RAW && variant != TSR_CUDA_LZ4_SIZED)
		return TSR_E_INVALID_ARG;
	return tsr_lz_launch(tsr_lz4_kernel, tsr_lz4_grid_cache, TSR_LZ4_MAX_DEVICES, d_in,
			     d_in_nbytes, d_out, d_out_cap, nstreams, d_scratch, scratch_nbytes,
			     cuda_stream, d_in, d_in_nbytes, d_out, d_out_cap, d_out_nbytes,
			     d_status, nstreams, variant);
}
