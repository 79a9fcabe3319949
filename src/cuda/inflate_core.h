/* inflate_core.h - DEFLATE/zlib/gzip decoding of one stream by one warp; also builds as C for the CPU. */
#ifndef TSR_INFLATE_CORE_H
#define TSR_INFLATE_CORE_H

/*
 * Design (facts from cuDF's gpuinflate and nvCOMP's open LZ4 kernels; the code is our own):
 * - One warp per stream. All 32 lanes run the same Huffman decode on identical state, so every
 *   branch is warp-uniform and nothing needs broadcasting; the lanes share the work that is
 *   parallel: table building, match and stored-block copies, literal write-out, checksums and
 *   header scans.
 * - Input: the warp loads 32 words (128 bytes) at a time into a shared-memory window, one word a
 *   lane, and the bit buffer takes its words from there (in shared memory rather than lane
 *   registers, the window costs the symbol loop no registers and no copies).
 * - Tables in shared memory: a 10-bit root table for literals/lengths and an 8-bit one for
 *   distances. An entry holds the code length, the extra-bit count and the literal or base
 *   value, so a literal costs one lookup, and so does a length whose extra bits fit in the
 *   root index (most do): its entries hold the final length. Longer codes (rare) decode
 *   canonically from per-length counts and the symbols sorted by code.
 * - Output is deferred: the decoder queues up to 32 symbols (matches, and runs of literals whose
 *   bytes lane 0 stages in shared memory), then the warp executes the queue at once. Entries
 *   whose source lies wholly before the batch (most: DEFLATE distances are long) go one per lane
 *   in parallel, so the whole batch waits for memory once; the rest follow in order, each
 *   copied by all lanes. Built for the CPU, the parallel phase runs backwards, so an entry
 *   wrongly taken as independent reads stale bytes and the tests see it.
 * - Safety: input words outside [in, in + n) read as zero and are never loaded; more than 64 bits
 *   read past the end stops output (lim = 0), so corrupt input cannot loop long; every write is
 *   checked against the capacity.
 * Built with TSR_INFLATE_EMU, the same code runs on the CPU as a "warp" of one lane, so CI (which
 * has no GPU) tests the decoding logic itself against libdeflate.
 */

#include <stddef.h>
#include <stdint.h>
#ifdef TSR_INFLATE_EMU
#include <string.h>
#endif

#include "tsr_cuda.h"
#include "warp.h"

#ifdef TSR_INFLATE_EMU
#define TSR_D static inline
#define TSR_COLD static
#define TSR_LANE 0u
#define TSR_NLANES 1u
#define TSR_SYNCWARP() ((void)0)
#define TSR_CTABLE static const      /* read with warp-uniform indexes */
#define TSR_GTABLE static const      /* read with per-lane indexes */
#else
#define TSR_D static __device__ __forceinline__
#define TSR_COLD static __device__ __noinline__ /* out of line: keeps the kernel small */
#define TSR_LANE (threadIdx.x & 31u)
#define TSR_NLANES 32u
#define TSR_SYNCWARP() __syncwarp()
#define TSR_CTABLE static __constant__
#define TSR_GTABLE static __device__ const
#endif

#define TSR_LL_BITS 10u
#define TSR_D_BITS 8u
#define TSR_PRE_BITS 7u
#define TSR_STAGE 128u   /* staged literal bytes per batch */
#define TSR_QUEUE 32u    /* queued symbols per batch */

/*
 * The symbol loop (tsr_huff_block) is where the time goes; four choices keep it short:
 * - A length code whose extra bits fit in the root table's 10 bits is stored with them, one
 *   entry per extra-bit value, as its final length and code + extra-bit count (tsr_bake), so
 *   the length path extracts nothing; the rest (TSR_K_LENX) take a branch off the hot path.
 * - A distance entry holds 32 minus its code + extra-bit count in bits 0-4 and the extra-bit
 *   count in bits 11-15, so that funnel shifts (which use only a shift's low 5 bits) take the
 *   extra bits and consume both straight from the entry, unmasked; 0 in bits 0-4 marks a code
 *   longer than the table.
 * - A match's distance and output checks share one branch (which failed is worked out after
 *   it), and a queue entry is one 64-bit word, stored and loaded at once.
 * - The input window's reload (once every 32 refills) is a call, out of line (tsr_reload), so
 *   that the refill in the loop is a few instructions and the loop keeps its bit buffer in the
 *   same registers (inlined, the reload made the compiler copy it at every symbol).
 * Together they cut a match's warp instructions in the loop from 93 to 67 and a literal's
 * from 32 to 29 (sm_90 SASS, nvcc 13.0), and took the H200 from 46.3 to 54.5 GB/s on
 * gpu_inflate_bench's 10000 x 64 KiB float streams. Alone they gained 3.4, 0.6, 2.4 and 0.4
 * GB/s, 6.8 in all: the small ones pay only with the others, so all four stay.
 */

/* Table entry: bits 0-3 code length, 4-7 extra bits, 8-10 kind, 16-31 literal or base value.
 * Distance entries have the layout above instead, and a TSR_K_LEN entry has no extra bits
 * left: any are folded in, as the final length and the code + extra-bit count in bits 0-3. */
enum { TSR_K_LIT = 0, TSR_K_LEN = 1, TSR_K_EOB = 2, TSR_K_LONG = 3, TSR_K_BAD = 4, TSR_K_LENX = 5 };
#define TSR_KIND(e) (((e) >> 8) & 7u)
enum { TSR_CODE_PRE = 0, TSR_CODE_LL = 1, TSR_CODE_D = 2 };

struct tsr_code_meta {
	uint16_t count[16];     /* codes of each length */
	uint16_t first[16];     /* first canonical code of each length */
	uint16_t offs[16];      /* index in sorted[] of each length's first symbol */
	uint16_t next[16];      /* fill cursor while sorting */
	uint32_t end[16];       /* end of each length's codes in the root table's code space */
};

/* Decoder state the symbol loop never touches (in shared memory, to spare registers). */
struct tsr_cold {
	uintptr_t lo, hi;       /* the stream's bytes [lo, hi) */
	uint8_t *out;
	size_t qbase;           /* output position where the queued batch starts */
	size_t lim;             /* capacity; 0 once reading ran far past the input */
	size_t wstart;          /* start of the gzip member: distances may not reach before it */
};

/* One warp's shared memory: 6.9 KiB, so 32 warps (8 blocks of 4, with the 1 KiB the driver
 * keeps a block) just fit an SM's 228 KiB. */
struct tsr_inflate_smem {
	uint32_t ll[1u << TSR_LL_BITS];
	uint32_t dt[1u << TSR_D_BITS];  /* also the precode table */
	struct tsr_code_meta llm, dm;   /* dm also serves the precode */
	uint16_t llsorted[288];
	uint16_t dsorted[32];           /* also the precode's */
	uint8_t lllens[288];
	uint8_t dlens[32];              /* also the precode's lengths */
	/* queue: offset in batch | length << 16 | literal << 31, and in the high word the
	 * distance or the first staged literal */
	uint64_t q[TSR_QUEUE];
	uint8_t stage[TSR_STAGE];       /* literal bytes of the batch */
	struct tsr_cold cold;
	uint32_t win[32];               /* input words wbase .. wbase + 31 */
};

