/* emu_zstd_ranks.c - a Huffman tree description's weights checked and ranked by a group's lanes (zstd_core.h's tsr_zs_huf_tree, tsr_zs_huf_ranks and tsr_zs_huf_fill, 1, 8, 16 and 32 CPU threads as lanes): every lane gives the rule's verdict (RFC 8878 4.2.1, and libzstd's even count of weight-1 symbols), and an accepted tree's table has each symbol's 2^(weight-1) entries in canonical order, every entry once, for weights written directly (4 bits each) from complete codes, codes one weight off, and noise. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a lane's place and the group's size and barrier (TSR_ZS_GSYNC), as emu_zstd_groups.c */
static _Thread_local unsigned g_lane;
static unsigned g_n = 1;
static pthread_barrier_t g_bar;
static int g_threads;
static void g_sync(void)
{
	if (g_threads)
		pthread_barrier_wait(&g_bar);
}
#define TSR_ZS_GLANE g_lane
#define TSR_ZS_GNLANES g_n
#define TSR_ZS_GSYNC() g_sync()

#include "check.h"
#include "zstd_host.h"

#define NCASES 6000

struct tcase {
	uint8_t desc[1 + 64]; /* the description: 127 + n, then n weights 4 bits each */
	unsigned n;           /* weights written (the last symbol's is deduced) */
};

/* The rule's verdict on c: 0 and the last weight and the table's bits, or the refusal's kind
 * (1 a weight over 12, 2 none, 3 no power of two left or over 11 bits, 4 weight-1 symbols
 * fewer than 2 or odd). (An odd count cannot pass the power of two: every other weight's
 * 2^(w-1) is even, and so is the code's 2^bits; libzstd checks it all the same, and so do
 * tsr_zs_huf_ranks and this rule, so kind 4 here is always fewer than 2.) */
static int rule(const uint8_t *wt, unsigned n, unsigned *lastw, unsigned *bits)
{
	uint32_t total = 0, ones = 0;
	for (unsigned i = 0; i < n; i++) {
		if (wt[i] > 12)
			return 1;
		total += wt[i] ? 1u << (wt[i] - 1) : 0;
		ones += wt[i] == 1;
	}
	if (total == 0)
		return 2;
	unsigned m = 0;
	while ((1u << m) <= total)
		m++;
	uint32_t rest = (1u << m) - total;
	if (m > 11 || (rest & (rest - 1)))
		return 3;
	unsigned l = 1;
	while ((1u << (l - 1)) < rest)
		l++;
	ones += l == 1;
	if (ones < 2 || (ones & 1))
		return 4;
	*lastw = l;
	*bits = m;
	return 0;
}

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

/* Weights of a complete prefix code (a random full binary tree of at most 11 levels) over up
 * to n + 1 symbols, the last of them a leaf; the others' leaves at random places, the rest 0. */
static void complete_code(uint8_t *wt, unsigned n)
{
	unsigned depth[129], k = 1;
	depth[0] = 0;
	unsigned want = 2 + rnd(n); /* leaves: 2 to n + 1 */
	for (unsigned tries = 0; k < want && tries < 4000; tries++) {
		unsigned i = rnd(k);
		if (depth[i] >= 11)
			continue;
		depth[i]++;
		depth[k++] = depth[i];
	}
	unsigned m = 0;
	for (unsigned i = 0; i < k; i++)
		m = depth[i] > m ? depth[i] : m;
	memset(wt, 0, n + 1);
	wt[n] = (uint8_t)(m + 1 - depth[k - 1]);
	for (unsigned i = 0; i + 1 < k; i++) { /* the others at free places below n */
		unsigned at;
		do
			at = rnd(n);
		while (wt[at]);
		wt[at] = (uint8_t)(m + 1 - depth[i]);
	}
}

static struct tcase cases[NCASES];
static uint8_t wts[NCASES][129];
static int got_st[NCASES][32];
static struct tsr_zs_work work;
static uint16_t table[NCASES][1u << TSR_ZS_HUF_MAXBITS];
static uint32_t bits_of[NCASES], nsym_of[NCASES];
static uint8_t lastw_of[NCASES];

/* Every case, in turn, on this lane: lane 0 reads the weights, the group ranks them and fills
 * the table, lane 0 keeps what came out. */
static void *lane_main(void *arg)
{
	g_lane = (unsigned)(uintptr_t)arg;
	for (unsigned c = 0; c < NCASES; c++) {
		if (g_lane == 0) {
			uint64_t used = 0;
			CHECK(tsr_zs_huf_tree(&work, cases[c].desc, 1 + (cases[c].n + 1) / 2, &used) ==
			      0);
			CHECK(used == 1 + (cases[c].n + 1) / 2);
			for (unsigned i = 0; i < (1u << TSR_ZS_HUF_MAXBITS); i++)
				work.huf[i] = 0xffff;
		}
		g_sync();
		int st = tsr_zs_huf_ranks(&work); /* (then the fill at once, as tsr_zs_block_lits) */
		if (st == 0)
			tsr_zs_huf_fill(&work);
		got_st[c][g_lane] = st;
		g_sync();
		if (g_lane == 0 && st == 0) {
			memcpy(table[c], work.huf, sizeof table[c]);
			bits_of[c] = work.huf_bits;
			nsym_of[c] = work.huf_nsym;
			lastw_of[c] = work.weights[cases[c].n];
		}
		g_sync(); /* (before lane 0 reads the next) */
	}
	return NULL;
}

