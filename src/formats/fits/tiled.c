/* tiled.c - FITS tile-compressed images: the ZIMAGE binary table, its descriptors and heap,
 * and the codec chain and value transform of each tile. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/file.h"
#include "fits.h"

/* A table column we use: its byte offset in a row and its type. */
struct tsr_fits_col {
	int present;
	int64_t offset;
	char type;      /* B I J K E D ... or P / Q for descriptors */
	char ptype;     /* element type of a P/Q column */
};

enum tsr_fits_zcmp { ZCMP_GZIP1, ZCMP_GZIP2, ZCMP_RICE, ZCMP_HCOMP, ZCMP_PLIO, ZCMP_NONE };

struct tsr_fits_tiled {
	unsigned char *table;   /* the whole main table: the tile index */
	int64_t row_nbytes, nrows;
	uint64_t heap_offset;   /* file offset of the heap */
	uint64_t heap_nbytes;
	struct tsr_fits_col cdata, gdata, udata, zscale, zzero, zblank;
	enum tsr_fits_zcmp zcmp;
	const char *zcmp_name;
	int zbitpix;
	int quantized;
	enum tsr_dither dither;
	int64_t zdither0;
	double kw_zscale, kw_zzero;
	int has_kw_zblank;
	int64_t kw_zblank;
	int rice_blocksize, rice_bytepix, hcomp_smooth;
	int plio_unsigned;      /* PLIO_1 tiles of a uint16 image: its pixels, 0 to 65535 */
	int raw;
	int whole_tiles;        /* every tile has the tile shape (none is cut at an edge) */
	struct tsr_fits_scaling scaling; /* BSCALE/BZERO/BLANK of the image */
	struct tsr_xform xf;             /* for integer and lossless tiles */
};

static int tsr_tform_width(char t)
{
	switch (t) {
	case 'L': case 'B': case 'A': return 1;
	case 'I': return 2;
	case 'J': case 'E': return 4;
	case 'K': case 'D': case 'C': case 'P': return 8;
	case 'M': case 'Q': return 16;
	default: return -1;
	}
}

/* Parses TFORMn ("1PB(1234)", "1D", "2J") into repeat, type and P/Q element type. */
static int tsr_tform_parse(const char *s, int64_t *repeat, char *type, char *ptype)
{
	char *end;
	while (*s == ' ')
		s++;
	long long r = 1;
	if (*s >= '0' && *s <= '9') {
		r = strtoll(s, &end, 10);
		s = end;
	}
	if (r < 0 || r > (1LL << 31))
		return -1;
	*repeat = r;
	*type = *s;
	*ptype = 0;
	if (*s == 'P' || *s == 'Q')
		*ptype = s[1];
	return *type ? 0 : -1;
}

static void tsr_tiled_free(void *p)
{
	struct tsr_fits_tiled *t = p;
	if (t)
		free(t->table);
	free(t);
}

static int64_t tsr_be_int(const unsigned char *p, char type)
{
	switch (type) {
	case 'B': return p[0];
	case 'I': return (int16_t)tsr_be16(p);
	case 'J': return (int32_t)tsr_be32(p);
	case 'K': return (int64_t)tsr_be64(p);
	default: return 0;
	}
}

static double tsr_be_real(const unsigned char *p, char type)
{
	if (type == 'D') {
		uint64_t u = tsr_be64(p);
		double d;
		memcpy(&d, &u, 8);
		return d;
	}
	if (type == 'E') {
		uint32_t u = tsr_be32(p);
		float f;
		memcpy(&f, &u, 4);
		return f;
	}
	return (double)tsr_be_int(p, type);
}

