/* bfilter_core.h - undoing blosc filters on one decoded block as steps a thread block runs between barriers (bfilter.cu); also builds as C for the CPU. */
#ifndef TSR_BFILTER_CORE_H
#define TSR_BFILTER_CORE_H

/*
 * A chunk's block is undone by one thread block. The work is a list of steps: in a step,
 * thread t of nt does its share, reading only what earlier steps wrote, and the threads meet
 * at a barrier after each step. So the same code runs on the CPU with TSR_BF_EMU, each step
 * run for t = 0 .. nt-1 in turn, and CI (no GPU) checks the steps for any nt against the CPU
 * decoder (tests/gpu/emu_bfilter.c).
 *
 * Pass 0, block b (the filters in the order given; each reads one buffer and writes the
 * other, the block's decoded bytes `a` in the decode buffer and its room `b` in the staging
 * buffer taking turns; a result left in b stays there, the chunk's bytes for the place kernel,
 * unless DELTA follows, which needs it in a: then it is copied back):
 *   SHUFFLE (meta or typesize bytes)  1 step: each thread gathers whole elements
 *   BITSHUFFLE                        1 step: each thread transposes 8 elements' bits of a byte
 *   BYTEDELTA, BYTEDELTA_V1           3 steps a stream (a second sum for the legacy filter's
 *                                     tail): a scan of byte sums, as DELTA's below
 *   DELTA (always last)               block 0 only, in place: a prefix XOR of units in 3
 *                                     steps (each thread's units' XOR; their exclusive prefix,
 *                                     by thread 0; each thread's units again from its prefix)
 * Pass 1 (chunks with DELTA): block b > 0 XORs block 0's final bytes into its own, 1 step.
 * A special chunk's pass 0 is 1 step: its pattern, from the chunk's first byte on.
 * The rules are those of src/codecs/shuffle.c, tails included (bytes past the last whole
 * element, unit or stream are copied as they are).
 */

#include <stdint.h>
#include <string.h>

#include "../codecs/blosc.h"
#include "bfilter.h"

#if defined(TSR_BF_EMU) || !defined(__CUDACC__)
#define TSR_BF_D static inline
#else
#define TSR_BF_D static __device__ __forceinline__
#endif
#if defined(TSR_BF_EMU) || !defined(__CUDACC__)
#define TSR_BF_HD static inline
#else
#define TSR_BF_HD static __host__ __device__ __forceinline__
#endif

/* One block as its threads see it. */
struct tsr_bf_view {
	uint8_t *a;             /* the block's bytes in the decode buffer */
	uint8_t *b;             /* its room in the staging buffer */
	const uint8_t *a0;      /* the chunk's block 0 in the decode buffer */
	const uint8_t *pat;     /* fill pattern */
	uint64_t n;             /* the block's bytes */
	uint64_t at;            /* its first byte's offset in the chunk */
	uint64_t block;
};

#ifdef __cplusplus
static_assert(TSR_CUDA_BF_SEL == TSR_BLOSC_SEL_AXES, "a chunk's choice of blocks fits the pass's");
#else
_Static_assert(TSR_CUDA_BF_SEL == TSR_BLOSC_SEL_AXES, "a chunk's choice of blocks fits the pass's");
#endif

/* The chunk's block that the launch's block k of the chunk (0 <= k < nblocks) is: block k, or
 * of a section's chunk (nsel > 0) block 0 first when with0, then its chosen blocks in order. */
TSR_BF_HD uint64_t tsr_bf_block(const struct tsr_cuda_bfilter *c, uint64_t k)
{
	if (!c->nsel)
		return k;
	if (c->with0) {
		if (k == 0)
			return 0;
		k--;
	}
	/* (32-bit: a chunk has under 2^31 blocks) */
	uint32_t r = (uint32_t)k, b = 0;
	for (int d = c->nsel - 1; d >= 0; d--) {
		b += r % c->sel_n[d] * c->sel_stride[d];
		r /= c->sel_n[d];
	}
	return (uint64_t)c->sel_base + b;
}

/* Whether the chunk's last filter is DELTA (the route sends the pass no pipeline with DELTA
 * anywhere else: tsr_route_blosc). */
