/* zstd_frames.h - a profile's bytes (lz_profiles.h) compressed by libzstd into one frame, for the zstd emulator tests that walk profiles, sizes and levels. */
#ifndef TSR_ZSTD_FRAMES_H
#define TSR_ZSTD_FRAMES_H

#include <stdint.h>
#include <stdlib.h>
#include <zstd.h>

#include "check.h"
#include "lz_profiles.h"

/* Profile p's n bytes (lzp_fill with period seed) as a frame at level; *zn: its size. The
 * caller frees it. */
static inline uint8_t *zstd_profile_frame(int p, size_t n, uint64_t seed, int level, size_t *zn)
{
	uint8_t *src = check_malloc(n), *z = check_malloc(ZSTD_compressBound(n));
	lzp_fill(p, src, n, seed);
	*zn = ZSTD_compress(z, ZSTD_compressBound(n), src, n, level);
	CHECK(!ZSTD_isError(*zn));
	free(src);
	return z;
}

#endif /* TSR_ZSTD_FRAMES_H */
