/* zstd_exec_core.h - phase c of the GPU zstd decoder: frames laid out in their outputs, each frame's sequences executed by a warp's lanes, 32 at a time, and its checksum; also builds as C for the CPU (the phases before: zstd_core.h). */
#ifndef TSR_ZSTD_EXEC_CORE_H
#define TSR_ZSTD_EXEC_CORE_H

#include "zstd_core.h"

/* Places the stream's frames in its output (cap bytes) once every block's size is known;
 * *total: the stream's decoded bytes. A status (the first failing block's, in order). A frame
 * of 4 GiB or more of output is refused (TSR_CUDA_ZSTD_E_LONG): phase c's positions are
 * offsets from the frame's first byte, 32-bit (tsr_zs_frame_exec). */
TSR_ZD int tsr_zs_layout(struct tsr_zs_frame *frames, uint32_t nframes,
			 const struct tsr_zs_block *blocks, uint64_t cap, uint64_t *total)
{
	uint64_t at = 0;
	*total = 0;
	for (uint32_t f = 0; f < nframes; f++) {
		uint64_t sum = 0;
		for (uint32_t k = 0; k < frames[f].nblocks; k++) {
			const struct tsr_zs_block *b = &blocks[frames[f].first_block + k];
			if (b->status != TSR_CUDA_ZSTD_OK)
				return b->status;
			sum += b->out_size;
		}
		if (frames[f].has_size && sum != frames[f].content_size)
			return TSR_CUDA_ZSTD_E_SIZE;
		if (sum > 0xffffffffu)
			return TSR_CUDA_ZSTD_E_LONG;
		frames[f].out_at = at;
		if (sum > cap - at)
			return TSR_CUDA_ZSTD_E_OVERFLOW;
		at += sum;
	}
	*total = at;
	return TSR_CUDA_ZSTD_OK;
}

#define TSR_ZS_P1 0x9E3779B185EBCA87ull
#define TSR_ZS_P2 0xC2B2AE3D27D4EB4Full
#define TSR_ZS_P3 0x165667B19E3779F9ull
#define TSR_ZS_P4 0x85EBCA77C2B2AE63ull
#define TSR_ZS_P5 0x27D4EB2F165667C5ull

TSR_ZD uint64_t tsr_zs_rotl(uint64_t x, unsigned r)
{
	return x << r | x >> (64 - r);
}

TSR_ZD uint64_t tsr_zs_rd64(const uint8_t *p)
{
	return tsr_zs_le(p, 4) | (uint64_t)tsr_zs_le(p + 4, 4) << 32;
}

TSR_ZD uint64_t tsr_zs_round(uint64_t acc, uint64_t v)
{
	return tsr_zs_rotl(acc + v * TSR_ZS_P2, 31) * TSR_ZS_P1;
}

/* XXH64's four accumulators before the first stripe (seed 0). */
TSR_ZD_INLINE uint64_t tsr_zs_xxh64_seed(unsigned a)
{
	return a == 0 ? TSR_ZS_P1 + TSR_ZS_P2 : a == 1 ? TSR_ZS_P2 : a == 2 ? 0 : 0 - TSR_ZS_P1;
}

/* XXH64's end over p[0..n), its accumulators v after the n / 32 stripes (v unused when n < 32):
 * their merge, the tail of fewer than 32 bytes, the avalanche. */
TSR_ZD uint64_t tsr_zs_xxh64_end(const uint64_t *v, const uint8_t *p, uint64_t n)
{
	uint64_t h, i = n / 32 * 32;
	if (n >= 32) {
		h = tsr_zs_rotl(v[0], 1) + tsr_zs_rotl(v[1], 7) + tsr_zs_rotl(v[2], 12) +
		    tsr_zs_rotl(v[3], 18);
		for (int k = 0; k < 4; k++)
			h = (h ^ tsr_zs_round(0, v[k])) * TSR_ZS_P1 + TSR_ZS_P4;
	} else {
		h = TSR_ZS_P5;
	}
	h += n;
	for (; i + 8 <= n; i += 8)
		h = tsr_zs_rotl(h ^ tsr_zs_round(0, tsr_zs_rd64(p + i)), 27) * TSR_ZS_P1 + TSR_ZS_P4;
	if (i + 4 <= n) {
		h = tsr_zs_rotl(h ^ (uint64_t)tsr_zs_le(p + i, 4) * TSR_ZS_P1, 23) * TSR_ZS_P2 +
		    TSR_ZS_P3;
		i += 4;
	}
	for (; i < n; i++)
		h = tsr_zs_rotl(h ^ p[i] * TSR_ZS_P5, 11) * TSR_ZS_P1;
	h ^= h >> 33;
	h *= TSR_ZS_P2;
	h ^= h >> 29;
	h *= TSR_ZS_P3;
	h ^= h >> 32;
	return h;
}

