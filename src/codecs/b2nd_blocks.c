/* b2nd_blocks.c - Blosc2 b2nd chunks: decode only the blocks under a box, scattered into C order
 * over the chunk; fetch only those blocks' bytes.
 *
 * Both halves pick blocks with the same code (struct b2_iter), so the packed chunk a part fetch
 * makes always holds what the decode of the same box asks for. The packed chunk is an ordinary
 * blosc chunk: the original header (cbytes patched), the whole block table (entries of blocks
 * not fetched set to 0, which the blosc decoder rejects should anything ask for them), the
 * dictionary, then the fetched blocks' streams. */
#include <stdlib.h>
#include <string.h>

#include "b2nd_blocks.h"
#include "b2nd_memo.h"
#include "blosc.h"

/* Chunks smaller than this are read whole: one read costs less than the two or three a part
 * fetch makes. */
#define B2_PART_MIN_NBYTES (64 * 1024)
/* A part fetch packs at most this many blocks; a box needing more reads the whole chunk. */
#define B2_PART_MAX_BLOCKS 64

/* The chunk's geometry and the box, as both halves see them. */
struct b2_geom {
	int nd;
	size_t w;
	int64_t ext[TSR_MAX_DIM], pad[TSR_MAX_DIM], blk[TSR_MAX_DIM], bgrid[TSR_MAX_DIM];
	int64_t lo[TSR_MAX_DIM], hi[TSR_MAX_DIM];
	int64_t nblocks;  /* blocks of the layout */
	uint64_t bbytes;  /* bytes of one layout block */
	uint64_t nbytes;  /* bytes of the decoded (padded) chunk */
	uint64_t npix;    /* elements of the extent */
	/* the output: C order over odim (the extent, or the box's shape), starting at olo */
	int64_t olo[TSR_MAX_DIM], odim[TSR_MAX_DIM], ostr[TSR_MAX_DIM];
	uint64_t onpix;
	int rows;         /* row layout: decoded bytes are C order over the extent's rows */
	int whole;        /* the box is the whole extent */
	int empty;        /* the box selects nothing */
};

static int geom_init(struct b2_geom *g, const struct tsr_chunk_ref *ref,
		     const struct tsr_chunk_box *box)
{
	memset(g, 0, sizeof(*g));
	g->nd = ref->ndim;
	g->w = tsr_dtype_size(ref->codec.elem);
	if (!g->w || g->nd < 0 || g->nd > TSR_BLOCKED_MAX_DIM)
		return tsr_error(TSR_E_INTERNAL, "b2nd: element type %d, %d axes", (int)ref->codec.elem,
				 g->nd);
	g->nblocks = 1;
	g->bbytes = g->w;
	g->nbytes = g->w;
	g->npix = 1;
	g->rows = 1;
	g->whole = 1;
	for (int d = 0; d < g->nd; d++) {
		int64_t e = ref->extent[d], p = ref->blocked.padded[d], b = ref->blocked.block[d];
		if (b <= 0 || p <= 0 || p % b != 0 || e < 0 || e > p)
			return tsr_error(TSR_E_INTERNAL,
					 "b2nd: axis %d: extent %lld, padded %lld, block %lld", d,
					 (long long)e, (long long)p, (long long)b);
		g->ext[d] = e;
		g->pad[d] = p;
		g->blk[d] = b;
		g->bgrid[d] = p / b;
		/* blosc chunks hold < 2 GiB, so these products stay small when checked as we go */
		if (g->nbytes > (uint64_t)INT32_MAX / (uint64_t)p)
			return tsr_error(TSR_E_UNSUPPORTED, "b2nd: chunk of over 2 GiB");
		g->nbytes *= (uint64_t)p;
		g->bbytes *= (uint64_t)b;
		g->nblocks *= g->bgrid[d];
		g->npix *= (uint64_t)e;
		if (d > 0 && (b != p || e != p))
			g->rows = 0;
		int64_t lo = box ? box->lo[d] : 0, hi = box ? box->hi[d] : e;
		if (lo < 0)
			lo = 0;
		if (hi > e)
			hi = e;
		g->lo[d] = lo;
		g->hi[d] = hi;
		if (lo >= hi)
			g->empty = 1;
		if (lo != 0 || hi != e)
			g->whole = 0;
		g->olo[d] = box ? lo : 0;
		g->odim[d] = box ? (hi > lo ? hi - lo : 0) : e;
	}
	g->onpix = 1;
	for (int d = g->nd - 1; d >= 0; d--) {
		g->ostr[d] = (int64_t)g->onpix;
		g->onpix *= (uint64_t)g->odim[d];
	}
	return TSR_OK;
}

