/* rice_core.h - FITS RICE_1 decoding of one tile by one GPU thread; also builds as C for the CPU. */
#ifndef TSR_RICE_CORE_H
#define TSR_RICE_CORE_H

/*
 * Why one thread per tile (and not a warp whose lanes share a tile's bits):
 * - Rice is serial inside a tile: each code's position depends on every unary prefix before it,
 *   and the low bits that follow a prefix may hold ones, so block boundaries cannot be found
 *   without decoding. Lanes of a warp can only share a tile by speculating on every bit
 *   position and ranking the chain (pointer jumping over ~1000 candidate positions per
 *   32-pixel block): about ten times the work of decoding it once.
 * - FITS gives the parallelism instead: tiles are rows by default (CFITSIO and fpack), so a
 *   batch of 32 images of 4096 x 4096 is 131 072 tiles, more threads than an H200 keeps
 *   resident (132 SMs x 2048). The 32 lanes of a warp decode 32 tiles in lockstep; they
 *   diverge only on rare long unary runs and on block kinds, since a block's kind changes
 *   only the values of fs, not the path through the common (normal) loop.
 * - Per pixel a thread does what the CPU decoder does (src/codecs/rice.c): one
 *   count-leading-zeros and two shifts on a 64-bit bit buffer, refilled from aligned 32-bit
 *   words, so the cost per pixel is a handful of instructions; output is gathered into 64-bit
 *   words so that each thread writes whole words, not single pixels.
 * A batch of few large tiles (one tile per image) gives few threads; such reads are rare in
 * FITS (whole-image tiles defeat sections) and still decode correctly, only slower.
 *
 * Safety: every input word is either wholly inside [in, in + nbytes) and loaded at once, or
 * assembled from the bytes that are inside (the rest read as zero), so no byte outside the
 * stream is touched. Bits past the end read as zeros; a tile is reported truncated when its
 * decoding consumed any of them (checked after every block, and inside long unary runs, so
 * a corrupt tile cannot loop). Output never goes past npix pixels.
 * Built with TSR_RICE_EMU, the same code runs on the CPU, so CI (no GPU) tests the decoding
 * logic against tessera's CPU decoder and CFITSIO.
 */

#include <stddef.h>
#include <stdint.h>
#ifdef TSR_RICE_EMU
#include <string.h>
#define TSR_RD static inline
#else
#define TSR_RD static __device__ __forceinline__
#endif

/* Per-tile status codes (shared with tsr_cuda.h). */
#ifndef TSR_CUDA_RICE_OK
#define TSR_CUDA_RICE_OK 0
#define TSR_CUDA_RICE_E_TRUNCATED 1 /* the stream ends before the tile's last pixel */
#define TSR_CUDA_RICE_E_SPLIT 2     /* a block's split exceeds the maximum for its width */
#define TSR_CUDA_RICE_E_ARGUMENT 3  /* BYTEPIX not 1/2/4, block size 0, NULL pointers, or a
				       stream shorter than the first pixel */
#endif

/* One tile's work, as the launcher reads it (pointers are device addresses). */
struct tsr_rice_tile {
	uint64_t in;        /* compressed stream */
	uint64_t in_nbytes;
	uint64_t out;       /* npix native-endian pixels of bytepix bytes */
	uint64_t npix;
	uint32_t bytepix;   /* 1, 2 or 4 */
	uint32_t blocksize; /* pixels per block (16 or 32 in practice; any positive value) */
};

TSR_RD unsigned tsr_rice_clz64(uint64_t x)
{
#ifdef TSR_RICE_EMU
	return x ? (unsigned)__builtin_clzll(x) : 64u;
#else
	return (unsigned)__clzll((long long)x);
#endif
}

TSR_RD uint32_t tsr_rice_bswap32(uint32_t x)
{
#ifdef TSR_RICE_EMU
	return __builtin_bswap32(x);
#else
	return __byte_perm(x, 0u, 0x0123u);
#endif
}

/* The bit reader: the stream seen as big-endian 32-bit words from the aligned address at or
 * before its start. The top `avail` bits of `buf` are the next bits; the bits below are zero. */