TSR_BF_HD int tsr_bf_has_delta(const struct tsr_cuda_bfilter *c)
{
	return c->plen == 0 && c->nfilt > 0 && c->filt[c->nfilt - 1] == TSR_BLOSC_DELTA;
}

TSR_BF_HD int tsr_bf_passes(const struct tsr_cuda_bfilter *c)
{
	return tsr_bf_has_delta(c) ? 2 : 1;
}

/*
 * The pass's description of a chunk from its pipeline (src/codecs/blosc.h): its decoded bytes
 * at dec in the decode buffer, its stored bytes at stage in the staging buffer (with room for
 * its decoded size after them: the pass's second buffer), its block 0 the launch's block
 * `first`. Returns 0 when the chunk needs no pass (no filters to undo, no fill).
 */
static inline int tsr_bf_describe(const struct tsr_blosc_pipeline *p, uint64_t dec,
				  uint64_t stage, uint64_t first, struct tsr_cuda_bfilter *c)
{
	memset(c, 0, sizeof(*c));
	if (p->nfilt == 0 && p->fill_len == 0)
		return 0;
	c->dec = dec;
	c->scratch = stage;
	c->nbytes = (uint64_t)p->nbytes;
	c->first = first;
	c->pat_src = TSR_CUDA_BF_PAT_INLINE;
	c->typesize = (uint8_t)p->typesize;
	c->version = (uint8_t)p->version;
	if (p->fill_len) {
		/* a fill has no blocks of its own: pieces of 64 KiB */
		c->blocksize = (uint64_t)1 << 16;
		c->plen = (uint16_t)p->fill_len;
		if (p->fill_at >= 0)
			c->pat_src = stage + (uint64_t)p->fill_at;
		else
			memcpy(c->pat, p->fill, sizeof(c->pat));
	} else {
		c->blocksize = (uint64_t)p->blocksize;
		c->nfilt = (uint8_t)p->nfilt;
		memcpy(c->filt, p->filt, sizeof(c->filt));
		memcpy(c->meta, p->meta, sizeof(c->meta));
	}
	c->nblocks = (uint32_t)((c->nbytes + c->blocksize - 1) / c->blocksize);
	const struct tsr_blosc_blocks *sel = &p->blocks;
	if (!p->fill_len && sel->naxes > 0 && sel->naxes <= TSR_CUDA_BF_SEL) {
		/* a section's chunk: only the blocks whose streams were decoded */
		c->nsel = (uint8_t)sel->naxes;
		c->with0 = sel->with0 != 0;
		c->sel_base = sel->base;
		for (int d = 0; d < sel->naxes; d++) {
			c->sel_n[d] = (uint32_t)sel->n[d];
			c->sel_stride[d] = (uint32_t)sel->stride[d];
		}
		c->nblocks = (uint32_t)sel->count + c->with0;
	}
	return 1;
}

/* Bytes of block `block` of the chunk. */
TSR_BF_HD uint64_t tsr_bf_block_n(const struct tsr_cuda_bfilter *c, uint64_t block)
{
	uint64_t at = block * c->blocksize;
	return c->nbytes - at < c->blocksize ? c->nbytes - at : c->blocksize;
}

/* BYTEDELTA: its streams (meta, else typesize) and sums a stream (the legacy filter 34 sums its
 * whole 16-byte groups, then its tail from 0 again). */
TSR_BF_HD unsigned tsr_bf_bd_streams(const struct tsr_cuda_bfilter *c, int k)
{
	unsigned ns = c->meta[k] ? c->meta[k] : c->typesize;
	return ns ? ns : 1;
}

TSR_BF_HD unsigned tsr_bf_bd_ranges(const struct tsr_cuda_bfilter *c, int k)
{
	return c->filt[k] == TSR_BLOSC_BYTEDELTA_V1 ? 2 : 1;
}

/* Steps filter k takes in pass 0 (DELTA: counted apart). */
TSR_BF_HD unsigned tsr_bf_filter_steps(const struct tsr_cuda_bfilter *c, int k)
{
	switch (c->filt[k]) {
	case TSR_BLOSC_BYTEDELTA:
	case TSR_BLOSC_BYTEDELTA_V1:
		return 3 * tsr_bf_bd_streams(c, k) * tsr_bf_bd_ranges(c, k);
	default:
		return 1;
	}
}

