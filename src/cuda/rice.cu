/* rice.cu - batched GPU RICE_1 decoding of FITS tiles: one thread per tile (see rice_core.h). */
#include <cuda_runtime.h>
#include <stdint.h>

#include "tessera.h"
#include "tsr_cuda.h"
#include "rice_core.h"

/* 128 threads a block: small blocks let the last wave of a batch end evenly. (Overridable at
 * build time for scripts/gpu-rice-threads, which measures other sizes beside it.) */
#ifndef TSR_RICE_THREADS
#define TSR_RICE_THREADS 128
#endif

__global__ void __launch_bounds__(TSR_RICE_THREADS)
tsr_rice_kernel(const struct tsr_rice_tile *tiles, int *status, size_t ntiles)
{
	size_t i = (size_t)blockIdx.x * TSR_RICE_THREADS + threadIdx.x;
	if (i >= ntiles)
		return;
	struct tsr_rice_tile t = tiles[i];
	status[i] = tsr_rice_tile((const uint8_t *)(uintptr_t)t.in, (size_t)t.in_nbytes,
				  (uint8_t *)(uintptr_t)t.out, (size_t)t.npix, t.bytepix,
				  (size_t)t.blocksize);
}

/* The family form: stream arrays as every decoder family takes them; one width and block size
 * a launch (the variant). A stream's pixels are its capacity over the width. */
__global__ void __launch_bounds__(TSR_RICE_THREADS)
tsr_rice_streams_kernel(const void *const *d_in, const size_t *d_in_nbytes, void *const *d_out,
			const size_t *d_out_cap, size_t *d_out_nbytes, int *d_status,
			size_t nstreams, unsigned w, unsigned bs)
{
	size_t i = (size_t)blockIdx.x * TSR_RICE_THREADS + threadIdx.x;
	if (i >= nstreams)
		return;
	size_t npix = d_out_cap[i] / w;
	int st = tsr_rice_tile((const uint8_t *)d_in[i], d_in_nbytes[i], (uint8_t *)d_out[i], npix,
			       w, bs);
	if (d_out_nbytes)
		d_out_nbytes[i] = st == TSR_CUDA_RICE_OK ? npix * w : 0;
	if (d_status)
		d_status[i] = st;
}

extern "C" int tsr_cuda_rice_streams(const void *const *d_in, const size_t *d_in_nbytes,
				     void *const *d_out, const size_t *d_out_cap,
				     size_t *d_out_nbytes, int *d_status, size_t nstreams,
				     int variant, void *d_scratch, size_t scratch_nbytes,
				     void *cuda_stream)
{
	(void)d_scratch;
	(void)scratch_nbytes;
	if (nstreams == 0)
		return TSR_OK;
	if (!d_in || !d_in_nbytes || !d_out || !d_out_cap || variant < 0 ||
	    variant >= TSR_CUDA_RICE_VARIANTS)
		return TSR_E_INVALID_ARG;
	size_t blocks = (nstreams + TSR_RICE_THREADS - 1) / TSR_RICE_THREADS;
	if (blocks > 0x7fffffffu)
		return TSR_E_INVALID_ARG;
	tsr_rice_streams_kernel<<<(unsigned)blocks, TSR_RICE_THREADS, 0,
				  (cudaStream_t)cuda_stream>>>(
		d_in, d_in_nbytes, d_out, d_out_cap, d_out_nbytes, d_status, nstreams,
		tsr_cuda_rice_width(variant), tsr_cuda_rice_blocksize(variant));
	return tsr_cuda_status(cudaGetLastError(), TSR_E_INTERNAL);
}

extern "C" const char *tsr_cuda_rice_status_name(int status)
{
	switch (status) {
	case TSR_CUDA_RICE_OK: return "ok";
	case TSR_CUDA_RICE_E_TRUNCATED: return "compressed stream ends early";
	case TSR_CUDA_RICE_E_SPLIT: return "block split above the maximum for the pixel width";
	case TSR_CUDA_RICE_E_ARGUMENT: return "bad tile parameters";
	default: return "unknown status";
	}
}

extern "C" int tsr_cuda_rice_batch(const void *d_tiles, int *d_status, size_t ntiles,
				   void *cuda_stream)
{
	if (ntiles == 0)
		return TSR_OK;
	if (!d_tiles || !d_status)
		return TSR_E_INVALID_ARG;
	size_t blocks = (ntiles + TSR_RICE_THREADS - 1) / TSR_RICE_THREADS;
	if (blocks > 0x7fffffffu)
		return TSR_E_INVALID_ARG;
	tsr_rice_kernel<<<(unsigned)blocks, TSR_RICE_THREADS, 0, (cudaStream_t)cuda_stream>>>(
		(const struct tsr_rice_tile *)d_tiles, d_status, ntiles);
	return tsr_cuda_status(cudaGetLastError(), TSR_E_INTERNAL);
}
