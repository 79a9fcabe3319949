/* lz_core.h - what the LZ77 stream decoders (lz4_core.h, blosclz_core.h) share: one warp's input window and its literal and match copies; also builds as C for the CPU. */
#ifndef TSR_LZ_CORE_H
#define TSR_LZ_CORE_H

/*
 * One group of lanes (half a warp, TSR_LZ_GROUP) decodes one stream. All its lanes parse the
 * same sequences from the same state (every branch is uniform in the group, nothing is
 * broadcast), and share the copies: lane l copies bytes l, l + 16, ... of a literal run or a
 * match.
 * - Parsing reads bytes from a 128-byte window in shared memory that the group fills with one
 *   32-word load (words spread over its lanes); words that reach outside [in, in + n) are assembled from the
 *   bytes inside it, zeros elsewhere, so no byte outside the stream is ever read.
 * - Copies run four bytes a lane before storing any, so that a group has 4 loads a lane in
 *   flight.
 * - A match reads only output written before it: byte j of a match of length len at distance
 *   d is out[op - d + j % d] (a match longer than its distance repeats its first d bytes), so
 *   the lanes of one match never wait on each other; one __syncwarp (of the group's lanes)
 *   before the match makes the group's earlier writes visible to all its lanes.
 * Built with TSR_LZ_EMU, the code runs on the CPU as a warp of one lane, so CI (no GPU) tests the
 * decoding logic itself against liblz4 and the CPU's BloscLZ decoder.
 */

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tsr_cuda.h"

#ifdef TSR_LZ_EMU
#define TSR_LZ_D static inline
#define TSR_LZ_LANE 0u
#define TSR_LZ_NLANES 1u
#define TSR_LZ_SYNCWARP() ((void)0)
#else
/* Lanes a stream gets: 16 (half a warp) by default, so that twice as many streams are in
 * flight (a warp's stream is mostly waiting on memory: H200, 10000 x 64 KiB shuffled-float LZ4
 * streams: 32 lanes decoded 172 GB/s, the grid holding 6336 streams at a time). */
#ifndef TSR_LZ_GROUP
#define TSR_LZ_GROUP 16
#endif
#define TSR_LZ_D static __device__ __forceinline__
#define TSR_LZ_LANE (threadIdx.x & (TSR_LZ_GROUP - 1u))
#define TSR_LZ_NLANES ((unsigned)TSR_LZ_GROUP)
/* the lanes of this thread's group */
#define TSR_LZ_MASK                                                                      \
	(TSR_LZ_GROUP == 32 ? 0xffffffffu                                                \
			    : ((1u << (TSR_LZ_GROUP & 31)) - 1u)                         \
				      << ((threadIdx.x & 31u) & ~(TSR_LZ_GROUP - 1u)))
#define TSR_LZ_SYNCWARP() __syncwarp(TSR_LZ_MASK)
#endif

/* p points to global memory (the batch calls' contract), so that loads and stores through it
 * are global ones: a pointer read from the batch's array of them, or chosen from two, leaves
 * the compiler generic ones. Said after the checks for NULL pointers, so that no reading of it
 * can drop them. */
#ifdef TSR_LZ_EMU
#define TSR_LZ_GLOBAL(p) ((void)(p))
#define TSR_LZ_SHARED(p) ((void)(p))
#else
#define TSR_LZ_GLOBAL(p) __builtin_assume(__isGlobal(p))
/* (the window's pointer, said shared where a called step reads it: generic loads else) */
#define TSR_LZ_SHARED(p) __builtin_assume(__isShared(p))
#endif

/* Long literal runs copied as 16-byte vectors (tsr_lz_literals): the few-streams LZ4 kernel
 * sets it. */
#ifndef TSR_LZ_WIDE
#define TSR_LZ_WIDE 0
#endif
/* The largest piece such a run is copied in: 1 GiB (emu_lz4_pieces.c sets a few bytes, so
 * that runs of every length cross pieces at every alignment). */
