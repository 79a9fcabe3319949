/* fuzz.c - the bytes steps of Zarr/Blosc2 chunks (zstd, lz4, bz2, crc32c) on arbitrary bytes. */
#include <stdlib.h>

#include "../guard.h"
#include "codecs/codecs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	if (n < 2)
		return 0;
	static const enum tsr_codec_id ids[] = {TSR_CODEC_ZSTD, TSR_CODEC_LZ4, TSR_CODEC_BZ2,
						TSR_CODEC_CRC32C, TSR_CODEC_ZLIB, TSR_CODEC_BLOSC};
	struct tsr_bytes_step step = {ids[data[0] % 6]};
	/* Callers always know the decoded size of a chunk's last step; so does the harness. */
	size_t expect = (size_t)data[1] * 16 + 16;
	struct tsr_guarded g;
	if (tsr_guard(&g, data + 2, n - 2))
		return 0;
	struct tsr_scratch s = {0};
	void *out;
	size_t out_n;
	tsr_bytes_decode(&step, g.data, n - 2, &s, 3, expect, NULL, &out, &out_n);
	tsr_scratch_free(&s);
	tsr_unguard(&g);
	return 0;
}