/* The 8 bytes at q as a little-endian word, from the three aligned words that hold them (and
 * up to 3 bytes either side: the caller knows those lie inside what may be read) and two
 * funnel shifts. */
TSR_ZD_INLINE uint64_t tsr_zs_rd64_mid(const uint8_t *q)
{
	unsigned r = (unsigned)((uintptr_t)q & 3u), sh = 8u * r;
	const uint8_t *a = q - r;
	uint32_t w0 = tsr_zs_word(a), w1 = tsr_zs_word(a + 4), w2 = tsr_zs_word(a + 8);
	return tsr_zs_funnel64(w0, w1, w2, sh);
}

/* The 8 bytes at p + o (o + 8 <= n) as a little-endian word, no byte outside p[0..n) read:
 * tsr_zs_rd64_mid where its words lie inside it (o >= 4, o + 12 <= n), else a byte at a time. */
TSR_ZD_INLINE uint64_t tsr_zs_rd64_in(const uint8_t *p, uint64_t o, uint64_t n)
{
	if (o < 4 || o + 12 > n)
		return tsr_zs_rd64(p + o);
	return tsr_zs_rd64_mid(p + o);
}

/* Stripes a chain reads ahead of its rounds: each round's word is independent of the chain, so
 * a group's loads go out together and wait once (a round is some tens of cycles, a load from
 * memory hundreds: a 32 MiB frame's million stripes a word at a time took about 400 ms). */
#define TSR_ZS_XXH_AHEAD 8u

/*
 * XXH64 (seed 0) of p[0..n) by the lanes of a warp, on lane 0 (the others return 0; the frame
 * checksum is its low 32 bits): its four accumulators, each a chain through every 32-byte
 * stripe, go on lanes 0 to 3 side by side (one lane takes all four where the warp has fewer,
 * as the CPU emulation's one), reading words, into hv (four, shared memory on the GPU); then
 * lane 0 ends it (tsr_zs_xxh64_end). Lane 0 alone, a byte a load, took the four chains one
 * after another: a frame of 32 MiB is a million stripes.
 */
TSR_ZD uint64_t tsr_zs_xxh64_lanes(const uint8_t *p, uint64_t n, uint64_t *hv)
{
	uint64_t ns = n / 32, h = 0;
	if (ns) { /* (n is the warp's: every lane takes the same branches and syncs) */
		for (unsigned a = TSR_ZS_LANE; a < 4; a += TSR_ZS_NLANES) {
			uint64_t v = tsr_zs_round(tsr_zs_xxh64_seed(a), tsr_zs_rd64_in(p, 8 * a, n));
			uint64_t k = 1;
			/* groups of whole stripes whose words lie wholly inside p[4..n) (from
			 * stripe 1: its word is at 32 or more), read first, then their rounds */
			for (; k + TSR_ZS_XXH_AHEAD <= ns &&
			       32 * (k + TSR_ZS_XXH_AHEAD - 1) + 8 * a + 12 <= n;
			     k += TSR_ZS_XXH_AHEAD) {
				uint64_t d[TSR_ZS_XXH_AHEAD];
				TSR_ZS_UNROLL
				for (unsigned u = 0; u < TSR_ZS_XXH_AHEAD; u++)
					d[u] = tsr_zs_rd64_mid(p + 32 * (k + u) + 8 * a);
				TSR_ZS_UNROLL
				for (unsigned u = 0; u < TSR_ZS_XXH_AHEAD; u++)
					v = tsr_zs_round(v, d[u]);
			}
			for (; k < ns; k++)
				v = tsr_zs_round(v, tsr_zs_rd64_in(p, 32 * k + 8 * a, n));
			hv[a] = v;
		}
		TSR_ZS_SYNC();
	}
	if (TSR_ZS_LANE == 0)
		h = tsr_zs_xxh64_end(hv, p, n);
	TSR_ZS_SYNC(); /* (before the lanes write hv again) */
	return h;
}