#ifndef TSR_LZ_PIECE
#define TSR_LZ_PIECE (1u << 30)
#endif

/* The window's words (set at build time for scripts/gpu-lz-kernels' VARIANTS: a longer window
 * is refilled less often, each fill a memory round trip and two of the group's syncs) */
#ifndef TSR_LZ_WIN_WORDS
#define TSR_LZ_WIN_WORDS 32u
#endif
#define TSR_LZ_WIN_BYTES (4u * TSR_LZ_WIN_WORDS)

/* A match of at most this many bytes is copied a byte a lane in one pass (tsr_lz_match); not
 * tied to the lanes, so that the CPU emulator's one lane runs that path too. */
#define TSR_LZ_SHORT 32u

/*
 * Which kernel a large LZ4 batch takes (tsr_cuda_lz4_batch; TSR_CUDA_LZ_SHARE): one stored in at
 * least TSR_LZ_STORED_TENTHS tenths of its capacity is mostly long literal runs, which the
 * few-streams kernel copies as vectors a warp wide; the many-streams kernel's groups of 16 lanes
 * copy them a byte a lane. So such a batch goes to the few-streams kernel, any other to the
 * many-streams one. By the batch, not the stream: split between the two kernels one after
 * the other, batches of both kinds of stream lost against either kernel alone (H100, 10,000 x
 * 64 KiB, half incompressible floats: 299 GB/s, 425 many, 401 few). The sizes are in device
 * memory, so a kernel of one block sums them (tsr_lz4_share_kernel, lz4.cu) and each kernel
 * reads its answer; each stream's sizes count up to 4 GiB.
 */
#ifndef TSR_LZ_STORED_TENTHS
#define TSR_LZ_STORED_TENTHS 9u
#endif
enum { TSR_LZ_TAKE_MANY = 1, TSR_LZ_TAKE_FEW = 2 };

/* A stream's size as the sums count it. */
TSR_LZ_D uint64_t tsr_lz_share_size(uint64_t x)
{
	const uint64_t lim = (uint64_t)1 << 32;
	return x < lim ? x : lim;
}

/* The kernel a batch of in stored bytes and cap bytes of capacity takes (the sums of
 * tsr_lz_share_size's). */
TSR_LZ_D int tsr_lz_share_take(uint64_t in, uint64_t cap)
{
	return in >= cap - cap / 10u * (10u - TSR_LZ_STORED_TENTHS) ? TSR_LZ_TAKE_FEW
								     : TSR_LZ_TAKE_MANY;
}

/* The text of a status code (host code: tsr_cuda_lz_status_name, and the CPU tests). */
static inline const char *tsr_lz_status_text(int status)
{
	switch (status) {
	case TSR_CUDA_LZ_OK: return "ok";
	case TSR_CUDA_LZ_E_TRUNCATED: return "truncated input";
	case TSR_CUDA_LZ_E_DISTANCE: return "match distance out of range";
	case TSR_CUDA_LZ_E_OVERFLOW: return "output overflow";
	case TSR_CUDA_LZ_E_SIZE: return "decoded size differs from the stored size";
	case TSR_CUDA_LZ_E_ARGUMENT: return "bad pointer";
	case TSR_CUDA_LZ_E_LONG: return "stream longer than 2 GiB - 1";
	default: return "unknown status";
	}
}

/* The kernels that parse batches in parallel (lz4_few.cu sets TSR_LZ_WANT_JUMPS; groups of 32
 * lanes), and the emulator, keep jump tables beside their window: TSR_LZ_JUMPS tables of
 * TSR_LZ_WIN_BYTES + 1 byte entries, rounded to words (lz4_core.h's parallel parse); the other
 * kernels keep the window alone. */
#if defined(TSR_LZ_EMU) || defined(TSR_LZ_WANT_JUMPS)
#if !defined(TSR_LZ_EMU) && TSR_LZ_GROUP != 32
#error "jump tables are built by groups of 32 lanes"
#endif
#define TSR_LZ_JUMPS 5
#define TSR_LZ_JUMP_WORDS (TSR_LZ_WIN_WORDS + 1)
#endif