/*
 * One stream's decoder state in registers; identical in every lane except the input window.
 * What the symbol loop touches is 32-bit where it can be (positions relative to the queued
 * batch) and the rest lives in shared memory (tsr_cold), so that the loop needs no spills at 64
 * registers a thread.
 */
struct tsr_inf {
	uint64_t buf;           /* the next cnt input bits, first bit lowest */
	uint32_t cnt;
	unsigned rel;           /* next word to enter buf: wbase + rel (rel < 32) */
	size_t wbase;           /* words count from lo rounded down to 4 bytes */
	unsigned qoff;          /* bytes decoded past qbase (queued, not yet written) */
	unsigned qlim;          /* qoff may reach: min(lim - qbase, 2^31) */
	unsigned hist;          /* how far back a distance may reach from qbase: min(qbase - wstart, 2^16) */
	unsigned qn;            /* queued entries */
	unsigned nlit;          /* staged literal bytes */
	unsigned lmark;         /* nlit when the last entry was queued: later literals form a run */
	struct tsr_cold *c;     /* the rest, in shared memory */
	uint32_t *win;          /* the input window, in shared memory */
};

/* Cold state is written by lane 0 and read by all: sync after writing. */
/* Lane 0 writes a shared field every lane may just have read (tsr_new_batch reads qbase, then
 * sets it): the warp syncs before the write as well as after (racecheck found the WAR). */
#define TSR_SET_COLD(s, field, v)                                                                \
	do {                                                                                     \
		TSR_SYNCWARP();                                                                  \
		if (TSR_LANE == 0)                                                               \
			(s)->c->field = (v);                                                     \
		TSR_SYNCWARP();                                                                  \
	} while (0)

/* ---- lane primitives (one lane on the CPU) ---- */

TSR_D uint32_t tsr_brev(uint32_t x)
{
#ifdef TSR_INFLATE_EMU
	x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
	x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
	x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
	x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
	return (x >> 16) | (x << 16);
#else
	return __brev(x);
#endif
}

TSR_D unsigned tsr_popc(uint32_t x)
{
#ifdef TSR_INFLATE_EMU
	return (unsigned)__builtin_popcount(x);
#else
	return (unsigned)__popc(x);
#endif
}

TSR_D uint32_t tsr_ballot(int p)
{
#ifdef TSR_INFLATE_EMU
	return p != 0;
#else
	return __ballot_sync(0xffffffffu, p);
#endif
}

/* Lanes whose v equals this lane's. */
TSR_D uint32_t tsr_match_any(unsigned v)
{
#ifdef TSR_INFLATE_EMU
	(void)v;
	return 1u;
#else
	return __match_any_sync(0xffffffffu, v);
#endif
}

TSR_D uint32_t tsr_lanemask_lt(void)
{
	return (1u << TSR_LANE) - 1u;
}

/* The high word of hi:lo << (k mod 32): k's bits above the 5th are ignored, as __funnelshift_l
 * does. */
TSR_D uint32_t tsr_fsl(uint32_t lo, uint32_t hi, uint32_t k)
{
#ifdef TSR_INFLATE_EMU
	return (uint32_t)((((uint64_t)hi << 32 | lo) << (k & 31)) >> 32);
#else
	return __funnelshift_l(lo, hi, k);
#endif
}

TSR_D unsigned tsr_lowest(uint32_t x)
{
#ifdef TSR_INFLATE_EMU
	return (unsigned)__builtin_ctz(x);
#else
	return (unsigned)__ffs(x) - 1u;
#endif
}

/* Input bytes never change during a launch: the read-only path may cache them. */
TSR_D unsigned tsr_in8(const uint8_t *p)
{
#ifdef TSR_INFLATE_EMU
	return *p;
#else
	return __ldg(p);
#endif
}

TSR_D uint32_t tsr_in32(uintptr_t a)
{
#ifdef TSR_INFLATE_EMU
	uint32_t w;
	memcpy(&w, (const void *)a, 4);
	return w;
#else
	return __ldg((const unsigned int *)a);
#endif
}

/* ---- bit reader ---- */

TSR_D uintptr_t tsr_abase(const struct tsr_inf *s)
{
	return s->c->lo & ~(uintptr_t)3;
}

/* Word k (little-endian) of the stream; bytes outside it read as zero and are not touched. */
TSR_D uint32_t tsr_word(const struct tsr_inf *s, size_t k)
{
	uintptr_t lo = s->c->lo, hi = s->c->hi, a = (lo & ~(uintptr_t)3) + 4 * k;
	if (a >= hi)
		return 0;
	if (a >= lo && a + 4 <= hi)
		return tsr_in32(a);
	uint32_t w = 0;
	for (unsigned j = 0; j < 4; j++)
		if (a + j >= lo && a + j < hi)
			w |= (uint32_t)tsr_in8((const uint8_t *)(a + j)) << (8 * j);
	return w;
}

/* Loads the window (words wbase .. wbase + 31), one word a lane. */
TSR_D void tsr_load_window(struct tsr_inf *s)
{
	TSR_SYNCWARP(); /* every lane has read the old window */
	for (unsigned k = TSR_LANE; k < 32; k += TSR_NLANES)
		s->win[k] = tsr_word(s, s->wbase + k);
	TSR_SYNCWARP();
	s->rel = 0;
}

/*
 * Loads the window of words wbase .. wbase + 31 for tsr_refill; out of line, and given only
 * what it needs, so that the symbol loop keeps its bit buffer in the same registers. Returns 1
 * (and sets the capacity to 0) once reading has run three words past the input: every input
 * bit and 32 more consumed, so output stops.
 */
TSR_COLD int tsr_reload(uint32_t *win, struct tsr_cold *c, size_t wbase)
{
	struct tsr_inf t;
	t.c = c;
	t.win = win;
	t.wbase = wbase;
	tsr_load_window(&t);
	if (tsr_abase(&t) + 4 * wbase >= c->hi + 12) {
		TSR_SET_COLD(&t, lim, 0);
		return 1;
	}
	return 0;
}

/* Makes cnt > 32, so any one Huffman code with its extra bits (at most 28) is there. */
TSR_D void tsr_refill(struct tsr_inf *s)
{
	if (s->cnt > 32)
		return;
	uint32_t v = s->win[s->rel];
	s->buf |= (uint64_t)v << s->cnt;
	s->cnt += 32;
	if (++s->rel == 32) {
		s->wbase += 32;
		s->rel = 0;
		if (tsr_reload(s->win, s->c, s->wbase))
			s->qlim = 0;
	}
}

TSR_D void tsr_drop(struct tsr_inf *s, unsigned k)
{
	s->buf >>= k;
	s->cnt -= k;
}

/* The next k <= 16 bits; the caller has refilled. */
TSR_D unsigned tsr_bits(struct tsr_inf *s, unsigned k)
{
	unsigned v = (unsigned)s->buf & ((1u << k) - 1u);
	tsr_drop(s, k);
	return v;
}

/* Bits consumed, counted from word 0. */
TSR_D size_t tsr_consumed(const struct tsr_inf *s)
{
	return (s->wbase + s->rel) * 32 - s->cnt;
}

