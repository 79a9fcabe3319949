/* chain.c - runs a chunk's codec chain: bytes steps, element codec, byte planes, value
 * transform, numcodecs filters and axis order. */
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "b2nd_blocks.h"
#include "b2nd_memo.h"
#include "blosc.h"
#include "codecs.h"
#include "raw_box.h"

void tsr_scratch_free(struct tsr_scratch *s)
{
	for (int i = 0; i < TSR_SCRATCH_SLOTS; i++) {
		free(s->buf[i]);
		s->buf[i] = NULL;
		s->cap[i] = 0;
	}
	tsr_inflate_free(s->inflater);
	s->inflater = NULL;
	ZSTD_freeDCtx(s->zstd);
	s->zstd = NULL;
	tsr_blosc_scratch_free(s->blosc);
	s->blosc = NULL;
	tsr_b2nd_memo_free(s->b2memo);
	s->b2memo = NULL;
}

/* dst (C order over extent) from src stored with permuted axes: stored axis j is axis perm[j]. */
static void tsr_permute(void *dst, const void *src, const struct tsr_chunk_ref *ref, size_t es)
{
	int nd = ref->ndim;
	int64_t sshape[TSR_MAX_DIM], sstride[TSR_MAX_DIM], dstride[TSR_MAX_DIM], idx[TSR_MAX_DIM];
	int64_t st = 1;
	for (int d = nd - 1; d >= 0; d--) {
		dstride[d] = st;
		st *= ref->extent[d];
	}
	for (int j = 0; j < nd; j++)
		sshape[j] = ref->extent[ref->perm[j]];
	for (int j = 0; j < nd; j++) {
		sstride[j] = dstride[ref->perm[j]]; /* where stored axis j steps in the output */
		idx[j] = 0;
	}
	const unsigned char *in = src;
	unsigned char *out = dst;
	size_t n = (size_t)ref->npix;
	int64_t o = 0;
	for (size_t i = 0; i < n; i++) {
		memcpy(out + (size_t)o * es, in + i * es, es);
		for (int j = nd - 1; j >= 0; j--) {
			o += sstride[j];
			if (++idx[j] < sshape[j])
				break;
			o -= sstride[j] * sshape[j];
			idx[j] = 0;
		}
	}
}

static void *tsr_scratch_get(struct tsr_scratch *s, int i, size_t n)
{
	if (s->cap[i] < n) {
		free(s->buf[i]);
		/* 64 bytes of slack: decoders may read a word past the end safely. */
		s->buf[i] = malloc(n + 64);
		s->cap[i] = s->buf[i] ? n : 0;
	}
	return s->buf[i];
}

static enum tsr_dtype tsr_int_of_width(size_t w)
{
	switch (w) {
	case 1: return TSR_UINT8;
	case 2: return TSR_INT16;
	case 4: return TSR_INT32;
	case 8: return TSR_INT64;
	default: return TSR_DTYPE_INVALID;
	}
}

/* The stored elements' type and width once the codec has decoded raw_nbytes for npix of them:
 * the chunk's, or (CFITSIO decides a GZIP tile's element width from its decoded size) the
 * integers of the width the size says. */
static int tsr_chain_width(const struct tsr_chunk_ref *ref, size_t raw_nbytes, size_t npix,
			   enum tsr_dtype *elem, size_t *w)
{
	if (ref->codec.elem_from_size && raw_nbytes != npix * *w) {
		size_t ew = npix ? raw_nbytes / npix : 0;
		enum tsr_dtype t = tsr_int_of_width(ew);
		if (t == TSR_DTYPE_INVALID || ew * npix != raw_nbytes)
			return tsr_error(TSR_E_CORRUPT, "%s: decodes to %zu bytes, not a whole number of "
					 "1/2/4/8-byte values for %zu pixels", ref->codec_name,
					 raw_nbytes, npix);
		if (tsr_dtype_is_float(*elem) && ref->xform.kind != TSR_XF_DEQUANT)
			return tsr_error(TSR_E_CORRUPT, "%s: float tile decodes to %zu bytes, expected %zu",
					 ref->codec_name, raw_nbytes, npix * *w);
		*elem = t;
		*w = ew;
	} else if (raw_nbytes != npix * *w) {
		return tsr_error(TSR_E_CORRUPT, "%s: decodes to %zu bytes, expected %zu",
				 ref->codec_name, raw_nbytes, npix * *w);
	}
	return TSR_OK;
}