struct tsr_rice_bits {
	const uint8_t *base; /* in rounded down to 4 bytes */
	size_t first, last;  /* the stream's bytes are base[first, last) */
	size_t wi;           /* next word to load */
	uint64_t buf;
	unsigned avail;
};

/* Word k of the stream, big-endian: loaded at once when wholly inside, else byte by byte. */
TSR_RD uint32_t tsr_rice_word(const struct tsr_rice_bits *b, size_t k)
{
	size_t at = 4 * k;
	if (at >= b->first && at + 4 <= b->last) {
		uint32_t w;
#ifdef TSR_RICE_EMU
		memcpy(&w, b->base + at, 4);
#else
		w = __ldg((const unsigned int *)(b->base + at));
#endif
		return tsr_rice_bswap32(w);
	}
	uint32_t w = 0;
	for (unsigned j = 0; j < 4; j++) {
		size_t p = at + j;
		w = (w << 8) | (p >= b->first && p < b->last ? b->base[p] : 0u);
	}
	return w;
}

/* Tops the buffer up to at least 32 bits (at most 63). */
TSR_RD void tsr_rice_refill(struct tsr_rice_bits *b)
{
	while (b->avail < 32) {
		b->buf |= (uint64_t)tsr_rice_word(b, b->wi++) << (32 - b->avail);
		b->avail += 32;
	}
}

/* Bits consumed so far, counted from base. */
TSR_RD size_t tsr_rice_pos(const struct tsr_rice_bits *b)
{
	return 32 * b->wi - b->avail;
}

/* Zigzag unmapping: even -> diff / 2, odd -> ~(diff / 2). */
TSR_RD uint32_t tsr_rice_unmap(uint32_t d)
{
	return (d >> 1) ^ (0u - (d & 1u));
}

/* Output: pixels of w bytes gathered into 64-bit words when out is 8-byte aligned. */
struct tsr_rice_out {
	uint8_t *out;
	uint64_t acc;
	unsigned nacc, per_word, w, aligned;
};

TSR_RD void tsr_rice_store_word(uint8_t *p, uint64_t v)
{
#ifdef TSR_RICE_EMU
	memcpy(p, &v, 8); /* the kernel's stores are little-endian; so is every host CI runs on */
#else
	*(uint64_t *)p = v;
#endif
}

TSR_RD void tsr_rice_put(struct tsr_rice_out *o, size_t i, uint32_t v)
{
	if (o->aligned) {
		uint64_t mask = o->w == 4 ? 0xffffffffull : o->w == 2 ? 0xffffull : 0xffull;
		o->acc |= ((uint64_t)v & mask) << (8u * o->w * o->nacc);
		if (++o->nacc == o->per_word) {
			tsr_rice_store_word(o->out + (i + 1 - o->per_word) * o->w, o->acc);
			o->acc = 0;
			o->nacc = 0;
		}
		return;
	}
	uint8_t *p = o->out + i * o->w;
	for (unsigned k = 0; k < o->w; k++)
		p[k] = (uint8_t)(v >> (8 * k)); /* little-endian, as the word path */
}

/* Writes the pixels still gathered (the tile's last partial word), npix written in all. */
TSR_RD void tsr_rice_flush(struct tsr_rice_out *o, size_t npix)
{
	if (!o->aligned || o->nacc == 0)
		return;
	uint8_t *p = o->out + (npix - o->nacc) * o->w;
	for (unsigned k = 0; k < o->nacc * o->w; k++)
		p[k] = (uint8_t)(o->acc >> (8 * k));
	o->nacc = 0;
}

/*
 * Decodes one tile: npix pixels of w bytes from in[0, nbytes) with blocks of bs pixels into
 * out. Returns a TSR_CUDA_RICE_* status. Pixel values are those of src/codecs/rice.c: the sum
 * is kept modulo 2^32 and truncated to w bytes on output, as CFITSIO's unsigned arithmetic.
 */