TSR_D size_t tsr_limit_bits(const struct tsr_inf *s)
{
	return (s->c->hi - tsr_abase(s)) * 8;
}

/* Offset in the stream of the first whole byte not consumed. */
TSR_D size_t tsr_byte_offset(const struct tsr_inf *s)
{
	return (tsr_consumed(s) + 7) / 8 - (s->c->lo - tsr_abase(s));
}

/* Restarts reading at byte off (<= stream size) of the stream. */
TSR_D void tsr_seek(struct tsr_inf *s, size_t off)
{
	size_t b = (size_t)(s->c->lo - tsr_abase(s)) + off;
	s->wbase = b >> 2;
	tsr_load_window(s);
	s->buf = 0;
	s->cnt = 0;
	tsr_refill(s);
	tsr_refill(s);
	tsr_drop(s, (unsigned)(b & 3) * 8);
}

/* ---- Huffman tables ---- */

/* The table entry of symbol sym with an L-bit code. */
TSR_D uint32_t tsr_entry(unsigned kind, unsigned sym, unsigned L)
{
	unsigned ex, base;
	if (kind == TSR_CODE_PRE)
		return (sym << 16) | L;
	if (kind == TSR_CODE_LL) {
		if (sym < 256)
			return (sym << 16) | L;
		if (sym == 256)
			return ((uint32_t)TSR_K_EOB << 8) | L;
		/* lengths 3..10 have no extra bits; then 4 codes per extra-bit count; 285 is 258.
		 * Symbols 286 and 287 never occur in valid data: as libdeflate, read them as 258, so
		 * that we accept and reject exactly what libdeflate does. */
		unsigned i = sym - 257;
		if (i < 8) {
			ex = 0;
			base = i + 3;
		} else if (i >= 28) {
			ex = 0;
			base = 258;
		} else {
			ex = (i - 4) >> 2;
			base = ((4 + (i & 3)) << ex) + 3;
		}
	} else {
		/* distances 1..4 have no extra bits; then 2 codes per extra-bit count. Symbols 30
		 * and 31 (invalid) read as 29, as libdeflate reads them. */
		if (sym < 4) {
			ex = 0;
			base = sym + 1;
		} else if (sym >= 29) {
			ex = 13;
			base = 24577;
		} else {
			ex = (sym - 2) >> 1;
			base = ((2 + (sym & 1)) << ex) + 1;
		}
	}
	if (kind == TSR_CODE_LL && ex) /* tsr_bake makes it TSR_K_LEN where the extra bits fit */
		return (base << 16) | ((uint32_t)TSR_K_LENX << 8) | (ex << 4) | L;
	if (kind == TSR_CODE_D)
		return (base << 16) | (ex << 11) | ((uint32_t)TSR_K_LEN << 8) | (32 - L - ex);
	return (base << 16) | ((uint32_t)TSR_K_LEN << 8) | (ex << 4) | L;
}

/* The root table entry at index k for entry e: a length code whose extra bits are in the index
 * too (the bits after the code's L) becomes that one length. */
TSR_D uint32_t tsr_bake(uint32_t e, unsigned k, unsigned R)
{
	unsigned L = e & 15, ex = (e >> 4) & 15;
	if (TSR_KIND(e) == TSR_K_LENX && L + ex <= R)
		return (((e >> 16) + ((k >> L) & ((1u << ex) - 1u))) << 16) |
		       ((uint32_t)TSR_K_LEN << 8) | (L + ex);
	return e;
}

/*
 * Builds the R-bit root table tab of the canonical code with lengths lens[0..nsym), and the
 * per-length data the slow path needs. Over-subscribed codes fail; incomplete ones fail too,
 * except (as in libdeflate) an empty code or a single code of length 1, whose every bit
 * pattern then decodes to that symbol. Warp-uniform result.
 */
TSR_COLD int tsr_build(uint32_t *tab, unsigned R, const uint8_t *lens, unsigned nsym,
		       uint16_t *sorted, struct tsr_code_meta *cm, unsigned kind)
{
	const unsigned lane = TSR_LANE;
	unsigned b, k;

	TSR_SYNCWARP();
	for (k = lane; k < 16; k += TSR_NLANES)
		cm->count[k] = 0;
	TSR_SYNCWARP();
	for (b = 0; b < nsym; b += TSR_NLANES) {
		unsigned sym = b + lane, L = sym < nsym ? lens[sym] : 0;
		uint32_t g = tsr_match_any(L);
		if (L && (g & tsr_lanemask_lt()) == 0)
			cm->count[L] += (uint16_t)tsr_popc(g);
		TSR_SYNCWARP();
	}

	int left = 1;
	unsigned code = 0, off = 0;
	for (unsigned L = 1; L < 16; L++) {
		unsigned c = cm->count[L];
		left = 2 * left - (int)c;
		if (left < 0)
			return TSR_CUDA_INFLATE_E_CODE_LENGTHS;
		if (lane == 0) {
			cm->first[L] = (uint16_t)code;
			cm->offs[L] = (uint16_t)off;
			cm->next[L] = (uint16_t)off;
			cm->end[L] = L <= R ? (code + c) << (R - L) : 0;
		}
		code = (code + c) << 1;
		off += c;
	}
	TSR_SYNCWARP();

	/* symbols in code order: rank within a 32-symbol group by match, groups in order */
	for (b = 0; b < nsym; b += TSR_NLANES) {
		unsigned sym = b + lane, L = sym < nsym ? lens[sym] : 0;
		uint32_t g = tsr_match_any(L);
		unsigned rank = tsr_popc(g & tsr_lanemask_lt());
		if (L)
			sorted[cm->next[L] + rank] = (uint16_t)sym;
		TSR_SYNCWARP();
		if (L && rank == 0)
			cm->next[L] += (uint16_t)tsr_popc(g);
		TSR_SYNCWARP();
	}

	if (left > 0) {
		if (off > 1 || (off == 1 && cm->count[1] != 1))
			return TSR_CUDA_INFLATE_E_CODE_LENGTHS;
		uint32_t e = tsr_entry(kind, off ? sorted[0] : 0, 1);
		for (k = lane; k < (1u << R); k += TSR_NLANES)
			tab[k] = tsr_bake(e, k, R);
		TSR_SYNCWARP();
		return TSR_CUDA_INFLATE_OK;
	}

	/* entry-parallel fill: entry e's R bits, reversed, are a left-aligned code prefix */
	for (k = lane; k < (1u << R); k += TSR_NLANES) {
		unsigned r = tsr_brev(k) >> (32 - R), L = 1;
		while (L <= R && r >= cm->end[L])
			L++;
		uint32_t e = (uint32_t)TSR_K_LONG << 8;
		if (L <= R)
			e = tsr_entry(kind, sorted[cm->offs[L] + (r >> (R - L)) - cm->first[L]], L);
		tab[k] = tsr_bake(e, k, R);
	}
	TSR_SYNCWARP();
	return TSR_CUDA_INFLATE_OK;
}

