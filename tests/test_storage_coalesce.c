/* test_storage_coalesce.c - tsr_coalesce: spans in, merged reads and pieces out, checked byte by byte and rule by rule against brute force. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "io/storage.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(uint64_t n) /* [0, n) */
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return n ? rng_state % n : 0;
}

/* One byte a read moves: from (file, offset) to dst. */
struct move {
	uint64_t file; /* (no padding: moves compare with memcmp) */
	uint64_t from, to;
};

static int move_cmp(const void *x, const void *y)
{
	const struct move *a = x, *b = y;
	if (a->file != b->file)
		return a->file < b->file ? -1 : 1;
	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	return a->to < b->to ? -1 : a->to > b->to;
}

static const char *files[] = {"a", "b", "", "a"}; /* "a" twice: equal strings, one file */

static int file_id(const char *f)
{
	return !strcmp(f, "a") ? 0 : !strcmp(f, "b") ? 1 : 2;
}

/* Whether span j may join a run that starts at span i and holds n bytes so far. */
static int may_join(const struct tsr_span *s, int64_t i, uint64_t n, int64_t j,
		    const struct tsr_coalesce_rule *r)
{
	return s[j].nbytes <= r->join_max && n + s[j].nbytes <= r->run_max &&
	       s[j].offset == s[i].offset + n && s[j].dst == s[i].dst + n &&
	       file_id(s[j].file) == file_id(s[i].file);
}

/* Checks pieces against the spans: every byte of every span moved exactly once to its place,
 * and the runs and pieces exactly the greedy rule's (each run as long as the rule allows). */
static void check_one(const struct tsr_span *s, int64_t n, const struct tsr_coalesce_rule *r,
		      const struct tsr_piece *p, int64_t np, const char *what)
{
	int fails = check_failures;
	/* bytes: the spans' moves against the pieces' moves, as multisets */
	size_t nwant = 0, ngot = 0;
	for (int64_t i = 0; i < n; i++)
		nwant += s[i].nbytes;
	for (int64_t k = 0; k < np; k++)
		ngot += p[k].nbytes;
	CHECK_EQ_INT(ngot, nwant);
	if (ngot != nwant)
		goto out;
	struct move *want = malloc((nwant + 1) * sizeof(*want)), *got = malloc((ngot + 1) * sizeof(*got));
	size_t w = 0, g = 0;
	for (int64_t i = 0; i < n; i++)
		for (uint64_t b = 0; b < s[i].nbytes; b++)
			want[w++] = (struct move){file_id(s[i].file), s[i].offset + b, s[i].dst + b};
	for (int64_t k = 0; k < np; k++) {
		CHECK(p[k].span >= 0 && p[k].span < n && p[k].nspans >= 1 &&
		      p[k].span + p[k].nspans <= n);
		if (p[k].span < 0 || p[k].span >= n)
			break;
		for (uint64_t b = 0; b < p[k].nbytes; b++)
			got[g++] = (struct move){file_id(s[p[k].span].file), p[k].offset + b,
						 p[k].dst + b};
	}
	if (g == w) {
		qsort(want, w, sizeof(*want), move_cmp);
		qsort(got, g, sizeof(*got), move_cmp);
		CHECK(memcmp(want, got, w * sizeof(*want)) == 0);
	}
	free(want);
	free(got);
	/* rules, walking the spans in order as the pieces cover them */
	int64_t k = 0;
	for (int64_t i = 0; i < n;) {
		if (!s[i].nbytes) {
			/* an empty span alone is not read */
			CHECK(k >= np || p[k].span != i);
			i++;
			continue;
		}
		CHECK(k < np);
		if (k >= np)
			break;
		CHECK_EQ_INT(p[k].span, i);
		if (p[k].span != i)
			break;
		/* the run the rule allows from i: as long as possible */
		int64_t j = i + 1;
		uint64_t sum = s[i].nbytes;
		if (s[i].nbytes <= r->start_max)
			while (j < n && may_join(s, i, sum, j, r))
				sum += s[j++].nbytes;
		if (j > i + 1) {
			CHECK_EQ_INT(p[k].nspans, j - i);
			CHECK_EQ_INT(p[k].nbytes, sum);
			CHECK_EQ_INT(p[k].offset, s[i].offset);
			CHECK_EQ_INT(p[k].dst, s[i].dst);
			k++;
		} else {
			/* alone: consecutive pieces of at most r->piece, all full but the last */
			uint64_t off = 0;
			uint64_t piece = r->piece ? r->piece : UINT64_MAX;
			if (s[i].nbytes <= r->whole_max)
				piece = UINT64_MAX;
			while (off < s[i].nbytes && k < np && p[k].span == i) {
				CHECK_EQ_INT(p[k].nspans, 1);
				CHECK_EQ_INT(p[k].offset, s[i].offset + off);
				CHECK_EQ_INT(p[k].dst, s[i].dst + off);
				uint64_t len = s[i].nbytes - off < piece ? s[i].nbytes - off : piece;
				CHECK_EQ_INT(p[k].nbytes, len);
				off += p[k].nbytes;
				k++;
			}
			CHECK_EQ_INT(off, s[i].nbytes);
		}
		i = j;
	}
	CHECK_EQ_INT(k, np);
out:
	if (check_failures != fails)
		fprintf(stderr,
			"  (in %s: %lld spans, rule start %llu join %llu run %llu piece %llu whole %llu)\n",
			what, (long long)n, (unsigned long long)r->start_max,
			(unsigned long long)r->join_max, (unsigned long long)r->run_max,
			(unsigned long long)r->piece, (unsigned long long)r->whole_max);
}