TSR_RD int tsr_rice_tile(const uint8_t *in, size_t nbytes, uint8_t *out, size_t npix, unsigned w,
			 size_t bs)
{
	if (npix == 0)
		return TSR_CUDA_RICE_OK;
	if ((w != 1 && w != 2 && w != 4) || bs == 0 || !in || !out || nbytes < w)
		return TSR_CUDA_RICE_E_ARGUMENT;
	const unsigned fsbits = w == 1 ? 3u : w == 2 ? 4u : 5u;
	const int fsmax = w == 1 ? 6 : w == 2 ? 14 : 25;
	const unsigned bbits = 8u * w;
	struct tsr_rice_bits b;
	struct tsr_rice_out o;
	uint32_t last = 0;
	size_t i = 0;

	for (unsigned k = 0; k < w; k++)
		last = (last << 8) | in[k];
	b.base = (const uint8_t *)((uintptr_t)(in + w) & ~(uintptr_t)3);
	b.first = (size_t)(in + w - b.base);
	b.last = b.first + (nbytes - w);
	b.wi = 0;
	b.buf = 0;
	b.avail = 0;
	tsr_rice_refill(&b);
	b.buf <<= 8 * b.first; /* skip the bytes before the stream in its first word */
	b.avail -= 8 * (unsigned)b.first;
	const size_t end_bit = 8 * b.last;

	o.out = out;
	o.acc = 0;
	o.nacc = 0;
	o.w = w;
	o.per_word = 8u / w;
	o.aligned = ((uintptr_t)out & 7u) == 0;

	while (i < npix) {
		size_t n = npix - i < bs ? npix - i : bs;
		tsr_rice_refill(&b);
		int fs = (int)(b.buf >> (64 - fsbits)) - 1;
		b.buf <<= fsbits;
		b.avail -= fsbits;
		if (fs < 0) {
			/* a block of zero differences: no more bits */
			for (size_t j = 0; j < n; j++)
				tsr_rice_put(&o, i + j, last);
		} else if (fs == fsmax) {
			/* differences stored raw, bbits each */
			for (size_t j = 0; j < n; j++) {
				tsr_rice_refill(&b);
				last += tsr_rice_unmap((uint32_t)(b.buf >> (64 - bbits)));
				b.buf <<= bbits;
				b.avail -= bbits;
				tsr_rice_put(&o, i + j, last);
			}
		} else if (fs > fsmax) {
			return TSR_CUDA_RICE_E_SPLIT;
		} else {
			const unsigned ufs = (unsigned)fs;
			for (size_t j = 0; j < n; j++) {
				uint64_t diff;
				tsr_rice_refill(&b);
				unsigned lz = tsr_rice_clz64(b.buf);
				if (lz + 1 + ufs <= b.avail) {
					/* the code's terminating one and low bits: t >> (63 - fs) is
					 * (1 << fs) | low, so diff = (lz << fs) + low (mod 2^64) */
					uint64_t t = b.buf << lz;
					diff = (((uint64_t)lz - 1) << ufs) + (t >> (63 - ufs));
					b.buf <<= lz + 1 + ufs;
					b.avail -= lz + 1 + ufs;
				} else {
					/* a unary run longer than the buffer: count it word by word */
					uint64_t top = 0;
					for (;;) {
						if (b.buf) {
							lz = tsr_rice_clz64(b.buf);
							break;
						}
						top += b.avail;
						b.avail = 0;
						if (tsr_rice_pos(&b) > end_bit)
							return TSR_CUDA_RICE_E_TRUNCATED;
						tsr_rice_refill(&b);
					}
					top += lz;
					b.buf <<= lz + 1;
					b.avail -= lz + 1;
					tsr_rice_refill(&b);
					uint64_t low = ufs ? b.buf >> (64 - ufs) : 0;
					b.buf = ufs ? b.buf << ufs : b.buf;
					b.avail -= ufs;
					diff = (top << ufs) | low;
				}
				last += tsr_rice_unmap((uint32_t)diff);
				tsr_rice_put(&o, i + j, last);
			}
		}
		if (tsr_rice_pos(&b) > end_bit)
			return TSR_CUDA_RICE_E_TRUNCATED;
		i += n;
	}
	tsr_rice_flush(&o, npix);
	return TSR_CUDA_RICE_OK;
}

#endif
