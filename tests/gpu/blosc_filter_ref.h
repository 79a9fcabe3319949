/* blosc_filter_ref.h - blosc's byte shuffle and bitshuffle written plainly (the layouts the blosc filter tests check the library's undoing against, and the GPU benches' shuffled sets). */
#ifndef TSR_BLOSC_FILTER_REF_H
#define TSR_BLOSC_FILTER_REF_H

#include <stdint.h>
#include <string.h>

/* byte shuffle by ts: byte j of element i to plane j, the bytes after the last whole element
 * copied */
static inline void shuffle_ref(uint8_t *dst, const uint8_t *src, size_t nbytes, size_t ts)
{
	size_t n = nbytes / ts;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < ts; j++)
			dst[j * n + i] = src[i * ts + j];
	memcpy(dst + n * ts, src + n * ts, nbytes - n * ts);
}

/* bitshuffle of n8 elements of ts bytes (n8 a multiple of 8): bit b of byte j of element e to
 * bit e % 8 of byte e / 8 of bit plane 8j + b; the rest copied */
static inline void bitshuffle_ref(uint8_t *dst, const uint8_t *src, size_t nbytes, size_t ts,
				  size_t n8)
{
	size_t row = n8 / 8;
	memset(dst, 0, n8 * ts);
	for (size_t e = 0; e < n8; e++)
		for (size_t j = 0; j < ts; j++)
			for (int b = 0; b < 8; b++)
				if (src[e * ts + j] >> b & 1)
					dst[(j * 8 + b) * row + e / 8] |= (uint8_t)(1u << (e % 8));
	memcpy(dst + n8 * ts, src + n8 * ts, nbytes - n8 * ts);
}

#endif