/* Decodes a code longer than the root table's R bits canonically. */
TSR_D uint32_t tsr_slow(const struct tsr_code_meta *cm, const uint16_t *sorted, unsigned R,
			uint64_t buf, unsigned kind)
{
	unsigned rev = tsr_brev((uint32_t)buf) >> 17; /* next 15 bits, first bit highest */
	for (unsigned L = R + 1; L < 16; L++) {
		unsigned j = (rev >> (15 - L)) - cm->first[L];
		if (j < cm->count[L])
			return tsr_entry(kind, sorted[cm->offs[L] + j], L);
	}
	return (uint32_t)TSR_K_BAD << 8;
}

TSR_D int tsr_fixed_tables(struct tsr_inflate_smem *m)
{
	unsigned k;
	for (k = TSR_LANE; k < 288; k += TSR_NLANES)
		m->lllens[k] = k < 144 ? 8 : k < 256 ? 9 : k < 280 ? 7 : 8;
	for (k = TSR_LANE; k < 32; k += TSR_NLANES)
		m->dlens[k] = 5;
	int st = tsr_build(m->ll, TSR_LL_BITS, m->lllens, 288, m->llsorted, &m->llm, TSR_CODE_LL);
	if (st)
		return st;
	return tsr_build(m->dt, TSR_D_BITS, m->dlens, 32, m->dsorted, &m->dm, TSR_CODE_D);
}

TSR_CTABLE uint8_t tsr_pre_order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2,
					14, 1, 15};

TSR_D int tsr_dynamic_tables(struct tsr_inf *s, struct tsr_inflate_smem *m)
{
	const unsigned lane = TSR_LANE;
	unsigned k, i;

	tsr_refill(s);
	unsigned nll = tsr_bits(s, 5) + 257, nd = tsr_bits(s, 5) + 1, npre = tsr_bits(s, 4) + 4;
	uint8_t *plens = m->dlens;
	for (k = lane; k < 19; k += TSR_NLANES)
		plens[k] = 0;
	TSR_SYNCWARP();
	for (i = 0; i < npre; i++) {
		tsr_refill(s);
		unsigned v = tsr_bits(s, 3);
		if (lane == 0)
			plens[tsr_pre_order[i]] = (uint8_t)v;
	}
	int st = tsr_build(m->dt, TSR_PRE_BITS, plens, 19, m->dsorted, &m->dm, TSR_CODE_PRE);
	if (st)
		return st;

	/* the code lengths, run-length coded; a run may cross from lit/len into distance */
	unsigned total = nll + nd, prev = 0;
	i = 0;
	while (i < total) {
		tsr_refill(s);
		uint32_t e = m->dt[s->buf & ((1u << TSR_PRE_BITS) - 1)];
		tsr_drop(s, e & 15);
		unsigned sym = e >> 16, rep = 1, val = sym;
		if (sym == 16) {
			if (i == 0)
				return TSR_CUDA_INFLATE_E_CODE_LENGTHS;
			rep = 3 + tsr_bits(s, 2);
			val = prev;
		} else if (sym == 17) {
			rep = 3 + tsr_bits(s, 3);
			val = 0;
		} else if (sym == 18) {
			rep = 11 + tsr_bits(s, 7);
			val = 0;
		}
		if (rep > total - i)
			return TSR_CUDA_INFLATE_E_CODE_LENGTHS;
		for (k = lane; k < rep; k += TSR_NLANES) {
			unsigned j = i + k;
			if (j < nll)
				m->lllens[j] = (uint8_t)val;
			else
				m->dlens[j - nll] = (uint8_t)val;
		}
		prev = val;
		i += rep;
	}
	for (k = nll + lane; k < 288; k += TSR_NLANES)
		m->lllens[k] = 0;
	for (k = nd + lane; k < 32; k += TSR_NLANES)
		m->dlens[k] = 0;
	TSR_SYNCWARP();
	if (m->lllens[256] == 0) /* no end-of-block code: the block could never end */
		return TSR_CUDA_INFLATE_E_CODE_LENGTHS;
	st = tsr_build(m->ll, TSR_LL_BITS, m->lllens, 288, m->llsorted, &m->llm, TSR_CODE_LL);
	if (st)
		return st;
	return tsr_build(m->dt, TSR_D_BITS, m->dlens, 32, m->dsorted, &m->dm, TSR_CODE_D);
}

/* ---- output ---- */

#define TSR_MATCH_PER_LANE ((258u + TSR_NLANES - 1) / TSR_NLANES)

/*
 * Copies a match. Byte i comes from out[pos - dist + (i mod dist)]: every source byte is
 * already written and lies before every destination byte, so all loads may go first.
 */
TSR_D void tsr_copy_match(uint8_t *out, size_t pos, unsigned dist, unsigned len)
{
	const uint8_t *src = out + pos - dist;
	uint8_t *dst = out + pos;
	const unsigned lane = TSR_LANE;
	if (len <= TSR_NLANES) {
		if (lane < len)
			dst[lane] = src[dist >= len ? lane : lane % dist];
		return;
	}
	uint8_t v[TSR_MATCH_PER_LANE];
	unsigned j = lane % dist, step = TSR_NLANES % dist, t;
#ifndef TSR_INFLATE_EMU
#pragma unroll
#endif
	for (t = 0; t < TSR_MATCH_PER_LANE; t++) {
		if (lane + t * TSR_NLANES < len)
			v[t] = src[j];
		j += step;
		if (j >= dist)
			j -= dist;
	}
#ifndef TSR_INFLATE_EMU
#pragma unroll
#endif
	for (t = 0; t < TSR_MATCH_PER_LANE; t++)
		if (lane + t * TSR_NLANES < len)
			dst[lane + t * TSR_NLANES] = v[t];
}

TSR_D uint32_t tsr_or_all(uint32_t v)
{
#ifdef TSR_INFLATE_EMU
	return v;
#else
	return tsr_warp_or(v);
#endif
}

/*
 * Executes the queued batch of qn entries that starts at output position base. Phase one: each
 * lane takes one entry that depends on nothing else in the batch (a literal run of at most 16
 * bytes, or a match of at most 16 whose source lies wholly before base and does not overlap
 * itself) and copies it alone, all loads before all stores; literal runs and matches share the
 * code (generic loads from shared or global memory, at constant offsets from one address), so
 * the warp does not diverge. Phase two: the other entries in queue order, each by the whole
 * warp.
 */