/* Integer codecs of another width than the image (RICE BYTEPIX, HCOMPRESS, PLIO, GZIP tiles
 * of another width): their values are converted before the transform. */
static int tsr_chain_converts(const struct tsr_chunk_ref *ref, enum tsr_dtype elem, int be)
{
	const struct tsr_codec_step *c = &ref->codec;
	return ref->xform.kind != TSR_XF_DEQUANT && c->elem != TSR_DTYPE_INVALID && elem != c->elem &&
	       !tsr_dtype_is_float(elem) && !tsr_dtype_is_float(c->elem) && !be;
}

/* The decoded values (*vals, of n elements of *elem) made ready for the transform: converted
 * to the codec's integer width where tsr_chain_converts says so (into scratch slot 2), and
 * checked against the image's width for a plain copy. */
static int tsr_chain_settle_values(const struct tsr_chunk_ref *ref, struct tsr_scratch *scratch,
				   size_t n, int be, void **vals, enum tsr_dtype *elem)
{
	const struct tsr_codec_step *c = &ref->codec;
	if (tsr_chain_converts(ref, *elem, be)) {
		void *conv = tsr_scratch_get(scratch, 2, n * tsr_dtype_size(c->elem));
		if (!conv)
			return tsr_error(TSR_E_NOMEM, "out of memory");
		int st = tsr_int_convert(conv, c->elem, *vals, *elem, n);
		if (st) {
			tsr_error_prefix("%s", ref->codec_name);
			return st;
		}
		*vals = conv;
		*elem = c->elem;
	}
	if (ref->xform.kind == TSR_XF_COPY &&
	    tsr_dtype_size(ref->xform.out) != tsr_dtype_size(*elem))
		return tsr_error(TSR_E_CORRUPT, "%s: tile holds %s values in a %s image",
				 ref->codec_name, tsr_dtype_name(*elem),
				 tsr_dtype_name(ref->xform.out));
	return TSR_OK;
}

int tsr_chunk_gathers(const struct tsr_chunk_ref *ref)
{
	enum tsr_codec_id id = ref->codec.id;
	return (id == TSR_CODEC_NONE || id == TSR_CODEC_GZIP || id == TSR_CODEC_ZLIB ||
		id == TSR_CODEC_DEFLATE) &&
	       !ref->npre && !ref->has_perm && !ref->nfilter && ref->xform.kind != TSR_XF_DEQUANT &&
	       tsr_dtype_size(ref->codec.elem) > 0;
}

