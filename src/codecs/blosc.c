/* blosc.c - the Blosc1/Blosc2 chunk container: headers, block table, streams, codecs, filters. */
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>
#include <lz4.h>
#include <zstd.h>

#include "../core/internal.h"
#include "blosc.h"

struct tsr_blosc_scratch {
	uint8_t *buf; /* temporary blocks: three pipeline buffers and block 0 for DELTA */
	size_t cap;
	ZSTD_DCtx *zd;
	struct libdeflate_decompressor *ld;
};

int tsr_blosc_scratch_create(struct tsr_blosc_scratch **scratch_ret)
{
	*scratch_ret = calloc(1, sizeof(**scratch_ret));
	if (!*scratch_ret)
		return tsr_error(TSR_E_NOMEM, "blosc: cannot allocate a scratch");
	return TSR_OK;
}

void tsr_blosc_scratch_free(struct tsr_blosc_scratch *s)
{
	if (!s)
		return;
	free(s->buf);
	ZSTD_freeDCtx(s->zd);
	if (s->ld)
		libdeflate_free_decompressor(s->ld);
	free(s);
}

/* One chunk being decoded: the checked header plus what decoding needs. */
struct bl_dec {
	const uint8_t *src;
	struct tsr_blosc_info in;
	int64_t value_nbytes; /* SPECIAL_VALUE: bytes of the repeated value */
	int nfilt;            /* filters to undo, in decode order */
	uint8_t filt[TSR_BLOSC_MAX_FILTERS], fmeta[TSR_BLOSC_MAX_FILTERS];
	int has_delta;
	struct tsr_blosc_scratch *s;
	int own_scratch;
	ZSTD_DDict *ddict;
	int own_ddict;        /* 0: a shared chunk's (tsr_blosc_chunk) */
	uint8_t *tmp_a, *tmp_b, *tmp_c, *ref0_buf;
};

static int32_t rd32(const uint8_t *p)
{
	return (int32_t)tsr_le32(p);
}

/* The name c-blosc2's registry gives plugin codec id (python-blosc2's blosc2.Codec), for
 * messages: " (ZFP_PREC)", or "" for an id it does not name. */
static const char *tsr_blosc_plugin_codec(int id)
{
	static const char *const names[] = {" (NDLZ)",	    " (ZFP_ACC)", " (ZFP_PREC)",
					    " (ZFP_RATE)",  " (OPENHTJ2K)", " (GROK)",
					    " (OPENZL)",    " (J2K)",	    " (HTJ2K)"};
	if (id < 32 || id >= 32 + (int)(sizeof(names) / sizeof(*names)))
		return "";
	return names[id - 32];
}

