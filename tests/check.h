/* check.h - the tiny assertion kit every C test uses. */
#ifndef TSR_CHECK_H
#define TSR_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int check_failures;

#define CHECK(cond)                                                                      \
	do {                                                                             \
		if (!(cond)) {                                                           \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
			check_failures++;                                                \
		}                                                                        \
	} while (0)

#define CHECK_EQ_INT(a, b)                                                               \
	do {                                                                             \
		long long va_ = (long long)(a), vb_ = (long long)(b);                    \
		if (va_ != vb_) {                                                        \
			fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n", __FILE__, \
				__LINE__, #a, va_, #b, vb_);                             \
			check_failures++;                                                \
		}                                                                        \
	} while (0)

/* malloc that ends the test (status 2) when memory runs out; n = 0 allocates one byte. */
static inline void *check_malloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	return p;
}

/* n pseudo-random bytes from seed (a 64-bit LCG's top byte each), the same on every run. */
static inline void check_fill(unsigned char *buf, size_t n, unsigned long long seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		buf[i] = (unsigned char)(seed >> 56);
	}
}

/* The next of a xorshift64 sequence in *state (nonzero), the same on every run. */
static inline unsigned long long check_next(unsigned long long *state)
{
	unsigned long long x = *state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}

#define CHECK_DONE()                                                                     \
	do {                                                                             \
		if (check_failures) {                                                    \
			fprintf(stderr, "%d check(s) failed\n", check_failures);         \
			return 1;                                                        \
		}                                                                        \
		return 0;                                                                \
	} while (0)

/* Writes text into dir/name (dir made when missing), checking that the file opens. */
static inline void check_put_file(const char *dir, const char *name, const char *text)
{
	char p[1024];
	mkdir(dir, 0755);
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	FILE *f = fopen(p, "wb");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* Whether text holds each of the NULL-ended strings; says which it lacks, then the text. */
static inline void check_holds(const char *what, const char *text, const char *const *want)
{
	int lacks = 0;
	for (; *want; want++) {
		if (!text || !strstr(text, *want)) {
			fprintf(stderr, "%s: no %s\n", what, *want);
			lacks++;
		}
	}
	if (lacks)
		fprintf(stderr, "%s: the document: %s\n", what, text ? text : "(none)");
	check_failures += lacks;
}

#endif