int tsr_chunk_decode_gather(const struct tsr_chunk_ref *ref, void *src, size_t src_nbytes,
			    const int64_t *elems, size_t n, void *out, struct tsr_scratch *scratch,
			    uint64_t *decoded_nbytes_ret)
{
	const struct tsr_codec_step *c = &ref->codec;
	size_t npix = (size_t)ref->npix;
	enum tsr_dtype elem = c->elem;
	size_t w = tsr_dtype_size(elem);
	int be = c->big_endian, st;
	const unsigned char *raw = src;
	size_t raw_nbytes = src_nbytes;
	*decoded_nbytes_ret = 0;
	if (!tsr_chunk_gathers(ref))
		return tsr_error(TSR_E_INTERNAL, "%s: no gather decoding", ref->codec_name);
	if (c->id != TSR_CODEC_NONE) {
		/* Room for the widest element, since FITS decides the width by the size. */
		size_t cap = npix * (c->elem_from_size ? 8 : w);
		void *buf = tsr_scratch_get(scratch, 0, cap);
		if (!buf)
			return tsr_error(TSR_E_NOMEM, "out of memory for %zu bytes", cap);
		st = tsr_inflate(&scratch->inflater, c->id, buf, cap, src, src_nbytes, &raw_nbytes);
		if (st)
			return st;
		raw = buf;
	}
	*decoded_nbytes_ret = raw_nbytes;
	if ((st = tsr_chain_width(ref, raw_nbytes, npix, &elem, &w)))
		return st;
	/* The selected elements, as stored, packed: from the byte planes when shuffled (plane b
	 * holds byte b of every element). */
	unsigned char *packed = tsr_scratch_get(scratch, 1, n * w);
	if (!packed)
		return tsr_error(TSR_E_NOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		size_t e = (size_t)elems[i];
		if (e >= npix)
			return tsr_error(TSR_E_INTERNAL, "%s: element %zu of %zu", ref->codec_name, e,
					 npix);
		if (c->byte_shuffle && w > 1)
			for (size_t b = 0; b < w; b++)
				packed[i * w + b] = raw[b * npix + e];
		else
			memcpy(packed + i * w, raw + e * w, w);
	}
	void *vals = packed;
	if ((st = tsr_chain_settle_values(ref, scratch, n, be, &vals, &elem)))
		return st;
	return tsr_values_apply(out, &ref->xform, vals, elem, be, n, NULL);
}

int tsr_chunk_decode(const struct tsr_chunk_ref *ref, void *src, size_t src_nbytes, void *out,
		     size_t npix_needed, struct tsr_scratch *scratch, uint64_t *decoded_nbytes_ret)
{
	return tsr_chunk_decode_box(ref, src, src_nbytes, out, npix_needed, NULL, scratch,
				    decoded_nbytes_ret);
}

/* Elements of the box (NULL: of the chunk). */
static size_t tsr_box_npix(const struct tsr_chunk_ref *ref, const struct tsr_chunk_box *box)
{
	if (!box)
		return (size_t)ref->npix;
	size_t n = 1;
	for (int d = 0; d < ref->ndim; d++)
		n *= box->hi[d] > box->lo[d] ? (size_t)(box->hi[d] - box->lo[d]) : 0;
	return n;
}

int tsr_chunk_decodes_box(const struct tsr_chunk_ref *ref)
{
	return ref->codec.id == TSR_CODEC_BLOSC_B2ND || ref->codec.id == TSR_CODEC_FILL ||
	       tsr_raw_boxes(ref);
}

int tsr_chunk_fetch_part(const struct tsr_chunk_ref *ref, const struct tsr_chunk_box *box,
			 tsr_chunk_read_fn read, void *arg, unsigned char **buf, size_t *cap,
			 uint64_t *nbytes_ret)
{
	if (ref->codec.id == TSR_CODEC_BLOSC_B2ND)
		return tsr_b2nd_fetch_part(ref, box, read, arg, buf, cap, nbytes_ret);
	return tsr_raw_fetch_part(ref, box, read, arg, buf, cap, nbytes_ret);
}

int tsr_values_as_stored(const struct tsr_chunk_ref *ref)
{
	const struct tsr_codec_step *c = &ref->codec;
	size_t w = tsr_dtype_size(c->elem);
	return c->id == TSR_CODEC_NONE && ref->xform.kind == TSR_XF_COPY && !ref->has_perm &&
	       !c->byte_shuffle && !ref->nfilter && w && tsr_dtype_size(ref->xform.out) == w;
}

/* The most bytes any compressor tessera reads writes for n bytes, with room to spare: zstd,
 * lz4 and deflate add n/255 and a header, bz2 n/100 + 600, blosc its 16-32-byte header (it
 * stores a chunk raw rather than let it grow), and a gzip header may name a file. */