/* A warp's batch of up to 32 sequences in execution (shared memory on the GPU). Places are
 * offsets from the frame's first output byte (below 4 GiB: tsr_zs_layout). */
#define TSR_ZS_BATCH 32u
struct tsr_zs_xs {
	uint32_t dst[TSR_ZS_BATCH];  /* where the match goes (after its literals) */
	uint32_t off[TSR_ZS_BATCH];  /* offset value as coded, then the resolved offset */
	uint32_t lsrc[TSR_ZS_BATCH]; /* its literals' place in the block's literals */
	uint32_t ll[TSR_ZS_BATCH], ml[TSR_ZS_BATCH];
	int32_t st[TSR_ZS_BATCH];    /* each sequence's checks */
	uint8_t turn[TSR_ZS_BATCH];  /* 1: its literal run is long; 2: its match reads bytes the
					batch writes (each goes in turn, lanes sharing it) */
	uint32_t nok;                /* sequences of the batch that passed the checks */
	uint32_t lturn, mturn;       /* of those, the ones whose turn has 1, 2 (a bit each) */
	int32_t status;
	uint64_t hv[4];              /* the checksum's accumulators (tsr_zs_xxh64_lanes) */
};

/* The lowest set bit of m (not 0). */
TSR_ZD_INLINE uint32_t tsr_zs_ctz(uint32_t m)
{
#ifdef TSR_ZSTD_EMU
	return (uint32_t)__builtin_ctz(m);
#else
	return (uint32_t)__ffs((int)m) - 1u;
#endif
}

/* Lanes copy the match of length ml at distance off to out + d (bytes before d are final
 * where it reads): byte j of the match is out[d - off + j % off]. */
TSR_ZD void tsr_zs_match(uint8_t *out, uint32_t d, uint32_t off, uint32_t n)
{
	uint8_t *dp = out + d;
	const uint8_t *sp = dp - off;
	if (off >= n) {
		for (uint32_t j = TSR_ZS_LANE; j < n; j += TSR_ZS_NLANES)
			dp[j] = sp[j];
	} else {
		uint32_t o = off, k = TSR_ZS_LANE % o, step = TSR_ZS_NLANES % o;
		for (uint32_t j = TSR_ZS_LANE; j < n; j += TSR_ZS_NLANES) {
			dp[j] = sp[k]; /* k = j % off, kept by a step instead of a division */
			k += step;
			k -= k >= o ? o : 0;
		}
	}
}

/* The longest literal run a lane copies alone: the runs of a batch of sequences go to
 * disjoint places from the scratch, so short ones are copied a lane each, all at once (most
 * runs are a few bytes; lanes sharing each in turn left most lanes idle). */
#define TSR_ZS_LANE_RUN 32u

/*
 * A lane's own copies (its short literal run, its short match whose source precedes the
 * batch's matches) go a piece of TSR_ZS_PIECE at a time, the piece's loads before its stores:
 * the source never overlaps the bytes written, so the loads need not wait on the stores, and a
 * piece waits on one load's latency where a byte at a time waited on each (those byte loops'
 * long-scoreboard stalls were about 40% of the exec kernel's samples on set e: design-notes).
 */
#ifndef TSR_ZS_PIECE
#define TSR_ZS_PIECE 8u
#endif

/* The records a lane holds for the next batch: one on the GPU (a lane a record), a batch on
 * the CPU (where one lane may take them all). */
#ifdef TSR_ZSTD_EMU
#define TSR_ZS_HELD TSR_ZS_BATCH
#else
#define TSR_ZS_HELD 1u
#endif
struct tsr_zs_held {
	struct tsr_zs_seq r[TSR_ZS_HELD];
};

/* How many of a block's nseq sequences the batch from base holds. */
TSR_ZD_INLINE uint32_t tsr_zs_batch_count(uint32_t base, uint32_t nseq)
{
	return nseq - base < TSR_ZS_BATCH ? nseq - base : TSR_ZS_BATCH;
}

/* Lanes load the records of the batch from base (of a block's nseq, base < nseq) into h,
 * each its own; nothing waits for the loads until tsr_zs_batch_put, a batch later, so their
 * latency passes under a batch's work (the records' loads, waited on at once, were 12% of the
 * exec kernel's stall samples on set c: design-notes). */