static int parse(const uint8_t *src, size_t src_nbytes, struct bl_dec *d)
{
	memset(d, 0, sizeof(*d));
	d->src = src;
	struct tsr_blosc_info *in = &d->in;
	if (src_nbytes < TSR_BLOSC_MIN_HEADER)
		return tsr_error(TSR_E_CORRUPT,
				 "blosc: %zu bytes cannot hold the 16-byte chunk header", src_nbytes);
	in->version = src[0];
	in->versionlz = src[1];
	in->flags = src[2];
	in->typesize = src[3];
	int32_t nbytes = rd32(src + 4), blocksize = rd32(src + 8), cbytes = rd32(src + 12);
	if (in->version == 0)
		return tsr_error(TSR_E_CORRUPT, "blosc: format version 0");
	/* blosc has raised its format version six times in fifteen years: a version a little
	 * past 6 is a newer blosc, one far past it a chunk whose header is not blosc's */
	if (in->version > 15)
		return tsr_error(TSR_E_CORRUPT, "blosc: format version %d, which no blosc writes "
				 "(this reader: 1-6; 7-15 would be newer ones)", in->version);
	if (in->version > 6)
		return tsr_error(TSR_E_UNSUPPORTED,
				 "blosc: format version %d is newer than this reader (1-6)",
				 in->version);
	if (in->typesize == 0)
		return tsr_error(TSR_E_CORRUPT, "blosc: typesize 0");
	if (nbytes < 0)
		return tsr_error(TSR_E_CORRUPT, "blosc: negative decoded size %d", nbytes);
	if (cbytes < TSR_BLOSC_MIN_HEADER)
		return tsr_error(TSR_E_CORRUPT, "blosc: chunk size %d is smaller than its header",
				 cbytes);
	if ((size_t)cbytes > src_nbytes)
		return tsr_error(TSR_E_CORRUPT,
				 "blosc: chunk says it has %d bytes but only %zu are given (truncated?)",
				 cbytes, src_nbytes);
	in->nbytes = nbytes;
	in->cbytes = cbytes;
	int extended = (in->flags & 0x05) == 0x05;
	in->header_nbytes = extended ? TSR_BLOSC_EXT_HEADER : TSR_BLOSC_MIN_HEADER;
	if (cbytes < in->header_nbytes)
		return tsr_error(TSR_E_CORRUPT, "blosc: chunk size %d is smaller than its %d-byte header",
				 cbytes, in->header_nbytes);
	in->codec = in->flags >> 5;
	if (extended) {
		memcpy(in->filters, src + 16, TSR_BLOSC_MAX_FILTERS);
		in->udcodec = src[22];
		in->codec_meta = src[23];
		memcpy(in->filters_meta, src + 24, TSR_BLOSC_MAX_FILTERS);
		in->blosc2_flags = src[31];
		/* the alpha format (version 3) left the last slot uninitialised */
		if (in->version == 3)
			in->filters[5] = in->filters_meta[5] = 0;
		if (in->blosc2_flags & 0x08)
			return tsr_error(TSR_E_UNSUPPORTED,
					 "blosc: lazy chunk (an in-memory reference, not data)");
		if (src[30] & 0x01)
			return tsr_error(TSR_E_UNSUPPORTED, "blosc: variable-length-block chunk");
		if (in->blosc2_flags & 0x80)
			return tsr_error(TSR_E_UNSUPPORTED, "blosc: instrumented codec chunk");
		in->special = (in->blosc2_flags >> 4) & 0x07;
	} else {
		if (in->flags & 0x01)
			in->filters[5] = TSR_BLOSC_SHUFFLE;
		if (in->flags & 0x04)
			in->filters[5] = TSR_BLOSC_BITSHUFFLE;
		if (in->flags & 0x08)
			in->filters[4] = TSR_BLOSC_DELTA;
	}

	if (nbytes == 0) {
		in->blocksize = 0;
		in->nblocks = 0;
	} else {
		if (blocksize <= 0)
			return tsr_error(TSR_E_CORRUPT, "blosc: block size %d", blocksize);
		/* writers clamp the block size to the data; c-blosc2 reads larger ones as such */
		in->blocksize = blocksize > nbytes ? nbytes : blocksize;
		in->nblocks = (in->nbytes + in->blocksize - 1) / in->blocksize;
		in->last_block_nbytes = in->nbytes - (in->nblocks - 1) * in->blocksize;
	}

	int hdr = in->header_nbytes;
	if (in->special) {
		if (in->special > TSR_BLOSC_SPECIAL_UNINIT)
			return tsr_error(TSR_E_CORRUPT, "blosc: unknown special chunk kind %d",
					 in->special);
		int64_t vlen = in->typesize;
		if (in->special == TSR_BLOSC_SPECIAL_VALUE) {
			/* typesizes over 255 are stored as 1: the value's size is then what
			 * follows the header */
			if (in->typesize == 1 && in->cbytes - hdr > 1)
				vlen = in->cbytes - hdr;
			if (in->cbytes - hdr < vlen)
				return tsr_error(TSR_E_CORRUPT,
						 "blosc: repeated-value chunk lacks its %lld-byte value",
						 (long long)vlen);
		}
		if (in->special == TSR_BLOSC_SPECIAL_NAN && in->typesize != 4 && in->typesize != 8)
			return tsr_error(TSR_E_UNSUPPORTED, "blosc: NaN chunk of typesize %d",
					 in->typesize);
		if (in->nbytes % vlen != 0)
			return tsr_error(TSR_E_CORRUPT,
					 "blosc: special chunk of %lld bytes is not whole elements of %lld",
					 (long long)in->nbytes, (long long)vlen);
		d->value_nbytes = vlen;
		in->value_nbytes = vlen;
		return TSR_OK;
	}
	if (in->flags & 0x02) {
		in->memcpyed = 1;
		if (in->cbytes - hdr < in->nbytes)
			return tsr_error(TSR_E_CORRUPT,
					 "blosc: raw chunk of %lld bytes holds only %lld after its header",
					 (long long)in->nbytes, (long long)(in->cbytes - hdr));
		return TSR_OK;
	}

	if (in->nblocks > (in->cbytes - hdr) / 4)
		return tsr_error(TSR_E_CORRUPT,
				 "blosc: block table of %lld entries does not fit in %lld bytes",
				 (long long)in->nblocks, (long long)in->cbytes);
	int64_t table_end = hdr + 4 * in->nblocks;
	if (extended && (in->blosc2_flags & 0x01)) {
		in->use_dict = 1;
		if (in->cbytes - table_end < 4)
			return tsr_error(TSR_E_CORRUPT, "blosc: dictionary size past the end");
		int32_t dsize = rd32(src + table_end);
		if (dsize <= 0 || dsize > in->cbytes - table_end - 4)
			return tsr_error(TSR_E_CORRUPT, "blosc: dictionary of %d bytes does not fit",
					 dsize);
		in->dict_offset = table_end + 4;
		in->dict_nbytes = dsize;
		if (in->codec != TSR_BLOSC_ZSTD && in->codec != TSR_BLOSC_LZ4)
			return tsr_error(TSR_E_UNSUPPORTED, "blosc: dictionary with codec format %d",
					 in->codec);
	}

	switch (in->codec) {
	case TSR_BLOSC_BLOSCLZ:
	case TSR_BLOSC_LZ4:
	case TSR_BLOSC_ZLIB:
	case TSR_BLOSC_ZSTD:
		break;
	case TSR_BLOSC_SNAPPY:
		return tsr_error(TSR_E_UNSUPPORTED, "blosc: snappy streams are not decoded");
	case TSR_BLOSC_UDCODEC:
		return tsr_error(TSR_E_UNSUPPORTED, "blosc: codec %d%s, a user or plugin codec "
				 "tessera does not decode", in->udcodec,
				 tsr_blosc_plugin_codec(in->udcodec));
	default:
		return tsr_error(TSR_E_UNSUPPORTED, "blosc: codec format %d", in->codec);
	}

	/* Blosc1 readers split only under conditions older writers relied on; Blosc2 writers
	 * always set the dont-split flag when they do not split. */
	if (in->version >= 3)
		in->split = !(in->flags & 0x10);
	else
		in->split = !(in->flags & 0x10) && in->typesize <= 16 &&
			    in->blocksize / in->typesize >= 128;

	for (int i = TSR_BLOSC_MAX_FILTERS - 1; i >= 0; i--) {
		int f = in->filters[i], m = in->filters_meta[i];
		switch (f) {
		case TSR_BLOSC_NOFILTER:
		case TSR_BLOSC_TRUNC_PREC:
		case TSR_BLOSC_INT_TRUNC:
			continue;
		case TSR_BLOSC_SHUFFLE:
			if ((m ? m : in->typesize) <= 1)
				continue; /* one-byte elements: nothing to undo */
			break;
		case TSR_BLOSC_DELTA:
			d->has_delta = 1;
			break;
		case TSR_BLOSC_BITSHUFFLE:
		case TSR_BLOSC_BYTEDELTA_V1:
		case TSR_BLOSC_BYTEDELTA:
			break;
		default:
			return tsr_error(TSR_E_UNSUPPORTED, "blosc: filter %d%s (slot %d), a user or "
					 "plugin filter tessera does not undo", f,
					 f == 32 ? " (NDCELL)" : f == 33 ? " (NDMEAN)" : "", i);
		}
		/* (DELTA anywhere in the pipeline, as often as it comes: c-blosc2's encoder XORs
		 * each block but block 0 with the chunk's input block 0, so every DELTA step of a
		 * decode takes the final bytes of block 0 (dec_block's ref0), whatever filters
		 * follow it; block 0's own DELTA steps are prefix XORs of what they are given) */
		d->filt[d->nfilt] = (uint8_t)f;
		d->fmeta[d->nfilt] = (uint8_t)m;
		d->nfilt++;
	}
	in->nundo = d->nfilt;
	memcpy(in->undo, d->filt, sizeof(in->undo));
	memcpy(in->undo_meta, d->fmeta, sizeof(in->undo_meta));
	return TSR_OK;
}

