/* frame.c - the Blosc2 frame driver: contiguous frames and sparse (directory) frames holding a
 * b2nd array or a plain super-chunk.
 *
 * Opening reads only metadata: the msgpack header with its metalayers, the trailer, and the
 * chunk-offsets index (itself a blosc chunk). All of it stays on the handle, immutable after
 * tsr_blosc2_open returns, so chunk_ref only reads it and many threads may call it at once.
 * Chunks decode with TSR_CODEC_BLOSC_B2ND (src/codecs/b2nd_blocks.c), which reads only the
 * blocks a section needs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../codecs/blosc.h"
#include "../../core/file.h"
#include "../open.h"
#include "blosc2.h"

_Static_assert(TSR_B2ND_MAX_DIM <= TSR_BLOCKED_MAX_DIM, "b2nd layouts must fit chunk refs");

/* Metadata larger than this is not a frame we should trust with memory. */
#define TSR_B2_MAX_META_NBYTES ((int64_t)1 << 28)

struct tsr_b2 {
	int sparse;
	struct tsr_b2_header h;
	int64_t nchunks;
	int64_t *offsets;      /* the index: offsets from header_len (contiguous), chunk file
				* numbers (sparse), negative: special chunks */
	int64_t *starts;       /* contiguous: the distinct offsets of stored chunks, ascending: a
				* chunk ends at the latest where the next one starts */
	int64_t nstarts;
	uint64_t data_end;     /* contiguous: end of the chunks section */
	int b2nd;              /* 0: a plain super-chunk, read as 1-D */
	struct tsr_blocked blocked;
	enum tsr_dtype dtype;
	int big_endian, be_from_chunk;
	int nvlmeta;
	char codec[32];
	char *descr;           /* the NumPy descr of dtypes beyond numbers; NULL otherwise */
	uint8_t *zeros;        /* a zero element, for zero chunks of elements over 16 bytes */
};

int tsr_blosc2_sniff(const unsigned char *head, size_t n)
{
	/* fixarray(14), fixstr(8): the magic "b2frame\0" itself is checked on open, so that a
	 * frame with a damaged magic is told so rather than read as something else */
	return n >= 2 && head[0] == 0x9e && head[1] == 0xa8;
}

static int tsr_b2_magic(const unsigned char *head, size_t n)
{
	return n >= 10 && tsr_blosc2_sniff(head, n) && memcmp(head + 2, "b2frame", 8) == 0;
}

int tsr_blosc2_sniff_dir(const char *path)
{
	char p[4096];
	unsigned char head[10];
	int fd;
	uint64_t size;
	if ((size_t)snprintf(p, sizeof(p), "%s/chunks.b2frame", path) >= sizeof(p))
		return 0;
	if (tsr_file_open(p, &fd, &size) != TSR_OK)
		return 0;
	int ok = size >= sizeof(head) && tsr_file_pread(fd, head, sizeof(head), 0) == TSR_OK &&
		 tsr_blosc2_sniff(head, sizeof(head));
	tsr_file_close(fd);
	tsr_error_clear();
	return ok;
}

static void tsr_b2_free(void *impl)
{
	struct tsr_b2 *f = impl;
	if (!f)
		return;
	free(f->offsets);
	free(f->starts);
	free(f->descr);
	free(f->zeros);
	free(f);
}

