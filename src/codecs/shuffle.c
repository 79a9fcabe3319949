/* shuffle.c - the byte filters blosc undoes: unshuffle, bitunshuffle, delta and bytedelta. */
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "blosc.h"

/* ---- byte unshuffle ---- */

#if defined(__SSE2__)
/* 16 elements per step: interleave the planes with unpack instructions, two bytes, then two
 * 16-bit pairs, then two 32-bit quads at a time. */
static size_t unshuffle2_sse2(uint8_t *dst, const uint8_t *src, size_t n)
{
	size_t i = 0;
	for (; i + 16 <= n; i += 16) {
		__m128i a = _mm_loadu_si128((const __m128i *)(src + i));
		__m128i b = _mm_loadu_si128((const __m128i *)(src + n + i));
		_mm_storeu_si128((__m128i *)(dst + 2 * i), _mm_unpacklo_epi8(a, b));
		_mm_storeu_si128((__m128i *)(dst + 2 * i + 16), _mm_unpackhi_epi8(a, b));
	}
	return i;
}

static size_t unshuffle4_sse2(uint8_t *dst, const uint8_t *src, size_t n)
{
	size_t i = 0;
	for (; i + 16 <= n; i += 16) {
		__m128i a = _mm_loadu_si128((const __m128i *)(src + i));
		__m128i b = _mm_loadu_si128((const __m128i *)(src + n + i));
		__m128i c = _mm_loadu_si128((const __m128i *)(src + 2 * n + i));
		__m128i d = _mm_loadu_si128((const __m128i *)(src + 3 * n + i));
		__m128i ab0 = _mm_unpacklo_epi8(a, b), ab1 = _mm_unpackhi_epi8(a, b);
		__m128i cd0 = _mm_unpacklo_epi8(c, d), cd1 = _mm_unpackhi_epi8(c, d);
		uint8_t *o = dst + 4 * i;
		_mm_storeu_si128((__m128i *)o, _mm_unpacklo_epi16(ab0, cd0));
		_mm_storeu_si128((__m128i *)(o + 16), _mm_unpackhi_epi16(ab0, cd0));
		_mm_storeu_si128((__m128i *)(o + 32), _mm_unpacklo_epi16(ab1, cd1));
		_mm_storeu_si128((__m128i *)(o + 48), _mm_unpackhi_epi16(ab1, cd1));
	}
	return i;
}

/* Loads 16 bytes from each of 8 rows (row k at src + k * stride) and interleaves them: out[j]
 * holds, for columns 2j and 2j+1, the 8 rows' bytes of that column in row order. The byte
 * unshuffle of 8-byte elements and the bit unshuffle both start from this gather. */
static inline void gather8x16_sse2(const uint8_t *src, size_t stride, __m128i out[8])
{
	__m128i p[8], q[8], r[8];
	for (int k = 0; k < 8; k++)
		p[k] = _mm_loadu_si128((const __m128i *)(src + (size_t)k * stride));
	/* bytes of rows (0,1), (2,3), (4,5), (6,7) paired: columns 0-7 and 8-15 */
	for (int k = 0; k < 4; k++) {
		q[2 * k] = _mm_unpacklo_epi8(p[2 * k], p[2 * k + 1]);
		q[2 * k + 1] = _mm_unpackhi_epi8(p[2 * k], p[2 * k + 1]);
	}
	/* 16-bit pairs joined into 32-bit quads: rows 0-3 and 4-7, 4 columns each */
	r[0] = _mm_unpacklo_epi16(q[0], q[2]);
	r[1] = _mm_unpackhi_epi16(q[0], q[2]);
	r[2] = _mm_unpacklo_epi16(q[1], q[3]);
	r[3] = _mm_unpackhi_epi16(q[1], q[3]);
	r[4] = _mm_unpacklo_epi16(q[4], q[6]);
	r[5] = _mm_unpackhi_epi16(q[4], q[6]);
	r[6] = _mm_unpacklo_epi16(q[5], q[7]);
	r[7] = _mm_unpackhi_epi16(q[5], q[7]);
	for (int k = 0; k < 4; k++) {
		out[2 * k] = _mm_unpacklo_epi32(r[k], r[k + 4]);
		out[2 * k + 1] = _mm_unpackhi_epi32(r[k], r[k + 4]);
	}
}

