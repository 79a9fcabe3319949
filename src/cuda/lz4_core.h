/* lz4_core.h - one LZ4 block (a blosc lz4/lz4hc stream, or numcodecs' size-prefixed LZ4) decoded by one warp; also builds as C for the CPU. */
#ifndef TSR_LZ4_CORE_H
#define TSR_LZ4_CORE_H

#include "lz_core.h"

/*
 * An LZ4 block is sequences of a token (literal count in its high 4 bits, match length - 4 in
 * its low 4; 15 means more: bytes follow and add to it until one is not 255), the literals, then
 * a 2-byte little-endian match distance. The last sequence ends after its literals, at the end
 * of the input. Accepted: every block liblz4's LZ4_decompress_safe accepts with the output's
 * capacity, to the same bytes, but for a match of distance 0 (which liblz4 1.9 copies from the
 * output's own unwritten bytes). Refused: input that ends inside a sequence, a distance of 0 or
 * reaching before the output, output past the capacity. (LZ4's parsing rules for the block's
 * end, which encoders keep to leave decoders room to copy wide, are not checked: a block that
 * breaks only those decodes to what its sequences say.)
 */

/* Window bytes the fast path needs from a token on: the token, up to 14 literals and the
 * 2-byte distance (17), with room to spare; the window moves to the token when fewer remain. */
#define TSR_LZ4_AHEAD 24u

/* The fast path on (1) or off (0: emu_lz4_fast.c compares the two); TSR_LZ4_FAST_SEEN() runs
 * on each sequence it takes (that test counts them). */
#ifndef TSR_LZ4_FAST
#define TSR_LZ4_FAST 1
#endif
#ifndef TSR_LZ4_FAST_SEEN
#define TSR_LZ4_FAST_SEEN() ((void)0)
#endif

/* Short sequences decoded a lane each (1) or not (0: emu_lz4_fast.c compares the two);
 * TSR_LZ4_BATCH_SEEN(k) runs on each batch of k it takes. */
#ifndef TSR_LZ4_BATCHED
#define TSR_LZ4_BATCHED 1
#endif
#ifndef TSR_LZ4_BATCH_SEEN
#define TSR_LZ4_BATCH_SEEN(k) ((void)(k))
#endif
/* (the emulator runs TSR_LZ4_ROUND_SEEN() on each round of matches after a batch's first) */
#ifndef TSR_LZ4_ROUND_SEEN
#define TSR_LZ4_ROUND_SEEN() ((void)0)
#endif

#if TSR_LZ4_BATCHED
/*
 * A byte plane of shuffled floats is mostly short sequences (a few literals, a match of 4 to 18
 * bytes), and the group decoding them one after another waits, for each, on its match's load of
 * output just written (an L2 round trip) before the next. So the group parses up to
 * TSR_LZ4_BATCH such sequences first (every lane the same parse, reading the window as the
 * sequential path does), lane i keeping sequence i, and then runs them a lane each: all the
 * literals, then the matches in rounds. A round runs the lowest pending match (everything
 * before it is written) and every other whose source ends before that one's start (so inside
 * output already written); most matches of such data reach further back than the batch, so most
 * batches take one round. A sequence that is not short, or whose checks fail, ends the batch
 * and goes through the sequential path, which gives its status.
 */
#ifdef TSR_LZ_EMU
#define TSR_LZ4_BATCH 32u /* (as a warp: the parallel parse's tables reach 32 sequences) */
#else
#define TSR_LZ4_BATCH TSR_LZ_NLANES
#endif

/* A batch of fewer than TSR_LZ4_BATCH_MIN sequences, or of more than a round of matches for
 * every TSR_LZ4_BATCH_MIN of them, is taken as a sign that batches do not pay here (H200, with
 * a batch tried at every sequence: a float32 array's top byte plane, 2,048 streams of 128 KiB,
 * 84.2 -> 72.5 GB/s, where shuffled floats gained 8%; with 16 sequential ones after each such
 * batch, 84.3 -> 81.2); the sequences after it go the sequential way, TSR_LZ4_CALM of them
 * after the first, twice as many after each next one in a row, at most TSR_LZ4_CALM_MAX. */
