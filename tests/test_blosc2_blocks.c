/* test_blosc2_blocks.c - the b2nd block layout codec alone: for random chunk geometries (padded
 * edge chunks, row layouts, 1-4 axes), random boxes decode to what the layout says, whole chunks
 * too, and a part fetch (blocks stored out of order, as threaded writers leave them) packs a
 * chunk that decodes the same box; plus special chunks (zeros, NaN, repeated value, uninit),
 * memcpyed chunks, big-endian dtypes and the chunk header's BIGENDIAN flag. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "codecs/b2nd_blocks.h"
#include "codecs/blosc.h"
#include "core/internal.h"
#include "test_blosc2_frame.h"

static uint64_t seed = 42;

static uint64_t rnd(void)
{
	uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int64_t rr(int64_t lo, int64_t hi) /* [lo, hi] */
{
	return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}

struct mem_reader {
	const uint8_t *p;
	size_t n;
	int reads;
	size_t bytes;
};

static int mem_read(void *arg, void *dst, size_t nbytes, uint64_t off)
{
	struct mem_reader *m = arg;
	if (off + nbytes > m->n)
		return tsr_error(TSR_E_IO, "read past the chunk");
	memcpy(dst, m->p + off, nbytes);
	m->reads++;
	m->bytes += nbytes;
	return TSR_OK;
}

/* The element at chunk-local position x (in the extent) from the padded layout. */
static size_t layout_index(const struct tsr_chunk_ref *ref, const int64_t *x)
{
	int64_t b = 0, w = 0, bn = 1;
	for (int d = 0; d < ref->ndim; d++) {
		int64_t bg = ref->blocked.padded[d] / ref->blocked.block[d];
		b = b * bg + x[d] / ref->blocked.block[d];
		w = w * ref->blocked.block[d] + x[d] % ref->blocked.block[d];
		bn *= ref->blocked.block[d];
	}
	return (size_t)(b * bn + w);
}

/* Compares out (C order over the box) with the layout's values at the box. */
static int check_box(const struct tsr_chunk_ref *ref, const struct tsr_chunk_box *box,
		     const uint8_t *layout, const uint8_t *out, size_t w, int swap)
{
	int64_t x[8];
	int nd = ref->ndim;
	for (int d = 0; d < nd; d++)
		x[d] = box->lo[d];
	for (size_t o = 0;; o++) {
		const uint8_t *want = layout + layout_index(ref, x) * w;
		for (size_t k = 0; k < w; k++)
			if (out[o * w + k] != want[swap ? w - 1 - k : k])
				return 0;
		int d = nd - 1;
		for (; d >= 0; d--) {
			if (++x[d] < box->hi[d])
				break;
			x[d] = box->lo[d];
		}
		if (d < 0)
			return 1;
	}
}