int tsr_blosc_info(const void *src, size_t src_nbytes, struct tsr_blosc_info *info_ret)
{
	struct bl_dec d;
	int rc = parse(src, src_nbytes, &d);
	if (rc)
		return rc;
	*info_ret = d.in;
	return TSR_OK;
}

/* ---- decoding state ---- */

static int dec_setup(struct bl_dec *d, struct tsr_blosc_scratch *scratch, int need_ref0)
{
	const struct tsr_blosc_info *in = &d->in;
	if (scratch) {
		d->s = scratch;
	} else {
		int rc = tsr_blosc_scratch_create(&d->s);
		if (rc)
			return rc;
		d->own_scratch = 1;
	}
	size_t bs = (size_t)in->blocksize;
	size_t need = (d->nfilt > 0 ? 3 * bs : 0) + (need_ref0 ? bs : 0);
	if (need > d->s->cap) {
		free(d->s->buf);
		d->s->cap = 0;
		d->s->buf = malloc(need);
		if (!d->s->buf)
			return tsr_error(TSR_E_NOMEM, "blosc: cannot allocate %zu bytes of block buffers",
					 need);
		d->s->cap = need;
	}
	if (d->nfilt > 0) {
		d->tmp_a = d->s->buf;
		d->tmp_b = d->s->buf + bs;
		d->tmp_c = d->s->buf + 2 * bs;
		d->ref0_buf = d->s->buf + 3 * bs;
	} else {
		d->ref0_buf = d->s->buf;
	}
	if (in->codec == TSR_BLOSC_ZSTD && !d->s->zd) {
		d->s->zd = ZSTD_createDCtx();
		if (!d->s->zd)
			return tsr_error(TSR_E_NOMEM, "blosc: cannot allocate a zstd context");
	}
	if (in->codec == TSR_BLOSC_ZLIB && !d->s->ld) {
		d->s->ld = libdeflate_alloc_decompressor();
		if (!d->s->ld)
			return tsr_error(TSR_E_NOMEM, "blosc: cannot allocate a zlib decompressor");
	}
	if (in->use_dict && in->codec == TSR_BLOSC_ZSTD && !d->ddict) {
		d->ddict = ZSTD_createDDict(d->src + in->dict_offset, (size_t)in->dict_nbytes);
		if (!d->ddict)
			return tsr_error(TSR_E_CORRUPT, "blosc: unusable zstd dictionary");
		d->own_ddict = 1;
	}
	return TSR_OK;
}