#ifndef TSR_LZ4_BATCH_MIN
#define TSR_LZ4_BATCH_MIN 4u
#endif
#ifndef TSR_LZ4_CALM
#define TSR_LZ4_CALM 16u
#endif
#ifndef TSR_LZ4_CALM_MAX
#define TSR_LZ4_CALM_MAX 1024u
#endif
/* (all three set at build time, for scripts/gpu-lz-kernels' VARIANTS; TSR_LZ4_CALM 0: a batch
 * at every sequence) */

/* The batch's step called (TSR_LZ4_BATCH_CALL 1) rather than inlined (0), so that the
 * sequential path's code stays as it is without batches: inlined, the few-streams kernel lost 2%
 * on 2,048 streams of incompressible floats, where batches are rarely tried; called, it gained
 * 3-10% on them, and no row of scripts/gpu-lz-kernels lost against the kernel without batches
 * (H200; design-notes, "lzbatch landed"). */
#ifndef TSR_LZ4_BATCH_CALL
#define TSR_LZ4_BATCH_CALL 1
#endif
#if TSR_LZ4_BATCH_CALL && !defined(TSR_LZ_EMU)
#define TSR_LZ4_STEP_D static __device__ __noinline__
#else
#define TSR_LZ4_STEP_D TSR_LZ_D
#endif

/* A short sequence: literals in[lip, lip + lit) to out[op, ...), then mlen bytes from dist back. */
struct tsr_lz4_seq {
	uint32_t lip, op, lit, mlen, dist;
};

/* Where sequence s's match starts in the output. */
TSR_LZ_D uint32_t tsr_lz4_match_at(const struct tsr_lz4_seq *s)
{
	return s->op + s->lit;
}

/* One lane's literal run (at most 14 bytes): all loads, then all stores. */
TSR_LZ_D void tsr_lz4_seq_lits(const uint8_t *in, uint8_t *out, const struct tsr_lz4_seq *s)
{
	uint8_t v[14];
#ifndef TSR_LZ_EMU
#pragma unroll
#endif
	for (uint32_t u = 0; u < 14; u++)
		v[u] = u < s->lit ? in[s->lip + u] : 0;
	uint8_t *dq = out + s->op; /* (its bytes at constant offsets: no add a store) */
#ifndef TSR_LZ_EMU
#pragma unroll
#endif
	for (uint32_t u = 0; u < 14; u++)
		if (u < s->lit)
			dq[u] = v[u];
}

/* One lane's match (4 to 18 bytes) from output already written: byte u is src[u % dist], so
 * that no load reads a byte this match writes and all loads go before the stores. */
TSR_LZ_D void tsr_lz4_seq_match(uint8_t *out, const struct tsr_lz4_seq *s)
{
	const uint32_t d = tsr_lz4_match_at(s);
	const uint8_t *src = out + d - s->dist;
	uint8_t v[18];
	uint32_t r = 0;
#ifndef TSR_LZ_EMU
#pragma unroll
#endif
	for (uint32_t u = 0; u < 18; u++) {
		v[u] = u < s->mlen ? src[r] : 0;
		r = r + 1 == s->dist ? 0 : r + 1;
	}
	uint8_t *dq = out + d;
#ifndef TSR_LZ_EMU
#pragma unroll
#endif
	for (uint32_t u = 0; u < 18; u++)
		if (u < s->mlen)
			dq[u] = v[u];
}

/* Where a batch's sequences are kept: lane i's own on the GPU, element i of an array in the
 * emulator (which runs the lanes' part one lane after another). */
#ifdef TSR_LZ_EMU
#define TSR_LZ4_KEEP(seqs, i, s) ((seqs)[i] = (s))
#else
#define TSR_LZ4_KEEP(seqs, i, s)                                                          \
	do {                                                                               \
		if (TSR_LZ_LANE == (i))                                                    \
			*(seqs) = (s);                                                     \
	} while (0)
#endif

/* Whether a token's sequence is short: fewer than 15 literals and a match length code under 15
 * (no length bytes follow). */
TSR_LZ_D int tsr_lz4_short(uint32_t tok)
{
	return tok >> 4 < 15 && (tok & 15u) < 15;
}

/* Whether a short sequence placed at op (at most cap: the parses keep it so) passes the batch's
 * checks of the output: inside the capacity, its match inside the output written by then. */