static void test_random_layouts(void)
{
	struct tsr_scratch s = {0};
	int ncases = 0, nparts = 0, nboxes = 0;
	for (int c = 0; c < 120; c++) {
		struct tsr_chunk_ref ref;
		memset(&ref, 0, sizeof(ref));
		int nd = (int)rr(1, 4), big = c % 3 == 0, rows = c % 5 == 1;
		size_t w = (size_t)(int[]){1, 2, 4, 8}[rr(big ? 2 : 0, 3)];
		enum tsr_dtype t[] = {TSR_UINT8, TSR_INT16, TSR_INT32, TSR_INT64};
		ref.ndim = nd;
		ref.codec.id = TSR_CODEC_BLOSC_B2ND;
		ref.codec.elem = t[w == 1 ? 0 : w == 2 ? 1 : w == 4 ? 2 : 3];
		ref.codec.big_endian = c % 7 == 3 && w > 1;
		int64_t padn = 1, blkn = 1;
		for (int d = 0; d < nd; d++) {
			/* big chunks (over 64 KiB stored) take the part-fetch path */
			int64_t top = big ? (int64_t[]){200000, 500, 70, 24}[nd - 1] : 12;
			int64_t chunk = rr(big ? top / 2 : 1, top);
			int64_t block = rows && d > 0 ? chunk : rr(1, chunk);
			ref.blocked.block[d] = (int32_t)block;
			ref.blocked.padded[d] = (int32_t)((chunk + block - 1) / block * block);
			/* an edge chunk holds less than the chunk shape; row layouts only on axis 0 */
			ref.extent[d] = rows && d > 0 ? ref.blocked.padded[d] : rr(1, chunk);
			padn *= ref.blocked.padded[d];
			blkn *= block;
		}
		ref.npix = 1;
		for (int d = 0; d < nd; d++)
			ref.npix *= ref.extent[d];
		size_t nbytes = (size_t)padn * w;
		uint8_t *layout = malloc(nbytes), *chunk = malloc(2 * nbytes + 64 * 1024);
		/* compressible but not constant */
		for (size_t i = 0; i < nbytes; i++)
			layout[i] = (uint8_t)((i / 3) % 251 + (rnd() % 16 == 0 ? rnd() : 0));
		size_t cn = b2w_chunk(chunk, layout, nbytes, (size_t)blkn * w, (int)w, c % 9 == 5);
		ncases++;

		/* whole chunk */
		uint8_t *out = malloc((size_t)ref.npix * w + 1);
		uint64_t dn;
		struct tsr_chunk_box all;
		for (int d = 0; d < nd; d++)
			all.lo[d] = 0, all.hi[d] = ref.extent[d];
		int st = tsr_b2nd_decode(out, (size_t)ref.npix * w, &ref, chunk, cn, NULL, &s, &dn);
		CHECK_EQ_INT(st, TSR_OK);
		if (st == TSR_OK && !check_box(&ref, &all, layout, out, w, ref.codec.big_endian)) {
			fprintf(stderr, "case %d: whole chunk differs\n", c);
			CHECK(0);
		}
		/* random boxes, directly and through a part fetch */
		for (int k = 0; k < 12; k++) {
			struct tsr_chunk_box box;
			size_t bn = 1;
			for (int d = 0; d < nd; d++) {
				int64_t a = rr(0, ref.extent[d] - 1);
				int64_t len = k % 2 ? 1 : rr(1, ref.extent[d] - a);
				box.lo[d] = a;
				box.hi[d] = a + len;
				bn *= (size_t)len;
			}
			uint8_t *bo = malloc(bn * w);
			st = tsr_b2nd_decode(bo, bn * w, &ref, chunk, cn, &box, &s, &dn);
			CHECK_EQ_INT(st, TSR_OK);
			if (st == TSR_OK && !check_box(&ref, &box, layout, bo, w, ref.codec.big_endian)) {
				fprintf(stderr, "case %d box %d: differs\n", c, k);
				CHECK(0);
			}
			nboxes++;
			struct mem_reader mr = {chunk, cn, 0, 0};
			unsigned char *buf = NULL;
			size_t cap = 0;
			uint64_t got = 0;
			ref.nbytes = cn;
			st = tsr_chunk_fetch_part(&ref, &box, mem_read, &mr, &buf, &cap, &got);
			CHECK_EQ_INT(st, TSR_OK);
			if (got) {
				nparts++;
				CHECK(got < cn);
				memset(bo, 0xee, bn * w);
				st = tsr_b2nd_decode(bo, bn * w, &ref, buf, (size_t)got, &box, &s, &dn);
				CHECK_EQ_INT(st, TSR_OK);
				if (st == TSR_OK &&
				    !check_box(&ref, &box, layout, bo, w, ref.codec.big_endian)) {
					fprintf(stderr, "case %d box %d: packed chunk differs\n", c, k);
					CHECK(0);
				}
			}
			free(buf);
			free(bo);
		}
		free(out);
		free(layout);
		free(chunk);
	}
	printf("layouts: %d chunks, %d boxes, %d part fetches\n", ncases, nboxes, nparts);
	CHECK(nparts > 50);
	tsr_scratch_free(&s);
}

/* A special chunk: header only (and the value). */
static size_t special_chunk(uint8_t *dst, int kind, int typesize, int32_t nbytes, const void *v)
{
	memset(dst, 0, 32);
	dst[0] = 5;
	dst[1] = 1;
	dst[2] = 0x05 | 0x10 | 0x02;
	dst[3] = (uint8_t)typesize;
	b2w_le32(dst + 4, (uint32_t)nbytes);
	b2w_le32(dst + 8, (uint32_t)nbytes);
	dst[31] = (uint8_t)(kind << 4);
	size_t n = 32 + (kind == 3 ? (size_t)typesize : 0);
	if (kind == 3)
		memcpy(dst + 32, v, (size_t)typesize);
	b2w_le32(dst + 12, (uint32_t)n);
	return n;
}

