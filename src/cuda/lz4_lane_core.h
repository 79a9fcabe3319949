/* lz4_lane_core.h - one LZ4 block decoded by one lane alone (lz4_lanes.cu, the kernel of batches of many streams): input read and output written as aligned 8-byte words; also builds as C for the CPU. */
#ifndef TSR_LZ4_LANE_CORE_H
#define TSR_LZ4_LANE_CORE_H

#include "lz_core.h"

/*
 * The other LZ4 kernels give a stream a warp or half of one, all lanes walking the same
 * sequences: each instruction advances one stream, the lanes idle but in the copies. Here a lane
 * walks a stream by itself, so each instruction advances 32 (design-notes, "a lane a stream").
 * Blocks accepted and refused, statuses and the bytes written are tsr_lz4_block's (lz4_core.h)
 * exactly; emu_lz4_lanes.c and the lz4 fuzz target compare the two.
 * - Input is read as aligned 8-byte words, and only words wholly inside [in, in + n): within 16
 *   bytes of either end the bytes are read one at a time, so no byte outside the stream is read.
 * - Output goes out as aligned 8-byte stores (a byte store a lane would be a 32-byte L2 sector
 *   written for every byte): the bytes since the last aligned word wait in a register (acc),
 *   and a word is stored once it is whole. The partial words at the output's two ends are
 *   stored a byte at a time, so no byte outside [out, out + got) is written.
 * - A match reads its source back from the output (its bytes not yet stored from acc); a
 *   distance under 8 repeats its first bytes from registers.
 * - Literal runs and matches go up to TSR_L4_PIECE bytes a piece: the aligned source words
 *   that hold the piece are all loaded, then each output word is made from two of them, so
 *   that a piece costs one round trip to memory (most sequences of shuffled floats: a match of
 *   4 to 18 bytes, design-notes); the next token's word is loaded before a match's pieces.
 * - Offsets are 32-bit: streams of at most TSR_L4_MAX bytes in and out, liblz4's own limit.
 */

#ifdef TSR_LZ_EMU
#include <string.h>
#define TSR_L4_UNROLL
static inline uint64_t tsr_l4_ld_in(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}
static inline uint64_t tsr_l4_ld(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}
static inline void tsr_l4_st(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}
static inline uint32_t tsr_l4_ctz(uint64_t x)
{
	return (uint32_t)__builtin_ctzll(x);
}
#define TSR_L4_GLOBAL(p) ((void)(p))
#else
#define TSR_L4_UNROLL _Pragma("unroll")
/* (the token's and distance's words through the read-only cache: no lane writes the input;
 * output with plain loads, which see the lane's own stores) */
TSR_LZ_D uint64_t tsr_l4_ld_in(const uint8_t *p)
{
	return __ldg((const unsigned long long *)(const void *)p);
}
/* (a piece's loads: of the input or the output, the same instruction) */
TSR_LZ_D uint64_t tsr_l4_ld(const uint8_t *p)
{
	return *(const uint64_t *)(const void *)p;
}
/* p is global memory: loads and stores through it global ones, not generic (a pointer read
 * from the batch's array, or chosen from two, leaves the compiler generic ones) */
#define TSR_L4_GLOBAL(p) __builtin_assume(__isGlobal(p))
TSR_LZ_D void tsr_l4_st(uint8_t *p, uint64_t v)
{
	*(uint64_t *)(void *)p = v;
}
TSR_LZ_D uint32_t tsr_l4_ctz(uint64_t x)
{
	return (uint32_t)__ffsll((long long)x) - 1u;
}
#endif

/* The longest input and output the lane decoder takes: liblz4's sizes are ints, so no LZ4
 * block it makes or decodes is longer; offsets fit 32 bits, and 64-bit arithmetic (two
 * instructions an operation) stays out of the loop. */
#define TSR_L4_MAX 0x7fffffffu

/* The largest piece, bytes: 32 (a round trip for the common sequence of shuffled floats, a match
 * of 4 to 18 bytes) or 64 (half the steps of a long literal run or match, for more registers
 * and instructions a piece; bench/lz4_lane_model.c counts the steps). Set at build time, so that
 * the H200 compares the two (gpu-lz-kernels' VARIANTS); emu_lz4_lanes64.c tests 64. */
