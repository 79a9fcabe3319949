/* blosc_test_util.h - what the blosc tests share: reproducible data, the test and corpus folders, a minimal JSON reader, .npy loading, and the c-blosc/c-blosc2 fixtures. */
#ifndef TSR_BLOSC_TEST_UTIL_H
#define TSR_BLOSC_TEST_UTIL_H

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "read_file.h"
#include "codecs/blosc.h"
#include "core/internal.h"

/* ---- small helpers ---- */

static uint64_t __attribute__((unused)) rng_state = 0x9E3779B97F4A7C15ULL;

static inline uint64_t rnd(void)
{
	/* xorshift64*: deterministic, so failures reproduce */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

static inline int is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The repository's tests/ folder, from this file's path (CMake compiles it by absolute path). */
static inline void tests_dir(char *buf, size_t cap)
{
	snprintf(buf, cap, "%s", __FILE__);
	char *slash = strrchr(buf, '/');
	if (slash)
		*slash = 0;
	else
		snprintf(buf, cap, ".");
}

static inline void corpus_dir(char *buf, size_t cap)
{
	const char *env = getenv("TSR_CORPUS");
	if (env && *env) {
		snprintf(buf, cap, "%s", env);
		return;
	}
	char t[4096];
	tests_dir(t, sizeof(t));
	snprintf(buf, cap, "%s/../../shared/corpus", t);
}

/* ---- a minimal JSON reader (spans into the text; enough for manifests and .zarray) ---- */

struct jspan {
	const char *p;
	size_t n;
};

static inline const char *jws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
		p++;
	return p;
}

static inline const char *jskip(const char *p)
{
	p = jws(p);
	if (*p == '"') {
		for (p++; *p && *p != '"'; p++)
			if (*p == '\\' && p[1])
				p++;
		return *p ? p + 1 : NULL;
	}
	if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';
		p = jws(p + 1);
		if (*p == close)
			return p + 1;
		for (;;) {
			if (close == '}') {
				p = jskip(p);
				if (!p)
					return NULL;
				p = jws(p);
				if (*p != ':')
					return NULL;
				p++;
			}
			p = jskip(p);
			if (!p)
				return NULL;
			p = jws(p);
			if (*p == ',') {
				p++;
				continue;
			}
			return *p == close ? p + 1 : NULL;
		}
	}
	while (*p && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\n')
		p++;
	return p;
}

/* Value of key in the object at obj (which starts with '{'); 0 when absent. */
static inline int jget(struct jspan obj, const char *key, struct jspan *out)
{
	const char *p = jws(obj.p);
	if (*p != '{')
		return 0;
	p = jws(p + 1);
	size_t klen = strlen(key);
	while (*p == '"') {
		const char *k = p + 1, *kend = jskip(p);
		if (!kend)
			return 0;
		p = jws(kend);
		if (*p != ':')
			return 0;
		const char *v = jws(p + 1), *vend = jskip(v);
		if (!vend)
			return 0;
		if ((size_t)(kend - 1 - k) == klen && memcmp(k, key, klen) == 0) {
			out->p = v;
			out->n = (size_t)(vend - v);
			return 1;
		}
		p = jws(vend);
		if (*p == ',')
			p = jws(p + 1);
	}
	return 0;
}

static inline int jstr(struct jspan v, char *buf, size_t cap)
{
	if (v.n < 2 || v.p[0] != '"')
		return 0;
	size_t o = 0;
	for (size_t i = 1; i + 1 < v.n && o + 1 < cap; i++) {
		char c = v.p[i];
		if (c == '\\' && i + 2 < v.n)
			c = v.p[++i];
		buf[o++] = c;
	}
	buf[o] = 0;
	return 1;
}

static inline int jints(struct jspan v, int64_t *a, int max)
{
	const char *p = jws(v.p);
	if (*p != '[')
		return -1;
	int n = 0;
	p++;
	for (;;) {
		p = jws(p);
		if (*p == ']')
			return n;
		if (n == max)
			return -1;
		char *end;
		a[n++] = strtoll(p, &end, 10);
		if (end == p)
			return -1;
		p = jws(end);
		if (*p == ',')
			p++;
	}
}