/* C-order index over the padded shape (row layout: the decoded element's index). */
static uint64_t pad_index(const struct b2_geom *g, const int64_t *x)
{
	uint64_t i = 0;
	for (int d = 0; d < g->nd; d++)
		i = i * (uint64_t)g->pad[d] + (uint64_t)x[d];
	return i;
}

/* Row layout: the decoded bytes [*first, *last) the box needs. */
static void row_span(const struct b2_geom *g, uint64_t *first, uint64_t *last)
{
	int64_t top[TSR_MAX_DIM];
	for (int d = 0; d < g->nd; d++)
		top[d] = g->hi[d] - 1;
	*first = pad_index(g, g->lo) * g->w;
	*last = (pad_index(g, top) + 1) * g->w;
}

/* The blocks a box needs, as a box of the block grid (*nax axes: grid[d] blocks, [blo[d],
 * bhi[d]) of them needed). Row layout: one axis, the blocks of the chunk header's size bs over
 * the bytes the box spans (nb of them). Otherwise: the layout blocks the box touches. The one
 * choice of blocks, the CPU's decode (b2_iter) and the GPU's (tsr_b2nd_blocks) both. */
static void block_box(const struct b2_geom *g, uint64_t bs, int64_t nb, int *nax, int64_t *grid,
		      int64_t *blo, int64_t *bhi)
{
	if (g->rows) {
		uint64_t first, last;
		row_span(g, &first, &last);
		*nax = 1;
		grid[0] = nb;
		blo[0] = (int64_t)(first / bs);
		bhi[0] = (int64_t)((last - 1) / bs + 1);
		return;
	}
	*nax = g->nd;
	for (int d = 0; d < g->nd; d++) {
		grid[d] = g->bgrid[d];
		blo[d] = g->lo[d] / g->blk[d];
		bhi[d] = (g->hi[d] - 1) / g->blk[d] + 1;
	}
}

/* Walks the blocks a box needs (block_box), in increasing block order. */
struct b2_iter {
	const struct b2_geom *g;
	int64_t next, end;                       /* row layout */
	int64_t bc[TSR_MAX_DIM], blo[TSR_MAX_DIM], bhi[TSR_MAX_DIM];
	int done;
};

static void iter_init(struct b2_iter *it, const struct b2_geom *g, uint64_t bs)
{
	memset(it, 0, sizeof(*it));
	it->g = g;
	it->done = g->empty;
	if (g->empty)
		return;
	int nax;
	int64_t grid[TSR_MAX_DIM];
	block_box(g, bs, INT64_MAX, &nax, grid, it->blo, it->bhi);
	if (g->rows) {
		it->next = it->blo[0];
		it->end = it->bhi[0];
		return;
	}
	for (int d = 0; d < g->nd; d++)
		it->bc[d] = it->blo[d];
}

static int iter_next(struct b2_iter *it, int64_t *b)
{
	const struct b2_geom *g = it->g;
	if (it->done)
		return 0;
	if (g->rows) {
		if (it->next >= it->end)
			return 0;
		*b = it->next++;
		return 1;
	}
	int64_t i = 0;
	for (int d = 0; d < g->nd; d++)
		i = i * g->bgrid[d] + it->bc[d];
	*b = i;
	int d = g->nd - 1;
	for (; d >= 0; d--) {
		if (++it->bc[d] < it->bhi[d])
			break;
		it->bc[d] = it->blo[d];
	}
	if (d < 0)
		it->done = 1;
	return 1;
}

/* Copies n elements of w bytes, swapping each (complex: each half) when be is set. */
static void copy_elems(uint8_t *dst, const uint8_t *src, size_t n, size_t w, int be, int cplx)
{
	if (!be || w == 1) {
		memcpy(dst, src, n * w);
		return;
	}
	size_t part = cplx ? w / 2 : w;
	size_t nparts = n * (w / part);
	for (size_t i = 0; i < nparts; i++, dst += part, src += part)
		for (size_t k = 0; k < part; k++)
			dst[k] = src[part - 1 - k];
}

static void swap_elems(uint8_t *p, size_t n, size_t w, int cplx)
{
	size_t part = cplx ? w / 2 : w;
	size_t nparts = n * (w / part);
	for (size_t i = 0; i < nparts; i++, p += part)
		for (size_t k = 0; k < part / 2; k++) {
			uint8_t t = p[k];
			p[k] = p[part - 1 - k];
			p[part - 1 - k] = t;
		}
}

