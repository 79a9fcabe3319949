/* zstd_lits_core.h - phase b's literals: a compressed block's Huffman tree description, its table by a group's lanes, and its streams' symbols stored as aligned words (tsr_zs_block_lits); also builds as C for the CPU. */
#ifndef TSR_ZSTD_LITS_CORE_H
#define TSR_ZSTD_LITS_CORE_H

#include "zstd_core.h"

/* The Huffman tree description at p (avail bytes) read: its symbols' weights into w->weights
 * (w->nweights of them; the last symbol's follows from the others, tsr_zs_huf_ranks, which
 * checks them); *used: its bytes. Lane 0's part. */
TSR_ZD int tsr_zs_huf_tree(struct tsr_zs_work *w, const uint8_t *p, uint64_t avail,
			   uint64_t *used)
{
	if (avail < 1)
		return -1;
	unsigned h = p[0], nw = 0;
	if (h >= 128) {
		nw = h - 127;
		uint64_t nb = (nw + 1) / 2;
		if (1 + nb > avail)
			return -1;
		for (unsigned i = 0; i < nw; i++)
			w->weights[i] = (uint8_t)(i & 1 ? p[1 + i / 2] & 15 : p[1 + i / 2] >> 4);
		*used = 1 + nb;
	} else {
		if (h == 0 || 1 + (uint64_t)h > avail)
			return -1;
		unsigned al, nsym;
		uint64_t hu;
		if (tsr_zs_ncount(&w->nm, p + 1, h, 15, 6, &al, &nsym, &hu) ||
		    tsr_zs_fse_build(&w->nm, w->wt, nsym, al))
			return -1;
		struct tsr_zs_hr br;
		if (tsr_zs_hr_init(&br, p + 1 + hu, h - hu))
			return -1;
		/* The states' bits come from a 64-bit window taken every few steps (a step reads at
		 * most al <= 6 bits), where each step took a window of its own: three loads and
		 * their selects in lane 0's chain a weight (H100, set d: the loop's two halves 25%
		 * of the block kernel's instructions each). */
		uint64_t v = tsr_zs_hr_window64(&br);
		unsigned left = 64 - 2 * al;
		unsigned s1 = tsr_zs_hr_take(&br, &v, al), s2 = tsr_zs_hr_take(&br, &v, al);
		/* two states take turns (s1 steps, then the two swap); when a state's update runs
		 * past the stream's start, the other state's symbol is the last weight (as
		 * libzstd's FSE decoder) */
		for (;;) {
			if (left < al) {
				v = tsr_zs_hr_window64(&br);
				left = 64;
			}
			if (nw > 253)
				return -1;
			uint32_t e = w->wt[s1];
			w->weights[nw++] = (uint8_t)(e >> 10);
			s1 = tsr_zs_fse_next_win(e, al, &br, &v, &left);
			if (br.pos < 0) {
				w->weights[nw++] = (uint8_t)(w->wt[s2] >> 10);
				break;
			}
			unsigned t = s1;
			s1 = s2;
			s2 = t;
		}
		*used = 1 + (uint64_t)h;
	}
	w->nweights = nw;
	return 0;
}

/*
 * The weights (tsr_zs_huf_tree) checked and ranked by the group's lanes, where lane 0 did it
 * alone a symbol at a time, each weight's count and start in local memory (H100, set d: a
 * third of the block kernel's instructions, one lane active). Each lane counts the symbols of
 * its weights (k = its lane, then a group's lanes on, below 16) into w->wcount; after a sync
 * every lane checks the counts alike (the same answer on each: the last symbol's weight is
 * what brings the table to a power of two) and then places its weights' symbols, in order,
 * in w->hsym (each symbol's first entry in w->huf and its weight), as canonical Huffman does:
 * the smaller weights first. Returns 0, the group synced after, or -1 (every lane alike; the
 * caller syncs before w is written again).
 */
