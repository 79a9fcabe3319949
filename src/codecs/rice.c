/* rice.c - FITS RICE_1 tile decoder (BYTEPIX 1, 2, 4), bounds-checked and table-free. */

/*
 * Stream layout (FITS tiled image convention, CFITSIO ricecomp.c is the reference encoder):
 * the first pixel raw and big-endian in BYTEPIX bytes, then an MSB-first bit stream of blocks
 * of `blocksize` pixels (the last block may be short). Each block starts with an FSBITS-wide
 * code, fs = code - 1:
 *   fs < 0       every pixel of the block repeats the previous pixel (no further bits);
 *   fs == FSMAX  each difference is stored raw in 8 * BYTEPIX bits;
 *   otherwise    each difference is a unary prefix (zeros ended by a one) giving `top`,
 *                then fs low bits: diff = (top << fs) | low.
 * Differences are zigzag-mapped, d = (diff & 1) ? ~(diff >> 1) : diff >> 1, and added to the
 * previous pixel with unsigned wrap-around; the sum is kept modulo 2^32 and truncated to the
 * pixel width on output, which is what CFITSIO's unsigned int arithmetic yields.
 *
 * Speed: the bit reader keeps the next bits left-aligned in a 64-bit word and refills it with
 * one unaligned 8-byte big-endian load while at least 8 input bytes remain (the branchless
 * refill of fast Huffman decoders: `avail |= 56` afterwards, advancing over whole bytes only).
 * A unary prefix is then one count-leading-zeros, the low bits one shift, so a pixel costs a
 * handful of instructions with no per-bit loop and no lookup table. One refill serves two to
 * four codes, by the block's fs (the refill sits on every code's dependency chain otherwise:
 * 490 -> 610 Mpix/s with three on int16 noise of sigma 30). Near the end of the
 * input the refill falls back to byte-at-a-time loads, and every consumer checks `avail`, so
 * the decoder never reads past src + src_nbytes whatever the input holds.
 *
 * Unlike CFITSIO, a split fs above FSMAX (possible only with BYTEPIX 4, codes 27..31) is
 * rejected: no encoder writes it, and CFITSIO's own 32-bit bit buffer cannot decode it
 * faithfully either. Trailing bytes after the last block are accepted, as CFITSIO does.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#define TSR_RICE_LZCNT 1
#endif

#include "codecs.h"

/* The 8 bytes at p as a big-endian integer (one load and one byte swap on x86-64). */
static inline uint64_t rice_load_be64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	v = __builtin_bswap64(v);
#elif !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_BIG_ENDIAN__
	v = ((uint64_t)tsr_be32(p) << 32) | tsr_be32(p + 4);
#endif
	return v;
}

/*
 * Bit reader state, kept in the decoder's locals (a struct behind a pointer would be
 * re-read after every store through the uint8_t output pointer, which may alias anything).
 * Invariant: the top `avail` bits of `buf` are the next `avail` bits of the stream, counted
 * as consumed from `p`. Bits below them are zero or the stream bits that follow (left there
 * by an overlapping 8-byte load), so OR-ing a fresh load over them is harmless. avail <= 63.
 */
#define RICE_REFILL()                                                            \
	do {                                                                     \
		if ((size_t)(end - p) >= 8) {                                    \
			buf |= rice_load_be64(p) >> avail;                       \
			p += (63 - avail) >> 3;                                  \
			avail |= 56;                                             \
		} else {                                                         \
			while (avail < 56 && p < end) {                          \
				buf |= (uint64_t)*p++ << (56 - avail);           \
				avail += 8;                                      \
			}                                                        \
		}                                                                \
	} while (0)

/* Stores pixel value v (its low 8 * w bits) as the i-th native-endian element of out. */
static inline void rice_put(uint8_t *out, size_t i, uint32_t v, int w)
{
	if (w == 1) {
		out[i] = (uint8_t)v;
	} else if (w == 2) {
		uint16_t s = (uint16_t)v;
		memcpy(out + 2 * i, &s, 2);
	} else {
		memcpy(out + 4 * i, &v, 4);
	}
}

/* Leading zeros of x, 64 for 0: one LZCNT instruction (x86 since Haswell/Barcelona), where
 * __builtin_clzll is BSR + XOR and needs x | 1 to be defined for 0, two more cycles on every
 * code's dependency chain (610 -> 770 Mpix/s on int16 noise, /tmp/rbench). Only called where
 * CPUID reports LZCNT: older CPUs run the same bytes as BSR, with other results. */
