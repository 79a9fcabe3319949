/* test_rng.h - reproducible test data: xorshift64* and a Gaussian drawn from it (one stream per test program). */
#ifndef TSR_TEST_RNG_H
#define TSR_TEST_RNG_H

#include <math.h>
#include <stdint.h>

static uint64_t rng_state __attribute__((unused)) = 0x9E3779B97F4A7C15ull;

static inline uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1Dull;
}

/* A standard normal value (Box-Muller). */
static inline double gauss(void)
{
	double u1 = ((double)(rng() >> 11) + 1.0) / 9007199254740993.0;
	double u2 = (double)(rng() >> 11) / 9007199254740992.0;
	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

#endif