void tsr_fill_elems(void *out, size_t n, size_t w, const void *value)
{
	uint8_t *o = out;
	size_t total = n * w, filled = w < total ? w : total;
	memcpy(o, value, filled);
	/* the filled prefix is a whole number of elements: double it */
	while (filled < total) {
		size_t c = total - filled < filled ? total - filled : filled;
		memcpy(o + filled, o, c);
		filled += c;
	}
}

/* Copies the part of layout block b (decoded at src) that lies in the box into out. */
static void scatter_block(const struct b2_geom *g, int64_t b, const uint8_t *src, uint8_t *out,
			  int be, int cplx)
{
	int nd = g->nd;
	int64_t o[TSR_MAX_DIM], lo[TSR_MAX_DIM], hi[TSR_MAX_DIM], x[TSR_MAX_DIM];
	int64_t bstr[TSR_MAX_DIM];
	int64_t rem = b, bs = 1;
	for (int d = nd - 1; d >= 0; d--) {
		o[d] = (rem % g->bgrid[d]) * g->blk[d];
		rem /= g->bgrid[d];
		lo[d] = o[d] > g->lo[d] ? o[d] : g->lo[d];
		hi[d] = o[d] + g->blk[d] < g->hi[d] ? o[d] + g->blk[d] : g->hi[d];
		if (lo[d] >= hi[d])
			return;
		bstr[d] = bs;
		bs *= g->blk[d];
		x[d] = lo[d];
	}
	size_t w = g->w, n = (size_t)(hi[nd - 1] - lo[nd - 1]);
	for (;;) {
		int64_t so = 0, eo = 0;
		for (int d = 0; d < nd; d++) {
			so += (x[d] - o[d]) * bstr[d];
			eo += (x[d] - g->olo[d]) * g->ostr[d];
		}
		copy_elems(out + (size_t)eo * w, src + (size_t)so * w, n, w, be, cplx);
		int d = nd - 2;
		for (; d >= 0; d--) {
			if (++x[d] < hi[d])
				break;
			x[d] = lo[d];
		}
		if (d < 0)
			break;
	}
}

static void *slot_get(struct tsr_scratch *s, int i, size_t n)
{
	if (s->cap[i] < n) {
		free(s->buf[i]);
		s->buf[i] = malloc(n + 64);
		s->cap[i] = s->buf[i] ? n : 0;
	}
	return s->buf[i];
}

/* The element a special (run-length) chunk repeats, in stored byte order. */
static int special_value(const struct tsr_blosc_info *in, const uint8_t *src, size_t w,
			 uint8_t value[16])
{
	static const uint8_t nan32[4] = {0x00, 0x00, 0xc0, 0x7f};
	static const uint8_t nan64[8] = {0, 0, 0, 0, 0, 0, 0xf8, 0x7f};
	memset(value, 0, 16);
	switch (in->special) {
	case TSR_BLOSC_SPECIAL_NAN:
		if (w != (size_t)in->typesize)
			return tsr_error(TSR_E_CORRUPT, "blosc: NaN chunk of typesize %d for %zu-byte "
					 "elements", in->typesize, w);
		memcpy(value, w == 4 ? nan32 : nan64, w);
		return TSR_OK;
	case TSR_BLOSC_SPECIAL_VALUE: {
		/* typesizes over 255 are stored as 1: the value is then all that follows */
		int64_t vlen = in->typesize == 1 && in->cbytes - in->header_nbytes > 1
				       ? in->cbytes - in->header_nbytes
				       : in->typesize;
		if ((size_t)vlen != w)
			return tsr_error(TSR_E_CORRUPT, "blosc: repeated value of %lld bytes for "
					 "%zu-byte elements", (long long)vlen, w);
		memcpy(value, src + in->header_nbytes, w);
		return TSR_OK;
	}
	default: /* zeros, and uninitialised chunks (which read as zeros) */
		return TSR_OK;
	}
}

static int has_delta(const struct tsr_blosc_info *in)
{
	for (int i = 0; i < TSR_BLOSC_MAX_FILTERS; i++)
		if (in->filters[i] == TSR_BLOSC_DELTA)
			return 1;
	return 0;
}

/* Decodes blocks [b, b + n) of the chunk into a scratch buffer (they are whole blocks of bs
 * bytes except the chunk's last). memo: the read needs this one block alone, which the
 * thread's memo (b2nd_memo.h) may already hold. */