static size_t tsr_compressed_bound(size_t n)
{
	size_t extra = n / 8 + ((size_t)1 << 16);
	return n > SIZE_MAX - extra ? SIZE_MAX : n + extra;
}

static size_t tsr_mul_sat(size_t a, size_t b)
{
	return b && a > SIZE_MAX / b ? SIZE_MAX : a * b;
}

/* The exact size of the numcodecs filters' input that yields out bytes (their decode, run
 * backwards), or 0 when no input does (the chain then fails on the size anyway). */
static size_t tsr_filters_in_size(const struct tsr_chunk_ref *ref, size_t out)
{
	for (int k = ref->nfilter - 1; k >= 0 && out; k--) {
		const struct tsr_filter *f = &ref->filter[k];
		if (f->id == TSR_FILTER_PACKBITS) {
			out = 1 + out / 8 + (out % 8 != 0); /* a padding-count byte, then the bits */
		} else if (f->id != TSR_FILTER_SHUFFLE) {
			size_t wi = tsr_dtype_size(f->in), wo = tsr_dtype_size(f->out);
			if (!wi || !wo || out % wo || out / wo > SIZE_MAX / wi)
				return 0;
			out = out / wo * wi;
		}
	}
	return out;
}

void tsr_chunk_pre_limits(const struct tsr_chunk_ref *ref, size_t expect[TSR_MAX_PRE],
			  size_t cap[TSR_MAX_PRE])
{
	const struct tsr_codec_step *c = &ref->codec;
	size_t npix = ref->npix > 0 ? (size_t)ref->npix : 0;
	size_t w = tsr_dtype_size(c->elem), e = 0, m;
	/* What the last step must yield: the elements, or the filters' input for them. */
	if (c->id == TSR_CODEC_NONE && w) {
		e = tsr_mul_sat(npix, w);
		if (ref->nfilter)
			e = tsr_filters_in_size(ref, e);
		m = e ? e : tsr_compressed_bound(tsr_mul_sat(npix, w));
	} else {
		/* an element codec's input: no more than twice the widest (8-byte) values it gives */
		m = tsr_compressed_bound(tsr_mul_sat(npix, 16));
	}
	for (int i = ref->npre - 1; i >= 0; i--) {
		expect[i] = e == SIZE_MAX ? 0 : e;
		cap[i] = m;
		/* what step i takes in: a checksum adds 4 bytes, a compressor at most its bound */
		if (tsr_codec_is_checksum(ref->pre[i].id)) {
			e = e && e < SIZE_MAX - 4 ? e + 4 : 0;
			m = m < SIZE_MAX - 4 ? m + 4 : SIZE_MAX;
		} else {
			e = 0;
			m = tsr_compressed_bound(m);
		}
	}
}

int tsr_chunk_check_stored(const struct tsr_chunk_ref *ref, uint64_t stored)
{
	const struct tsr_codec_step *c = &ref->codec;
	size_t w = tsr_dtype_size(c->elem);
	if (c->id != TSR_CODEC_NONE || ref->npre || !w || c->elem_from_size || ref->npix <= 0)
		return TSR_OK;
	size_t e = tsr_mul_sat((size_t)ref->npix, w);
	if (ref->nfilter)
		e = tsr_filters_in_size(ref, e);
	if (!e || e == SIZE_MAX || stored == e)
		return TSR_OK;
	/* (the words a decode of it would fail with) */
	return tsr_error(TSR_E_CORRUPT, "%s: decodes to %llu bytes, expected %llu", ref->codec_name,
			 (unsigned long long)stored, (unsigned long long)e);
}