static void dec_teardown(struct bl_dec *d)
{
	if (d->own_ddict)
		ZSTD_freeDDict(d->ddict);
	if (d->own_scratch)
		tsr_blosc_scratch_free(d->s);
}

/* Decodes one stream of exactly n bytes. */
static int stream_decode(struct bl_dec *d, uint8_t *dst, size_t n, const uint8_t *src, size_t cs)
{
	const struct tsr_blosc_info *in = &d->in;
	size_t got = 0;
	switch (in->codec) {
	case TSR_BLOSC_BLOSCLZ: {
		int rc = tsr_blosclz_decode(dst, n, src, cs, &got);
		if (rc)
			return rc;
		if (got != n)
			return tsr_error(TSR_E_CORRUPT, "blosclz: decodes to %zu bytes, expected %zu",
					 got, n);
		return TSR_OK;
	}
	case TSR_BLOSC_LZ4: {
		int r;
		if (in->use_dict)
			r = LZ4_decompress_safe_usingDict((const char *)src, (char *)dst, (int)cs, (int)n,
							  (const char *)d->src + in->dict_offset,
							  (int)in->dict_nbytes);
		else
			r = LZ4_decompress_safe((const char *)src, (char *)dst, (int)cs, (int)n);
		if (r < 0)
			return tsr_error(TSR_E_CORRUPT, "lz4: malformed stream");
		if ((size_t)r != n)
			return tsr_error(TSR_E_CORRUPT, "lz4: decodes to %d bytes, expected %zu", r, n);
		return TSR_OK;
	}
	case TSR_BLOSC_ZLIB: {
		enum libdeflate_result r =
			libdeflate_zlib_decompress(d->s->ld, src, cs, dst, n, &got);
		if (r == LIBDEFLATE_INSUFFICIENT_SPACE)
			return tsr_error(TSR_E_CORRUPT, "zlib: decodes to more than %zu bytes", n);
		if (r != LIBDEFLATE_SUCCESS)
			return tsr_error(TSR_E_CORRUPT, "zlib: bad or truncated stream");
		if (got != n)
			return tsr_error(TSR_E_CORRUPT, "zlib: decodes to %zu bytes, expected %zu", got,
					 n);
		return TSR_OK;
	}
	case TSR_BLOSC_ZSTD: {
		size_t r = d->ddict ? ZSTD_decompress_usingDDict(d->s->zd, dst, n, src, cs, d->ddict)
				    : ZSTD_decompressDCtx(d->s->zd, dst, n, src, cs);
		if (ZSTD_isError(r))
			return tsr_error(TSR_E_CORRUPT, "zstd: %s", ZSTD_getErrorName(r));
		if (r != n)
			return tsr_error(TSR_E_CORRUPT, "zstd: decodes to %zu bytes, expected %zu", r, n);
		return TSR_OK;
	}
	default:
		return tsr_error(TSR_E_INTERNAL, "blosc: codec %d slipped through", in->codec);
	}
}