static int tsr_b2_chunk_ref(const struct tsr_array *a, int64_t chunk, struct tsr_chunk_ref *ref)
{
	const struct tsr_b2 *f = a->impl;
	if (chunk < 0 || chunk >= f->nchunks)
		return tsr_error(TSR_E_INTERNAL, "chunk %lld of %lld", (long long)chunk,
				 (long long)f->nchunks);
	memset(ref, 0, sizeof(*ref));
	ref->npix = tsr_array_chunk_extent(a, chunk, ref->extent);
	ref->codec.elem = f->dtype;
	ref->codec.big_endian = f->big_endian;
	ref->codec.be_from_chunk = f->be_from_chunk;
	ref->xform.kind = TSR_XF_COPY;
	ref->xform.out = f->dtype;
	ref->codec_name = f->codec;

	int64_t off = f->offsets[chunk];
	if (off < 0) {
		/* a special chunk kept in the index only: bits 56-58 say which */
		int kind = (int)(((uint64_t)off >> 56) & 0x7);
		ref->codec.id = TSR_CODEC_FILL;
		ref->xform.has_fill = 1;
		ref->xform.fill_wide = f->zeros; /* elements wider than xform.fill */
		if (kind == 2) {
			static const uint8_t nan32[4] = {0x00, 0x00, 0xc0, 0x7f};
			static const uint8_t nan64[8] = {0, 0, 0, 0, 0, 0, 0xf8, 0x7f};
			/* the item size says which NaN's bits fill it, whatever the dtype, as
			 * c-blosc2 decodes these chunks (python-blosc2's nans() of complex64 gives
			 * 0+nanj: float64 NaN's bytes) */
			ref->xform.fill_wide = NULL; /* (the NaN's bits, not a raw dtype's zeros) */
			if (f->h.typesize == 4)
				memcpy(ref->xform.fill, nan32, 4);
			else if (f->h.typesize == 8)
				memcpy(ref->xform.fill, nan64, 8);
			else
				return tsr_error(TSR_E_UNSUPPORTED,
						 "chunk-offsets index: a NaN chunk of %d-byte items (c-blosc2 "
						 "fills NaN chunks of 4- and 8-byte items only)",
						 f->h.typesize);
		} else if (kind != 1 && kind != 4) {
			/* 1 zeros, 4 uninitialised (read as zeros, as c-blosc2 does) */
			return tsr_error(TSR_E_CORRUPT, "chunk-offsets index: special chunk kind %d", kind);
		}
		return TSR_OK;
	}
	ref->codec.id = TSR_CODEC_BLOSC_B2ND;
	if (f->b2nd) {
		ref->blocked = f->blocked;
	} else {
		/* a plain super-chunk is one row of items: the chunk header's blocks decide */
		ref->blocked.padded[0] = (int32_t)ref->extent[0];
		ref->blocked.block[0] = (int32_t)ref->extent[0];
	}
	if (f->sparse) {
		if ((uint64_t)off > UINT32_MAX)
			return tsr_error(TSR_E_CORRUPT, "chunk-offsets index: chunk file number %lld",
					 (long long)off);
		if ((size_t)snprintf(ref->path, sizeof(ref->path), "%s/%08llX.chunk", a->path,
				     (unsigned long long)off) >= sizeof(ref->path))
			return tsr_error(TSR_E_UNSUPPORTED, "path of chunk file too long");
		ref->offset = 0;
		ref->nbytes = TSR_WHOLE_FILE;
		return TSR_OK;
	}
	uint64_t start = (uint64_t)f->h.header_len + (uint64_t)off;
	if (off >= f->h.cbytes || start >= f->data_end)
		return tsr_error(TSR_E_CORRUPT,
				 "chunk-offsets index: chunk at byte %llu lies beyond the chunks section "
				 "(bytes %lld to %llu of the file)",
				 (unsigned long long)start, (long long)f->h.header_len,
				 (unsigned long long)f->data_end);
	/* the first stored chunk after this one, by binary search */
	int64_t lo = 0, hi = f->nstarts;
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (f->starts[mid] <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	uint64_t end = lo < f->nstarts ? (uint64_t)f->h.header_len + (uint64_t)f->starts[lo]
					: f->data_end;
	ref->offset = start;
	ref->nbytes = end - start;
	return TSR_OK;
}

static const struct tsr_driver_ops tsr_b2_ops = {
	.name = "blosc2", .chunk_ref = tsr_b2_chunk_ref, .free = tsr_b2_free};

/* Reads n bytes at off of a metadata region into a new buffer. */
static int read_new(int fd, uint64_t off, int64_t n, uint8_t **buf_ret)
{
	*buf_ret = malloc((size_t)n + 1);
	if (!*buf_ret)
		return tsr_error(TSR_E_NOMEM, "out of memory for %lld bytes", (long long)n);
	int st = tsr_file_pread(fd, *buf_ret, (size_t)n, off);
	if (st) {
		free(*buf_ret);
		*buf_ret = NULL;
	}
	return st;
}

/* A file that names no dtype (a plain super-chunk, or a b2nd dtype of another size than the
 * items) says only the item size. Nothing is guessed: the caller's dtype (of that size) when
 * given, else the unsigned integers of that size. */
static int tsr_b2_dtype_unnamed(struct tsr_array *a, struct tsr_b2 *f, const char *what)
{
	int32_t ts = f->h.typesize;
	enum tsr_dtype t = a->want_dtype;
	if (t != TSR_DTYPE_INVALID) {
		if (tsr_dtype_size(t) != (size_t)ts)
			return tsr_error(TSR_E_INVALID_ARG, "dtype %s has %zu-byte items, the %s "
					 "has %d-byte items", tsr_dtype_name(t), tsr_dtype_size(t), what, ts);
		f->dtype = t;
		/* an explicit order is the caller's word on the bytes; none leaves the chunk
		 * headers' flag to decide */
		if (a->want_order == '<' || a->want_order == '>') {
			f->be_from_chunk = 0;
			f->big_endian = a->want_order == '>' && ts > 1;
		}
		a->desc.dtype_source = "caller";
		return TSR_OK;
	}
	switch (ts) {
	case 1: f->dtype = TSR_UINT8; break;
	case 2: f->dtype = TSR_UINT16; break;
	case 4: f->dtype = TSR_UINT32; break;
	case 8: f->dtype = TSR_UINT64; break;
	default:
		/* (16: complex128; no other number has such items, and a caller's dtype is a
		 * number's: tsr_dtype_parse takes no bytes, strings or records) */
		return tsr_error(TSR_E_UNSUPPORTED, "the %s names no dtype and no unsigned integer "
				 "has %d-byte items: %s", what, ts,
				 ts == 16 ? "open it with a dtype of that size (complex128)"
					  : "no numeric dtype has that size, and tessera takes no bytes, "
					    "string or record dtype from the caller");
	}
	a->desc.dtype_source = "itemsize";
	return TSR_OK;
}

static const char *tsr_b2_filter_name(int id)
{
	switch (id) {
	case 1: return "shuffle";
	case 2: return "bitshuffle";
	case 3: return "delta";
	case 4: return "trunc_prec";
	case 34: case 35: return "bytedelta";
	case 36: return "int_trunc";
	default: return "filter";
	}
}

static void tsr_b2_codec_name(struct tsr_b2 *f)
{
	static const char *const names[] = {"blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"};
	int cc = f->h.codec_flags & 0x0f;
	int n = snprintf(f->codec, sizeof(f->codec), "blosc2/%s", cc < 6 ? names[cc] : "plugin");
	for (int i = 0; i < 6 && n > 0 && (size_t)n < sizeof(f->codec); i++)
		if (f->h.filters[i])
			n += snprintf(f->codec + n, sizeof(f->codec) - (size_t)n, "+%s",
				      tsr_b2_filter_name(f->h.filters[i]));
}

/* Array shape, chunk grid and dtype from the b2nd metalayer (or for a plain super-chunk). */
static int tsr_b2_describe(struct tsr_array *a, struct tsr_b2 *f, const uint8_t *hbuf)
{
	struct tsr_desc *d = &a->desc;
	const struct tsr_b2_header *h = &f->h;
	int mi = -1;
	for (int i = 0; i < h->nmeta; i++)
		/* python-blosc2 saves a lazy expression or function (LazyExpr.save) as a frame
		 * whose chunks are a placeholder (zeros): its values are computed from other
		 * arrays, which the "b2o" metalayer names; reading the chunks would be wrong */
		if (!strcmp(h->meta_name[i], "b2o"))
			return tsr_error(TSR_E_UNSUPPORTED, "a python-blosc2 lazy object ('b2o' "
					 "metalayer): its values are computed by python-blosc2 from "
					 "the arrays it names, not stored in the frame");
	for (int i = 0; i < h->nmeta && mi < 0; i++)
		if (!strcmp(h->meta_name[i], "b2nd"))
			mi = i;
	for (int i = 0; i < h->nmeta && mi < 0; i++)
		if (!strcmp(h->meta_name[i], "caterva"))
			mi = i;
	if (mi < 0) {
		/* plain super-chunk: 1-D items of typesize */
		if (h->typesize <= 0)
			return tsr_error(TSR_E_FORMAT, "super-chunk of %d-byte items", h->typesize);
		f->be_from_chunk = 1;
		int st = tsr_b2_dtype_unnamed(a, f, "super-chunk");
		if (st)
			return st;
		if (h->nbytes % h->typesize || h->chunksize % h->typesize)
			return tsr_error(TSR_E_FORMAT, "%lld bytes in chunks of %d are not whole "
					 "%d-byte items", (long long)h->nbytes, h->chunksize, h->typesize);
		d->ndim = 1;
		d->shape[0] = h->nbytes / h->typesize;
		d->chunk_shape[0] = h->chunksize / h->typesize > 0 ? h->chunksize / h->typesize : 1;
		return TSR_OK;
	}
	int64_t mo = h->meta_off[mi];
	if (mo < TSR_B2_HEADER_MINLEN || mo + 5 > h->header_len || hbuf[mo] != 0xc6)
		return tsr_error(TSR_E_FORMAT, "metalayer '%s' at byte %lld is not in the header",
				 h->meta_name[mi], (long long)mo);
	int64_t mlen = (int64_t)tsr_be32(hbuf + mo + 1);
	if (mlen > h->header_len - mo - 5)
		return tsr_error(TSR_E_FORMAT, "metalayer '%s' of %lld bytes runs past the header",
				 h->meta_name[mi], (long long)mlen);
	struct tsr_b2nd_meta m;
	int st = tsr_b2nd_meta_parse(hbuf + mo + 5, (size_t)mlen, &m);
	if (st)
		return st;
	f->b2nd = 1;
	d->ndim = m.ndim;
	int64_t padded = 1, nchunks = 1;
	for (int i = 0; i < m.ndim; i++) {
		int64_t s = m.shape[i], c = m.chunkshape[i], b = m.blockshape[i];
		/* python-blosc2 gives an axis of shape 0 chunks and blocks of 0 unless told
		 * otherwise (zeros((0, 4)): chunks (0, 4)), and stores no chunk. 0 is taken only
		 * there and for both: on an axis holding items, or one without the other, it is
		 * no layout c-blosc2 writes. Such an axis is described with chunks and blocks of 1,
		 * as any driver's: a chunk is at least 1 wide (grids divide by it). */
		int empty = s == 0 && c == 0 && b == 0;
		if (s < 0 || (!empty && (c <= 0 || b <= 0)) || c > INT32_MAX || b > INT32_MAX)
			return tsr_error(TSR_E_FORMAT, "b2nd metalayer: axis %d: shape %lld, chunks %lld, "
					 "blocks %lld", i, (long long)s, (long long)c, (long long)b);
		if (empty)
			c = b = 1;
		d->shape[i] = s;
		d->chunk_shape[i] = c;
		int64_t rounded = (c + b - 1) / b * b;
		if (rounded > INT32_MAX)
			return tsr_error(TSR_E_FORMAT, "b2nd metalayer: axis %d: chunks of %lld in "
					 "blocks of %lld", i, (long long)c, (long long)b);
		f->blocked.block[i] = (int32_t)b;
		f->blocked.padded[i] = (int32_t)rounded;
		/* c-blosc2 pads chunks to blocks only on non-empty axes (b2nd.c update_shape) */
		int64_t p = s ? rounded : c;
		if (padded > (int64_t)INT32_MAX / p)
			return tsr_error(TSR_E_FORMAT, "b2nd metalayer: chunks of over 2 GiB");
		padded *= p;
		if (s && __builtin_mul_overflow(nchunks, s / c + (s % c != 0), &nchunks))
			return tsr_error(TSR_E_FORMAT, "b2nd metalayer: too many chunks");
		nchunks = s ? nchunks : 0;
	}
	if (h->nbytes > 0 && padded * h->typesize != h->chunksize)
		return tsr_error(TSR_E_FORMAT, "b2nd chunks of %lld items of %d bytes, but the frame "
				 "has chunks of %d bytes", (long long)padded, h->typesize, h->chunksize);
	int64_t all;
	if ((__builtin_mul_overflow(nchunks, (int64_t)h->chunksize, &all) || h->nbytes != all) &&
	    (h->nbytes || nchunks))
		return tsr_error(TSR_E_FORMAT, "the frame holds %lld bytes, the b2nd array %lld chunks "
				 "of %d", (long long)h->nbytes, (long long)nchunks, h->chunksize);
	/* The dtype says how to read the items; c-blosc2's own examples store "|u1" for 4-byte
	 * items, so when its size disagrees with the typesize it names nothing. */
	enum tsr_dtype t = TSR_DTYPE_INVALID;
	int be = 0;
	if (m.has_dtype && m.dtype_format == 0) {
		if ((st = tsr_b2_dtype_parse(m.dtype, &t, &be)) == TSR_E_UNSUPPORTED) {
			/* strings, raw bytes, datetimes, structured: their size must be the items' */
			tsr_error_clear();
			free(f->descr);
			f->descr = NULL;
			if ((st = tsr_b2_dtype_ext(m.dtype, &t, &be, &f->descr)))
				return st;
			if (tsr_dtype_size(t) != (size_t)h->typesize)
				return tsr_error(TSR_E_FORMAT, "b2nd dtype '%.200s' has items of %zu "
						 "bytes, the frame of %d", m.dtype, tsr_dtype_size(t),
						 h->typesize);
			free(f->zeros);
			f->zeros = calloc(1, tsr_dtype_size(t));
			if (!f->zeros)
				return tsr_error(TSR_E_NOMEM, "out of memory");
		}
		if (st)
			return st;
		if (tsr_dtype_size(t) != (size_t)h->typesize)
			t = TSR_DTYPE_INVALID, be = 0;
	}
	if (t == TSR_DTYPE_INVALID)
		return tsr_b2_dtype_unnamed(a, f, "b2nd array");
	f->dtype = t;
	f->big_endian = be;
	return TSR_OK;
}

static int cmp_off(const void *x, const void *y)
{
	const int64_t *a = x, *b = y;
	return *a < *b ? -1 : *a > *b;
}

/* Contiguous frames: the distinct offsets of the stored chunks in file order (each chunk ends
 * at the latest where the next one starts, or at the end of the chunks section), and the
 * largest such span. Memory follows the stored chunks, which the chunks section bounds, not
 * the chunk count, which special chunks make free. */
static int tsr_b2_chunk_ends(struct tsr_b2 *f, uint64_t *max_nbytes)
{
	/* Stored chunks (not special) each take at least a blosc header in the chunks section:
	 * more of them than cbytes can hold is a false index, refused before the sort. */
	int64_t stored = 0;
	for (int64_t i = 0; i < f->nchunks; i++)
		stored += f->offsets[i] >= 0 && f->offsets[i] < f->h.cbytes;
	if (stored > f->h.cbytes / TSR_BLOSC_MIN_HEADER)
		return tsr_error(TSR_E_FORMAT, "chunk-offsets index: %lld chunks in a chunks section "
				 "of %lld bytes (each needs at least %d)", (long long)stored,
				 (long long)f->h.cbytes, TSR_BLOSC_MIN_HEADER);
	f->starts = malloc((size_t)stored * sizeof(int64_t) + 1);
	if (!f->starts)
		return tsr_error(TSR_E_NOMEM, "out of memory for %lld chunks", (long long)stored);
	int64_t n = 0;
	for (int64_t i = 0; i < f->nchunks; i++)
		if (f->offsets[i] >= 0 && f->offsets[i] < f->h.cbytes)
			f->starts[n++] = f->offsets[i];
	qsort(f->starts, (size_t)n, sizeof(int64_t), cmp_off);
	int64_t u = 0;
	for (int64_t k = 0; k < n; k++)
		if (u == 0 || f->starts[k] != f->starts[u - 1])
			f->starts[u++] = f->starts[k];
	f->nstarts = u;
	*max_nbytes = 0;
	for (int64_t k = 0; k < u; k++) {
		uint64_t end = k + 1 < u ? (uint64_t)(f->h.header_len + f->starts[k + 1]) : f->data_end;
		uint64_t size = end - (uint64_t)(f->h.header_len + f->starts[k]);
		if (size > *max_nbytes)
			*max_nbytes = size;
	}
	return TSR_OK;
}

/* Reads and decodes the chunk-offsets index at [ioff, iend) of the frame file. */
static int tsr_b2_read_index(struct tsr_b2 *f, int fd, int64_t ioff, int64_t iend)
{
	uint8_t head[32], *chunk = NULL;
	if (ioff < 0 || iend - ioff < 16)
		return tsr_error(TSR_E_FORMAT, "no room for the chunk-offsets index at byte %lld",
				 (long long)ioff);
	size_t hn = iend - ioff < 32 ? (size_t)(iend - ioff) : 32;
	int st = tsr_file_pread(fd, head, hn, (uint64_t)ioff);
	if (st)
		return st;
	int64_t icb = (int32_t)tsr_le32(head + 12);
	if (icb < 16 || icb > iend - ioff)
		return tsr_error(TSR_E_FORMAT, "chunk-offsets index of %lld bytes at byte %lld runs "
				 "past its room (%lld bytes; truncated?)", (long long)icb,
				 (long long)ioff, (long long)(iend - ioff));
	if ((st = read_new(fd, (uint64_t)ioff, icb, &chunk)))
		return st;
	struct tsr_blosc_info in;
	if ((st = tsr_blosc_info(chunk, (size_t)icb, &in)))
		goto done;
	if (in.nbytes / 8 < f->nchunks) {
		st = tsr_error(TSR_E_FORMAT, "chunk-offsets index holds %lld offsets for %lld chunks",
			       (long long)(in.nbytes / 8), (long long)f->nchunks);
		goto done;
	}
	/* Claims bounded by bytes (issue 21, D3): a special index stores no offsets, only one
	 * value for all of them; zeros, NaN or a non-negative value would put every chunk at
	 * one byte of the file. */
	if (in.special && f->nchunks > 1) {
		int64_t v = 0;
		if (in.special == TSR_BLOSC_SPECIAL_VALUE && in.typesize == 8 &&
		    icb >= in.header_nbytes + 8)
			v = (int64_t)((uint64_t)tsr_le32(chunk + in.header_nbytes) |
				      (uint64_t)tsr_le32(chunk + in.header_nbytes + 4) << 32);
		if (in.special != TSR_BLOSC_SPECIAL_VALUE || in.typesize != 8 || v >= 0) {
			st = tsr_error(TSR_E_FORMAT, "a %lld-byte special chunk claims %lld offsets "
				       "that are all alike: %lld chunks at one place", (long long)icb,
				       (long long)(in.nbytes / 8), (long long)f->nchunks);
			goto done;
		}
	}
	/* The decoded index is metadata like the header and trailer: the same ceiling. */
	if (in.nbytes > TSR_B2_MAX_META_NBYTES) {
		st = tsr_error(TSR_E_FORMAT, "%lld bytes of offsets for %lld chunks (at most %lld)",
			       (long long)in.nbytes, (long long)f->nchunks,
			       (long long)TSR_B2_MAX_META_NBYTES);
		goto done;
	}
	f->offsets = malloc((size_t)in.nbytes + 8);
	if (!f->offsets) {
		st = tsr_error(TSR_E_NOMEM, "out of memory for the chunk-offsets index");
		goto done;
	}
	if ((st = tsr_blosc_decode(f->offsets, (size_t)in.nbytes, chunk, (size_t)icb, NULL, NULL)))
		goto done;
	for (int64_t i = 0; i < f->nchunks; i++) {
		uint8_t *p = (uint8_t *)&f->offsets[i];
		f->offsets[i] = (int64_t)((uint64_t)tsr_le32(p) | (uint64_t)tsr_le32(p + 4) << 32);
	}
done:
	if (st)
		tsr_error_prefix("chunk-offsets index");
	free(chunk);
	return st;
}

int tsr_blosc2_frame_span(int fd, uint64_t fsize, int64_t *header_len_ret,
			  uint64_t *frame_len_ret)
{
	uint8_t fixed[TSR_B2_HEADER_MINLEN];
	int st;
	if (fsize < TSR_B2_HEADER_MINLEN)
		return tsr_error(TSR_E_FORMAT, "%llu bytes cannot hold a Blosc2 frame header "
				 "(truncated?)", (unsigned long long)fsize);
	if ((st = tsr_file_pread(fd, fixed, sizeof(fixed), 0)))
		return st;
	if (!tsr_b2_magic(fixed, sizeof(fixed)))
		return tsr_error(TSR_E_FORMAT, "not a Blosc2 frame (bad magic)");
	if (fixed[10] != 0xd2 || fixed[15] != 0xcf)
		return tsr_error(TSR_E_FORMAT, "frame header: no header or frame length");
	int64_t header_len = (int32_t)tsr_be32(fixed + 11);
	uint64_t frame_len = tsr_be64(fixed + 16);
	if (header_len < TSR_B2_HEADER_MINLEN || header_len > TSR_B2_MAX_META_NBYTES ||
	    (uint64_t)header_len > frame_len)
		return tsr_error(TSR_E_FORMAT, "frame header of %lld bytes in a frame of %llu",
				 (long long)header_len, (unsigned long long)frame_len);
	if (frame_len > fsize)
		return tsr_error(TSR_E_FORMAT, "the frame says it has %llu bytes but the file has %llu "
				 "(truncated?)", (unsigned long long)frame_len,
				 (unsigned long long)fsize);
	*header_len_ret = header_len;
	*frame_len_ret = frame_len;
	return TSR_OK;
}

static int tsr_b2_open_frame(struct tsr_array *a, struct tsr_b2 *f, int fd, uint64_t fsize)
{
	uint8_t *hbuf = NULL, *tbuf = NULL;
	struct tsr_b2_header *h = &f->h;
	int64_t header_len = 0;
	uint64_t frame_len = 0;
	int st = tsr_blosc2_frame_span(fd, fsize, &header_len, &frame_len);
	if (st)
		return st;
	if ((st = read_new(fd, 0, header_len, &hbuf)))
		return st;
	if ((st = tsr_b2_header_parse(hbuf, (size_t)header_len, h)))
		goto done;
	st = TSR_E_FORMAT;
	if (h->header_len != header_len || (uint64_t)h->frame_len != frame_len) {
		tsr_error(st, "frame header: lengths disagree with its fixed fields");
		goto done;
	}
	if ((h->general_flags & 0x0f) > 3) {
		st = tsr_error(TSR_E_UNSUPPORTED, "frame format version %d (this reader knows 1-3)",
			       h->general_flags & 0x0f);
		goto done;
	}
	if (((h->general_flags >> 4) & 0x3) != 1) {
		st = tsr_error(TSR_E_UNSUPPORTED, "chunk offsets of %d bits (only 64 exist)",
			       32 << ((h->general_flags >> 4) & 0x3));
		goto done;
	}
	if (h->general_flags & 0x80) {
		st = tsr_error(TSR_E_UNSUPPORTED, "frame of variable-length-block chunks");
		goto done;
	}
	if (h->frame_type != f->sparse) {
		tsr_error(st, "frame type %d in a %s", h->frame_type,
			  f->sparse ? "sparse frame directory" : "frame file");
		goto done;
	}
	/* A frame of no bytes holds no chunks, whatever cbytes says: c-blosc2 leaves cbytes as it
	 * was when the last chunk goes (python-blosc2's resize to 0, SChunk.delete_chunk) and
	 * reads neither chunks nor cbytes then, its trailer right after the header
	 * (get_trailer_offset). */
	if (h->nbytes == 0)
		h->cbytes = 0;
	if (h->nbytes < 0 || h->cbytes < 0 ||
	    (!f->sparse && h->cbytes > (int64_t)frame_len - header_len)) {
		tsr_error(st, "frame of %llu bytes cannot hold %lld bytes of chunks after its "
			  "%lld-byte header (truncated?)", (unsigned long long)frame_len,
			  (long long)h->cbytes, (long long)header_len);
		goto done;
	}
	if (h->chunksize == 0 && h->nbytes > 0) {
		st = tsr_error(TSR_E_UNSUPPORTED, "frame of variable-size chunks");
		goto done;
	}
	f->data_end = (uint64_t)header_len + (uint64_t)h->cbytes;

	/* trailer: ... 0xce trailer_len(4) 0xd8 fingerprint(17) at the frame's end */
	int64_t body_end = f->sparse ? header_len : (int64_t)f->data_end;
	uint8_t tail[23];
	if ((int64_t)frame_len - body_end < 23) {
		tsr_error(st, "no trailer after the chunks (truncated?)");
		goto done;
	}
	if ((st = tsr_file_pread(fd, tail, sizeof(tail), frame_len - sizeof(tail))))
		goto done;
	st = TSR_E_FORMAT;
	int64_t tlen = (int64_t)tsr_be32(tail + 1);
	if (tail[0] != 0xce || tail[5] != 0xd8 || tlen < 23 ||
	    tlen > (int64_t)frame_len - body_end || tlen > TSR_B2_MAX_META_NBYTES) {
		tsr_error(st, "frame trailer: no valid length at its end (truncated?)");
		goto done;
	}
	int64_t tstart = (int64_t)frame_len - tlen;
	if ((st = read_new(fd, (uint64_t)tstart, tlen, &tbuf)) ||
	    (st = tsr_b2_trailer_parse(tbuf, (size_t)tlen, &f->nvlmeta)))
		goto done;

	if ((st = tsr_b2_describe(a, f, hbuf)))
		goto done;
	/* nbytes may be up to 2^63 - 1: no rounding addition (issue 21, D2) */
	f->nchunks = h->chunksize > 0 ? h->nbytes / h->chunksize + (h->nbytes % h->chunksize != 0) : 0;
	if (f->nchunks > 0) {
		st = tsr_b2_read_index(f, fd, body_end, tstart);
		if (st)
			goto done;
	}
	uint64_t maxc = 0;
	if (!f->sparse && f->nchunks > 0 && (st = tsr_b2_chunk_ends(f, &maxc)))
		goto done;
	a->desc.max_chunk_nbytes = f->sparse ? (uint64_t)h->chunksize + 32 : maxc;
	st = TSR_OK;
done:
	free(hbuf);
	free(tbuf);
	return st;
}

int tsr_blosc2_open(struct tsr_array *a, const struct tsr_open_options *opts)
{
	(void)opts; /* (tsr_open refused the options a frame does not take) */
	struct tsr_b2 *f = calloc(1, sizeof(*f));
	if (!f)
		return tsr_error(TSR_E_NOMEM, "%s: out of memory", a->path);
	/* from here tsr_array_free releases f */
	a->impl = f;
	a->ops = &tsr_b2_ops;
	char ipath[4096];
	const char *fname = a->path;
	int fd = a->fd;
	uint64_t fsize = a->file_nbytes;
	int st;
	if (fd < 0) {
		/* a sparse frame: the header, index and trailer are in chunks.b2frame */
		f->sparse = 1;
		if ((size_t)snprintf(ipath, sizeof(ipath), "%s/chunks.b2frame", a->path) >=
		    sizeof(ipath))
			return tsr_error(TSR_E_INVALID_ARG, "%s: path too long", a->path);
		fname = ipath;
		if ((st = tsr_file_open(ipath, &fd, &fsize)))
			return st;
	}
	st = tsr_b2_open_frame(a, f, fd, fsize);
	if (f->sparse)
		tsr_file_close(fd);
	if (st) {
		tsr_error_prefix("%s", fname);
		return st;
	}
	struct tsr_desc *d = &a->desc;
	d->dtype = f->dtype;
	d->stored_dtype = f->dtype;
	d->descr = f->descr;
	d->stored_nbytes = (uint64_t)f->h.cbytes;
	tsr_b2_codec_name(f);
	snprintf(d->codec, sizeof(d->codec), "%s", f->codec);
	snprintf(d->reader, sizeof(d->reader), "tessera");
	d->unit_noun = NULL; /* a frame holds one array: messages name the file and chunk */
	d->chunk_noun = "chunk";
	d->index = 0;
	/* the chunk grid tsr_open derives from shape and chunk shape must be the frame's */
	int64_t n = 1;
	for (int i = 0; i < d->ndim; i++)
		n *= (d->shape[i] + d->chunk_shape[i] - 1) / d->chunk_shape[i];
	/* (a frame of no chunks for an array that has some too: its reads would find none) */
	if (n != f->nchunks)
		return tsr_error(TSR_E_FORMAT, "%s: %lld chunks in the frame, %lld in the array's grid",
				 fname, (long long)f->nchunks, (long long)n);
	return TSR_OK;
}
