/* gpu_corrupt.h - corrupt-stream batches for the inflate tests: made from valid cases, judged against libdeflate. */
#ifndef TSR_GPU_CORRUPT_H
#define TSR_GPU_CORRUPT_H

#include "gpu_test_util.h"
#include "tsr_cuda.h"

struct tu_bad {
	unsigned char *z;
	size_t zn;
	int framing;
	size_t cap;
	int hcrc;               /* gzip FHCRC present: we check it, libdeflate does not */
	int must_fail;          /* hand-made defect */
	char what[96];
};

/*
 * Variants of every stride-th valid single-member case of at most 64 KiB + 1: truncated,
 * bit-flipped (anywhere, or in the first 16 bytes), bytes overwritten, or given too small an
 * output capacity; then the hand-made raw streams (each must fail).
 */
static inline struct tu_bad *tu_make_bad(const struct tu_case *cs, size_t ncases, size_t stride,
				  size_t *nbad)
{
	size_t cap = 64, n = 0;
	struct tu_bad *b = (struct tu_bad *)tu_xmalloc(cap * sizeof *b);
	struct tu_rng r = tu_seed(777);
	char name[160];

	for (size_t i = 0; i < ncases; i += stride) {
		const struct tu_case *c = &cs[i];
		if (c->comp == TU_MULTI || c->size > 65537 || c->zn == 0)
			continue;
		for (int v = 0; v < 5; v++) {
			if (n + 2 > cap) {
				cap *= 2;
				b = (struct tu_bad *)realloc(b, cap * sizeof *b);
			}
			struct tu_bad *x = &b[n++];
			memset(x, 0, sizeof *x);
			x->z = (unsigned char *)tu_xmalloc(c->zn);
			memcpy(x->z, c->z, c->zn);
			x->zn = c->zn;
			x->framing = c->framing;
			x->cap = c->cap;
			x->hcrc = c->framing == TU_GZIP && (c->z[3] & 2);
			tu_case_name(c, name, sizeof name);
			switch (v) {
			case 0:
				x->zn = tu_next(&r) % c->zn;
				snprintf(x->what, sizeof x->what, "cut at %zu: %.60s", x->zn, name);
				break;
			case 1: {
				int k = 1 + (int)(tu_next(&r) % 3);
				for (int j = 0; j < k; j++) {
					size_t bit = tu_next(&r) % (8 * c->zn);
					x->z[bit >> 3] ^= (unsigned char)(1u << (bit & 7));
				}
				snprintf(x->what, sizeof x->what, "%d flips: %.60s", k, name);
				break;
			}
			case 2: {
				size_t lim = c->zn < 16 ? c->zn : 16, bit = tu_next(&r) % (8 * lim);
				x->z[bit >> 3] ^= (unsigned char)(1u << (bit & 7));
				snprintf(x->what, sizeof x->what, "head flip %zu: %.60s", bit, name);
				break;
			}
			case 3: {
				size_t at = tu_next(&r) % c->zn, len = 1 + tu_next(&r) % 8;
				for (size_t j = at; j < at + len && j < c->zn; j++)
					x->z[j] = (unsigned char)tu_next(&r);
				snprintf(x->what, sizeof x->what, "junk at %zu: %.60s", at, name);
				break;
			}
			default:
				x->cap = c->size ? tu_next(&r) % c->size : 0;
				snprintf(x->what, sizeof x->what, "cap %zu: %.60s", x->cap, name);
				break;
			}
		}
	}
	for (int k = 0; k < TU_NCRAFTED; k++) {
		const char *what;
		if (n + 2 > cap) {
			cap *= 2;
			b = (struct tu_bad *)realloc(b, cap * sizeof *b);
		}
		struct tu_bad *x = &b[n++];
		memset(x, 0, sizeof *x);
		x->z = (unsigned char *)tu_xmalloc(64);
		x->zn = tu_crafted(k, x->z, &what);
		x->framing = TU_RAW;
		x->cap = k == TU_NCRAFTED - 1 ? 4 : 1000;
		x->must_fail = 1;
		snprintf(x->what, sizeof x->what, "crafted: %s", what);
	}
	*nbad = n;
	return b;
}

static inline void tu_free_bad(struct tu_bad *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(b[i].z);
	free(b);
}

/* zlib's verdict on a stream with output capacity cap: 1 if it decodes completely. */
static inline int tu_zlib_accepts(const struct tu_bad *x)
{
	z_stream zs;
	unsigned char *out = (unsigned char *)tu_xmalloc(x->cap + 1);
	memset(&zs, 0, sizeof zs);
	int wb = x->framing == TU_RAW ? -15 : x->framing == TU_ZLIB ? 15 : 31;
	if (inflateInit2(&zs, wb) != Z_OK)
		exit(2);
	zs.next_in = x->z;
	zs.avail_in = (uInt)x->zn;
	zs.next_out = out;
	zs.avail_out = (uInt)x->cap;
	int r = inflate(&zs, Z_FINISH);
	inflateEnd(&zs);
	free(out);
	return r == Z_STREAM_END;
}

/*
 * Judges one decode of a corrupt stream: it must not write past cap (checked by the caller's
 * guard), report at most cap bytes, fail when libdeflate fails (or when hand-made to fail),
 * and, when both succeed, give libdeflate's bytes. Returns 0 when acceptable. *disagree_ok
 * counts the allowed disagreements, where we reject what libdeflate accepts: a gzip header CRC
 * that only we check, and what zlib rejects too (libdeflate before 1.16 accepted, e.g., a
 * code-length repeat running past the last length; 1.16 rejects it "for consistency with
 * zlib", as we do).
 */
static inline int tu_judge_bad(struct libdeflate_decompressor *d, const struct tu_bad *x, int st,
			const unsigned char *out, size_t got, int *disagree_ok)
{
	unsigned char *ref = (unsigned char *)tu_xmalloc(x->cap);
	size_t rgot;
	int rst = tu_ref_decode(d, x->framing, x->z, x->zn, ref, x->cap, &rgot);
	int bad = 0;
	if (got > x->cap) {
		fprintf(stderr, "%s: reports %zu bytes, cap %zu\n", x->what, got, x->cap);
		bad = 1;
	} else if (x->must_fail && st == TSR_CUDA_INFLATE_OK) {
		fprintf(stderr, "%s: accepted\n", x->what);
		bad = 1;
	} else if ((st == TSR_CUDA_INFLATE_OK) != (rst == 0)) {
		if (st != TSR_CUDA_INFLATE_OK &&
		    ((x->hcrc && st == TSR_CUDA_INFLATE_E_CHECKSUM) || !tu_zlib_accepts(x))) {
			(*disagree_ok)++;
		} else {
			fprintf(stderr, "%s: status %d (%s) but libdeflate %d\n", x->what, st,
				tsr_cuda_inflate_status_name(st), rst);
			bad = 1;
		}
	} else if (st == TSR_CUDA_INFLATE_OK && (got != rgot || memcmp(out, ref, got))) {
		fprintf(stderr, "%s: accepted like libdeflate but decodes differently\n", x->what);
		bad = 1;
	}
	free(ref);
	return bad;
}

#endif
