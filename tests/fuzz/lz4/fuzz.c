/* fuzz.c - LZ4 blocks on arbitrary bytes: the GPU kernel's decoder (src/cuda/lz4_core.h, emulated) against liblz4's LZ4_decompress_safe (the CPU path's). First two bytes: the output capacity. */
#include <lz4.h>
#include <stdlib.h>
#include <string.h>

#include "../guard.h"
#define TSR_LZ_EMU 1
#include "cuda/lz4_core.h"
#include "../../gpu/lz4_walk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	static struct tsr_lz_smem m;
	if (n < 2)
		return 0;
	size_t cap = (size_t)data[0] << 8 | data[1];
	struct tsr_guarded g;
	if (tsr_guard(&g, data + 2, n - 2))
		return 0;
	unsigned char *ref = malloc(cap + 1), *out = malloc(cap + 1);
	int r = LZ4_decompress_safe((const char *)g.data, (char *)ref, (int)(n - 2), (int)cap);
	uint64_t got;
	int st = tsr_lz4_stream(&m, g.data, n - 2, out, cap, TSR_CUDA_LZ4_RAW, &got);
	if (got > cap)
		abort();
	if (r >= 0 && !(st == TSR_CUDA_LZ_E_DISTANCE &&
			lz4_zero_distance_at(g.data, n - 2) == (long long)got) &&
	    (st != TSR_CUDA_LZ_OK || got != (uint64_t)r || memcmp(out, ref, (size_t)r)))
		abort(); /* liblz4 accepts a block the kernel decodes otherwise */
	/* (the kernel may accept a block liblz4 refuses only for LZ4's end-of-block rules) */
	free(ref);
	free(out);
	tsr_unguard(&g);
	return 0;
}
