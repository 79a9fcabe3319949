/* fuzz.c - RICE_1 decoder on arbitrary bytes: first byte picks bytepix/blocksize/npix; both
 * inner loops (portable, LZCNT where the CPU has it) must give the same status and pixels. */
#include <stdlib.h>
#include <string.h>

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
	void *out = calloc(npix, (size_t)bytepix), *out2 = calloc(npix, (size_t)bytepix);
	int a = tsr_rice_decode_variant(out, npix, g.data, n - 3, bytepix, blocksize, 0);
	int b = tsr_rice_decode_variant(out2, npix, g.data, n - 3, bytepix, blocksize, 1);
	if (b != TSR_E_UNSUPPORTED &&
	    (a != b || (a == TSR_OK && memcmp(out, out2, npix * (size_t)bytepix))))
		abort(); /* the two loops disagree */
	free(out);
	free(out2);
	tsr_unguard(&g);
	return 0;
}