/* Reads a descriptor: element count and heap offset, bounds-checked against the heap. */
static int tsr_descriptor(const struct tsr_fits_tiled *t, const struct tsr_fits_col *c,
			  const unsigned char *row, uint64_t *nbytes, uint64_t *offset)
{
	int64_t n, off;
	if (c->type == 'P') {
		n = (int32_t)tsr_be32(row + c->offset);
		off = (int32_t)tsr_be32(row + c->offset + 4);
	} else {
		n = (int64_t)tsr_be64(row + c->offset);
		off = (int64_t)tsr_be64(row + c->offset + 8);
	}
	int w = tsr_tform_width(c->ptype);
	if (w <= 0)
		return tsr_error(TSR_E_UNSUPPORTED, "descriptor of element type '%c'", c->ptype);
	if (n < 0 || off < 0 || (uint64_t)n > t->heap_nbytes / (uint64_t)w ||
	    (uint64_t)off > t->heap_nbytes - (uint64_t)n * (uint64_t)w)
		return tsr_error(TSR_E_FORMAT,
				 "descriptor (%lld elements at heap offset %lld) points past the "
				 "heap of %llu bytes",
				 (long long)n, (long long)off, (unsigned long long)t->heap_nbytes);
	*nbytes = (uint64_t)n * (uint64_t)w;
	*offset = t->heap_offset + (uint64_t)off;
	return TSR_OK;
}

static enum tsr_dtype tsr_col_dtype(char t)
{
	switch (t) {
	case 'B': return TSR_UINT8;
	case 'I': return TSR_INT16;
	case 'J': return TSR_INT32;
	case 'K': return TSR_INT64;
	case 'E': return TSR_FLOAT32;
	case 'D': return TSR_FLOAT64;
	default: return TSR_DTYPE_INVALID;
	}
}

/* A tile's ZBLANK: its column's, else the keyword's (ZBLANK or BLANK). */
static int64_t tsr_tile_blank(const struct tsr_fits_tiled *t, const unsigned char *row)
{
	return t->zblank.present ? tsr_be_int(row + t->zblank.offset, t->zblank.type) : t->kw_zblank;
}

/* What a quantized tile's value transform has of its own: ZSCALE and ZZERO (its columns', else
 * the keywords'; the image's BSCALE and BZERO on top combine, as CFITSIO's imcompress.c does)
 * and its dither row. */
static void tsr_tile_own(const struct tsr_fits_tiled *t, const unsigned char *row, int64_t chunk,
			 struct tsr_xform *xf)
{
	double zscale = t->zscale.present ? tsr_be_real(row + t->zscale.offset, t->zscale.type)
					  : t->kw_zscale;
	double zzero = t->zzero.present ? tsr_be_real(row + t->zzero.offset, t->zzero.type)
					: t->kw_zzero;
	xf->scale = zscale;
	xf->zero = zzero;
	if (t->scaling.bscale != 1.0 || t->scaling.bzero != 0.0) {
		xf->scale = zscale * t->scaling.bscale;
		xf->zero = zzero * t->scaling.bscale + t->scaling.bzero;
	}
	xf->dither_row = chunk + t->zdither0;
}