/* A warp's window: shared memory on the GPU. */
struct tsr_lz_smem {
	uint32_t w[TSR_LZ_WIN_WORDS];
#ifdef TSR_LZ_JUMPS
	uint32_t jump[TSR_LZ_JUMPS][TSR_LZ_JUMP_WORDS];
#endif
};

/* The longest input and the largest capacity a stream may have: offsets are 32-bit, where
 * 64-bit ones took two instructions an add or compare (and a call a modulo) in every sequence's
 * parse. liblz4 takes no more (its sizes are ints), and a blosc chunk is smaller. A longer
 * input is refused (TSR_CUDA_LZ_E_LONG); a larger capacity is taken as this one. */
#define TSR_LZ_MAX 0x7fffffffu

/* A length made of 255s (LZ4's and BloscLZ's long runs) added up with x at most 2^31, past any
 * input or capacity (TSR_LZ_MAX), so that it cannot wrap and later checks refuse it as the
 * 64-bit sum would be refused; bytes up to 255 and a few more still fit in 32 bits. */
TSR_LZ_D uint32_t tsr_lz_sat(uint32_t x)
{
	return x < 0x80000000u ? x : 0x80000000u;
}

/* A stream being decoded (identical in every lane). */
struct tsr_lz {
	const uint8_t *in;
	uint32_t n;             /* input bytes (at most TSR_LZ_MAX) */
	int32_t wstart;         /* input offset of the window's first byte (may be < 0: the
				   window starts at an aligned word) */
	struct tsr_lz_smem *m;
};

/* The aligned input word at offset b (in + b aligned): its bytes outside [0, n) read as 0, and
 * never read. (64-bit: b runs a window past n, which may pass INT32_MAX.) */
TSR_LZ_D uint32_t tsr_lz_word(const struct tsr_lz *z, int64_t b)
{
	if (b >= 0 && b + 4 <= (int64_t)z->n)
		return *(const uint32_t *)(const void *)(z->in + b);
	uint32_t w = 0;
	for (int k = 0; k < 4; k++)
		if (b + k >= 0 && b + k < (int64_t)z->n)
			w |= (uint32_t)z->in[b + k] << (8 * k);
	return w;
}

/* Fills the window with the aligned words from the one holding byte p on. */
TSR_LZ_D void tsr_lz_fill(struct tsr_lz *z, uint32_t p)
{
	int32_t start = (int32_t)p - (int32_t)(((uintptr_t)z->in + p) & 3u);
	TSR_LZ_SYNCWARP(); /* every lane has read the old window */
	for (uint32_t i = TSR_LZ_LANE; i < TSR_LZ_WIN_WORDS; i += TSR_LZ_NLANES)
		z->m->w[i] = tsr_lz_word(z, (int64_t)start + 4 * (int64_t)i);
	TSR_LZ_SYNCWARP();
	z->wstart = start;
}

/* Window byte k (k < TSR_LZ_WIN_BYTES). */
TSR_LZ_D uint32_t tsr_lz_win(const struct tsr_lz *z, uint32_t k)
{
	return z->m->w[k >> 2] >> (8 * (k & 3u)) & 0xffu;
}

/* Byte p's offset in the window, the window moved to p first unless it holds `need` bytes from
 * p on (p < n: the caller checks; 1 <= need <= TSR_LZ_WIN_BYTES). */
TSR_LZ_D uint32_t tsr_lz_at(struct tsr_lz *z, uint32_t p, uint32_t need)
{
	uint32_t k = p - (uint32_t)z->wstart; /* (p < wstart wraps to a huge k) */
	if (k > TSR_LZ_WIN_BYTES - need) {
		tsr_lz_fill(z, p);
		k = p - (uint32_t)z->wstart;
	}
	return k;
}

/* Input byte p (p < n: the caller checks). */
TSR_LZ_D uint32_t tsr_lz_byte(struct tsr_lz *z, uint32_t p)
{
	return tsr_lz_win(z, tsr_lz_at(z, p, 1));
}