static inline unsigned rice_lzcnt(uint64_t x)
{
#ifdef TSR_RICE_LZCNT
	uint64_t r;
	__asm__("lzcnt %1, %0" : "=r"(r) : "rm"(x) : "cc");
	return (unsigned)r;
#else
	return x ? (unsigned)__builtin_clzll(x) : 64;
#endif
}

static pthread_once_t rice_cpu_once = PTHREAD_ONCE_INIT;
static int rice_cpu_lzcnt; /* written once, under rice_cpu_once */

static void rice_cpu_probe(void)
{
#ifdef TSR_RICE_LZCNT
	unsigned a, b, c, d;
	rice_cpu_lzcnt = __get_cpuid(0x80000001u, &a, &b, &c, &d) && (c & (1u << 5)); /* ABM */
#endif
}

/* Zigzag unmapping: even -> diff / 2, odd -> ~(diff / 2). */
static inline uint32_t rice_unmap(uint32_t diff)
{
	return (diff >> 1) ^ (0u - (diff & 1));
}

static int rice_truncated(size_t block, size_t pix, size_t npix)
{
	return tsr_error(TSR_E_CORRUPT,
			 "RICE_1: compressed stream ends in block %zu (pixel %zu of %zu)", block, pix,
			 npix);
}

/*
 * The decoder for one pixel width w (1, 2 or 4). Always inlined into three wrappers so that
 * w, FSBITS, FSMAX and the store width are compile-time constants in each.
 */
static inline __attribute__((always_inline)) int
rice_decode_w(uint8_t *out, size_t npix, const uint8_t *src, size_t src_nbytes, size_t bs,
	      const int w, const int lzc)
{
	const unsigned fsbits = w == 1 ? 3 : w == 2 ? 4 : 5;
	const int fsmax = w == 1 ? 6 : w == 2 ? 14 : 25;
	const unsigned bbits = 8u * (unsigned)w;
	const uint8_t *p = src + w, *const end = src + src_nbytes;
	uint64_t buf = 0;
	unsigned avail = 0;
	uint32_t last = 0;
	size_t i = 0, block = 0;

	for (int k = 0; k < w; k++)
		last = (last << 8) | src[k];

	while (i < npix) {
		size_t n = npix - i < bs ? npix - i : bs;
		int fs;

		RICE_REFILL();
		if (avail < fsbits)
			return rice_truncated(block, i, npix);
		fs = (int)(buf >> (64 - fsbits)) - 1;
		buf <<= fsbits;
		avail -= fsbits;

		if (fs < 0) {
			/* A block of zero differences: no more bits. */
			for (size_t j = 0; j < n; j++)
				rice_put(out, i + j, last, w);
		} else if (fs == fsmax) {
			/* Differences stored raw, bbits each. */
			for (size_t j = 0; j < n; j++) {
				RICE_REFILL();
				if (avail < bbits)
					return rice_truncated(block, i + j, npix);
				last += rice_unmap((uint32_t)(buf >> (64 - bbits)));
				buf <<= bbits;
				avail -= bbits;
				rice_put(out, i + j, last, w);
			}
		} else if (fs > fsmax) {
			return tsr_error(TSR_E_CORRUPT,
					 "RICE_1: block %zu (pixel %zu) has split %d, above the "
					 "maximum %d for %d-byte pixels",
					 block, i, fs, fsmax, w);
		} else {
			const unsigned ufs = (unsigned)fs;
			size_t j = 0;
#define RICE_ONE()                                                                               \
	do {                                                                                     \
		uint32_t diff;                                                                   \
		unsigned lz = lzc ? rice_lzcnt(buf) : (unsigned)__builtin_clzll(buf | 1);        \
		unsigned need = lz + 1 + ufs;                                                    \
		if (__builtin_expect(need <= avail, 1)) {                                        \
			uint64_t t = buf << lz;                                                  \
			diff = (uint32_t)((((uint64_t)lz - 1) << ufs) + (t >> (63 - ufs)));      \
			buf <<= need;                                                            \
			avail -= need;                                                           \
		} else {                                                                         \
			uint64_t top = 0, low;                                                   \
			for (;;) {                                                               \
				RICE_REFILL();                                                   \
				if (avail == 0)                                                  \
					return rice_truncated(block, i + j, npix);               \
				lz = buf ? (unsigned)__builtin_clzll(buf) : 64;                  \
				if (lz < avail)                                                  \
					break;                                                   \
				top += avail;                                                    \
				buf <<= avail;                                                   \
				avail = 0;                                                       \
			}                                                                        \
			top += lz;                                                               \
			buf = (buf << lz) << 1;                                                  \
			avail -= lz + 1;                                                         \
			RICE_REFILL();                                                           \
			if (avail < ufs)                                                         \
				return rice_truncated(block, i + j, npix);                       \
			low = (buf >> 1) >> (63 - ufs);                                          \
			buf <<= ufs;                                                             \
			avail -= ufs;                                                            \
			diff = (uint32_t)((top << ufs) | low);                                   \
		}                                                                                \
		last += rice_unmap(diff);                                                        \
		rice_put(out, i + j, last, w);                                                   \
		j++;                                                                             \
	} while (0)
			/* One refill serves several codes: a refill leaves >= 56 bits, which hold
			 * four codes of up to 14 bits (fs <= 10 and a unary part of up to 3),
			 * three of up to 18 or two of up to 28; a longer one takes the slow path,
			 * which refills for itself. */
			if (ufs <= 10) {
				while (j + 4 <= n) {
					RICE_REFILL();
					RICE_ONE();
					RICE_ONE();
					RICE_ONE();
					RICE_ONE();
				}
			} else if (ufs <= 14) {
				while (j + 3 <= n) {
					RICE_REFILL();
					RICE_ONE();
					RICE_ONE();
					RICE_ONE();
				}
			} else {
				while (j + 2 <= n) {
					RICE_REFILL();
					RICE_ONE();
					RICE_ONE();
				}
			}
			while (j < n) {
				RICE_REFILL();
				RICE_ONE();
			}
#undef RICE_ONE
		}
		i += n;
		block++;
	}
	return TSR_OK;
}