TSR_LZ_D int tsr_lz4_fits(uint32_t op, uint32_t cap, uint32_t lit, uint32_t mlen, uint32_t dist)
{
	return cap - op >= lit + mlen && dist != 0 && dist <= op + lit;
}

/* Parses up to TSR_LZ4_BATCH short sequences from *ip on (fewer than 15 literals, a match
 * length code under 15, the distance inside the input, the match inside the output written
 * by then and the sequence inside the capacity) into seqs; moves *ip and *op past them and
 * returns how many. */
TSR_LZ_D uint32_t tsr_lz4_parse(struct tsr_lz *z, uint32_t *ipp, uint32_t *opp, uint32_t cap,
				struct tsr_lz4_seq *seqs)
{
	const uint32_t n = z->n;
	uint32_t ip = *ipp, op = *opp;
	uint32_t cnt = 0;
	while (cnt < TSR_LZ4_BATCH && ip < n) {
		const uint32_t k = tsr_lz_at(z, ip, TSR_LZ4_AHEAD);
		const uint32_t tok = tsr_lz_win(z, k);
		const uint32_t lit = tok >> 4, mlen = (tok & 15u) + 4;
		if (!tsr_lz4_short(tok) || n - ip < lit + 3)
			break;
		const uint32_t dist = tsr_lz_win(z, k + 1 + lit) | tsr_lz_win(z, k + 2 + lit) << 8;
		if (!tsr_lz4_fits(op, cap, lit, mlen, dist))
			break;
		struct tsr_lz4_seq s = {ip + 1, op, lit, mlen, dist};
		TSR_LZ4_KEEP(seqs, cnt, s);
		ip += lit + 3;
		op += lit + mlen;
		cnt++;
	}
	*ipp = ip;
	*opp = op;
	return cnt;
}

/* Whether s's match may run in a round whose lowest pending match starts at `first` (is_low: s
 * is that one): all output before `first` is written, so a source that ends there is final. The
 * one rule of both builds of tsr_lz4_run, so that the emulator tests the kernel's. */
TSR_LZ_D int tsr_lz4_ready(const struct tsr_lz4_seq *s, uint32_t first, int is_low)
{
	return is_low || tsr_lz4_match_at(s) - s->dist + s->mlen <= first;
}

/* The batch's parse in parallel (1: the few-streams kernel's groups of 32 lanes, and the
 * emulator) or one sequence after another (0, and wherever the group has no jump tables). */
#if defined(TSR_LZ_JUMPS) && TSR_LZ_WIN_WORDS == 32
#ifndef TSR_LZ4_PPARSE
#define TSR_LZ4_PPARSE 1
#endif
#else
#undef TSR_LZ4_PPARSE
#define TSR_LZ4_PPARSE 0
#endif

#if TSR_LZ4_PPARSE
/*
 * The parse above takes a sequence after another, and each waits on the one before for where
 * it starts: on a stream of short sequences (a float array's top byte plane where its values
 * cross zero: 5,400 sequences of 6 bytes in 32 KiB) a group spent about 60 instructions a
 * sequence on it, one dependent load after another, and a slot's decode lasted as long as that
 * stream's. So the group parses the window at once: every byte of it is taken as a token, and
 * table 0 says where that sequence would end (its next token), or the end of the window when it
 * is not short or does not lie inside the window and the stream (END, which leads to itself);
 * table b is table b - 1 taken twice (2^b sequences on), four entries a lane; lane i then
 * follows the tables from the batch's first token by the bits of i to sequence i's token, and
 * parses that one sequence. Its output place is a prefix sum of the lanes' lengths, and the
 * batch ends before the first lane whose sequence is missing or fails a check of the parse
 * above, unless it is missing only because the window ends there: then the lanes after the
 * ones taken parse on from it the same way, in the window moved there. The same sequences as
 * the serial parse, and the same status, bytes and batches.
 */
#define TSR_LZ4_PP_END TSR_LZ_WIN_BYTES
/* the window bytes from ip on that a batch starts with (else it is refilled at ip) */
#ifndef TSR_LZ4_PP_NEED
#define TSR_LZ4_PP_NEED 64u
#endif

