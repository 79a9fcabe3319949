/* fuzz.c - BloscLZ streams on arbitrary bytes: the GPU kernel's decoder (src/cuda/blosclz_core.h, emulated) against the CPU's (src/codecs/blosclz.c): same verdict, same bytes. First two bytes: the output capacity. */
#include <stdlib.h>
#include <string.h>

#include "../guard.h"
#include "codecs/blosc.h"
#include "tessera.h"
#define TSR_LZ_EMU 1
#include "cuda/blosclz_core.h"

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
	size_t rn = 0;
	int a = tsr_blosclz_decode(ref, cap, g.data, n - 2, &rn);
	uint64_t got;
	int b = tsr_blosclz_stream(&m, g.data, n - 2, out, cap, &got);
	if (got > cap || (a == TSR_OK) != (b == TSR_CUDA_LZ_OK) ||
	    (a == TSR_OK && (got != rn || memcmp(out, ref, rn))))
		abort(); /* the kernel's decoder and the CPU's disagree */
	free(ref);
	free(out);
	tsr_unguard(&g);
	return 0;
}