/* Fills n bytes that start at byte offset `at` of a special chunk. */
static void fill_special(const struct bl_dec *d, uint8_t *out, size_t n, size_t at)
{
	static const uint8_t nan32[4] = {0x00, 0x00, 0xc0, 0x7f};
	static const uint8_t nan64[8] = {0, 0, 0, 0, 0, 0, 0xf8, 0x7f};
	const uint8_t *pat;
	size_t plen = (size_t)d->value_nbytes;
	switch (d->in.special) {
	case TSR_BLOSC_SPECIAL_NAN:
		pat = d->in.typesize == 4 ? nan32 : nan64;
		break;
	case TSR_BLOSC_SPECIAL_VALUE:
		pat = d->src + d->in.header_nbytes;
		break;
	default:
		memset(out, 0, n);
		return;
	}
	size_t first = n < plen ? n : plen;
	for (size_t k = 0; k < first; k++)
		out[k] = pat[(at + k) % plen];
	/* the filled prefix is a whole number of periods: double it */
	size_t filled = first;
	while (filled < n) {
		size_t c = n - filled < filled ? n - filled : filled;
		memcpy(out + filled, out, c);
		filled += c;
	}
}

static size_t block_nbytes(const struct tsr_blosc_info *in, int64_t b)
{
	return (size_t)(b == in->nblocks - 1 ? in->last_block_nbytes : in->blocksize);
}