/* Window byte p's entry in table 0: its sequence's end if the sequence is short and lies inside
 * the first lim bytes of the window (the stream's), else END. */
TSR_LZ_D uint32_t tsr_lz4_pp_next(uint32_t tok, uint32_t p, uint32_t lim)
{
	const uint32_t end = p + 3 + (tok >> 4);
	return tsr_lz4_short(tok) && end <= lim ? end : TSR_LZ4_PP_END;
}

/* Lane l's word of table 0: the entries of window bytes 4l to 4l + 3. */
TSR_LZ_D uint32_t tsr_lz4_pp_first(const struct tsr_lz_smem *m, uint32_t l, uint32_t lim)
{
	const uint32_t w = m->w[l];
	uint32_t e = 0;
#ifndef TSR_LZ_EMU
#pragma unroll
#endif
	for (uint32_t j = 0; j < 4; j++)
		e |= tsr_lz4_pp_next(w >> (8 * j) & 0xffu, 4 * l + j, lim) << (8 * j);
	return e;
}

/* Entry x of table b. */
TSR_LZ_D uint32_t tsr_lz4_pp_at(const struct tsr_lz_smem *m, uint32_t b, uint32_t x)
{
	return m->jump[b][x >> 2] >> (8 * (x & 3u)) & 0xffu;
}

/* A lane's word of table b from its word e of table b - 1: each entry followed once more. */
TSR_LZ_D uint32_t tsr_lz4_pp_double(const struct tsr_lz_smem *m, uint32_t b, uint32_t e)
{
	uint32_t d = 0;
#ifndef TSR_LZ_EMU
#pragma unroll
#endif
	for (uint32_t j = 0; j < 4; j++)
		d |= tsr_lz4_pp_at(m, b - 1, e >> (8 * j) & 0xffu) << (8 * j);
	return d;
}

/* Sequence i's token from the batch's first (window byte k0), or END. */
TSR_LZ_D uint32_t tsr_lz4_pp_walk(const struct tsr_lz_smem *m, uint32_t k0, uint32_t i)
{
	uint32_t x = k0;
#ifndef TSR_LZ_EMU
#pragma unroll
#endif
	for (uint32_t b = 0; b < TSR_LZ_JUMPS; b++)
		if (i >> b & 1u)
			x = tsr_lz4_pp_at(m, b, x);
	return x;
}

/* The sequence whose token is window byte x (END: none): its literals, match length and
 * distance; returns 0 when it is missing or not short or not inside the stream's lim bytes. */
TSR_LZ_D int tsr_lz4_pp_seq(const struct tsr_lz *z, uint32_t x, uint32_t lim, uint32_t *lit,
			    uint32_t *mlen, uint32_t *dist)
{
	*lit = 0, *mlen = 0, *dist = 0;
	if (x >= TSR_LZ4_PP_END)
		return 0;
	const uint32_t tok = tsr_lz_win(z, x);
	*lit = tok >> 4;
	*mlen = (tok & 15u) + 4;
	if (!tsr_lz4_short(tok) || x + 3 + *lit > lim)
		return 0;
	*dist = tsr_lz_win(z, x + 1 + *lit) | tsr_lz_win(z, x + 2 + *lit) << 8;
	return 1;
}

/* Whether the sequence at window byte x (END: none) stops a parse only because the window ends
 * there: the sequence before ended on the window's last byte, or this one is short and reaches
 * past the window where the stream goes on. The parse then goes on from it in a window moved
 * there, so that a batch holds the sequences the serial parse would give it. */
TSR_LZ_D int tsr_lz4_pp_cut(const struct tsr_lz *z, uint32_t x, uint32_t lim)
{
	if (x >= TSR_LZ4_PP_END)
		return 1;
	const uint32_t tok = tsr_lz_win(z, x);
	return lim == TSR_LZ_WIN_BYTES && tsr_lz4_short(tok) && x + 3 + (tok >> 4) > lim;
}

/* The window's bytes that are the stream's (at most the window). */
TSR_LZ_D uint32_t tsr_lz4_pp_lim(const struct tsr_lz *z)
{
	const int64_t left = (int64_t)z->n - z->wstart;
	return left < TSR_LZ_WIN_BYTES ? (uint32_t)left : TSR_LZ_WIN_BYTES;
}