static int decode_run(const struct tsr_blosc_info *in, const void *src, size_t src_nbytes,
		      int64_t b, int64_t n, struct tsr_scratch *s, uint8_t **run_ret,
		      uint64_t *decoded, int memo)
{
	if (memo && n == 1) {
		int st = tsr_b2nd_memo_block(in, src, src_nbytes, b, s, run_ret, decoded);
		if (st <= 0)
			return st;
	}
	uint64_t bs = (uint64_t)in->blocksize, at = (uint64_t)b * bs;
	uint64_t end = (uint64_t)(b + n) * bs < (uint64_t)in->nbytes ? (uint64_t)(b + n) * bs
								      : (uint64_t)in->nbytes;
	uint8_t *run = slot_get(s, 0, (size_t)(end - at));
	if (!run)
		return tsr_error(TSR_E_NOMEM, "b2nd: out of memory for %llu bytes of blocks",
				 (unsigned long long)(end - at));
	int st = tsr_blosc_decode_blocks(run, (size_t)(end - at), src, src_nbytes, b, n, s->blosc);
	if (st)
		return st;
	*decoded += end - at;
	*run_ret = run;
	return TSR_OK;
}

/* Row layout, box output: copies each row of the box from the decoded bytes, decoding blocks
 * as the rows reach them (all at once under DELTA, so block 0 is decoded once). */
static int rows_to_box(const struct b2_geom *g, const struct tsr_blosc_info *in, const void *src,
		       size_t src_nbytes, const uint8_t *raw, uint8_t *out, int be, int cplx,
		       struct tsr_scratch *s, uint64_t *decoded)
{
	int nd = g->nd, st;
	size_t w = g->w;
	uint64_t bs = (uint64_t)in->blocksize;
	int nax;
	int64_t grid[TSR_MAX_DIM], blo[TSR_MAX_DIM], bhi[TSR_MAX_DIM];
	block_box(g, bs, in->nblocks, &nax, grid, blo, bhi);
	int64_t b0 = blo[0], b1 = bhi[0];
	int64_t cur = -1, curn = 0; /* blocks [cur, cur + curn) are decoded at buf */
	uint8_t *buf = NULL;
	if (!raw && has_delta(in)) {
		if ((st = decode_run(in, src, src_nbytes, b0, b1 - b0, s, &buf, decoded, 0)))
			return st;
		cur = b0;
		curn = b1 - b0;
	}
	int64_t x[TSR_MAX_DIM];
	for (int d = 0; d < nd; d++)
		x[d] = g->lo[d];
	size_t rown = nd ? (size_t)(g->hi[nd - 1] - g->lo[nd - 1]) : 1;
	for (;;) {
		uint64_t r0 = pad_index(g, x) * w, r1 = r0 + rown * w;
		int64_t oo = 0;
		for (int d = 0; d < nd; d++)
			oo += (x[d] - g->olo[d]) * g->ostr[d];
		uint8_t *dst = out + (uint64_t)oo * w;
		if (raw) {
			copy_elems(dst, raw + r0, rown, w, be, cplx);
		} else {
			/* a row may straddle blocks: copy piece by piece */
			for (uint64_t p = r0; p < r1;) {
				int64_t b = (int64_t)(p / bs);
				if (b < cur || b >= cur + curn) {
					if ((st = decode_run(in, src, src_nbytes, b, 1, s, &buf, decoded,
							     b1 - b0 == 1)))
						return st;
					cur = b;
					curn = 1;
				}
				uint64_t end = (uint64_t)(cur + curn) * bs < r1 ? (uint64_t)(cur + curn) * bs
									       : r1;
				copy_elems(dst + (p - r0), buf + (p - (uint64_t)cur * bs),
					   (size_t)((end - p) / w), w, be, cplx);
				p = end;
			}
		}
		int d = nd - 2;
		for (; d >= 0; d--) {
			if (++x[d] < g->hi[d])
				break;
			x[d] = g->lo[d];
		}
		if (d < 0)
			break;
	}
	return TSR_OK;
}

/* Row layout, whole chunk: the decoded bytes are the output's bytes, so blocks decode straight
 * into out; only a block reaching into padding rows goes through scratch. */
