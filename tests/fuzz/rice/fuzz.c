/* fuzz.c - RICE_1 decoder on arbitrary bytes: first byte picks bytepix/blocksize/npix. */
#include <stdlib.h>

#include "../guard.h"
#include "codecs/codecs.h"

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
	void *out = malloc(npix * (size_t)bytepix);
	tsr_rice_decode(out, npix, g.data, n - 3, bytepix, blocksize);
	free(out);
	tsr_unguard(&g);
	return 0;
}