/* (the emulator runs TSR_LZ4_PP_MORE() each time a parse goes on in a moved window) */
#ifndef TSR_LZ4_PP_MORE
#define TSR_LZ4_PP_MORE() ((void)0)
#endif

/* tsr_lz4_parse's contract, in parallel (above): the same sequences. */
TSR_LZ_D uint32_t tsr_lz4_pparse(struct tsr_lz *z, uint32_t *ipp, uint32_t *opp, uint32_t cap,
				 struct tsr_lz4_seq *seqs)
{
	uint32_t ip = *ipp, op = *opp, cnt = 0;
	struct tsr_lz_smem *m = z->m;
#ifdef TSR_LZ_EMU
	while (ip < z->n) {
		const uint32_t k0 = tsr_lz_at(z, ip, TSR_LZ4_PP_NEED);
		const uint32_t lim = tsr_lz4_pp_lim(z);
		for (uint32_t l = 0; l < 32; l++)
			m->jump[0][l] = tsr_lz4_pp_first(m, l, lim);
		for (uint32_t b = 0; b < TSR_LZ_JUMPS; b++)
			m->jump[b][32] = TSR_LZ4_PP_END;
		for (uint32_t b = 1; b < TSR_LZ_JUMPS; b++)
			for (uint32_t l = 0; l < 32; l++)
				m->jump[b][l] = tsr_lz4_pp_double(m, b, m->jump[b - 1][l]);
		int more = 0;
		const uint32_t was = cnt;
		for (uint32_t j = 0; cnt < 32; cnt++, j++) {
			uint32_t lit, mlen, dist;
			const uint32_t x = tsr_lz4_pp_walk(m, k0, j);
			if (!tsr_lz4_pp_seq(z, x, lim, &lit, &mlen, &dist) ||
			    !tsr_lz4_fits(op, cap, lit, mlen, dist)) {
				more = tsr_lz4_pp_cut(z, x, lim);
				break;
			}
			struct tsr_lz4_seq s = {(uint32_t)z->wstart + x + 1, op, lit, mlen, dist};
			TSR_LZ4_KEEP(seqs, cnt, s);
			op += lit + mlen;
			ip = (uint32_t)z->wstart + x + 3 + lit;
		}
		if (!more || cnt == was) /* (a moved window starts the sequence: never twice) */
			break;
		TSR_LZ4_PP_MORE();
	}
#else
	const uint32_t l = TSR_LZ_LANE;
	struct tsr_lz4_seq mine = {0, 0, 0, 0, 0};
	while (ip < z->n) {
		const uint32_t k0 = tsr_lz_at(z, ip, TSR_LZ4_PP_NEED);
		const uint32_t lim = tsr_lz4_pp_lim(z);
		uint32_t e = tsr_lz4_pp_first(m, l, lim);
		m->jump[0][l] = e;
		if (l < TSR_LZ_JUMPS)
			m->jump[l][32] = TSR_LZ4_PP_END;
		for (uint32_t b = 1; b < TSR_LZ_JUMPS; b++) {
			TSR_LZ_SYNCWARP();
			e = tsr_lz4_pp_double(m, b, e);
			m->jump[b][l] = e;
		}
		TSR_LZ_SYNCWARP();
		/* lanes cnt on take the sequences from ip on */
		uint32_t lit = 0, mlen = 0, dist = 0, x = TSR_LZ4_PP_END;
		int ok = 0;
		if (l >= cnt) {
			x = tsr_lz4_pp_walk(m, k0, l - cnt);
			ok = tsr_lz4_pp_seq(z, x, lim, &lit, &mlen, &dist);
		}
		/* their output places: an inclusive sum of their lengths */
		const uint32_t len = ok ? lit + mlen : 0;
		uint32_t sum = len;
#pragma unroll
		for (uint32_t d = 1; d < 32; d <<= 1) {
			const uint32_t v = __shfl_up_sync(TSR_LZ_MASK, sum, d);
			if (l >= d)
				sum += v;
		}
		const uint32_t at = op + sum - len;
		const unsigned bad = __ballot_sync(
			TSR_LZ_MASK, l >= cnt && (!ok || !tsr_lz4_fits(at, cap, lit, mlen, dist)));
		const uint32_t f = bad ? (uint32_t)__ffs(bad) - 1 : 32u;
		const int cut = __shfl_sync(TSR_LZ_MASK, tsr_lz4_pp_cut(z, x, lim), f & 31u);
		if (l >= cnt && l < f) {
			const struct tsr_lz4_seq s = {(uint32_t)z->wstart + x + 1, at, lit, mlen, dist};
			mine = s;
		}
		if (f > cnt) {
			ip = (uint32_t)z->wstart + __shfl_sync(TSR_LZ_MASK, x + 3 + lit, f - 1);
			op += __shfl_sync(TSR_LZ_MASK, sum, f - 1);
		}
		const uint32_t was = cnt;
		cnt = f;
		TSR_LZ_SYNCWARP(); /* (every lane has read the tables and window before they change) */
		if (f == 32 || !cut || f == was) /* (a moved window starts the sequence: never twice) */
			break;
	}
	*seqs = mine;
#endif
	*ipp = ip;
	*opp = op;
	return cnt;
}
#endif /* TSR_LZ4_PPARSE */