TSR_D void tsr_run_queue(uint8_t *out, size_t base, unsigned qn, struct tsr_inflate_smem *m)
{
	uint32_t left = 0;
	TSR_SYNCWARP();
	for (unsigned t = TSR_LANE; t < qn; t += TSR_NLANES) {
#ifdef TSR_INFLATE_EMU
		unsigned k = qn - 1 - t;
#else
		unsigned k = t;
#endif
		uint64_t q = m->q[k];
		uint32_t w0 = (uint32_t)q, w1 = (uint32_t)(q >> 32);
		unsigned off = w0 & 0xffffu, len = (w0 >> 16) & 0x1ffu, lit = w0 >> 31, j;
		uint8_t *dst = out + base + off;
		if (len <= 16 && (lit || off + len <= w1)) {
			const uint8_t *src = lit ? m->stage + w1 : dst - w1;
			uint8_t v[16];
#ifndef TSR_INFLATE_EMU
#pragma unroll
#endif
			for (j = 0; j < 16; j++)
				v[j] = j < len ? src[j] : 0;
#ifndef TSR_INFLATE_EMU
#pragma unroll
#endif
			for (j = 0; j < 16; j++)
				if (j < len)
					dst[j] = v[j];
		} else {
			left |= 1u << k;
		}
	}
	left = tsr_or_all(left);
	TSR_SYNCWARP();
	while (left) {
		unsigned k = tsr_lowest(left);
		left &= left - 1;
		uint64_t q = m->q[k];
		uint32_t w0 = (uint32_t)q, w1 = (uint32_t)(q >> 32);
		unsigned off = w0 & 0xffffu, len = (w0 >> 16) & 0x1ffu;
		if (w0 >> 31) {
			for (unsigned i = TSR_LANE; i < len; i += TSR_NLANES)
				out[base + off + i] = m->stage[w1 + i];
		} else {
			tsr_copy_match(out, base + off, w1, len);
		}
		TSR_SYNCWARP();
	}
}

/* The same, out of line: called once a batch, so the symbol loop keeps its registers. */
TSR_COLD void tsr_run_queue_cold(uint8_t *out, size_t base, unsigned qn,
				 struct tsr_inflate_smem *m)
{
	tsr_run_queue(out, base, qn, m);
}

TSR_D void tsr_push(struct tsr_inf *s, struct tsr_inflate_smem *m, uint32_t w0, uint32_t w1)
{
	if (TSR_LANE == 0)
		m->q[s->qn] = w0 | (uint64_t)w1 << 32;
	s->qn++;
}

/* Queues the literals decoded since the last queued entry as one run. */
TSR_D void tsr_push_run(struct tsr_inf *s, struct tsr_inflate_smem *m)
{
	unsigned n = s->nlit - s->lmark;
	if (n) {
		tsr_push(s, m, (s->qoff - n) | n << 16 | 0x80000000u, s->lmark);
		s->lmark = s->nlit;
	}
}

TSR_D size_t tsr_pos(const struct tsr_inf *s)
{
	return s->c->qbase + s->qoff;
}

/* Starts a new, empty batch at the current position. */
TSR_D void tsr_new_batch(struct tsr_inf *s)
{
	size_t qbase = s->c->qbase + s->qoff, lim = s->c->lim, back = qbase - s->c->wstart;
	TSR_SET_COLD(s, qbase, qbase);
	s->qoff = 0;
	s->qn = 0;
	s->nlit = 0;
	s->lmark = 0;
	size_t room = lim > qbase ? lim - qbase : 0;
	s->qlim = room < 0x80000000u ? (unsigned)room : 0x80000000u;
	s->hist = back < 0x10000u ? (unsigned)back : 0x10000u;
}

/* Writes everything queued out; afterwards out[0..pos) is complete and visible to the warp. */
TSR_D void tsr_drain(struct tsr_inf *s, struct tsr_inflate_smem *m)
{
	tsr_push_run(s, m);
	if (s->qn)
		tsr_run_queue_cold(s->c->out, s->c->qbase, s->qn, m);
	tsr_new_batch(s);
}

/* ---- blocks ---- */

/*
 * Decodes one Huffman-coded block's symbols, up to and including end-of-block. Literals and
 * lengths are tested first (the common cases); the queue is drained at one place.
 */
TSR_D int tsr_huff_block(struct tsr_inf *s, struct tsr_inflate_smem *m)
{
	for (;;) {
		tsr_refill(s);
		uint32_t e = m->ll[s->buf & ((1u << TSR_LL_BITS) - 1)];
	dispatch:
		if ((e & 0x700u) == (uint32_t)TSR_K_LIT << 8) {
			if (s->qoff >= s->qlim)
				return TSR_CUDA_INFLATE_E_OVERFLOW;
			tsr_drop(s, e & 15);
			if (TSR_LANE == 0)
				m->stage[s->nlit] = (uint8_t)(e >> 16);
			s->nlit++;
			s->qoff++;
			if (s->nlit < TSR_STAGE)
				continue;
		} else if ((e & 0x700u) == (uint32_t)TSR_K_LEN << 8) {
			unsigned len = e >> 16; /* extra bits included, as ex = 0 */
			tsr_drop(s, e & 15);
			tsr_refill(s);
			uint32_t d = m->dt[s->buf & ((1u << TSR_D_BITS) - 1)];
			if ((d & 31) == 0) {
				d = tsr_slow(&m->dm, m->dsorted, TSR_D_BITS, s->buf, TSR_CODE_D);
				if (TSR_KIND(d) == TSR_K_BAD)
					return TSR_CUDA_INFLATE_E_SYMBOL;
			}
			/* a = 32 - (code + extra bits) in d's low 5 bits: lo << a leaves the extra bits
			 * on top, and hi:lo << a, high words, is the buffer past them */
			uint32_t lo = (uint32_t)s->buf, hi = (uint32_t)(s->buf >> 32);
			unsigned dist = (d >> 16) + tsr_fsl(tsr_fsl(0, lo, d), 0, d >> 11);
			s->buf = (uint64_t)tsr_fsl(hi, 0, d) << 32 | tsr_fsl(lo, hi, d);
			s->cnt -= 32 - (d & 31);
			/* both checks, one branch: which failed is worked out off the hot path */
			if ((dist > s->hist + s->qoff) | (s->qoff + len > s->qlim))
				return dist > s->hist + s->qoff ? TSR_CUDA_INFLATE_E_DISTANCE
								: TSR_CUDA_INFLATE_E_OVERFLOW;
			/* room for this and a literal run: between symbols the queue holds <= QUEUE - 2 */
			tsr_push_run(s, m);
			tsr_push(s, m, s->qoff | len << 16, dist);
			s->qoff += len;
			if (s->qn < TSR_QUEUE - 1)
				continue;
		} else if (TSR_KIND(e) == TSR_K_EOB) {
			tsr_drop(s, e & 15);
			return TSR_CUDA_INFLATE_OK;
		} else if (TSR_KIND(e) == TSR_K_LENX) {
			/* extra bits past the root table (or a long code's): read them here, and go on as
			 * a length with nothing left to read */
			unsigned cl = e & 15, ex = (e >> 4) & 15;
			unsigned len = (e >> 16) + ((unsigned)(s->buf >> cl) & ((1u << ex) - 1u));
			tsr_drop(s, cl + ex);
			e = len << 16 | (uint32_t)TSR_K_LEN << 8;
			goto dispatch;
		} else {
			/* a code longer than the root table: decode it, then handle it as above */
			e = tsr_slow(&m->llm, m->llsorted, TSR_LL_BITS, s->buf, TSR_CODE_LL);
			if (TSR_KIND(e) == TSR_K_BAD)
				return TSR_CUDA_INFLATE_E_SYMBOL;
			goto dispatch;
		}
		/* the stage or the queue is full: the one inlined copy of the queue runner */
		tsr_push_run(s, m);
		tsr_run_queue(s->c->out, s->c->qbase, s->qn, m);
		tsr_new_batch(s);
	}
}