/* Calls fn on every object of the JSON list in text. */
static inline void jeach(const char *text, void (*fn)(struct jspan obj, void *arg), void *arg)
{
	const char *p = jws(text);
	if (*p != '[')
		return;
	p = jws(p + 1);
	while (*p == '{') {
		const char *e = jskip(p);
		if (!e)
			return;
		fn((struct jspan){p, (size_t)(e - p)}, arg);
		p = jws(e);
		if (*p == ',')
			p = jws(p + 1);
	}
}

/* ---- .npy ---- */

struct npy {
	uint8_t *file;
	const uint8_t *data;
	size_t nbytes;
	char descr[16];
};

static inline int npy_load(const char *path, struct npy *np)
{
	size_t n;
	memset(np, 0, sizeof(*np));
	np->file = read_file(path, &n);
	if (!np->file || n < 12 || memcmp(np->file, "\x93NUMPY", 6) != 0)
		return 0;
	size_t hl, off;
	if (np->file[6] == 1) {
		hl = (size_t)np->file[8] | (size_t)np->file[9] << 8;
		off = 10;
	} else {
		hl = tsr_le32(np->file + 8);
		off = 12;
	}
	if (off + hl > n)
		return 0;
	const char *h = (const char *)np->file + off;
	const char *d = strstr(h, "'descr': '");
	if (!d || d > h + hl)
		return 0;
	d += 10;
	size_t k = 0;
	while (d[k] != '\'' && k + 1 < sizeof(np->descr)) {
		np->descr[k] = d[k];
		k++;
	}
	np->descr[k] = 0;
	if (strstr(h, "'fortran_order': True"))
		return 0;
	np->data = np->file + off + hl;
	np->nbytes = n - off - hl;
	return 1;
}

/* ---- 3. fixtures from c-blosc and c-blosc2 ---- */

struct fixture {
	char name[96], data[64], note[160];
	int version, codec, typesize, special, memcpyed, split;
	long long nbytes, blocksize;
	int filters[6], fmeta[6];
};

static int nfixture_chunks __attribute__((unused)), nfixture_blocks __attribute__((unused));