static int tsr_tiled_chunk(const struct tsr_array *a, int64_t chunk, struct tsr_chunk_ref *ref)
{
	const struct tsr_fits_tiled *t = a->impl;
	const struct tsr_desc *d = &a->desc;
	/* every tile is in the array's own file (""): the path's other 1023 bytes are not cleared
	 * (a read plans one ref a tile: 131,072 for 32 images of 4096 row tiles) */
	ref->path[0] = '\0';
	memset(&ref->missing_is_fill, 0,
	       sizeof(*ref) - offsetof(struct tsr_chunk_ref, missing_is_fill));
	if (chunk < 0 || chunk >= t->nrows)
		return tsr_error(TSR_E_INTERNAL, "tile %lld of %lld", (long long)chunk,
				 (long long)t->nrows);
	/* Extent of this tile; edge tiles are truncated, not padded. */
	ref->npix = tsr_array_chunk_extent(a, chunk, ref->extent);
	const unsigned char *row = t->table + chunk * t->row_nbytes;
	int st = tsr_descriptor(t, &t->cdata, row, &ref->nbytes, &ref->offset);
	if (st)
		return st;
	struct tsr_codec_step *c = &ref->codec;
	ref->xform = t->xf;
	ref->codec_name = t->zcmp_name;
	enum tsr_dtype zt = tsr_fits_bitpix_dtype(t->zbitpix);

	int quantized = t->quantized;
	int has_blank = t->has_kw_zblank || t->zblank.present;
	int64_t blank = tsr_tile_blank(t, row);

	if (ref->nbytes == 0) {
		/* No compressed bytes: the tile is in a fallback column. */
		if (t->gdata.present &&
		    (st = tsr_descriptor(t, &t->gdata, row, &ref->nbytes, &ref->offset)) != TSR_OK)
			return st;
		if (ref->nbytes > 0) {
			/* Floats that could not be quantized: plain gzip, never shuffled. */
			c->id = TSR_CODEC_GZIP;
			c->elem = zt;
			c->big_endian = 1;
			ref->codec_name = "GZIP_COMPRESSED_DATA";
			ref->xform.kind = TSR_XF_COPY;
			ref->xform.out = t->raw && quantized ? TSR_INT32 : d->dtype;
			if (t->raw && quantized)
				return tsr_error(TSR_E_UNSUPPORTED,
						 "raw read of a tile stored losslessly (GZIP_COMPRESSED_DATA)");
			return TSR_OK;
		}
		if (t->udata.present &&
		    (st = tsr_descriptor(t, &t->udata, row, &ref->nbytes, &ref->offset)) != TSR_OK)
			return st;
		if (ref->nbytes == 0)
			return tsr_error(TSR_E_FORMAT, "tile has no data in any column");
		c->id = TSR_CODEC_NONE;
		c->elem = tsr_col_dtype(t->udata.ptype);
		c->big_endian = 1;
		ref->codec_name = "UNCOMPRESSED_DATA";
		if (c->elem == TSR_DTYPE_INVALID || ref->nbytes != (uint64_t)ref->npix * tsr_dtype_size(c->elem))
			return tsr_error(TSR_E_FORMAT, "UNCOMPRESSED_DATA holds %llu bytes for %lld pixels",
					 (unsigned long long)ref->nbytes, (long long)ref->npix);
		if (tsr_dtype_is_float(c->elem) && t->raw && quantized)
			/* (no stored integers to give: the tile holds the floats themselves) */
			return tsr_error(TSR_E_UNSUPPORTED,
					 "raw read of a tile stored losslessly (UNCOMPRESSED_DATA)");
		if (tsr_dtype_is_float(c->elem)) {
			ref->xform.kind = c->elem == d->dtype ? TSR_XF_COPY : TSR_XF_SCALE;
			ref->xform.scale = 1.0;
			ref->xform.zero = 0.0;
			ref->xform.has_blank = 0;
		}
		return TSR_OK;
	}

	switch (t->zcmp) {
	case ZCMP_GZIP1:
	case ZCMP_GZIP2:
		c->id = TSR_CODEC_GZIP;
		c->elem = quantized ? TSR_INT32 : zt;
		c->big_endian = 1;
		c->byte_shuffle = t->zcmp == ZCMP_GZIP2;
		c->elem_from_size = 1;
		break;
	case ZCMP_RICE:
		c->id = TSR_CODEC_RICE;
		c->elem = quantized ? TSR_INT32 : zt;
		c->rice_blocksize = t->rice_blocksize;
		c->rice_bytepix = t->rice_bytepix;
		break;
	case ZCMP_HCOMP:
		c->id = TSR_CODEC_HCOMPRESS;
		c->elem = quantized ? TSR_INT32 : zt;
		c->hcomp_smooth = t->hcomp_smooth;
		c->rice_bytepix = (t->zbitpix == 8 || t->zbitpix == 16) && !quantized ? 2 : 4;
		c->tile_nx = ref->extent[d->ndim - 1];
		c->tile_ny = d->ndim > 1 ? ref->npix / c->tile_nx : 1;
		break;
	case ZCMP_PLIO:
		c->id = TSR_CODEC_PLIO;
		c->elem = t->plio_unsigned ? TSR_UINT16 : zt;
		break;
	case ZCMP_NONE:
		/* astropy's NOCOMPRESS writes each tile's pixels as they are (big-endian, of
		 * ZBITPIX, or the quantized integers) into COMPRESSED_DATA, where fpack uses
		 * UNCOMPRESSED_DATA (above) */
		c->id = TSR_CODEC_NONE;
		c->elem = quantized ? TSR_INT32 : zt;
		c->big_endian = 1;
		if (ref->nbytes != (uint64_t)ref->npix * tsr_dtype_size(c->elem))
			return tsr_error(TSR_E_FORMAT, "NOCOMPRESS tile holds %llu bytes for %lld "
					 "pixels of %zu bytes", (unsigned long long)ref->nbytes,
					 (long long)ref->npix, tsr_dtype_size(c->elem));
		break;
	}
	if (quantized && !t->raw) {
		ref->xform.kind = TSR_XF_DEQUANT;
		tsr_tile_own(t, row, chunk, &ref->xform);
		ref->xform.has_blank = has_blank;
		ref->xform.blank = blank;
		ref->xform.dither = t->dither;
	} else if (ref->xform.kind == TSR_XF_SCALE && t->zblank.present) {
		ref->xform.has_blank = 1;
		ref->xform.blank = blank;
	}
	return TSR_OK;
}

