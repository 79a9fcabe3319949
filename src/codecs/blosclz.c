/* blosclz.c - BloscLZ stream decoder (a FastLZ level-2 style LZ77), bounds-checked. */
#include <string.h>

#include "../core/internal.h"
#include "blosc.h"

/*
 * Stream facts (BloscLZ as written by c-blosc and c-blosc2):
 * - Instructions start with a control byte; the first one is always a literal run and only its
 *   low 5 bits count.
 * - ctrl < 32: a literal run of ctrl + 1 bytes follows.
 * - ctrl >= 32: a match. length = (ctrl >> 5) + 2, and when ctrl >> 5 == 7 the bytes that follow
 *   are added to it until one is not 255. Then one byte `code`:
 *   distance = ((ctrl & 31) << 8) + code + 1, except code == 255 with (ctrl & 31) == 31, which
 *   announces a far match: distance = 8191 + 1 + (next two bytes, big-endian).
 *   Matches may overlap their own output (distance 1 is a run).
 */

#define BLOSCLZ_MAX_DISTANCE 8191

static int blosclz_bad(const uint8_t *ip, const uint8_t *src, const char *what)
{
	return tsr_error(TSR_E_CORRUPT, "blosclz: %s at input byte %zu", what,
			 (size_t)(ip - src));
}

int tsr_blosclz_decode(void *dst, size_t dst_nbytes, const void *src, size_t src_nbytes,
		       size_t *out_nbytes_ret)
{
	const uint8_t *ip = src, *const ip_begin = src, *const ip_end = ip + src_nbytes;
	uint8_t *op = dst, *const op_begin = dst, *const op_end = op + dst_nbytes;
	*out_nbytes_ret = 0;
	if (src_nbytes == 0)
		return TSR_OK;
	unsigned ctrl = *ip++ & 31u;
	for (;;) {
		if (ctrl < 32) {
			size_t len = (size_t)ctrl + 1;
			if (len > (size_t)(ip_end - ip))
				return blosclz_bad(ip, ip_begin, "literal run past the end of input");
			if (len > (size_t)(op_end - op))
				return blosclz_bad(ip, ip_begin, "literal run past the end of output");
			/* runs are at most 32 bytes: one fixed-size copy when both sides have room */
			if (ip_end - ip >= 32 && op_end - op >= 32)
				memcpy(op, ip, 32);
			else
				memcpy(op, ip, len);
			op += len;
			ip += len;
		} else {
			size_t len = (ctrl >> 5) - 1;
			size_t dist = (size_t)(ctrl & 31u) << 8;
			unsigned code;
			if (len == 6) {
				do {
					if (ip >= ip_end)
						return blosclz_bad(ip, ip_begin, "truncated match length");
					code = *ip++;
					len += code;
				} while (code == 255);
			}
			if (ip >= ip_end)
				return blosclz_bad(ip, ip_begin, "truncated match");
			code = *ip++;
			len += 3;
			if (code == 255 && dist == (31u << 8)) {
				if (ip_end - ip < 2)
					return blosclz_bad(ip, ip_begin, "truncated far match");
				dist = ((size_t)ip[0] << 8 | ip[1]) + BLOSCLZ_MAX_DISTANCE + 1;
				ip += 2;
			} else {
				dist += code + 1;
			}
			if (dist > (size_t)(op - op_begin))
				return blosclz_bad(ip, ip_begin, "match reaches before the output");
			if (len > (size_t)(op_end - op))
				return blosclz_bad(ip, ip_begin, "match past the end of output");
			const uint8_t *ref = op - dist;
			if (dist == 1) {
				memset(op, *ref, len);
			} else {
				uint8_t *o = op, *const stop = op + len;
				size_t d = dist;
				if (d < 8) {
					/* short period: the first bytes one by one, then copy from a
					 * whole number of periods back, which is >= 8 and < dist + 8 */
					size_t pre = len < 8 ? len : 8;
					for (size_t k = 0; k < pre; k++)
						o[k] = ref[k];
					o += pre;
					d = dist * ((8 + dist - 1) / dist);
				}
				/* steps of 16 or 8 never read bytes they have yet to write (d >= step);
				 * they may run past the match but not past the output */
				if (d >= 16)
					for (; o < stop && op_end - o >= 16; o += 16)
						memcpy(o, o - d, 16);
				for (; o < stop && op_end - o >= 8; o += 8)
					memcpy(o, o - d, 8);
				for (; o < stop; o++)
					*o = *(o - d);
			}
			op += len;
		}
		if (ip >= ip_end)
			break;
		ctrl = *ip++;
	}
	*out_nbytes_ret = (size_t)(op - op_begin);
	return TSR_OK;
}
