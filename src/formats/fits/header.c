/* header.c - FITS headers: 2880-byte blocks of 80-character cards, keyword values, CONTINUE. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/file.h"
#include "fits.h"

/* Headers longer than this are surely not FITS; it bounds memory on hostile files. */
#define TSR_FITS_MAX_HEADER_BLOCKS 100000

int tsr_fits_header_read(int fd, uint64_t file_nbytes, uint64_t offset, struct tsr_fits_header *h)
{
	char block[TSR_FITS_BLOCK];
	int cap = 0;
	memset(h, 0, sizeof(*h));
	h->offset = offset;
	for (int nblocks = 0;; nblocks++) {
		uint64_t at = offset + (uint64_t)nblocks * TSR_FITS_BLOCK;
		if (at + TSR_FITS_BLOCK > file_nbytes) {
			tsr_fits_header_free(h);
			return tsr_error(TSR_E_FORMAT, nblocks ? "header at byte %llu has no END card "
						     "before the end of the file"
							   : "truncated header at byte %llu",
					 (unsigned long long)offset);
		}
		if (nblocks >= TSR_FITS_MAX_HEADER_BLOCKS) {
			tsr_fits_header_free(h);
			return tsr_error(TSR_E_FORMAT, "header at byte %llu: no END in %d blocks",
					 (unsigned long long)offset, nblocks);
		}
		int st = tsr_file_pread(fd, block, sizeof(block), at);
		if (st) {
			tsr_fits_header_free(h);
			return st;
		}
		if (!nblocks && memcmp(block, "SIMPLE  ", 8) && memcmp(block, "XTENSION", 8)) {
			tsr_fits_header_free(h);
			return tsr_error(TSR_E_FORMAT, "header at byte %llu starts with neither SIMPLE "
					 "nor XTENSION", (unsigned long long)offset);
		}
		for (int c = 0; c < 36; c++) {
			char *card = block + c * 80;
			/* Bytes outside printable ASCII (FITS allows none; Latin-1 names in comments
			 * are common) read as '?', as astropy reads them; CFITSIO reads such files
			 * too. The first card must still be SIMPLE or XTENSION, which callers check. */
			for (int i = 0; i < 80; i++)
				if ((unsigned char)card[i] < 32 || (unsigned char)card[i] > 126)
					card[i] = '?';
			if (memcmp(card, "END", 3) == 0 && card[3] == ' ' &&
			    memcmp(card + 3, "                                            ", 5) == 0) {
				h->data_offset = at + TSR_FITS_BLOCK;
				return TSR_OK;
			}
			if (h->ncards == cap) {
				cap = cap ? 2 * cap : 144;
				struct tsr_fits_card *nc = realloc(h->cards, (size_t)cap * sizeof(*nc));
				if (!nc) {
					tsr_fits_header_free(h);
					return tsr_error(TSR_E_NOMEM, "out of memory for header");
				}
				h->cards = nc;
			}
			struct tsr_fits_card *k = &h->cards[h->ncards++];
			memcpy(k->key, card, 8);
			k->key[8] = '\0';
			for (int i = 7; i >= 0 && k->key[i] == ' '; i--)
				k->key[i] = '\0';
			k->has_value = card[8] == '=' && card[9] == ' ';
			if (k->has_value) {
				memcpy(k->text, card + 10, 70);
				k->text[70] = '\0';
			} else {
				memcpy(k->text, card + 8, 72);
				k->text[72] = '\0'; /* (a CONTINUE string's quote may be column 80) */
			}
		}
	}
}

int tsr_fits_walk_end(int fd, uint64_t file_nbytes, uint64_t offset, int index)
{
	char key[8];
	if (offset >= file_nbytes)
		return 1;
	if (!index || file_nbytes - offset < sizeof(key))
		return !index ? 0 : 1;
	int st = tsr_file_pread(fd, key, sizeof(key), offset);
	return st ? st : memcmp(key, "XTENSION", sizeof(key)) != 0;
}

void tsr_fits_header_free(struct tsr_fits_header *h)
{
	free(h->cards);
	h->cards = NULL;
	h->ncards = 0;
}

static const struct tsr_fits_card *tsr_fits_find(const struct tsr_fits_header *h, const char *key)
{
	for (int i = 0; i < h->ncards; i++)
		if (h->cards[i].has_value && strcmp(h->cards[i].key, key) == 0)
			return &h->cards[i];
	return NULL;
}

int tsr_fits_has(const struct tsr_fits_header *h, const char *key)
{
	return tsr_fits_find(h, key) != NULL;
}