/* out[op, op + len) = src[0, len); src does not overlap the bytes written. */
TSR_LZ_D void tsr_lz_copy(uint8_t *out, uint32_t op, const uint8_t *src, uint32_t len)
{
	const uint32_t step = 4 * TSR_LZ_NLANES;
	/* (the lane's bytes at constant offsets from one pointer a round: indexed by op + j, each
	 * store had a 64-bit add of its own) */
	for (uint32_t base = 0; base < len; base += step) {
		uint8_t v[4];
		const uint32_t j0 = base + TSR_LZ_LANE;
		const uint8_t *sq = src + j0;
		uint8_t *dq = out + op + j0;
#ifndef TSR_LZ_EMU
#pragma unroll
#endif
		for (uint32_t u = 0; u < 4; u++)
			v[u] = j0 + u * TSR_LZ_NLANES < len ? sq[u * TSR_LZ_NLANES] : 0;
#ifndef TSR_LZ_EMU
#pragma unroll
#endif
		for (uint32_t u = 0; u < 4; u++)
			if (j0 + u * TSR_LZ_NLANES < len)
				dq[u * TSR_LZ_NLANES] = v[u];
	}
}

#if TSR_LZ_WIDE
/* Vectors of 16 bytes a lane in flight in a long literal run's copy (below). */
#ifndef TSR_LZ_VECS
#define TSR_LZ_VECS 4u
#endif

/* 16 input bytes as four words. */
struct tsr_lz_v16 {
	uint32_t w[4];
};

/* The 16 input bytes at offset b, in + b 16-byte aligned: one vector load, or at the stream's
 * ends its words one at a time, bytes outside [0, n) read as 0 and never read. */
TSR_LZ_D struct tsr_lz_v16 tsr_lz_vec(const struct tsr_lz *z, int64_t b)
{
	struct tsr_lz_v16 v;
	if (b >= 0 && b + 16 <= (int64_t)z->n) {
#ifdef TSR_LZ_EMU
		memcpy(v.w, z->in + b, 16); /* (the 16 bytes at once, as the GPU: the fuzz target's
					       guard page sees a read past the stream) */
#else
		const uint4 q = *(const uint4 *)(const void *)(z->in + b);
		v.w[0] = q.x, v.w[1] = q.y, v.w[2] = q.z, v.w[3] = q.w;
#endif
		return v;
	}
	for (int k = 0; k < 4; k++)
		v.w[k] = tsr_lz_word(z, b + 4 * k);
	return v;
}

/* Of a, b, c and d, the one q (0..3) names; q is the same in every lane, so that the words stay
 * in registers (an array indexed by it went to local memory). */
TSR_LZ_D uint32_t tsr_lz_sel4(uint32_t q, uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
	const uint32_t x = q & 1u ? b : a, y = q & 1u ? d : c;
	return q & 2u ? y : x;
}

/* Bits r..r + 31 of hi:lo (r < 32). */
TSR_LZ_D uint32_t tsr_lz_fsr(uint32_t lo, uint32_t hi, uint32_t r)
{
#ifdef TSR_LZ_EMU
	return r ? lo >> r | hi << (32 - r) : lo;
#else
	return __funnelshift_r(lo, hi, r);
#endif
}

/*
 * A long literal run (the few-streams kernels): out[op, op + len) = input [ip, ip + len). The
 * output is written as aligned 16-byte vectors, TSR_LZ_VECS a lane in flight, each made of the
 * two aligned input vectors its bytes lie in, shifted by the difference of the two alignments
 * (the same for the whole run); the bytes before the output's first 16-byte boundary and after
 * its last one go a byte a lane. The first form read aligned words, 4 a lane in flight, and
 * stored each word's bytes one at a time: on an H100, 10,000 x 64 KiB of incompressible floats
 * (a literal run a stream) decoded at 914 GB/s, now 1,168; 2,048 x 128 KiB 791 -> 957, shuffled
 * floats 1.04x. Inlined, the few-streams LZ4 kernel went from 96 registers to 128; called
 * (__noinline__, 122) it lost 4-6% on the 2,048-stream rows (design-notes, "lzvec"). The
 * kernels of many streams keep byte copies, whose fewer registers keep more streams resident.
 */