static size_t unshuffle8_sse2(uint8_t *dst, const uint8_t *src, size_t n)
{
	size_t i = 0;
	for (; i + 16 <= n; i += 16) {
		__m128i c[8];
		gather8x16_sse2(src + i, n, c);
		for (int k = 0; k < 8; k++)
			_mm_storeu_si128((__m128i *)(dst + 8 * i + 16 * k), c[k]);
	}
	return i;
}

static size_t unshuffle16_sse2(uint8_t *dst, const uint8_t *src, size_t n)
{
	size_t i = 0;
	for (; i + 16 <= n; i += 16) {
		__m128i a[16], b[16];
		for (int k = 0; k < 16; k++)
			a[k] = _mm_loadu_si128((const __m128i *)(src + k * n + i));
		/* four rounds of pairwise interleaving turn 16 planes of 16 bytes into 16
		 * elements; each round doubles the width of the interleaved units */
		for (int round = 0; round < 2; round++) { /* a -> b -> a, twice */
			for (int k = 0; k < 8; k++) {
				b[2 * k] = _mm_unpacklo_epi8(a[k], a[k + 8]);
				b[2 * k + 1] = _mm_unpackhi_epi8(a[k], a[k + 8]);
			}
			for (int k = 0; k < 8; k++) {
				a[2 * k] = _mm_unpacklo_epi8(b[k], b[k + 8]);
				a[2 * k + 1] = _mm_unpackhi_epi8(b[k], b[k + 8]);
			}
		}
		for (int k = 0; k < 16; k++)
			_mm_storeu_si128((__m128i *)(dst + 16 * (i + k)), a[k]);
	}
	return i;
}
#endif

void tsr_blosc_unshuffle(void *dst_, const void *src_, size_t nbytes, size_t typesize)
{
	uint8_t *dst = dst_;
	const uint8_t *src = src_;
	if (typesize <= 1 || nbytes < typesize) {
		memcpy(dst, src, nbytes);
		return;
	}
	size_t n = nbytes / typesize, i = 0;
#if defined(__SSE2__)
	switch (typesize) {
	case 2:
		i = unshuffle2_sse2(dst, src, n);
		break;
	case 4:
		i = unshuffle4_sse2(dst, src, n);
		break;
	case 8:
		i = unshuffle8_sse2(dst, src, n);
		break;
	case 16:
		i = unshuffle16_sse2(dst, src, n);
		break;
	default:
		break;
	}
#endif
	switch (typesize) {
	case 2:
		for (; i < n; i++) {
			dst[2 * i] = src[i];
			dst[2 * i + 1] = src[n + i];
		}
		break;
	case 4:
		for (; i < n; i++) {
			dst[4 * i] = src[i];
			dst[4 * i + 1] = src[n + i];
			dst[4 * i + 2] = src[2 * n + i];
			dst[4 * i + 3] = src[3 * n + i];
		}
		break;
	default:
		/* plane by plane: sequential reads, strided writes within a small window */
		for (size_t j = 0; j < typesize; j++) {
			const uint8_t *s = src + j * n;
			uint8_t *d = dst + j;
			for (size_t k = i; k < n; k++)
				d[k * typesize] = s[k];
		}
		break;
	}
	size_t done = n * typesize;
	memcpy(dst + done, src + done, nbytes - done);
}

/* ---- bit unshuffle ---- */

/* Transposes an 8x8 bit matrix held as 8 bytes: bit c of byte r goes to bit r of byte c. */
static inline uint64_t transpose8x8(uint64_t x)
{
	uint64_t t;
	t = (x ^ (x >> 7)) & 0x00AA00AA00AA00AAULL;
	x ^= t ^ (t << 7);
	t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCCULL;
	x ^= t ^ (t << 14);
	t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0ULL;
	x ^= t ^ (t << 28);
	return x;
}