/* Decodes DEFLATE blocks from the reader's position through the final block. */
TSR_D int tsr_deflate(struct tsr_inf *s, struct tsr_inflate_smem *m)
{
	int fixed_ready = 0, st;
	for (;;) {
		tsr_refill(s);
		unsigned final = tsr_bits(s, 1), type = tsr_bits(s, 2);
		if (type == 0) {
			tsr_drop(s, s->cnt & 7); /* to a byte boundary */
			tsr_refill(s);
			unsigned len = tsr_bits(s, 16), nlen = tsr_bits(s, 16);
			if (len != (~nlen & 0xffffu))
				return TSR_CUDA_INFLATE_E_STORED_LEN;
			size_t off = tsr_consumed(s) / 8 - (s->c->lo - tsr_abase(s));
			size_t n = s->c->hi - s->c->lo;
			if (off > n || len > n - off)
				return TSR_CUDA_INFLATE_E_TRUNCATED;
			if (s->qoff + len > s->qlim)
				return TSR_CUDA_INFLATE_E_OVERFLOW;
			tsr_drain(s, m);
			const uint8_t *src = (const uint8_t *)s->c->lo + off;
			uint8_t *dst = s->c->out + s->c->qbase;
			for (unsigned i = TSR_LANE; i < len; i += TSR_NLANES)
				dst[i] = (uint8_t)tsr_in8(src + i);
			TSR_SYNCWARP();
			s->qoff = len;
			tsr_new_batch(s);
			tsr_seek(s, off + len);
		} else if (type <= 2) {
			if (type == 2) {
				fixed_ready = 0;
				st = tsr_dynamic_tables(s, m);
			} else if (!fixed_ready) {
				st = tsr_fixed_tables(m);
				fixed_ready = 1;
			} else {
				st = TSR_CUDA_INFLATE_OK;
			}
			if (st == TSR_CUDA_INFLATE_OK)
				st = tsr_huff_block(s, m);
			if (st)
				return st;
		} else {
			return TSR_CUDA_INFLATE_E_BLOCK_TYPE;
		}
		if (final)
			break;
	}
	tsr_drain(s, m);
	if (tsr_consumed(s) > tsr_limit_bits(s))
		return TSR_CUDA_INFLATE_E_TRUNCATED;
	return TSR_CUDA_INFLATE_OK;
}

/* ---- checksums ---- */

TSR_GTABLE uint32_t tsr_crc_tab[256] = {
	0x00000000, 0x77073096, 0xee0e612c, 0x990951ba, 0x076dc419, 0x706af48f,
	0xe963a535, 0x9e6495a3, 0x0edb8832, 0x79dcb8a4, 0xe0d5e91e, 0x97d2d988,
	0x09b64c2b, 0x7eb17cbd, 0xe7b82d07, 0x90bf1d91, 0x1db71064, 0x6ab020f2,
	0xf3b97148, 0x84be41de, 0x1adad47d, 0x6ddde4eb, 0xf4d4b551, 0x83d385c7,
	0x136c9856, 0x646ba8c0, 0xfd62f97a, 0x8a65c9ec, 0x14015c4f, 0x63066cd9,
	0xfa0f3d63, 0x8d080df5, 0x3b6e20c8, 0x4c69105e, 0xd56041e4, 0xa2677172,
	0x3c03e4d1, 0x4b04d447, 0xd20d85fd, 0xa50ab56b, 0x35b5a8fa, 0x42b2986c,
	0xdbbbc9d6, 0xacbcf940, 0x32d86ce3, 0x45df5c75, 0xdcd60dcf, 0xabd13d59,
	0x26d930ac, 0x51de003a, 0xc8d75180, 0xbfd06116, 0x21b4f4b5, 0x56b3c423,
	0xcfba9599, 0xb8bda50f, 0x2802b89e, 0x5f058808, 0xc60cd9b2, 0xb10be924,
	0x2f6f7c87, 0x58684c11, 0xc1611dab, 0xb6662d3d, 0x76dc4190, 0x01db7106,
	0x98d220bc, 0xefd5102a, 0x71b18589, 0x06b6b51f, 0x9fbfe4a5, 0xe8b8d433,
	0x7807c9a2, 0x0f00f934, 0x9609a88e, 0xe10e9818, 0x7f6a0dbb, 0x086d3d2d,
	0x91646c97, 0xe6635c01, 0x6b6b51f4, 0x1c6c6162, 0x856530d8, 0xf262004e,
	0x6c0695ed, 0x1b01a57b, 0x8208f4c1, 0xf50fc457, 0x65b0d9c6, 0x12b7e950,
	0x8bbeb8ea, 0xfcb9887c, 0x62dd1ddf, 0x15da2d49, 0x8cd37cf3, 0xfbd44c65,
	0x4db26158, 0x3ab551ce, 0xa3bc0074, 0xd4bb30e2, 0x4adfa541, 0x3dd895d7,
	0xa4d1c46d, 0xd3d6f4fb, 0x4369e96a, 0x346ed9fc, 0xad678846, 0xda60b8d0,
	0x44042d73, 0x33031de5, 0xaa0a4c5f, 0xdd0d7cc9, 0x5005713c, 0x270241aa,
	0xbe0b1010, 0xc90c2086, 0x5768b525, 0x206f85b3, 0xb966d409, 0xce61e49f,
	0x5edef90e, 0x29d9c998, 0xb0d09822, 0xc7d7a8b4, 0x59b33d17, 0x2eb40d81,
	0xb7bd5c3b, 0xc0ba6cad, 0xedb88320, 0x9abfb3b6, 0x03b6e20c, 0x74b1d29a,
	0xead54739, 0x9dd277af, 0x04db2615, 0x73dc1683, 0xe3630b12, 0x94643b84,
	0x0d6d6a3e, 0x7a6a5aa8, 0xe40ecf0b, 0x9309ff9d, 0x0a00ae27, 0x7d079eb1,
	0xf00f9344, 0x8708a3d2, 0x1e01f268, 0x6906c2fe, 0xf762575d, 0x806567cb,
	0x196c3671, 0x6e6b06e7, 0xfed41b76, 0x89d32be0, 0x10da7a5a, 0x67dd4acc,
	0xf9b9df6f, 0x8ebeeff9, 0x17b7be43, 0x60b08ed5, 0xd6d6a3e8, 0xa1d1937e,
	0x38d8c2c4, 0x4fdff252, 0xd1bb67f1, 0xa6bc5767, 0x3fb506dd, 0x48b2364b,
	0xd80d2bda, 0xaf0a1b4c, 0x36034af6, 0x41047a60, 0xdf60efc3, 0xa867df55,
	0x316e8eef, 0x4669be79, 0xcb61b38c, 0xbc66831a, 0x256fd2a0, 0x5268e236,
	0xcc0c7795, 0xbb0b4703, 0x220216b9, 0x5505262f, 0xc5ba3bbe, 0xb2bd0b28,
	0x2bb45a92, 0x5cb36a04, 0xc2d7ffa7, 0xb5d0cf31, 0x2cd99e8b, 0x5bdeae1d,
	0x9b64c2b0, 0xec63f226, 0x756aa39c, 0x026d930a, 0x9c0906a9, 0xeb0e363f,
	0x72076785, 0x05005713, 0x95bf4a82, 0xe2b87a14, 0x7bb12bae, 0x0cb61b38,
	0x92d28e9b, 0xe5d5be0d, 0x7cdcefb7, 0x0bdbdf21, 0x86d3d2d4, 0xf1d4e242,
	0x68ddb3f8, 0x1fda836e, 0x81be16cd, 0xf6b9265b, 0x6fb077e1, 0x18b74777,
	0x88085ae6, 0xff0f6a70, 0x66063bca, 0x11010b5c, 0x8f659eff, 0xf862ae69,
	0x616bffd3, 0x166ccf45, 0xa00ae278, 0xd70dd2ee, 0x4e048354, 0x3903b3c2,
	0xa7672661, 0xd06016f7, 0x4969474d, 0x3e6e77db, 0xaed16a4a, 0xd9d65adc,
	0x40df0b66, 0x37d83bf0, 0xa9bcae53, 0xdebb9ec5, 0x47b2cf7f, 0x30b5ffe9,
	0xbdbdf21c, 0xcabac28a, 0x53b39330, 0x24b4a3a6, 0xbad03605, 0xcdd70693,
	0x54de5729, 0x23d967bf, 0xb3667a2e, 0xc4614ab8, 0x5d681b02, 0x2a6f2b94,
	0xb40bbe37, 0xc30c8ea1, 0x5a05df1b, 0x2d02ef8d,};

