/* fits_cards.h - FITS files written card by card for the tests: a card, a header's end, a file's start (a primary HDU without data), an int16 image HDU whose first values count up. */
#ifndef TSR_TEST_FITS_CARDS_H
#define TSR_TEST_FITS_CARDS_H

#include <stdio.h>

static void card(FILE *f, const char *text)
{
	char c[81];
	snprintf(c, sizeof(c), "%-80s", text);
	fwrite(c, 1, 80, f);
}

/* Ends a header: END, then blanks to the block's end (ncards written before END). */
static void end_header(FILE *f, int ncards)
{
	card(f, "END");
	for (int n = ncards + 1; n % 36; n++)
		card(f, "");
}

/* path opened for writing (an existing file truncated: the same inode) with a primary HDU
 * without data written; NULL where it cannot be. */
static FILE *fits_start(const char *path)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return NULL;
	card(f, "SIMPLE  =                    T");
	card(f, "BITPIX  =                    8");
	card(f, "NAXIS   =                    0");
	end_header(f, 3);
	return f;
}

/* An int16 image of `rows` rows of 5 values, named name: its first 15 values first + k, the
 * rest 0, its data padded to whole blocks. */
static void image_rows(FILE *f, const char *name, int first, int rows)
{
	char c[81];
	card(f, "XTENSION= 'IMAGE   '");
	card(f, "BITPIX  =                   16");
	card(f, "NAXIS   =                    2");
	card(f, "NAXIS1  =                    5");
	snprintf(c, sizeof(c), "NAXIS2  = %20d", rows);
	card(f, c);
	card(f, "PCOUNT  =                    0");
	card(f, "GCOUNT  =                    1");
	snprintf(c, sizeof(c), "EXTNAME = '%-8s'", name);
	card(f, c);
	end_header(f, 8);
	unsigned char block[2880] = {0};
	for (int k = 0; k < 15; k++) {
		block[2 * k] = (unsigned char)((first + k) >> 8);
		block[2 * k + 1] = (unsigned char)(first + k);
	}
	long nbytes = 10L * rows;
	for (long done = 0; done < nbytes; done += 2880) {
		fwrite(block, 1, sizeof(block), f);
		if (done == 0)
			for (int k = 0; k < 30; k++)
				block[k] = 0;
	}
}

/* An int16 image of 3 x 5 values first + k, named name, padded to its block. */
static void image(FILE *f, const char *name, int first)
{
	image_rows(f, name, first, 3);
}

#endif