TSR_LZ_D void tsr_lz_copy_words(struct tsr_lz *z, uint8_t *out, uint32_t op, uint32_t ip,
				uint32_t len)
{
	/* in pieces of at most TSR_LZ_PIECE bytes (1 GiB; emu_lz4_pieces.c makes them small, so
	 * that runs cross their ends at every alignment) */
	while (len) {
		const uint32_t piece = len < TSR_LZ_PIECE ? len : TSR_LZ_PIECE;
		uint8_t *dst = out + op;
		const uint8_t *src = z->in + ip;
		uint32_t h = (uint32_t)(-(uintptr_t)dst & 15u); /* bytes before the boundary */
		h = h < piece ? h : piece;
		for (uint32_t j = TSR_LZ_LANE; j < h; j += TSR_LZ_NLANES)
			dst[j] = src[j];
		const uint32_t nvec = (piece - h) / 16u;
		/* output vector i's bytes start s bytes into the input's aligned vector at a + 16 i */
		const uint32_t s = (uint32_t)(((uintptr_t)src + h) & 15u);
		const int64_t a = (int64_t)ip + h - s;
		const uint32_t q = s >> 2, r = 8u * (s & 3u);
		uint8_t *dv = dst + h;
		for (uint32_t base = 0; base < nvec; base += TSR_LZ_VECS * TSR_LZ_NLANES) {
			struct tsr_lz_v16 lo[TSR_LZ_VECS], hi[TSR_LZ_VECS];
#ifndef TSR_LZ_EMU
#pragma unroll
#endif
			for (uint32_t u = 0; u < TSR_LZ_VECS; u++) {
				const uint32_t i = base + u * TSR_LZ_NLANES + TSR_LZ_LANE;
				if (i < nvec) {
					lo[u] = tsr_lz_vec(z, a + 16 * (int64_t)i);
					hi[u] = s ? tsr_lz_vec(z, a + 16 * (int64_t)i + 16) : lo[u];
				}
			}
#ifndef TSR_LZ_EMU
#pragma unroll
#endif
			for (uint32_t u = 0; u < TSR_LZ_VECS; u++) {
				const uint32_t i = base + u * TSR_LZ_NLANES + TSR_LZ_LANE;
				if (i >= nvec)
					continue;
				/* words q to q + 4 of the two vectors' eight */
				const uint32_t *l = lo[u].w, *g = hi[u].w;
				const uint32_t c[5] = {tsr_lz_sel4(q, l[0], l[1], l[2], l[3]),
						       tsr_lz_sel4(q, l[1], l[2], l[3], g[0]),
						       tsr_lz_sel4(q, l[2], l[3], g[0], g[1]),
						       tsr_lz_sel4(q, l[3], g[0], g[1], g[2]),
						       tsr_lz_sel4(q, g[0], g[1], g[2], g[3])};
				uint32_t o[4];
#ifndef TSR_LZ_EMU
#pragma unroll
#endif
				for (uint32_t k = 0; k < 4; k++)
					o[k] = tsr_lz_fsr(c[k], c[k + 1], r);
				uint8_t *d = dv + 16 * (size_t)i;
#ifdef TSR_LZ_EMU
				for (uint32_t k = 0; k < 16; k++)
					d[k] = (uint8_t)(o[k >> 2] >> (8 * (k & 3u)));
#else
				*(uint4 *)(void *)d = make_uint4(o[0], o[1], o[2], o[3]);
#endif
			}
		}
		for (uint32_t j = h + 16 * nvec + TSR_LZ_LANE; j < piece; j += TSR_LZ_NLANES)
			dst[j] = src[j];
		ip += piece;
		op += piece;
		len -= piece;
	}
}