int tsr_chunk_decode_box(const struct tsr_chunk_ref *ref, void *src, size_t src_nbytes, void *out,
			 size_t npix_needed, const struct tsr_chunk_box *box,
			 struct tsr_scratch *scratch, uint64_t *decoded_nbytes_ret)
{
	const struct tsr_codec_step *c = &ref->codec;
	size_t npix = (size_t)ref->npix;
	enum tsr_dtype elem = c->elem;
	size_t w = tsr_dtype_size(elem);
	int be = c->big_endian;
	void *raw = NULL;
	size_t raw_nbytes = 0;
	int st;

	*decoded_nbytes_ret = 0;
	if (box && !tsr_chunk_decodes_box(ref))
		return tsr_error(TSR_E_INTERNAL, "%s: no box decoding", ref->codec_name);
	if (c->id == TSR_CODEC_FILL) {
		/* a box alone: a one-element read of a huge fill chunk stays cheap */
		tsr_fill_elems(out, tsr_box_npix(ref, box), tsr_dtype_size(ref->xform.out),
			       ref->xform.fill_wide ? ref->xform.fill_wide : ref->xform.fill);
		return TSR_OK;
	}
	if (c->id == TSR_CODEC_BLOSC_B2ND) {
		/* b2nd blocks land in C order, in native byte order, straight in out */
		if (ref->npre || ref->has_perm || ref->nfilter || ref->xform.kind != TSR_XF_COPY ||
		    tsr_dtype_size(ref->xform.out) != w)
			return tsr_error(TSR_E_INTERNAL, "b2nd chunks take no other step");
		return tsr_b2nd_decode(out, tsr_box_npix(ref, box) * w, ref, src, src_nbytes, box,
				       scratch, decoded_nbytes_ret);
	}
	if (box && tsr_raw_boxes(ref)) /* (its rows, from the chunk or the span fetched) */
		return tsr_raw_decode_box(ref, src, src_nbytes, box, out, decoded_nbytes_ret);
	/* When the last step's bytes are the output values as they stand, it decodes straight
	 * into out: a copy of the whole chunk saved, which is memory traffic all threads share. */
	int in_place = tsr_values_as_stored(ref) && (!be || w == 1);
	size_t expect[TSR_MAX_PRE], cap[TSR_MAX_PRE];
	tsr_chunk_pre_limits(ref, expect, cap);
	for (int i = 0; i < ref->npre; i++) {
		void *next;
		size_t next_n;
		/* the last step lands in out when it yields exactly the elements */
		int last = i + 1 == ref->npre;
		void *into = last && in_place && expect[i] && expect[i] == npix * w ? out : NULL;
		st = tsr_bytes_decode(&ref->pre[i], src, src_nbytes, scratch, 3, expect[i],
				      cap[i], into, &next, &next_n);
		if (st)
			return st;
		src = next;
		src_nbytes = next_n;
	}
	/* A permuted chunk decodes into scratch first, then lands in order. */
	void *final_out = out;
	size_t ow = tsr_dtype_size(ref->xform.out);
	if (ref->has_perm) {
		out = tsr_scratch_get(scratch, 5, npix * ow);
		if (!out)
			return tsr_error(TSR_E_NOMEM, "out of memory");
	}
	switch (c->id) {
	case TSR_CODEC_NONE:
		raw = src;
		raw_nbytes = src_nbytes;
		break;
	case TSR_CODEC_GZIP:
	case TSR_CODEC_ZLIB:
	case TSR_CODEC_DEFLATE: {
		/* Room for the widest element, since FITS decides the width by the size. */
		size_t cap = npix * (c->elem_from_size ? 8 : w);
		raw = tsr_scratch_get(scratch, 0, cap);
		if (!raw)
			return tsr_error(TSR_E_NOMEM, "out of memory for %zu bytes", cap);
		st = tsr_inflate(&scratch->inflater, c->id, raw, cap, src, src_nbytes, &raw_nbytes);
		if (st)
			return st;
		break;
	}
	case TSR_CODEC_RICE:
		/* RICE is sequential but can stop early: decode only the prefix a section needs. */
		if (npix_needed > 0 && npix_needed < npix)
			npix = npix_needed;
		w = (size_t)c->rice_bytepix;
		elem = tsr_int_of_width(w);
		be = 0;
		raw_nbytes = npix * w;
		raw = tsr_scratch_get(scratch, 0, raw_nbytes);
		if (!raw)
			return tsr_error(TSR_E_NOMEM, "out of memory for %zu bytes", raw_nbytes);
		st = tsr_rice_decode(raw, npix, src, src_nbytes, c->rice_bytepix, c->rice_blocksize);
		if (st)
			return st;
		break;
	case TSR_CODEC_HCOMPRESS:
	case TSR_CODEC_PLIO:
		w = 4;
		elem = TSR_INT32;
		be = 0;
		raw_nbytes = npix * 4;
		raw = tsr_scratch_get(scratch, 0, raw_nbytes);
		if (!raw)
			return tsr_error(TSR_E_NOMEM, "out of memory for %zu bytes", raw_nbytes);
		if (c->id == TSR_CODEC_PLIO)
			st = tsr_plio_decode_cfitsio(raw, npix, src, src_nbytes);
		else
			st = tsr_hcompress_decode_cfitsio(raw, npix,
							  c->tile_nx, c->tile_ny, src, src_nbytes,
							  c->hcomp_smooth,
							  c->rice_bytepix);
		if (st)
			return st;
		/* a lossy HCOMPRESS_1 tile (scale > 1) may decode past a 16-bit image's range:
		 * CFITSIO clips those values (funpack), and so does this; past an 8-bit image's
		 * the conversion below refuses them, as CFITSIO does (status 412) */
		if (c->id == TSR_CODEC_HCOMPRESS && tsr_dtype_size(c->elem) == 2)
			for (size_t i = 0; i < npix; i++) {
				int32_t *v = (int32_t *)raw + i;
				*v = *v < INT16_MIN ? INT16_MIN : *v > INT16_MAX ? INT16_MAX : *v;
			}
		break;
	default:
		return tsr_error(TSR_E_UNSUPPORTED, "codec %d", (int)c->id);
	}
	*decoded_nbytes_ret = raw_nbytes;
	if (ref->nfilter) {
		/* numcodecs filters: their last output is the array's elements */
		if ((st = tsr_filters_decode(ref, raw, raw_nbytes, scratch, &raw, &raw_nbytes)))
			return st;
	}
	if ((st = tsr_chain_width(ref, raw_nbytes, npix, &elem, &w)))
		return st;
	if (c->byte_shuffle && w > 1) {
		void *planes = raw;
		raw = tsr_scratch_get(scratch, 1, raw_nbytes);
		if (!raw)
			return tsr_error(TSR_E_NOMEM, "out of memory for %zu bytes", raw_nbytes);
		/* (FITS GZIP_2's planes are blosc's shuffle: its SSE2 paths; the scalar loop
		 * this was ran 1.7 times slower in a shared library, where the hot loop's
		 * alignment differed, than in an executable) */
		tsr_blosc_unshuffle(raw, planes, npix * w, w);
	}
	if (be && raw == src && ref->xform.kind != TSR_XF_COPY) {
		/* The caller's bytes (uncompressed chunks) are never written: a mock cache shares
		 * them between threads and reads. Scaling swaps big-endian values in place, so it
		 * gets a swapped copy (the same memory traffic as the swap in place). */
		void *swapped = tsr_scratch_get(scratch, 1, raw_nbytes);
		if (!swapped)
			return tsr_error(TSR_E_NOMEM, "out of memory for %zu bytes", raw_nbytes);
		tsr_bswap_copy(swapped, raw, npix, (int)w);
		raw = swapped;
		be = 0;
	}
	int32_t *tmp = NULL;
	if (ref->xform.kind == TSR_XF_DEQUANT && elem != TSR_INT32) {
		tmp = tsr_scratch_get(scratch, 2, npix * 4);
		if (!tmp)
			return tsr_error(TSR_E_NOMEM, "out of memory");
	}
	if ((st = tsr_chain_settle_values(ref, scratch, npix, be, &raw, &elem)))
		return st;
	st = tsr_values_apply(out, &ref->xform, raw, elem, be, npix, tmp);
	if (st)
		return st;
	if (ref->has_perm)
		tsr_permute(final_out, out, ref, ow);
	return TSR_OK;
}

