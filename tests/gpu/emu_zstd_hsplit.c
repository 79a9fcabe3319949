/* emu_zstd_hsplit.c - a block's four Huffman streams split between lanes (zstd_lits_core.h's tsr_zs_huf_split, here for every stream of 64 symbols or more): groups of 8, 16 and 32 CPU threads as lanes (two and four lanes a stream) decode the literals of text and float frames, valid and damaged, to the one-lane emulation's bytes and statuses; most streams join, and those that do not are decoded whole; the parts' shares refused where one is negative. */
#include <stdatomic.h>

static atomic_long n_joined, n_whole;
#define TSR_ZS_NOTE_HSPLIT(joined) atomic_fetch_add((joined) ? &n_joined : &n_whole, 1)
#define TSR_ZS_HSPLIT_MIN 64u
#include "zstd_groups.h"

/* A random complete prefix code of at most 256 symbols and codes of at most mb bits, as the
 * table the block kernel decodes by (w->huf: symbol | bits << 8 for each mb-bit window). */
static void random_table(struct tsr_zs_work *w, unsigned mb, uint64_t *seed)
{
	uint32_t at[256], bits[256], n = 1; /* leaves: their first entry and their code's bits */
	at[0] = 0, bits[0] = 0;
	unsigned want = 2 + lzp_rand(seed) % 255;
	for (int tries = 0; n < want && tries < 4096; tries++) {
		uint32_t i = lzp_rand(seed) % n;
		if (bits[i] >= mb)
			continue;
		memmove(&at[i + 2], &at[i + 1], (n - i - 1) * sizeof *at);
		memmove(&bits[i + 2], &bits[i + 1], (n - i - 1) * sizeof *bits);
		bits[i]++;
		at[i + 1] = at[i] + (1u << (mb - bits[i])), bits[i + 1] = bits[i];
		n++;
	}
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t e = 0; e < 1u << (mb - bits[i]); e++)
			w->huf[at[i] + e] = (uint16_t)((i & 255u) | bits[i] << 8);
	w->huf_bits = mb;
}

/* the split's lanes: each runs tsr_zs_huf_split on the one block */
struct direct {
	struct tsr_zs_work *w;
	const uint8_t *in;
	uint8_t *out;
	uint32_t L;
	int st[32];
};
static void direct_part(void *ctx)
{
	struct direct *d = ctx;
	d->st[g_lane] = tsr_zs_huf_split(d->w, d->in, d->out, d->L);
}

static long direct_valid, direct_failed;

/* Four random streams by a random table, each asked for the symbols its whole decode makes
 * before it reaches the stream's start, one fewer or one more: split between the g lanes of a
 * group, the same bytes and failures as each decoded whole (a symbol that starts inside the
 * stream and ends past its start fails both). */