#endif

/* A literal run: out[op, op + len) = input [ip, ip + len) (inside the input: the caller
 * checked). */
TSR_LZ_D void tsr_lz_literals(struct tsr_lz *z, uint8_t *out, uint32_t op, uint32_t ip,
			      uint32_t len)
{
#if TSR_LZ_WIDE
	if (len >= 4 * TSR_LZ_NLANES) {
		tsr_lz_copy_words(z, out, op, ip, len);
		return;
	}
#endif
	tsr_lz_copy(out, op, z->in + ip, len);
}

/* A match: out[op, op + len) from dist bytes back (1 <= dist <= op; may overlap). */
TSR_LZ_D void tsr_lz_match(uint8_t *out, uint32_t op, uint32_t dist, uint32_t len)
{
	TSR_LZ_SYNCWARP(); /* the warp's earlier writes, seen by every lane */
	const uint8_t *src = out + op - dist;
	if (dist >= len) {
		if (len <= TSR_LZ_SHORT) {
			/* a short match (most are): one load and one store a lane, where the copy
			 * loop's four-deep unrolling costs four times the instructions (H200 ncu: a
			 * stream's time is its warp's instructions, one sequence after another) */
			for (uint32_t j = TSR_LZ_LANE; j < len; j += TSR_LZ_NLANES)
				out[op + j] = src[j];
		} else {
			tsr_lz_copy(out, op, src, len);
		}
		return;
	}
	/* byte j is src[j % dist]: lane l starts at l % dist and steps 32 % dist per round */
	uint32_t r = TSR_LZ_LANE % dist, adv = TSR_LZ_NLANES % dist;
	for (uint32_t j = TSR_LZ_LANE; j < len; j += TSR_LZ_NLANES) {
		out[op + j] = src[r];
		r += adv;
		r -= r >= dist ? dist : 0;
	}
}

/* A match loaded and not yet stored (lz4_core.h's tsr_lz4_block): out[op, op + len), lane l's
 * bytes l, l + lanes, ... */
struct tsr_lz_pend {
	uint32_t op, len;
	uint8_t v[TSR_LZ_SHORT / TSR_LZ_NLANES];
};

/* Stores the pending match, if any (the next match's loads may read it: the caller syncs the
 * group after). */
TSR_LZ_D void tsr_lz_pend_flush(uint8_t *out, struct tsr_lz_pend *p)
{
	uint8_t *dq = out + p->op + TSR_LZ_LANE;
#ifndef TSR_LZ_EMU
#pragma unroll
#endif
	for (uint32_t u = 0; u < TSR_LZ_SHORT / TSR_LZ_NLANES; u++)
		if (TSR_LZ_LANE + u * TSR_LZ_NLANES < p->len)
			dq[u * TSR_LZ_NLANES] = p->v[u];
	p->len = 0;
}

/* A match: out[op, op + len) from dist bytes back (1 <= dist <= op; may overlap), the pending
 * one stored first; a short match that does not overlap itself is only loaded, and left
 * pending. */
TSR_LZ_D void tsr_lz_match_defer(uint8_t *out, uint32_t op, uint32_t dist, uint32_t len,
				 struct tsr_lz_pend *p)
{
	tsr_lz_pend_flush(out, p);
	if (dist < len || len > TSR_LZ_SHORT) {
		tsr_lz_match(out, op, dist, len);
		return;
	}
	TSR_LZ_SYNCWARP(); /* the group's earlier writes, seen by every lane */
	const uint8_t *sq = out + op - dist + TSR_LZ_LANE;
#ifndef TSR_LZ_EMU
#pragma unroll
#endif
	for (uint32_t u = 0; u < TSR_LZ_SHORT / TSR_LZ_NLANES; u++)
		p->v[u] = TSR_LZ_LANE + u * TSR_LZ_NLANES < len ? sq[u * TSR_LZ_NLANES] : 0;
	p->op = op;
	p->len = len;
}

#endif /* TSR_LZ_CORE_H */