TSR_ZD int tsr_zs_huf_ranks(struct tsr_zs_work *w)
{
	const unsigned nw = w->nweights;
	for (unsigned k = TSR_ZS_GLANE; k < 16; k += TSR_ZS_GNLANES) {
		unsigned c = 0;
		for (unsigned s = 0; s < nw; s++)
			c += w->weights[s] == k;
		w->wcount[k] = (uint16_t)c;
	}
	TSR_ZS_GSYNC();
	uint32_t total = 0, over = 0;
	for (unsigned k = 1; k < 16; k++) {
		uint32_t c = w->wcount[k];
		if (k > 12)
			over |= c;
		else
			total += c << (k - 1);
	}
	if (over || total == 0)
		return -1;
	unsigned maxbits = tsr_zs_highbit(total) + 1;
	uint32_t rest = (1u << maxbits) - total;
	if (maxbits > TSR_ZS_HUF_MAXBITS || (rest & (rest - 1)))
		return -1;
	unsigned lastw = tsr_zs_highbit(rest) + 1;
	uint32_t ones = w->wcount[1] + (lastw == 1);
	if (ones < 2 || (ones & 1))
		return -1;
	for (unsigned k = TSR_ZS_GLANE; k <= maxbits; k += TSR_ZS_GNLANES) {
		uint32_t at = 0;
		for (unsigned j = 1; j < k; j++)
			at += (w->wcount[j] + (j == lastw)) << (j - 1);
		for (unsigned s = 0; s <= nw; s++) {
			unsigned wt = s < nw ? w->weights[s] : lastw;
			if (wt != k)
				continue;
			w->hsym[s] = (uint16_t)(k ? at | k << 12 : 0);
			at += k ? 1u << (k - 1) : 0;
		}
	}
	if (TSR_ZS_GLANE == 0) {
		w->weights[nw] = (uint8_t)lastw;
		w->huf_bits = maxbits;
		w->huf_nsym = nw + 1;
	}
	TSR_ZS_GSYNC();
	return 0;
}

/* Lanes fill w->huf from w->hsym (tsr_zs_huf_ranks), a symbol a lane at a time: where lane 0
 * filled all 2^maxbits entries alone while the others waited. */
TSR_ZD void tsr_zs_huf_fill(struct tsr_zs_work *w)
{
	const unsigned mb = w->huf_bits, ns = w->huf_nsym;
	for (unsigned s = TSR_ZS_GLANE; s < ns; s += TSR_ZS_GNLANES) {
		unsigned v = w->hsym[s], wt = v >> 12, at = v & 4095u;
		if (!wt)
			continue;
		uint16_t e = (uint16_t)(s | (mb + 1 - wt) << 8);
		for (uint32_t i = 0, len = 1u << (wt - 1); i < len; i++)
			w->huf[at + i] = e;
	}
}

/*
 * A lane's window of its stream: from the words it carries (c: tsr_zs_hrc_window, which loads
 * the two words below for the next window and asks for the stream's bytes further down), or,
 * with no c, its three words loaded now. A window of five symbols reads at most 55 bits, so the
 * next lies within the carried words. Where each window waited on its own three loads, a lone
 * lane's Huffman stream took some 650 cycles a window: python-blosc2's bitshuffled zstd blocks
 * (b2_zstd_bit) hold 96 KiB of literals, a few of them Huffman coded, four streams of 24,000
 * symbols, and those streams' lanes were the block kernel's last 1.5 of its 1.93 ms (H100:
 * 1,024 of that array's frames, 3.4% achieved occupancy, 44% of the loop's stall samples
 * waiting on the window's loads).
 */
TSR_ZD_INLINE uint64_t tsr_zs_hr_win(const struct tsr_zs_hr *h, struct tsr_zs_hrc *c)
{
	return c ? tsr_zs_hrc_window(h, c) : tsr_zs_hr_window64(h);
}

/* n (1 to 5) symbols of stream h into out: codes are 11 bits at most, so one 64-bit window
 * holds five (three loads and two funnel shifts for five symbols, where a 32-bit window took
 * two loads and a funnel shift for two). c: the lane's carried words, or NULL. */
#define TSR_ZS_HUF_RUN 5u
TSR_ZD_INLINE void tsr_zs_hr_syms(struct tsr_zs_hr *h, struct tsr_zs_hrc *c, const uint16_t *huf,
				  unsigned mb, uint8_t *out, uint32_t n)
{
	uint64_t v = tsr_zs_hr_win(h, c);
	for (uint32_t k = 0; k < n; k++) {
		uint16_t e = huf[v >> (64 - mb)];
		out[k] = (uint8_t)e;
		v <<= e >> 8;
		h->pos -= e >> 8;
	}
}