TSR_ZD_INLINE void tsr_zs_batch_fetch(struct tsr_zs_held *h, const struct tsr_zs_seq *sq,
				      uint32_t base, uint32_t nseq)
{
	uint32_t cnt = tsr_zs_batch_count(base, nseq);
	TSR_ZS_UNROLL
	for (uint32_t k = 0; k < TSR_ZS_HELD; k++) {
		uint32_t i = TSR_ZS_LANE + k * TSR_ZS_NLANES;
		/* The three fields, not the record: its pad, read by one 16-byte load with the
		 * rest and used by nothing, had its register written just after the load, which
		 * waited there for the whole load, a batch early (16.7% of the exec kernel's stall
		 * samples on set c, H100). */
		if (i < cnt) {
#ifdef TSR_ZSTD_EMU
			h->r[k] = sq[base + i];
#else
			/* (in PTX: the compiler joins three fields' loads into the record's one) */
			const struct tsr_zs_seq *q = &sq[base + i];
			asm("ld.global.v2.u32 {%0, %1}, [%2];"
			    : "=r"(h->r[k].ll), "=r"(h->r[k].ml)
			    : "l"(q));
			asm("ld.global.u32 %0, [%1+8];" : "=r"(h->r[k].of) : "l"(q));
#endif
		}
	}
}

/* Lanes put the batch h holds (from base, of nseq) into x (then a sync); returns how many
 * sequences it has. */
TSR_ZD_INLINE uint32_t tsr_zs_batch_put(struct tsr_zs_xs *x, const struct tsr_zs_held *h,
					uint32_t base, uint32_t nseq)
{
	uint32_t cnt = tsr_zs_batch_count(base, nseq);
	TSR_ZS_UNROLL
	for (uint32_t k = 0; k < TSR_ZS_HELD; k++) {
		uint32_t i = TSR_ZS_LANE + k * TSR_ZS_NLANES;
		if (i < cnt) {
			x->ll[i] = h->r[k].ll;
			x->ml[i] = h->r[k].ml;
			x->off[i] = h->r[k].of;
		}
	}
	TSR_ZS_SYNC();
	return cnt;
}

/*
 * A batch of cnt sequences of a block (x's ll, ml and off loaded), placed by the lanes: each
 * one's repeat offset resolved (r: the repeat offsets, lane 0's, updated), its literals placed
 * at *lit (x->lsrc; nlit: the block's literal bytes) and its match at *op (x->dst; both
 * advanced; positions from the frame's first output byte), checked against that byte, the
 * frame's window and the block's end (bend) as if one lane took them in order. Positions and
 * offsets are 32-bit: a frame's output is below 4 GiB (tsr_zs_layout), and an offset that
 * passes the checks lies below its position; an offset that fails is 32 bits as coded, and a
 * repeat offset is one such or one less than one (offset 1 less one), 0 where it was 1, and
 * refused then, so no offset a sequence is checked with differs from its 64-bit value before
 * the first failure, after which nothing is placed. x->nok: the sequences before the first that
 * fails; x->status: its failure; x->turn, x->lturn, x->mturn: which of those go in turn.
 * Every lane returns with *op and *lit advanced (the same on each). Places are sums of the
 * lengths before, so each lane sums a run of the batch (one sequence when the warp has 32
 * lanes), learns the runs before its own from the lanes' sums, and places and checks its run;
 * their failures and turns are ORed across the lanes; only the
 * repeat offsets, a chain through the batch, are lane 0's where the batch codes a repeat (a
 * few steps a sequence, where it once placed and checked every sequence alone: most of the
 * execution's time on uint16 volumes); where it codes none, the lanes take them at once.
 */
