/* test_blosc.c - blosc chunks: filters, BloscLZ, c-blosc/c-blosc2 fixtures, corpus, corruption. */
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

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;

static uint64_t rnd(void)
{
	/* xorshift64*: deterministic, so failures reproduce */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

static int is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The repository's tests/ folder, from this file's path (CMake compiles it by absolute path). */
static void tests_dir(char *buf, size_t cap)
{
	snprintf(buf, cap, "%s", __FILE__);
	char *slash = strrchr(buf, '/');
	if (slash)
		*slash = 0;
	else
		snprintf(buf, cap, ".");
}

static void corpus_dir(char *buf, size_t cap)
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

static const char *jws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
		p++;
	return p;
}

static const char *jskip(const char *p)
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
static int jget(struct jspan obj, const char *key, struct jspan *out)
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

static int jstr(struct jspan v, char *buf, size_t cap)
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

static int jints(struct jspan v, int64_t *a, int max)
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
static void jeach(const char *text, void (*fn)(struct jspan obj, void *arg), void *arg)
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

static int npy_load(const char *path, struct npy *np)
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

/* ---- 1. filters against plain reference code ---- */

static void shuffle_ref(uint8_t *dst, const uint8_t *src, size_t nbytes, size_t ts)
{
	size_t n = nbytes / ts;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < ts; j++)
			dst[j * n + i] = src[i * ts + j];
	memcpy(dst + n * ts, src + n * ts, nbytes - n * ts);
}

/* bitshuffle of n8 elements as the note describes it, the rest copied */
static void bitshuffle_ref(uint8_t *dst, const uint8_t *src, size_t nbytes, size_t ts, size_t n8)
{
	size_t row = n8 / 8;
	memset(dst, 0, n8 * ts);
	for (size_t e = 0; e < n8; e++)
		for (size_t j = 0; j < ts; j++)
			for (int b = 0; b < 8; b++)
				if (src[e * ts + j] >> b & 1)
					dst[(j * 8 + b) * row + e / 8] |= (uint8_t)(1u << (e % 8));
	memcpy(dst + n8 * ts, src + n8 * ts, nbytes - n8 * ts);
}

static void test_filters(void)
{
	int fails = 0;
	for (size_t ts = 1; ts <= 33; ts++) {
		size_t sizes[] = {0, 1, ts, 7 * ts, 8 * ts, 16 * ts + 3, 64 * ts, 1000 * ts + 5, 4099};
		for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
			size_t nb = sizes[si];
			uint8_t *x = malloc(nb + 1), *s = malloc(nb + 1), *y = malloc(nb + 1);
			for (size_t k = 0; k < nb; k++)
				x[k] = (uint8_t)rnd();
			/* byte shuffle */
			shuffle_ref(s, x, nb, ts);
			tsr_blosc_unshuffle(y, s, nb, ts);
			if (memcmp(x, y, nb) != 0 && fails++ < 5)
				fprintf(stderr, "unshuffle ts %zu n %zu differs\n", ts, nb);
			/* bit shuffle, Blosc2 and Blosc1 rules */
			size_t n = nb / ts;
			uint8_t *tmp = malloc(nb + 1);
			for (int withtmp = 0; withtmp < 2; withtmp++) {
				bitshuffle_ref(s, x, nb, ts, n - n % 8);
				tsr_blosc_bitunshuffle(y, s, nb, ts, 5, withtmp ? tmp : NULL);
				if (memcmp(x, y, nb) != 0 && fails++ < 5)
					fprintf(stderr, "bitunshuffle v5 ts %zu n %zu differs\n", ts, nb);
				bitshuffle_ref(s, x, nb, ts, n % 8 == 0 ? n : 0);
				tsr_blosc_bitunshuffle(y, s, nb, ts, 2, withtmp ? tmp : NULL);
				if (memcmp(x, y, nb) != 0 && fails++ < 5)
					fprintf(stderr, "bitunshuffle v2 ts %zu n %zu differs\n", ts, nb);
			}
			free(tmp);
			/* delta: encode as c-blosc2 does, decode, for block 0 and another block */
			size_t unit = (ts == 1 || ts == 2 || ts == 4 || ts == 8) ? ts : (ts % 8 ? 1 : 8);
			size_t nu = nb / unit;
			memcpy(s, x, nb);
			for (size_t k = nu; k-- > 1;)
				for (size_t u = 0; u < unit; u++)
					s[k * unit + u] ^= x[(k - 1) * unit + u];
			memcpy(y, s, nb);
			tsr_blosc_delta_decode(y, y, nb, ts, NULL);
			if (memcmp(x, y, nb) != 0 && fails++ < 5)
				fprintf(stderr, "delta block 0 ts %zu n %zu differs\n", ts, nb);
			uint8_t *ref = malloc(nb + 1);
			for (size_t k = 0; k < nb; k++)
				ref[k] = (uint8_t)rnd();
			for (size_t k = 0; k < nb; k++)
				s[k] = k < nu * unit ? x[k] ^ ref[k] : x[k];
			tsr_blosc_delta_decode(y, s, nb, ts, ref);
			if (memcmp(x, y, nb) != 0 && fails++ < 5)
				fprintf(stderr, "delta block k ts %zu n %zu differs\n", ts, nb);
			/* bytedelta: per-stream differences */
			size_t len = nb / ts;
			for (size_t st = 0; st < ts; st++)
				for (size_t k = 0; k < len; k++)
					s[st * len + k] = (uint8_t)(x[st * len + k] -
								    (k ? x[st * len + k - 1] : 0));
			memcpy(s + len * ts, x + len * ts, nb - len * ts);
			tsr_blosc_bytedelta_decode(y, s, nb, ts, 0);
			if (memcmp(x, y, nb) != 0 && fails++ < 5)
				fprintf(stderr, "bytedelta ts %zu n %zu differs\n", ts, nb);
			free(ref);
			free(x);
			free(s);
			free(y);
		}
	}
	CHECK_EQ_INT(fails, 0);
}

/* ---- 2. BloscLZ on hand-made streams ---- */

