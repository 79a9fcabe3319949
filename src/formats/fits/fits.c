/* fits.c - the FITS driver: HDU walk, image HDUs, value semantics, uncompressed blocks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "../../core/file.h"
#include "../open.h"
#include "fits.h"

/* Uncompressed images are read in blocks of whole rows of about this size. */
#define TSR_FITS_BLOCK_TARGET (1u << 20)

struct tsr_fits_image {
	uint64_t data_offset;
	int64_t row_nbytes; /* bytes per index of axis 0 */
	struct tsr_xform xf;
	enum tsr_dtype stored;
};

enum tsr_dtype tsr_fits_bitpix_dtype(int bitpix)
{
	switch (bitpix) {
	case 8: return TSR_UINT8;
	case 16: return TSR_INT16;
	case 32: return TSR_INT32;
	case 64: return TSR_INT64;
	case -32: return TSR_FLOAT32;
	case -64: return TSR_FLOAT64;
	default: return TSR_DTYPE_INVALID;
	}
}

void tsr_fits_xform(const struct tsr_fits_scaling *s, int raw, struct tsr_xform *xf)
{
	enum tsr_dtype stored = tsr_fits_bitpix_dtype(s->bitpix);
	memset(xf, 0, sizeof(*xf));
	xf->kind = TSR_XF_COPY;
	xf->out = stored;
	int unscaled = s->bscale == 1.0 && s->bzero == 0.0;
	/* astropy (ImageHDU._scale_data; a tile-compressed image is one since astropy 6): any
	 * BLANK of an integer image makes it float ("self._blank is not None"), but only a
	 * non-zero one marks pixels NaN ("if self._blank: data.flat[blanks] = np.nan") */
	int blank = s->has_blank && s->bitpix > 0;
	if (raw || (unscaled && !blank))
		return;
	if (s->bscale == 1.0) {
		/* astropy's uint=True: the FITS unsigned conventions stay integers. */
		if (s->bitpix == 8 && s->bzero == -128.0) {
			xf->kind = TSR_XF_OFFSET;
			xf->out = TSR_INT8;
			xf->offset = (uint64_t)(int64_t)-128;
			return;
		}
		static const struct { int bitpix; double bzero; enum tsr_dtype out; } u[] = {
			{16, 32768.0, TSR_UINT16},
			{32, 2147483648.0, TSR_UINT32},
			{64, 9223372036854775808.0, TSR_UINT64},
		};
		for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
			if (s->bitpix == u[i].bitpix && s->bzero == u[i].bzero) {
				xf->kind = TSR_XF_OFFSET;
				xf->out = u[i].out;
				xf->offset = (uint64_t)1 << (s->bitpix - 1);
				return;
			}
		}
	}
	xf->kind = TSR_XF_SCALE;
	xf->out = s->bitpix > 16 ? TSR_FLOAT64 : s->bitpix > 0 ? TSR_FLOAT32 : stored;
	xf->scale = s->bscale;
	xf->zero = s->bzero;
	xf->has_blank = blank && s->blank != 0;
	xf->blank = s->blank;
}

/* Reads BSCALE/BZERO/BLANK. */
static int tsr_fits_scaling_read(const struct tsr_fits_header *h, int bitpix, struct tsr_fits_scaling *s)
{
	int st;
	s->bitpix = bitpix;
	s->bscale = 1.0;
	s->bzero = 0.0;
	s->has_blank = 0;
	s->blank = 0;
	if ((st = tsr_fits_get_double(h, "BSCALE", &s->bscale)) < 0 && st != TSR_E_NOT_FOUND)
		return st;
	if ((st = tsr_fits_get_double(h, "BZERO", &s->bzero)) < 0 && st != TSR_E_NOT_FOUND)
		return st;
	st = tsr_fits_get_int(h, "BLANK", &s->blank);
	if (st < 0 && st != TSR_E_NOT_FOUND)
		return st;
	s->has_blank = st == TSR_OK;
	return TSR_OK;
}