#ifndef TSR_L4_PIECE
#define TSR_L4_PIECE 32u
#endif
#define TSR_L4_OUT_WORDS (TSR_L4_PIECE / 8 + 1) /* output words a piece touches, at most */
#define TSR_L4_SRC_WORDS (TSR_L4_PIECE / 8 + 2) /* source words that hold a piece, at most */

/* A lane's stream. */
struct tsr_l4 {
	const uint8_t *in;
	uint32_t n;     /* input bytes */
	uint32_t op;    /* output bytes made */
	uint8_t *out;
	int32_t abase;  /* output offset of the aligned word acc holds (below 0 in the output's
			   first word when out is not 8-aligned) */
	uint64_t acc;   /* output bytes [abase, op) at bits 8 (b - abase) on; the rest 0 */
};

/* Bytes [sh, sh + 8) of the 16 in lo, hi (sh < 8). */
TSR_LZ_D uint64_t tsr_l4_join(uint64_t lo, uint64_t hi, uint32_t sh)
{
	return lo >> (8 * sh) | (hi << 1) << (63 - 8 * sh); /* (no shift by 64 when sh is 0) */
}

/* v's k low bytes (1 <= k <= 8), the others 0. */
TSR_LZ_D uint64_t tsr_l4_low(uint64_t v, uint32_t k)
{
	return v & (~0ull >> (64 - 8 * k));
}

/* Input bytes [p, p + 8), those at or past n read as 0 and never loaded (p <= n). */
TSR_LZ_D uint64_t tsr_l4_in8(const struct tsr_l4 *s, uint32_t p)
{
	const uint32_t sh = (uint32_t)((uintptr_t)(s->in + p) & 7u);
	if (p >= sh && p - sh + 16 <= s->n)
		return tsr_l4_join(tsr_l4_ld_in(s->in + (p - sh)), tsr_l4_ld_in(s->in + (p - sh + 8)),
				   sh);
	uint64_t v = 0;
	for (uint32_t k = 0; k < 8; k++)
		if (p + k < s->n)
			v |= (uint64_t)s->in[p + k] << (8 * k);
	return v;
}

/* The aligned output word at offset w <= abase: acc at abase; below it, bytes already stored
 * (before the output's start read as 0, and never loaded). */
TSR_LZ_D uint64_t tsr_l4_oword(const struct tsr_l4 *s, int32_t w)
{
	if (w == s->abase)
		return s->acc;
	if (w >= 0)
		return tsr_l4_ld(s->out + w);
	uint64_t v = 0;
	for (int32_t k = 0; k < 8; k++)
		if (w + k >= 0)
			v |= (uint64_t)s->out[w + k] << (8 * k);
	return v;
}

/* Output bytes [p, p + 8) (p < op; those at or past op meaningless). */
TSR_LZ_D uint64_t tsr_l4_out8(const struct tsr_l4 *s, uint32_t p)
{
	const uint32_t sh = (uint32_t)((uintptr_t)(s->out + p) & 7u);
	const int32_t w = (int32_t)p - (int32_t)sh;
	const uint64_t lo = tsr_l4_oword(s, w);
	const uint64_t hi = w + 8 <= s->abase ? tsr_l4_oword(s, w + 8) : 0;
	return tsr_l4_join(lo, hi, sh);
}

/* Stores acc, the whole word at abase (a byte at a time where it starts before the output). */
TSR_LZ_D void tsr_l4_store(struct tsr_l4 *s)
{
	if (s->abase >= 0) {
		tsr_l4_st(s->out + s->abase, s->acc);
		return;
	}
	for (int32_t k = 0; k < 8; k++)
		if (s->abase + k >= 0)
			s->out[s->abase + k] = (uint8_t)(s->acc >> (8 * k));
}

/* Appends v's k low bytes (1 <= k <= 8; v's other bytes 0) to the output. */
TSR_LZ_D void tsr_l4_put(struct tsr_l4 *s, uint64_t v, uint32_t k)
{
	const uint32_t f = s->op - (uint32_t)s->abase; /* bytes in acc, 0 to 7 */
	s->acc |= v << (8 * f);
	s->op += k;
	if (f + k >= 8) {
		tsr_l4_store(s);
		s->acc = (v >> 1) >> (63 - 8 * f); /* v's bytes past the word (none when f is 0) */
		s->abase += 8;
	}
}