int tsr_blosc_block_streams(const struct tsr_blosc_info *in, const void *chunk, int64_t b,
			    struct tsr_blosc_stream *streams, int *n_ret)
{
	const uint8_t *src = chunk;
	int64_t data_start = in->use_dict ? in->dict_offset + in->dict_nbytes
					  : in->header_nbytes + 4 * in->nblocks;
	size_t bsize = block_nbytes(in, b);
	int64_t bstart = rd32(src + in->header_nbytes + 4 * b);
	if (bstart < data_start || bstart >= in->cbytes)
		return tsr_error(TSR_E_CORRUPT,
				 "blosc: block %lld starts at byte %lld, outside the data (%lld..%lld)",
				 (long long)b, (long long)bstart, (long long)data_start,
				 (long long)in->cbytes);
	int leftover = b == in->nblocks - 1 && in->nbytes % in->blocksize != 0;
	int nstreams = in->split && !leftover ? in->typesize : 1;
	if (bsize % (size_t)nstreams != 0)
		return tsr_error(TSR_E_CORRUPT,
				 "blosc: block %lld of %zu bytes does not split into %d streams",
				 (long long)b, bsize, nstreams);
	size_t neblock = bsize / (size_t)nstreams;
	int64_t p = bstart, end = in->cbytes;
	for (int j = 0; j < nstreams; j++) {
		struct tsr_blosc_stream *sp = &streams[j];
		if (end - p < 4)
			return tsr_error(TSR_E_CORRUPT,
					 "blosc: block %lld stream %d: size field past the end of the chunk",
					 (long long)b, j);
		int32_t cs = rd32(src + p);
		p += 4;
		*sp = (struct tsr_blosc_stream){.src = (uint64_t)p, .dst = (uint64_t)j * neblock,
						.n = neblock, .kind = TSR_BLOSC_STREAM_SET};
		if (cs < 0) {
			if (p >= end)
				return tsr_error(TSR_E_CORRUPT,
						 "blosc: block %lld stream %d: token past the end",
						 (long long)b, j);
			uint8_t token = src[p++];
			if (!(token & 0x01) || cs < -255)
				return tsr_error(TSR_E_CORRUPT,
						 "blosc: block %lld stream %d: unknown run token %#x (size %d)",
						 (long long)b, j, token, cs);
			sp->value = -cs; /* a run of one byte */
		} else if (cs > 0) {
			if (cs > end - p)
				return tsr_error(TSR_E_CORRUPT,
						 "blosc: block %lld stream %d: %d bytes run past the end of the chunk",
						 (long long)b, j, cs);
			/* a stream as long as its output is stored as it is */
			sp->kind = (size_t)cs == neblock ? TSR_BLOSC_STREAM_COPY : TSR_BLOSC_STREAM_CODED;
			sp->csize = (uint64_t)cs;
			p += cs;
		} /* cs == 0: zeros */
	}
	*n_ret = nstreams;
	return TSR_OK;
}

