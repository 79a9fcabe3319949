/* lz_blosclz_writer.h - a small greedy BloscLZ compressor (the format src/codecs/blosclz.c reads), for GPU tests and benchmarks on machines without libblosc. */
#ifndef TSR_LZ_BLOSCLZ_WRITER_H
#define TSR_LZ_BLOSCLZ_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* dst needs n + n / 32 + 16 bytes. Returns the stream's size. Greedy: a 4-byte hash finds the
 * last position with the same bytes; matches of >= 4 bytes up to 73727 back are taken. */
static inline size_t lzw_blosclz(const unsigned char *src, size_t n, unsigned char *dst)
{
	enum { HBITS = 14 };
	static uint32_t head[1 << HBITS];
	size_t zn = 0, lit = 0, i = 0; /* lit: literals pending, ending at i */
	int first = 1;
	memset(head, 0xff, sizeof(head));
#define LZW_FLUSH()                                                                      \
	while (lit) {                                                                    \
		size_t r = lit < 32 ? lit : 32;                                          \
		dst[zn++] = (unsigned char)(r - 1);                                      \
		memcpy(dst + zn, src + i - lit, r);                                      \
		zn += r;                                                                 \
		lit -= r;                                                                \
		first = 0;                                                               \
	}
	while (i < n) {
		size_t len = 0, dist = 0;
		if (i + 4 <= n && !(first && lit == 0)) {
			uint32_t v;
			memcpy(&v, src + i, 4);
			uint32_t h = (v * 2654435761u) >> (32 - HBITS);
			uint32_t c = head[h];
			head[h] = (uint32_t)i;
			if (c != 0xffffffffu && i - c <= 73727 && !memcmp(src + c, src + i, 4)) {
				dist = i - c;
				len = 4;
				while (i + len < n && src[c + len] == src[i + len])
					len++;
			}
		}
		if (!len) {
			lit++;
			i++;
			continue;
		}
		LZW_FLUSH();
		size_t l = len - 2, d = dist - 1;
		unsigned hi = l < 7 ? (unsigned)l : 7;
		int far = dist >= 8192;
		dst[zn++] = (unsigned char)(hi << 5 | (far ? 31u : (unsigned)(d >> 8)));
		if (hi == 7) {
			size_t rest = l - 7;
			for (; rest >= 255; rest -= 255)
				dst[zn++] = 255;
			dst[zn++] = (unsigned char)rest;
		}
		if (far) {
			dst[zn++] = 255;
			dst[zn++] = (unsigned char)((dist - 8192) >> 8);
			dst[zn++] = (unsigned char)(dist - 8192);
		} else {
			dst[zn++] = (unsigned char)(d & 255);
		}
		i += len;
	}
	LZW_FLUSH();
#undef LZW_FLUSH
	return zn;
}

#endif