/* Stores the bytes in acc, a byte at a time: the output's last partial word. */
TSR_LZ_D void tsr_l4_finish(struct tsr_l4 *s)
{
	for (uint32_t b = s->abase < 0 ? 0 : (uint32_t)s->abase; b < s->op; b++)
		s->out[b] = (uint8_t)(s->acc >> (8 * (b - (uint32_t)s->abase)));
}

/* v's low k bytes set (k < 8; 0 for k 0). */
TSR_LZ_D uint64_t tsr_l4_mask(uint32_t k)
{
	return (1ull << (8 * k)) - 1;
}

/* x mod d, for x < 64 and 1 <= d <= 7, by a reciprocal: x / d is x ceil(256 / d) >> 8 there
 * (checked for every such x and d by emu_lz4_lanes.c). */
TSR_LZ_D uint32_t tsr_l4_mod(uint32_t x, uint32_t d)
{
	const uint32_t inv = (uint32_t)(0x00242a333f557fffull >> (8 * (d - 1)) & 255u) + 1;
	return x - d * ((x * inv) >> 8);
}

/* Low 32 bits of (hi:lo) >> b (b < 32). */
TSR_LZ_D uint32_t tsr_l4_funnel(uint32_t lo, uint32_t hi, uint32_t b)
{
#ifdef TSR_LZ_EMU
	return (uint32_t)(((uint64_t)hi << 32 | lo) >> b);
#else
	return __funnelshift_r(lo, hi, b);
#endif
}

/*
 * Ends a piece of m bytes (1 <= m <= TSR_L4_PIECE): w[j] holds output bytes [abase + 8j,
 * abase + 8j + 8)
 * (its bytes below op replaced here by acc's); the whole words are stored, the last partial one
 * kept in acc. abase >= 0: the caller checks.
 */
TSR_LZ_D void tsr_l4_emit(struct tsr_l4 *s, uint64_t w[TSR_L4_OUT_WORDS], uint32_t m)
{
	const uint32_t f = s->op - (uint32_t)s->abase;
	const uint32_t q = (f + m) >> 3; /* whole words: at most TSR_L4_PIECE / 8 */
	w[0] = (w[0] & ~tsr_l4_mask(f)) | s->acc;
	uint64_t last = 0;
	TSR_L4_UNROLL
	for (uint32_t j = 0; j < TSR_L4_OUT_WORDS; j++) {
		if (j < q)
			tsr_l4_st(s->out + s->abase + 8 * j, w[j]);
		if (j == q)
			last = w[j]; /* (a select, not an index: w stays in registers) */
	}
	s->acc = last & tsr_l4_mask((f + m) & 7u);
	s->abase += 8 * (int32_t)q;
	s->op += m;
}

/*
 * Appends m bytes (1 <= m <= TSR_L4_PIECE) of src (the input, or the output when from_out)
 * from offset pos on. Output word j's bytes come from the source at pos - f + 8j on (f: the
 * bytes in acc), so each is one shift of the aligned source words: those holding the bytes are
 * all loaded (the output's word at abase from acc), joined a 32-bit half at a time, and
 * emitted. The caller checks that the words lie inside the input, or inside the output's bytes
 * made, and abase >= 0.
 */