TSR_ZD_INLINE void tsr_zs_place(struct tsr_zs_xs *x, uint32_t cnt, uint32_t nlit, uint32_t window,
				uint32_t bend, uint32_t *op_, uint32_t *lit_, uint32_t r[3])
{
	const uint32_t lane = TSR_ZS_LANE, nl = TSR_ZS_NLANES, per = (cnt + nl - 1) / nl;
	const uint32_t lo = lane * per < cnt ? lane * per : cnt, hi = lo + per < cnt ? lo + per : cnt;
	uint32_t sl = 0, so = 0; /* (a batch's sums fit: 32 sequences of at most 2^18 bytes) */
	uint32_t rep = 0;        /* whether a sequence of this lane's codes a repeat offset */
	for (uint32_t i = lo; i < hi; i++) {
		sl += x->ll[i];
		so += x->ll[i] + x->ml[i];
		rep |= x->off[i] <= 3;
	}
	/* the repeat offsets. Most batches code none (92% of gpu_zstd_bench's set c, where lane
	 * 0's walk below was a quarter of the exec kernel's instructions: design-notes); then
	 * each offset is its value less 3, which the lanes take at once, and the batch's exit
	 * offsets are its last three. A batch with a repeat code walks them in order, on lane
	 * 0; 0 where a repeat code resolves to none. */
	rep = TSR_ZS_OR(rep);
	if (lane == 0 && !rep && cnt) { /* (before the lanes change x->off: below the sync) */
		uint32_t o1 = x->off[cnt - 1] - 3;
		if (cnt >= 3) {
			r[2] = x->off[cnt - 3] - 3;
			r[1] = x->off[cnt - 2] - 3;
		} else if (cnt == 2) {
			r[2] = r[0];
			r[1] = x->off[0] - 3;
		} else {
			r[2] = r[1];
			r[1] = r[0];
		}
		r[0] = o1;
	}
	if (lane == 0 && rep)
		for (uint32_t i = 0; i < cnt; i++) {
			uint32_t ov = x->off[i], off;
			if (ov > 3) {
				off = ov - 3;
				r[2] = r[1];
				r[1] = r[0];
				r[0] = off;
			} else {
				unsigned idx = (unsigned)ov - 1 + (x->ll[i] == 0);
				if (idx == 0) {
					off = r[0];
				} else if (idx == 1) {
					off = r[1];
					r[1] = r[0];
					r[0] = off;
				} else {
					off = idx == 2 ? r[2] : r[0] - 1;
					r[2] = r[1];
					r[1] = r[0];
					r[0] = off;
				}
			}
			x->off[i] = off;
		}
	TSR_ZS_SYNC();
	if (!rep)
		for (uint32_t i = lo; i < hi; i++)
			x->off[i] -= 3;
	/* the runs before this lane's, and the batch's, summed across the lanes */
	uint32_t lit = *lit_ + TSR_ZS_XSUM(sl), op = *op_ + TSR_ZS_XSUM(so);
	uint32_t tl = TSR_ZS_ADD(sl), to = TSR_ZS_ADD(so);
	uint32_t first = *op_ + (cnt ? x->ll[0] : 0); /* the batch's first match */
	uint32_t bad = 0, t1 = 0, t2 = 0; /* this lane's sequences' bits: failed, turns 1 and 2 */
	for (uint32_t i = lo; i < hi; i++) {
		uint32_t ll = x->ll[i], ml = x->ml[i], off = x->off[i];
		int st = TSR_CUDA_ZSTD_OK;
		if (ll > nlit - lit || ll > bend - op)
			st = TSR_CUDA_ZSTD_E_SEQUENCES;
		x->lsrc[i] = lit;
		lit += ll;
		op += ll;
		if (st == TSR_CUDA_ZSTD_OK && (off == 0 || off > op || off > window))
			st = TSR_CUDA_ZSTD_E_OFFSET;
		if (st == TSR_CUDA_ZSTD_OK && ml > bend - op)
			st = TSR_CUDA_ZSTD_E_SEQUENCES;
		x->dst[i] = op;
		uint32_t tn = (ll > TSR_ZS_LANE_RUN) | !(ml <= 64 && op - off + ml <= first) << 1;
		x->turn[i] = (uint8_t)tn;
		op += ml;
		x->st[i] = st;
		bad |= (uint32_t)(st != TSR_CUDA_ZSTD_OK) << i;
		t1 |= (tn & 1u) << i;
		t2 |= (tn >> 1) << i;
	}
	/* the sequences before the first that fails, and which of those go in turn: the lanes'
	 * bits ORed (where lane 0 walked the batch's records, a quarter of the exec kernel's
	 * instructions on Blosc2 planes: design-notes) */
	bad = TSR_ZS_OR(bad);
	t1 = TSR_ZS_OR(t1);
	t2 = TSR_ZS_OR(t2);
	TSR_ZS_SYNC();
	if (lane == 0) { /* (the caller syncs before it reads them) */
		uint32_t nok = bad ? tsr_zs_ctz(bad) : cnt;
		uint32_t keep = nok >= 32 ? 0xffffffffu : (1u << nok) - 1u;
		x->nok = nok;
		x->lturn = t1 & keep;
		x->mturn = t2 & keep;
		x->status = nok < cnt ? x->st[nok] : TSR_CUDA_ZSTD_OK;
	}
	*op_ += to;
	*lit_ += tl;
}

