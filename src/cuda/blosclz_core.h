/* blosclz_core.h - one BloscLZ stream decoded by one warp, byte for byte src/codecs/blosclz.c; also builds as C for the CPU. */
#ifndef TSR_BLOSCLZ_CORE_H
#define TSR_BLOSCLZ_CORE_H

#include "lz_core.h"

/*
 * The stream (src/codecs/blosclz.c says it in full): control bytes; the first one's low 5 bits
 * count; ctrl < 32: ctrl + 1 literals follow; else a match of length (ctrl >> 5) + 2 (when
 * ctrl >> 5 is 7, bytes follow and add to it until one is not 255), then a byte `code`:
 * distance ((ctrl & 31) << 8) + code + 1, or, when code is 255 and ctrl & 31 is 31, 8192 plus
 * the next two bytes (big-endian). The stream ends where its input does, after any
 * instruction. Accepted and refused exactly as the CPU decoder does.
 */
TSR_LZ_D int tsr_blosclz_stream(struct tsr_lz_smem *m, const uint8_t *in, uint64_t n,
				uint8_t *out, uint64_t cap, uint64_t *got)
{
	uint32_t ip = 0, op = 0;
	int st = TSR_CUDA_LZ_OK;
	*got = 0;
	if ((!in && n) || (!out && cap))
		return TSR_CUDA_LZ_E_ARGUMENT;
	if (n > TSR_LZ_MAX)
		return TSR_CUDA_LZ_E_LONG;
	struct tsr_lz z = {in, (uint32_t)n, 0, m};
	const uint32_t room = cap > TSR_LZ_MAX ? TSR_LZ_MAX : (uint32_t)cap;
	TSR_LZ_GLOBAL(in);
	TSR_LZ_GLOBAL(out);
	if (n == 0)
		return TSR_CUDA_LZ_OK;
	tsr_lz_fill(&z, 0);
	uint32_t ctrl = tsr_lz_byte(&z, ip++) & 31u;
	for (;;) {
		if (ctrl < 32) {
			uint32_t len = ctrl + 1;
			if (len > n - ip) {
				st = TSR_CUDA_LZ_E_TRUNCATED;
				break;
			}
			if (len > room - op) {
				st = TSR_CUDA_LZ_E_OVERFLOW;
				break;
			}
			tsr_lz_literals(&z, out, op, ip, len);
			op += len;
			ip += len;
		} else {
			uint32_t len = (ctrl >> 5) - 1, dist = (ctrl & 31u) << 8;
			uint32_t code;
			if (len == 6) {
				do {
					if (ip >= n) {
						st = TSR_CUDA_LZ_E_TRUNCATED;
						goto done;
					}
					code = tsr_lz_byte(&z, ip++);
					len = tsr_lz_sat(len + code);
				} while (code == 255);
			}
			if (ip >= n) {
				st = TSR_CUDA_LZ_E_TRUNCATED;
				break;
			}
			code = tsr_lz_byte(&z, ip++);
			len += 3;
			if (code == 255 && dist == (31u << 8)) {
				if (n - ip < 2) {
					st = TSR_CUDA_LZ_E_TRUNCATED;
					break;
				}
				dist = (tsr_lz_byte(&z, ip) << 8 | tsr_lz_byte(&z, ip + 1)) +
				       8192;
				ip += 2;
			} else {
				dist += code + 1;
			}
			if (dist > op) {
				st = TSR_CUDA_LZ_E_DISTANCE;
				break;
			}
			if (len > room - op) {
				st = TSR_CUDA_LZ_E_OVERFLOW;
				break;
			}
			tsr_lz_match(out, op, dist, len);
			op += len;
		}
		if (ip >= n)
			break;
		ctrl = tsr_lz_byte(&z, ip++);
	}
done:
	*got = op;
	return st;
}

#endif /* TSR_BLOSCLZ_CORE_H */