/*
 * The driver's chunk_next (array.h): tile chunk's description from ref, tile chunk - 1's as
 * tsr_tiled_chunk made it. Tiles of one image share everything but where their bytes lie and a
 * quantized tile's own ZSCALE, ZZERO and dither row, except a tile cut at an edge, one whose
 * bytes are in a fallback column (or follow one), and one with a ZBLANK of its own: those are
 * described whole (0). A few loads a tile, where describing it whole clears and fills its
 * 900-byte description (131,072 times for 32 images of 4096 row tiles).
 */
static int tsr_tiled_next(const struct tsr_array *a, int64_t chunk, struct tsr_chunk_ref *ref)
{
	const struct tsr_fits_tiled *t = a->impl;
	if (chunk < 1 || chunk >= t->nrows || t->zcmp == ZCMP_NONE)
		return 0;
	const unsigned char *row = t->table + chunk * t->row_nbytes, *prev = row - t->row_nbytes;
	uint64_t nbytes = 0, offset = 0;
	/* The tile before in the compressed column (its codec name is the image's: a fallback
	 * column's tile names its own), and this one too. (A descriptor that fails here fails
	 * again where the tile is described whole.) */
	if (ref->codec_name != t->zcmp_name ||
	    tsr_descriptor(t, &t->cdata, row, &nbytes, &offset) || !nbytes)
		return 0;
	if (t->zblank.present && tsr_tile_blank(t, row) != tsr_tile_blank(t, prev))
		return 0;
	if (!t->whole_tiles) {
		int64_t extent[TSR_MAX_DIM];
		tsr_array_chunk_extent(a, chunk, extent);
		if (memcmp(extent, ref->extent, (size_t)a->desc.ndim * sizeof(*extent)))
			return 0;
	}
	ref->offset = offset;
	ref->nbytes = nbytes;
	if (t->quantized && !t->raw) {
		tsr_tile_own(t, row, chunk, &ref->xform);
	} else {
		ref->xform.scale = t->xf.scale;
		ref->xform.zero = t->xf.zero;
		ref->xform.dither_row = t->xf.dither_row;
	}
	return 1;
}

static const struct tsr_driver_ops tsr_fits_tiled_ops = {
	.name = "fits", .chunk_ref = tsr_tiled_chunk, .chunk_next = tsr_tiled_next,
	.free = tsr_tiled_free};