/*
 * The literals go out as aligned words of TSR_ZS_LIT_WORD bytes (4 or 8) where a stream's
 * output has a whole group of them (tsr_zs_hr_words), not a byte store a symbol: each lane's
 * byte store was a write of its own to the L2 (a block's four lanes write four places), and
 * the block kernel on gpu_zstd_bench's set a was bound by the L2 (83.5% of its throughput, 74%
 * of its sectors uncoalesced; H100, design-notes "litout landed; litmid lost half of set a").
 */
#ifndef TSR_ZS_LIT_WORD
/* (8: set a 114.8 -> 117.8 GB/s against 4, the other sets within their ranges; H100,
 * design-notes "litword landed") */
#define TSR_ZS_LIT_WORD 8
#endif
#if TSR_ZS_LIT_WORD == 4
typedef uint32_t tsr_zs_litw;
#elif TSR_ZS_LIT_WORD == 8
typedef uint64_t tsr_zs_litw;
#else
#error "TSR_ZS_LIT_WORD is 4 or 8"
#endif
/* A group: TSR_ZS_LIT_WORD runs of TSR_ZS_HUF_RUN symbols, TSR_ZS_HUF_RUN words. */
#define TSR_ZS_LIT_GROUP_SYMS (TSR_ZS_LIT_WORD * TSR_ZS_HUF_RUN)

/* (a test notes the words stored, and any not aligned: emu_zstd_litword.c) */
#ifndef TSR_ZS_NOTE_PUTW
#define TSR_ZS_NOTE_PUTW(p) ((void)0)
#endif

/* The aligned word at p set to v. */
TSR_ZD_INLINE void tsr_zs_putw(uint8_t *p, tsr_zs_litw v)
{
	TSR_ZS_NOTE_PUTW(p);
#ifdef TSR_ZSTD_EMU
	memcpy(p, &v, sizeof v);
#else
	*(tsr_zs_litw *)p = v;
#endif
}

/* A group's symbols of stream h into out (aligned to TSR_ZS_LIT_WORD) as TSR_ZS_HUF_RUN
 * words, each stored when its last byte is decoded (the loops unrolled: which symbol ends a
 * word is known when built). */
TSR_ZD_INLINE void tsr_zs_hr_words(struct tsr_zs_hr *h, struct tsr_zs_hrc *c,
				   const uint16_t *huf, unsigned mb, uint8_t *out)
{
	tsr_zs_litw acc = 0;
	TSR_ZS_UNROLL
	for (uint32_t r = 0; r < TSR_ZS_LIT_WORD; r++) {
		uint64_t v = tsr_zs_hr_win(h, c);
		TSR_ZS_UNROLL
		for (uint32_t k = 0; k < TSR_ZS_HUF_RUN; k++) {
			const uint32_t t = r * TSR_ZS_HUF_RUN + k, at = t % TSR_ZS_LIT_WORD;
			uint16_t e = huf[v >> (64 - mb)];
			acc |= (tsr_zs_litw)(e & 0xffu) << (8 * at);
			v <<= e >> 8;
			h->pos -= e >> 8;
			if (at == TSR_ZS_LIT_WORD - 1) {
				tsr_zs_putw(out + (t - at), acc);
				acc = 0;
			}
		}
	}
}

/* cnt symbols of a Huffman stream from where h stands decoded into out: bytes to out's next
 * word boundary, groups as words, then runs of bytes. -1 where a symbol starts past the
 * stream's start (the rest read zeros). */