/* Phase c by cells writes a frame's output as 32-bit cells instead of bytes
 * (zstd_cells_core.h): a literal byte is TSR_ZS_CELL_BYTE | byte, a match byte whose source
 * lies before its block is the source's frame position. */
#define TSR_ZS_CELL_BYTE 0x80000000u

/* The cell of a match byte whose source is frame position q (block: the first position of the
 * match's block): before the block, the position; else the source's cell (final: a match reads
 * only positions before it). */
TSR_ZD uint32_t tsr_zs_cell_from(const uint32_t *cells, uint32_t q, uint32_t block)
{
	return q < block ? (uint32_t)q : cells[q];
}

/* Lanes write the match of length ml at distance off to cells d..: byte j's source is
 * d - off + j % off. */
TSR_ZD void tsr_zs_match_cells(uint32_t *cells, uint32_t d, uint32_t off, uint32_t n,
			       uint32_t block)
{
	if (off >= n) {
		for (uint32_t j = TSR_ZS_LANE; j < n; j += TSR_ZS_NLANES)
			cells[d + j] = tsr_zs_cell_from(cells, d - off + j, block);
		return;
	}
	uint32_t o = off, k = TSR_ZS_LANE % o, step = TSR_ZS_NLANES % o;
	for (uint32_t j = TSR_ZS_LANE; j < n; j += TSR_ZS_NLANES) {
		cells[d + j] = tsr_zs_cell_from(cells, d - off + k, block); /* k = j % off */
		k += step;
		k -= k >= o ? o : 0;
	}
}

/* One lane: src[0..n) to out at d (not overlapping), or with to_cells as literal cells to
 * cells from d (its callers pass a constant). */
TSR_ZD_INLINE void tsr_zs_lane_put(uint8_t *out, uint32_t *cells, uint32_t d, const uint8_t *src,
				   uint32_t n, int to_cells)
{
	/* (the piece's place as a pointer, its bytes at constant offsets from it: indexed by
	 * d + j + k, each store had a 64-bit add of its own, three instructions a byte) */
	for (uint32_t j = 0; j < n; j += TSR_ZS_PIECE) {
		uint8_t v[TSR_ZS_PIECE];
		TSR_ZS_UNROLL
		for (uint32_t k = 0; k < TSR_ZS_PIECE; k++)
			v[k] = j + k < n ? src[j + k] : 0;
		if (to_cells) {
			uint32_t *cq = cells + d + j;
			TSR_ZS_UNROLL
			for (uint32_t k = 0; k < TSR_ZS_PIECE; k++)
				if (j + k < n)
					cq[k] = TSR_ZS_CELL_BYTE | v[k];
		} else {
			uint8_t *dq = out + d + j;
			TSR_ZS_UNROLL
			for (uint32_t k = 0; k < TSR_ZS_PIECE; k++)
				if (j + k < n)
					dq[k] = v[k];
		}
	}
}

/* One lane: the match of length ml at distance off >= ml to cells d.., a piece at a time (its
 * sources precede d, final). */
TSR_ZD_INLINE void tsr_zs_lane_match_cells(uint32_t *cells, uint32_t d, uint32_t off, uint32_t ml,
					   uint32_t block)
{
	for (uint32_t j = 0; j < ml; j += TSR_ZS_PIECE) {
		uint32_t v[TSR_ZS_PIECE];
		TSR_ZS_UNROLL
		for (uint32_t k = 0; k < TSR_ZS_PIECE; k++)
			v[k] = j + k < ml ? tsr_zs_cell_from(cells, d - off + j + k, block) : 0;
		uint32_t *cq = cells + d + j;
		TSR_ZS_UNROLL
		for (uint32_t k = 0; k < TSR_ZS_PIECE; k++)
			if (j + k < ml)
				cq[k] = v[k];
	}
}