/* Looks up ZNAMEi = name and returns ZVALi; falls back to position `pos` as CFITSIO does. */
static int tsr_zval(const struct tsr_fits_header *h, const char *name, int pos, int64_t *v)
{
	char key[24], val[72];
	for (int i = 1; i < 100; i++) {
		snprintf(key, sizeof(key), "ZNAME%d", i);
		if (tsr_fits_get_string(h, key, val, sizeof(val)) != TSR_OK)
			break;
		if (strcmp(val, name) == 0) {
			snprintf(key, sizeof(key), "ZVAL%d", i);
			/* an integer, or a logical: astropy writes SMOOTH as T or F, which CFITSIO
			 * reads as 1 or 0 */
			int b, st = tsr_fits_get_int(h, key, v);
			if (st == TSR_E_FORMAT && tsr_fits_get_bool(h, key, &b) == TSR_OK) {
				tsr_error_clear();
				*v = b;
				st = TSR_OK;
			}
			return st;
		}
	}
	(void)pos;
	return TSR_E_NOT_FOUND;
}

int tsr_fits_tiled_open(struct tsr_array *a, const struct tsr_fits_header *h, int raw)
{
	struct tsr_desc *d = &a->desc;
	int64_t v, naxis1, naxis2, tfields, zbitpix, znaxis;
	char s[72], key[24];
	int st;
	struct tsr_fits_tiled *t = calloc(1, sizeof(*t));
	if (!t)
		return tsr_error(TSR_E_NOMEM, "out of memory");
	a->impl = t;
	a->ops = &tsr_fits_tiled_ops;
	t->raw = raw;
	if (tsr_fits_get_int(h, "NAXIS1", &naxis1) || tsr_fits_get_int(h, "NAXIS2", &naxis2) ||
	    tsr_fits_get_int(h, "TFIELDS", &tfields))
		return tsr_error(TSR_E_FORMAT, "compressed image table lacks NAXIS1/NAXIS2/TFIELDS");
	if ((st = tsr_fits_get_string(h, "ZCMPTYPE", s, sizeof(s))))
		return st == TSR_E_NOT_FOUND ? tsr_error(TSR_E_FORMAT, "no ZCMPTYPE keyword") : st;
	static const struct { const char *name; enum tsr_fits_zcmp z; } zc[] = {
		{"GZIP_1", ZCMP_GZIP1}, {"GZIP_2", ZCMP_GZIP2}, {"RICE_1", ZCMP_RICE},
		{"RICE_ONE", ZCMP_RICE}, {"HCOMPRESS_1", ZCMP_HCOMP}, {"PLIO_1", ZCMP_PLIO},
		{"NOCOMPRESS", ZCMP_NONE},
	};
	t->zcmp_name = NULL;
	for (size_t i = 0; i < sizeof(zc) / sizeof(zc[0]); i++)
		if (strcmp(s, zc[i].name) == 0) {
			t->zcmp = zc[i].z;
			t->zcmp_name = zc[i].z == ZCMP_RICE ? "RICE_1" : zc[i].name;
		}
	if (!t->zcmp_name)
		return tsr_error(TSR_E_UNSUPPORTED, "compression type ZCMPTYPE = '%s'", s);
	snprintf(d->codec, sizeof(d->codec), "%s", t->zcmp_name);
	if ((st = tsr_fits_get_int(h, "ZBITPIX", &zbitpix)))
		return st == TSR_E_NOT_FOUND ? tsr_error(TSR_E_FORMAT, "no ZBITPIX keyword") : st;
	if (tsr_fits_bitpix_dtype((int)zbitpix) == TSR_DTYPE_INVALID)
		return tsr_error(TSR_E_UNSUPPORTED, "unsupported ZBITPIX %lld", (long long)zbitpix);
	t->zbitpix = (int)zbitpix;
	if ((st = tsr_fits_get_int(h, "ZNAXIS", &znaxis)))
		return st == TSR_E_NOT_FOUND ? tsr_error(TSR_E_FORMAT, "no ZNAXIS keyword") : st;
	if (znaxis < 1 || znaxis > 6)
		return tsr_error(TSR_E_UNSUPPORTED, "ZNAXIS = %lld (1 to 6 supported)", (long long)znaxis);
	d->ndim = (int)znaxis;
	int64_t ntiles = 1;
	for (int i = 1; i <= znaxis; i++) {
		int64_t n, tile;
		snprintf(key, sizeof(key), "ZNAXIS%d", i);
		if ((st = tsr_fits_get_int(h, key, &n)) || n < 0 || n > ((int64_t)1 << 40))
			return st && st != TSR_E_NOT_FOUND ? st
							    : tsr_error(TSR_E_FORMAT, "bad or missing %s", key);
		snprintf(key, sizeof(key), "ZTILE%d", i);
		st = tsr_fits_get_int(h, key, &tile);
		if (st == TSR_E_NOT_FOUND)
			tile = i == 1 ? n : 1; /* default: row tiles */
		else if (st)
			return st;
		if (tile < 1)
			return tsr_error(TSR_E_FORMAT, "%s = %lld", key, (long long)tile);
		if (tile > n && n > 0)
			tile = n;
		d->shape[znaxis - i] = n;
		d->chunk_shape[znaxis - i] = tile;
		/* the tile count is checked against the table's rows below: it must not wrap */
		if (__builtin_mul_overflow(ntiles, n > 0 ? (n + tile - 1) / tile : 0, &ntiles))
			return tsr_error(TSR_E_FORMAT, "tile count overflows at %s", key);
	}
	if (ntiles != naxis2)
		return tsr_error(TSR_E_FORMAT, "table has %lld rows for %lld tiles", (long long)naxis2,
				 (long long)ntiles);
	t->nrows = naxis2;
	t->row_nbytes = naxis1;
	if (tfields < 0 || tfields > 999)
		return tsr_error(TSR_E_FORMAT, "TFIELDS = %lld (0 to 999)", (long long)tfields);

	/* Columns. */
	int64_t off = 0;
	for (int i = 1; i <= tfields; i++) {
		char ttype[72] = "", tform[72];
		int64_t repeat;
		char type, ptype;
		snprintf(key, sizeof(key), "TTYPE%d", i);
		tsr_fits_get_string(h, key, ttype, sizeof(ttype));
		snprintf(key, sizeof(key), "TFORM%d", i);
		if (tsr_fits_get_string(h, key, tform, sizeof(tform)) ||
		    tsr_tform_parse(tform, &repeat, &type, &ptype))
			return tsr_error(TSR_E_FORMAT, "bad or missing %s", key);
		int w = type == 'X' ? 0 : tsr_tform_width(type);
		if (w < 0)
			return tsr_error(TSR_E_FORMAT, "%s = '%s': unknown type", key, tform);
		int64_t width = type == 'X' ? (repeat + 7) / 8 : repeat * w;
		struct tsr_fits_col *c = NULL;
		for (char *p = ttype; *p; p++)
			if (*p >= 'a' && *p <= 'z')
				*p = (char)(*p - 32);
		if (!strcmp(ttype, "COMPRESSED_DATA")) c = &t->cdata;
		else if (!strcmp(ttype, "GZIP_COMPRESSED_DATA")) c = &t->gdata;
		else if (!strcmp(ttype, "UNCOMPRESSED_DATA")) c = &t->udata;
		else if (!strcmp(ttype, "ZSCALE")) c = &t->zscale;
		else if (!strcmp(ttype, "ZZERO")) c = &t->zzero;
		else if (!strcmp(ttype, "ZBLANK")) c = &t->zblank;
		if (c) {
			int is_desc = type == 'P' || type == 'Q';
			int want_desc = c == &t->cdata || c == &t->gdata || c == &t->udata;
			if (is_desc != want_desc || repeat != 1 || (is_desc && tsr_tform_width(ptype) < 0))
				return tsr_error(TSR_E_FORMAT, "column %s has TFORM '%s'", ttype, tform);
			c->present = 1;
			c->offset = off;
			c->type = type;
			c->ptype = ptype;
		}
		off += width;
	}
	if (off > naxis1)
		return tsr_error(TSR_E_FORMAT, "columns need %lld bytes per row, NAXIS1 = %lld",
				 (long long)off, (long long)naxis1);
	if (!t->cdata.present)
		return tsr_error(TSR_E_FORMAT, "no COMPRESSED_DATA column");

	/* Heap. */
	int64_t pcount = 0, theap = naxis1 * naxis2;
	tsr_fits_get_int(h, "PCOUNT", &pcount);
	if ((st = tsr_fits_get_int(h, "THEAP", &v)) == TSR_OK)
		theap = v;
	if (theap < naxis1 * naxis2 || theap > naxis1 * naxis2 + pcount)
		return tsr_error(TSR_E_FORMAT, "THEAP = %lld outside the data unit", (long long)theap);
	t->heap_offset = h->data_offset + (uint64_t)theap;
	t->heap_nbytes = (uint64_t)(naxis1 * naxis2 + pcount - theap);

	/* Codec parameters. */
	t->rice_blocksize = 32;
	t->rice_bytepix = 4;
	if (t->zcmp == ZCMP_RICE) {
		/* values clamped into int's range before the cast, then checked */
		if (tsr_zval(h, "BLOCKSIZE", 1, &v) == TSR_OK)
			t->rice_blocksize = v < 0 || v > INT32_MAX ? -1 : (int)v;
		if (tsr_zval(h, "BYTEPIX", 2, &v) == TSR_OK)
			t->rice_bytepix = v < 0 || v > INT32_MAX ? -1 : (int)v;
		if (t->rice_bytepix != 1 && t->rice_bytepix != 2 && t->rice_bytepix != 4)
			return tsr_error(TSR_E_UNSUPPORTED, "RICE_1 with BYTEPIX = %d", t->rice_bytepix);
		if (t->rice_blocksize < 1 || t->rice_blocksize > 1 << 20)
			return tsr_error(TSR_E_FORMAT, "RICE_1 BLOCKSIZE = %d", t->rice_blocksize);
	}
	if (t->zcmp == ZCMP_HCOMP) {
		/* a SMOOTH that is there but unread would decode without the smoothing the tiles
		 * were written with: wrong values, so it is refused */
		st = tsr_zval(h, "SMOOTH", 2, &v);
		if (st != TSR_OK && st != TSR_E_NOT_FOUND)
			return st;
		t->hcomp_smooth = st == TSR_OK && v != 0;
	}

	/* Quantization: floats are quantized unless lossless by ZQUANTIZ or by missing scales. */
	char zq[72] = "";
	tsr_fits_get_string(h, "ZQUANTIZ", zq, sizeof(zq));
	int has_scale = t->zscale.present || tsr_fits_has(h, "ZSCALE");
	int has_zero = t->zzero.present || tsr_fits_has(h, "ZZERO");
	t->quantized = zbitpix < 0 && strcmp(zq, "NONE") != 0 && has_scale && has_zero;
	t->kw_zscale = 1.0;
	t->kw_zzero = 0.0;
	tsr_fits_get_double(h, "ZSCALE", &t->kw_zscale);
	tsr_fits_get_double(h, "ZZERO", &t->kw_zzero);
	t->dither = !strcmp(zq, "SUBTRACTIVE_DITHER_1") ? TSR_DITHER_1
		    : !strcmp(zq, "SUBTRACTIVE_DITHER_2") ? TSR_DITHER_2 : TSR_DITHER_NONE;
	t->zdither0 = 1; /* CFITSIO's default when ZDITHER0 is absent */
	if (tsr_fits_get_int(h, "ZDITHER0", &v) == TSR_OK)
		t->zdither0 = v;
	if (tsr_fits_get_int(h, "ZBLANK", &t->kw_zblank) == TSR_OK)
		t->has_kw_zblank = 1;
	else if (tsr_fits_get_int(h, "BLANK", &t->kw_zblank) == TSR_OK)
		t->has_kw_zblank = 1;

	/* Image values: BSCALE/BZERO of the original image live in this header. */
	t->scaling.bitpix = (int)zbitpix;
	t->scaling.bscale = 1.0;
	t->scaling.bzero = 0.0;
	tsr_fits_get_double(h, "BSCALE", &t->scaling.bscale);
	tsr_fits_get_double(h, "BZERO", &t->scaling.bzero);
	/* An unscaled integer image's BLANK makes it float (tsr_fits_xform): its header's BLANK,
	 * as astropy's image header has it, not a ZBLANK alone. A scaled image's null pixels are
	 * the tiles' (ZBLANK, else BLANK), as before. */
	int64_t blank = 0;
	int image_blank = tsr_fits_get_int(h, "BLANK", &blank) == TSR_OK;
	int scaled = t->scaling.bscale != 1.0 || t->scaling.bzero != 0.0;
	t->scaling.has_blank = scaled ? t->has_kw_zblank : image_blank;
	t->scaling.blank = scaled ? t->kw_zblank : blank;
	if (t->zcmp == ZCMP_PLIO && zbitpix == 16 && t->scaling.bzero == 32768.0) {
		/* PLIO stores unsigned 16-bit pixels directly (CFITSIO drops the offset). */
		t->scaling.bzero = 0.0;
	}
	if (t->quantized) {
		memset(&t->xf, 0, sizeof(t->xf));
		t->xf.kind = raw ? TSR_XF_COPY : TSR_XF_DEQUANT;
		t->xf.out = raw ? TSR_INT32 : tsr_fits_bitpix_dtype((int)zbitpix);
	} else {
		tsr_fits_xform(&t->scaling, raw, &t->xf);
		if (t->zcmp == ZCMP_PLIO && zbitpix == 16 && !raw && t->xf.kind == TSR_XF_COPY &&
		    tsr_fits_has(h, "BZERO")) {
			t->xf.kind = TSR_XF_OFFSET;
			t->xf.out = TSR_UINT16;
			t->xf.offset = 0;
			/* (the tiles' values are the pixels, so 32768 and up are there too: they were
			 * checked against int16 and refused) */
			t->plio_unsigned = 1;
		}
	}
	d->dtype = t->xf.out;
	t->whole_tiles = 1;
	for (int i = 0; i < d->ndim; i++)
		t->whole_tiles &= d->shape[i] % d->chunk_shape[i] == 0;
	d->stored_dtype = t->quantized ? TSR_INT32 : tsr_fits_bitpix_dtype((int)zbitpix);
	d->scaled = t->xf.kind != TSR_XF_COPY;
	d->stored_nbytes = h->data_nbytes;
	strcpy(d->reader, "tessera");
	if (t->zcmp == ZCMP_HCOMP || t->zcmp == ZCMP_PLIO) {
		strcpy(d->reader, "cfitsio");
		snprintf(d->fallback, sizeof(d->fallback),
			 "%s tiles are decoded by CFITSIO's own tile decoder (no native one yet)",
			 t->zcmp_name);
	}

	/* The table is the tile index: read it once. */
	size_t tn = (size_t)(naxis1 * naxis2);
	t->table = malloc(tn ? tn : 1);
	if (!t->table)
		return tsr_error(TSR_E_NOMEM, "out of memory for a %zu-byte tile table", tn);
	if ((st = tsr_file_pread(a->fd, t->table, tn, h->data_offset)))
		return st;
	return TSR_OK;
}