/* The decoder for each width, with and without LZCNT (w and lzc constants in each). */
#define RICE_VARIANT(name, w, lzc)                                                               \
	static int name(uint8_t *out, size_t npix, const uint8_t *src, size_t n, size_t bs)      \
	{                                                                                        \
		return rice_decode_w(out, npix, src, n, bs, w, lzc);                             \
	}
RICE_VARIANT(rice_decode_1, 1, 0)
RICE_VARIANT(rice_decode_2, 2, 0)
RICE_VARIANT(rice_decode_4, 4, 0)
RICE_VARIANT(rice_decode_1_lzcnt, 1, 1)
RICE_VARIANT(rice_decode_2_lzcnt, 2, 1)
RICE_VARIANT(rice_decode_4_lzcnt, 4, 1)
#undef RICE_VARIANT

int tsr_rice_decode_variant(void *dst, size_t npix, const void *src, size_t src_nbytes,
			    int bytepix, int blocksize, int variant)
{
	if (bytepix != 1 && bytepix != 2 && bytepix != 4)
		return tsr_error(TSR_E_INVALID_ARG, "RICE_1: BYTEPIX %d (must be 1, 2 or 4)",
				 bytepix);
	if (blocksize <= 0)
		return tsr_error(TSR_E_INVALID_ARG, "RICE_1: BLOCKSIZE %d (must be positive)",
				 blocksize);
	pthread_once(&rice_cpu_once, rice_cpu_probe);
	if (variant < 0)
		variant = rice_cpu_lzcnt;
	else if (variant == 1 && !rice_cpu_lzcnt)
		return tsr_error(TSR_E_UNSUPPORTED, "RICE_1: this CPU has no LZCNT");
	if (npix == 0)
		return TSR_OK;
	if (!dst || (!src && src_nbytes))
		return tsr_error(TSR_E_INVALID_ARG, "RICE_1: NULL buffer");
	if (src_nbytes < (size_t)bytepix)
		return tsr_error(TSR_E_CORRUPT,
				 "RICE_1: %zu compressed bytes, too few for the first %d-byte pixel",
				 src_nbytes, bytepix);
	size_t bs = (size_t)blocksize;
	if (bytepix == 1)
		return (variant ? rice_decode_1_lzcnt : rice_decode_1)(dst, npix, src, src_nbytes, bs);
	if (bytepix == 2)
		return (variant ? rice_decode_2_lzcnt : rice_decode_2)(dst, npix, src, src_nbytes, bs);
	return (variant ? rice_decode_4_lzcnt : rice_decode_4)(dst, npix, src, src_nbytes, bs);
}

int tsr_rice_decode(void *dst, size_t npix, const void *src, size_t src_nbytes, int bytepix,
		    int blocksize)
{
	return tsr_rice_decode_variant(dst, npix, src, src_nbytes, bytepix, blocksize, -1);
}