#ifdef TSR_LZ_EMU
/* The lanes' part, lane after lane: the literals, then rounds of matches, each round's lanes
 * chosen before any runs and run from the highest down (a match that read another of its round
 * would read bytes not yet written, and differ from the sequential decoder). */
static inline uint32_t tsr_lz4_run(const uint8_t *in, uint8_t *out,
				   const struct tsr_lz4_seq *seqs, uint32_t cnt)
{
	uint32_t rounds = 0;
	for (uint32_t i = cnt; i-- > 0;)
		tsr_lz4_seq_lits(in, out, &seqs[i]);
	uint64_t pending = cnt >= 64 ? ~0ull : (1ull << cnt) - 1;
	for (; pending; rounds++) {
		if (rounds)
			TSR_LZ4_ROUND_SEEN();
		uint32_t low = 0;
		while (!(pending >> low & 1))
			low++;
		const uint32_t first = tsr_lz4_match_at(&seqs[low]);
		uint64_t ready = 0;
		for (uint32_t i = 0; i < cnt; i++)
			if ((pending >> i & 1) && tsr_lz4_ready(&seqs[i], first, i == low))
				ready |= 1ull << i;
		for (uint32_t i = cnt; i-- > 0;)
			if (ready >> i & 1)
				tsr_lz4_seq_match(out, &seqs[i]);
		pending &= ~ready;
	}
	return rounds;
}
#else
/* The lanes' part: lane i runs sequence i (seqs: its own), as above; returns its rounds. */
TSR_LZ_D uint32_t tsr_lz4_run(const uint8_t *in, uint8_t *out, const struct tsr_lz4_seq *seqs,
			      uint32_t cnt)
{
	uint32_t rounds = 0;
	const struct tsr_lz4_seq s = *seqs;
	bool pending = TSR_LZ_LANE < cnt;
	if (pending)
		tsr_lz4_seq_lits(in, out, &s);
	for (;;) {
		TSR_LZ_SYNCWARP(); /* the group's writes so far, seen by every lane */
		const unsigned mask = __ballot_sync(TSR_LZ_MASK, pending) & TSR_LZ_MASK;
		if (!mask)
			return rounds;
		rounds++;
		const int low = (__ffs(mask) - 1) & (TSR_LZ_GROUP - 1);
		const uint32_t first =
			__shfl_sync(TSR_LZ_MASK, tsr_lz4_match_at(&s), low, TSR_LZ_GROUP);
		if (pending && tsr_lz4_ready(&s, first, TSR_LZ_LANE == (unsigned)low)) {
			tsr_lz4_seq_match(out, &s);
			pending = false;
		}
	}
}
#endif

/* A batch's step: its parse and its lanes' part, from and to values, not pointers, so that a
 * called step leaves the caller's state in registers. */
struct tsr_lz4_step {
	uint32_t ip, op;
	int32_t wstart;
	uint32_t cnt, rounds;
};

