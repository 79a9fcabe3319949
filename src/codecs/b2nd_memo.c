/* b2nd_memo.c - a thread's last decoded Blosc2 block, reused when the same bytes come again. */
#include <stdlib.h>
#include <string.h>

#include "b2nd_memo.h"

/* Blocks larger than this (decoded) are not kept: the memo would hold that much, and its
 * stored bytes, per worker for as long as the context lives. */
#define TSR_B2ND_MEMO_MAX_NBYTES ((int64_t)32 << 20)

struct tsr_b2nd_memo {
	uint8_t *key;   /* the spans below, back to back */
	size_t key_n, key_cap;
	uint8_t *out;   /* the decoded block */
	size_t out_n, out_cap;
	int64_t b;
	int valid;
};

/* The bytes that decide block b's decoded values. */
struct memo_spans {
	const uint8_t *p[4];
	size_t n[4];
	size_t total;
};

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int spans_of(const struct tsr_blosc_info *in, const uint8_t *src, int64_t b,
		    struct memo_spans *sp)
{
	struct tsr_blosc_stream streams[TSR_BLOSC_MAX_STREAMS];
	int ns;
	if (tsr_blosc_block_streams(in, src, b, streams, &ns))
		return -1;
	uint64_t start = rd32(src + in->header_nbytes + 4 * b), end = start;
	for (int j = 0; j < ns; j++) {
		const struct tsr_blosc_stream *s = &streams[j];
		uint64_t e = s->src + (s->kind == TSR_BLOSC_STREAM_CODED ? s->csize
				       : s->kind == TSR_BLOSC_STREAM_COPY ? s->n
				       : s->value != 0); /* a run's one token byte */
		end = e > end ? e : end;
	}
	memset(sp, 0, sizeof(*sp));
	sp->p[0] = src; /* version .. blocksize */
	sp->n[0] = 12;
	sp->p[1] = src + 16; /* the extended header: filters, codec, flags */
	sp->n[1] = (size_t)in->header_nbytes - 16;
	if (in->use_dict) {
		sp->p[2] = src + in->dict_offset;
		sp->n[2] = (size_t)in->dict_nbytes;
	}
	sp->p[3] = src + start;
	sp->n[3] = (size_t)(end - start);
	for (int i = 0; i < 4; i++)
		sp->total += sp->n[i];
	return 0;
}

static int matches(const struct tsr_b2nd_memo *m, const struct memo_spans *sp, int64_t b)
{
	if (!m->valid || m->b != b || m->key_n != sp->total)
		return 0;
	size_t at = 0;
	for (int i = 0; i < 4; i++) {
		if (sp->n[i] && memcmp(m->key + at, sp->p[i], sp->n[i]))
			return 0;
		at += sp->n[i];
	}
	return 1;
}

static int grow(uint8_t **p, size_t *cap, size_t n)
{
	if (*cap >= n)
		return 0;
	free(*p);
	*p = malloc(n + 64);
	*cap = *p ? n : 0;
	return *p ? 0 : -1;
}

int tsr_b2nd_memo_block(const struct tsr_blosc_info *in, const void *src, size_t src_nbytes,
			int64_t b, struct tsr_scratch *s, uint8_t **run_ret, uint64_t *decoded_ret)
{
	struct tsr_b2nd_memo *m = s->b2memo;
	struct memo_spans sp;
	if (in->blocksize > TSR_B2ND_MEMO_MAX_NBYTES)
		return 1;
	for (int i = 0; i < TSR_BLOSC_MAX_FILTERS; i++)
		if (in->filters[i] == TSR_BLOSC_DELTA)
			return 1;
	if (!m && !(m = s->b2memo = calloc(1, sizeof(*m))))
		return 1;
	if (b < 0 || b >= in->nblocks || spans_of(in, src, b, &sp))
		return 1; /* the usual decode says what is wrong */
	if (matches(m, &sp, b)) {
		*run_ret = m->out;
		return TSR_OK;
	}
	size_t n = (size_t)(b == in->nblocks - 1 ? in->last_block_nbytes : in->blocksize);
	m->valid = 0;
	if (grow(&m->out, &m->out_cap, n) || grow(&m->key, &m->key_cap, sp.total))
		return 1;
	int st = tsr_blosc_decode_blocks(m->out, n, src, src_nbytes, b, 1, s->blosc);
	if (st)
		return st;
	size_t at = 0;
	for (int i = 0; i < 4; i++) {
		if (sp.n[i]) /* (an absent dictionary's span has no pointer) */
			memcpy(m->key + at, sp.p[i], sp.n[i]);
		at += sp.n[i];
	}
	m->key_n = sp.total;
	m->out_n = n;
	m->b = b;
	m->valid = 1;
	*decoded_ret += n;
	*run_ret = m->out;
	return TSR_OK;
}

void tsr_b2nd_memo_free(void *memo)
{
	struct tsr_b2nd_memo *m = memo;
	if (!m)
		return;
	free(m->key);
	free(m->out);
	free(m);
}