int tsr_chunk_streams(const struct tsr_chunk_ref *ref)
{
	return ref->npre > 0 && ref->pre[ref->npre - 1].id == TSR_CODEC_ZSTD &&
	       tsr_values_as_stored(ref);
}

int tsr_chunk_streams_read(const struct tsr_chunk_ref *ref)
{
	return ref->npre == 1 && tsr_chunk_streams(ref);
}

/* What begin and begin_read share, once the frame is known to stream. */
static int tsr_stream_start(struct tsr_chunk_stream *cs, const struct tsr_chunk_ref *ref,
			    struct tsr_scratch *scratch)
{
	if (!scratch->zstd && !(scratch->zstd = ZSTD_createDCtx()))
		return tsr_error(TSR_E_NOMEM, "zstd: out of memory");
	ZSTD_DCtx_reset(scratch->zstd, ZSTD_reset_session_only);
	cs->zstd = scratch->zstd;
	/* big-endian values swap by element; complex ones by part (as tsr_values_apply does) */
	enum tsr_dtype t = ref->codec.elem;
	size_t part = t == TSR_COMPLEX64 || t == TSR_COMPLEX128 ? cs->w / 2 : cs->w;
	cs->bswap = ref->codec.big_endian && part > 1 ? (int)part : 0;
	return 1;
}