TSR_LZ_D void tsr_l4_piece(struct tsr_l4 *s, const uint8_t *src, uint32_t pos, uint32_t m,
			   int from_out)
{
	const uint32_t f = s->op - (uint32_t)s->abase;
	const uint32_t sh = (uint32_t)(((uintptr_t)src + pos - f) & 7u);
	const int32_t a = (int32_t)(pos - f - sh); /* source offset of word 0 (the caller: >= 0) */
	const uint32_t nw = ((f + sh + m - 1) >> 3) + 1; /* words holding the bytes */
	TSR_L4_GLOBAL(src);
	/* one address for all the loads, and the word acc holds (a match's source can reach it:
	 * a <= abase there, as a <= pos < abase + 8 and both are word offsets) by a select */
	const uint8_t *base = src + a;
	const uint32_t k0 = from_out ? (uint32_t)(s->abase - a) >> 3 : TSR_L4_SRC_WORDS;
	uint32_t h[2 * TSR_L4_SRC_WORDS + 1];
	TSR_L4_UNROLL
	for (uint32_t k = 0; k < TSR_L4_SRC_WORDS; k++) {
		uint64_t x = 0;
		if (k < nw && k != k0)
			x = tsr_l4_ld(base + 8 * k);
		x = k == k0 ? s->acc : x;
		h[2 * k] = (uint32_t)x;
		h[2 * k + 1] = (uint32_t)(x >> 32);
	}
	h[2 * TSR_L4_SRC_WORDS] = 0;
	/* the halves from sh's own on, then each output half a funnel shift of two */
	const uint32_t b = 8 * (sh & 3u), up = sh >> 2;
	TSR_L4_UNROLL
	for (uint32_t i = 0; i < 2 * TSR_L4_SRC_WORDS; i++)
		h[i] = up ? h[i + 1] : h[i];
	uint64_t w[TSR_L4_OUT_WORDS];
	TSR_L4_UNROLL
	for (uint32_t j = 0; j < TSR_L4_OUT_WORDS; j++)
		w[j] = tsr_l4_funnel(h[2 * j], h[2 * j + 1], b) |
		       (uint64_t)tsr_l4_funnel(h[2 * j + 1], h[2 * j + 2], b) << 32;
	tsr_l4_emit(s, w, m);
}

/* Appends m bytes (1 <= m <= TSR_L4_PIECE) of a short-distance match's pattern: the match's
 * bytes repeat with period d (< 8), op is a whole number of periods into the match, and q[0]
 * holds its first 8 bytes, q[1] the next d - 1 (at least). abase >= 0: the caller checks. */
TSR_LZ_D void tsr_l4_repeat(struct tsr_l4 *s, const uint64_t q[2], uint32_t d, uint32_t m)
{
	const uint32_t f = s->op - (uint32_t)s->abase;
	const uint32_t c8 = tsr_l4_mod(8, d);
	uint32_t r = tsr_l4_mod(8 * d - f, d); /* word 0's first byte, in the pattern */
	uint64_t w[TSR_L4_OUT_WORDS];
	TSR_L4_UNROLL
	for (uint32_t j = 0; j < TSR_L4_OUT_WORDS; j++) {
		w[j] = tsr_l4_join(q[0], q[1], r);
		r += c8;
		r -= r >= d ? d : 0;
	}
	tsr_l4_emit(s, w, m);
}

/* Adds to *len the length bytes from *ip on (255s, then one that is not): 0, or
 * TSR_CUDA_LZ_E_TRUNCATED where the input ends first. Eight bytes are looked at a time. The
 * sum is kept below 2^32 - 4 (no length past TSR_L4_MAX passes the checks after it anyway). */
TSR_LZ_D int tsr_l4_more(const struct tsr_l4 *s, uint32_t *ipp, uint32_t *len)
{
	uint32_t ip = *ipp;
	uint64_t sum = *len;
	for (;;) {
		if (ip >= s->n) {
			*ipp = ip;
			return TSR_CUDA_LZ_E_TRUNCATED;
		}
		const uint64_t w = tsr_l4_in8(s, ip);
		const uint32_t avail = s->n - ip < 8 ? s->n - ip : 8u;
		const uint64_t x = tsr_l4_low(~w, avail); /* nonzero at the bytes that are not 255 */
		if (!x) {
			sum += 255u * avail;
			sum = sum < 0xfffffff0u ? sum : 0xfffffff0u;
			ip += avail;
			continue;
		}
		const uint32_t b = tsr_l4_ctz(x) >> 3;
		sum += 255u * b + (w >> (8 * b) & 255u);
		*len = sum < 0xfffffff0u ? (uint32_t)sum : 0xfffffff0u;
		*ipp = ip + b + 1;
		return 0;
	}
}

/* Where a lane is in its block: at a token, in a literal run, in a match. */
enum { TSR_L4_TOKEN, TSR_L4_LITS, TSR_L4_MATCH };

