/* emu_zstd_litword.c - the literals as aligned words (zstd_core.h's tsr_zs_huf_stream and tsr_zs_hr_words, run on the CPU; TSR_ZS_LIT_WORD bytes, 8 unless the build says 4): every Huffman stream of libzstd's frames (several data profiles and levels, and damaged copies), decoded into outputs at each of eight alignments (malloc's 16-byte base plus 0 to 7), gives a symbol-at-a-time decoder's bytes and status, writes nothing outside its bytes and its words only aligned, and reads nothing outside the stream. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the words stored, and those not aligned */
static unsigned long long words, unaligned;
#define TSR_ZS_NOTE_PUTW(p) (words++, unaligned += ((uintptr_t)(p) & (TSR_ZS_LIT_WORD - 1u)) != 0)
#include "check.h"
#include "zstd_note_read.h"
#include "cuda/zstd_lits_core.h"
#include "zstd_frames.h"

#define GUARD 16

/* Stream s[0..n) into cnt bytes a symbol at a time; 0, or -1 as tsr_zs_huf_stream fails.
 * at[i]: the bits left after symbol i (when not NULL). */
static int ref_stream(const uint16_t *huf, unsigned mb, const uint8_t *s, uint64_t n,
		      uint8_t *out, uint32_t cnt, int32_t *at)
{
	struct tsr_zs_hr h;
	if (tsr_zs_hr_init(&h, s, n))
		return -1;
	for (uint32_t i = 0; i < cnt; i++) {
		uint64_t v = tsr_zs_hr_window64(&h);
		uint16_t e = huf[v >> (64 - mb)];
		out[i] = (uint8_t)e;
		h.pos -= e >> 8;
		if (h.pos < 0)
			return -1;
		if (at)
			at[i] = h.pos;
	}
	return h.pos == 0 ? 0 : -1;
}

static long nstreams, nfailed, nwords_paths, nshort;

/* Stream s[0..n) of cnt symbols into out at each of eight alignments by tsr_zs_huf_stream,
 * against the symbol-at-a-time decoder; that decoder's status. */
static int check_stream(const struct tsr_zs_work *w, const uint8_t *s, uint64_t n, uint32_t cnt)
{
	uint8_t *want = check_malloc(cnt + 1), *buf = check_malloc(cnt + 2 * GUARD + 8);
	in_lo = s;
	in_hi = s + n;
	int rs = ref_stream(w->huf, w->huf_bits, s, n, want, cnt, NULL);
	for (unsigned a = 0; a < 8; a++) {
		memset(buf, 0xA5, cnt + 2 * GUARD + 8);
		uint8_t *out = buf + GUARD + a;
		int st = tsr_zs_huf_stream(w, s, n, out, cnt);
		int ok = (st == 0) == (rs == 0) && (rs != 0 || memcmp(out, want, cnt) == 0);
		for (size_t i = 0; i < GUARD + a; i++)
			ok &= buf[i] == 0xA5;
		for (size_t i = GUARD + a + cnt; i < cnt + 2 * GUARD + 8; i++)
			ok &= buf[i] == 0xA5;
		if (!ok)
			fprintf(stderr, "stream of %llu bytes, %u symbols, %u bits, at alignment %u: "
				"status %d, %d symbol by symbol\n",
				(unsigned long long)n, cnt, w->huf_bits, a, st, rs);
		CHECK(ok);
	}
	nstreams++;
	nfailed += rs != 0;
	nwords_paths += cnt >= TSR_ZS_LIT_GROUP_SYMS + 8;
	nshort += cnt < TSR_ZS_LIT_GROUP_SYMS + 8;
	free(want);
	free(buf);
	return rs;
}

/* The valid stream of s's first k symbols (libzstd's streams hold 63 or more): the bits they
 * take, [at[k - 1], top), under a new end mark; its length into *pn. */