/* Decodes block b into out (block_nbytes(b) bytes). ref0: decoded block 0 (DELTA). */
static int dec_block(struct bl_dec *d, int64_t b, uint8_t *out, const uint8_t *ref0)
{
	const struct tsr_blosc_info *in = &d->in;
	size_t bsize = block_nbytes(in, b);
	struct tsr_blosc_stream streams[TSR_BLOSC_MAX_STREAMS];
	int nstreams;
	int st = tsr_blosc_block_streams(in, d->src, b, streams, &nstreams);
	if (st)
		return st;
	int direct = d->nfilt == 0 || (d->nfilt == 1 && d->has_delta);
	uint8_t *stage = direct ? out : d->tmp_a;
	const uint8_t *cur = stage;
	/* A block stored as it is, as one stream, is the first filter's input where it lies: no
	 * copy into the scratch (incompressible bitshuffled blocks are stored so). */
	int stored = !direct && nstreams == 1 && streams[0].kind == TSR_BLOSC_STREAM_COPY;
	if (stored)
		cur = d->src + streams[0].src;
	for (int j = 0; j < nstreams && !stored; j++) {
		const struct tsr_blosc_stream *sp = &streams[j];
		uint8_t *o = stage + sp->dst;
		if (sp->kind == TSR_BLOSC_STREAM_SET) {
			memset(o, sp->value, sp->n);
		} else if (sp->kind == TSR_BLOSC_STREAM_COPY) {
			memcpy(o, d->src + sp->src, sp->n);
		} else if ((st = stream_decode(d, o, sp->n, d->src + sp->src, sp->csize))) {
			tsr_error_prefix("blosc: block %lld stream %d", (long long)b, j);
			return st;
		}
	}
	for (int k = 0; k < d->nfilt; k++) {
		uint8_t *nxt = k == d->nfilt - 1 ? out : (cur == d->tmp_a ? d->tmp_b : d->tmp_a);
		int m = d->fmeta[k];
		switch (d->filt[k]) {
		case TSR_BLOSC_SHUFFLE:
			tsr_blosc_unshuffle(nxt, cur, bsize, (size_t)(m ? m : in->typesize));
			break;
		case TSR_BLOSC_BITSHUFFLE:
			tsr_blosc_bitunshuffle(nxt, cur, bsize, (size_t)in->typesize, in->version,
					       d->tmp_c);
			break;
		case TSR_BLOSC_DELTA:
			tsr_blosc_delta_decode(nxt, cur, bsize, (size_t)in->typesize,
					       b == 0 ? NULL : ref0);
			break;
		default: /* BYTEDELTA, BYTEDELTA_V1 */
			tsr_blosc_bytedelta_decode(nxt, cur, bsize, (size_t)(m ? m : in->typesize),
						   d->filt[k] == TSR_BLOSC_BYTEDELTA_V1);
			break;
		}
		cur = nxt;
	}
	return TSR_OK;
}

int tsr_blosc_decode(void *dst, size_t dst_nbytes, const void *src, size_t src_nbytes,
		     struct tsr_blosc_scratch *scratch, size_t *out_nbytes_ret)
{
	struct bl_dec d;
	if (out_nbytes_ret)
		*out_nbytes_ret = 0;
	int rc = parse(src, src_nbytes, &d);
	if (rc)
		return rc;
	const struct tsr_blosc_info *in = &d.in;
	if ((uint64_t)in->nbytes > dst_nbytes)
		return tsr_error(TSR_E_TOO_SMALL, "blosc: chunk decodes to %lld bytes, room for %zu",
				 (long long)in->nbytes, dst_nbytes);
	uint8_t *out = dst;
	if (in->special) {
		fill_special(&d, out, (size_t)in->nbytes, 0);
	} else if (in->memcpyed) {
		memcpy(out, d.src + in->header_nbytes, (size_t)in->nbytes);
	} else if (in->nblocks > 0) {
		rc = dec_setup(&d, scratch, 0);
		for (int64_t b = 0; !rc && b < in->nblocks; b++)
			rc = dec_block(&d, b, out + b * in->blocksize, out);
		dec_teardown(&d);
		if (rc)
			return rc;
	}
	if (out_nbytes_ret)
		*out_nbytes_ret = (size_t)in->nbytes;
	return TSR_OK;
}

int tsr_blosc_decode_blocks(void *dst, size_t dst_nbytes, const void *src, size_t src_nbytes,
			    int64_t first, int64_t count, struct tsr_blosc_scratch *scratch)
{
	struct bl_dec d;
	int rc = parse(src, src_nbytes, &d);
	if (rc)
		return rc;
	const struct tsr_blosc_info *in = &d.in;
	if (first < 0 || count < 0 || first > in->nblocks || count > in->nblocks - first)
		return tsr_error(TSR_E_RANGE, "blosc: blocks %lld..%lld of a chunk with %lld",
				 (long long)first, (long long)(first + count), (long long)in->nblocks);
	if (count == 0)
		return TSR_OK;
	uint64_t need = (uint64_t)(count - 1) * (uint64_t)in->blocksize +
			block_nbytes(in, first + count - 1);
	if (need > dst_nbytes)
		return tsr_error(TSR_E_TOO_SMALL, "blosc: %lld blocks need %llu bytes, room for %zu",
				 (long long)count, (unsigned long long)need, dst_nbytes);
	uint8_t *out = dst;
	size_t at = (size_t)(first * in->blocksize);
	if (in->special) {
		fill_special(&d, out, (size_t)need, at);
		return TSR_OK;
	}
	if (in->memcpyed) {
		memcpy(out, d.src + in->header_nbytes + at, (size_t)need);
		return TSR_OK;
	}
	int need_ref0 = d.has_delta && first > 0;
	rc = dec_setup(&d, scratch, need_ref0);
	const uint8_t *ref0 = out;
	if (!rc && need_ref0) {
		rc = dec_block(&d, 0, d.ref0_buf, NULL);
		ref0 = d.ref0_buf;
	}
	for (int64_t k = 0; !rc && k < count; k++)
		rc = dec_block(&d, first + k, out + k * in->blocksize, ref0);
	dec_teardown(&d);
	return rc;
}

