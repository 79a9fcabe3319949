/* planes.c - FITS GZIP_2 byte planes back into elements. */
#include <string.h>

#include "codecs.h"

void tsr_unshuffle_planes(void *dst, const void *src, size_t n, int w)
{
	const unsigned char *in = src;
	unsigned char *out = dst;
	if (w == 1) {
		memcpy(out, in, n);
		return;
	}
	/* Walk the output in cache-sized strips so each plane is read sequentially. */
	for (size_t i0 = 0; i0 < n; i0 += 4096) {
		size_t i1 = i0 + 4096 < n ? i0 + 4096 : n;
		for (int b = 0; b < w; b++) {
			const unsigned char *plane = in + (size_t)b * n;
			for (size_t i = i0; i < i1; i++)
				out[i * (size_t)w + (size_t)b] = plane[i];
		}
	}
}