/* The filters before a final DELTA (pass 0 ping-pongs through them). */
TSR_BF_HD int tsr_bf_nping(const struct tsr_cuda_bfilter *c)
{
	return c->nfilt - tsr_bf_has_delta(c);
}

/* Whether the chunk's final bytes are in the staging buffer (an odd number of filters, no
 * DELTA after them), not the decode buffer. */
TSR_BF_HD int tsr_bf_in_stage(const struct tsr_cuda_bfilter *c)
{
	return !c->plen && !tsr_bf_has_delta(c) && (tsr_bf_nping(c) & 1);
}

/* The steps of block `block` in pass `pass`. */
TSR_BF_HD unsigned tsr_bf_nsteps(const struct tsr_cuda_bfilter *c, uint64_t block, int pass)
{
	if (c->plen)
		return pass == 0;
	if (pass == 1)
		return tsr_bf_has_delta(c) && block > 0;
	unsigned s = 0;
	int np = tsr_bf_nping(c);
	for (int k = 0; k < np; k++)
		s += tsr_bf_filter_steps(c, k);
	s += (np & 1) && tsr_bf_has_delta(c); /* the copy back */
	if (tsr_bf_has_delta(c) && block == 0)
		s += 3;
	return s;
}

/* A DELTA unit: typesize when 1, 2, 4 or 8; else 8 when it divides typesize; else 1. */
TSR_BF_HD unsigned tsr_bf_delta_unit(unsigned typesize)
{
	if (typesize == 1 || typesize == 2 || typesize == 4 || typesize == 8)
		return typesize;
	return typesize % 8 == 0 ? 8 : 1;
}

TSR_BF_D uint64_t tsr_bf_load(const uint8_t *p, unsigned u)
{
	uint64_t x = 0;
	for (unsigned j = 0; j < u; j++)
		x |= (uint64_t)p[j] << (8 * j);
	return x;
}

TSR_BF_D void tsr_bf_store(uint8_t *p, uint64_t x, unsigned u)
{
	for (unsigned j = 0; j < u; j++)
		p[j] = (uint8_t)(x >> (8 * j));
}

/* Thread t's share [lo, hi) of m items. */
TSR_BF_D void tsr_bf_share(uint64_t m, unsigned t, unsigned nt, uint64_t *lo, uint64_t *hi)
{
	uint64_t seg = (m + nt - 1) / nt;
	*lo = seg * t < m ? seg * t : m;
	*hi = *lo + seg < m ? *lo + seg : m;
}

/*
 * One phase of a scan over m units of u bytes from src into dst (dst may be src): op 0 sums
 * bytes mod 256 (u = 1), op 1 XORs units. Phase 0: agg[t] = thread t's units combined; phase
 * 1 (thread 0): agg made its exclusive prefix; phase 2: each unit becomes the running result.
 */
TSR_BF_D void tsr_bf_scan(int phase, int op, unsigned u, uint8_t *dst, const uint8_t *src,
			  uint64_t m, unsigned t, unsigned nt, uint64_t *agg)
{
	if (phase == 1) {
		if (t != 0)
			return;
		uint64_t acc = 0;
		for (unsigned i = 0; i < nt; i++) {
			uint64_t v = agg[i];
			agg[i] = acc;
			acc = op ? acc ^ v : (acc + v) & 0xff;
		}
		return;
	}
	uint64_t lo, hi;
	tsr_bf_share(m, t, nt, &lo, &hi);
	uint64_t acc = phase == 0 ? 0 : agg[t];
	if (op == 0) {
		uint8_t s = (uint8_t)acc;
		for (uint64_t k = lo; k < hi; k++) {
			s = (uint8_t)(s + src[k]);
			if (phase == 2)
				dst[k] = s;
		}
		acc = s;
	} else {
		for (uint64_t k = lo; k < hi; k++) {
			acc ^= tsr_bf_load(src + k * u, u);
			if (phase == 2)
				tsr_bf_store(dst + k * u, acc, u);
		}
	}
	if (phase == 0)
		agg[t] = acc;
}

