/* list.c - walking a FITS file's HDUs header by header: what each one is (tsr_list), and the
 * header of one HDU (tsr_array_metadata). */
#include <string.h>

#include "../../core/file.h"
#include "../listing.h"
#include "fits.h"

int tsr_fits_hdu_read(int fd, uint64_t file_nbytes, uint64_t offset, int index,
		      struct tsr_fits_header *h, struct tsr_fits_hdu *hdu)
{
	memset(hdu, 0, sizeof(*hdu));
	hdu->index = index;
	int st = tsr_fits_header_read(fd, file_nbytes, offset, h);
	if (st)
		return st;
	if (index == 0) {
		int simple = 0;
		if (!h->ncards || strcmp(h->cards[0].key, "SIMPLE") != 0 ||
		    tsr_fits_get_bool(h, "SIMPLE", &simple) != TSR_OK) {
			tsr_fits_header_free(h);
			return tsr_error(TSR_E_FORMAT, "not a FITS file (no SIMPLE card)");
		}
	} else if (tsr_fits_get_string(h, "XTENSION", hdu->xtension, sizeof(hdu->xtension))) {
		tsr_fits_header_free(h);
		return tsr_error(TSR_E_FORMAT, "no XTENSION keyword");
	}
	if ((st = tsr_fits_data_size(h, &hdu->bitpix, &hdu->naxis, NULL, &hdu->data_nbytes))) {
		tsr_fits_header_free(h);
		return st;
	}
	h->data_nbytes = hdu->data_nbytes;
	hdu->groups = index == 0 && tsr_fits_is_groups(h);
	tsr_fits_get_bool(h, "ZIMAGE", &hdu->zimage);
	hdu->zimage = hdu->zimage && !strcmp(hdu->xtension, "BINTABLE");
	hdu->next_offset = h->data_offset + (hdu->data_nbytes + TSR_FITS_BLOCK - 1) /
						    TSR_FITS_BLOCK * TSR_FITS_BLOCK;
	tsr_error_clear();
	return TSR_OK;
}

/* The file must start like one (the message tsr_open gives for any other file). */
static int tsr_fits_magic(int fd, uint64_t file_nbytes, const char *path)
{
	char magic[10];
	if (file_nbytes < sizeof(magic) || tsr_file_pread(fd, magic, sizeof(magic), 0) ||
	    memcmp(magic, "SIMPLE  = ", sizeof(magic)) != 0)
		return tsr_error(TSR_E_FORMAT, "%s: not a FITS file (it does not start with SIMPLE)",
				 path);
	return TSR_OK;
}

int tsr_fits_hdu_find(int fd, uint64_t file_nbytes, const char *path, int index,
		      struct tsr_fits_header *h, struct tsr_fits_hdu *hdu)
{
	uint64_t offset = 0;
	int st = tsr_fits_magic(fd, file_nbytes, path);
	for (int i = 0; !st; i++) {
		int end = tsr_fits_walk_end(fd, file_nbytes, offset, i);
		if (end < 0)
			return end;
		if (end)
			return tsr_error(TSR_E_RANGE, "%s: HDU %d out of range: the file has %d HDUs",
					 path, index, i);
		if ((st = tsr_fits_hdu_read(fd, file_nbytes, offset, i, h, hdu))) {
			tsr_error_prefix("%s: HDU %d", path, i);
			return st;
		}
		if (i == index)
			return TSR_OK;
		offset = hdu->next_offset;
		tsr_fits_header_free(h);
	}
	return st;
}

int tsr_fits_hdu_at(int fd, uint64_t file_nbytes, uint64_t at, int index, const char *name,
		    struct tsr_fits_header *h, struct tsr_fits_hdu *hdu)
{
	char got[72] = "";
	if (index <= 0 || at == 0 || at >= file_nbytes ||
	    tsr_fits_hdu_read(fd, file_nbytes, at, index, h, hdu) != TSR_OK) {
		tsr_error_clear();
		return 0;
	}
	int sn = tsr_fits_get_string(h, "EXTNAME", got, sizeof(got));
	int ok = h->ncards && !strcmp(h->cards[0].key, "XTENSION") &&
		 (!name || ((sn == TSR_OK || sn == TSR_E_NOT_FOUND) && !strcmp(got, name)));
	tsr_error_clear();
	if (!ok)
		tsr_fits_header_free(h);
	return ok;
}

/* What tsr_open makes of the HDU (fits.c picks the same ones as images). */
static enum tsr_entry_kind tsr_fits_kind(const struct tsr_fits_hdu *hdu)
{
	if (hdu->zimage)
		return TSR_ENTRY_ARRAY;
	if (hdu->groups || (hdu->index > 0 && strcmp(hdu->xtension, "IMAGE") != 0))
		return TSR_ENTRY_TABLE;
	return hdu->naxis > 0 && hdu->data_nbytes > 0 ? TSR_ENTRY_ARRAY : TSR_ENTRY_EMPTY;
}

int tsr_fits_list(const char *path, int fd, uint64_t file_nbytes, struct tsr_listing *l)
{
	struct tsr_fits_header h = {0};
	struct tsr_fits_hdu hdu;
	uint64_t offset = 0;
	int st = tsr_fits_magic(fd, file_nbytes, path);
	for (int i = 0; !st; i++) {
		int end = tsr_fits_walk_end(fd, file_nbytes, offset, i);
		if (end)
			return end < 0 ? end : TSR_OK;
		if ((st = tsr_fits_hdu_read(fd, file_nbytes, offset, i, &h, &hdu))) {
			if (!i) {
				tsr_error_prefix("%s: HDU %d", path, i);
				break;
			}
			/* an extension whose header does not read (cut short, no END): listed, so
			 * that opening it names the fault, as the HDUs before it are; the walk ends
			 * there, its size unknown */
			tsr_error_clear();
			struct tsr_entry bad = {.kind = TSR_ENTRY_ARRAY, .format = "fits", .hdu = i,
						.name = "", .xtension = "", .level = -1};
			return tsr_listing_add(l, &bad, offset);
		}
		char extname[TSR_HDU_NAME_MAX + 1] = "";
		int64_t extver = 0;
		int sn = tsr_fits_get_string(&h, "EXTNAME", extname, sizeof(extname));
		int sv = tsr_fits_get_int(&h, "EXTVER", &extver);
		if ((sn && sn != TSR_E_NOT_FOUND) || (sv && sv != TSR_E_NOT_FOUND) || extver < 0 ||
		    extver > 1 << 30) {
			/* a malformed EXTNAME or EXTVER only leaves the entry unnamed */
			extname[0] = '\0';
			extver = 0;
		}
		tsr_error_clear();
		struct tsr_entry e = {
			.kind = tsr_fits_kind(&hdu),
			.format = "fits",
			.hdu = i,
			.name = extname,
			.extver = (int)extver,
			.xtension = hdu.xtension,
			.compressed = hdu.zimage,
			.level = -1,
		};
		st = tsr_listing_add(l, &e, offset);
		offset = hdu.next_offset;
		tsr_fits_header_free(&h);
	}
	return st;
}
