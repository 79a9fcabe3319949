/* test_cuda_feed_piece.c - the feed cuts large spans finer only where its reads are few for its readers (tsr_cuda_feed_rule_for): its plain rule where each reader has three reads or more, else spans larger than a bounce buffer in whole MiB pieces between 1 MiB and a bounce buffer, about four reads a reader, and spans that fit a bounce buffer still one read, runs of small spans as before. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "engine/cuda_layout.h"
#include "io/storage.h"

#define MIB ((uint64_t)1 << 20)

static uint64_t piece_for(uint64_t nbytes, int64_t npieces, int nthreads)
{
	return tsr_cuda_feed_rule_for(nbytes, npieces, nthreads).piece;
}

int main(void)
{
	/* many reads already (a Zarr v2 slot of chunk files of a few MiB): the plain rule */
	struct tsr_coalesce_rule r = tsr_cuda_feed_rule_for(48 * 3 * MIB, 48, 10);
	CHECK(r.piece == TSR_BOUNCE_NBYTES && r.whole_max == 0);
	CHECK(piece_for(30 * 4 * MIB, 30, 10) == TSR_BOUNCE_NBYTES);
	/* 100 MB in 25 reads for 10 readers (a b2nd slot of two 50 MB chunks): 2 MiB, 50 reads */
	r = tsr_cuda_feed_rule_for(100000000, 25, 10);
	CHECK(r.piece == 2 * MIB && r.whole_max == TSR_BOUNCE_NBYTES);
	CHECK(r.run_max == tsr_cuda_feed_rule.run_max && r.start_max == tsr_cuda_feed_rule.start_max);
	/* 29 reads for 10: cut finer */
	CHECK(piece_for(29 * 4 * MIB, 29, 10) < TSR_BOUNCE_NBYTES);
	/* small slots: never below 1 MiB */
	CHECK(piece_for(5 * MIB, 2, 16) == MIB);
	CHECK(piece_for(1, 1, 16) == MIB);
	/* no readers named: as before */
	CHECK(piece_for(100 * MIB, 1, 0) == TSR_BOUNCE_NBYTES);

	/* one span of n bytes, read in bounce buffers' pieces first: where it is cut finer, each
	 * reader gets four reads, or as many as 1 MiB pieces make */
	for (int t = 1; t <= 64; t++) {
		for (uint64_t n = MIB / 2; n <= ((uint64_t)1 << 30); n = n * 5 / 4 + 4093) {
			int64_t reads = (int64_t)((n + TSR_BOUNCE_NBYTES - 1) / TSR_BOUNCE_NBYTES);
			uint64_t p = piece_for(n, reads, t);
			CHECK(p >= MIB && p <= TSR_BOUNCE_NBYTES && p % MIB == 0);
			if (reads >= 3 * (int64_t)t) {
				CHECK(p == TSR_BOUNCE_NBYTES);
				continue;
			}
			if (n <= TSR_BOUNCE_NBYTES)
				continue; /* (one read whatever the piece: below) */
			uint64_t now = (n + p - 1) / p, want = 4 * (uint64_t)t;
			CHECK(now >= (want < n / MIB ? want : n / MIB));
		}
	}

	/* through tsr_coalesce, as the feed reads a slot: a 50 MB chunk and eight 4 MiB chunk
	 * files for 9 readers; 20 reads by the plain rule, then the chunk in 2 MiB pieces and
	 * the files whole */
	struct tsr_span s[9] = {{"big", 4096, 50000000, 0}};
	const char *names[8] = {"c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7"};
	uint64_t dst = 50000000, all = 0;
	for (int i = 0; i < 8; i++, dst += 4 * MIB)
		s[1 + i] = (struct tsr_span){names[i], 0, 4 * MIB, dst};
	struct tsr_piece *p = NULL;
	int64_t np = 0;
	size_t cap = 0;
	CHECK_EQ_INT(tsr_coalesce(s, 9, &tsr_cuda_feed_rule, &p, &np, &cap), TSR_OK);
	CHECK_EQ_INT(np, 12 + 8);
	for (int64_t k = 0; k < np; k++)
		all += p[k].nbytes;
	r = tsr_cuda_feed_rule_for(all, np, 9);
	CHECK(r.piece == 2 * MIB);
	/* as the feed reads it (tsr_cuda_feed_pieces), after one read already there */
	np = 1;
	CHECK_EQ_INT(tsr_cuda_feed_pieces(s, 9, 9, &p, &np, &cap), TSR_OK);
	CHECK_EQ_INT(np, 1 + 24 + 8);
	uint64_t off = 0;
	for (int64_t k = 1; k < np && k < 25; k++) { /* the chunk's pieces, in order, to its end */
		CHECK(p[k].span == 0 && p[k].offset == 4096 + off && p[k].dst == off);
		CHECK(p[k].nbytes == (k < 24 ? 2 * MIB : 50000000 - 23 * 2 * MIB));
		off += p[k].nbytes;
	}
	for (int64_t k = 25; k < np; k++) /* the files, each one read */
		CHECK(p[k].span == k - 24 && p[k].nbytes == 4 * MIB && p[k].offset == 0);
	/* with 6 readers, 20 reads are enough: the plain rule's reads */
	np = 0;
	CHECK_EQ_INT(tsr_cuda_feed_pieces(s, 9, 6, &p, &np, &cap), TSR_OK);
	CHECK_EQ_INT(np, 20);

	/* a FITS GZIP_2 file's slot: 4096 tiles of about 10 KB back to back (44 MB), 11 runs by
	 * the plain rule, too few for 10 readers; the rule cuts only spans, so the runs stay */
	enum { NT = 4096 };
	static struct tsr_span tiles[NT];
	struct tsr_piece *q = NULL;
	int64_t nq = 0;
	size_t qcap = 0;
	uint64_t at = 2880;
	for (int i = 0; i < NT; i++) {
		uint64_t n = 10000 + ((uint64_t)i * 7919) % 1500;
		tiles[i] = (struct tsr_span){"tiles", at, n, at - 2880};
		at += n;
	}
	np = 0;
	CHECK_EQ_INT(tsr_coalesce(tiles, NT, &tsr_cuda_feed_rule, &p, &np, &cap), TSR_OK);
	CHECK_EQ_INT(np, 11);
	CHECK(tsr_cuda_feed_rule_for(at - 2880, np, 10).piece < TSR_BOUNCE_NBYTES);
	CHECK_EQ_INT(tsr_cuda_feed_pieces(tiles, NT, 10, &q, &nq, &qcap), TSR_OK);
	CHECK_EQ_INT(nq, np);
	for (int64_t k = 0; k < nq && k < np; k++)
		CHECK(q[k].span == p[k].span && q[k].nspans == p[k].nspans &&
		      q[k].offset == p[k].offset && q[k].nbytes == p[k].nbytes && q[k].dst == p[k].dst);
	free(q);
	free(p);
	CHECK_DONE();
}