static int rows_whole(const struct b2_geom *g, const struct tsr_blosc_info *in, const void *src,
		      size_t src_nbytes, const uint8_t *raw, uint8_t *out, int be, int cplx,
		      struct tsr_scratch *s, uint64_t *decoded)
{
	uint64_t bs = (uint64_t)in->blocksize, last = g->npix * g->w;
	int st;
	if (raw) {
		copy_elems(out, raw, (size_t)g->npix, g->w, be, cplx);
		return TSR_OK;
	}
	int64_t b1 = (int64_t)((last - 1) / bs + 1), bin = b1;
	while (bin > 0 && ((uint64_t)bin * bs < (uint64_t)in->nbytes ? (uint64_t)bin * bs
								     : (uint64_t)in->nbytes) > last)
		bin--;
	if (bin > 0) {
		uint64_t end = (uint64_t)bin * bs < (uint64_t)in->nbytes ? (uint64_t)bin * bs
									 : (uint64_t)in->nbytes;
		if ((st = tsr_blosc_decode_blocks(out, end, src, src_nbytes, 0, bin, s->blosc)))
			return st;
		*decoded += end;
	}
	for (int64_t b = bin; b < b1; b++) {
		uint8_t *buf = NULL;
		if ((st = decode_run(in, src, src_nbytes, b, 1, s, &buf, decoded, 0)))
			return st;
		uint64_t at = (uint64_t)b * bs, upto = last < at + bs ? last : at + bs;
		memcpy(out + at, buf, (size_t)(upto - at));
	}
	if (be)
		swap_elems(out, (size_t)g->npix, g->w, cplx);
	return TSR_OK;
}

int tsr_b2nd_decode(void *out, size_t out_nbytes, const struct tsr_chunk_ref *ref,
		    const void *src, size_t src_nbytes, const struct tsr_chunk_box *box,
		    struct tsr_scratch *s, uint64_t *decoded_nbytes_ret)
{
	struct b2_geom g;
	struct tsr_blosc_info in;
	uint8_t *o = out;
	const uint8_t *csrc = src;
	int st;
	*decoded_nbytes_ret = 0;
	if ((st = geom_init(&g, ref, box)))
		return st;
	if (out_nbytes < g.onpix * g.w)
		return tsr_error(TSR_E_INTERNAL, "b2nd: %zu bytes for %llu elements", out_nbytes,
				 (unsigned long long)g.onpix);
	if ((st = tsr_blosc_info(src, src_nbytes, &in)))
		return st;
	if ((uint64_t)in.nbytes != g.nbytes)
		return tsr_error(TSR_E_CORRUPT, "blosc: chunk holds %lld bytes, the array's chunks %llu",
				 (long long)in.nbytes, (unsigned long long)g.nbytes);
	if (g.empty)
		return TSR_OK;
	int be = ref->codec.big_endian || (ref->codec.be_from_chunk && (in.blosc2_flags & 0x02));
	int cplx = ref->codec.elem == TSR_COMPLEX64 || ref->codec.elem == TSR_COMPLEX128;

	if (in.special && g.w > 16) {
		/* raw elements (bytes, structured) wider than a value buffer: zeros or a repeat */
		if (in.special == TSR_BLOSC_SPECIAL_VALUE) {
			int64_t vlen = in.typesize == 1 && in.cbytes - in.header_nbytes > 1
					       ? in.cbytes - in.header_nbytes : in.typesize;
			if (vlen != (int64_t)g.w || src_nbytes < (size_t)in.header_nbytes + g.w)
				return tsr_error(TSR_E_CORRUPT, "blosc: repeated value of %lld bytes for "
						 "%zu-byte elements", (long long)vlen, g.w);
			tsr_fill_elems(out, (size_t)g.onpix, g.w, csrc + in.header_nbytes);
		} else if (in.special == TSR_BLOSC_SPECIAL_NAN) {
			return tsr_error(TSR_E_CORRUPT, "blosc: NaN chunk of %zu-byte elements", g.w);
		} else {
			memset(out, 0, (size_t)g.onpix * g.w);
		}
		*decoded_nbytes_ret = g.onpix * g.w;
		return TSR_OK;
	}
	if (in.special) {
		uint8_t value[16];
		if ((st = special_value(&in, csrc, g.w, value)))
			return st;
		/* a NaN chunk means NaN whatever the byte order (c-blosc2 writes the writer's
		 * native NaN even into big-endian arrays); a repeated value is the array's bytes */
		if (be && in.special != TSR_BLOSC_SPECIAL_NAN)
			swap_elems(value, 1, g.w, cplx);
		tsr_fill_elems(out, (size_t)g.onpix, g.w, value);
		*decoded_nbytes_ret = g.onpix * g.w;
		return TSR_OK;
	}
	const uint8_t *raw = in.memcpyed ? csrc + in.header_nbytes : NULL;
	if (!in.memcpyed && !g.rows && ((uint64_t)in.blocksize != g.bbytes || in.nblocks != g.nblocks))
		return tsr_error(TSR_E_CORRUPT,
				 "blosc: chunk has %lld blocks of %lld bytes, the b2nd layout %lld of %llu",
				 (long long)in.nblocks, (long long)in.blocksize, (long long)g.nblocks,
				 (unsigned long long)g.bbytes);
	if (!s->blosc && tsr_blosc_scratch_create((struct tsr_blosc_scratch **)&s->blosc))
		return tsr_error(TSR_E_NOMEM, "blosc: out of memory");
	if (g.rows && !box)
		return rows_whole(&g, &in, src, src_nbytes, raw, o, be, cplx, s, decoded_nbytes_ret);
	if (g.rows)
		return rows_to_box(&g, &in, src, src_nbytes, raw, o, be, cplx, s, decoded_nbytes_ret);

