/* test_b2nd_memo.c - the one-block memo of b2nd reads (b2nd_memo.h): a read inside one block
 * decodes it once and then reuses it only while the chunk bytes are the same; another chunk
 * (one byte differs), another block, or the packed chunk of a part fetch each get their own
 * values, and one scratch alternating between two arrays never mixes them up. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "codecs/b2nd_blocks.h"
#include "codecs/blosc.h"
#include "core/internal.h"
#include "test_blosc2_frame.h"

#define N 256 /* chunk N x N int32, blocks of B x B: 256 KiB, over the part-fetch minimum */
#define B 32

struct mem_reader {
	const uint8_t *p;
	size_t n;
};

static int mem_read(void *arg, void *dst, size_t nbytes, uint64_t off)
{
	struct mem_reader *m = arg;
	if (off + nbytes > m->n)
		return tsr_error(TSR_E_IO, "read past the chunk");
	memcpy(dst, m->p + off, nbytes);
	return TSR_OK;
}

/* The padded-layout index of element (y, x). */
static size_t at(int y, int x)
{
	int bg = N / B;
	return (size_t)((y / B) * bg + x / B) * B * B + (size_t)((y % B) * B + x % B);
}

/* Element (y, x) of chunk through tsr_b2nd_decode; *dn: bytes the decoder produced. */
static int32_t one(const struct tsr_chunk_ref *ref, const uint8_t *chunk, size_t cn, int y, int x,
		   struct tsr_scratch *s, uint64_t *dn)
{
	struct tsr_chunk_box box = {{y, x}, {y + 1, x + 1}};
	int32_t v = -1;
	int st = tsr_b2nd_decode(&v, sizeof(v), ref, chunk, cn, &box, s, dn);
	CHECK_EQ_INT(st, TSR_OK);
	return v;
}

int main(void)
{
	struct tsr_chunk_ref ref;
	memset(&ref, 0, sizeof(ref));
	ref.ndim = 2;
	ref.codec.id = TSR_CODEC_BLOSC_B2ND;
	ref.codec.elem = TSR_INT32;
	for (int d = 0; d < 2; d++) {
		ref.extent[d] = N;
		ref.blocked.block[d] = B;
		ref.blocked.padded[d] = N;
	}
	ref.npix = (int64_t)N * N;
	size_t nbytes = (size_t)N * N * 4, cap = 2 * nbytes + 65536;
	int32_t *la = malloc(nbytes), *lb = malloc(nbytes);
	uint8_t *ca = malloc(cap), *cb = malloc(cap);
	for (size_t i = 0; i < (size_t)N * N; i++)
		la[i] = (int32_t)(i % 1000) * 7 + (int32_t)(i % 13 == 0 ? i : 0);
	memcpy(lb, la, nbytes);
	lb[at(3, 5)] = -123456; /* B differs from A in one element of block 0 */
	size_t na = b2w_chunk(ca, (const uint8_t *)la, nbytes, (size_t)B * B * 4, 4, 0);
	size_t nb = b2w_chunk(cb, (const uint8_t *)lb, nbytes, (size_t)B * B * 4, 4, 0);
	struct tsr_scratch s = {0};
	uint64_t dn;

	/* the first read of a block decodes it; the same read again does not */
	CHECK_EQ_INT(one(&ref, ca, na, 3, 5, &s, &dn), la[at(3, 5)]);
	CHECK_EQ_INT(dn, B * B * 4);
	CHECK_EQ_INT(one(&ref, ca, na, 3, 5, &s, &dn), la[at(3, 5)]);
	CHECK_EQ_INT(dn, 0);
	/* another element of the same block: from the memo too */
	CHECK_EQ_INT(one(&ref, ca, na, 31, 0, &s, &dn), la[at(31, 0)]);
	CHECK_EQ_INT(dn, 0);
	/* alternating with B (same geometry, one element differs): each its own values */
	for (int k = 0; k < 3; k++) {
		CHECK_EQ_INT(one(&ref, cb, nb, 3, 5, &s, &dn), -123456);
		CHECK_EQ_INT(dn, B * B * 4);
		CHECK_EQ_INT(one(&ref, ca, na, 3, 5, &s, &dn), la[at(3, 5)]);
		CHECK_EQ_INT(dn, B * B * 4);
	}
	/* another block decodes, and its values are its own */
	CHECK_EQ_INT(one(&ref, ca, na, 100, 200, &s, &dn), la[at(100, 200)]);
	CHECK_EQ_INT(dn, B * B * 4);
	CHECK_EQ_INT(one(&ref, ca, na, 101, 201, &s, &dn), la[at(101, 201)]);
	CHECK_EQ_INT(dn, 0);
	/* the packed chunk of a part fetch holds the same block bytes: the memo serves it */
	struct tsr_chunk_box box = {{101, 201}, {102, 202}};
	struct mem_reader mr = {ca, na};
	unsigned char *buf = NULL;
	size_t bcap = 0;
	uint64_t got = 0;
	ref.nbytes = na;
	CHECK_EQ_INT(tsr_chunk_fetch_part(&ref, &box, mem_read, &mr, &buf, &bcap, &got), TSR_OK);
	CHECK(got > 0 && got < na);
	if (got) {
		CHECK_EQ_INT(one(&ref, buf, (size_t)got, 101, 201, &s, &dn), la[at(101, 201)]);
		CHECK_EQ_INT(dn, 0);
		/* and B's packed chunk of the same box is B's block, decoded */
		struct mem_reader mb = {cb, nb};
		ref.nbytes = nb;
		box = (struct tsr_chunk_box){{3, 5}, {4, 6}};
		CHECK_EQ_INT(tsr_chunk_fetch_part(&ref, &box, mem_read, &mb, &buf, &bcap, &got), TSR_OK);
		CHECK_EQ_INT(one(&ref, buf, (size_t)got, 3, 5, &s, &dn), -123456);
		CHECK_EQ_INT(dn, B * B * 4);
	}
	/* a box over two blocks decodes as before, and leaves the memo alone */
	struct tsr_chunk_box two = {{3, 30}, {4, 34}};
	int32_t v[4];
	CHECK_EQ_INT(tsr_b2nd_decode(v, sizeof(v), &ref, ca, na, &two, &s, &dn), TSR_OK);
	for (int i = 0; i < 4; i++)
		CHECK_EQ_INT(v[i], la[at(3, 30 + i)]);
	CHECK_EQ_INT(dn, 2 * B * B * 4);
	CHECK_EQ_INT(one(&ref, cb, nb, 3, 5, &s, &dn), -123456);
	CHECK_EQ_INT(dn, 0);
	free(buf);
	tsr_scratch_free(&s);
	free(la), free(lb), free(ca), free(cb);
	CHECK_DONE();
}
