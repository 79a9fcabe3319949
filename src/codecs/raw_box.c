/* raw_box.c - part of an uncompressed chunk: only the bytes a box of it spans, read and placed. */
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "raw_box.h"

/* Below this a chunk is read whole: one read of it costs what a span's does. */
#define TSR_RAW_PART_MIN_NBYTES ((uint64_t)1 << 20)

int tsr_raw_boxes(const struct tsr_chunk_ref *ref)
{
	const struct tsr_codec_step *c = &ref->codec;
	return !ref->npre && tsr_values_as_stored(ref) && !c->elem_from_size &&
	       (!c->big_endian || tsr_dtype_size(c->elem) == 1) && ref->npix > 0;
}

/* The C-order index in the chunk of element at (per axis) pos[]. */
static uint64_t tsr_raw_index(const struct tsr_chunk_ref *ref, const int64_t *pos)
{
	uint64_t e = 0;
	for (int d = 0; d < ref->ndim; d++)
		e = e * (uint64_t)ref->extent[d] + (uint64_t)pos[d];
	return e;
}

/* The box's first and one-past-last elements in C order; 0 where the box is empty or not
 * inside the chunk. */
static int tsr_raw_span(const struct tsr_chunk_ref *ref, const struct tsr_chunk_box *box,
			uint64_t *first, uint64_t *end)
{
	int64_t last[TSR_MAX_DIM];
	for (int d = 0; d < ref->ndim; d++) {
		if (box->lo[d] < 0 || box->hi[d] <= box->lo[d] || box->hi[d] > ref->extent[d])
			return 0;
		last[d] = box->hi[d] - 1;
	}
	*first = tsr_raw_index(ref, box->lo);
	*end = tsr_raw_index(ref, last) + 1;
	return 1;
}

int tsr_raw_fetch_part(const struct tsr_chunk_ref *ref, const struct tsr_chunk_box *box,
		       tsr_chunk_read_fn read, void *arg, unsigned char **buf, size_t *cap,
		       uint64_t *nbytes_ret)
{
	size_t w = tsr_dtype_size(ref->codec.elem);
	uint64_t first, end, total = (uint64_t)ref->npix * w;
	*nbytes_ret = 0;
	if (!box || !tsr_raw_boxes(ref) || ref->nbytes != total ||
	    total < TSR_RAW_PART_MIN_NBYTES || !tsr_raw_span(ref, box, &first, &end) ||
	    2 * (end - first) * w > total)
		return TSR_OK;
	size_t n = (size_t)((end - first) * w);
	if (*cap < n || !*buf) {
		unsigned char *p = realloc(*buf, n + 64);
		if (!p)
			return tsr_error(TSR_E_NOMEM, "out of memory for %zu bytes", n);
		*buf = p;
		*cap = n;
	}
	int st = read(arg, *buf, n, first * w);
	if (st == TSR_OK)
		*nbytes_ret = n;
	return st;
}

int tsr_raw_decode_box(const struct tsr_chunk_ref *ref, const void *src, size_t src_nbytes,
		       const struct tsr_chunk_box *box, void *out, uint64_t *decoded_nbytes_ret)
{
	size_t w = tsr_dtype_size(ref->codec.elem);
	uint64_t first, end, total = (uint64_t)ref->npix * w;
	*decoded_nbytes_ret = 0;
	if (!tsr_raw_span(ref, box, &first, &end))
		return tsr_error(TSR_E_INTERNAL, "%s: a box outside its chunk", ref->codec_name);
	uint64_t base; /* the element src starts at */
	if (src_nbytes == total)
		base = 0;
	else if (src_nbytes == (end - first) * w)
		base = first;
	else
		return tsr_error(TSR_E_CORRUPT, "%s: decodes to %zu bytes, expected %llu",
				 ref->codec_name, src_nbytes, (unsigned long long)total);
	int nd = ref->ndim;
	const unsigned char *s = src;
	unsigned char *o = out;
	size_t run = nd ? (size_t)(box->hi[nd - 1] - box->lo[nd - 1]) * w : w;
	int64_t pos[TSR_MAX_DIM];
	for (int d = 0; d < nd; d++)
		pos[d] = box->lo[d];
	for (;;) {
		memcpy(o, s + (tsr_raw_index(ref, pos) - base) * w, run);
		o += run;
		/* the next row: axes nd-2 .. 0 step like an odometer */
		int d = nd - 2;
		for (; d >= 0; d--) {
			if (++pos[d] < box->hi[d])
				break;
			pos[d] = box->lo[d];
		}
		if (d < 0)
			break;
	}
	*decoded_nbytes_ret = (uint64_t)(o - (unsigned char *)out);
	return TSR_OK;
}
