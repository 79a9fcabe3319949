/* cuda_families.c - the GPU decoder families' launchers: one registration per kernel file of src/cuda. */
#include "engine.h"

#ifdef TSR_WITH_CUDA
#include "cuda_engine.h"

const struct tsr_cuda_family tsr_cuda_families[TSR_FAM_N] = {
	[TSR_FAM_INFLATE] = {tsr_cuda_inflate_batch, tsr_cuda_inflate_status_name},
	[TSR_FAM_LZ4] = {tsr_cuda_lz4_batch, tsr_cuda_lz_status_name},
	[TSR_FAM_BLOSCLZ] = {tsr_cuda_blosclz_batch, tsr_cuda_lz_status_name},
	[TSR_FAM_RICE] = {tsr_cuda_rice_streams, tsr_cuda_rice_status_name},
	[TSR_FAM_ZSTD] = {tsr_cuda_zstd_batch, tsr_cuda_zstd_status_name},
};
_Static_assert((int)TSR_CUDA_RICE_VARIANTS <= (int)TSR_VARIANTS, "RICE variants fit in a kind");

unsigned tsr_cuda_family_mask(void)
{
	unsigned m = 0;
	for (int f = 0; f < TSR_FAM_N; f++)
		m |= tsr_cuda_families[f].launch ? 1u << f : 0;
	return m;
}

#endif