/* Copies bytes [lo, n) of src to dst, thread t's stride. */
TSR_BF_D void tsr_bf_tail(uint8_t *dst, const uint8_t *src, uint64_t lo, uint64_t n, unsigned t,
			  unsigned nt)
{
	for (uint64_t i = lo + t; i < n; i += nt)
		dst[i] = src[i];
}

/* Byte unshuffle by m: dst[i * m + j] = src[j * nel + i]; the tail is copied. */
TSR_BF_D void tsr_bf_unshuffle(uint8_t *dst, const uint8_t *src, uint64_t n, unsigned m,
			       unsigned t, unsigned nt)
{
	/* (32-bit indices: a block is under 2 GiB, and 64-bit divisions are slow on a GPU) */
	uint32_t nel = m > 1 ? (uint32_t)n / m : 0;
	for (uint32_t i = t; i < nel; i += nt)
		for (uint32_t j = 0; j < m; j++)
			dst[i * m + j] = src[j * nel + i];
	tsr_bf_tail(dst, src, nel * m, n, t, nt);
}

/* Transposes an 8x8 bit matrix held as 8 bytes: bit c of byte r goes to bit r of byte c. */
TSR_BF_D uint64_t tsr_bf_transpose8(uint64_t x)
{
	uint64_t y;
	y = (x ^ (x >> 7)) & 0x00AA00AA00AA00AAULL;
	x ^= y ^ (y << 7);
	y = (x ^ (x >> 14)) & 0x0000CCCC0000CCCCULL;
	x ^= y ^ (y << 14);
	y = (x ^ (x >> 28)) & 0x00000000F0F0F0F0ULL;
	x ^= y ^ (y << 28);
	return x;
}

/* Stores v little-endian at p (8-byte aligned on the GPU). */
TSR_BF_D void tsr_bf_store64(uint8_t *p, uint64_t v)
{
#if defined(TSR_BF_EMU) || !defined(__CUDACC__)
	memcpy(p, &v, 8); /* (the GPU's stores are little-endian; so is every host CI runs on) */
#else
	*(uint64_t *)p = v;
#endif
}

/*
 * Thread t's 8-element groups k of a bit unshuffle with typesize ts of 1, 2, 4 or 8 (a constant
 * where it is called, so the loops unroll and x stays in registers): group k's 8 x ts output
 * bytes are ts words, each written by one 8-byte store. Transposing one byte position of a group
 * per thread, as the general loop does, writes single bytes 8 x ts apart: every store of a warp
 * touches 32 sectors for 32 bytes (the bitshuffled 256 MiB python-blosc2 arrays' filter pass
 * took 1.3 ms a slot on the H200, ncu). A warp's loads stay 32 consecutive bytes of a row.
 */
TSR_BF_D void tsr_bf_bitun_words(uint8_t *dst, const uint8_t *src, uint32_t row, unsigned ts,
				 unsigned t, unsigned nt)
{
	for (uint32_t k = t; k < row; k += nt) {
		uint64_t x[8];
		for (unsigned j = 0; j < ts; j++) {
			const uint8_t *r = src + j * 8 * row + k;
			uint64_t v = 0;
			for (unsigned b = 0; b < 8; b++)
				v |= (uint64_t)r[b * row] << (8 * b);
			x[j] = tsr_bf_transpose8(v); /* byte m: element m's byte j */
		}
		uint8_t *d = dst + 8 * k * ts;
		for (unsigned w = 0; w < ts; w++) {
			uint64_t word = 0;
			for (unsigned e = 0; e < 8; e++) {
				unsigned q = 8 * w + e; /* the group's byte q: element q / ts, byte q % ts */
				word |= ((x[q % ts] >> (8 * (q / ts))) & 0xffu) << (8 * e);
			}
			tsr_bf_store64(d + 8 * w, word);
		}
	}
}

/* Bit unshuffle of the block's n8 elements (8 x typesize rows of n8 / 8 bytes, row 8j + b
 * holding bit b of byte j of each element); the rest is copied. Blosc1 (version <= 2)
 * transposes only blocks of a whole number of 8-element groups. */