int tsr_chunk_stream_begin(struct tsr_chunk_stream *cs, const struct tsr_chunk_ref *ref,
			   void *src, size_t src_nbytes, struct tsr_scratch *scratch)
{
	int st;
	memset(cs, 0, sizeof(*cs));
	if (!tsr_chunk_streams(ref))
		return 0;
	size_t expect[TSR_MAX_PRE], cap[TSR_MAX_PRE];
	tsr_chunk_pre_limits(ref, expect, cap);
	for (int i = 0; i + 1 < ref->npre; i++) {
		void *next;
		size_t next_n;
		st = tsr_bytes_decode(&ref->pre[i], src, src_nbytes, scratch, 3, expect[i],
				      cap[i], NULL, &next, &next_n);
		if (st)
			return st;
		src = next;
		src_nbytes = next_n;
	}
	cs->w = tsr_dtype_size(ref->codec.elem);
	cs->left = (uint64_t)ref->npix * cs->w;
	/* One frame that says its size, and that size: anything else decodes whole, where the
	 * one-shot decoder gives its verdict. */
	if (ZSTD_findFrameCompressedSize(src, src_nbytes) != src_nbytes ||
	    ZSTD_getFrameContentSize(src, src_nbytes) != cs->left)
		return 0;
	cs->src = src;
	cs->src_nbytes = src_nbytes;
	return tsr_stream_start(cs, ref, scratch);
}

/* Brings the next piece of a read stream's frame into inbuf once zstd has taken the last. */
static int tsr_stream_refill(struct tsr_chunk_stream *cs)
{
	if (!cs->read || cs->src_pos < cs->src_nbytes || cs->file_pos == cs->file_nbytes)
		return TSR_OK;
	uint64_t rest = cs->file_nbytes - cs->file_pos;
	size_t n = rest < cs->inbuf_cap ? (size_t)rest : cs->inbuf_cap;
	int st = cs->read(cs->arg, cs->inbuf, n, cs->file_pos);
	if (st)
		return st;
	cs->src = cs->inbuf;
	cs->src_nbytes = n;
	cs->src_pos = 0;
	cs->file_pos += n;
	return TSR_OK;
}