static int tsr_fits_image_chunk(const struct tsr_array *a, int64_t chunk, struct tsr_chunk_ref *ref)
{
	const struct tsr_fits_image *im = a->impl;
	const struct tsr_desc *d = &a->desc;
	memset(ref, 0, sizeof(*ref));
	int64_t r0 = chunk * d->chunk_shape[0];
	int64_t rows = d->shape[0] - r0 < d->chunk_shape[0] ? d->shape[0] - r0 : d->chunk_shape[0];
	ref->extent[0] = rows;
	ref->npix = rows;
	for (int i = 1; i < d->ndim; i++) {
		ref->extent[i] = d->shape[i];
		ref->npix *= d->shape[i];
	}
	ref->offset = im->data_offset + (uint64_t)(r0 * im->row_nbytes);
	ref->nbytes = (uint64_t)(rows * im->row_nbytes);
	ref->codec.id = TSR_CODEC_NONE;
	ref->codec.elem = im->stored;
	ref->codec.big_endian = 1;
	ref->xform = im->xf;
	ref->codec_name = "none";
	return TSR_OK;
}

static const struct tsr_driver_ops tsr_fits_image_ops = {
	.name = "fits", .chunk_ref = tsr_fits_image_chunk, .free = free};

/* Describes an uncompressed IMAGE data unit. */
static int tsr_fits_image_open(struct tsr_array *a, const struct tsr_fits_header *h, int bitpix,
			       int naxis, const int64_t *naxisn, int raw)
{
	struct tsr_fits_scaling s;
	int st = tsr_fits_scaling_read(h, bitpix, &s);
	if (st)
		return st;
	struct tsr_fits_image *im = calloc(1, sizeof(*im));
	if (!im)
		return tsr_error(TSR_E_NOMEM, "out of memory");
	im->data_offset = h->data_offset;
	im->stored = tsr_fits_bitpix_dtype(bitpix);
	tsr_fits_xform(&s, raw, &im->xf);
	struct tsr_desc *d = &a->desc;
	d->ndim = naxis;
	int64_t inner = (int64_t)tsr_dtype_size(im->stored);
	for (int i = 0; i < naxis; i++) {
		d->shape[i] = naxisn[naxis - 1 - i]; /* FITS axis 1 is the fastest: NumPy's last */
		if (i > 0)
			inner *= d->shape[i];
	}
	im->row_nbytes = inner;
	int64_t rows = inner > 0 ? (int64_t)(TSR_FITS_BLOCK_TARGET / (uint64_t)inner) : 1;
	/* A block is never taller than the image (tsr_array_info reports it as the chunk
	 * shape): the same one block then, and at least 1 row, as on every empty axis. */
	if (naxis > 0 && rows > d->shape[0])
		rows = d->shape[0];
	if (rows < 1)
		rows = 1;
	d->chunk_shape[0] = rows;
	for (int i = 1; i < naxis; i++)
		d->chunk_shape[i] = d->shape[i] > 0 ? d->shape[i] : 1;
	d->dtype = im->xf.out;
	d->stored_dtype = im->stored;
	d->scaled = im->xf.kind != TSR_XF_COPY;
	d->stored_nbytes = h->data_nbytes;
	d->max_chunk_nbytes = (uint64_t)(rows * inner);
	strcpy(d->codec, "none");
	strcpy(d->reader, "tessera");
	d->chunk_noun = "block";
	a->ops = &tsr_fits_image_ops;
	a->impl = im;
	return TSR_OK;
}

int tsr_fits_is_groups(const struct tsr_fits_header *h)
{
	int64_t naxis = 0, n1 = -1;
	int groups = 0;
	return tsr_fits_get_int(h, "NAXIS", &naxis) == TSR_OK && naxis > 1 &&
	       tsr_fits_get_int(h, "NAXIS1", &n1) == TSR_OK && n1 == 0 &&
	       tsr_fits_get_bool(h, "GROUPS", &groups) == TSR_OK && groups;
}