/* Checks decode and per-block decode of one chunk against expected bytes. */
static inline void check_chunk(const char *what, const uint8_t *c, size_t cn, const uint8_t *want,
			size_t want_n, struct tsr_blosc_scratch *scratch)
{
	struct tsr_blosc_info in;
	int rc = tsr_blosc_info(c, cn, &in);
	if (rc) {
		fprintf(stderr, "%s: info: %s\n", what, tsr_errmsg());
		CHECK_EQ_INT(rc, TSR_OK);
		return;
	}
	CHECK_EQ_INT(in.nbytes, want_n);
	uint8_t *out = malloc(want_n + 16);
	size_t got = 0;
	rc = tsr_blosc_decode(out, want_n, c, cn, scratch, &got);
	if (rc || got != want_n || memcmp(out, want, want_n) != 0) {
		size_t k = 0;
		while (!rc && k < want_n && out[k] == want[k])
			k++;
		fprintf(stderr, "%s: decode rc %d (%s), %zu bytes, first difference at %zu\n", what,
			rc, rc ? tsr_errmsg() : "", got, k);
		CHECK(0);
		free(out);
		return;
	}
	/* the same without a scratch, and into a too-small buffer */
	if (want_n > 0) {
		memset(out, 0xEE, want_n);
		CHECK_EQ_INT(tsr_blosc_decode(out, want_n + 16, c, cn, NULL, NULL), TSR_OK);
		CHECK(memcmp(out, want, want_n) == 0);
		CHECK_EQ_INT(tsr_blosc_decode(out, want_n - 1, c, cn, scratch, &got), TSR_E_TOO_SMALL);
	}
	/* every block on its own, placed where it belongs */
	memset(out, 0xEE, want_n);
	for (int64_t b = 0; b < in.nblocks; b++) {
		size_t at = (size_t)(b * in.blocksize);
		rc = tsr_blosc_decode_blocks(out + at, want_n - at, c, cn, b, 1, scratch);
		if (rc) {
			fprintf(stderr, "%s: block %lld: %s\n", what, (long long)b, tsr_errmsg());
			CHECK_EQ_INT(rc, TSR_OK);
		}
		nfixture_blocks++;
	}
	if (memcmp(out, want, want_n) != 0) {
		fprintf(stderr, "%s: block-by-block decode differs\n", what);
		CHECK(0);
	}
	/* a random range of blocks into a buffer of exactly their size */
	if (in.nblocks > 1) {
		int64_t first = (int64_t)(rnd() % (uint64_t)in.nblocks);
		int64_t count = 1 + (int64_t)(rnd() % (uint64_t)(in.nblocks - first));
		size_t at = (size_t)(first * in.blocksize);
		size_t len = (size_t)((first + count == in.nblocks) ? in.nbytes - (int64_t)at
								   : count * in.blocksize);
		uint8_t *part = malloc(len);
		CHECK_EQ_INT(tsr_blosc_decode_blocks(part, len, c, cn, first, count, scratch), TSR_OK);
		CHECK(memcmp(part, want + at, len) == 0);
		CHECK_EQ_INT(tsr_blosc_decode_blocks(part, len - 1, c, cn, first, count, scratch),
			     TSR_E_TOO_SMALL);
		free(part);
	}
	CHECK_EQ_INT(tsr_blosc_decode_blocks(out, want_n, c, cn, 0, in.nblocks + 1, scratch),
		     TSR_E_RANGE);
	CHECK_EQ_INT(tsr_blosc_decode_blocks(out, want_n, c, cn, -1, 1, scratch), TSR_E_RANGE);
	free(out);
}

static inline int load_fixtures(struct fixture **fx_ret, char *dir, size_t dircap)
{
	char t[4096], path[8192];
	tests_dir(t, sizeof(t));
	const char *env = getenv("TSR_BLOSC_FIXTURES");
	if (env && *env)
		snprintf(dir, dircap, "%s", env);
	else
		snprintf(dir, dircap, "%s/data/blosc", t);
	snprintf(path, sizeof(path), "%s/index.tsv", dir);
	size_t n;
	char *text = (char *)read_file(path, &n);
	if (!text) {
		fprintf(stderr, "cannot read %s\n", path);
		return -1;
	}
	text = realloc(text, n + 1);
	text[n] = 0;
	int cap = 512, count = 0;
	struct fixture *fx = calloc((size_t)cap, sizeof(*fx));
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		if (line[0] == '#')
			continue;
		struct fixture *f = &fx[count];
		char filt[64], meta[64];
		int k = sscanf(line,
			       "%95[^\t]\t%63[^\t]\t%d\t%d\t%d\t%lld\t%lld\t%d\t%d\t%d\t"
			       "%63[^\t]\t%63[^\t]\t%159[^\n]",
			       f->name, f->data, &f->version, &f->codec, &f->typesize, &f->nbytes,
			       &f->blocksize, &f->special, &f->memcpyed, &f->split, filt, meta, f->note);
		if (k < 12)
			continue;
		sscanf(filt, "%d,%d,%d,%d,%d,%d", &f->filters[0], &f->filters[1], &f->filters[2],
		       &f->filters[3], &f->filters[4], &f->filters[5]);
		sscanf(meta, "%d,%d,%d,%d,%d,%d", &f->fmeta[0], &f->fmeta[1], &f->fmeta[2],
		       &f->fmeta[3], &f->fmeta[4], &f->fmeta[5]);
		if (++count == cap)
			break;
	}
	free(text);
	*fx_ret = fx;
	return count;
}


#endif