TSR_ZD_INLINE int tsr_zs_huf_from(const struct tsr_zs_work *w, struct tsr_zs_hr *h, unsigned mb,
				  uint8_t *out, uint32_t cnt)
{
	/* (no words carried yet: the first window fills them) */
	struct tsr_zs_hrc c = {.k = INT32_MIN / 2};
	uint32_t i = 0, head = (uint32_t)(-(uintptr_t)out & (TSR_ZS_LIT_WORD - 1u));
	if (cnt >= head + TSR_ZS_LIT_GROUP_SYMS) {
		for (; i < head; i += TSR_ZS_HUF_RUN)
			tsr_zs_hr_syms(h, &c, w->huf, mb, out + i,
				       head - i < TSR_ZS_HUF_RUN ? head - i : TSR_ZS_HUF_RUN);
		i = head;
		for (; i + TSR_ZS_LIT_GROUP_SYMS <= cnt; i += TSR_ZS_LIT_GROUP_SYMS) {
			tsr_zs_hr_words(h, &c, w->huf, mb, out + i);
			if (h->pos < 0) /* (as below) */
				return -1;
		}
	}
	for (; i + TSR_ZS_HUF_RUN <= cnt; i += TSR_ZS_HUF_RUN) {
		tsr_zs_hr_syms(h, &c, w->huf, mb, out + i, TSR_ZS_HUF_RUN);
		if (h->pos < 0) /* (a symbol past the start: the rest read zeros) */
			return -1;
	}
	if (i < cnt)
		tsr_zs_hr_syms(h, &c, w->huf, mb, out + i, cnt - i);
	return 0;
}

/* One Huffman stream s[0..n) decoded into exactly cnt bytes at out. */
TSR_ZD int tsr_zs_huf_stream(const struct tsr_zs_work *w, const uint8_t *s, uint64_t n,
			     uint8_t *out, uint32_t cnt)
{
	struct tsr_zs_hr h;
	unsigned mb = w->huf_bits;
	if (tsr_zs_hr_init(&h, s, n) || mb == 0 || mb > TSR_ZS_HUF_MAXBITS)
		return -1;
	if (tsr_zs_huf_from(w, &h, mb, out, cnt))
		return -1;
	return h.pos == 0 ? 0 : -1;
}

/*
 * A Huffman stream split between lanes. One lane decodes a stream symbol after symbol, each
 * symbol's table lookup waiting on the one before: b2_zstd_bit's Huffman-coded blocks (4
 * streams of 24,600 symbols, a lane each) held the block kernel 1.14 ms of the 2.25 its
 * frames take (H100, 1,024 of them, Nsight Compute) while the group's other lanes idled.
 * Huffman codes resynchronise: a decode begun at any bit in time starts a symbol where the
 * true decode does, and from there both decode alike. So a stream's bits are cut into L parts,
 * a lane each; lane j counts the symbols that start in its part, decoding from its first bit;
 * then it decodes on past its part, beside a decode from the next part's first bit (the next
 * lane's decode, made again), until the two start a symbol at the same bit (the join). Lane
 * 0's decode is the true one and each join carries it on, so the counts give each lane's true
 * symbols and their place; a second pass decodes them there. A stream whose parts do not join
 * inside the next part, or whose counts do not add up, is decoded whole by its first lane, as
 * before; one that is split decodes to the same bytes and status (the same symbols, from the
 * same starts). b2_zstd_bit's own frames join after 0 to 255 of the next part's symbols
 * (near-uniform codes of 7 to 9 bits resynchronise slowly), so the join decodes them rather
 * than look them up among starts the next lane noted.
 */
#ifndef TSR_ZS_HSPLIT_MIN
/* a block's streams are split where they hold this many symbols each (4 times as many
 * literals): a part of fewer pays less than the joins and the second pass cost */
#define TSR_ZS_HSPLIT_MIN 2048u
#endif

/* (a test counts the streams split and joined, and those decoded whole after all:
 * emu_zstd_hsplit.c) */
#ifndef TSR_ZS_NOTE_HSPLIT
#define TSR_ZS_NOTE_HSPLIT(joined) ((void)0)
#endif

/* Whether block b's literals are long Huffman streams, four of about TSR_ZS_HSPLIT_MIN
 * symbols or more: the streams split (tsr_zs_hsplit_lanes), and those the scan counts (a batch
 * of many runs them whole). */
TSR_ZD_INLINE int tsr_zs_hsplit_long(const struct tsr_zs_block *b)
{
	return b->type == 2 && b->lit_type >= 2 && b->lit_streams == 4 &&
	       b->nlit >= 4u * TSR_ZS_HSPLIT_MIN;
}

/* The lanes each of block b's four streams takes (tsr_zs_huf_split: a group's quarter, at most
 * TSR_ZS_HSPLIT_LANES), or 1: not split. Split only where the batch allows it (split): the
 * second pass and the joins are work the whole stream did not do, which a kernel bound by its
 * throughput pays for (H100: 10000 x 64 KiB float32 frames, every block's streams long, 172.9
 * -> 87.6 GB/s), where a few long streams among short blocks are the kernel's tail (b2_zstd_bit's
 * frames 58.6 -> 68.2). */