/* The widest vector path the bit unshuffle takes (its test lowers it, so each path is checked
 * against the reference on a CPU that has them all; reads never change it). */
static int tsr_bitshuffle_isa = TSR_ISA_GFNI;

void tsr_bitshuffle_limit_isa(int isa)
{
	tsr_bitshuffle_isa = isa;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TSR_HAVE_AVX2_PATH 1
#include <immintrin.h>

/* Swaps bit groups between rows a and b of an 8x8 bit matrix held one row a vector (32
 * matrices side by side, one a byte column): the bits of a under mask << s trade places with
 * those of b under mask. Shifts are 16-bit (AVX2 has no byte shift); the mask drops what they
 * carry across bytes. */
#define TSR_BITSWAP_AVX2(a, b, s, mask)                                                       \
	do {                                                                                 \
		__m256i t_ = _mm256_and_si256(                                               \
			_mm256_xor_si256(_mm256_srli_epi16(a, s), b), mask);                 \
		b = _mm256_xor_si256(b, t_);                                                 \
		a = _mm256_xor_si256(a, _mm256_slli_epi16(t_, s));                           \
	} while (0)

/* bitrows_to_plane for 32 columns a step, where the CPU has AVX2 (twice SSE2's width: the
 * bit unshuffle is the slowest step of a bitshuffled blosc block). The 8x8 bit transposes run
 * on the rows as loaded, 32 columns at once (three rounds of bit-group swaps between rows:
 * 4-bit groups between rows b and b + 4, 2-bit between b and b + 2, single bits between b and
 * b + 1), after which row m holds element 8k + m of column k; then the rows' bytes are
 * interleaved. The unpacks work inside each 128-bit half: half 0 gathers columns k..k+15,
 * half 1 columns k+16..k+31, and the final lane permutes put each four columns' 32 bytes
 * together. Rows are `row` bytes apart; columns [0, ncols) are done, 32 at a time: returns how
 * many. */
__attribute__((target("avx2"))) static size_t bitrows_to_plane_avx2(uint8_t *plane,
								    const uint8_t *rows, size_t row,
								    size_t ncols)
{
	const __m256i m4 = _mm256_set1_epi8(0x0F), m2 = _mm256_set1_epi8(0x33),
		      m1 = _mm256_set1_epi8(0x55);
	size_t k = 0;
	for (; k + 32 <= ncols; k += 32) {
		__m256i p[8], q[8], r[8], o[8];
		for (int b = 0; b < 8; b++)
			p[b] = _mm256_loadu_si256((const __m256i *)(rows + (size_t)b * row + k));
		for (int b = 0; b < 4; b++)
			TSR_BITSWAP_AVX2(p[b], p[b + 4], 4, m4);
		for (int b = 0; b < 8; b += (b & 1) ? 3 : 1)
			TSR_BITSWAP_AVX2(p[b], p[b + 2], 2, m2);
		for (int b = 0; b < 8; b += 2)
			TSR_BITSWAP_AVX2(p[b], p[b + 1], 1, m1);
		for (int b = 0; b < 4; b++) {
			q[2 * b] = _mm256_unpacklo_epi8(p[2 * b], p[2 * b + 1]);
			q[2 * b + 1] = _mm256_unpackhi_epi8(p[2 * b], p[2 * b + 1]);
		}
		r[0] = _mm256_unpacklo_epi16(q[0], q[2]);
		r[1] = _mm256_unpackhi_epi16(q[0], q[2]);
		r[2] = _mm256_unpacklo_epi16(q[1], q[3]);
		r[3] = _mm256_unpackhi_epi16(q[1], q[3]);
		r[4] = _mm256_unpacklo_epi16(q[4], q[6]);
		r[5] = _mm256_unpackhi_epi16(q[4], q[6]);
		r[6] = _mm256_unpacklo_epi16(q[5], q[7]);
		r[7] = _mm256_unpackhi_epi16(q[5], q[7]);
		/* o[j]: columns 2j, 2j+1 (half 0) and 16+2j, 16+2j+1 (half 1), elements in order */
		for (int b = 0; b < 4; b++) {
			o[2 * b] = _mm256_unpacklo_epi32(r[b], r[b + 4]);
			o[2 * b + 1] = _mm256_unpackhi_epi32(r[b], r[b + 4]);
		}
		for (int j = 0; j < 8; j += 2) {
			_mm256_storeu_si256((__m256i *)(plane + 8 * (k + 2 * (size_t)j)),
					    _mm256_permute2x128_si256(o[j], o[j + 1], 0x20));
			_mm256_storeu_si256((__m256i *)(plane + 8 * (k + 16 + 2 * (size_t)j)),
					    _mm256_permute2x128_si256(o[j], o[j + 1], 0x31));
		}
	}
	return k;
}

/* libgcc's cpu model, filled once before main: a load and a test per call */
static int tsr_cpu_avx2(void)
{
	return __builtin_cpu_supports("avx2");
}

/* bitrows_to_plane for 64 columns a step, where the CPU has AVX-512 VBMI and GFNI: the 8 rows'
 * bytes of each column are gathered into one 64-bit word (rows last to first) by three rounds
 * of two-source permutes (bytes, then 16-bit pairs, then 32-bit quads), and one
 * gf2p8affineqb transposes all eight 8x8 bit matrices of a vector: with the matrix operand the
 * word and x byte m = 1 << m, result byte m bit i is bit m of the word's byte 7 - i, that is
 * of row i. Returns the columns done. */
__attribute__((target("avx512f,avx512bw,avx512vbmi,gfni"))) static size_t
bitrows_to_plane_gfni(uint8_t *plane, const uint8_t *rows, size_t row, size_t ncols)
{
	/* the permutes' indices (bit 6, 5, 4 of a byte, word, dword index: the second source):
	 * byte pairs (a[c], b[c]), columns 0-31 (ib_lo) and 32-63 (ib_hi); pairs of pairs, columns
	 * 0-15 (iw0) and 16-31 (iw1) of 32; quads of quads, columns 0-7 (id_lo) and 8-15 (id_hi)
	 * of 16 */
	static const uint8_t ib_lo[64] = {
		0, 64, 1, 65, 2, 66, 3, 67, 4, 68, 5, 69, 6, 70, 7, 71,
		8, 72, 9, 73, 10, 74, 11, 75, 12, 76, 13, 77, 14, 78, 15, 79,
		16, 80, 17, 81, 18, 82, 19, 83, 20, 84, 21, 85, 22, 86, 23, 87,
		24, 88, 25, 89, 26, 90, 27, 91, 28, 92, 29, 93, 30, 94, 31, 95,
	}, ib_hi[64] = {
		32, 96, 33, 97, 34, 98, 35, 99, 36, 100, 37, 101, 38, 102, 39, 103,
		40, 104, 41, 105, 42, 106, 43, 107, 44, 108, 45, 109, 46, 110, 47, 111,
		48, 112, 49, 113, 50, 114, 51, 115, 52, 116, 53, 117, 54, 118, 55, 119,
		56, 120, 57, 121, 58, 122, 59, 123, 60, 124, 61, 125, 62, 126, 63, 127,
	};
	static const uint16_t iw0[32] = {
		0, 32, 1, 33, 2, 34, 3, 35, 4, 36, 5, 37, 6, 38, 7, 39,
		8, 40, 9, 41, 10, 42, 11, 43, 12, 44, 13, 45, 14, 46, 15, 47,
	}, iw1[32] = {
		16, 48, 17, 49, 18, 50, 19, 51, 20, 52, 21, 53, 22, 54, 23, 55,
		24, 56, 25, 57, 26, 58, 27, 59, 28, 60, 29, 61, 30, 62, 31, 63,
	};
	static const uint32_t id_lo[16] = {
		0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23,
	}, id_hi[16] = {
		8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31,
	};
	const __m512i xb_lo = _mm512_loadu_si512(ib_lo), xb_hi = _mm512_loadu_si512(ib_hi),
		      xw0 = _mm512_loadu_si512(iw0), xw1 = _mm512_loadu_si512(iw1),
		      xd_lo = _mm512_loadu_si512(id_lo), xd_hi = _mm512_loadu_si512(id_hi),
		      unit = _mm512_set1_epi64((long long)0x8040201008040201ULL);
	size_t k = 0;
	for (; k + 64 <= ncols; k += 64) {
		__m512i p[8], b[8], w[8];
		/* p[j]: row 7 - j, so that a word's byte j is row 7 - j */
		for (int j = 0; j < 8; j++)
			p[j] = _mm512_loadu_si512(rows + (size_t)(7 - j) * row + k);
		/* b[2i], b[2i+1]: rows' byte pairs (p[2i], p[2i+1]), columns 0-31 and 32-63 */
		for (int i = 0; i < 4; i++) {
			b[2 * i] = _mm512_permutex2var_epi8(p[2 * i], xb_lo, p[2 * i + 1]);
			b[2 * i + 1] = _mm512_permutex2var_epi8(p[2 * i], xb_hi, p[2 * i + 1]);
		}
		/* w[4i + 2h + q]: quads of p[4i..4i+3], columns 32h + 16q .. + 15 */
		for (int i = 0; i < 2; i++)
			for (int h = 0; h < 2; h++) {
				__m512i lo = b[4 * i + h], hi = b[4 * i + 2 + h];
				w[4 * i + 2 * h] = _mm512_permutex2var_epi16(lo, xw0, hi);
				w[4 * i + 2 * h + 1] = _mm512_permutex2var_epi16(lo, xw1, hi);
			}
		/* the words of columns 16g .. 16g + 7 (x0) and 16g + 8 .. 16g + 15 (x1): a quad of
		 * p[0..3], then one of p[4..7] */
		for (int g = 0; g < 4; g++) {
			__m512i lo = w[g], hi = w[4 + g];
			__m512i x0 = _mm512_permutex2var_epi32(lo, xd_lo, hi);
			__m512i x1 = _mm512_permutex2var_epi32(lo, xd_hi, hi);
			_mm512_storeu_si512(plane + 8 * (k + 16 * (size_t)g),
					    _mm512_gf2p8affine_epi64_epi8(unit, x0, 0));
			_mm512_storeu_si512(plane + 8 * (k + 16 * (size_t)g + 8),
					    _mm512_gf2p8affine_epi64_epi8(unit, x1, 0));
		}
	}
	return k;
}

static int tsr_cpu_gfni(void)
{
	return __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512bw") &&
	       __builtin_cpu_supports("gfni");
}
#endif

/* Plane bytes (byte j of n8 elements) from the plane's 8 bit rows of row = n8 / 8 bytes each:
 * byte m of the 8 bytes (r0[k], ..., r7[k]), bit-transposed, is element 8k + m. Columns
 * [0, ncols) of the rows (rows may point into them), elements [0, 8 ncols) of the plane. */
static void bitrows_to_plane(uint8_t *plane, const uint8_t *rows, size_t row, size_t ncols)
{
	size_t k = 0;
#if defined(TSR_HAVE_AVX2_PATH)
	if (tsr_bitshuffle_isa >= TSR_ISA_GFNI && tsr_cpu_gfni())
		k = bitrows_to_plane_gfni(plane, rows, row, ncols);
	if (tsr_bitshuffle_isa >= TSR_ISA_AVX2 && tsr_cpu_avx2())
		k += bitrows_to_plane_avx2(plane + 8 * k, rows + k, row, ncols - k);
#endif
#if defined(__SSE2__)
	if (tsr_bitshuffle_isa < TSR_ISA_SSE2)
		goto scalar;
	const __m128i m1 = _mm_set1_epi64x(0x00AA00AA00AA00AALL);
	const __m128i m2 = _mm_set1_epi64x(0x0000CCCC0000CCCCLL);
	const __m128i m3 = _mm_set1_epi64x(0x00000000F0F0F0F0LL);
	for (; k + 16 <= ncols; k += 16) {
		__m128i c[8];
		/* one 64-bit lane per k: (r0[k] .. r7[k]) */
		gather8x16_sse2(rows + k, row, c);
		/* the 8x8 bit transpose on both 64-bit lanes at once */
		for (int i = 0; i < 8; i++) {
			__m128i x = c[i], t;
			t = _mm_and_si128(_mm_xor_si128(x, _mm_srli_epi64(x, 7)), m1);
			x = _mm_xor_si128(x, _mm_xor_si128(t, _mm_slli_epi64(t, 7)));
			t = _mm_and_si128(_mm_xor_si128(x, _mm_srli_epi64(x, 14)), m2);
			x = _mm_xor_si128(x, _mm_xor_si128(t, _mm_slli_epi64(t, 14)));
			t = _mm_and_si128(_mm_xor_si128(x, _mm_srli_epi64(x, 28)), m3);
			x = _mm_xor_si128(x, _mm_xor_si128(t, _mm_slli_epi64(t, 28)));
			_mm_storeu_si128((__m128i *)(plane + 8 * (k + 2 * (size_t)i)), x);
		}
	}
scalar:
#endif
	for (; k < ncols; k++) {
		const uint8_t *s = rows + k;
		uint64_t x = (uint64_t)s[0] | (uint64_t)s[row] << 8 | (uint64_t)s[2 * row] << 16 |
			     (uint64_t)s[3 * row] << 24 | (uint64_t)s[4 * row] << 32 |
			     (uint64_t)s[5 * row] << 40 | (uint64_t)s[6 * row] << 48 |
			     (uint64_t)s[7 * row] << 56;
		x = transpose8x8(x);
		memcpy(plane + 8 * k, &x, 8); /* byte m of x (little-endian) is element 8k+m */
	}
}

/* Bytes of one strip of the bit unshuffle with scratch: a strip's planes (typesize of them) stay
 * in the first level cache between the bit transpose that writes them and the byte unshuffle
 * that reads them, where whole planes (a block's size) went out to the second level and back. */
#define TSR_BITSTRIP_NBYTES 16384

/* n8 (a multiple of 8) elements of typesize bytes from the bit-row layout: each plane's bytes
 * first (into tmp, or straight into dst for one-byte elements), then a byte unshuffle; with
 * tmp, a strip of 8 * cols elements at a time. */
static void bitunshuffle_core(uint8_t *dst, const uint8_t *src, size_t n8, size_t typesize,
			      uint8_t *tmp)
{
	size_t row = n8 / 8;
	if (typesize == 1) {
		bitrows_to_plane(dst, src, row, row);
		return;
	}
	if (tmp) {
		/* columns a strip: a multiple of 64 (the AVX-512 step), at least one step */
		size_t cols = TSR_BITSTRIP_NBYTES / (8 * typesize) / 64 * 64;
		if (cols == 0)
			cols = 64;
		for (size_t k = 0; k < row; k += cols) {
			size_t nc = row - k < cols ? row - k : cols;
			for (size_t j = 0; j < typesize; j++)
				bitrows_to_plane(tmp + j * 8 * nc, src + j * n8 + k, row, nc);
			tsr_blosc_unshuffle(dst + 8 * k * typesize, tmp, 8 * nc * typesize, typesize);
		}
		return;
	}
	/* no scratch: transpose and scatter one byte at a time */
	for (size_t k = 0; k < row; k++) {
		uint8_t *o = dst + 8 * k * typesize;
		for (size_t j = 0; j < typesize; j++) {
			const uint8_t *s = src + j * 8 * row + k;
			uint64_t x = (uint64_t)s[0] | (uint64_t)s[row] << 8 |
				     (uint64_t)s[2 * row] << 16 | (uint64_t)s[3 * row] << 24 |
				     (uint64_t)s[4 * row] << 32 | (uint64_t)s[5 * row] << 40 |
				     (uint64_t)s[6 * row] << 48 | (uint64_t)s[7 * row] << 56;
			x = transpose8x8(x);
			for (int m = 0; m < 8; m++)
				o[m * typesize + j] = (uint8_t)(x >> (8 * m));
		}
	}
}

void tsr_blosc_bitunshuffle(void *dst_, const void *src_, size_t nbytes, size_t typesize,
			    int version, void *tmp)
{
	uint8_t *dst = dst_;
	const uint8_t *src = src_;
	if (typesize == 0) {
		memcpy(dst, src, nbytes);
		return;
	}
	size_t n = nbytes / typesize, n8;
	if (version <= 2) {
		/* Blosc1 bitshuffled only blocks with a whole number of 8-element groups */
		n8 = n % 8 == 0 ? n : 0;
	} else {
		n8 = n - n % 8;
	}
	bitunshuffle_core(dst, src, n8, typesize, tmp);
	size_t done = n8 * typesize;
	memcpy(dst + done, src + done, nbytes - done);
}

/* ---- delta ---- */

#define DELTA_LOOP(T)                                                                        \
	do {                                                                                 \
		size_t n_ = nbytes / sizeof(T);                                              \
		if (ref) {                                                                   \
			for (size_t k = 0; k < n_; k++) {                                    \
				T a_, r_;                                                    \
				memcpy(&a_, src + k * sizeof(T), sizeof(T));                 \
				memcpy(&r_, rf + k * sizeof(T), sizeof(T));                  \
				a_ ^= r_;                                                    \
				memcpy(dst + k * sizeof(T), &a_, sizeof(T));                 \
			}                                                                    \
		} else if (n_ > 0) {                                                         \
			T prev_;                                                             \
			memcpy(&prev_, src, sizeof(T));                                      \
			memcpy(dst, &prev_, sizeof(T));                                      \
			for (size_t k = 1; k < n_; k++) {                                    \
				T a_;                                                        \
				memcpy(&a_, src + k * sizeof(T), sizeof(T));                 \
				prev_ ^= a_;                                                 \
				memcpy(dst + k * sizeof(T), &prev_, sizeof(T));              \
			}                                                                    \
		}                                                                            \
		unit = sizeof(T);                                                            \
	} while (0)

void tsr_blosc_delta_decode(void *dst_, const void *src_, size_t nbytes, size_t typesize,
			    const void *ref)
{
	uint8_t *dst = dst_;
	const uint8_t *src = src_, *rf = ref;
	size_t unit;
	if (typesize != 1 && typesize != 2 && typesize != 4 && typesize != 8)
		typesize = typesize % 8 == 0 ? 8 : 1;
	switch (typesize) {
	case 2:
		DELTA_LOOP(uint16_t);
		break;
	case 4:
		DELTA_LOOP(uint32_t);
		break;
	case 8:
		DELTA_LOOP(uint64_t);
		break;
	default:
		DELTA_LOOP(uint8_t);
		break;
	}
	size_t done = nbytes / unit * unit;
	if (dst != src)
		memcpy(dst + done, src + done, nbytes - done);
}

/* ---- bytedelta ---- */

void tsr_blosc_bytedelta_decode(void *dst_, const void *src_, size_t nbytes, size_t nstreams,
				int legacy)
{
	uint8_t *dst = dst_;
	const uint8_t *src = src_;
	if (nstreams == 0)
		nstreams = 1;
	size_t len = nbytes / nstreams;
	/* legacy filter 34: the sum carried across whole 16-byte groups only */
	size_t carried = legacy ? len / 16 * 16 : len;
	for (size_t s = 0; s < nstreams; s++) {
		const uint8_t *in = src + s * len;
		uint8_t *out = dst + s * len;
		uint8_t acc = 0;
		size_t k = 0;
		for (; k < carried; k++) {
			acc = (uint8_t)(acc + in[k]);
			out[k] = acc;
		}
		acc = 0;
		for (; k < len; k++) {
			acc = (uint8_t)(acc + in[k]);
			out[k] = acc;
		}
	}
	size_t done = len * nstreams;
	if (dst != src)
		memcpy(dst + done, src + done, nbytes - done);
}