static void test_blosclz(void)
{
	uint8_t out[64];
	size_t n;
	/* literal "abcd", a match of 3 at distance 4, literal "Z" */
	const uint8_t s1[] = {0x03, 'a', 'b', 'c', 'd', (1 << 5) | 0, 3, 0x00, 'Z'};
	CHECK_EQ_INT(tsr_blosclz_decode(out, sizeof(out), s1, sizeof(s1), &n), TSR_OK);
	CHECK_EQ_INT(n, 4 + 3 + 1);
	CHECK(memcmp(out, "abcdabcZ", 8) == 0);
	/* the top 3 bits of the first control byte are ignored */
	const uint8_t s2[] = {0x20 | 0x01, 'x', 'y', (2 << 5) | 0, 0, 0x00, '!'};
	CHECK_EQ_INT(tsr_blosclz_decode(out, sizeof(out), s2, sizeof(s2), &n), TSR_OK);
	CHECK_EQ_INT(n, 2 + 4 + 1);
	CHECK(memcmp(out, "xyyyyy!", 7) == 0);
	/* long match: ctrl>>5 == 7 with extra length bytes 255, 2 -> 6 + 257 + 3 = 266 */
	uint8_t big[400];
	const uint8_t s3[] = {0x00, 'q', (7 << 5) | 0, 255, 2, 0, 0x00, 'e'};
	CHECK_EQ_INT(tsr_blosclz_decode(big, sizeof(big), s3, sizeof(s3), &n), TSR_OK);
	CHECK_EQ_INT(n, 1 + 266 + 1);
	int all_q = 1;
	for (size_t k = 0; k < 267; k++)
		all_q &= big[k] == 'q';
	CHECK(all_q && big[267] == 'e');
	/* far match: 31,255 then a 16-bit distance - 8192 */
	static uint8_t far[20000];
	uint8_t s4[9000];
	size_t sp = 0, want = 0;
	/* 8200 literal bytes in runs of 32 */
	for (size_t k = 0; k < 8200; k += 32) {
		size_t r = 8200 - k < 32 ? 8200 - k : 32;
		s4[sp++] = (uint8_t)(r - 1);
		for (size_t m = 0; m < r; m++)
			s4[sp++] = (uint8_t)((k + m) * 7);
		want += r;
	}
	/* match of 3 at distance 8200: 8192 + 8 -> ofs bytes 0x00 0x08 */
	s4[sp++] = (1 << 5) | 31;
	s4[sp++] = 255;
	s4[sp++] = 0x00;
	s4[sp++] = 0x08;
	s4[sp++] = 0x00;
	s4[sp++] = 0x55;
	CHECK_EQ_INT(tsr_blosclz_decode(far, sizeof(far), s4, sp, &n), TSR_OK);
	CHECK_EQ_INT(n, want + 3 + 1);
	CHECK(far[8200] == far[0] && far[8201] == far[1] && far[8202] == far[2] && far[8203] == 0x55);
	/* random valid streams, written instruction by instruction next to a byte-by-byte
	 * reference, decoded into buffers of exactly their size (every copy path, up to the end) */
	static uint8_t want_buf[70000], got_buf[70000], stream[140000];
	int bad = 0;
	for (int it = 0; it < 3000; it++) {
		size_t target = 1 + (size_t)(rnd() % (it % 10 == 0 ? 69000 : 3000));
		size_t op = 0, sp = 0;
		int first = 1;
		while (op < target) {
			size_t room = target - op;
			if (first || op < 1 || rnd() % 3 == 0) {
				size_t r = 1 + (size_t)(rnd() % 32);
				if (r > room)
					r = room;
				stream[sp++] = (uint8_t)((r - 1) | (first ? (rnd() % 8) << 5 : 0));
				for (size_t k = 0; k < r; k++)
					want_buf[op++] = stream[sp++] = (uint8_t)(rnd() % 4);
				first = 0;
				continue;
			}
			if (room < 3) {
				stream[sp++] = (uint8_t)(room - 1);
				for (size_t k = 0; k < room; k++)
					want_buf[op++] = stream[sp++] = (uint8_t)rnd();
				continue;
			}
			size_t len, dist;
			uint64_t pick = rnd() % 4;
			len = pick == 0 ? 3 + rnd() % 6 : pick == 1 ? 9 + rnd() % 40 : 3 + rnd() % 2000;
			if (len > room)
				len = room;
			uint64_t dk = rnd() % 4;
			dist = dk == 0 ? 1 + rnd() % 8 : dk == 1 ? 1 + rnd() % 20 : 1 + rnd() % 70000;
			if (dist > op)
				dist = 1 + rnd() % op;
			unsigned lc = len <= 8 ? (unsigned)(len - 2) : 7;
			size_t d1 = dist - 1;
			int far = d1 >= 8191;
			stream[sp++] = (uint8_t)(lc << 5 | (far ? 31u : (unsigned)(d1 >> 8)));
			if (lc == 7) {
				size_t extra = len - 9;
				while (extra >= 255) {
					stream[sp++] = 255;
					extra -= 255;
				}
				stream[sp++] = (uint8_t)extra;
			}
			if (far) {
				stream[sp++] = 255;
				stream[sp++] = (uint8_t)((dist - 8192) >> 8);
				stream[sp++] = (uint8_t)(dist - 8192);
			} else {
				stream[sp++] = (uint8_t)d1;
			}
			for (size_t k = 0; k < len; k++, op++)
				want_buf[op] = want_buf[op - dist];
		}
		size_t got = 0;
		int rc = tsr_blosclz_decode(got_buf, target, stream, sp, &got);
		if ((rc || got != target || memcmp(got_buf, want_buf, target) != 0) && bad++ < 3)
			fprintf(stderr, "blosclz random stream %d (%zu bytes): rc %d, got %zu\n", it,
				target, rc, got);
		/* one byte less of room must fail, never overrun */
		if (tsr_blosclz_decode(got_buf, target - 1, stream, sp, &got) == TSR_OK && bad++ < 3)
			fprintf(stderr, "blosclz random stream %d decoded into too little room\n", it);
	}
	CHECK_EQ_INT(bad, 0);
	/* errors */
	const uint8_t e1[] = {0x05, 'a', 'b'}; /* literal past input */
	CHECK_EQ_INT(tsr_blosclz_decode(out, sizeof(out), e1, sizeof(e1), &n), TSR_E_CORRUPT);
	const uint8_t e2[] = {0x00, 'a', (1 << 5) | 0, 5}; /* distance 6 > 1 byte of output */
	CHECK_EQ_INT(tsr_blosclz_decode(out, sizeof(out), e2, sizeof(e2), &n), TSR_E_CORRUPT);
	CHECK(strstr(tsr_errmsg(), "blosclz") != NULL);
	CHECK_EQ_INT(tsr_blosclz_decode(out, 2, s1, sizeof(s1), &n), TSR_E_CORRUPT);
	const uint8_t e3[] = {0x00, 'a', (7 << 5) | 0, 255}; /* truncated length */
	CHECK_EQ_INT(tsr_blosclz_decode(out, sizeof(out), e3, sizeof(e3), &n), TSR_E_CORRUPT);
	const uint8_t e4[] = {0x00, 'a', (1 << 5) | 31, 255, 0x01}; /* truncated far distance */
	CHECK_EQ_INT(tsr_blosclz_decode(out, sizeof(out), e4, sizeof(e4), &n), TSR_E_CORRUPT);
}