static uint8_t *prefix_stream(const uint8_t *s, uint64_t n, const int32_t *at, uint32_t k,
			      uint64_t *pn)
{
	int32_t top = (int32_t)(8 * (n - 1) + tsr_zs_highbit(s[n - 1])), lo = at[k - 1];
	uint32_t len = (uint32_t)(top - lo);
	*pn = len / 8 + 1;
	uint8_t *p = check_malloc(*pn);
	memset(p, 0, *pn);
	for (uint32_t j = 0; j < len; j++)
		p[j >> 3] |= (uint8_t)(((s[(lo + j) >> 3] >> ((lo + j) & 7)) & 1) << (j & 7));
	p[len >> 3] |= (uint8_t)(1u << (len & 7));
	return p;
}

/* Every literal stream of frame z (damaged at a random bit when `damage`), and, of the valid
 * ones, prefixes of 1 to 60 symbols. */
static void check_frame(const uint8_t *z, size_t zn, uint64_t *seed, int damage)
{
	struct tsr_zs_count c;
	in_lo = z; /* (the tables' reads, from the frame) */
	in_hi = z + zn;
	if (tsr_zs_scan(z, zn, NULL, 0, NULL, 0, &c) != TSR_CUDA_ZSTD_OK)
		return;
	struct tsr_zs_frame *fr = check_malloc((c.nframes + 1) * sizeof *fr);
	struct tsr_zs_block *bl = check_malloc((c.nblocks + 1) * sizeof *bl);
	struct tsr_zs_work *w = check_malloc(sizeof *w);
	tsr_zs_scan(z, zn, fr, c.nframes, bl, c.nblocks, &c);
	for (uint32_t b = 0; b < c.nblocks; b++) {
		in_lo = z;
		in_hi = z + zn;
		if (bl[b].type != 2 || bl[b].lit_type < 2 || tsr_zs_lit_prep(w, z, bl, &bl[b]) ||
		    tsr_zs_huf_ranks(w))
			continue;
		tsr_zs_huf_fill(w);
		for (uint32_t k = 0; k < w->nstreams; k++) {
			uint64_t n = w->s_len[k];
			uint32_t cnt = w->s_cnt[k];
			uint8_t *s = check_malloc(n);
			memcpy(s, z + w->s_at[k], n);
			if (damage && n > 2)
				s[lzp_rand(seed) % (n - 1)] ^= (uint8_t)(1u << (lzp_rand(seed) % 8));
			if (check_stream(w, s, n, cnt) == 0 && !damage && k == 0) {
				/* (the symbols' bit positions, for the prefixes) */
				uint8_t *sym = check_malloc(cnt + 1);
				int32_t *at = check_malloc((cnt + 1) * sizeof *at);
				ref_stream(w->huf, w->huf_bits, s, n, sym, cnt, at);
				for (uint32_t j = 1; j <= 60 && j < cnt; j += 1 + (uint32_t)(lzp_rand(seed) % 3)) {
					uint64_t pn;
					uint8_t *p = prefix_stream(s, n, at, j, &pn);
					CHECK(check_stream(w, p, pn, j) == 0); /* (a valid stream) */
					free(p);
				}
				free(sym);
				free(at);
			}
			free(s);
		}
	}
	free(fr);
	free(bl);
	free(w);
}

int main(void)
{
	static const size_t sizes[] = {90, 160, 2000, 70000, 300000, 1000000};
	static const int levels[] = {-1, 1, 3, 9, 15};
	uint64_t seed = 99;
	for (int p = 0; p < LZP_N; p++)
		for (size_t si = 0; si < 6; si++)
			for (size_t li = 0; li < 5; li++) {
				size_t zn;
				uint8_t *z = zstd_profile_frame(p, sizes[si],
								(uint64_t)(p * 15 + si * 5 + li + 1),
								levels[li], &zn);
				check_frame(z, zn, &seed, 0);
				for (int t = 0; t < 8; t++)
					check_frame(z, zn, &seed, 1);
				free(z);
			}
	printf("%ld literal streams (%ld damaged ones refused, %ld long enough for words, %ld shorter than a group) at 8 "
	       "alignments as symbol by symbol (%llu loads, %llu outside the stream; %llu words stored, %llu "
	       "not aligned)\n",
	       nstreams, nfailed, nwords_paths, nshort, loads, outside, words, unaligned);
	CHECK(nstreams > 1000 && nfailed > 100 && nwords_paths > 500 && nshort > 1000);
	CHECK(outside == 0);
	CHECK(words > 100000 && unaligned == 0);
	CHECK_DONE();
}