int tsr_fits_data_size(const struct tsr_fits_header *h, int *bitpix_ret, int *naxis_ret,
			      int64_t *naxisn, uint64_t *nbytes_ret)
{
	int64_t bitpix, naxis, pcount = 0, gcount = 1;
	int st;
	if ((st = tsr_fits_get_int(h, "BITPIX", &bitpix)))
		return st == TSR_E_NOT_FOUND ? tsr_error(TSR_E_FORMAT, "no BITPIX keyword") : st;
	if ((st = tsr_fits_get_int(h, "NAXIS", &naxis)))
		return st == TSR_E_NOT_FOUND ? tsr_error(TSR_E_FORMAT, "no NAXIS keyword") : st;
	if (naxis < 0 || naxis > 999)
		return tsr_error(TSR_E_FORMAT, "NAXIS = %lld", (long long)naxis);
	if (tsr_fits_bitpix_dtype((int)bitpix) == TSR_DTYPE_INVALID)
		return tsr_error(TSR_E_UNSUPPORTED, "unsupported BITPIX %lld", (long long)bitpix);
	if ((st = tsr_fits_get_int(h, "PCOUNT", &pcount)) < 0 && st != TSR_E_NOT_FOUND)
		return st;
	if ((st = tsr_fits_get_int(h, "GCOUNT", &gcount)) < 0 && st != TSR_E_NOT_FOUND)
		return st;
	if (pcount < 0 || gcount < 0)
		return tsr_error(TSR_E_FORMAT, "negative PCOUNT or GCOUNT");
	/* Random groups: NAXIS1 = 0 and the product starts at NAXIS2. */
	uint64_t prod = naxis > 0 ? 1 : 0;
	for (int i = 1; i <= naxis; i++) {
		char key[24];
		int64_t n;
		snprintf(key, sizeof(key), "NAXIS%d", i);
		if ((st = tsr_fits_get_int(h, key, &n)))
			return st == TSR_E_NOT_FOUND ? tsr_error(TSR_E_FORMAT, "no %s keyword", key) : st;
		if (n < 0 || n > ((int64_t)1 << 40))
			return tsr_error(TSR_E_FORMAT, "%s = %lld", key, (long long)n);
		if (i <= TSR_MAX_DIM && naxisn)
			naxisn[i - 1] = n;
		if (i == 1 && n == 0 && naxis > 1 && tsr_fits_has(h, "GROUPS"))
			continue;
		if (prod > 0 && (uint64_t)n > (UINT64_MAX >> 8) / prod)
			return tsr_error(TSR_E_FORMAT, "data size overflows");
		prod *= (uint64_t)n;
	}
	if (naxis == 0 && pcount == 0)
		prod = 0;
	uint64_t bytes = (uint64_t)(bitpix < 0 ? -bitpix : bitpix) / 8, nbytes;
	/* PCOUNT and GCOUNT are claims too: their product must not wrap to a size that fits */
	if (__builtin_add_overflow((uint64_t)pcount, prod, &nbytes) ||
	    __builtin_mul_overflow(nbytes, (uint64_t)gcount, &nbytes) ||
	    __builtin_mul_overflow(nbytes, bytes, &nbytes))
		return tsr_error(TSR_E_FORMAT, "data size overflows (PCOUNT %lld, GCOUNT %lld)",
				 (long long)pcount, (long long)gcount);
	*nbytes_ret = nbytes;
	*bitpix_ret = (int)bitpix;
	*naxis_ret = (int)naxis;
	return TSR_OK;
}

/* Does the HDU carry this EXTNAME (and EXTVER, unless ver is 0)? Names compare without
 * surrounding blanks and case, and "PRIMARY" names HDU 0 too, as astropy's HDUList does. */
static int tsr_fits_named(const struct tsr_fits_header *h, int hdu, const char *name, int ver,
			  char *extname, size_t cap)
{
	extname[0] = '\0';
	tsr_fits_get_string(h, "EXTNAME", extname, cap);
	const char *e = extname;
	while (*e == ' ')
		e++;
	while (*name == ' ')
		name++;
	size_t ne = strlen(e), nn = strlen(name);
	while (ne > 0 && e[ne - 1] == ' ')
		ne--;
	while (nn > 0 && name[nn - 1] == ' ')
		nn--;
	int same = ne == nn && strncasecmp(e, name, nn) == 0;
	if (!same && !(hdu == 0 && nn == 7 && strncasecmp(name, "PRIMARY", 7) == 0))
		return 0;
	int64_t v = 1;
	tsr_fits_get_int(h, "EXTVER", &v);
	return ver == 0 || v == ver;
}

/* Appends the HDU to the list a failed search by name reports ("0 PRIMARY, 1 SCI, 2 SCI,2"). */
static void tsr_fits_name_list(char *list, size_t cap, int hdu, const struct tsr_fits_header *h,
			       const char *extname)
{
	size_t n = strlen(list);
	int64_t v = 1;
	int has_ver = tsr_fits_get_int(h, "EXTVER", &v) == TSR_OK;
	if (n + 4 >= cap)
		return;
	if (n + 80 >= cap) {
		snprintf(list + n, cap - n, ", ...");
		return;
	}
	char one[96];
	if (extname[0])
		snprintf(one, sizeof(one), has_ver ? "%s,%lld" : "%s", extname, (long long)v);
	else
		snprintf(one, sizeof(one), hdu == 0 ? "PRIMARY" : "(no EXTNAME)");
	snprintf(list + n, cap - n, "%s%d %s", n ? ", " : "", hdu, one);
}

