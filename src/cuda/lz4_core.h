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

/* Decodes z's block into out (cap bytes); *got: bytes written (on failure, so far). */
TSR_LZ_D int tsr_lz4_block(struct tsr_lz *z, uint64_t ip, uint8_t *out, uint64_t cap,
			   uint64_t *got)
{
	const uint64_t n = z->n;
	uint64_t op = 0;
	int st = TSR_CUDA_LZ_OK;
	if (ip >= n) {
		st = TSR_CUDA_LZ_E_TRUNCATED; /* (liblz4: an empty block is an error) */
		goto done;
	}
	for (;;) {
		uint32_t tok;
		uint64_t lit, dist; /* (declared before the fast path's jump past the parse) */
#if TSR_LZ4_FAST
		/* The common sequence, fewer than 15 literals with its distance inside the input
		 * and its literals inside the output: token, literals and distance read from the
		 * window after one check that it holds them, where the general parse below checks
		 * each byte it reads (H200 ncu: the parse was half of a warp's instructions). Both
		 * give the same statuses and bytes. */
		if (ip < n) {
			const uint64_t k = tsr_lz_at(z, ip, TSR_LZ4_AHEAD);
			tok = tsr_lz_win(z, k);
			uint64_t flit = tok >> 4;
			if (flit < 15 && n - ip >= flit + 3 && cap - op >= flit) {
				TSR_LZ4_FAST_SEEN();
				for (uint64_t j = TSR_LZ_LANE; j < flit; j += TSR_LZ_NLANES)
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
				lit += b;
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
		uint64_t len = tok & 15u;
		if (len == 15) {
			uint32_t b;
			do {
				if (ip >= n) {
					st = TSR_CUDA_LZ_E_TRUNCATED;
					goto done;
				}
				b = tsr_lz_byte(z, ip++);
				len += b;
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
		tsr_lz_match(out, op, dist, len);
		op += len;
	}
done:
	*got = op;
	return st;
}

/* One stream of variant TSR_CUDA_LZ4_RAW (a block) or TSR_CUDA_LZ4_SIZED (numcodecs: the
 * decoded size as 4 bytes little-endian, then a block that must decode to exactly that). */
TSR_LZ_D int tsr_lz4_stream(struct tsr_lz_smem *m, const uint8_t *in, uint64_t n, uint8_t *out,
			    uint64_t cap, int variant, uint64_t *got)
{
	struct tsr_lz z = {in, n, 0, m};
	*got = 0;
	if ((!in && n) || (!out && cap))
		return TSR_CUDA_LZ_E_ARGUMENT;
	tsr_lz_fill(&z, 0);
	if (variant != TSR_CUDA_LZ4_SIZED)
		return tsr_lz4_block(&z, 0, out, cap, got);
	if (n < 4)
		return TSR_CUDA_LZ_E_TRUNCATED;
	uint64_t size = tsr_lz_byte(&z, 0) | tsr_lz_byte(&z, 1) << 8 | tsr_lz_byte(&z, 2) << 16 |
			(uint64_t)tsr_lz_byte(&z, 3) << 24;
	if (size > cap)
		return TSR_CUDA_LZ_E_OVERFLOW;
	int st = tsr_lz4_block(&z, 4, out, size, got);
	if (st == TSR_CUDA_LZ_OK && *got != size)
		st = TSR_CUDA_LZ_E_SIZE;
	return st;
}

#endif /* TSR_LZ4_CORE_H */