TSR_LZ4_STEP_D struct tsr_lz4_step tsr_lz4_batch_step(struct tsr_lz z, uint32_t ip, uint32_t op,
						      uint32_t cap, uint8_t *out)
{
#ifdef TSR_LZ_EMU
	struct tsr_lz4_seq seqs[TSR_LZ4_BATCH];
#else
	struct tsr_lz4_seq seqs[1] = {};
#endif
	struct tsr_lz4_step r;
	TSR_LZ_GLOBAL(z.in); /* (a called step: the caller's knowledge does not cross) */
	TSR_LZ_GLOBAL(out);
	TSR_LZ_SHARED(z.m);
#if TSR_LZ4_PPARSE
	r.cnt = tsr_lz4_pparse(&z, &ip, &op, cap, seqs);
#else
	r.cnt = tsr_lz4_parse(&z, &ip, &op, cap, seqs);
#endif
	r.rounds = r.cnt ? tsr_lz4_run(z.in, out, seqs, r.cnt) : 0;
	r.ip = ip;
	r.op = op;
	r.wstart = z.wstart;
	return r;
}
#endif /* TSR_LZ4_BATCHED */

/* Decodes z's block into out (cap bytes); *got: bytes written (on failure, so far). */
TSR_LZ_D int tsr_lz4_block(struct tsr_lz *z, uint32_t ip, uint8_t *out, uint32_t cap,
			   uint32_t *got)
{
	const uint32_t n = z->n;
	uint32_t op = 0;
	int st = TSR_CUDA_LZ_OK;
	/* A short match loaded, stored at the next match or the end: its loads wait on output just
	 * written (a round trip to L2), and a store made at once stalled the group on them, where
	 * held back it waits only if the next sequence's parse and literals take less than that
	 * round trip (H100: every LZ4 row 1.00-1.06 against stores at once, shuffled floats on
	 * 10,000 streams 325.4 -> 335.5 GB/s; BloscLZ's decoder, built the same way, lost up to 8%
	 * on incompressible floats and keeps its stores at once: design-notes, "defer landed"). */
	struct tsr_lz_pend pend;
	pend.op = 0;
	pend.len = 0;
#if TSR_LZ4_BATCHED
	uint32_t calm = 0; /* sequences to go the sequential way before the next batch */
	uint32_t calm_next = TSR_LZ4_CALM; /* after the next batch that does not pay */
#endif
	if (ip >= n) {
		st = TSR_CUDA_LZ_E_TRUNCATED; /* (liblz4: an empty block is an error) */
		goto done;
	}
	for (;;) {
		uint32_t tok;
		uint32_t lit, dist; /* (declared before the fast path's jump past the parse) */
#if TSR_LZ4_BATCHED
		if (calm) {
			calm--;
		} else {
			tsr_lz_pend_flush(out, &pend); /* (the batch's matches may read it) */
			const struct tsr_lz4_step r = tsr_lz4_batch_step(*z, ip, op, cap, out);
			const uint32_t cnt = r.cnt, rounds = r.rounds;
			ip = r.ip;
			op = r.op;
			z->wstart = r.wstart;
			if (cnt)
				TSR_LZ4_BATCH_SEEN(cnt);
			if (cnt < TSR_LZ4_BATCH_MIN || rounds * TSR_LZ4_BATCH_MIN > cnt) {
				calm = calm_next;
				calm_next = calm_next < TSR_LZ4_CALM_MAX ? 2 * calm_next
									 : TSR_LZ4_CALM_MAX;
			} else {
				calm_next = TSR_LZ4_CALM;
			}
			if (cnt)
				continue;
		}
#endif
#if TSR_LZ4_FAST
		/* The common sequence, fewer than 15 literals with its distance inside the input
		 * and its literals inside the output: token, literals and distance read from the
		 * window after one check that it holds them, where the general parse below checks
		 * each byte it reads (H200 ncu: the parse was half of a warp's instructions). Both
		 * give the same statuses and bytes. */
		if (ip < n) {
			const uint32_t k = tsr_lz_at(z, ip, TSR_LZ4_AHEAD);
			tok = tsr_lz_win(z, k);
			uint32_t flit = tok >> 4;
			if (flit < 15 && n - ip >= flit + 3 && cap - op >= flit) {
				TSR_LZ4_FAST_SEEN();
				for (uint32_t j = TSR_LZ_LANE; j < flit; j += TSR_LZ_NLANES)
					out[op + j] = (uint8_t)tsr_lz_win(z, k + 1 + j);
				op += flit;
				dist = tsr_lz_win(z, k + 1 + flit) | tsr_lz_win(z, k + 2 + flit) << 8;
				ip += flit + 3;
				goto match;
			}
		}
#endif
		if (ip >= n) {
			st = TSR_CUDA_LZ_E_TRUNCATED;
			break;
		}
		tok = tsr_lz_byte(z, ip++);
		lit = tok >> 4;
		if (lit == 15) {
			uint32_t b;
			do {
				if (ip >= n) {
					st = TSR_CUDA_LZ_E_TRUNCATED;
					goto done;
				}
				b = tsr_lz_byte(z, ip++);
				lit = tsr_lz_sat(lit + b);
			} while (b == 255);
		}
		if (lit > n - ip) {
			st = TSR_CUDA_LZ_E_TRUNCATED;
			break;
		}
		if (lit > cap - op) {
			st = TSR_CUDA_LZ_E_OVERFLOW;
			break;
		}
		tsr_lz_literals(z, out, op, ip, lit);
		ip += lit;
		op += lit;
		if (ip == n)
			break; /* the last sequence: literals only */
		if (n - ip < 2) {
			st = TSR_CUDA_LZ_E_TRUNCATED;
			break;
		}
		dist = tsr_lz_byte(z, ip) | tsr_lz_byte(z, ip + 1) << 8;
		ip += 2;
#if TSR_LZ4_FAST
match:;
#endif
		uint32_t len = tok & 15u;
		if (len == 15) {
			uint32_t b;
			do {
				if (ip >= n) {
					st = TSR_CUDA_LZ_E_TRUNCATED;
					goto done;
				}
				b = tsr_lz_byte(z, ip++);
				len = tsr_lz_sat(len + b);
			} while (b == 255);
		}
		len += 4;
		if (dist == 0 || dist > op) {
			st = TSR_CUDA_LZ_E_DISTANCE;
			break;
		}
		if (len > cap - op) {
			st = TSR_CUDA_LZ_E_OVERFLOW;
			break;
		}
		tsr_lz_match_defer(out, op, dist, len, &pend);
		op += len;
	}
done:
	tsr_lz_pend_flush(out, &pend);
	*got = op;
	return st;
}

