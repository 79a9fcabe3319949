/* lz4_walk.h - where an LZ4 block's first match of distance 0 is, for tests that compare the GPU decoder (which refuses it) with liblz4 (which accepts it). */
#ifndef TSR_LZ4_WALK_H
#define TSR_LZ4_WALK_H

#include <stddef.h>

/* The output position of the block's first match of distance 0, or -1 (none before the block
 * ends or breaks): liblz4 1.9 copies such a match from the output's own unwritten bytes; the
 * kernel refuses it. */
static inline long long lz4_zero_distance_at(const unsigned char *z, size_t n)
{
	size_t ip = 0, op = 0;
	for (;;) {
		if (ip >= n)
			return -1;
		unsigned tok = z[ip++];
		size_t lit = tok >> 4, len = tok & 15u, b;
		if (lit == 15)
			do {
				if (ip >= n)
					return -1;
				lit += b = z[ip++];
			} while (b == 255);
		if (lit > n - ip || n - ip - lit < 2)
			return -1;
		ip += lit, op += lit;
		size_t dist = z[ip] | (size_t)z[ip + 1] << 8;
		ip += 2;
		if (dist == 0)
			return (long long)op;
		if (len == 15)
			do {
				if (ip >= n)
					return -1;
				len += b = z[ip++];
			} while (b == 255);
		op += len + 4;
	}
}

#endif
