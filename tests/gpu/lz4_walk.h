/* lz4_walk.h - an LZ4 block's sequences walked on the host, for tests and benchmarks: where its first match of distance 0 is (the GPU decoder refuses it, liblz4 accepts it), and each sequence's lengths and distance. */
#ifndef TSR_LZ4_WALK_H
#define TSR_LZ4_WALK_H

#include <stddef.h>

/* The sequence of block z[0..n) at *ip: its literal run's length (*lit) and, unless the run
 * ends the block, its match's distance and length (*dist, *len, 4 or more); *ip moves past
 * it. Returns 1 for a sequence with a match, 0 for the block's last literals, -1 where the
 * block ends inside it (a match's length bytes past its end too). */
static inline int lz4_walk_seq(const unsigned char *z, size_t n, size_t *ip, size_t *lit,
			       size_t *dist, size_t *len)
{
	size_t p = *ip, b;
	if (p >= n)
		return -1;
	unsigned tok = z[p++];
	*lit = tok >> 4;
	*len = tok & 15u;
	if (*lit == 15)
		do {
			if (p >= n)
				return -1;
			*lit += b = z[p++];
		} while (b == 255);
	if (*lit > n - p)
		return -1;
	p += *lit;
	if (p == n) {
		*ip = p;
		return 0;
	}
	if (n - p < 2)
		return -1;
	*dist = z[p] | (size_t)z[p + 1] << 8;
	p += 2;
	if (*len == 15)
		do {
			if (p >= n)
				return -1;
			*len += b = z[p++];
		} while (b == 255);
	*len += 4;
	*ip = p;
	return 1;
}

/* The output position of the block's first match of distance 0, or -1 (none before the block
 * ends or breaks): liblz4 1.9 copies such a match from the output's own unwritten bytes; the
 * kernel refuses it. (Its callers ask of blocks liblz4 decoded whole.) */
static inline long long lz4_zero_distance_at(const unsigned char *z, size_t n)
{
	size_t ip = 0, op = 0, lit, dist, len;
	while (lz4_walk_seq(z, n, &ip, &lit, &dist, &len) == 1) {
		if (dist == 0)
			return (long long)(op + lit);
		op += lit + len;
	}
	return -1;
}

#endif
