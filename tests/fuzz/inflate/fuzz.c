/* fuzz.c - gzip, zlib and raw DEFLATE framing on arbitrary bytes. */
#include <stdlib.h>

#include "../guard.h"
#include "codecs/codecs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	if (n < 2)
		return 0;
	static const enum tsr_codec_id f[] = {TSR_CODEC_GZIP, TSR_CODEC_ZLIB, TSR_CODEC_DEFLATE};
	size_t cap = (size_t)data[1] * 64 + 1;
	struct tsr_guarded g;
	if (tsr_guard(&g, data + 2, n - 2))
		return 0;
	void *state = NULL, *out = malloc(cap);
	size_t got;
	tsr_inflate(&state, f[data[0] % 3], out, cap, g.data, n - 2, &got);
	tsr_inflate_free(state);
	free(out);
	tsr_unguard(&g);
	return 0;
}