/* Lanes write n literal bytes src[0..n) as cells from d. */
TSR_ZD void tsr_zs_lit_cells(uint32_t *cells, uint32_t d, const uint8_t *src, uint32_t n)
{
	for (uint32_t i = TSR_ZS_LANE; i < n; i += TSR_ZS_NLANES)
		cells[d + i] = TSR_ZS_CELL_BYTE | src[i];
}

/* Frame f's window for the 32-bit checks: at most 2^32 - 1 (a single-segment frame's is its
 * content size; no offset that passes the checks reaches past its position, below 2^32). */
TSR_ZD_INLINE uint32_t tsr_zs_window32(const struct tsr_zs_frame *f)
{
	return f->window > 0xffffffffu ? 0xffffffffu : (uint32_t)f->window;
}

/* Where phase c reads compressed block b's literals: in the stream (in) or the literal
 * scratch (tsr_zs_lits_in_stream). */
TSR_ZD_INLINE const uint8_t *tsr_zs_lits_src(const uint8_t *in, const struct tsr_zs_block *b,
					     const uint8_t *lits)
{
	return tsr_zs_lits_in_stream(b) ? in + b->in_at + b->lit_hdr : lits + b->lit_at;
}

/*
 * Compressed block b's sequences executed by the lanes of one warp, 32 at a time, in the steps
 * tsr_zs_frame_exec lists (x: the warp's shared batch; in: the stream; lits, seqs: phase b's
 * scratch; r: the
 * repeat offsets on entry, lane 0's, updated; *op: the block's first output position, then the
 * one after it, from the frame's first byte, which offsets may reach back to; window: the
 * frame's, at most 2^32 - 1 where it is larger: an offset lies below its position anyway).
 * Into bytes at out, or with to_cells into cells (block: the block's first position). Both
 * callers pass to_cells as a constant, so each gets its own copy of the loop. Returns a status.
 */
TSR_ZD_INLINE int tsr_zs_block_run(struct tsr_zs_xs *x, const uint8_t *in,
				   const struct tsr_zs_block *b, const uint8_t *lits,
				   const struct tsr_zs_seq *seqs, uint32_t window, uint32_t *op_,
				   uint32_t r[3], uint8_t *out, uint32_t *cells, uint32_t block,
				   int to_cells)
{
	const uint8_t *lp = tsr_zs_lits_src(in, b, lits);
	const struct tsr_zs_seq *sq = seqs + b->seq_at;
	uint32_t op = *op_, lit = 0, bend = op + b->out_size;
	struct tsr_zs_held h;
	if (b->nseq)
		tsr_zs_batch_fetch(&h, sq, 0, b->nseq);
	for (uint32_t base = 0; base < b->nseq; base += TSR_ZS_BATCH) {
		uint32_t cnt = tsr_zs_batch_put(x, &h, base, b->nseq);
		if (b->nseq - base > TSR_ZS_BATCH) /* the next batch's records, on their way */
			tsr_zs_batch_fetch(&h, sq, base + TSR_ZS_BATCH, b->nseq);
		tsr_zs_place(x, cnt, b->nlit, window, bend, &op, &lit, r);
		TSR_ZS_SYNC();
		uint32_t nok = x->nok;
		int st = x->status;
		/* literal runs: short ones a lane each, all at once; long ones in turn, shared */
		for (uint32_t i = TSR_ZS_LANE; i < nok; i += TSR_ZS_NLANES) {
			uint32_t ll = x->ll[i], d = x->dst[i] - ll;
			const uint8_t *sp = lp + x->lsrc[i];
			if (!(x->turn[i] & 1))
				tsr_zs_lane_put(out, cells, d, sp, ll, to_cells);
		}
		for (uint32_t m = x->lturn; m; m &= m - 1) {
			uint32_t i = tsr_zs_ctz(m);
			uint32_t d = x->dst[i] - x->ll[i];
			if (to_cells)
				tsr_zs_lit_cells(cells, d, lp + x->lsrc[i], x->ll[i]);
			else
				tsr_zs_copy(out + d, lp + x->lsrc[i], x->ll[i]);
		}
		TSR_ZS_SYNC();
		/* matches whose sources all precede the batch's first match: a lane each */
		for (uint32_t i = TSR_ZS_LANE; i < nok; i += TSR_ZS_NLANES) {
			uint32_t d = x->dst[i], off = x->off[i], ml = x->ml[i];
			if (!(x->turn[i] & 2)) { /* (its source, d - off to d - off + ml, ends by d) */
				if (to_cells)
					tsr_zs_lane_match_cells(cells, d, off, ml, block);
				else
					tsr_zs_lane_put(out, NULL, d, out + d - off, ml, 0);
			}
		}
		for (uint32_t m = x->mturn; m; m &= m - 1) {
			uint32_t i = tsr_zs_ctz(m);
			uint32_t d = x->dst[i], off = x->off[i], ml = x->ml[i];
			TSR_ZS_SYNC();
			if (to_cells)
				tsr_zs_match_cells(cells, d, off, ml, block);
			else
				tsr_zs_match(out, d, off, ml);
		}
		TSR_ZS_SYNC();
		if (st != TSR_CUDA_ZSTD_OK)
			return st;
	}
	if (b->nlit - lit != bend - op)
		return TSR_CUDA_ZSTD_E_SEQUENCES;
	if (to_cells)
		tsr_zs_lit_cells(cells, op, lp + lit, b->nlit - lit);
	else if (!b->lit_out) /* (else phase b decoded them in place: tsr_zs_lits_out) */
		tsr_zs_copy(out + op, lp + lit, b->nlit - lit);
	*op_ = op + (b->nlit - lit);
	return TSR_CUDA_ZSTD_OK;
}