/*
 * Decodes s's block from input offset ip into out (cap bytes), with tsr_lz4_block's checks in
 * its order. Each turn of the loop is a step that puts one piece (up to TSR_L4_PIECE bytes of a
 * literal run or of a match), parsing first what the lane is at: a token, the end of a literal
 * run (its distance), a match's length. Why steps, not a loop a run: a warp's lanes walk 32
 * streams in step, and a loop a run lasts as long as its longest lane's run, where a step costs
 * its parts once whichever lanes run them. Counted on the CPU (bench/lz4_lane_model.c;
 * design-notes, "LZ4 a lane a stream"): 32 streams of shuffled floats, liblz4 fast, a warp's
 * weighted instructions a sequence 1,225 with a loop a run, 345 by steps, 225 for the lanes'
 * own work.
 */
TSR_LZ_D int tsr_l4_block(struct tsr_l4 *s, uint32_t ip, uint32_t cap)
{
	const uint32_t n = s->n;
	if (ip >= n)
		return TSR_CUDA_LZ_E_TRUNCATED; /* (liblz4: an empty block is an error) */
	uint64_t t = tsr_l4_in8(s, ip); /* the token's word, loaded a step or more ahead */
	uint32_t lip = 0, left = 0, dist = 0; /* (lip: the literal run's next byte) */
	uint64_t pat[2] = {0, 0};
	uint32_t tok = 0, phase = TSR_L4_TOKEN;
	for (;;) {
		int mparse = 0; /* the match's length to parse, its distance known */
		if (phase == TSR_L4_TOKEN) {
			if (ip >= n)
				return TSR_CUDA_LZ_E_TRUNCATED;
			tok = (uint32_t)(t & 255u);
			uint32_t lit = tok >> 4;
			ip++;
			if (lit <= 5 && n - ip >= lit + 2 && cap - s->op >= lit) {
				/* the token's word holds the literals and the distance (most sequences
				 * of shuffled floats) */
				if (lit)
					tsr_l4_put(s, tsr_l4_low(t >> 8, lit), lit);
				dist = (uint32_t)(t >> (8 * (lit + 1))) & 0xffffu;
				ip += lit + 2;
				mparse = 1;
			} else {
				if (lit == 15) {
					const int st = tsr_l4_more(s, &ip, &lit);
					if (st)
						return st;
				}
				if (lit > n - ip)
					return TSR_CUDA_LZ_E_TRUNCATED;
				if (lit > cap - s->op)
					return TSR_CUDA_LZ_E_OVERFLOW;
				lip = ip;
				left = lit;
				ip += lit;
				phase = TSR_L4_LITS;
			}
		}
		if (phase == TSR_L4_LITS && !left) {
			if (ip == n)
				return TSR_CUDA_LZ_OK; /* the last sequence: literals only */
			if (n - ip < 2)
				return TSR_CUDA_LZ_E_TRUNCATED;
			dist = (uint32_t)tsr_l4_in8(s, ip) & 0xffffu;
			ip += 2;
			mparse = 1;
		}
		if (mparse) {
			uint32_t len = tok & 15u;
			if (len == 15) {
				const int st = tsr_l4_more(s, &ip, &len);
				if (st)
					return st;
			}
			len += 4;
			if (dist == 0 || dist > s->op)
				return TSR_CUDA_LZ_E_DISTANCE;
			if (len > cap - s->op)
				return TSR_CUDA_LZ_E_OVERFLOW;
			left = len;
			phase = TSR_L4_MATCH;
			t = tsr_l4_in8(s, ip); /* the next token's, in flight during the match */
			if (dist < 8) {
				/* the first dist bytes repeated: a word of them, pat[0], and the word
				 * after it, pat[1]: its byte k is pat[0]'s byte k + 8 mod d, which is
				 * inside pat[0] for every k tsr_l4_repeat reads (k < d - 1) */
				const uint32_t d = dist, c8 = tsr_l4_mod(8, d);
				pat[0] = tsr_l4_low(tsr_l4_out8(s, s->op - d), d);
				for (uint32_t sh = d; sh < 8; sh *= 2)
					pat[0] |= pat[0] << (8 * sh);
				pat[1] = pat[0] >> (8 * c8);
			}
		}
		/* the step's piece: of a match no longer than its distance, so that its source is
		 * made before it; of a distance under 8, a whole number of periods (TSR_L4_PIECE less
		 * its remainder mod dist), so that each piece starts the pattern over; the slow way (8 bytes a
		 * put) where a word would reach before the input or output or past the input */
		const int from_out = phase == TSR_L4_MATCH;
		uint32_t m = left < TSR_L4_PIECE ? left : TSR_L4_PIECE;
		if (from_out && dist < 8) {
			/* (TSR_L4_PIECE mod dist: 64 is past the reciprocal's range, 2 (32 mod d) not) */
			const uint32_t r32 = tsr_l4_mod(32, dist);
			const uint32_t whole =
				TSR_L4_PIECE - (TSR_L4_PIECE == 64 ? tsr_l4_mod(2 * r32, dist) : r32);
			m = m < whole ? m : whole;
			if (s->abase >= 0) {
				tsr_l4_repeat(s, pat, dist, m);
			} else {
				const uint32_t step = 0x76586880u >> (4 * dist) & 15u; /* d (8 / d) */
				m = m < step ? m : step;
				tsr_l4_put(s, tsr_l4_low(pat[0], m), m);
			}
		} else {
			m = from_out && dist < m ? dist : m;
			const uint8_t *src = from_out ? s->out : s->in;
			const uint32_t pos = from_out ? s->op - dist : lip;
			const uint32_t f = s->op - (uint32_t)s->abase;
			const uint32_t sh = (uint32_t)(((uintptr_t)src + pos - f) & 7u);
			const uint32_t words = ((f + sh + m - 1) >> 3) + 1;
			if (s->abase < 0 || pos < f + sh || (!from_out && pos - f - sh + 8 * words > n)) {
				m = m < 8 ? m : 8u;
				const uint64_t v = from_out ? tsr_l4_out8(s, pos) : tsr_l4_in8(s, pos);
				tsr_l4_put(s, tsr_l4_low(v, m), m);
			} else {
				tsr_l4_piece(s, src, pos, m, from_out);
			}
		}
		left -= m;
		lip += m; /* (meaningless in a match) */
		if (from_out && !left)
			phase = TSR_L4_TOKEN;
	}
}

