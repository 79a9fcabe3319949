/* fuzz.c - the blosc chunk container (blosc1/blosc2, every codec and filter) on arbitrary
 * bytes: whole-chunk decode and a block-range decode. */
#include <stdlib.h>

#include "../guard.h"
#include "codecs/blosc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct tsr_guarded g;
	if (tsr_guard(&g, data, n))
		return 0;
	struct tsr_blosc_info info;
	if (tsr_blosc_info(g.data, n, &info) == 0 && info.nbytes <= (1 << 24)) {
		size_t cap = (size_t)info.nbytes;
		void *out = malloc(cap ? cap : 1);
		size_t got;
		tsr_blosc_decode(out, cap, g.data, n, NULL, &got);
		if (info.nblocks > 1)
			tsr_blosc_decode_blocks(out, cap, g.data, n, info.nblocks - 1, 1, NULL);
		free(out);
	}
	tsr_unguard(&g);
	return 0;
}