/*
 * Phase c: executes frame f of a stream (blocks decoded by phase b, placed by tsr_zs_layout)
 * into out, by the lanes of one warp (x: the warp's shared batch), 32 sequences at a time:
 *  1. lanes load the batch's records (one each: no load waits on another);
 *  2. the lanes place and check the sequences, as one lane would in order; lane 0 resolves
 *     the repeat offsets, a chain through the batch and the only serial step
 *     (tsr_zs_place);
 *  3. the literal runs of the batch are copied (no run waits on another: literals come from
 *     the scratch, and runs go to disjoint places): short ones a lane each, all at once, long
 *     ones in turn, lanes sharing each;
 *  4. matches that read only bytes final before the batch's first match (their source ends at
 *     or before it) and are short are copied a lane each, all at once; the others go in order,
 *     lanes sharing each one (byte j of a match is out[d - off + j % off], so a match only
 *     reads bytes written before it), with a __syncwarp before each to make the lanes'
 *     earlier writes visible.
 * Then the frame's XXH64, its four chains on lanes 0 to 3 (tsr_zs_xxh64_lanes). A status.
 */
TSR_ZD int tsr_zs_frame_exec(struct tsr_zs_xs *x, const uint8_t *in,
			     const struct tsr_zs_frame *f, const struct tsr_zs_block *blocks,
			     const uint8_t *lits, const struct tsr_zs_seq *seqs, uint8_t *out)
{
	uint8_t *fo = out + f->out_at; /* (positions from here: 32-bit, tsr_zs_layout) */
	uint32_t op = 0, window = tsr_zs_window32(f);
	uint32_t r[3] = {1, 4, 8}; /* repeat offsets (lane 0's; the others' go unused) */
	for (uint32_t k = 0; k < f->nblocks; k++) {
		const struct tsr_zs_block *b = &blocks[f->first_block + k];
		if (b->type == 0) {
			tsr_zs_copy(fo + op, in + b->in_at, b->out_size);
			op += b->out_size;
			continue;
		}
		if (b->type == 1) {
			uint8_t v = in[b->in_at];
			for (uint32_t i = TSR_ZS_LANE; i < b->out_size; i += TSR_ZS_NLANES)
				fo[op + i] = v;
			op += b->out_size;
			continue;
		}
		int st = tsr_zs_block_run(x, in, b, lits, seqs, window, &op, r, fo, NULL, 0, 0);
		if (st != TSR_CUDA_ZSTD_OK)
			return st;
	}
	if (f->has_checksum) {
		TSR_ZS_SYNC();
		uint64_t h = tsr_zs_xxh64_lanes(fo, op, x->hv);
		int bad = TSR_ZS_BCAST((int)((uint32_t)h != f->checksum));
		if (bad)
			return TSR_CUDA_ZSTD_E_CHECKSUM;
	}
	return TSR_CUDA_ZSTD_OK;
}

#endif /* TSR_ZSTD_EXEC_CORE_H */