/* ---- one chunk parsed once, its blocks decoded by many threads ---- */

struct tsr_blosc_chunk {
	struct bl_dec d; /* read only once open: its scratch fields stay unset */
};

int tsr_blosc_chunk_open(const void *src, size_t src_nbytes, struct tsr_blosc_chunk **chunk_ret)
{
	*chunk_ret = NULL;
	struct tsr_blosc_chunk *c = calloc(1, sizeof(*c));
	if (!c)
		return tsr_error(TSR_E_NOMEM, "blosc: out of memory");
	int rc = parse(src, src_nbytes, &c->d);
	const struct tsr_blosc_info *in = &c->d.in;
	if (!rc && !in->special && !in->memcpyed && in->use_dict && in->codec == TSR_BLOSC_ZSTD) {
		/* a digested dictionary only reads its tables: every thread's copy of d uses it */
		c->d.ddict = ZSTD_createDDict(c->d.src + in->dict_offset, (size_t)in->dict_nbytes);
		if (!c->d.ddict)
			rc = tsr_error(TSR_E_CORRUPT, "blosc: unusable zstd dictionary");
	}
	if (rc) {
		tsr_blosc_chunk_free(c);
		return rc;
	}
	*chunk_ret = c;
	return TSR_OK;
}

void tsr_blosc_chunk_free(struct tsr_blosc_chunk *c)
{
	if (!c)
		return;
	ZSTD_freeDDict(c->d.ddict);
	free(c);
}

const struct tsr_blosc_info *tsr_blosc_chunk_info(const struct tsr_blosc_chunk *c)
{
	return &c->d.in;
}

int tsr_blosc_chunk_has_delta(const struct tsr_blosc_chunk *c)
{
	return c->d.has_delta;
}

int tsr_blosc_chunk_block(const struct tsr_blosc_chunk *c, int64_t b, int64_t end, void *dst,
			  const void *ref0, struct tsr_blosc_scratch *scratch)
{
	struct bl_dec d = c->d; /* this thread's copy: its own scratch, the shared dictionary */
	const struct tsr_blosc_info *in = &d.in;
	if (end > 0 && end < d.in.cbytes)
		d.in.cbytes = end; /* the block's streams must lie before end */
	if (b < 0 || b >= in->nblocks)
		return tsr_error(TSR_E_RANGE, "blosc: block %lld of a chunk with %lld", (long long)b,
				 (long long)in->nblocks);
	size_t n = block_nbytes(in, b), at = (size_t)(b * in->blocksize);
	if (in->special) {
		fill_special(&d, dst, n, at);
		return TSR_OK;
	}
	if (in->memcpyed) {
		memcpy(dst, d.src + in->header_nbytes + at, n);
		return TSR_OK;
	}
	if (d.has_delta && b > 0 && !ref0)
		return tsr_error(TSR_E_INTERNAL, "blosc: DELTA block %lld without block 0", (long long)b);
	d.own_ddict = 0;
	int rc = dec_setup(&d, scratch, 0);
	if (!rc)
		rc = dec_block(&d, b, dst, ref0);
	dec_teardown(&d);
	return rc;
}
