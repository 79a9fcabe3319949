/* gpu_test_util.h - data profiles, CPU compressors and test cases shared by the GPU inflate tests and bench. */
#ifndef TSR_GPU_TEST_UTIL_H
#define TSR_GPU_TEST_UTIL_H

/* Plain C that also compiles as C++ (the benchmark is a .cu file). */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libdeflate.h>
#include <zlib.h>

#include "gpu_check.h"

static inline double tu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- random numbers: xorshift64* (fast, and the same on every machine) ---- */

struct tu_rng {
	uint64_t s;
};

static inline uint64_t tu_next(struct tu_rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dull;
}

static inline struct tu_rng tu_seed(uint64_t seed)
{
	struct tu_rng r;
	r.s = seed * 0x9e3779b97f4a7c15ull + 0x1234567u;
	if (!r.s)
		r.s = 1;
	tu_next(&r);
	return r;
}

static inline double tu_uniform(struct tu_rng *r)
{
	return (double)(tu_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

static inline double tu_gauss(struct tu_rng *r)
{
	double u = tu_uniform(r), v = tu_uniform(r);
	if (u < 1e-300)
		u = 1e-300;
	return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* ---- data profiles ---- */

enum { TU_ZEROS, TU_RUNS, TU_TEXT, TU_FLOATS, TU_RANDOM, TU_SKEWED, TU_MIXED, TU_NPROFILES };
static const char *const tu_profile_name[TU_NPROFILES] = {"zeros", "runs", "text", "floats",
							  "random", "skewed", "mixed"};

/* float32 Gaussian noise whose low `zero_bits` mantissa bits are cleared (as after a
 * quantizing or truncating filter): what float images look like to DEFLATE. */
static inline void tu_fill_floats(unsigned char *p, size_t n, struct tu_rng *r, int zero_bits)
{
	uint32_t mask = ~((1u << zero_bits) - 1u);
	size_t i = 0;
	for (; i + 4 <= n; i += 4) {
		float f = (float)(100.0 + 10.0 * tu_gauss(r));
		uint32_t u;
		memcpy(&u, &f, 4);
		u &= mask;
		memcpy(p + i, &u, 4);
	}
	for (; i < n; i++)
		p[i] = (unsigned char)tu_next(r);
}

static inline void tu_fill(unsigned char *p, size_t n, int profile, struct tu_rng *r)
{
	static const char *const words[] = {"the", "of", "and", "a", "to", "in", "is", "you",
		"that", "it", "he", "was", "for", "on", "are", "as", "with", "his", "they", "I",
		"FITS", "BITPIX", "NAXIS", "tile", "compressed", "image", "header", "=", "'", "/",
		"0123", "Zarr", "chunk", "shard", "blosc", "gzip", "\n", ", ", ". "};
	size_t i = 0, k;
	switch (profile) {
	case TU_ZEROS:
		memset(p, 0, n);
		break;
	case TU_RUNS:
		while (i < n) {
			size_t len = 1 + tu_next(r) % (tu_next(r) % 4 ? 12 : 400);
			unsigned char v = (unsigned char)(tu_next(r) % 5 ? tu_next(r) % 8 : tu_next(r));
			for (k = 0; k < len && i < n; k++)
				p[i++] = v;
		}
		break;
	case TU_TEXT:
		while (i < n) {
			const char *w = words[tu_next(r) % (sizeof words / sizeof words[0])];
			for (k = 0; w[k] && i < n; k++)
				p[i++] = (unsigned char)w[k];
			if (i < n && tu_next(r) % 3)
				p[i++] = ' ';
		}
		break;
	case TU_FLOATS:
		tu_fill_floats(p, n, r, 8 + (int)(tu_next(r) % 9));
		break;
	case TU_RANDOM:
		for (; i < n; i++)
			p[i] = (unsigned char)tu_next(r);
		break;
	case TU_SKEWED:
		/* geometric byte values: Huffman codes up to the 15-bit limit */
		for (; i < n; i++) {
			uint64_t x = tu_next(r);
			unsigned v = 0;
			while ((x & 1) && v < 40) {
				x >>= 1;
				v++;
			}
			p[i] = (unsigned char)(v * 6 + (x >> 60) % 3);
		}
		break;
	default: /* mixed: pieces of the other profiles */
		while (i < n) {
			size_t len = 1 + tu_next(r) % 20000;
			if (len > n - i)
				len = n - i;
			tu_fill(p + i, len, (int)(tu_next(r) % TU_MIXED), r);
			i += len;
		}
		break;
	}
}

/* ---- compressors ---- */

enum { TU_RAW = 0, TU_ZLIB = 1, TU_GZIP = 2 }; /* the kernel's framing values */
static const char *const tu_framing_name[3] = {"raw", "zlib", "gzip"};

/* libdeflate at level 0..12; returns a malloc'd stream. */
static inline unsigned char *tu_libdeflate(const unsigned char *src, size_t n, int level, int framing,
				    size_t *zn)
{
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(level);
	if (!c) {
		fprintf(stderr, "libdeflate: no compressor for level %d\n", level);
		exit(2);
	}
	size_t bound = framing == TU_RAW    ? libdeflate_deflate_compress_bound(c, n)
		       : framing == TU_ZLIB ? libdeflate_zlib_compress_bound(c, n)
					    : libdeflate_gzip_compress_bound(c, n);
	unsigned char *z = (unsigned char *)tu_xmalloc(bound);
	size_t m = framing == TU_RAW    ? libdeflate_deflate_compress(c, src, n, z, bound)
		   : framing == TU_ZLIB ? libdeflate_zlib_compress(c, src, n, z, bound)
					: libdeflate_gzip_compress(c, src, n, z, bound);
	libdeflate_free_compressor(c);
	if (!m) {
		fprintf(stderr, "libdeflate: compression failed\n");
		exit(2);
	}
	*zn = m;
	return z;
}

/* zlib with a strategy, window bits (9..15) and, for gzip, optional header fields
 * (hdr bits: 1 FEXTRA, 2 FNAME, 4 FCOMMENT, 8 FHCRC). */
static inline unsigned char *tu_zlib(const unsigned char *src, size_t n, int level, int strategy,
			      int wbits, int framing, int hdr, size_t *zn)
{
	z_stream zs;
	gz_header gh;
	static unsigned char extra[300];
	memset(&zs, 0, sizeof zs);
	int wb = framing == TU_RAW ? -wbits : framing == TU_ZLIB ? wbits : wbits + 16;
	if (deflateInit2(&zs, level, Z_DEFLATED, wb, 8, strategy) != Z_OK) {
		fprintf(stderr, "zlib: deflateInit2 failed\n");
		exit(2);
	}
	if (framing == TU_GZIP && hdr) {
		memset(&gh, 0, sizeof gh);
		for (int i = 0; i < 300; i++)
			extra[i] = (unsigned char)(i * 7 + 1);
		gh.text = 1;
		gh.time = 1234567890;
		gh.os = 3;
		if (hdr & 1) {
			gh.extra = extra;
			gh.extra_len = 37 + (unsigned)(n % 250);
		}
		if (hdr & 2)
			gh.name = (Bytef *)"tile_0001.fits.gz";
		if (hdr & 4)
			gh.comment = (Bytef *)"made by the tessera GPU inflate test, with a long comment "
					      "so that the header crosses several 128-byte windows ....";
		gh.hcrc = (hdr & 8) ? 1 : 0;
		deflateSetHeader(&zs, &gh);
	}
	size_t bound = deflateBound(&zs, (uLong)n) + 1024;
	unsigned char *z = (unsigned char *)tu_xmalloc(bound);
	zs.next_in = (Bytef *)src;
	zs.avail_in = (uInt)n;
	zs.next_out = z;
	zs.avail_out = (uInt)bound;
	if (deflate(&zs, Z_FINISH) != Z_STREAM_END) {
		fprintf(stderr, "zlib: deflate did not finish\n");
		exit(2);
	}
	*zn = zs.total_out;
	deflateEnd(&zs);
	return z;
}

/* libdeflate's decode with capacity cap: 0 and *got, or nonzero. */
static inline int tu_ref_decode(struct libdeflate_decompressor *d, int framing, const unsigned char *z,
			 size_t zn, unsigned char *out, size_t cap, size_t *got)
{
	enum libdeflate_result r;
	*got = 0;
	if (framing == TU_RAW)
		r = libdeflate_deflate_decompress(d, z, zn, out, cap, got);
	else if (framing == TU_ZLIB)
		r = libdeflate_zlib_decompress(d, z, zn, out, cap, got);
	else
		r = libdeflate_gzip_decompress(d, z, zn, out, cap, got);
	return (int)r;
}

/* ---- test cases ---- */

enum { TU_LIBDEFLATE, TU_ZLIBC, TU_MULTI };

struct tu_case {
	int profile;
	size_t size;
	int comp, level, strategy, wbits, framing, hdr;
	size_t cap;             /* output capacity to give the decoder */
	uint64_t seed;
	unsigned char *raw;
	unsigned char *z;
	size_t zn;
};

static inline const char *tu_strategy_name(int s)
{
	switch (s) {
	case Z_FILTERED: return "filtered";
	case Z_HUFFMAN_ONLY: return "huffman";
	case Z_RLE: return "rle";
	case Z_FIXED: return "fixed";
	default: return "default";
	}
}

static inline void tu_case_name(const struct tu_case *c, char *buf, size_t n)
{
	if (c->comp == TU_LIBDEFLATE)
		snprintf(buf, n, "%s/%zu libdeflate-%d %s", tu_profile_name[c->profile], c->size,
			 c->level, tu_framing_name[c->framing]);
	else
		snprintf(buf, n, "%s/%zu zlib-%d %s w%d %s%s hdr%d", tu_profile_name[c->profile],
			 c->size, c->level, tu_strategy_name(c->strategy), c->wbits,
			 tu_framing_name[c->framing], c->comp == TU_MULTI ? " 2-member" : "", c->hdr);
}

/* Makes the data and the compressed stream of a case. */
static inline void tu_case_build(struct tu_case *c)
{
	struct tu_rng r = tu_seed(c->seed);
	c->raw = (unsigned char *)tu_xmalloc(c->size);
	tu_fill(c->raw, c->size, c->profile, &r);
	if (c->comp == TU_LIBDEFLATE) {
		c->z = tu_libdeflate(c->raw, c->size, c->level, c->framing, &c->zn);
	} else if (c->comp == TU_ZLIBC) {
		c->z = tu_zlib(c->raw, c->size, c->level, c->strategy, c->wbits, c->framing, c->hdr,
			       &c->zn);
	} else { /* two gzip members, split unevenly */
		size_t h = c->size / 3, n1, n2;
		unsigned char *a = tu_zlib(c->raw, h, c->level, c->strategy, c->wbits, TU_GZIP,
					   c->hdr, &n1);
		unsigned char *b = tu_zlib(c->raw + h, c->size - h, c->level, c->strategy, c->wbits,
					   TU_GZIP, 0, &n2);
		c->z = (unsigned char *)tu_xmalloc(n1 + n2);
		memcpy(c->z, a, n1);
		memcpy(c->z + n1, b, n2);
		c->zn = n1 + n2;
		free(a);
		free(b);
	}
}

struct tu_pool_job {
	struct tu_case *cases;
	size_t n;
	size_t next;
	pthread_mutex_t lock;
};

static inline void *tu_pool_worker(void *arg)
{
	struct tu_pool_job *j = (struct tu_pool_job *)arg;
	for (;;) {
		pthread_mutex_lock(&j->lock);
		size_t i = j->next++;
		pthread_mutex_unlock(&j->lock);
		if (i >= j->n)
			return NULL;
		tu_case_build(&j->cases[i]);
	}
}

/* Builds all cases on up to 32 threads (the compressors are the slow part). */
static inline void tu_build_all(struct tu_case *cases, size_t n)
{
	struct tu_pool_job j;
	pthread_t th[32];
	long ncpu = 4;
#ifdef _SC_NPROCESSORS_ONLN
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
#endif
	int nt = ncpu < 1 ? 1 : ncpu > 32 ? 32 : (int)ncpu;
	j.cases = cases;
	j.n = n;
	j.next = 0;
	pthread_mutex_init(&j.lock, NULL);
	for (int t = 0; t < nt; t++)
		pthread_create(&th[t], NULL, tu_pool_worker, &j);
	for (int t = 0; t < nt; t++)
		pthread_join(th[t], NULL);
	pthread_mutex_destroy(&j.lock);
}

/*
 * The valid-stream matrix: every profile x size, libdeflate levels 0..12 and zlib levels 0..9
 * with every strategy (Z_FIXED gives fixed-Huffman blocks, level 0 stored blocks), window bits
 * 9..15, gzip header fields, two-member gzip; framings rotate. big: add a few multi-MiB streams.
 */
static inline struct tu_case *tu_make_cases(int big, size_t *ncases)
{
	static const size_t sizes[] = {0, 1, 2, 3, 17, 100, 255, 1000, 4096, 65536, 65537, 200003};
	static const size_t big_sizes[] = {(2u << 20) + 13, 6u << 20};
	static const int strategies[] = {Z_DEFAULT_STRATEGY, Z_FILTERED, Z_HUFFMAN_ONLY, Z_RLE,
					 Z_FIXED};
	size_t cap = 8192, n = 0, si, k;
	struct tu_case *cs = (struct tu_case *)tu_xmalloc(cap * sizeof *cs);
	uint64_t seed = 1;
	int p, l;

#define TU_ADD(PROF, SIZE, COMP, LEVEL, STRAT, WBITS, FRAMING, HDR)                              \
	do {                                                                                     \
		struct tu_case *c_ = &cs[n++];                                                   \
		memset(c_, 0, sizeof *c_);                                                       \
		c_->profile = (PROF);                                                            \
		c_->size = (SIZE);                                                               \
		c_->comp = (COMP);                                                               \
		c_->level = (LEVEL);                                                             \
		c_->strategy = (STRAT);                                                          \
		c_->wbits = (WBITS);                                                             \
		c_->framing = (FRAMING);                                                         \
		c_->hdr = (HDR);                                                                 \
		c_->cap = (SIZE) + ((seed % 3) ? 0 : seed % 97); /* exact, or some slack */      \
		c_->seed = seed++;                                                               \
	} while (0)

	for (p = 0; p < TU_NPROFILES; p++) {
		for (si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
			size_t sz = sizes[si];
			for (l = 0; l <= 12; l++)
				TU_ADD(p, sz, TU_LIBDEFLATE, l, 0, 15, (int)((l + si + p) % 3), 0);
			for (l = 0; l <= 9; l++)
				for (k = 0; k < 5; k++) {
					if (k && (l + k + si) % 2) /* half of the non-default ones */
						continue;
					int wb = 9 + (int)((l + k + si + p) % 7);
					int fr = (int)((l + k + si) % 3);
					TU_ADD(p, sz, TU_ZLIBC, l, strategies[k], wb, fr,
					       fr == TU_GZIP ? (int)((l + k + p) % 16) : 0);
				}
			TU_ADD(p, sz, TU_MULTI, 6, Z_DEFAULT_STRATEGY, 15, TU_GZIP, 15);
			if (n + 64 > cap) {
				cap *= 2;
				cs = (struct tu_case *)realloc(cs, cap * sizeof *cs);
			}
		}
	}
	if (big) {
		static const int big_prof[] = {TU_TEXT, TU_FLOATS, TU_MIXED};
		for (k = 0; k < 3; k++)
			for (si = 0; si < 2; si++) {
				size_t sz = big_sizes[si];
				TU_ADD(big_prof[k], sz, TU_LIBDEFLATE, 1, 0, 15, TU_RAW, 0);
				TU_ADD(big_prof[k], sz, TU_LIBDEFLATE, 6, 0, 15, TU_GZIP, 0);
				TU_ADD(big_prof[k], sz, TU_LIBDEFLATE, 0, 0, 15, TU_ZLIB, 0);
				TU_ADD(big_prof[k], sz, TU_ZLIBC, 6, Z_DEFAULT_STRATEGY, 15, TU_ZLIB, 0);
				TU_ADD(big_prof[k], sz, TU_ZLIBC, 1, Z_FIXED, 15, TU_RAW, 0);
			}
	}
#undef TU_ADD
	*ncases = n;
	return cs;
}

static inline void tu_free_cases(struct tu_case *cs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(cs[i].raw);
		free(cs[i].z);
	}
	free(cs);
}

/* ---- corruptions ---- */

/* A tiny LSB-first bit writer, for hand-made raw DEFLATE streams. */
struct tu_bw {
	unsigned char buf[64];
	size_t nbits;
};

static inline void tu_put(struct tu_bw *w, unsigned v, unsigned nbits)
{
	for (unsigned i = 0; i < nbits; i++, w->nbits++)
		if ((v >> i) & 1)
			w->buf[w->nbits >> 3] |= (unsigned char)(1u << (w->nbits & 7));
}

/* A Huffman code, written first bit first (codes are MSB-first). */
static inline void tu_put_code(struct tu_bw *w, unsigned code, unsigned len)
{
	for (unsigned i = len; i-- > 0;)
		tu_put(w, (code >> i) & 1, 1);
}

/* Fixed-Huffman literal/length code of symbol s. */
static inline void tu_put_fixed(struct tu_bw *w, unsigned s)
{
	if (s < 144)
		tu_put_code(w, 0x30 + s, 8);
	else if (s < 256)
		tu_put_code(w, 0x190 + s - 144, 9);
	else if (s < 280)
		tu_put_code(w, s - 256, 7);
	else
		tu_put_code(w, 0xc0 + s - 280, 8);
}

/* Hand-made raw streams with a known defect; *what names the expected failure. */
static inline size_t tu_crafted(int which, unsigned char *out, const char **what)
{
	struct tu_bw w;
	memset(&w, 0, sizeof w);
	switch (which) {
	case 0: /* block type 3 */
		*what = "block type 3";
		tu_put(&w, 1, 1);
		tu_put(&w, 3, 2);
		tu_put(&w, 0, 16);
		break;
	case 1: /* stored LEN != ~NLEN */
		*what = "stored len";
		tu_put(&w, 1, 1);
		tu_put(&w, 0, 2);
		tu_put(&w, 0, 5);
		tu_put(&w, 5, 16);
		tu_put(&w, 0x1234, 16);
		tu_put(&w, 0x41414141u, 32);
		tu_put(&w, 0x41, 8);
		break;
	case 2: /* a match at the start: distance too far */
		*what = "distance at start";
		tu_put(&w, 1, 1);
		tu_put(&w, 1, 2);
		tu_put_fixed(&w, 257); /* length 3 */
		tu_put_code(&w, 0, 5); /* distance 1 */
		tu_put_fixed(&w, 256);
		break;
	case 3: /* 2 literals, then distance 4 */
		*what = "distance 4 after 2";
		tu_put(&w, 1, 1);
		tu_put(&w, 1, 2);
		tu_put_fixed(&w, 'a');
		tu_put_fixed(&w, 'b');
		tu_put_fixed(&w, 258); /* length 4 */
		tu_put_code(&w, 3, 5); /* distance 4 */
		tu_put_fixed(&w, 256);
		break;
	case 4: /* dynamic block whose precode is over-subscribed (all 19 lengths 1) */
		*what = "over-subscribed precode";
		tu_put(&w, 1, 1);
		tu_put(&w, 2, 2);
		tu_put(&w, 0, 5);
		tu_put(&w, 0, 5);
		tu_put(&w, 15, 4);
		for (int i = 0; i < 19; i++)
			tu_put(&w, 1, 3);
		tu_put(&w, 0, 24);
		break;
	case 5: /* dynamic block: repeat-previous (16) as the very first length */
		*what = "repeat with no previous";
		tu_put(&w, 1, 1);
		tu_put(&w, 2, 2);
		tu_put(&w, 0, 5);
		tu_put(&w, 0, 5);
		tu_put(&w, 0, 4); /* 4 precode lengths: 16, 17, 18, 0 */
		tu_put(&w, 1, 3); /* 16: 1 bit */
		tu_put(&w, 1, 3); /* 17: 1 bit */
		tu_put(&w, 0, 3);
		tu_put(&w, 0, 3);
		tu_put(&w, 0, 1); /* code 0 = symbol 16 */
		tu_put(&w, 0, 24);
		break;
	case 6: /* an empty non-final stored block, then nothing */
		*what = "missing final block";
		tu_put(&w, 0, 1);
		tu_put(&w, 0, 2);
		tu_put(&w, 0, 5);
		tu_put(&w, 0, 16);
		tu_put(&w, 0xffff, 16);
		break;
	default: /* 3 literals then a match longer than any output cap we give (cap 4) */
		*what = "overflow";
		tu_put(&w, 1, 1);
		tu_put(&w, 1, 2);
		tu_put_fixed(&w, 'x');
		tu_put_fixed(&w, 'y');
		tu_put_fixed(&w, 'z');
		tu_put_fixed(&w, 284);
		tu_put(&w, 30, 5); /* length 257 */
		tu_put_code(&w, 0, 5);
		tu_put_fixed(&w, 256);
		break;
	}
	size_t n = (w.nbits + 7) / 8;
	memcpy(out, w.buf, n);
	return n;
}
#define TU_NCRAFTED 8

#endif