int main(void)
{
	unsigned kinds[3] = {0}, refusals[5] = {0};
	for (unsigned c = 0; c < NCASES; c++) {
		unsigned n = 1 + rnd(128), kind = c % 3;
		uint8_t *wt = wts[c];
		if (kind == 0) {
			complete_code(wt, n);
		} else if (kind == 1) { /* a complete code with one weight moved by one */
			complete_code(wt, n);
			unsigned i = rnd(n);
			wt[i] = (uint8_t)(wt[i] == 0 ? 1 : rnd(2) ? wt[i] + 1 : wt[i] - 1);
		} else { /* noise, mostly small weights */
			unsigned top = rnd(3) ? 8 : 16;
			for (unsigned i = 0; i < n; i++)
				wt[i] = (uint8_t)(rnd(3) ? 0 : rnd(top));
		}
		kinds[kind]++;
		cases[c].n = n;
		cases[c].desc[0] = (uint8_t)(127 + n);
		memset(cases[c].desc + 1, 0, 64);
		for (unsigned i = 0; i < n; i++)
			cases[c].desc[1 + i / 2] |= (uint8_t)(i & 1 ? wt[i] : wt[i] << 4);
	}
	const unsigned lanes[4] = {1, 8, 16, 32};
	unsigned long long entries = 0, bad = 0;
	for (unsigned li = 0; li < 4; li++) {
		g_n = lanes[li];
		memset(got_st, 0x55, sizeof got_st);
		if (g_n == 1) {
			g_threads = 0;
			lane_main((void *)(uintptr_t)0);
		} else {
			g_threads = 1;
			pthread_t t[32];
			CHECK(pthread_barrier_init(&g_bar, NULL, g_n) == 0);
			for (unsigned i = 0; i < g_n; i++)
				CHECK(pthread_create(&t[i], NULL, lane_main, (void *)(uintptr_t)i) == 0);
			for (unsigned i = 0; i < g_n; i++)
				pthread_join(t[i], NULL);
			pthread_barrier_destroy(&g_bar);
		}
		for (unsigned c = 0; c < NCASES; c++) {
			const unsigned n = cases[c].n;
			unsigned lastw = 0, mb = 0;
			int verdict = rule(wts[c], n, &lastw, &mb);
			if (li == 0)
				refusals[verdict]++;
			for (unsigned l = 0; l < g_n; l++)
				if (got_st[c][l] != (verdict ? -1 : 0) && bad++ < 8)
					fprintf(stderr, "%u lanes: case %u lane %u: %d, the rule %d\n",
						g_n, c, l, got_st[c][l], verdict);
			if (verdict)
				continue;
			if ((bits_of[c] != mb || nsym_of[c] != n + 1 || lastw_of[c] != lastw) &&
			    bad++ < 8)
				fprintf(stderr, "%u lanes: case %u: bits %u symbols %u last %u\n", g_n,
					c, bits_of[c], nsym_of[c], lastw_of[c]);
			/* canonical order: by weight up, then by symbol; each 2^(w-1) entries of
			 * symbol | (bits + 1 - w) << 8, and every entry of 2^mb written */
			uint32_t at = 0;
			for (unsigned k = 1; k <= mb; k++)
				for (unsigned s = 0; s <= n; s++) {
					unsigned w = s < n ? wts[c][s] : lastw;
					if (w != k)
						continue;
					uint16_t e = (uint16_t)(s | (mb + 1 - w) << 8);
					for (uint32_t j = 0; j < 1u << (w - 1); j++, at++) {
						entries++;
						if (table[c][at] != e && bad++ < 8)
							fprintf(stderr,
								"%u lanes: case %u entry %u: %04x, "
								"want %04x\n",
								g_n, c, at, table[c][at], e);
					}
				}
			CHECK(at == 1u << mb);
			for (uint32_t j = at; j < (1u << TSR_ZS_HUF_MAXBITS); j++)
				if (table[c][j] != 0xffff && bad++ < 8)
					fprintf(stderr, "%u lanes: case %u entry %u past the table\n",
						g_n, c, j);
		}
	}
	printf("%u complete codes, %u one weight off, %u noise: %u accepted; refused %u over 12, "
	       "%u none, %u not a power of two, %u weight-1 count; at 1, 8, 16 and 32 lanes "
	       "%llu table entries checked, %llu wrong\n",
	       kinds[0], kinds[1], kinds[2], refusals[0], refusals[1], refusals[2], refusals[3],
	       refusals[4], entries, bad);
	/* (each verdict reached, so that the test covers every check) */
	for (unsigned v = 0; v < 5; v++)
		CHECK(refusals[v] > 0);
	CHECK(bad == 0);
	return check_failures ? 1 : 0;
}
