/* lz4_recs_core.h - one LZ4 block parsed by a group of lanes into sequence records (literal run, match, distance, the run's place in the input) for the zstd decoder's phase c to execute (lz4_recs.cu); also builds as C for the CPU. */
#ifndef TSR_LZ4_RECS_CORE_H
#define TSR_LZ4_RECS_CORE_H

#include "lz4_core.h"
#include "zstd_core.h"

/*
 * Why: the LZ4 kernels decode a stream one sequence after another, each match waiting on a
 * load of output its group has just written; a 64 KiB stream of shuffled floats is about 1,200
 * such waits. zstd's phase c executes 32 sequences a warp at a time, a match waiting only on
 * the bytes it reads. So this parse only reads the stream (its window in shared memory, as
 * lz_core.h's), writes a record a sequence and no output byte, and phase c (zstd_exec_core.h
 * built with TSR_ZS_REC_LSRC) executes the records, their literals read from the input.
 *
 * A record is struct tsr_zs_seq: ll, ml, of (the distance + 3: zstd's coding of an offset that
 * is not a repeat code), pad (the literal run's offset in the input). The checks are
 * tsr_lz4_block's, in its order, so that a stream's status, size and bytes are its: where a
 * sequence fails after its literals (tsr_lz4_block has copied them), they become a record of
 * their own with no match (ml 0, distance 1, which phase c's checks pass: its position is past
 * the run), and the last sequence's literals are such a record too. Phase c's 32-bit sums of a
 * batch's lengths and its 32-bit positions hold since a record's ll and ml are at most
 * TSR_L4R_SPLIT: a longer run or match is split into records of that (a match split at any
 * point copies the same bytes: byte j is out[d - off + j % off]).
 */

/* The longest literal run or match a record holds (2^25: 32 of them sum below 2^32); a test
 * may set a few bytes (emu_lz4_recs.c), so that every kind of split is run. */
#ifndef TSR_L4R_SPLIT
#define TSR_L4R_SPLIT (1u << 25)
#endif

/* Records a stream of n input bytes needs at most. A sequence takes at least 3 input bytes but
 * the last (at most n / 3 + 1 of them, and one more record where the last fails); its record
 * is split into 1 + L / S + M / S where its literal run L takes L input bytes and its match M
 * is at most 19 + 255 x its length bytes (S: TSR_L4R_SPLIT). */
static inline uint64_t tsr_l4r_bound(uint64_t n)
{
	uint64_t q = n / 3 + 2;
	return q + (19 * q + 256 * n) / TSR_L4R_SPLIT + 2;
}

/* Where a stream's records go and what its parse made: rec[0, nrec) of at most cap. */
struct tsr_l4r_sink {
	struct tsr_zs_seq *rec;
	uint64_t cap;
	uint32_t nrec;
	uint32_t nlit;  /* literal bytes of its records */
	int full;       /* a record found no room (never, with tsr_l4r_bound's cap) */
};

/* Record {ll, ml, of, lsrc}, lane 0's store. */
TSR_LZ_D void tsr_l4r_put(struct tsr_l4r_sink *k, uint32_t ll, uint32_t ml, uint32_t of,
			  uint32_t lsrc)
{
	if (k->nrec >= k->cap) {
		k->full = 1;
		return;
	}
	if (TSR_LZ_LANE == 0) {
		struct tsr_zs_seq r = {ll, ml, of, lsrc};
		k->rec[k->nrec] = r;
	}
	k->nrec++;
	k->nlit += ll;
}

/* A sequence's records: its literals in[lsrc, lsrc + lit), then len bytes from dist back
 * (len 0: literals only, at distance 1), split at TSR_L4R_SPLIT. */
TSR_LZ_D void tsr_l4r_seq(struct tsr_l4r_sink *k, uint32_t lit, uint32_t lsrc, uint32_t len,
			  uint32_t dist)
{
	while (lit > TSR_L4R_SPLIT) {
		tsr_l4r_put(k, TSR_L4R_SPLIT, 0, 4, lsrc);
		lsrc += TSR_L4R_SPLIT;
		lit -= TSR_L4R_SPLIT;
	}
	if (len == 0) {
		if (lit)
			tsr_l4r_put(k, lit, 0, 4, lsrc);
		return;
	}
	while (len > TSR_L4R_SPLIT) {
		tsr_l4r_put(k, lit, TSR_L4R_SPLIT, dist + 3, lsrc);
		lit = 0; /* (the next pieces' lsrc: unread) */
		len -= TSR_L4R_SPLIT;
	}
	tsr_l4r_put(k, lit, len, dist + 3, lsrc);
}

