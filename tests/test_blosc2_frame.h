/* test_blosc2_frame.h - a small Blosc2 frame writer for the C tests: b2nd arrays of LZ4 chunks
 * (no filters, one stream per block), chunk by chunk in the b2nd block layout, with optional
 * special chunks in the index and raw (memcpyed) chunks; laid out as c-blosc2 writes frames. */
#ifndef TSR_TEST_BLOSC2_FRAME_H
#define TSR_TEST_BLOSC2_FRAME_H

#include <lz4.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct b2w_array {
	int ndim;
	int64_t shape[8], chunks[8], blocks[8];
	int typesize;
	const char *dtype;      /* "<f4" */
	void *data;             /* C order, shape; the chunks written as specials are zeroed */
	int special_every;      /* > 0: chunk i with i % special_every == 1 is a zeros index entry */
	int raw_every;          /* > 0: chunk i with i % raw_every == 2 is stored memcpyed */
};

static inline void b2w_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void b2w_be(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

/* A Blosc2 chunk of nbytes at src: LZ4 blocks of blocksize (raw ones when incompressible), or
 * all raw after the header when memcpyed. Returns its size; dst needs nbytes + 4 * nblocks +
 * 4 * nblocks + 64 + LZ4 bound. */
static inline size_t b2w_chunk(uint8_t *dst, const uint8_t *src, size_t nbytes, size_t blocksize,
			int typesize, int memcpyed)
{
	size_t nblocks = (nbytes + blocksize - 1) / blocksize, p;
	memset(dst, 0, 32);
	dst[0] = 5;
	dst[1] = 1;
	dst[2] = (uint8_t)(0x05 | 0x10 | (1 << 5) | (memcpyed ? 0x02 : 0));
	dst[3] = (uint8_t)typesize;
	b2w_le32(dst + 4, (uint32_t)nbytes);
	b2w_le32(dst + 8, (uint32_t)blocksize);
	if (memcpyed) {
		memcpy(dst + 32, src, nbytes);
		b2w_le32(dst + 12, (uint32_t)(32 + nbytes));
		return 32 + nbytes;
	}
	p = 32 + 4 * nblocks;
	/* blocks written last-to-first, as threaded writers may: readers must use bstarts */
	for (size_t k = nblocks; k-- > 0;) {
		size_t len = k == nblocks - 1 ? nbytes - k * blocksize : blocksize;
		b2w_le32(dst + 32 + 4 * k, (uint32_t)p);
		int c = LZ4_compress_default((const char *)src + k * blocksize, (char *)dst + p + 4,
					     (int)len, LZ4_compressBound((int)len));
		if (c <= 0 || (size_t)c >= len) {
			memcpy(dst + p + 4, src + k * blocksize, len);
			c = (int)len;
		}
		b2w_le32(dst + p, (uint32_t)c);
		p += 4 + (size_t)c;
	}
	b2w_le32(dst + 12, (uint32_t)p);
	return p;
}

/* Writes the array as a contiguous frame at path; returns 0 on success. */
static inline int b2w_write(const char *path, const struct b2w_array *a)
{
	int nd = a->ndim;
	int64_t pad[8], cgrid[8], nchunks = 1, padn = 1, blkn = 1;
	for (int d = 0; d < nd; d++) {
		pad[d] = (a->chunks[d] + a->blocks[d] - 1) / a->blocks[d] * a->blocks[d];
		cgrid[d] = (a->shape[d] + a->chunks[d] - 1) / a->chunks[d];
		nchunks *= cgrid[d];
		padn *= pad[d];
		blkn *= a->blocks[d];
	}
	size_t ts = (size_t)a->typesize, chunk_nbytes = (size_t)padn * ts,
	       block_nbytes = (size_t)blkn * ts, nblocks = (size_t)(padn / blkn);
	size_t cap = (size_t)nchunks * (chunk_nbytes + 64 + 8 * nblocks + (size_t)LZ4_compressBound((int)chunk_nbytes));
	uint8_t *chunks = malloc(cap), *tmp = malloc(chunk_nbytes);
	int64_t *offs = malloc((size_t)nchunks * 8);
	size_t cbytes = 0;
	uint8_t *data = a->data;
	for (int64_t c = 0; c < nchunks; c++) {
		int64_t cc[8], rem = c;
		for (int d = nd - 1; d >= 0; d--) {
			cc[d] = rem % cgrid[d];
			rem /= cgrid[d];
		}
		int special = a->special_every > 0 && c % a->special_every == 1;
		/* the chunk in b2nd block layout, zero padded */
		memset(tmp, 0, chunk_nbytes);
		int64_t x[8] = {0};
		for (;;) {
			int64_t g = 0, b = 0, w = 0, inside = 1;
			for (int d = 0; d < nd; d++) {
				int64_t gx = cc[d] * a->chunks[d] + x[d];
				inside &= gx < a->shape[d] && x[d] < a->chunks[d];
				g = g * a->shape[d] + gx;
				b = b * (pad[d] / a->blocks[d]) + x[d] / a->blocks[d];
				w = w * a->blocks[d] + x[d] % a->blocks[d];
			}
			if (inside && special)
				memset(data + (size_t)g * ts, 0, ts);
			else if (inside)
				memcpy(tmp + (size_t)(b * blkn + w) * ts, data + (size_t)g * ts, ts);
			int d = nd - 1;
			for (; d >= 0; d--) {
				if (++x[d] < pad[d])
					break;
				x[d] = 0;
			}
			if (d < 0)
				break;
		}
		if (special) {
			offs[c] = (int64_t)((1ull << 63) | (1ull << 56)); /* zeros */
			continue;
		}
		offs[c] = (int64_t)cbytes;
		cbytes += b2w_chunk(chunks + cbytes, tmp, chunk_nbytes, block_nbytes, a->typesize,
				    a->raw_every > 0 && c % a->raw_every == 2);
	}
	/* the index: int64 offsets, a chunk of its own */
	uint8_t *index = malloc((size_t)nchunks * 8 * 2 + 256);
	size_t icb = b2w_chunk(index, (const uint8_t *)offs, (size_t)nchunks * 8,
			       (size_t)nchunks * 8, 8, 0);
	/* header: fixed fields, then the b2nd metalayer */
	uint8_t meta[512], hdr[1024];
	size_t m = 0, dl = strlen(a->dtype);
	meta[m++] = 0x97;
	meta[m++] = 0;
	meta[m++] = (uint8_t)nd;
	meta[m++] = (uint8_t)(0x90 + nd);
	for (int d = 0; d < nd; d++, m += 9)
		meta[m] = 0xd3, b2w_be(meta + m + 1, (uint64_t)a->shape[d], 8);
	meta[m++] = (uint8_t)(0x90 + nd);
	for (int d = 0; d < nd; d++, m += 5)
		meta[m] = 0xd2, b2w_be(meta + m + 1, (uint64_t)a->chunks[d], 4);
	meta[m++] = (uint8_t)(0x90 + nd);
	for (int d = 0; d < nd; d++, m += 5)
		meta[m] = 0xd2, b2w_be(meta + m + 1, (uint64_t)a->blocks[d], 4);
	meta[m++] = 0;
	meta[m++] = 0xdb;
	b2w_be(meta + m, dl, 4);
	memcpy(meta + m + 4, a->dtype, dl);
	m += 4 + dl;
	size_t h = 0;
	memset(hdr, 0, sizeof(hdr));
	hdr[h++] = 0x9e;
	hdr[h++] = 0xa8;
	memcpy(hdr + h, "b2frame", 8);
	h += 8;
	size_t at_hlen = h + 1, at_flen = h + 6;
	hdr[h] = 0xd2, h += 5;
	hdr[h] = 0xcf, h += 9;
	hdr[h++] = 0xa4;
	hdr[h++] = 0x12; /* version 2, 64-bit offsets */
	hdr[h++] = 0;    /* contiguous */
	hdr[h++] = 0x51; /* lz4, clevel 5 */
	hdr[h++] = 3;
	hdr[h] = 0xd3, b2w_be(hdr + h + 1, (uint64_t)nchunks * chunk_nbytes, 8), h += 9;
	hdr[h] = 0xd3, b2w_be(hdr + h + 1, cbytes, 8), h += 9;
	hdr[h] = 0xd2, b2w_be(hdr + h + 1, ts, 4), h += 5;
	hdr[h] = 0xd2, b2w_be(hdr + h + 1, block_nbytes, 4), h += 5;
	hdr[h] = 0xd2, b2w_be(hdr + h + 1, chunk_nbytes, 4), h += 5;
	hdr[h] = 0xd1, b2w_be(hdr + h + 1, 1, 2), h += 3;
	hdr[h] = 0xd1, b2w_be(hdr + h + 1, 1, 2), h += 3;
	hdr[h++] = 0xc2;
	hdr[h++] = 0xd8;
	hdr[h++] = 6; /* nfilters; filters and metas all 0 */
	h += 16;
	/* metalayers: [index size, {"b2nd": offset}, [bin32]] */
	size_t idx0 = h;
	hdr[h++] = 0x93;
	hdr[h] = 0xcd, h += 3;
	hdr[h++] = 0xde, hdr[h++] = 0, hdr[h++] = 1;
	hdr[h++] = 0xa4;
	memcpy(hdr + h, "b2nd", 4);
	h += 4;
	size_t at_moff = h + 1;
	hdr[h] = 0xd2, h += 5;
	b2w_be(hdr + idx0 + 2, h - idx0, 2);
	hdr[h++] = 0xdc, hdr[h++] = 0, hdr[h++] = 1;
	b2w_be(hdr + at_moff, h, 4);
	hdr[h] = 0xc6, b2w_be(hdr + h + 1, m, 4), h += 5;
	memcpy(hdr + h, meta, m);
	h += m;
	uint8_t trailer[64];
	size_t t = 0;
	trailer[t++] = 0x94, trailer[t++] = 1, trailer[t++] = 0x93;
	trailer[t++] = 0xcd, trailer[t++] = 0, trailer[t++] = 6;
	trailer[t++] = 0xde, trailer[t++] = 0, trailer[t++] = 0;
	trailer[t++] = 0xdc, trailer[t++] = 0, trailer[t++] = 0;
	size_t tlen = t + 5 + 18;
	trailer[t] = 0xce, b2w_be(trailer + t + 1, tlen, 4), t += 5;
	trailer[t++] = 0xd8;
	memset(trailer + t, 0, 17);
	t += 17;
	b2w_be(hdr + at_hlen, h, 4);
	b2w_be(hdr + at_flen, h + cbytes + icb + t, 8);
	FILE *f = fopen(path, "wb");
	int ok = f && fwrite(hdr, 1, h, f) == h && fwrite(chunks, 1, cbytes, f) == cbytes &&
		 fwrite(index, 1, icb, f) == icb && fwrite(trailer, 1, t, f) == t;
	if (f)
		ok &= fclose(f) == 0;
	free(chunks);
	free(tmp);
	free(offs);
	free(index);
	return ok ? 0 : -1;
}

/* An int32 array of rows x cols in one chunk of 16-row blocks (whole rows), which a whole read
 * splits over its threads, written to path; its values a function of the element and k (arrays
 * of other k differ, and so do their stored sizes and block offsets). Returns the values
 * (malloc'd), or NULL when they or the file could not be made. */
static inline int32_t *b2w_rows_i32(const char *path, int64_t rows, int64_t cols, int k)
{
	size_t n = (size_t)(rows * cols);
	int32_t *v = malloc(n * 4);
	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++)
		v[i] = (int32_t)((i / (size_t)(7 + 5 * k)) % 1000 +
				 (int64_t)((i * (2654435761u + 2u * (unsigned)k)) >> (26 + k)));
	struct b2w_array b = {.ndim = 2, .shape = {rows, cols}, .chunks = {rows, cols},
			      .blocks = {16, cols}, .typesize = 4, .dtype = "<i4", .data = v};
	if (b2w_write(path, &b)) {
		free(v);
		return NULL;
	}
	return v;
}

#endif