/* ---- 3. fixtures from c-blosc and c-blosc2 ---- */

struct fixture {
	char name[96], data[64], note[160];
	int version, codec, typesize, special, memcpyed, split;
	long long nbytes, blocksize;
	int filters[6], fmeta[6];
};

static int nfixture_chunks, nfixture_blocks;

/* Checks decode and per-block decode of one chunk against expected bytes. */
static void check_chunk(const char *what, const uint8_t *c, size_t cn, const uint8_t *want,
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

static int load_fixtures(struct fixture **fx_ret, char *dir, size_t dircap)
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

static void test_fixtures(struct fixture *fx, int nfx, const char *dir)
{
	struct tsr_blosc_scratch *scratch;
	CHECK_EQ_INT(tsr_blosc_scratch_create(&scratch), TSR_OK);
	int seen_v1 = 0, seen_v2 = 0, seen_codec[8] = {0}, seen_special[5] = {0}, seen_memcpy = 0;
	int seen_split = 0, seen_filter[64] = {0};
	for (int i = 0; i < nfx; i++) {
		const struct fixture *f = &fx[i];
		char path[8192];
		size_t cn = 0, dn = 0;
		snprintf(path, sizeof(path), "%s/%s.blosc", dir, f->name);
		uint8_t *c = read_file(path, &cn);
		snprintf(path, sizeof(path), "%s/%s", dir, f->data);
		uint8_t *d = read_file(path, &dn);
		if (!c || !d) {
			fprintf(stderr, "fixture %s: missing files\n", f->name);
			CHECK(0);
			free(c);
			free(d);
			continue;
		}
		struct tsr_blosc_info in;
		int rc = tsr_blosc_info(c, cn, &in);
		CHECK_EQ_INT(rc, TSR_OK);
		if (!rc) {
			int ok = in.version == f->version && in.typesize == f->typesize &&
				 in.nbytes == f->nbytes && in.blocksize == f->blocksize &&
				 in.special == f->special && in.memcpyed == f->memcpyed &&
				 (in.memcpyed || in.special || in.codec == f->codec) &&
				 (in.memcpyed || in.special || in.split == f->split);
			for (int k = 0; k < 6; k++)
				ok &= in.filters[k] == f->filters[k] && in.filters_meta[k] == f->fmeta[k];
			if (!ok) {
				fprintf(stderr,
					"fixture %s: info differs (v %d ts %d nb %lld bs %lld sp %d "
					"mc %d codec %d split %d)\n",
					f->name, in.version, in.typesize, (long long)in.nbytes,
					(long long)in.blocksize, in.special, in.memcpyed, in.codec, in.split);
				CHECK(0);
			}
			seen_v1 += in.version <= 2;
			seen_v2 += in.version >= 3;
			if (!in.memcpyed && !in.special)
				seen_codec[in.codec & 7]++;
			seen_special[in.special]++;
			seen_memcpy += in.memcpyed;
			seen_split += in.split && !in.memcpyed && !in.special;
			for (int k = 0; k < 6; k++)
				seen_filter[in.filters[k] & 63]++;
		}
		check_chunk(f->name, c, cn, d, (size_t)f->nbytes, scratch);
		nfixture_chunks++;
		free(c);
		free(d);
	}
	/* the fixture set covers what the decoder claims to decode */
	CHECK(seen_v1 > 50 && seen_v2 > 100);
	for (int k = 0; k <= 4; k++)
		if (k != 2)
			CHECK(seen_codec[k] > 10);
	for (int k = 1; k <= 4; k++)
		CHECK(seen_special[k] > 0);
	CHECK(seen_memcpy > 0 && seen_split > 20);
	CHECK(seen_filter[1] && seen_filter[2] && seen_filter[3] && seen_filter[4] &&
	      seen_filter[34] && seen_filter[35] && seen_filter[36]);
	tsr_blosc_scratch_free(scratch);
}

/* ---- 3b. concurrent decoding: no shared state between threads ---- */

struct thr_job {
	const struct fixture *fx;
	int nfx;
	const char *dir;
	int use_scratch;
	int bad;
};

static void *thr_main(void *arg)
{
	struct thr_job *j = arg;
	struct tsr_blosc_scratch *scratch = NULL;
	if (j->use_scratch)
		tsr_blosc_scratch_create(&scratch);
	for (int round = 0; round < 3; round++)
		for (int i = 0; i < j->nfx; i++) {
			char path[8192];
			size_t cn = 0, dn = 0;
			snprintf(path, sizeof(path), "%s/%s.blosc", j->dir, j->fx[i].name);
			uint8_t *c = read_file(path, &cn);
			snprintf(path, sizeof(path), "%s/%s", j->dir, j->fx[i].data);
			uint8_t *d = read_file(path, &dn);
			size_t n = (size_t)j->fx[i].nbytes, got = 0;
			uint8_t *out = malloc(n + 1);
			if (!c || !d || tsr_blosc_decode(out, n, c, cn, scratch, &got) != TSR_OK ||
			    got != n || memcmp(out, d, n) != 0)
				j->bad++;
			free(out);
			free(c);
			free(d);
		}
	tsr_blosc_scratch_free(scratch);
	return NULL;
}

static void test_threads(const struct fixture *fx, int nfx, const char *dir)
{
	enum { NT = 4 };
	pthread_t t[NT];
	struct thr_job jobs[NT];
	for (int i = 0; i < NT; i++) {
		jobs[i] = (struct thr_job){fx, nfx, dir, i % 2, 0};
		CHECK_EQ_INT(pthread_create(&t[i], NULL, thr_main, &jobs[i]), 0);
	}
	for (int i = 0; i < NT; i++) {
		pthread_join(t[i], NULL);
		CHECK_EQ_INT(jobs[i].bad, 0);
	}
}

/* ---- 4. Zarr v2 corpus: every blosc chunk against zarr-python's reading ---- */

struct zarr_walk {
	const char *corpus;
	char done[64][1024];
	int ndone;
	int arrays, chunks, missing;
	struct tsr_blosc_scratch *scratch;
};

static void swap_bytes(uint8_t *p, size_t n, size_t w)
{
	for (size_t i = 0; i + w <= n; i += w)
		for (size_t a = 0, b = w - 1; a < b; a++, b--) {
			uint8_t t = p[i + a];
			p[i + a] = p[i + b];
			p[i + b] = t;
		}
}

static void zarr_case(struct jspan obj, void *arg)
{
	struct zarr_walk *w = arg;
	struct jspan v;
	char path[512], array[256] = "", expect[512], key[800];
	if (jget(obj, "section", &v) || jget(obj, "level", &v))
		return;
	if (!jget(obj, "path", &v) || !jstr(v, path, sizeof(path)) || !jget(obj, "expect", &v) ||
	    !jstr(v, expect, sizeof(expect)))
		return;
	if (jget(obj, "array", &v))
		jstr(v, array, sizeof(array));
	snprintf(key, sizeof(key), "%s/%s", path, array);
	for (int i = 0; i < w->ndone; i++)
		if (strcmp(w->done[i], key) == 0)
			return;
	if (w->ndone < 64)
		snprintf(w->done[w->ndone++], sizeof(w->done[0]), "%s", key);

	char dir[1400], zpath[1500];
	snprintf(dir, sizeof(dir), "%s/%s%s%s", w->corpus, path, *array ? "/" : "", array);
	snprintf(zpath, sizeof(zpath), "%s/.zarray", dir);
	size_t zn;
	char *z = (char *)read_file(zpath, &zn);
	if (!z)
		return;
	z = realloc(z, zn + 1);
	z[zn] = 0;
	struct jspan zo = {z, zn}, comp, fl;
	char id[32] = "", dtype[32] = "", order[8] = "C", sep[4] = ".";
	int delta = 0;
	if (!jget(zo, "compressor", &comp) || !jget(comp, "id", &v) || !jstr(v, id, sizeof(id)) ||
	    strcmp(id, "blosc") != 0) {
		free(z);
		return;
	}
	if (jget(zo, "filters", &fl) && fl.p[0] == '[') {
		/* numcodecs Delta with dtype == astype is the one filter this test undoes */
		if (strstr(z, "\"delta\"") && strstr(z, "\"astype\": \"<i4\"") == NULL &&
		    strstr(z, "\"astype\":\"<i4\"") == NULL) {
			free(z);
			return;
		}
		delta = 1;
	}
	int64_t shape[8], chunks[8];
	int nd = jget(zo, "shape", &v) ? jints(v, shape, 8) : -1;
	int nc = jget(zo, "chunks", &v) ? jints(v, chunks, 8) : -1;
	if (jget(zo, "dtype", &v))
		jstr(v, dtype, sizeof(dtype));
	if (jget(zo, "order", &v))
		jstr(v, order, sizeof(order));
	if (jget(zo, "dimension_separator", &v))
		jstr(v, sep, sizeof(sep));
	free(z);
	if (nd <= 0 || nd != nc || strlen(dtype) < 3) {
		fprintf(stderr, "zarr %s: cannot read .zarray\n", key);
		CHECK(0);
		return;
	}
	size_t isz = (size_t)atoi(dtype + 2);
	int big = dtype[0] == '>';
	if (delta && isz != 4) {
		fprintf(stderr, "zarr %s: delta on itemsize %zu\n", key, isz);
		return;
	}
	char epath[1100];
	snprintf(epath, sizeof(epath), "%s/%s", w->corpus, expect);
	struct npy np;
	if (!npy_load(epath, &np)) {
		fprintf(stderr, "zarr %s: cannot read %s\n", key, epath);
		CHECK(0);
		free(np.file);
		return;
	}
	int64_t total = 1, cn = 1, grid[8];
	for (int d = 0; d < nd; d++) {
		total *= shape[d];
		cn *= chunks[d];
		grid[d] = (shape[d] + chunks[d] - 1) / chunks[d];
	}
	CHECK_EQ_INT(np.nbytes, (size_t)total * isz);
	size_t cbytes_n = (size_t)cn * isz;
	uint8_t *buf = malloc(cbytes_n), *blk = malloc(cbytes_n);
	int64_t ci[8] = {0};
	int mism = 0;
	w->arrays++;
	for (;;) {
		char name[256], cpath[1700];
		size_t o = 0;
		for (int d = 0; d < nd; d++)
			o += (size_t)snprintf(name + o, sizeof(name) - o, "%s%lld", d ? sep : "",
					      (long long)ci[d]);
		snprintf(cpath, sizeof(cpath), "%s/%s", dir, name);
		size_t srcn;
		uint8_t *src = read_file(cpath, &srcn);
		if (!src) {
			w->missing++;
		} else {
			size_t got = 0;
			int rc = tsr_blosc_decode(buf, cbytes_n, src, srcn, w->scratch, &got);
			if (rc || got != cbytes_n) {
				fprintf(stderr, "zarr %s chunk %s: rc %d %s (%zu bytes)\n", key, name, rc,
					tsr_errmsg(), got);
				CHECK(0);
			} else {
				/* block by block gives the same bytes */
				struct tsr_blosc_info in;
				tsr_blosc_info(src, srcn, &in);
				for (int64_t b = 0; b < in.nblocks; b++)
					CHECK_EQ_INT(tsr_blosc_decode_blocks(blk + b * in.blocksize,
									     cbytes_n - (size_t)(b * in.blocksize),
									     src, srcn, b, 1, w->scratch),
						     TSR_OK);
				CHECK(memcmp(blk, buf, cbytes_n) == 0);
				if (delta) {
					int32_t acc = 0;
					for (int64_t k = 0; k < cn; k++) {
						int32_t x;
						memcpy(&x, buf + 4 * k, 4);
						acc = (int32_t)((uint32_t)acc + (uint32_t)x);
						memcpy(buf + 4 * k, &acc, 4);
					}
				}
				if (big)
					swap_bytes(buf, cbytes_n, isz);
				/* every element of the chunk inside the array */
				int64_t li[8] = {0};
				for (int64_t k = 0; k < cn; k++) {
					int inside = 1;
					int64_t eoff = 0, coff = 0;
					for (int d = 0; d < nd; d++) {
						int64_t g = ci[d] * chunks[d] + li[d];
						inside &= g < shape[d];
						eoff = eoff * shape[d] + g;
					}
					if (order[0] == 'F')
						for (int d = nd - 1; d >= 0; d--)
							coff = coff * chunks[d] + li[d];
					else
						for (int d = 0; d < nd; d++)
							coff = coff * chunks[d] + li[d];
					if (inside && memcmp(buf + coff * (int64_t)isz,
							     np.data + eoff * (int64_t)isz, isz) != 0)
						mism++;
					for (int d = nd - 1; d >= 0; d--) {
						if (++li[d] < chunks[d])
							break;
						li[d] = 0;
					}
				}
				w->chunks++;
			}
			free(src);
		}
		int d = nd - 1;
		for (; d >= 0; d--) {
			if (++ci[d] < grid[d])
				break;
			ci[d] = 0;
		}
		if (d < 0)
			break;
	}
	if (mism)
		fprintf(stderr, "zarr %s: %d elements differ\n", key, mism);
	CHECK_EQ_INT(mism, 0);
	free(buf);
	free(blk);
	free(np.file);
}

static void test_zarr_corpus(const char *corpus)
{
	char mpath[4200];
	snprintf(mpath, sizeof(mpath), "%s/manifest-zarr2.json", corpus);
	size_t n;
	char *text = (char *)read_file(mpath, &n);
	if (!text) {
		fprintf(stderr, "no Zarr v2 corpus at %s: skipped\n", corpus);
		return;
	}
	text = realloc(text, n + 1);
	text[n] = 0;
	struct zarr_walk w = {.corpus = corpus};
	tsr_blosc_scratch_create(&w.scratch);
	jeach(text, zarr_case, &w);
	tsr_blosc_scratch_free(w.scratch);
	free(text);
	printf("zarr2 corpus: %d blosc arrays, %d chunks decoded (%d never written)\n", w.arrays,
	       w.chunks, w.missing);
	CHECK(w.arrays >= 12 && w.chunks >= 150);
}

/* ---- 5. Blosc2 corpus: every chunk of every frame, reassembled as b2nd ---- */

struct b2_walk {
	const char *corpus;
	char done[64][1024];
	int ndone;
	int frames, chunks, special_offsets;
	struct tsr_blosc_scratch *scratch;
};

static int64_t be64s(const uint8_t *p)
{
	return (int64_t)tsr_be64(p);
}

/* One decoded chunk compared block by block with the whole-chunk decode. */
static void check_blocks_match(const char *what, const uint8_t *c, size_t cn, const uint8_t *whole,
			       struct tsr_blosc_scratch *scratch)
{
	struct tsr_blosc_info in;
	if (tsr_blosc_info(c, cn, &in))
		return;
	uint8_t *blk = malloc((size_t)in.blocksize + 1);
	for (int64_t b = 0; b < in.nblocks; b++) {
		size_t len = (size_t)(b == in.nblocks - 1 ? in.last_block_nbytes : in.blocksize);
		int rc = tsr_blosc_decode_blocks(blk, len, c, cn, b, 1, scratch);
		if (rc || memcmp(blk, whole + b * in.blocksize, len) != 0) {
			fprintf(stderr, "%s: block %lld alone differs (rc %d %s)\n", what, (long long)b,
				rc, rc ? tsr_errmsg() : "");
			CHECK(0);
			break;
		}
	}
	free(blk);
}

static void b2_case(struct jspan obj, void *arg)
{
	struct b2_walk *w = arg;
	struct jspan v;
	char path[512], expect[512], dtype[16] = "";
	if (jget(obj, "section", &v))
		return;
	if (!jget(obj, "path", &v) || !jstr(v, path, sizeof(path)) || !jget(obj, "expect", &v) ||
	    !jstr(v, expect, sizeof(expect)))
		return;
	if (jget(obj, "dtype", &v))
		jstr(v, dtype, sizeof(dtype));
	for (int i = 0; i < w->ndone; i++)
		if (strcmp(w->done[i], path) == 0)
			return;
	if (w->ndone < 64)
		snprintf(w->done[w->ndone++], sizeof(w->done[0]), "%s", path);

	char fpath[1200], dir[1100];
	snprintf(dir, sizeof(dir), "%s/%s", w->corpus, path);
	int sparse = is_dir(dir);
	snprintf(fpath, sizeof(fpath), sparse ? "%s/chunks.b2frame" : "%s", dir);
	size_t fn;
	uint8_t *fr = read_file(fpath, &fn);
	if (!fr || fn < 100 || fr[0] != 0x9e || memcmp(fr + 2, "b2frame", 7) != 0 ||
	    fr[29] != 0xd3 || fr[38] != 0xd3 || fr[47] != 0xd2 || fr[57] != 0xd2) {
		fprintf(stderr, "blosc2 %s: not a frame I can read\n", path);
		CHECK(0);
		free(fr);
		return;
	}
	int64_t header_len = (int32_t)tsr_be32(fr + 11);
	int64_t nbytes = be64s(fr + 30), cbytes = be64s(fr + 39);
	int64_t typesize = (int32_t)tsr_be32(fr + 48), chunksize = (int32_t)tsr_be32(fr + 58);
	/* the offsets index is itself a blosc chunk, right after the data chunks (which a
	 * sparse frame keeps in files of their own) */
	int64_t ioff = sparse ? header_len : header_len + cbytes;
	struct tsr_blosc_info oi;
	if (ioff < 0 || ioff >= (int64_t)fn ||
	    tsr_blosc_info(fr + ioff, fn - (size_t)ioff, &oi) != TSR_OK || chunksize <= 0) {
		fprintf(stderr, "blosc2 %s: offsets index: %s\n", path, tsr_errmsg());
		CHECK(0);
		free(fr);
		return;
	}
	int64_t nchunks = oi.nbytes / 8;
	int64_t *offs = malloc((size_t)oi.nbytes + 8);
	CHECK_EQ_INT(tsr_blosc_decode(offs, (size_t)oi.nbytes, fr + ioff, fn - (size_t)ioff,
				      w->scratch, NULL),
		     TSR_OK);
	CHECK_EQ_INT(nchunks, (nbytes + chunksize - 1) / chunksize);

	/* b2nd metalayer: shape, chunkshape, blockshape; without it a 1-D super-chunk */
	int nd = 1;
	int64_t shape[16] = {nbytes / typesize}, cshape[16] = {chunksize / typesize},
		bshape[16] = {chunksize / typesize};
	for (int64_t p = 87; p + 10 < header_len; p++) {
		if (memcmp(fr + p, "\xa4" "b2nd\xd2", 6) != 0)
			continue;
		int64_t mo = (int32_t)tsr_be32(fr + p + 6);
		const uint8_t *m = fr + mo + 5; /* after bin32 marker and length */
		if (mo + 5 + 3 > (int64_t)fn || fr[mo] != 0xc6 || m[0] != 0x97)
			break;
		nd = m[2];
		const uint8_t *q = m + 3;
		q++; /* fixarray of shape */
		for (int d = 0; d < nd; d++, q += 9)
			shape[d] = be64s(q + 1);
		q++;
		for (int d = 0; d < nd; d++, q += 5)
			cshape[d] = (int32_t)tsr_be32(q + 1);
		q++;
		for (int d = 0; d < nd; d++, q += 5)
			bshape[d] = (int32_t)tsr_be32(q + 1);
		break;
	}
	int64_t total = 1, echunk = 1, eblock = 1, cgrid[16], bgrid[16];
	for (int d = 0; d < nd; d++) {
		total *= shape[d];
		cgrid[d] = (shape[d] + cshape[d] - 1) / cshape[d];
		bgrid[d] = (cshape[d] + bshape[d] - 1) / bshape[d];
		echunk *= bgrid[d] * bshape[d];
		eblock *= bshape[d];
	}
	char epath[1100];
	snprintf(epath, sizeof(epath), "%s/%s", w->corpus, expect);
	struct npy np;
	if (!npy_load(epath, &np) || np.nbytes != (size_t)(total * typesize)) {
		fprintf(stderr, "blosc2 %s: expected data %s unusable\n", path, epath);
		CHECK(0);
		free(np.file);
		free(offs);
		free(fr);
		return;
	}
	uint8_t *chunk = malloc((size_t)chunksize);
	int mism = 0;
	for (int64_t ic = 0; ic < nchunks; ic++) {
		int64_t o = offs[ic];
		size_t want = (size_t)(nd > 1 || ic < nchunks - 1 ? chunksize
								   : nbytes - ic * chunksize);
		if (o < 0) {
			/* special chunk kept in the index: (o >> 56) & 7 is 1 zeros, 2 NaN, 4 uninit */
			int kind = (int)((uint64_t)o >> 56 & 7);
			memset(chunk, 0, want);
			if (kind == 2)
				for (size_t k = 0; k + (size_t)typesize <= want; k += (size_t)typesize) {
					if (typesize == 4)
						memcpy(chunk + k, "\x00\x00\xc0\x7f", 4);
					else
						memcpy(chunk + k, "\x00\x00\x00\x00\x00\x00\xf8\x7f", 8);
				}
			w->special_offsets++;
		} else {
			uint8_t *c;
			size_t cn = 0;
			uint8_t *cfile = NULL;
			if (sparse) {
				char cp[1300];
				snprintf(cp, sizeof(cp), "%s/%08llX.chunk", dir, (unsigned long long)o);
				cfile = read_file(cp, &cn);
				c = cfile;
			} else {
				c = o + header_len < (int64_t)fn ? fr + header_len + o : NULL;
				cn = c ? fn - (size_t)(header_len + o) : 0;
			}
			size_t got = 0;
			int rc = c ? tsr_blosc_decode(chunk, (size_t)chunksize, c, cn, w->scratch, &got)
				   : TSR_E_IO;
			if (rc || got != want) {
				fprintf(stderr, "blosc2 %s chunk %lld: rc %d %s (%zu bytes, want %zu)\n",
					path, (long long)ic, rc, tsr_errmsg(), got, want);
				CHECK(0);
				free(cfile);
				continue;
			}
			check_blocks_match(path, c, cn, chunk, w->scratch);
			free(cfile);
			w->chunks++;
		}
		/* place: chunk ic of the C-order grid, blocks in C order inside it */
		int64_t cidx[16], rem = ic;
		for (int d = nd - 1; d >= 0; d--) {
			cidx[d] = rem % cgrid[d];
			rem /= cgrid[d];
		}
		if (nd == 1 && cshape[0] * typesize == chunksize && bshape[0] == cshape[0]) {
			/* plain super-chunk: bytes in order */
			int64_t first = ic * chunksize;
			for (size_t k = 0; k < want; k++)
				mism += chunk[k] != np.data[first + (int64_t)k];
			continue;
		}
		int64_t li[16] = {0}, cn_items = 1;
		for (int d = 0; d < nd; d++)
			cn_items *= cshape[d];
		for (int64_t k = 0; k < cn_items; k++) {
			int inside = 1;
			int64_t g = 0, bi = 0, wi = 0;
			for (int d = 0; d < nd; d++) {
				int64_t x = cidx[d] * cshape[d] + li[d];
				inside &= x < shape[d];
				g = g * shape[d] + x;
				bi = bi * bgrid[d] + li[d] / bshape[d];
				wi = wi * bshape[d] + li[d] % bshape[d];
			}
			int64_t s = bi * eblock + wi;
			if (inside && memcmp(chunk + s * typesize, np.data + g * typesize,
					     (size_t)typesize) != 0) {
				/* NaN equals NaN */
				int nan_ok = 0;
				if (dtype[1] == 'f' && typesize == 4) {
					float a, b;
					memcpy(&a, chunk + s * typesize, 4);
					memcpy(&b, np.data + g * typesize, 4);
					nan_ok = isnan(a) && isnan(b);
				} else if (dtype[1] == 'f' && typesize == 8) {
					double a, b;
					memcpy(&a, chunk + s * typesize, 8);
					memcpy(&b, np.data + g * typesize, 8);
					nan_ok = isnan(a) && isnan(b);
				}
				mism += !nan_ok;
			}
			for (int d = nd - 1; d >= 0; d--) {
				if (++li[d] < cshape[d])
					break;
				li[d] = 0;
			}
		}
		(void)echunk;
	}
	if (mism)
		fprintf(stderr, "blosc2 %s: %d elements differ\n", path, mism);
	CHECK_EQ_INT(mism, 0);
	w->frames++;
	free(chunk);
	free(np.file);
	free(offs);
	free(fr);
}

static void test_blosc2_corpus(const char *corpus)
{
	char mpath[4200];
	snprintf(mpath, sizeof(mpath), "%s/manifest-blosc2.json", corpus);
	size_t n;
	char *text = (char *)read_file(mpath, &n);
	if (!text) {
		fprintf(stderr, "no Blosc2 corpus at %s: skipped\n", corpus);
		return;
	}
	text = realloc(text, n + 1);
	text[n] = 0;
	struct b2_walk w = {.corpus = corpus};
	tsr_blosc_scratch_create(&w.scratch);
	jeach(text, b2_case, &w);
	tsr_blosc_scratch_free(w.scratch);
	free(text);
	printf("blosc2 corpus: %d frames, %d chunks decoded, %d special offsets\n", w.frames,
	       w.chunks, w.special_offsets);
	CHECK(w.frames >= 20 && w.chunks >= 200);
}

/* ---- 6. corrupt input ---- */

static int fuzz_runs, fuzz_ok;

/* Decoding must fail cleanly or give a chunk of the size its header states. */
static void decode_any(const uint8_t *c, size_t cn, uint8_t *out, size_t cap,
		       struct tsr_blosc_scratch *scratch)
{
	size_t got = 0;
	int rc = tsr_blosc_decode(out, cap, c, cn, scratch, &got);
	fuzz_runs++;
	if (rc == TSR_OK) {
		struct tsr_blosc_info in;
		CHECK_EQ_INT(tsr_blosc_info(c, cn, &in), TSR_OK);
		CHECK_EQ_INT(got, in.nbytes);
		CHECK(got <= cap);
		fuzz_ok++;
	} else {
		CHECK(rc == TSR_E_CORRUPT || rc == TSR_E_UNSUPPORTED || rc == TSR_E_TOO_SMALL);
		CHECK(tsr_errmsg()[0] != 0);
	}
	struct tsr_blosc_info in;
	if (tsr_blosc_info(c, cn, &in) == TSR_OK && in.nblocks > 0) {
		int64_t first = (int64_t)(rnd() % (uint64_t)in.nblocks);
		rc = tsr_blosc_decode_blocks(out, cap, c, cn, first, 1, scratch);
		CHECK(rc == TSR_OK || rc == TSR_E_CORRUPT || rc == TSR_E_UNSUPPORTED ||
		      rc == TSR_E_TOO_SMALL);
	}
}

static void put32(uint8_t *p, int32_t v)
{
	uint32_t u = (uint32_t)v;
	p[0] = (uint8_t)u;
	p[1] = (uint8_t)(u >> 8);
	p[2] = (uint8_t)(u >> 16);
	p[3] = (uint8_t)(u >> 24);
}

/* Header fields out of range, one at a time, on a copy of a valid chunk. */
static void test_header_fields(const uint8_t *c0, size_t cn, int extended)
{
	uint8_t *c = malloc(cn), out[1 << 16];
	struct tsr_blosc_info in;
	CHECK_EQ_INT(tsr_blosc_info(c0, cn, &in), TSR_OK);
	CHECK(!in.memcpyed && !in.special && in.nblocks >= 2);
	size_t cap = sizeof(out);
#define MUTATE(stmt, want)                                                                  \
	do {                                                                                \
		memcpy(c, c0, cn);                                                          \
		stmt;                                                                       \
		int rc_ = tsr_blosc_decode(out, cap, c, cn, NULL, NULL);                    \
		if (rc_ != (want))                                                          \
			fprintf(stderr, "mutation `%s`: rc %d (%s), want %d\n", #stmt, rc_, \
				tsr_errmsg(), want);                                        \
		CHECK_EQ_INT(rc_, want);                                                    \
	} while (0)
	MUTATE(c[0] = 0, TSR_E_CORRUPT);
	MUTATE(c[0] = 7, TSR_E_UNSUPPORTED);
	MUTATE(c[3] = 0, TSR_E_CORRUPT);
	MUTATE(put32(c + 4, -1), TSR_E_CORRUPT);
	MUTATE(put32(c + 4, (int32_t)cap + 1), TSR_E_TOO_SMALL);
	MUTATE(put32(c + 8, 0), TSR_E_CORRUPT);
	MUTATE(put32(c + 8, -5), TSR_E_CORRUPT);
	MUTATE(put32(c + 12, 15), TSR_E_CORRUPT);
	MUTATE(put32(c + 12, (int32_t)cn + 1), TSR_E_CORRUPT);
	MUTATE(put32(c + 12, -1), TSR_E_CORRUPT);
	MUTATE(c[2] = (uint8_t)((c[2] & 0x1f) | 2 << 5), TSR_E_UNSUPPORTED); /* snappy */
	MUTATE(c[2] = (uint8_t)((c[2] & 0x1f) | 5 << 5), TSR_E_UNSUPPORTED);
	MUTATE(c[2] = (uint8_t)((c[2] & 0x1f) | 6 << 5), TSR_E_UNSUPPORTED); /* user codec */
	int hdr = extended ? 32 : 16;
	MUTATE(put32(c + hdr, 0), TSR_E_CORRUPT);               /* block 0 inside the header */
	MUTATE(put32(c + hdr + 4, (int32_t)cn), TSR_E_CORRUPT); /* block 1 at the end */
	MUTATE(put32(c + hdr + 4, -100), TSR_E_CORRUPT);
	int32_t b0 = (int32_t)tsr_le32(c0 + hdr);
	MUTATE(put32(c + b0, (int32_t)cn), TSR_E_CORRUPT); /* stream size past the end */
	MUTATE(put32(c + b0, -300), TSR_E_CORRUPT);        /* run of no byte */
	MUTATE((put32(c + b0, -7), c[b0 + 4] = 0), TSR_E_CORRUPT); /* unknown token */
	/* block table bigger than the chunk: tiny blocks */
	MUTATE(put32(c + 8, 1), TSR_E_CORRUPT);
	if (extended) {
		MUTATE(c[16] = 99, TSR_E_UNSUPPORTED);                    /* unknown filter */
		MUTATE(c[31] |= 0x08, TSR_E_UNSUPPORTED);                 /* lazy chunk */
		MUTATE(c[30] |= 0x01, TSR_E_UNSUPPORTED);                 /* VL blocks */
		MUTATE(c[31] = (uint8_t)((c[31] & 0x8f) | 5 << 4), TSR_E_CORRUPT); /* special 5 */
		MUTATE((c[31] |= 0x01, put32(c + hdr + 4 * (int)in.nblocks, 1 << 30)),
		       TSR_E_CORRUPT); /* dictionary larger than the chunk */
		MUTATE((c[16] = TSR_BLOSC_SHUFFLE, c[17] = TSR_BLOSC_DELTA), TSR_E_UNSUPPORTED);
		MUTATE((c[16] = TSR_BLOSC_DELTA, c[17] = TSR_BLOSC_DELTA), TSR_E_UNSUPPORTED);
	}
#undef MUTATE
	free(c);
}

static void test_corrupt(struct fixture *fx, int nfx, const char *dir)
{
	struct tsr_blosc_scratch *scratch;
	tsr_blosc_scratch_create(&scratch);
	int hv1 = 0, hv2 = 0;
	for (int i = 0; i < nfx; i++) {
		const struct fixture *f = &fx[i];
		/* a spread of codecs, filters and specials; every 7th fixture */
		if (i % 7 != 0 && !f->special && strstr(f->name, "dict") == NULL &&
		    strstr(f->name, "runs") == NULL)
			continue;
		char path[8192];
		size_t cn = 0;
		snprintf(path, sizeof(path), "%s/%s.blosc", dir, f->name);
		uint8_t *c0 = read_file(path, &cn);
		if (!c0)
			continue;
		size_t cap = (size_t)f->nbytes + 64;
		uint8_t *out = malloc(cap), *c = malloc(cn + 1);
		/* every truncation, with and without the header's size patched to match */
		for (size_t len = 0; len < cn; len++) {
			memcpy(c, c0, len);
			CHECK(tsr_blosc_decode(out, cap, c, len, scratch, NULL) != TSR_OK);
			if (len >= 16) {
				put32(c + 12, (int32_t)len);
				decode_any(c, len, out, cap, scratch);
			}
		}
		/* random byte flips */
		for (int it = 0; it < 400; it++) {
			memcpy(c, c0, cn);
			int nflip = 1 + (int)(rnd() % 3);
			for (int k = 0; k < nflip; k++) {
				size_t at = (size_t)(rnd() % cn);
				/* favour the header and block table, where sizes live */
				if (rnd() % 2)
					at = (size_t)(rnd() % (cn < 64 ? cn : 64));
				c[at] ^= (uint8_t)(1 + rnd() % 255);
			}
			decode_any(c, cn, out, cap, scratch);
		}
		if (!f->memcpyed && !f->special && f->nbytes / (f->blocksize ? f->blocksize : 1) >= 2) {
			int ext = f->version >= 3;
			if ((ext && !hv2) || (!ext && !hv1)) {
				test_header_fields(c0, cn, ext);
				hv1 |= !ext;
				hv2 |= ext;
			}
		}
		free(out);
		free(c);
		free(c0);
	}
	CHECK(hv1 && hv2);
	tsr_blosc_scratch_free(scratch);
	printf("corrupt input: %d decodes (%d accepted with the right size)\n", fuzz_runs, fuzz_ok);
}

int main(void)
{
	test_filters();
	test_blosclz();

	char dir[4096];
	struct fixture *fx = NULL;
	int nfx = load_fixtures(&fx, dir, sizeof(dir));
	CHECK(nfx > 200);
	if (nfx > 0) {
		test_fixtures(fx, nfx, dir);
		printf("fixtures: %d chunks, %d blocks decoded one by one\n", nfixture_chunks,
		       nfixture_blocks);
		test_threads(fx, nfx, dir);
		test_corrupt(fx, nfx, dir);
	}
	free(fx);

	char corpus[4096];
	corpus_dir(corpus, sizeof(corpus));
	test_zarr_corpus(corpus);
	test_blosc2_corpus(corpus);
	CHECK_DONE();
}