/* tsr_lz4_block's parse of z's block from ip, into records: its status; *got: the bytes the
 * records make (tsr_lz4_block's *got). */
TSR_LZ_D int tsr_l4r_block(struct tsr_lz *z, uint32_t ip, uint32_t cap, struct tsr_l4r_sink *k,
			   uint32_t *got)
{
	const uint32_t n = z->n;
	uint32_t op = 0;
	int st = TSR_CUDA_LZ_OK;
	if (ip >= n) {
		st = TSR_CUDA_LZ_E_TRUNCATED; /* (liblz4: an empty block is an error) */
		goto done;
	}
	for (;;) {
		uint32_t tok, lit, lsrc, dist;
		/* tsr_lz4_block's fast path: the token, up to 14 literals and the distance in
		 * the window after one check */
		if (ip < n) {
			const uint32_t w = tsr_lz_at(z, ip, TSR_LZ4_AHEAD);
			tok = tsr_lz_win(z, w);
			lit = tok >> 4;
			if (lit < 15 && n - ip >= lit + 3 && cap - op >= lit) {
				lsrc = ip + 1;
				op += lit;
				dist = tsr_lz_win(z, w + 1 + lit) | tsr_lz_win(z, w + 2 + lit) << 8;
				ip += lit + 3;
				goto match;
			}
		}
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
		lsrc = ip;
		ip += lit;
		op += lit;
		if (ip == n) {
			tsr_l4r_seq(k, lit, lsrc, 0, 0); /* the last sequence: literals only */
			break;
		}
		if (n - ip < 2) {
			st = TSR_CUDA_LZ_E_TRUNCATED;
			tsr_l4r_seq(k, lit, lsrc, 0, 0);
			break;
		}
		dist = tsr_lz_byte(z, ip) | tsr_lz_byte(z, ip + 1) << 8;
		ip += 2;
match:;
		uint32_t len = tok & 15u;
		if (len == 15) {
			uint32_t b;
			do {
				if (ip >= n) {
					st = TSR_CUDA_LZ_E_TRUNCATED;
					tsr_l4r_seq(k, lit, lsrc, 0, 0);
					goto done;
				}
				b = tsr_lz_byte(z, ip++);
				len = tsr_lz_sat(len + b);
			} while (b == 255);
		}
		len += 4;
		if (dist == 0 || dist > op) {
			st = TSR_CUDA_LZ_E_DISTANCE;
			tsr_l4r_seq(k, lit, lsrc, 0, 0);
			break;
		}
		if (len > cap - op) {
			st = TSR_CUDA_LZ_E_OVERFLOW;
			tsr_l4r_seq(k, lit, lsrc, 0, 0);
			break;
		}
		tsr_l4r_seq(k, lit, lsrc, len, dist);
		op += len;
	}
done:
	*got = op;
	return st;
}

/* One stream as tsr_lz4_stream takes it (variant TSR_CUDA_LZ4_RAW or TSR_CUDA_LZ4_SIZED; out
 * only for its NULL check: nothing is written there), parsed into k: the status and *got
 * tsr_lz4_stream gives, and records that make its bytes. */
TSR_LZ_D int tsr_l4r_stream(struct tsr_lz_smem *m, const uint8_t *in, uint64_t n,
			    const uint8_t *out, uint64_t cap, int variant, struct tsr_l4r_sink *k,
			    uint64_t *got)
{
	*got = 0;
	if ((!in && n) || (!out && cap))
		return TSR_CUDA_LZ_E_ARGUMENT;
	if (n > TSR_LZ_MAX)
		return TSR_CUDA_LZ_E_LONG;
	TSR_LZ_GLOBAL(in);
	struct tsr_lz z = {in, (uint32_t)n, 0, m};
	uint32_t room = cap > TSR_LZ_MAX ? TSR_LZ_MAX : (uint32_t)cap;
	tsr_lz_fill(&z, 0);
	uint32_t start = 0;
	if (variant == TSR_CUDA_LZ4_SIZED) {
		if (n < 4)
			return TSR_CUDA_LZ_E_TRUNCATED;
		uint32_t size = tsr_lz_byte(&z, 0) | tsr_lz_byte(&z, 1) << 8 |
				tsr_lz_byte(&z, 2) << 16 | tsr_lz_byte(&z, 3) << 24;
		if (size > room)
			return TSR_CUDA_LZ_E_OVERFLOW;
		start = 4;
		room = size;
	}
	uint32_t made = 0;
	int st = tsr_l4r_block(&z, start, room, k, &made);
	*got = made;
	if (start && st == TSR_CUDA_LZ_OK && made != room)
		st = TSR_CUDA_LZ_E_SIZE;
	return st;
}

#endif /* TSR_LZ4_RECS_CORE_H */
