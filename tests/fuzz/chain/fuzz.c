/* fuzz.c - the bytes steps of Zarr/Blosc2 chunks (zstd, lz4, bz2, crc32c) on arbitrary bytes. */
#include <stdlib.h>

#include "../guard.h"
#include "codecs/codecs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	if (n < 2)
		return 0;
	static const enum tsr_codec_id ids[] = {TSR_CODEC_ZSTD, TSR_CODEC_LZ4,	 TSR_CODEC_BZ2,
						TSR_CODEC_CRC32C, TSR_CODEC_ZLIB, TSR_CODEC_BLOSC,
						TSR_CODEC_CRC32,  TSR_CODEC_ADLER32};
	struct tsr_bytes_step step = {.id = ids[data[0] % 8], .at_end = data[0] >> 7};
	/* Callers know the decoded size of a step or a cap on it (tsr_chunk_pre_limits): data[1]
	 * picks which, and how many bytes. */
	size_t size = (size_t)(data[1] >> 1) * 32 + 16;
	size_t expect = data[1] & 1 ? 0 : size, cap = data[1] & 1 ? size : 0;
	struct tsr_guarded g;
	if (tsr_guard(&g, data + 2, n - 2))
		return 0;
	struct tsr_scratch s = {0};
	void *out;
	size_t out_n;
	tsr_bytes_decode(&step, g.data, n - 2, &s, 3, expect, cap, NULL, &out, &out_n);
	tsr_scratch_free(&s);
	tsr_unguard(&g);
	return 0;
}