static void check_direct(unsigned g, uint64_t *seed)
{
	static struct tsr_zs_work w;
	memset(&w, 0, sizeof w);
	random_table(&w, 5 + lzp_rand(seed) % 7, seed);
	uint8_t *in = check_malloc(4 * 6000), *want = check_malloc(4 * 60000), *got;
	uint64_t at = 0, out = 0;
	w.nstreams = 4;
	for (int k = 0; k < 4; k++) {
		/* most streams end where a symbol does (made again until one does), the others a
		 * symbol's bits past it */
		const int ends = lzp_rand(seed) % 4 != 0;
		uint32_t n, c;
		int32_t end;
		int tries = 0;
		do {
			n = 300 + lzp_rand(seed) % 5000;
			for (uint32_t i = 0; i < n; i++)
				in[at + i] = (uint8_t)lzp_rand(seed);
			in[at + n - 1] |= (uint8_t)(1u << lzp_rand(seed) % 8);
			/* the whole decode's symbols to the start (symbol after symbol) */
			struct tsr_zs_hr h = {0};
			CHECK(tsr_zs_hr_init(&h, in + at, n) == 0);
			c = 0;
			while (h.pos > 0) {
				h.pos -= w.huf[tsr_zs_hr_window64(&h) >> (64 - w.huf_bits)] >> 8;
				c++;
			}
			end = h.pos;
		} while (ends && end != 0 && ++tries < 200);
		w.s_at[k] = at, w.s_len[k] = n, w.s_out[k] = out;
		/* (where it ends: that many symbols, or one fewer or one more; or far fewer, so
		 * that the parts count on past them) */
		w.s_cnt[k] = c + (end == 0 && ends ? 0u : (uint32_t)(lzp_rand(seed) % 3) - 1u);
		if (!ends && lzp_rand(seed) % 3 == 0 && c / 8 >= 64)
			w.s_cnt[k] = c / 8;
		at += n;
		out += w.s_cnt[k];
	}
	/* the split's output: exactly the streams' symbols, and a guard after them */
	got = check_malloc(out + 64);
	memset(want, 0xA5, out);
	memset(got, 0xA5, out + 64);
	g_threads = 0, g_n = 1, g_lane = 0, g_id = 0;
	int bad[4];
	for (int k = 0; k < 4; k++)
		bad[k] = tsr_zs_huf_stream(&w, in + w.s_at[k], w.s_len[k], want + w.s_out[k],
					   w.s_cnt[k]) != 0;
	/* (the block the streams make: four Huffman streams, its literals theirs) */
	struct tsr_zs_block blk = {0};
	blk.type = 2, blk.lit_type = 2, blk.lit_streams = 4, blk.nlit = (uint32_t)out;
	g_n = g; /* (tsr_zs_hsplit_lanes reads the group's lanes) */
	struct direct d = {&w, in, got, tsr_zs_hsplit_lanes(&blk, 1), {0}};
	CHECK(tsr_zs_hsplit_lanes(&blk, 0) == 1); /* (a batch that does not allow it) */
	CHECK(d.L == (g / 4 < 4 ? g / 4 : 4));
	groups_run(g, g, direct_part, &d);
	for (unsigned k = 0; k < 4; k++) {
		int failed = 0;
		for (unsigned j = 0; j < d.L; j++)
			failed |= d.st[k * d.L + j] != 0;
		CHECK(failed == bad[k]);
		if (!bad[k])
			CHECK(memcmp(got + w.s_out[k], want + w.s_out[k], w.s_cnt[k]) == 0);
		direct_valid += !bad[k];
		direct_failed += bad[k];
	}
	for (uint64_t i = out; i < out + 64; i++) /* (nothing written past the streams) */
		CHECK(got[i] == 0xA5);
	free(in);
	free(want);
	free(got);
}

/* The parts' shares (tsr_zs_hsplit_share) from counts set by hand, four parts of a stream of
 * 100 symbols: joined parts to their places; a negative share refused even where the shares
 * add up (a damaged stream's second part counting on past its symbols, its
 * join far into it: taken, its place and count would run past the stream); a part that did not
 * join, or shares that do not add up, refused. */
