/* fuzz.c - RICE_1 decoder on arbitrary bytes: first byte picks bytepix/blocksize/npix; both
 * inner loops (portable, LZCNT where the CPU has it) and the GPU kernel's per-tile decoder
 * (src/cuda/rice_core.h, emulated) must agree: same success or failure, same pixels. */
#include <stdlib.h>
#include <string.h>

#include "../guard.h"
#include "codecs/codecs.h"
#define TSR_RICE_EMU 1
#include "cuda/rice_core.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	if (n < 3)
		return 0;
	static const int bp[] = {1, 2, 4};
	int bytepix = bp[data[0] % 3];
	int blocksize = (data[0] & 0x80) ? 16 : 32;
	size_t npix = ((size_t)data[1] << 8 | data[2]) + 1;
	struct tsr_guarded g;
	if (tsr_guard(&g, data + 3, n - 3))
		return 0;
	void *out = calloc(npix, (size_t)bytepix), *out2 = calloc(npix, (size_t)bytepix);
	int a = tsr_rice_decode_variant(out, npix, g.data, n - 3, bytepix, blocksize, 0);
	int b = tsr_rice_decode_variant(out2, npix, g.data, n - 3, bytepix, blocksize, 1);
	if (b != TSR_E_UNSUPPORTED &&
	    (a != b || (a == TSR_OK && memcmp(out, out2, npix * (size_t)bytepix))))
		abort(); /* the two loops disagree */
	void *out3 = calloc(npix, (size_t)bytepix);
	int c = tsr_rice_tile(g.data, n - 3, out3, npix, (unsigned)bytepix, (size_t)blocksize);
	if ((a == TSR_OK) != (c == TSR_CUDA_RICE_OK) ||
	    (a == TSR_OK && memcmp(out, out3, npix * (size_t)bytepix)))
		abort(); /* the GPU kernel's decoder disagrees with the CPU's */
	free(out3);
	free(out);
	free(out2);
	tsr_unguard(&g);
	return 0;
}
