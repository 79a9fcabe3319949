/* checksum32.c - the numcodecs checksums no packaged library computes: HDF5's Fletcher-32 and Bob
 * Jenkins' lookup3 (hashlittle), as numcodecs' Fletcher32 and JenkinsLookup3 filters store them. */
#include "codecs.h"

/* HDF5's Fletcher-32 (H5_checksum_fletcher32, which numcodecs follows): the bytes as big-endian
 * 16-bit words (an odd last byte the high half of a word), two ones'-complement sums that start
 * at 0 and fold every 360 words, before they could overflow 32 bits. (Sums that start at 0xffff,
 * the textbook's, agree on every input but bytes all zero: 0xffffffff where numcodecs writes 0.) */
uint32_t tsr_fletcher32(const void *data, size_t n)
{
	const unsigned char *p = data;
	uint32_t s1 = 0, s2 = 0;
	size_t words = n / 2;
	while (words) {
		size_t run = words < 360 ? words : 360;
		words -= run;
		for (; run; run--, p += 2) {
			s1 += (uint32_t)p[0] << 8 | p[1];
			s2 += s1;
		}
		s1 = (s1 & 0xffff) + (s1 >> 16);
		s2 = (s2 & 0xffff) + (s2 >> 16);
	}
	if (n & 1) {
		s1 += (uint32_t)p[0] << 8;
		s2 += s1;
		s1 = (s1 & 0xffff) + (s1 >> 16);
		s2 = (s2 & 0xffff) + (s2 >> 16);
	}
	s1 = (s1 & 0xffff) + (s1 >> 16);
	s2 = (s2 & 0xffff) + (s2 >> 16);
	return s2 << 16 | s1;
}

static uint32_t tsr_rot(uint32_t x, int k)
{
	return x << k | x >> (32 - k);
}

/* lookup3's hashlittle, byte by byte (so alignment and the host's byte order do not matter): 12
 * bytes at a time as three little-endian words through its mix, the last 1-12 through its final
 * step; no bytes at all give c unmixed. */
uint32_t tsr_lookup3(const void *data, size_t n, uint32_t initval)
{
	const unsigned char *k = data;
	uint32_t a, b, c;
	a = b = c = 0xdeadbeefu + (uint32_t)n + initval;
	for (; n > 12; n -= 12, k += 12) {
		a += tsr_le32(k);
		b += tsr_le32(k + 4);
		c += tsr_le32(k + 8);
		a -= c; a ^= tsr_rot(c, 4);  c += b;
		b -= a; b ^= tsr_rot(a, 6);  a += c;
		c -= b; c ^= tsr_rot(b, 8);  b += a;
		a -= c; a ^= tsr_rot(c, 16); c += b;
		b -= a; b ^= tsr_rot(a, 19); a += c;
		c -= b; c ^= tsr_rot(b, 4);  b += a;
	}
	if (!n)
		return c;
	/* the tail, zero-padded to 12 bytes, added as the three words */
	unsigned char t[12] = {0};
	for (size_t i = 0; i < n; i++)
		t[i] = k[i];
	a += tsr_le32(t);
	b += tsr_le32(t + 4);
	c += tsr_le32(t + 8);
	c ^= b; c -= tsr_rot(b, 14);
	a ^= c; a -= tsr_rot(c, 11);
	b ^= a; b -= tsr_rot(a, 25);
	c ^= b; c -= tsr_rot(b, 16);
	a ^= c; a -= tsr_rot(c, 4);
	b ^= a; b -= tsr_rot(a, 14);
	c ^= b; c -= tsr_rot(b, 24);
	return c;
}