/* One stream, as tsr_lz4_stream (lz4_core.h): variant TSR_CUDA_LZ4_RAW or TSR_CUDA_LZ4_SIZED. */
TSR_LZ_D int tsr_l4_stream(const uint8_t *in, uint64_t n, uint8_t *out, uint64_t cap,
			   int variant, uint64_t *got)
{
	*got = 0;
	if ((!in && n) || (!out && cap))
		return TSR_CUDA_LZ_E_ARGUMENT;
	/* global memory (tsr_cuda_lz4_batch's contract), said after the checks for NULL so that
	 * the compiler cannot drop them: global loads and stores, not generic */
	TSR_L4_GLOBAL(in);
	TSR_L4_GLOBAL(out);
	if (n > TSR_L4_MAX)
		return TSR_CUDA_LZ_E_ARGUMENT; /* (no LZ4 block: liblz4 refuses it too) */
	/* (a capacity past TSR_L4_MAX is taken as TSR_L4_MAX: a block that decodes longer
	 * overflows it, as in liblz4, whose capacity is an int) */
	const uint32_t cap32 = cap < TSR_L4_MAX ? (uint32_t)cap : TSR_L4_MAX;
	struct tsr_l4 s = {in, (uint32_t)n, 0, out, -(int32_t)((uintptr_t)out & 7u), 0};
	/* one call of the block for both variants: the kernel holds one copy of its loop, not two
	 * (the loop's code is past 20 KB, more than an SM's first instruction cache) */
	uint32_t start = 0, bcap = cap32, size = 0;
	if (variant == TSR_CUDA_LZ4_SIZED) {
		if (n < 4)
			return TSR_CUDA_LZ_E_TRUNCATED;
		size = (uint32_t)tsr_l4_in8(&s, 0);
		if (size > cap)
			return TSR_CUDA_LZ_E_OVERFLOW;
		start = 4;
		bcap = size < cap32 ? size : cap32;
	}
	int st = tsr_l4_block(&s, start, bcap);
	if (variant == TSR_CUDA_LZ4_SIZED && st == TSR_CUDA_LZ_OK && s.op != size)
		st = TSR_CUDA_LZ_E_SIZE;
	tsr_l4_finish(&s);
	*got = s.op;
	return st;
}

#endif /* TSR_LZ4_LANE_CORE_H */