	/* Blocks in the padded layout: decode each needed block (with DELTA, each run of
	 * consecutive ones, so block 0 is decoded once per run) and scatter its box part. */
	struct b2_iter it;
	iter_init(&it, &g, g.bbytes);
	int delta = has_delta(&in), one = 1; /* the box lies in one block */
	for (int d = 0; d < g.nd; d++)
		one &= g.lo[d] / g.blk[d] == (g.hi[d] - 1) / g.blk[d];
	int64_t b, pend = -1, npend = 0;
	int more = iter_next(&it, &b);
	while (more || npend) {
		if (more && npend && delta && b == pend + npend) {
			npend++;
			more = iter_next(&it, &b);
			continue;
		}
		if (npend) {
			const uint8_t *blocks;
			if (raw) {
				blocks = raw + (uint64_t)pend * g.bbytes;
			} else {
				uint8_t *run;
				if ((st = decode_run(&in, src, src_nbytes, pend, npend, s, &run,
						     decoded_nbytes_ret, one)))
					return st;
				blocks = run;
			}
			for (int64_t k = 0; k < npend; k++)
				scatter_block(&g, pend + k, blocks + (uint64_t)k * g.bbytes, o, be, cplx);
			npend = 0;
		}
		if (more) {
			pend = b;
			npend = 1;
			more = iter_next(&it, &b);
		}
	}
	return TSR_OK;
}

int tsr_b2nd_blocks(const struct tsr_chunk_ref *ref, const void *chunk, size_t nbytes,
		    const int64_t *lo, const int64_t *hi, struct tsr_blosc_blocks *sel)
{
	struct b2_geom g;
	struct tsr_blosc_info in;
	struct tsr_chunk_box box;
	memset(sel, 0, sizeof(*sel));
	if (ref->codec.id != TSR_CODEC_BLOSC_B2ND || ref->ndim < 0 || ref->ndim > TSR_MAX_DIM)
		return 0;
	for (int d = 0; d < ref->ndim; d++) {
		box.lo[d] = lo[d];
		box.hi[d] = hi[d];
	}
	/* (anything the decode would refuse decodes whole, and says so there) */
	if (geom_init(&g, ref, &box) != TSR_OK || g.empty ||
	    tsr_blosc_info(chunk, nbytes, &in) != TSR_OK || in.memcpyed || in.special ||
	    in.blocksize <= 0 || (uint64_t)in.nbytes != g.nbytes ||
	    (!g.rows && ((uint64_t)in.blocksize != g.bbytes || in.nblocks != g.nblocks)))
		return 0;
	int nax;
	int64_t grid[TSR_MAX_DIM], blo[TSR_MAX_DIM], bhi[TSR_MAX_DIM];
	block_box(&g, (uint64_t)in.blocksize, in.nblocks, &nax, grid, blo, bhi);
	/* As axes of the block numbers: axes of one block go into base; an axis whose inner
	 * neighbour spans its whole grid merges with it (its blocks run on). */
	int64_t stride = 1, base = 0, count = 1, n[TSR_MAX_DIM], st[TSR_MAX_DIM];
	int k = 0; /* kept axes, innermost first */
	for (int d = nax - 1; d >= 0; d--) {
		int64_t m = bhi[d] - blo[d];
		if (blo[d] < 0 || m <= 0 || bhi[d] > grid[d])
			return 0;
		base += blo[d] * stride;
		count *= m;
		if (m > 1) {
			if (k && st[k - 1] * n[k - 1] == stride)
				n[k - 1] *= m;
			else {
				n[k] = m;
				st[k++] = stride;
			}
		}
		stride *= grid[d];
	}
	if (count >= in.nblocks || k > TSR_BLOSC_SEL_AXES)
		return 0; /* every block (or too many axes to say which: every block) */
	if (k == 0) {
		n[0] = 1;
		st[0] = 1;
		k = 1;
	}
	sel->base = base;
	sel->count = count;
	sel->naxes = k;
	for (int d = 0; d < k; d++) {
		sel->n[d] = (int32_t)n[k - 1 - d];
		sel->stride[d] = (int32_t)st[k - 1 - d];
	}
	sel->with0 = has_delta(&in) && base != 0;
	return 1;
}