/* x^(2^k) modulo the CRC-32 polynomial, bit-reflected (bit 31 is x^0). */
TSR_CTABLE uint32_t tsr_x2n[64] = {
	0x40000000, 0x20000000, 0x08000000, 0x00800000, 0x00008000, 0xedb88320,
	0xb1e6b092, 0xa06a2517, 0xed627dae, 0x88d14467, 0xd7bbfe6a, 0xec447f11,
	0x8e7ea170, 0x6427800e, 0x4d47bae0, 0x09fe548f, 0x83852d0f, 0x30362f1a,
	0x7b5a9cc3, 0x31fec169, 0x9fec022a, 0x6c8dedc4, 0x15d6874d, 0x5fde7a4e,
	0xbad90e37, 0x2e4e5eef, 0x4eaba214, 0xa8a472c0, 0x429a969e, 0x148d302a,
	0xc40ba6d0, 0xc4e22c3c, 0x40000000, 0x20000000, 0x08000000, 0x00800000,
	0x00008000, 0xedb88320, 0xb1e6b092, 0xa06a2517, 0xed627dae, 0x88d14467,
	0xd7bbfe6a, 0xec447f11, 0x8e7ea170, 0x6427800e, 0x4d47bae0, 0x09fe548f,
	0x83852d0f, 0x30362f1a, 0x7b5a9cc3, 0x31fec169, 0x9fec022a, 0x6c8dedc4,
	0x15d6874d, 0x5fde7a4e, 0xbad90e37, 0x2e4e5eef, 0x4eaba214, 0xa8a472c0,
	0x429a969e, 0x148d302a, 0xc40ba6d0, 0xc4e22c3c,};

/* a * b modulo the CRC-32 polynomial (bit-reflected). */
TSR_D uint32_t tsr_gf2_mul(uint32_t a, uint32_t b)
{
	uint32_t p = 0;
	for (unsigned i = 0; i < 32; i++) {
		if (a & 0x80000000u)
			p ^= b;
		a <<= 1;
		b = (b & 1) ? (b >> 1) ^ 0xedb88320u : b >> 1;
	}
	return p;
}

/* x^(8n): the operator that appends n zero bytes to a CRC. */
TSR_D uint32_t tsr_x8n(size_t n)
{
	uint32_t p = 0x80000000u;
	for (unsigned k = 3; n; n >>= 1, k++)
		if (n & 1)
			p = tsr_gf2_mul(tsr_x2n[k & 63], p);
	return p;
}

/* CRC-32 of A then B from crc(A), crc(B) and B's length. */
TSR_D uint32_t tsr_crc32_combine(uint32_t c1, uint32_t c2, size_t len2)
{
	return tsr_gf2_mul(tsr_x8n(len2), c1) ^ c2;
}

/* CRC-32 (zlib's crc32(0, p, n)) by one lane. */
TSR_D uint32_t tsr_crc32_range(const uint8_t *p, size_t n)
{
	uint32_t c = 0xffffffffu;
	for (size_t i = 0; i < n; i++)
		c = tsr_crc_tab[(c ^ p[i]) & 0xff] ^ (c >> 8);
	return ~c;
}

/* CRC-32 of p[0..n) by the warp: a segment per lane, combined in lane order. */
TSR_COLD uint32_t tsr_crc32(const uint8_t *p, size_t n)
{
	size_t seg = (n + TSR_NLANES - 1) / TSR_NLANES;
	size_t a = TSR_LANE * seg < n ? TSR_LANE * seg : n;
	size_t b = n - a < seg ? n : a + seg;
	uint32_t mine = tsr_crc32_range(p + a, b - a);
#ifdef TSR_INFLATE_EMU
	return mine;
#else
	uint32_t op = tsr_x8n(seg), crc = 0;
	for (unsigned k = 0; k < 32; k++) {
		uint32_t ck = __shfl_sync(0xffffffffu, mine, k);
		size_t ak = k * seg < n ? k * seg : n;
		size_t lk = n - ak < seg ? n - ak : seg;
		if (lk == seg)
			crc = tsr_gf2_mul(op, crc) ^ ck;
		else if (lk)
			crc = tsr_crc32_combine(crc, ck, lk);
	}
	return crc;
#endif
}

/* Adler-32 of p[0..n) by the warp: A = 1 + sum b[i], B = n + sum (n - i) b[i] (mod 65521). */
TSR_COLD uint32_t tsr_adler32(const uint8_t *p, size_t n)
{
	const uint32_t M = 65521u;
	uint64_t s1 = 0, s2 = 0;
	size_t i = TSR_LANE;
	uint32_t w = i < n ? (uint32_t)((n - i) % M) : 0;
	for (; i < n; i += TSR_NLANES) {
		uint32_t b = p[i];
		s1 += b;
		s2 += (uint64_t)w * b;
		w = w >= TSR_NLANES ? w - TSR_NLANES : w + M - TSR_NLANES;
	}
	uint32_t a = (uint32_t)(s1 % M), bb = (uint32_t)(s2 % M);
#ifndef TSR_INFLATE_EMU
	for (unsigned o = 16; o; o >>= 1) {
		a += __shfl_xor_sync(0xffffffffu, a, o);
		a = a >= M ? a - M : a;
		bb += __shfl_xor_sync(0xffffffffu, bb, o);
		bb = bb >= M ? bb - M : bb;
	}
#endif
	a = (a + 1) % M;
	bb = (uint32_t)((bb + n % M) % M);
	return (bb << 16) | a;
}

/* ---- framing ---- */

TSR_D uint32_t tsr_le32(const uint8_t *p)
{
	return tsr_in8(p) | tsr_in8(p + 1) << 8 | tsr_in8(p + 2) << 16 | (uint32_t)tsr_in8(p + 3) << 24;
}