/* Where the walk to HDU want starts, when not at the file's start (1: *h holds the header
 * at HDU *hdu0, byte *offset): at the header a listing found (a->start_*) while it still names
 * the listed EXTNAME; else, for a file whose walks the context keeps (kept: its stat record;
 * NULL: not kept), at the nearest HDU at or below want that an earlier walk found, while the
 * header there is still an extension's. A file changed since is walked from its start. */
static int tsr_fits_walk_start(const struct tsr_array *a, int want, const struct stat *kept,
			       struct tsr_fits_header *h, int *hdu0, uint64_t *offset)
{
	struct tsr_fits_hdu hdu;
	int k;
	uint64_t at;
	if (a->start_hdu > 0 && want == a->start_hdu &&
	    tsr_fits_hdu_at(a->fd, a->file_nbytes, a->start_at, want, a->start_name, h, &hdu)) {
		*hdu0 = want;
		*offset = a->start_at;
		return 1;
	}
	if (kept && tsr_fits_memo_start(a->ctx, kept, want, &k, &at) &&
	    tsr_fits_hdu_at(a->fd, a->file_nbytes, at, k, NULL, h, &hdu)) {
		*hdu0 = k;
		*offset = at;
		return 1;
	}
	return 0;
}

int tsr_fits_open(struct tsr_array *a, const struct tsr_open_options *opts)
{
	struct tsr_fits_header h = {0};
	uint64_t offset = 0;
	int want = opts->hdu;
	const char *name = opts->hdu_name && opts->hdu_name[0] ? opts->hdu_name : NULL;
	char names[400] = "", extname[TSR_HDU_NAME_MAX + 1];
	if (name && (opts->hdu_ver < 0 || strlen(name) > TSR_HDU_NAME_MAX))
		return tsr_error(TSR_E_INVALID_ARG, "%s: HDU name '%.68s' with EXTVER %d: names hold "
				 "up to %d bytes, versions count from 1 (0: any)", a->path,
				 name, opts->hdu_ver, TSR_HDU_NAME_MAX);
	a->desc.unit_noun = "HDU";
	a->desc.chunk_noun = "tile";
	char magic[10];
	if (a->file_nbytes < sizeof(magic) || tsr_file_pread(a->fd, magic, sizeof(magic), 0) ||
	    memcmp(magic, "SIMPLE  = ", sizeof(magic)) != 0) {
		if (a->unpacked)
			return tsr_error(TSR_E_FORMAT, "%s: not a FITS file (it is %s-compressed, and "
					 "what it holds does not start with SIMPLE)", a->path,
					 a->unpacked);
		return tsr_error(TSR_E_FORMAT, "%s: not a FITS file (it does not start with SIMPLE)",
				 a->path);
	}
	int hdu0 = 0, have = 0; /* have: h holds the header at offset already */
	/* (a file unpacked into memory is a new one each open: its walks are not kept) */
	struct stat sb;
	const struct stat *kept = !a->unpacked && fstat(a->fd, &sb) == 0 ? &sb : NULL;
	if (!name)
		have = tsr_fits_walk_start(a, want, kept, &h, &hdu0, &offset);
	for (int hdu = hdu0;; hdu++) {
		int end = have ? 0 : tsr_fits_walk_end(a->fd, a->file_nbytes, offset, hdu);
		if (end < 0)
			return end;
		if (end) {
			if (name && opts->hdu_ver)
				return tsr_error(TSR_E_NOT_FOUND, "%s: no HDU with EXTNAME '%s' and "
						 "EXTVER %d (HDUs: %s)", a->path, name,
						 opts->hdu_ver, names);
			if (name)
				return tsr_error(TSR_E_NOT_FOUND, "%s: no HDU with EXTNAME '%s' (HDUs: "
						 "%s)", a->path, name, names);
			if (want < 0)
				return tsr_error(TSR_E_NOT_FOUND, "%s: no HDU with image data (%d HDUs)",
						 a->path, hdu);
			return tsr_error(TSR_E_RANGE, "%s: HDU %d out of range: the file has %d HDUs",
					 a->path, want, hdu);
		}
		int st = have ? TSR_OK : tsr_fits_header_read(a->fd, a->file_nbytes, offset, &h);
		have = 0;
		if (st) {
			tsr_error_prefix("%s: HDU %d", a->path, hdu);
			return st;
		}
		if (kept)
			tsr_fits_memo_note(a->ctx, kept, hdu, offset);
		int bitpix = 0, naxis = 0, simple = 0;
		int64_t naxisn[TSR_MAX_DIM] = {0};
		char xt[72] = "";
		if (hdu == 0) {
			if (tsr_fits_get_bool(&h, "SIMPLE", &simple) != TSR_OK || !h.ncards ||
			    strcmp(h.cards[0].key, "SIMPLE") != 0) {
				tsr_fits_header_free(&h);
				return tsr_error(TSR_E_FORMAT, "%s: not a FITS file (no SIMPLE card)",
						 a->path);
			}
		} else if (tsr_fits_get_string(&h, "XTENSION", xt, sizeof(xt)) != TSR_OK) {
			tsr_fits_header_free(&h);
			return tsr_error(TSR_E_FORMAT, "%s: HDU %d: no XTENSION keyword", a->path, hdu);
		}
		uint64_t nbytes = 0;
		st = tsr_fits_data_size(&h, &bitpix, &naxis, naxisn, &nbytes);
		if (st) {
			tsr_fits_header_free(&h);
			tsr_error_prefix("%s: HDU %d", a->path, hdu);
			return st;
		}
		h.data_nbytes = nbytes;
		int zimage = 0;
		tsr_fits_get_bool(&h, "ZIMAGE", &zimage);
		int is_table_image = strcmp(xt, "BINTABLE") == 0 && zimage;
		int groups = hdu == 0 && tsr_fits_is_groups(&h);
		int is_image = (hdu == 0 && !groups) || strcmp(xt, "IMAGE") == 0;
		int has_data = nbytes > 0;
		int pick = want == hdu || (want < 0 && has_data && (is_image || is_table_image));
		if (name) {
			pick = tsr_fits_named(&h, hdu, name, opts->hdu_ver, extname, sizeof(extname));
			if (!pick)
				tsr_fits_name_list(names, sizeof(names), hdu, &h, extname);
		}
		if (pick) {
			a->desc.index = hdu;
			a->header_at = offset;
			/* (a malformed EXTNAME names nothing, as the listing takes it) */
			if (tsr_fits_get_string(&h, "EXTNAME", a->extname, sizeof(a->extname)))
				a->extname[0] = '\0';
			tsr_error_clear();
			a->desc.name = a->extname;
			if (nbytes > a->file_nbytes - h.data_offset) {
				st = tsr_error(TSR_E_FORMAT, "%s: HDU %d: truncated: the data unit needs "
					       "%llu bytes at offset %llu, the file has %llu",
					       a->path, hdu, (unsigned long long)nbytes,
					       (unsigned long long)h.data_offset,
					       (unsigned long long)a->file_nbytes);
			} else if (is_table_image) {
				st = tsr_fits_tiled_open(a, &h, opts->raw);
			} else if (groups) {
				st = tsr_error(TSR_E_UNSUPPORTED, "%s: HDU %d holds random groups (GROUPS "
					       "= T: parameters beside each group's array), not an image",
					       a->path, hdu);
			} else if (!is_image) {
				st = tsr_error(TSR_E_UNSUPPORTED, "%s: HDU %d is a %s extension, not an image",
					       a->path, hdu, xt[0] ? xt : "?");
			} else if (naxis > TSR_MAX_DIM) {
				st = tsr_error(TSR_E_UNSUPPORTED, "%s: HDU %d: NAXIS %d > %d", a->path, hdu,
					       naxis, TSR_MAX_DIM);
			} else if (naxis == 0) {
				st = tsr_error(TSR_E_NOT_FOUND, "%s: HDU %d has no image data (NAXIS = 0)",
					       a->path, hdu);
			} else {
				st = tsr_fits_image_open(a, &h, bitpix, naxis, naxisn, opts->raw);
			}
			tsr_fits_header_free(&h);
			if (st && strncmp(tsr_errmsg(), a->path, strlen(a->path)) != 0)
				tsr_error_prefix("%s: HDU %d", a->path, hdu);
			return st;
		}
		/* a data unit past the end of the file ends the walk (no offset arithmetic on a
		 * size the file cannot hold: it could wrap back into the file) */
		offset = nbytes > a->file_nbytes - h.data_offset
				 ? a->file_nbytes
				 : h.data_offset + (nbytes + TSR_FITS_BLOCK - 1) / TSR_FITS_BLOCK * TSR_FITS_BLOCK;
		tsr_fits_header_free(&h);
	}
}