TSR_ZD_INLINE uint32_t tsr_zs_hsplit_lanes(const struct tsr_zs_block *b, int split)
{
	const uint32_t l = TSR_ZS_GNLANES / 4u;
	if (!split || !tsr_zs_hsplit_long(b) || l < 2)
		return 1;
	return l < TSR_ZS_HSPLIT_LANES ? l : TSR_ZS_HSPLIT_LANES;
}

/* Where part j of L of a stream of top bits starts (its first bit, counted down; L: 0). */
TSR_ZD_INLINE int32_t tsr_zs_hsplit_bit(int32_t top, uint32_t j, uint32_t L)
{
	return j < L ? top - (int32_t)((int64_t)top * j / L) : 0;
}

/* A part's first pass (h at its first bit): counts the symbols that start above stop; h ends
 * at the first start at or below it. More than max: a damaged stream's decode ran on. */
TSR_ZD_INLINE uint32_t tsr_zs_hsplit_count(struct tsr_zs_hr *h, struct tsr_zs_hrc *c,
					   const uint16_t *huf, unsigned mb, int32_t stop,
					   uint32_t max)
{
	uint32_t n = 0;
	while (h->pos > stop && n <= max) {
		uint64_t v = tsr_zs_hr_win(h, c);
		for (uint32_t k = 0; k < TSR_ZS_HUF_RUN && h->pos > stop; k++) {
			uint16_t e = huf[v >> (64 - mb)];
			v <<= e >> 8;
			h->pos -= e >> 8;
			n++;
		}
	}
	return n;
}

/* The join (a, ca: where a part's first pass ended, at or below the next part's first bit
 * s1, and its carried words): a decode on from a and one from s1 step, the higher first, until
 * both start a symbol at the same bit above s2 (the next part's end). *m: the symbols the one
 * from s1 took before it. Returns those a took, or -1 where none is met. (Two readers named
 * apart, not one chosen by a pointer: a chosen struct goes to local memory.) */
TSR_ZD_INLINE int32_t tsr_zs_hsplit_join(struct tsr_zs_hr *a, struct tsr_zs_hrc *ca,
					 const uint16_t *huf, unsigned mb, int32_t s1, int32_t s2,
					 uint32_t *m)
{
	struct tsr_zs_hr b = *a;
	struct tsr_zs_hrc cb = {.k = INT32_MIN / 2};
	b.pos = s1;
	int32_t e = 0;
	uint32_t nb = 0;
	while (b.pos > s2 && a->pos != b.pos) {
		/* (a step of no bits: never in a table tsr_zs_huf_ranks passed, but the join ends
		 * whatever the table) */
		if (a->pos > b.pos) {
			uint32_t d = (uint32_t)huf[tsr_zs_hrc_window(a, ca) >> (64 - mb)] >> 8;
			if (d == 0)
				return -1;
			a->pos -= (int32_t)d;
			e++;
		} else {
			uint32_t d = (uint32_t)huf[tsr_zs_hrc_window(&b, &cb) >> (64 - mb)] >> 8;
			if (d == 0)
				return -1;
			b.pos -= (int32_t)d;
			nb++;
		}
	}
	if (b.pos <= s2)
		return -1;
	*m = nb;
	return e;
}

/* Part j's place and symbols (*at, *mine) among stream k's L parts, from their counts
 * (sp): each part's true symbols are its own after the previous part's join and those to its
 * join. 0 where the stream is to be decoded whole: a part did not join, a part's share is
 * negative (a damaged stream's part may count on past the stream's cnt symbols, and then the
 * previous join's symbols need not be among its own, while the sum may still come out right:
 * the other parts' places and counts would run past the stream), or the shares do not add up
 * to cnt. Every lane of the stream gets the same. */