/* The value part without the comment: copies the token into buf. */
static int tsr_fits_token(const struct tsr_fits_card *c, char *buf, size_t cap)
{
	const char *p = c->text;
	while (*p == ' ')
		p++;
	size_t n = 0;
	while (p[n] && p[n] != ' ' && p[n] != '/')
		n++;
	if (n == 0 || n >= cap)
		return -1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return 0;
}

int tsr_fits_get_int(const struct tsr_fits_header *h, const char *key, int64_t *v)
{
	const struct tsr_fits_card *c = tsr_fits_find(h, key);
	char tok[72], *end;
	if (!c)
		return TSR_E_NOT_FOUND;
	if (tsr_fits_token(c, tok, sizeof(tok)))
		return tsr_error(TSR_E_FORMAT, "keyword %s has no value", key);
	errno = 0;
	long long x = strtoll(tok, &end, 10);
	if (*end || errno) {
		/* Some writers put integral values as reals ("1.0E3"). */
		double d;
		/* range first: casting a double outside long long's range is undefined
		 * (issue 21, D6) */
		if (tsr_fits_get_double(h, key, &d) == TSR_OK && d > -9.2e18 && d < 9.2e18 &&
		    d == (double)(long long)d) {
			*v = (int64_t)d;
			return TSR_OK;
		}
		return tsr_error(TSR_E_FORMAT, "keyword %s = %s is not an integer", key, tok);
	}
	*v = x;
	return TSR_OK;
}

int tsr_fits_get_double(const struct tsr_fits_header *h, const char *key, double *v)
{
	const struct tsr_fits_card *c = tsr_fits_find(h, key);
	char tok[72], *end;
	if (!c)
		return TSR_E_NOT_FOUND;
	if (tsr_fits_token(c, tok, sizeof(tok)))
		return tsr_error(TSR_E_FORMAT, "keyword %s has no value", key);
	for (char *p = tok; *p; p++)
		if (*p == 'D' || *p == 'd') /* Fortran exponents */
			*p = 'E';
	errno = 0;
	double x = strtod(tok, &end);
	if (*end || errno == EINVAL)
		return tsr_error(TSR_E_FORMAT, "keyword %s = %s is not a number", key, tok);
	*v = x;
	return TSR_OK;
}

int tsr_fits_get_bool(const struct tsr_fits_header *h, const char *key, int *v)
{
	const struct tsr_fits_card *c = tsr_fits_find(h, key);
	char tok[72];
	if (!c)
		return TSR_E_NOT_FOUND;
	if (tsr_fits_token(c, tok, sizeof(tok)) || (strcmp(tok, "T") && strcmp(tok, "F")))
		return tsr_error(TSR_E_FORMAT, "keyword %s is not a logical value", key);
	*v = tok[0] == 'T';
	return TSR_OK;
}

/* Appends the quoted string starting at p (at the opening quote) to buf; returns 1 when the
 * string ends in '&' (a CONTINUE follows), 0 otherwise, -1 on a malformed string. */
static int tsr_fits_quoted(const char *p, char *buf, size_t cap, size_t *len)
{
	while (*p == ' ')
		p++;
	if (*p != '\'')
		return -1;
	p++;
	for (;;) {
		if (!*p)
			return -1;
		if (*p == '\'') {
			if (p[1] == '\'') {
				p++;
			} else {
				break;
			}
		}
		if (*len + 1 < cap)
			buf[(*len)++] = *p;
		p++;
	}
	buf[*len] = '\0';
	/* FITS: trailing blanks are not significant. */
	while (*len > 0 && buf[*len - 1] == ' ')
		buf[--*len] = '\0';
	if (*len > 0 && buf[*len - 1] == '&') {
		buf[--*len] = '\0';
		return 1;
	}
	return 0;
}

int tsr_fits_get_string(const struct tsr_fits_header *h, const char *key, char *buf, size_t cap)
{
	const struct tsr_fits_card *c = tsr_fits_find(h, key);
	if (!c)
		return TSR_E_NOT_FOUND;
	size_t len = 0;
	buf[0] = '\0';
	int more = tsr_fits_quoted(c->text, buf, cap, &len);
	if (more < 0)
		return tsr_error(TSR_E_FORMAT, "keyword %s is not a string", key);
	for (const struct tsr_fits_card *n = c + 1; more == 1 && n < h->cards + h->ncards; n++) {
		if (strcmp(n->key, "CONTINUE") != 0)
			break;
		/* CONTINUE cards have no "= "; their value starts at column 11. */
		more = tsr_fits_quoted(n->text + 2, buf, cap, &len);
		if (more < 0)
			break;
	}
	return TSR_OK;
}