static void check_shares(void)
{
	static struct tsr_zs_hsplit sp;
	memset(&sp, 0, sizeof sp);
	const uint32_t n[4] = {40, 30, 25, 20}, e[3] = {3, 2, 1}, m[3] = {5, 4, 2};
	for (int i = 0; i < 4; i++) {
		sp.n[1][i] = n[i];
		if (i < 3)
			sp.e[1][i] = e[i], sp.m[1][i] = m[i];
	}
	/* shares 40 + 3, 30 + 2 - 5, 25 + 1 - 4, 20 - 2: 110 */
	static const int64_t share[4] = {43, 27, 22, 18};
	int64_t at, mine, place = 0;
	for (uint32_t j = 0; j < 4; j++) {
		CHECK(tsr_zs_hsplit_share(&sp, 1, 4, j, 110, &at, &mine) == 1);
		CHECK(at == place && mine == share[j]);
		place += share[j];
	}
	CHECK(tsr_zs_hsplit_share(&sp, 1, 4, 0, 109, &at, &mine) == 0); /* (no sum) */
	sp.bad[1][2] = 1;
	CHECK(tsr_zs_hsplit_share(&sp, 1, 4, 0, 110, &at, &mine) == 0); /* (no join) */
	sp.bad[1][2] = 0;
	/* 60, -10, 30, 20: 100 */
	const uint32_t n2[4] = {57, 101, 30, 20}, e2[3] = {3, 0, 0}, m2[3] = {111, 0, 0};
	for (int i = 0; i < 4; i++) {
		sp.n[1][i] = n2[i];
		if (i < 3)
			sp.e[1][i] = e2[i], sp.m[1][i] = m2[i];
	}
	for (uint32_t j = 0; j < 4; j++)
		CHECK(tsr_zs_hsplit_share(&sp, 1, 4, j, 100, &at, &mine) == 0);
	/* 130, -50, 0, 20: 100 */
	const uint32_t n3[4] = {130, 10, 0, 20}, m3[3] = {60, 0, 0};
	for (int i = 0; i < 4; i++) {
		sp.n[1][i] = n3[i];
		if (i < 3)
			sp.e[1][i] = 0, sp.m[1][i] = m3[i];
	}
	CHECK(tsr_zs_hsplit_share(&sp, 1, 4, 0, 100, &at, &mine) == 0);
}

int main(void)
{
	check_shares();
	uint64_t dseed = 77;
	for (int r = 0; r < 600; r++)
		check_direct(8u << (r % 3), &dseed);
	printf("random tables: %ld streams split as decoded whole, %ld failing as whole\n",
	       direct_valid, direct_failed);
	CHECK(direct_valid > 1000 && direct_failed > 300);

	static const int profiles[] = {LZP_TEXT, LZP_FLOATS, LZP_FLOATS_SHUFFLED, LZP_SPARSE};
	static const size_t sizes[] = {5000, 131072, 700000};
	static const int levels[] = {1, 3, 9, 19};
	uint64_t seed = 5;
	char what[96];
	int combo = 0;
	long joined[3] = {0}, whole_damaged = 0;
	for (size_t p = 0; p < sizeof profiles / sizeof *profiles; p++)
		for (size_t si = 0; si < 3; si++)
			for (size_t li = 0; li < 4; li++)
				for (unsigned gi = 0; gi < 3; gi++) {
					unsigned g = 8u << gi;
					size_t n = sizes[si], zn;
					uint8_t *z = zstd_profile_frame(profiles[p], n,
									(uint64_t)(++combo % 64 + 1),
									levels[li], &zn);
					snprintf(what, sizeof what, "%s n=%zu level=%d",
						 lzp_name[profiles[p]], n, levels[li]);
					long j0 = atomic_load(&n_joined);
					check_groups(z, zn, g, what);
					joined[gi] += atomic_load(&n_joined) - j0;
					for (int t = 0; t < 6 && zn > 20; t++) { /* damaged copies */
						z[12 + lzp_rand(&seed) % (zn - 12)] ^=
							(uint8_t)(1u << (lzp_rand(&seed) % 8));
						long w0 = atomic_load(&n_whole);
						check_groups(z, zn, g, what);
						whole_damaged += atomic_load(&n_whole) - w0;
					}
					free(z);
				}
	printf("%ld streams (%ld with a damaged block): Huffman streams split and joined %ld "
	       "(groups of 8: %ld, 16: %ld, 32: %ld), decoded whole %ld (%ld in damaged frames)\n",
	       nstreams, ndamaged, (long)atomic_load(&n_joined), joined[0], joined[1], joined[2],
	       (long)atomic_load(&n_whole), whole_damaged);
	/* (the one lane's reference counts too: it never splits, so each count is the groups') */
	CHECK(joined[0] > 200 && joined[1] > 200 && joined[2] > 200);
	CHECK(whole_damaged > 10);
	CHECK_DONE();
}