TSR_BF_D void tsr_bf_bitunshuffle(uint8_t *dst, const uint8_t *src, uint64_t n, unsigned ts,
				  unsigned version, unsigned t, unsigned nt)
{
	uint32_t nel = (uint32_t)n / ts, n8 = version <= 2 ? (nel % 8 == 0 ? nel : 0) : nel - nel % 8;
	uint32_t row = n8 / 8, items = row * ts;
	if (((uintptr_t)dst & 7u) == 0 && (ts == 1 || ts == 2 || ts == 4 || ts == 8)) {
		switch (ts) {
		case 1: tsr_bf_bitun_words(dst, src, row, 1, t, nt); break;
		case 2: tsr_bf_bitun_words(dst, src, row, 2, t, nt); break;
		case 4: tsr_bf_bitun_words(dst, src, row, 4, t, nt); break;
		default: tsr_bf_bitun_words(dst, src, row, 8, t, nt); break;
		}
		items = 0;
	}
	for (uint32_t o = t; o < items; o += nt) {
		uint32_t j = o / row, k = o % row;
		const uint8_t *s = src + j * 8 * row + k;
		uint64_t x = 0;
		for (unsigned b = 0; b < 8; b++)
			x |= (uint64_t)s[b * row] << (8 * b);
		x = tsr_bf_transpose8(x);
		uint8_t *d = dst + 8 * k * ts + j;
		for (unsigned m = 0; m < 8; m++)
			d[m * ts] = (uint8_t)(x >> (8 * m));
	}
	tsr_bf_tail(dst, src, n8 * ts, n, t, nt);
}

/* Step s of block v in pass `pass`: thread t of nt's share. agg: nt words the block's threads
 * share. */
TSR_BF_D void tsr_bf_step(const struct tsr_cuda_bfilter *c, const struct tsr_bf_view *v,
			  int pass, unsigned s, unsigned t, unsigned nt, uint64_t *agg)
{
	uint64_t n = v->n;
	if (c->plen) {
		for (uint32_t i = t; i < n; i += nt)
			v->a[i] = v->pat[((uint32_t)v->at + i) % c->plen];
		return;
	}
	unsigned du = tsr_bf_delta_unit(c->typesize);
	if (pass == 1) {
		uint64_t whole = n / du * du; /* (block 0 is at least as long) */
		for (uint64_t i = t; i < whole; i += nt)
			v->a[i] ^= v->a0[i];
		return;
	}
	int np = tsr_bf_nping(c);
	for (int k = 0; k < np; k++) {
		unsigned ks = tsr_bf_filter_steps(c, k);
		if (s >= ks) {
			s -= ks;
			continue;
		}
		const uint8_t *src = k & 1 ? v->b : v->a;
		uint8_t *dst = k & 1 ? v->a : v->b;
		switch (c->filt[k]) {
		case TSR_BLOSC_SHUFFLE:
			tsr_bf_unshuffle(dst, src, n, c->meta[k] ? c->meta[k] : c->typesize, t, nt);
			return;
		case TSR_BLOSC_BITSHUFFLE:
			tsr_bf_bitunshuffle(dst, src, n, c->typesize, c->version, t, nt);
			return;
		default: { /* BYTEDELTA, BYTEDELTA_V1 */
			unsigned ns = tsr_bf_bd_streams(c, k), nr = tsr_bf_bd_ranges(c, k);
			unsigned stream = s / (3 * nr), r = s / 3 % nr, phase = s % 3;
			uint64_t len = n / ns, carried = nr == 2 ? len / 16 * 16 : len;
			uint64_t lo = r == 0 ? 0 : carried, hi = r == 0 ? carried : len;
			if (s == 0)
				tsr_bf_tail(dst, src, len * ns, n, t, nt);
			tsr_bf_scan((int)phase, 0, 1, dst + stream * len + lo, src + stream * len + lo,
				    hi - lo, t, nt, agg);
			return;
		}
		}
	}
	if ((np & 1) && tsr_bf_has_delta(c)) {
		if (s == 0) {
			tsr_bf_tail(v->a, v->b, 0, n, t, nt);
			return;
		}
		s--;
	}
	/* DELTA of block 0: a prefix XOR of whole units, in place */
	tsr_bf_scan((int)s, 1, du, v->a, v->a, n / du, t, nt, agg);
}

#endif /* TSR_BFILTER_CORE_H */