static void test_specials_and_order(void)
{
	struct tsr_scratch s = {0};
	struct tsr_chunk_ref ref;
	memset(&ref, 0, sizeof(ref));
	ref.ndim = 2;
	ref.codec.id = TSR_CODEC_BLOSC_B2ND;
	ref.extent[0] = 7, ref.extent[1] = 9;
	ref.blocked.padded[0] = 8, ref.blocked.padded[1] = 9;
	ref.blocked.block[0] = 4, ref.blocked.block[1] = 3;
	ref.npix = 63;
	struct tsr_chunk_box box = {{2, 3}, {5, 8}};
	uint8_t chunk[64], out[63 * 8];
	uint64_t dn;

	/* zeros and uninitialised: zeros */
	for (int kind = 1; kind <= 4; kind += 3) {
		ref.codec.elem = TSR_INT32;
		size_t n = special_chunk(chunk, kind, 4, 8 * 9 * 4, NULL);
		memset(out, 0x55, sizeof(out));
		CHECK_EQ_INT(tsr_b2nd_decode(out, 15 * 4, &ref, chunk, n, &box, &s, &dn), TSR_OK);
		for (int i = 0; i < 15 * 4; i++)
			CHECK_EQ_INT(out[i], 0);
	}
	/* NaN, float32 and float64, also in big-endian arrays (a NaN chunk means NaN) */
	for (int be = 0; be < 2; be++) {
		ref.codec.big_endian = be;
		ref.codec.elem = TSR_FLOAT32;
		size_t n = special_chunk(chunk, 2, 4, 8 * 9 * 4, NULL);
		CHECK_EQ_INT(tsr_b2nd_decode(out, 63 * 4, &ref, chunk, n, NULL, &s, &dn), TSR_OK);
		float f;
		memcpy(&f, out + 62 * 4, 4);
		CHECK(isnan(f));
		ref.codec.elem = TSR_FLOAT64;
		n = special_chunk(chunk, 2, 8, 8 * 9 * 8, NULL);
		CHECK_EQ_INT(tsr_b2nd_decode(out, 15 * 8, &ref, chunk, n, &box, &s, &dn), TSR_OK);
		double g;
		memcpy(&g, out + 14 * 8, 8);
		CHECK(isnan(g));
	}
	/* a repeated value: the array's bytes (swapped for a big-endian dtype) */
	ref.codec.elem = TSR_INT16;
	ref.codec.big_endian = 1;
	uint8_t v[2] = {0x12, 0x34};
	size_t n = special_chunk(chunk, 3, 2, 8 * 9 * 2, v);
	CHECK_EQ_INT(tsr_b2nd_decode(out, 15 * 2, &ref, chunk, n, &box, &s, &dn), TSR_OK);
	int16_t h;
	memcpy(&h, out + 28, 2);
	CHECK_EQ_INT(h, 0x1234);
	/* a special chunk of the wrong size for the layout is corrupt */
	n = special_chunk(chunk, 1, 2, 100, NULL);
	CHECK_EQ_INT(tsr_b2nd_decode(out, 15 * 2, &ref, chunk, n, &box, &s, &dn), TSR_E_CORRUPT);

	/* plain super-chunks: the BIGENDIAN flag of the chunk header decides */
	memset(&ref, 0, sizeof(ref));
	ref.ndim = 1;
	ref.codec.id = TSR_CODEC_BLOSC_B2ND;
	ref.codec.elem = TSR_INT32;
	ref.codec.be_from_chunk = 1;
	ref.extent[0] = 1000;
	ref.blocked.padded[0] = ref.blocked.block[0] = 1000;
	ref.npix = 1000;
	int32_t vals[1000];
	for (int i = 0; i < 1000; i++)
		vals[i] = i * 1000 + 7;
	uint8_t big[8192];
	size_t cn = b2w_chunk(big, (const uint8_t *)vals, sizeof(vals), 512, 4, 0);
	int32_t got[1000];
	CHECK_EQ_INT(tsr_b2nd_decode(got, sizeof(got), &ref, big, cn, NULL, &s, &dn), TSR_OK);
	CHECK_EQ_INT(got[999], 999007);
	big[31] |= 0x02;
	struct tsr_chunk_box one = {{500}, {501}};
	CHECK_EQ_INT(tsr_b2nd_decode(got, 4, &ref, big, cn, &one, &s, &dn), TSR_OK);
	CHECK_EQ_INT(got[0], (int32_t)__builtin_bswap32(500007));
	tsr_scratch_free(&s);
}

int main(void)
{
	test_random_layouts();
	test_specials_and_order();
	CHECK_DONE();
}