/* One stream of variant TSR_CUDA_LZ4_RAW (a block) or TSR_CUDA_LZ4_SIZED (numcodecs: the
 * decoded size as 4 bytes little-endian, then a block that must decode to exactly that). */
TSR_LZ_D int tsr_lz4_stream(struct tsr_lz_smem *m, const uint8_t *in, uint64_t n, uint8_t *out,
			    uint64_t cap, int variant, uint64_t *got)
{
	*got = 0;
	if ((!in && n) || (!out && cap))
		return TSR_CUDA_LZ_E_ARGUMENT;
	if (n > TSR_LZ_MAX)
		return TSR_CUDA_LZ_E_LONG;
	TSR_LZ_GLOBAL(in);
	TSR_LZ_GLOBAL(out);
	struct tsr_lz z = {in, (uint32_t)n, 0, m};
	uint32_t room = cap > TSR_LZ_MAX ? TSR_LZ_MAX : (uint32_t)cap;
	tsr_lz_fill(&z, 0);
	/* one call of the block for both variants: the kernel holds one copy of its code, not two */
	uint32_t start = 0;
	if (variant == TSR_CUDA_LZ4_SIZED) {
		if (n < 4)
			return TSR_CUDA_LZ_E_TRUNCATED;
		uint32_t size = tsr_lz_byte(&z, 0) | tsr_lz_byte(&z, 1) << 8 |
				tsr_lz_byte(&z, 2) << 16 | tsr_lz_byte(&z, 3) << 24;
		if (size > room)
			return TSR_CUDA_LZ_E_OVERFLOW;
		start = 4;
		room = size; /* (and the block must fill it: checked after) */
	}
	uint32_t made = 0;
	int st = tsr_lz4_block(&z, start, out, room, &made);
	*got = made;
	if (start && st == TSR_CUDA_LZ_OK && made != room)
		st = TSR_CUDA_LZ_E_SIZE;
	return st;
}

#endif /* TSR_LZ4_CORE_H */
