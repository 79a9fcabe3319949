/* lz_profiles.h - data profiles for the LZ decoder tests and benchmark: zeros, random, floats, patterns of every period, long runs. */
#ifndef TSR_LZ_PROFILES_H
#define TSR_LZ_PROFILES_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* xorshift64*: the tests' deterministic random bytes */
static inline uint64_t lzp_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

/* A unit normal from two of s's draws (Box-Muller). */
static inline double lzp_gauss(uint64_t *s)
{
	double u1 = ((double)(lzp_rand(s) >> 11) + 1.0) / 9007199254740993.0;
	double u2 = (double)(lzp_rand(s) >> 11) / 9007199254740992.0;
	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

enum { LZP_ZEROS, LZP_RANDOM, LZP_FLOATS, LZP_FLOATS_SHUFFLED, LZP_PERIOD, LZP_LONG_RUNS,
       LZP_TEXT, LZP_SPARSE, LZP_N };

static const char *const lzp_name[LZP_N] = {"zeros", "random", "floats", "shuffled-floats",
					    "period", "long-runs", "text", "sparse"};

/* Fills buf (n bytes) with profile p; arg: the period of LZP_PERIOD (1..64), else a seed. */
static inline void lzp_fill(int p, unsigned char *buf, size_t n, uint64_t arg)
{
	uint64_t s = arg * 0x9e3779b97f4a7c15ull + 12345;
	size_t i;
	switch (p) {
	case LZP_ZEROS:
		memset(buf, 0, n);
		break;
	case LZP_RANDOM:
		for (i = 0; i < n; i++)
			buf[i] = (unsigned char)(lzp_rand(&s) >> 56);
		break;
	case LZP_FLOATS:
	case LZP_FLOATS_SHUFFLED: {
		/* a smooth field with noise in its low bits, as float32 images are */
		size_t nf = n / 4;
		float *f = (float *)malloc(nf * 4 + 4);
		for (i = 0; i < nf; i++)
			f[i] = (float)(100.0 * sin((double)i * 0.001 * (double)(arg % 7 + 1)) +
				       (double)(lzp_rand(&s) >> 44) * 1e-6);
		if (p == LZP_FLOATS) {
			memcpy(buf, f, nf * 4);
		} else { /* byte planes, as blosc's shuffle lays them */
			for (i = 0; i < nf; i++)
				for (int b = 0; b < 4; b++)
					buf[b * nf + i] = ((unsigned char *)f)[4 * i + b];
		}
		for (i = nf * 4; i < n; i++)
			buf[i] = (unsigned char)i;
		free(f);
		break;
	}
	case LZP_PERIOD: {
		/* (clamped to 1..64: a longer period read past pat, at random) */
		size_t per = arg == 0 ? 1 : arg > 64 ? 64 : (size_t)arg;
		unsigned char pat[64];
		for (i = 0; i < per; i++)
			pat[i] = (unsigned char)(lzp_rand(&s) >> 56);
		for (i = 0; i < n; i++)
			buf[i] = pat[i % per];
		/* a few random bytes break the runs: matches of many lengths at that distance */
		for (i = 0; i < n / 512; i++)
			buf[lzp_rand(&s) % n] = (unsigned char)(lzp_rand(&s) >> 56);
		break;
	}
	case LZP_LONG_RUNS:
		for (i = 0; i < n;) {
			size_t run = (size_t)(lzp_rand(&s) % 70000) + 1;
			unsigned char v = (unsigned char)(lzp_rand(&s) >> 56);
			for (size_t k = 0; k < run && i < n; k++)
				buf[i++] = v;
			if (i < n)
				buf[i++] = (unsigned char)(lzp_rand(&s) >> 56);
		}
		break;
	case LZP_TEXT: {
		static const char *const w[] = {"the ", "tile ", "chunk ", "of ", "GPU ", "decoder ",
						"stream ", "blosc ", "lz4 ", "and ", "\n"};
		for (i = 0; i < n;) {
			const char *t = w[lzp_rand(&s) % 11];
			for (size_t k = 0; t[k] && i < n; k++)
				buf[i++] = (unsigned char)t[k];
		}
		break;
	}
	case LZP_SPARSE:
		memset(buf, 0, n);
		for (i = 0; i < n / 64; i++)
			buf[lzp_rand(&s) % n] = (unsigned char)(lzp_rand(&s) >> 56);
		break;
	}
}

#endif