int tsr_chunk_stream_begin_read(struct tsr_chunk_stream *cs, const struct tsr_chunk_ref *ref,
				tsr_chunk_read_fn read, void *arg, uint64_t src_nbytes,
				unsigned char *inbuf, size_t inbuf_cap, struct tsr_scratch *scratch)
{
	int st;
	memset(cs, 0, sizeof(*cs));
	if (!tsr_chunk_streams_read(ref))
		return 0;
	cs->w = tsr_dtype_size(ref->codec.elem);
	cs->left = (uint64_t)ref->npix * cs->w;
	cs->read = read;
	cs->arg = arg;
	cs->inbuf = inbuf;
	cs->inbuf_cap = inbuf_cap;
	cs->file_nbytes = src_nbytes;
	if ((st = tsr_stream_refill(cs)))
		return st;
	/* The header (at most 18 bytes) must say the size; whether one frame ends where the
	 * stored bytes do shows only at the end. */
	if (ZSTD_getFrameContentSize(cs->src, cs->src_nbytes) != cs->left)
		return 0;
	return tsr_stream_start(cs, ref, scratch);
}

/* Whether the frame's stored bytes are all taken. */
static int tsr_stream_drained(const struct tsr_chunk_stream *cs)
{
	return cs->src_pos == cs->src_nbytes && cs->file_pos == cs->file_nbytes;
}

int tsr_chunk_stream_read(struct tsr_chunk_stream *cs, void *dst, size_t nbytes)
{
	int st;
	if (nbytes > cs->left)
		return tsr_error(TSR_E_INTERNAL, "zstd stream: %zu bytes asked, %llu left", nbytes,
				 (unsigned long long)cs->left);
	ZSTD_outBuffer o = {dst, nbytes, 0};
	while (o.pos < o.size) {
		if ((st = tsr_stream_refill(cs)))
			return st;
		ZSTD_inBuffer in = {cs->src, cs->src_nbytes, cs->src_pos};
		size_t before = o.pos, r = ZSTD_decompressStream(cs->zstd, &o, &in);
		cs->src_pos = in.pos;
		if (ZSTD_isError(r))
			return tsr_error(TSR_E_CORRUPT, "zstd: %s", ZSTD_getErrorName(r));
		if (o.pos == before && (r == 0 || tsr_stream_drained(cs)))
			return tsr_error(TSR_E_CORRUPT, "zstd: frame holds fewer bytes than expected");
		cs->ended = r == 0;
	}
	cs->left -= nbytes;
	if (cs->bswap)
		tsr_bswap_inplace(dst, nbytes / (size_t)cs->bswap, cs->bswap);
	return TSR_OK;
}

int tsr_chunk_stream_end(struct tsr_chunk_stream *cs)
{
	/* The frame's last block and checksum may still be unread: zstd checks both, and that the
	 * frame held no more than its stated size. */
	unsigned char sink[64];
	int st;
	while (!cs->ended) {
		if ((st = tsr_stream_refill(cs)))
			return st;
		ZSTD_outBuffer o = {sink, sizeof(sink), 0};
		ZSTD_inBuffer in = {cs->src, cs->src_nbytes, cs->src_pos};
		size_t r = ZSTD_decompressStream(cs->zstd, &o, &in);
		cs->src_pos = in.pos;
		if (ZSTD_isError(r))
			return tsr_error(TSR_E_CORRUPT, "zstd: %s", ZSTD_getErrorName(r));
		if (o.pos)
			return tsr_error(TSR_E_CORRUPT, "zstd: frame holds more bytes than expected");
		if (r && tsr_stream_drained(cs))
			return tsr_error(TSR_E_CORRUPT, "zstd: truncated frame");
		cs->ended = r == 0;
	}
	return tsr_stream_drained(cs) ? TSR_OK : 1;
}