TSR_ZD_INLINE int tsr_zs_hsplit_share(const struct tsr_zs_hsplit *sp, uint32_t k, uint32_t L,
				      uint32_t j, uint32_t cnt, int64_t *at, int64_t *mine)
{
	int64_t total = 0;
	int bad = 0;
	*at = *mine = 0;
	for (uint32_t i = 0; i < L; i++) {
		bad |= sp->bad[k][i];
		int64_t v = (int64_t)sp->n[k][i] + (i + 1 < L ? (int64_t)sp->e[k][i] : 0) -
			    (i ? (int64_t)sp->m[k][i - 1] : 0);
		bad |= v < 0; /* (none negative and the sum cnt: none past the stream) */
		*at += i < j ? v : 0;
		*mine = i == j ? v : *mine;
		total += v;
	}
	return !bad && total == (int64_t)cnt;
}

/* The four streams of w's block, L lanes each (tsr_zs_hsplit_lanes; lane k L + j: stream k's
 * part j, the group's lanes past 4 L idle), into lits, as above; every lane of the group
 * calls it. Nonzero where the lane's stream fails (the same streams as tsr_zs_huf_stream). */
TSR_ZD int tsr_zs_huf_split(struct tsr_zs_work *w, const uint8_t *in, uint8_t *lits, uint32_t L)
{
	struct tsr_zs_hsplit *sp = &w->sp;
	const uint32_t lane = TSR_ZS_GLANE, k = lane / L, j = lane % L;
	const int on = k < 4;
	const unsigned mb = w->huf_bits;
	struct tsr_zs_hr h;
	struct tsr_zs_hrc c = {.k = INT32_MIN / 2};
	int32_t top = 0, s0 = 0, s1 = 0;
	int ok = 0;
	if (on) {
		ok = !tsr_zs_hr_init(&h, in + w->s_at[k], w->s_len[k]) && mb != 0 &&
		     mb <= TSR_ZS_HUF_MAXBITS;
		if (ok) {
			top = h.pos;
			s0 = tsr_zs_hsplit_bit(top, j, L);
			s1 = tsr_zs_hsplit_bit(top, j + 1, L);
			h.pos = s0;
			sp->n[k][j] = tsr_zs_hsplit_count(&h, &c, w->huf, mb, s1, w->s_cnt[k]);
		}
	}
	if (on && ok && j + 1 < L) {
		const int32_t s2 = tsr_zs_hsplit_bit(top, j + 2, L);
		uint32_t m = 0;
		int32_t e = tsr_zs_hsplit_join(&h, &c, w->huf, mb, s1, s2, &m);
		sp->e[k][j] = e < 0 ? 0u : (uint32_t)e;
		sp->m[k][j] = m;
		sp->join[k][j] = h.pos;
		ok = e >= 0;
	}
	if (on && ok && j + 1 == L && h.pos != 0) /* (the last part ends at the stream's start) */
		ok = 0;
	if (on)
		sp->bad[k][j] = !ok;
	TSR_ZS_GSYNC();
	if (!on)
		return 0;
	uint8_t *out = lits + w->s_out[k];
	int64_t at = 0, mine = 0;
	const uint32_t cnt = w->s_cnt[k];
	const int joined = tsr_zs_hsplit_share(sp, k, L, j, cnt, &at, &mine);
	if (j == 0)
		TSR_ZS_NOTE_HSPLIT(joined);
	if (!joined)
		return j == 0 ? tsr_zs_huf_stream(w, in + w->s_at[k], w->s_len[k], out, cnt) : 0;
	h.pos = j ? sp->join[k][j - 1] : top;
	return tsr_zs_huf_from(w, &h, mb, out + at, (uint32_t)mine);
}

/* The four Huffman streams (lengths l1..l4, one after another at s) decoded into cnt bytes at
 * out, five symbols of each stream in turn: four independent chains of loads in flight
 * instead of one (a lone thread waits on each table lookup). The same checks as one stream at a time. */
