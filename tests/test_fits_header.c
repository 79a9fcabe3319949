/* test_fits_header.c - FITS header cards: values, strings with quotes and CONTINUE, Fortran
 * exponents, END detection across blocks, and malformed headers. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "formats/fits/fits.h"

/* Writes cards (80 chars each, padded) and END into a temp file of whole blocks. */
static int write_header(const char *path, const char *const *cards, int n, int with_end, int extra_blocks)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	char card[81];
	int written = 0;
	for (int i = 0; i < n; i++, written++) {
		snprintf(card, sizeof(card), "%-80s", cards[i]);
		fwrite(card, 1, 80, f);
	}
	if (with_end) {
		snprintf(card, sizeof(card), "%-80s", "END");
		fwrite(card, 1, 80, f);
		written++;
	}
	int pad = (36 - written % 36) % 36 + 36 * extra_blocks;
	snprintf(card, sizeof(card), "%-80s", "");
	for (int i = 0; i < pad; i++)
		fwrite(card, 1, 80, f);
	fclose(f);
	return 0;
}

int main(void)
{
	char path[] = "/tmp/tsr_hdr_XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	static const char *const cards[] = {
		"SIMPLE  =                    T / conforms",
		"BITPIX  =                  -32",
		"NAXIS   =                    0",
		"BSCALE  =              1.5D+02 / Fortran exponent",
		"BZERO   =               -3.25E-1",
		"OBJECT  = 'It''s a test'       / quotes inside",
		"LONGSTR = 'first part &'",
		"CONTINUE  'second part &'",
		"CONTINUE  'end'",
		"BLANKS  = '  lead and trail  '",
		"INTREAL =               1024.0",
		"BADINT  =                 12ab",
		"COMMENT   not a value = 5",
		"HISTORY this card has no value",
		"FLAG    =                    F",
	};
	int n = (int)(sizeof(cards) / sizeof(cards[0]));
	CHECK_EQ_INT(write_header(path, cards, n, 1, 0), 0);
	int f = -1;
	uint64_t size = 0;
	CHECK((f = open(path, O_RDONLY)) >= 0);
	size = 2880;
	struct tsr_fits_header h;
	CHECK_EQ_INT(tsr_fits_header_read(f, size, 0, &h), TSR_OK);
	CHECK_EQ_INT(h.data_offset, 2880);
	int64_t iv;
	double dv;
	int bv;
	char s[256];
	CHECK_EQ_INT(tsr_fits_get_int(&h, "BITPIX", &iv), TSR_OK);
	CHECK_EQ_INT(iv, -32);
	CHECK_EQ_INT(tsr_fits_get_double(&h, "BSCALE", &dv), TSR_OK);
	CHECK(dv == 150.0);
	CHECK_EQ_INT(tsr_fits_get_double(&h, "BZERO", &dv), TSR_OK);
	CHECK(dv == -0.325);
	CHECK_EQ_INT(tsr_fits_get_string(&h, "OBJECT", s, sizeof(s)), TSR_OK);
	CHECK(strcmp(s, "It's a test") == 0);
	CHECK_EQ_INT(tsr_fits_get_string(&h, "LONGSTR", s, sizeof(s)), TSR_OK);
	CHECK(strcmp(s, "first part second part end") == 0);
	CHECK_EQ_INT(tsr_fits_get_string(&h, "BLANKS", s, sizeof(s)), TSR_OK);
	CHECK(strcmp(s, "  lead and trail") == 0); /* leading blanks count, trailing do not */
	CHECK_EQ_INT(tsr_fits_get_int(&h, "INTREAL", &iv), TSR_OK);
	CHECK_EQ_INT(iv, 1024);
	CHECK_EQ_INT(tsr_fits_get_int(&h, "BADINT", &iv), TSR_E_FORMAT);
	CHECK_EQ_INT(tsr_fits_get_int(&h, "COMMENT", &iv), TSR_E_NOT_FOUND);
	CHECK_EQ_INT(tsr_fits_get_int(&h, "MISSING", &iv), TSR_E_NOT_FOUND);
	CHECK_EQ_INT(tsr_fits_get_bool(&h, "SIMPLE", &bv), TSR_OK);
	CHECK_EQ_INT(bv, 1);
	CHECK_EQ_INT(tsr_fits_get_bool(&h, "FLAG", &bv), TSR_OK);
	CHECK_EQ_INT(bv, 0);
	CHECK_EQ_INT(tsr_fits_get_bool(&h, "BITPIX", &bv), TSR_E_FORMAT);
	CHECK_EQ_INT(tsr_fits_get_string(&h, "BITPIX", s, sizeof(s)), TSR_E_FORMAT);
	CHECK(tsr_fits_has(&h, "FLAG") && !tsr_fits_has(&h, "HISTORY"));
	tsr_fits_header_free(&h);
	close(f);

	/* END on the last card of a later block; data starts after that block. */
	static const char *many[71];
	for (int i = 0; i < 71; i++)
		many[i] = i == 0 ? "SIMPLE  =                    T" : "HISTORY filler";
	CHECK_EQ_INT(write_header(path, many, 71, 1, 0), 0); /* 71 + END = 72 cards = 2 blocks */
	CHECK((f = open(path, O_RDONLY)) >= 0);
	CHECK_EQ_INT(tsr_fits_header_read(f, 2 * 2880, 0, &h), TSR_OK);
	CHECK_EQ_INT(h.data_offset, 2 * 2880);
	tsr_fits_header_free(&h);
	close(f);

	/* No END: an error, not a hang or an overread. */
	CHECK_EQ_INT(write_header(path, cards, n, 0, 2), 0);
	CHECK((f = open(path, O_RDONLY)) >= 0);
	CHECK_EQ_INT(tsr_fits_header_read(f, 3 * 2880, 0, &h), TSR_E_FORMAT);
	CHECK(strstr(tsr_errmsg(), "END") != NULL);
	close(f);

	/* Bytes outside printable ASCII (a Latin-1 name in a string, a control byte in a
	 * comment) read as '?', as astropy reads them; the values around them are unchanged. */
	CHECK_EQ_INT(write_header(path, cards, n, 1, 0), 0);
	FILE *w = fopen(path, "r+b");
	fseek(w, 5 * 80 + 12, SEEK_SET); /* OBJECT's "It" */
	fputc(0xc9, w);
	fseek(w, 3 * 80 + 40, SEEK_SET); /* BSCALE's comment */
	fputc(0x07, w);
	fclose(w);
	char obj[64];
	double v;
	CHECK((f = open(path, O_RDONLY)) >= 0);
	CHECK_EQ_INT(tsr_fits_header_read(f, 2880, 0, &h), TSR_OK);
	CHECK_EQ_INT(tsr_fits_get_string(&h, "OBJECT", obj, sizeof(obj)), TSR_OK);
	CHECK(strcmp(obj, "I?'s a test") == 0);
	CHECK_EQ_INT(tsr_fits_get_double(&h, "BSCALE", &v), TSR_OK);
	CHECK(v == 150.0);
	tsr_fits_header_free(&h);
	close(f);

	/* A header that starts with neither SIMPLE nor XTENSION is refused at its first block. */
	static const char *const junk[] = {"SIMPLX  =                    T"};
	CHECK_EQ_INT(write_header(path, junk, 1, 0, 3), 0);
	CHECK((f = open(path, O_RDONLY)) >= 0);
	CHECK_EQ_INT(tsr_fits_header_read(f, 4 * 2880, 0, &h), TSR_E_FORMAT);
	CHECK(strstr(tsr_errmsg(), "neither SIMPLE nor XTENSION") != NULL);
	close(f);
	unlink(path);
	CHECK_DONE();
}