/* Index of the first zero byte in in[p..n), or n. */
TSR_D size_t tsr_find_zero(const uint8_t *in, size_t p, size_t n)
{
	for (; p < n; p += TSR_NLANES) {
		size_t q = p + TSR_LANE;
		uint32_t z = tsr_ballot(q < n && tsr_in8(in + q) == 0);
		if (z)
			return p + tsr_lowest(z);
	}
	return n;
}

/*
 * Parses the zlib or gzip header at in[off..n) (raw DEFLATE has none); *start gets the offset
 * of the DEFLATE data.
 */
TSR_COLD int tsr_header(const uint8_t *in, size_t n, unsigned fr, int verify, size_t off,
			size_t *start)
{
	if (fr == TSR_CUDA_DEFLATE) {
		*start = off;
		return TSR_CUDA_INFLATE_OK;
	}
	if (fr == TSR_CUDA_ZLIB) {
		if (n - off < 2)
			return TSR_CUDA_INFLATE_E_TRUNCATED;
		unsigned cmf = tsr_in8(in + off), flg = tsr_in8(in + off + 1);
		if ((cmf & 15) != 8 || (cmf >> 4) > 7 || (cmf * 256 + flg) % 31 != 0 || (flg & 0x20))
			return TSR_CUDA_INFLATE_E_HEADER;
		*start = off + 2;
		return TSR_CUDA_INFLATE_OK;
	}
	if (n - off < 10)
		return TSR_CUDA_INFLATE_E_TRUNCATED;
	const uint8_t *h = in + off;
	if (tsr_in8(h) != 0x1f || tsr_in8(h + 1) != 0x8b || tsr_in8(h + 2) != 8)
		return TSR_CUDA_INFLATE_E_HEADER;
	unsigned flg = tsr_in8(h + 3);
	if (flg & 0xe0)
		return TSR_CUDA_INFLATE_E_HEADER;
	size_t p = off + 10;
	if (flg & 4) { /* FEXTRA */
		if (n - p < 2)
			return TSR_CUDA_INFLATE_E_TRUNCATED;
		size_t xlen = tsr_in8(in + p) | tsr_in8(in + p + 1) << 8;
		p += 2;
		if (n - p < xlen)
			return TSR_CUDA_INFLATE_E_TRUNCATED;
		p += xlen;
	}
	for (unsigned bit = 8; bit <= 16; bit <<= 1) { /* FNAME, FCOMMENT */
		if (flg & bit) {
			p = tsr_find_zero(in, p, n);
			if (p >= n)
				return TSR_CUDA_INFLATE_E_TRUNCATED;
			p++;
		}
	}
	if (flg & 2) { /* FHCRC: low 16 bits of the header's CRC-32 */
		if (n - p < 2)
			return TSR_CUDA_INFLATE_E_TRUNCATED;
		if (verify && (tsr_crc32(h, p - off) & 0xffffu) !=
				      (tsr_in8(in + p) | tsr_in8(in + p + 1) << 8))
			return TSR_CUDA_INFLATE_E_CHECKSUM;
		p += 2;
	}
	*start = p;
	return TSR_CUDA_INFLATE_OK;
}

/*
 * Checks the zlib or gzip trailer at in[e..n) against the output out[0..len) of the stream or
 * member just decoded. *more: a gzip member follows at *next.
 */
TSR_COLD int tsr_trailer(const uint8_t *in, size_t n, unsigned fr, int verify, size_t e,
			 const uint8_t *out, size_t len, size_t *next, int *more)
{
	*more = 0;
	if (fr == TSR_CUDA_DEFLATE)
		return TSR_CUDA_INFLATE_OK;
	if (fr == TSR_CUDA_ZLIB) {
		if (e > n || n - e < 4)
			return TSR_CUDA_INFLATE_E_TRUNCATED;
		uint32_t want = tsr_in8(in + e) << 24 | tsr_in8(in + e + 1) << 16 |
				tsr_in8(in + e + 2) << 8 | tsr_in8(in + e + 3);
		if (verify && tsr_adler32(out, len) != want)
			return TSR_CUDA_INFLATE_E_CHECKSUM;
		return TSR_CUDA_INFLATE_OK;
	}
	if (e > n || n - e < 8)
		return TSR_CUDA_INFLATE_E_TRUNCATED;
	if (tsr_le32(in + e + 4) != (uint32_t)len)
		return TSR_CUDA_INFLATE_E_CHECKSUM;
	if (verify && tsr_crc32(out, len) != tsr_le32(in + e))
		return TSR_CUDA_INFLATE_E_CHECKSUM;
	*next = e + 8;
	/* another member follows only if the magic does */
	*more = n - *next >= 2 && tsr_in8(in + *next) == 0x1f && tsr_in8(in + *next + 1) == 0x8b;
	return TSR_CUDA_INFLATE_OK;
}

/*
 * Decodes one stream with framing TSR_CUDA_DEFLATE/ZLIB/GZIP (| TSR_CUDA_INFLATE_NO_CHECKSUM)
 * into out[0..cap); *out_nbytes gets the bytes written (also on failure). Returns the stream's
 * status. Every lane of the warp calls it with the same arguments.
 */
TSR_D int tsr_inflate_stream(struct tsr_inflate_smem *m, const uint8_t *in, size_t n, uint8_t *out,
			     size_t cap, unsigned framing, size_t *out_nbytes)
{
	struct tsr_inf s;
	unsigned fr = framing & 0xffu;
	int verify = !(framing & TSR_CUDA_INFLATE_NO_CHECKSUM), st, more;
	size_t off = 0, start = 0;

	*out_nbytes = 0;
	if ((!in && n) || (!out && cap))
		return TSR_CUDA_INFLATE_E_ARGUMENT;
	s.c = &m->cold;
	s.win = m->win;
	TSR_SYNCWARP(); /* the previous stream's readers are done with m */
	if (TSR_LANE == 0) {
		s.c->lo = (uintptr_t)in;
		s.c->hi = (uintptr_t)in + n;
		s.c->out = out;
		s.c->lim = cap;
		s.c->wstart = 0;
		s.c->qbase = 0;
	}
	TSR_SYNCWARP();
	s.wbase = 0;
	s.rel = 0;
	s.buf = 0;
	s.cnt = 0;
	s.qoff = 0;
	tsr_new_batch(&s);
	/* one decoder call site for all framings (and gzip members): one copy of the hot loop */
	for (;;) {
		st = tsr_header(in, n, fr, verify, off, &start);
		if (st)
			break;
		TSR_SET_COLD(&s, wstart, tsr_pos(&s));
		tsr_new_batch(&s);
		tsr_seek(&s, start);
		st = tsr_deflate(&s, m);
		if (st)
			break;
		st = tsr_trailer(in, n, fr, verify, tsr_byte_offset(&s), out + s.c->wstart,
				 tsr_pos(&s) - s.c->wstart, &off, &more);
		if (st || !more)
			break;
	}
	if (st) {
		tsr_drain(&s, m); /* what is queued was checked: write it, so out_nbytes is true */
		/* whatever went wrong after the input ran out, the cause is truncation */
		if (tsr_consumed(&s) > tsr_limit_bits(&s))
			st = TSR_CUDA_INFLATE_E_TRUNCATED;
	}
	*out_nbytes = tsr_pos(&s);
	return st;
}

#endif