TSR_ZD int tsr_zs_huf_4streams(const struct tsr_zs_work *w, const uint8_t *s, uint64_t l1,
			       uint64_t l2, uint64_t l3, uint64_t l4, uint8_t *out, uint32_t cnt)
{
	struct tsr_zs_hr h[4];
	uint32_t seg = (cnt + 3) / 4, n4 = cnt - 3 * seg;
	unsigned mb = w->huf_bits;
	if (tsr_zs_hr_init(&h[0], s, l1) || tsr_zs_hr_init(&h[1], s + l1, l2) ||
	    tsr_zs_hr_init(&h[2], s + l1 + l2, l3) || tsr_zs_hr_init(&h[3], s + l1 + l2 + l3, l4) ||
	    mb == 0 || mb > TSR_ZS_HUF_MAXBITS)
		return -1;
	for (uint32_t i = 0; i < seg; i += TSR_ZS_HUF_RUN) {
		int32_t low = 0;
		for (int k = 0; k < 4; k++) {
			uint32_t len = k < 3 ? seg : n4;
			if (i < len) {
				tsr_zs_hr_syms(&h[k], NULL, w->huf, mb, out + (uint64_t)k * seg + i,
					       len - i < TSR_ZS_HUF_RUN ? len - i : TSR_ZS_HUF_RUN);
				low = h[k].pos < low ? h[k].pos : low;
			}
		}
		if (low < 0)
			return -1;
	}
	for (int k = 0; k < 4; k++)
		if (h[k].pos != 0)
			return -1;
	return 0;
}

/* Lane 0's part of a compressed block's literals: the Huffman tree's weights (from the block
 * that describes it; the group's lanes then rank them, tsr_zs_huf_ranks) and where each stream
 * is, into w. A status. */
TSR_ZD int tsr_zs_lit_prep(struct tsr_zs_work *w, const uint8_t *in,
			   const struct tsr_zs_block *blocks, const struct tsr_zs_block *b)
{
	uint64_t tree = 0, used;
	const struct tsr_zs_block *h = &blocks[b->huf_from];
	if (tsr_zs_huf_tree(w, in + h->in_at + h->lit_hdr, h->lit_csize, &used))
		return TSR_CUDA_ZSTD_E_LITERALS;
	if (b->lit_type == 2)
		tree = used;
	uint64_t s0 = b->in_at + b->lit_hdr + tree, sn = b->lit_csize - tree;
	w->lit_bad = 0;
	if (b->lit_streams == 1) {
		w->nstreams = 1;
		w->s_at[0] = s0;
		w->s_len[0] = sn;
		w->s_out[0] = 0;
		w->s_cnt[0] = b->nlit;
		return TSR_CUDA_ZSTD_OK;
	}
	if (sn < 10)
		return TSR_CUDA_ZSTD_E_LITERALS;
	const uint8_t *s = in + s0;
	uint64_t l1 = tsr_zs_le(s, 2), l2 = tsr_zs_le(s + 2, 2), l3 = tsr_zs_le(s + 4, 2);
	if (l1 + l2 + l3 + 6 >= sn)
		return TSR_CUDA_ZSTD_E_LITERALS;
	uint64_t len[4] = {l1, l2, l3, sn - 6 - l1 - l2 - l3}, at = s0 + 6;
	uint32_t seg = (b->nlit + 3) / 4;
	w->nstreams = 4;
	for (int k = 0; k < 4; k++) {
		w->s_at[k] = at;
		w->s_len[k] = len[k];
		w->s_out[k] = (uint64_t)k * seg;
		w->s_cnt[k] = k < 3 ? seg : b->nlit - 3 * seg;
		at += len[k];
	}
	return TSR_CUDA_ZSTD_OK;
}

/*
 * Where phase b decodes compressed block b's literals in its stream's output (out, cap: the
 * output and its capacity; cells: nonzero when the stream's frames run by cells, which read the
 * literal scratch), or NULL: the scratch. A block with no sequences is its literals, so where
 * phase a knows its place (out_known: every block before it in the stream has its size in its
 * headers) they go there and phase c copies nothing (tsr_zs_block_run): gpu_zstd_bench's set a
 * is such blocks only, a float array's frames of several blocks often too, and the exec
 * kernel's copy of them was read and written once more for nothing.
 */
TSR_ZD_INLINE uint8_t *tsr_zs_lits_out(const struct tsr_zs_block *b, uint8_t *out, uint64_t cap,
				       int cells)
{
	uint64_t at = (uint64_t)b->out_known - 1;
	if (b->type != 2 || b->nseq != 0 || !b->out_known || !out || cells || b->nlit > cap ||
	    at > cap - b->nlit)
		return NULL;
	return out + at;
}

