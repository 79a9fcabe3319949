/* fits.h - the FITS driver's internal pieces: headers, HDU walk, image descriptions. */
#ifndef TSR_FITS_H
#define TSR_FITS_H

#include "../../core/array.h"

#define TSR_FITS_BLOCK 2880

struct tsr_fits_card {
	char key[9];
	char text[73]; /* columns 11-80 when the card has a value indicator; else columns 9-80 */
	int has_value;
};

struct tsr_fits_header {
	struct tsr_fits_card *cards;
	int ncards;
	uint64_t offset;       /* of the header in the file */
	uint64_t data_offset;  /* of the data unit */
	uint64_t data_nbytes;  /* size of the data unit (without padding) */
};

/* Reads the header at offset; fails cleanly on truncation, a missing END or a first card that
 * is neither SIMPLE nor XTENSION. */
int tsr_fits_header_read(int fd, uint64_t file_nbytes, uint64_t offset, struct tsr_fits_header *h);
/* Whether a walk's HDU `index` (its header at offset) is past the file's last: 1 past its end,
 * or for an extension where no XTENSION card starts (padding or junk after the last HDU, which
 * astropy and CFITSIO read past); 0 where one starts; TSR_E_IO when it cannot be read. */
int tsr_fits_walk_end(int fd, uint64_t file_nbytes, uint64_t offset, int index);
void tsr_fits_header_free(struct tsr_fits_header *h);
/* Keyword lookups: TSR_OK, TSR_E_NOT_FOUND (absent) or TSR_E_FORMAT (bad value). */
int tsr_fits_get_int(const struct tsr_fits_header *h, const char *key, int64_t *v);
int tsr_fits_get_double(const struct tsr_fits_header *h, const char *key, double *v);
int tsr_fits_get_bool(const struct tsr_fits_header *h, const char *key, int *v);
/* Strings follow CONTINUE cards; trailing blanks are dropped as FITS says. */
int tsr_fits_get_string(const struct tsr_fits_header *h, const char *key, char *buf, size_t cap);
int tsr_fits_has(const struct tsr_fits_header *h, const char *key);

/* Whether a primary header describes random groups (NAXIS1 = 0, GROUPS = T; FITS 4.0 section
 * 6): no image, whatever its axes say. */
int tsr_fits_is_groups(const struct tsr_fits_header *h);
/* Size of an HDU's data unit from its mandatory keywords (BITPIX, NAXISn, PCOUNT, GCOUNT);
 * naxisn (may be NULL) gets the first TSR_MAX_DIM axis lengths, FITS order. */
int tsr_fits_data_size(const struct tsr_fits_header *h, int *bitpix_ret, int *naxis_ret,
		       int64_t *naxisn, uint64_t *nbytes_ret);

/* One HDU of a walk through the file (list.c). */
struct tsr_fits_hdu {
	int index;
	uint64_t next_offset;  /* of the next HDU's header (past the padded data unit) */
	int bitpix, naxis;
	uint64_t data_nbytes;
	char xtension[72];     /* "" for the primary HDU */
	int zimage;            /* a tile-compressed image (BINTABLE with ZIMAGE = T) */
	int groups;            /* a primary HDU of random groups (listed as a table) */
};
/* Reads the header of the HDU at *offset (number index) into h and describes it; the caller
 * frees h. Errors name neither file nor HDU (the caller prefixes them). */
int tsr_fits_hdu_read(int fd, uint64_t file_nbytes, uint64_t offset, int index,
		      struct tsr_fits_header *h, struct tsr_fits_hdu *hdu_ret);
/* Whether the header at byte `at` is still HDU `index` as a listing or a walk found it
 * (index > 0): an extension header whose EXTNAME is name ("" for none; NULL: any). 1: read
 * into h and hdu_ret (the caller frees h); 0: not so (nothing to free, no error set). */
int tsr_fits_hdu_at(int fd, uint64_t file_nbytes, uint64_t at, int index, const char *name,
		    struct tsr_fits_header *h, struct tsr_fits_hdu *hdu_ret);
/* memo.c: the header offsets walks from a file's start found, kept on the context for the
 * files it walked lately (a file the same while its device, inode, size and times in its
 * stat record s are). tsr_fits_memo_start: 1 and the HDU k (1 <= k <= want) nearest below or
 * at want whose header offset is known for the file, *at_ret; 0 where none is.
 * tsr_fits_memo_note: HDU hdu of the file starts at `at` (kept where it extends the run from
 * HDU 0). Neither sets an error: a memo that cannot be had costs only the walk. */
struct stat;
int tsr_fits_memo_start(struct tsr_context *ctx, const struct stat *s, int want, int *hdu_ret,
			uint64_t *at_ret);
void tsr_fits_memo_note(struct tsr_context *ctx, const struct stat *s, int hdu, uint64_t at);
/* Whether a file of stat record s changed too lately to be kept (in the last 50 ms, or its
 * change time is ahead of the clock, or the clock cannot be read): the kernel stamps times
 * from a clock of a few milliseconds' grain, so a rewrite within one grain of the last write
 * could leave every time as it was. */
int tsr_fits_memo_racy(const struct stat *s);
/* Reads the header of HDU `index` (walking the ones before it); errors are prefixed with
 * path and HDU. */
int tsr_fits_hdu_find(int fd, uint64_t file_nbytes, const char *path, int index,
		      struct tsr_fits_header *h, struct tsr_fits_hdu *hdu_ret);

/* Value semantics for integer/float images, as astropy applies them. */
struct tsr_fits_scaling {
	int bitpix;
	double bscale, bzero;
	int has_blank;
	int64_t blank;
};
enum tsr_dtype tsr_fits_bitpix_dtype(int bitpix);
/* Picks output dtype and transform for stored values, by astropy's ImageHDU rules (a
 * tile-compressed image's too: its CompImageHDU is an ImageHDU since astropy 6). */
void tsr_fits_xform(const struct tsr_fits_scaling *s, int raw, struct tsr_xform *xf);

/* Describes a tile-compressed image (ZIMAGE = T binary table) into array. */
int tsr_fits_tiled_open(struct tsr_array *array, const struct tsr_fits_header *h, int raw);

#endif