/* Fixed cases, with the reads written out by hand. */
static void check_fixed(void)
{
	/* FITS tiles back to back in the heap and in the slot: one read up to run_max; a large
	 * tile alone in pieces; a tile of another file starts anew. */
	const struct tsr_span s[] = {
		{"a", 100, 10, 0}, {"a", 110, 10, 10}, {"a", 120, 10, 20}, /* one read of 30 */
		{"a", 130, 10, 40},                                       /* slot gap: alone */
		{"a", 140, 25, 50},                                       /* too large: pieces */
		{"b", 165, 5, 75}, {"b", 170, 0, 80}, {"b", 170, 5, 80},  /* an empty one joins */
		{"a", 175, 0, 85},                                        /* empty alone: no read */
	};
	const struct tsr_coalesce_rule r = {.start_max = 10, .join_max = 10, .run_max = 30,
					    .piece = 10};
	struct tsr_piece *p = NULL;
	int64_t np = 0;
	size_t cap = 0;
	CHECK_EQ_INT(tsr_coalesce(s, 9, &r, &p, &np, &cap), TSR_OK);
	const struct tsr_piece want[] = {
		{0, 3, 100, 30, 0}, {3, 1, 130, 10, 40}, {4, 1, 140, 10, 50}, {4, 1, 150, 10, 60},
		{4, 1, 160, 5, 70}, {5, 3, 165, 10, 75},
	};
	CHECK_EQ_INT(np, 6);
	for (int64_t k = 0; k < np && k < 6; k++) {
		CHECK_EQ_INT(p[k].span, want[k].span);
		CHECK_EQ_INT(p[k].nspans, want[k].nspans);
		CHECK_EQ_INT(p[k].offset, want[k].offset);
		CHECK_EQ_INT(p[k].nbytes, want[k].nbytes);
		CHECK_EQ_INT(p[k].dst, want[k].dst);
	}
	check_one(s, 9, &r, p, np, "fixed");
	/* appending: a second call adds after the first's reads */
	CHECK_EQ_INT(tsr_coalesce(s, 1, &r, &p, &np, &cap), TSR_OK);
	CHECK_EQ_INT(np, 7);
	CHECK_EQ_INT(p[6].offset, 100);
	/* without limits (a split chunk's blocks, sorted, landing at their own offsets) */
	const struct tsr_span blocks[] = {{"", 0, 64, 0}, {"", 64, 100, 64}, {"", 200, 8, 200},
					  {"", 208, 8, 208}};
	const struct tsr_coalesce_rule whole = {UINT64_MAX, UINT64_MAX, UINT64_MAX, 0, 0};
	np = 0;
	CHECK_EQ_INT(tsr_coalesce(blocks, 4, &whole, &p, &np, &cap), TSR_OK);
	CHECK_EQ_INT(np, 2);
	if (np == 2) {
		CHECK(p[0].offset == 0 && p[0].nbytes == 164 && p[0].nspans == 2);
		CHECK(p[1].offset == 200 && p[1].nbytes == 16 && p[1].nspans == 2);
	}
	check_one(blocks, 4, &whole, p, np, "whole");
	/* a span alone of at most whole_max bytes is one read; a larger one still pieces */
	const struct tsr_span two[] = {{"a", 0, 25, 0}, {"b", 0, 26, 25}};
	const struct tsr_coalesce_rule cut = {.start_max = 0, .join_max = 0, .run_max = 0,
					      .piece = 10, .whole_max = 25};
	np = 0;
	CHECK_EQ_INT(tsr_coalesce(two, 2, &cut, &p, &np, &cap), TSR_OK);
	CHECK_EQ_INT(np, 4);
	if (np == 4)
		CHECK(p[0].nbytes == 25 && p[1].nbytes == 10 && p[3].nbytes == 6 && p[3].span == 1);
	check_one(two, 2, &cut, p, np, "whole_max");
	free(p);
}

int main(void)
{
	check_fixed();
	/* Random spans, made to lie back to back often, under random rules. */
	struct tsr_span s[64];
	struct tsr_piece *p = NULL;
	size_t cap = 0;
	char what[64];
	for (int iter = 0; iter < 8000 && !check_failures; iter++) {
		int64_t n = (int64_t)rnd(40);
		uint64_t off = rnd(100), dst = rnd(50);
		for (int64_t i = 0; i < n; i++) {
			uint64_t len = rnd(8) == 0 ? 0 : 1 + rnd(rnd(4) == 0 ? 40 : 12);
			if (rnd(5) == 0)
				off += rnd(5);      /* a gap in the file */
			if (rnd(6) == 0)
				dst += 1 + rnd(3);  /* a gap in the destination */
			if (rnd(9) == 0)
				off = rnd(200);     /* anywhere (overlaps too) */
			s[i] = (struct tsr_span){files[rnd(8) == 0 ? rnd(4) : 0], off, len, dst};
			off += len;
			dst += len;
		}
		struct tsr_coalesce_rule r = {
			.start_max = rnd(4) == 0 ? UINT64_MAX : rnd(20),
			.join_max = rnd(4) == 0 ? UINT64_MAX : rnd(20),
			.run_max = rnd(4) == 0 ? UINT64_MAX : rnd(60),
			.piece = rnd(5) == 0 ? 0 : 1 + rnd(15),
			.whole_max = rnd(3) == 0 ? rnd(30) : 0};
		int64_t np = 0;
		CHECK_EQ_INT(tsr_coalesce(s, n, &r, &p, &np, &cap), TSR_OK);
		snprintf(what, sizeof(what), "random case %d", iter);
		check_one(s, n, &r, p, np, what);
	}
	free(p);
	CHECK_DONE();
}