/*
 * Where phase b puts block b's literals: direct (tsr_zs_lits_out) where given, else their
 * place in the literal scratch (lits), or NULL where phase c reads them in the stream
 * (tsr_zs_lits_in_stream): copying raw literals to the scratch and reading them back there was
 * a pass over them for nothing (b2_zstd_bit's frames are 1,971 blocks of 96 KB of raw literals
 * in 2,048).
 */
TSR_ZD_INLINE uint8_t *tsr_zs_lits_dst(const struct tsr_zs_block *b, uint8_t *direct,
				       uint8_t *lits)
{
	if (direct)
		return direct;
	return tsr_zs_lits_in_stream(b) ? NULL : lits + b->lit_at;
}

/*
 * Phase b, literals: decodes compressed block bi's literals (blocks: the stream's blocks, as
 * phase a left them) into lits (nlit bytes; NULL for raw ones, which then need nothing:
 * tsr_zs_lits_dst), by the lanes of a group (TSR_ZS_LIT_GROUP: the warp, or a part of it; w:
 * the group's tables, in shared memory on the GPU): lane 0 of the group builds the Huffman
 * table, the lanes decode the literal streams (four streams: lanes 0 to 3, one each, or split
 * between the lanes where split allows (tsr_zs_hsplit_lanes); one lane alone takes a symbol of
 * each in turn). Every lane returns the literals' status; the sequences follow
 * (tsr_zs_block_seqs).
 */
TSR_ZD int tsr_zs_block_lits(struct tsr_zs_work *w, const uint8_t *in,
			     const struct tsr_zs_block *blocks, uint32_t bi, uint8_t *lits,
			     int split)
{
	const struct tsr_zs_block *b = &blocks[bi];
	const uint8_t *ls = in + b->in_at + b->lit_hdr;
	if (b->lit_type == 0) { /* (16 bytes a lane: a byte a lane, this loop was 43% of the
				 * block kernel's stall samples on gpu_zstd_bench's set d, Blosc2
				 * planes, whose noisy planes' literals are raw; H100) */
		if (lits)
			tsr_zs_copy_lanes(lits, ls, b->nlit, TSR_ZS_GLANE, TSR_ZS_GNLANES);
		return TSR_CUDA_ZSTD_OK;
	}
	if (b->lit_type == 1) {
		for (uint32_t i = TSR_ZS_GLANE; i < b->nlit; i += TSR_ZS_GNLANES)
			lits[i] = ls[0];
		return TSR_CUDA_ZSTD_OK;
	}
	if (TSR_ZS_GLANE == 0)
		w->status = tsr_zs_lit_prep(w, in, blocks, b);
	TSR_ZS_GSYNC();
	int st = w->status;
	if (st == TSR_CUDA_ZSTD_OK && tsr_zs_huf_ranks(w))
		st = TSR_CUDA_ZSTD_E_LITERALS;
	if (st != TSR_CUDA_ZSTD_OK) {
		TSR_ZS_GSYNC(); /* (every lane has read it) */
		return st;
	}
	tsr_zs_huf_fill(w);
	TSR_ZS_GSYNC();
	const uint32_t lanes = tsr_zs_hsplit_lanes(b, split);
	if (lanes > 1) {
		if (tsr_zs_huf_split(w, in, lits, lanes))
			TSR_ZS_GFLAG(&w->lit_bad);
	} else if (w->nstreams == 1 || TSR_ZS_GNLANES >= 4) {
		for (uint32_t k = TSR_ZS_GLANE; k < w->nstreams; k += TSR_ZS_GNLANES)
			if (tsr_zs_huf_stream(w, in + w->s_at[k], w->s_len[k], lits + w->s_out[k],
					      w->s_cnt[k]))
				TSR_ZS_GFLAG(&w->lit_bad);
	} else if (tsr_zs_huf_4streams(w, in + w->s_at[0], w->s_len[0], w->s_len[1], w->s_len[2],
				       w->s_len[3], lits, b->nlit)) {
		TSR_ZS_GFLAG(&w->lit_bad);
	}
	TSR_ZS_GSYNC();
	int bad = w->lit_bad;
	TSR_ZS_GSYNC(); /* (before lane 0 writes the next block's) */
	return bad ? TSR_CUDA_ZSTD_E_LITERALS : TSR_CUDA_ZSTD_OK;
}

#endif /* TSR_ZSTD_LITS_CORE_H */