/* ---- part fetch ---- */

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* Grows *buf to hold n bytes plus 64 of slack, keeping its contents. */
static int buf_reserve(unsigned char **buf, size_t *cap, size_t n)
{
	if (*cap >= n && *buf)
		return TSR_OK;
	unsigned char *p = realloc(*buf, n + 64);
	if (!p)
		return tsr_error(TSR_E_NOMEM, "out of memory for %zu bytes", n);
	*buf = p;
	*cap = n;
	return TSR_OK;
}

int tsr_b2nd_fetch_part(const struct tsr_chunk_ref *ref, const struct tsr_chunk_box *box,
			tsr_chunk_read_fn read, void *arg, unsigned char **buf, size_t *cap,
			uint64_t *nbytes_ret)
{
	struct b2_geom g;
	int st;
	*nbytes_ret = 0;
	if (ref->codec.id != TSR_CODEC_BLOSC_B2ND || !box || ref->nbytes < B2_PART_MIN_NBYTES ||
	    ref->nbytes > (uint64_t)INT32_MAX)
		return TSR_OK;
	if (geom_init(&g, ref, box) != TSR_OK || g.whole || g.empty)
		return TSR_OK;

	/* The header and block table. A row layout's block count is the chunk header's, which
	 * we do not know yet: guess the layout's and read more if the header says so. */
	int64_t guess = g.nblocks > 64 ? g.nblocks : 64;
	size_t head = (size_t)(32 + 4 * guess + 4);
	if (head > ref->nbytes)
		head = (size_t)ref->nbytes;
	if ((st = buf_reserve(buf, cap, head)) || (st = read(arg, *buf, head, 0)))
		return st;
	const uint8_t *h = *buf;
	int version = h[0], flags = h[2];
	int32_t nbytes = (int32_t)tsr_le32(h + 4), bsize = (int32_t)tsr_le32(h + 8),
		cbytes = (int32_t)tsr_le32(h + 12);
	int ext = (flags & 0x05) == 0x05;
	int hdr = ext ? 32 : 16;
	int b2flags = ext ? h[31] : 0;
	/* Anything unusual takes the whole-chunk path, whose decoder says what is wrong. */
	if (version < 1 || version > 6 || nbytes <= 0 || bsize <= 0 || cbytes < hdr ||
	    (uint64_t)cbytes > ref->nbytes || (uint64_t)nbytes != g.nbytes || (flags & 0x02) ||
	    (b2flags & 0x70) || (b2flags & 0x08) || (ext && (h[30] & 0x01)))
		return TSR_OK;
	if (bsize > nbytes)
		bsize = nbytes;
	int64_t nblocks = ((int64_t)nbytes + bsize - 1) / bsize;
	if (!g.rows && ((uint64_t)bsize != g.bbytes || nblocks != g.nblocks))
		return TSR_OK;
	int use_dict = ext && (b2flags & 0x01);
	int64_t data_start = hdr + 4 * nblocks;
	size_t need = (size_t)data_start + (use_dict ? 4 : 0);
	if (need > (size_t)cbytes)
		return TSR_OK;
	if (need > head) {
		if ((st = buf_reserve(buf, cap, need)) || (st = read(arg, *buf + head, need - head, head)))
			return st;
		head = need;
		h = *buf;
	}
	if (use_dict) {
		/* a dictionary follows the table: the packed chunk keeps it */
		int32_t dsize = (int32_t)tsr_le32(h + data_start);
		if (dsize <= 0 || dsize > cbytes - data_start - 4)
			return TSR_OK;
		data_start += 4 + dsize;
		if ((size_t)data_start > head) {
			if ((st = buf_reserve(buf, cap, (size_t)data_start)) ||
			    (st = read(arg, *buf + head, (size_t)data_start - head, head)))
				return st;
			head = (size_t)data_start;
			h = *buf;
		}
	}

	/* The blocks the box needs (and block 0 under DELTA, which every block refers to). */
	int delta = (!ext && (flags & 0x08)) || (ext && memchr(h + 16, TSR_BLOSC_DELTA, 6));
	int64_t want[B2_PART_MAX_BLOCKS + 1];
	int nwant = 0;
	struct b2_iter it;
	iter_init(&it, &g, (uint64_t)bsize);
	int64_t b;
	if (delta)
		want[nwant++] = 0;
	while (iter_next(&it, &b)) {
		if (b >= nblocks)
			return TSR_OK;
		if (delta && b == 0)
			continue;
		if (nwant == B2_PART_MAX_BLOCKS || 2 * (int64_t)(nwant + 1) > nblocks)
			return TSR_OK;
		want[nwant++] = b;
	}
	if (nwant == 0)
		return TSR_OK;

	/* Where each wanted block's bytes end: at the next block start, whatever the order
	 * blocks were written in (threaded writers store them out of order), or at cbytes. */
	const uint8_t *table = h + hdr;
	int64_t *sorted = NULL;
	if (nwant > 4) {
		sorted = malloc((size_t)nblocks * sizeof(*sorted));
		if (!sorted)
			return tsr_error(TSR_E_NOMEM, "out of memory");
		for (int64_t k = 0; k < nblocks; k++)
			sorted[k] = (int32_t)tsr_le32(table + 4 * k);
		qsort(sorted, (size_t)nblocks, sizeof(*sorted), cmp_i64);
	}
	int64_t start[B2_PART_MAX_BLOCKS + 1], end[B2_PART_MAX_BLOCKS + 1];
	uint64_t total = (uint64_t)data_start;
	for (int k = 0; k < nwant; k++) {
		int64_t s0 = (int32_t)tsr_le32(table + 4 * want[k]), e0 = cbytes;
		if (sorted) {
			size_t lo = 0, hi = (size_t)nblocks; /* first entry > s0 */
			while (lo < hi) {
				size_t mid = (lo + hi) / 2;
				if (sorted[mid] <= s0)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo < (size_t)nblocks)
				e0 = sorted[lo];
		} else {
			for (int64_t j = 0; j < nblocks; j++) {
				int64_t sj = (int32_t)tsr_le32(table + 4 * j);
				if (sj > s0 && sj < e0)
					e0 = sj;
			}
		}
		if (s0 < data_start || e0 > cbytes || s0 >= e0) {
			free(sorted);
			return TSR_OK;
		}
		start[k] = s0;
		end[k] = e0;
		total += (uint64_t)(e0 - s0);
	}
	free(sorted);

	/* Pack: header and table (patched), dictionary, then the blocks, adjacent ones read
	 * together. Reading in file order keeps the reads sequential. */
	if ((st = buf_reserve(buf, cap, (size_t)total)))
		return st;
	uint8_t *p = *buf;
	int order[B2_PART_MAX_BLOCKS + 1];
	for (int k = 0; k < nwant; k++) {
		int j = k;
		while (j > 0 && start[order[j - 1]] > start[k]) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = k;
	}
	uint64_t at = (uint64_t)data_start;
	for (int k = 0; k < nwant;) {
		int j = k + 1;
		while (j < nwant && start[order[j]] == end[order[j - 1]])
			j++;
		int64_t s0 = start[order[k]], e0 = end[order[j - 1]];
		if ((st = read(arg, p + at, (size_t)(e0 - s0), (uint64_t)s0)))
			return st;
		at += (uint64_t)(e0 - s0);
		k = j;
	}
	/* new block starts; every other entry 0 */
	int64_t newstart[B2_PART_MAX_BLOCKS + 1];
	at = (uint64_t)data_start;
	for (int k = 0; k < nwant; k++) {
		newstart[order[k]] = (int64_t)at;
		at += (uint64_t)(end[order[k]] - start[order[k]]);
	}
	memset(p + hdr, 0, (size_t)(4 * nblocks));
	for (int k = 0; k < nwant; k++) {
		uint32_t v = (uint32_t)newstart[k];
		uint8_t *e = p + hdr + 4 * want[k];
		e[0] = (uint8_t)v;
		e[1] = (uint8_t)(v >> 8);
		e[2] = (uint8_t)(v >> 16);
		e[3] = (uint8_t)(v >> 24);
	}
	uint32_t c = (uint32_t)total;
	p[12] = (uint8_t)c;
	p[13] = (uint8_t)(c >> 8);
	p[14] = (uint8_t)(c >> 16);
	p[15] = (uint8_t)(c >> 24);
	memset(p + total, 0, 64);
	*nbytes_ret = total;
	return TSR_OK;
}
