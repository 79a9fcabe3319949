/* metadata.c - a FITS HDU's metadata as JSON: its header cards in order (long strings joined
 * across CONTINUE cards), and the keywords a reader asks first (EXTNAME, BSCALE/BZERO,
 * BLANK, tile compression and quantization). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../metadata.h"
#include "fits.h"

/* Text without the blanks around it, into buf. */
static void tsr_trim(const char *s, size_t n, char *buf, size_t cap)
{
	while (n && *s == ' ')
		s++, n--;
	while (n && s[n - 1] == ' ')
		n--;
	if (n >= cap)
		n = cap - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
}

/* A quoted string at p ('' is a quote); *end_ret is past the closing quote. -1: unterminated. */
static int tsr_card_string(const char *p, char *buf, size_t cap, size_t *len, const char **end_ret)
{
	p++; /* the opening quote */
	for (;; p++) {
		if (!*p)
			return -1;
		if (*p == '\'') {
			if (p[1] != '\'')
				break;
			p++;
		}
		if (*len + 1 < cap)
			buf[(*len)++] = *p;
	}
	buf[*len] = '\0';
	while (*len > 0 && buf[*len - 1] == ' ')
		buf[--*len] = '\0';
	*end_ret = p + 1;
	return 0;
}

/* An integer or real value token as a JSON number, printed as valid JSON of the same value
 * (FITS also writes "+5", "007", "5.", ".5" and Fortran's "1.0D5", which JSON does not):
 * integers exact, beyond int64 too (their digits, which Python's json reads as the exact int,
 * as astropy gives it); reals as reals (tsr_json_real: 1.0 stays 1.0 to Python, as astropy's
 * float). NULL when the token is neither: complex values ("(1.0, 2.0)") stay strings, as JSON
 * has no complex number, with their parts beside them (tsr_card_complex). */
static cJSON *tsr_card_number(const char *tok)
{
	const char *digits = tok + (*tok == '+' || *tok == '-');
	size_t nd = strspn(digits, "0123456789");
	if (nd && !digits[nd]) {
		char *end;
		errno = 0;
		long long i = strtoll(tok, &end, 10);
		if (!errno)
			return tsr_json_int(i);
		/* beyond int64: the digits, without '+' and leading zeros */
		char t[72];
		while (digits[0] == '0')
			digits++;
		snprintf(t, sizeof(t), "%s%s", *tok == '-' ? "-" : "", digits);
		return cJSON_CreateRaw(t);
	}
	char t[72], *end;
	snprintf(t, sizeof(t), "%s", tok);
	for (char *q = t; *q; q++)
		if (*q == 'D' || *q == 'd')
			*q = 'E';
	double d = strtod(t, &end);
	if (*end || end == t || !isfinite(d))
		return NULL;
	return tsr_json_real(d);
}

/* A complex value token ("(1.5, -2.0)", FITS 4.0 section 4.2.5 and 4.2.6) as the JSON list
 * [real, imaginary] of its parts' numbers; NULL when the token is not one. */
static cJSON *tsr_card_complex(const char *tok)
{
	size_t n = strlen(tok);
	const char *comma = strchr(tok, ',');
	if (n < 5 || tok[0] != '(' || tok[n - 1] != ')' || !comma || strchr(comma + 1, ','))
		return NULL;
	char re[72], im[72];
	tsr_trim(tok + 1, (size_t)(comma - tok - 1), re, sizeof(re));
	tsr_trim(comma + 1, (size_t)(tok + n - 1 - comma - 1), im, sizeof(im));
	cJSON *r = tsr_card_number(re), *i = r ? tsr_card_number(im) : NULL, *l = NULL;
	if (i && (l = cJSON_CreateArray()) && cJSON_AddItemToArray(l, r)) {
		r = NULL;
		if (cJSON_AddItemToArray(l, i))
			return l;
	}
	cJSON_Delete(r);
	cJSON_Delete(i);
	cJSON_Delete(l);
	return NULL;
}

/* A card's value text parsed into *value_ret (a string joined across the CONTINUE cards after
 * it, of c[0 .. left)), its comment into comment, a complex value's parts into *complex_ret (else
 * NULL); returns how many cards it took. */
static int tsr_card_value(const struct tsr_fits_card *c, int left, const char *p,
			  cJSON **value_ret, cJSON **complex_ret, char *comment, size_t comment_cap)
{
	*complex_ret = NULL;
	int used = 1;
	cJSON *value;
	while (*p == ' ')
		p++;
	const char *rest = p;
	if (*p == '\'') {
		char s[4096];
		size_t len = 0;
		if (tsr_card_string(p, s, sizeof(s), &len, &rest) == 0) {
			/* a long string: '&' at its end continues on the CONTINUE cards */
			while (len > 0 && s[len - 1] == '&' && used < left &&
			       !strcmp(c[used].key, "CONTINUE")) {
				const char *q = c[used].text;
				while (*q == ' ')
					q++;
				const char *qend;
				size_t at = --len;
				if (*q != '\'' || tsr_card_string(q, s, sizeof(s), &len, &qend)) {
					s[at] = '&'; /* (a failed card may have written over it) */
					len = at + 1;
					break;
				}
				rest = qend;
				used++;
			}
			s[len] = '\0';
			value = cJSON_CreateString(s);
		} else {
			rest = p + strlen(p);
			value = cJSON_CreateString(p);
		}
	} else {
		char tok[72];
		size_t n = 0;
		while (p[n] && p[n] != '/')
			n++;
		tsr_trim(p, n, tok, sizeof(tok));
		rest = p + n;
		if (!tok[0])
			value = cJSON_CreateNull(); /* an undefined value */
		else if (!strcmp(tok, "T") || !strcmp(tok, "F"))
			value = cJSON_CreateBool(tok[0] == 'T');
		else if (!(value = tsr_card_number(tok))) {
			/* complex values, or whatever it is: its text (JSON has no complex
			 * number), and a complex value's parts beside it */
			value = cJSON_CreateString(tok);
			*complex_ret = tsr_card_complex(tok);
		}
	}
	const char *slash = strchr(rest, '/');
	if (slash)
		tsr_trim(slash + 1, strlen(slash + 1), comment, comment_cap);
	*value_ret = value;
	return used;
}

/* One card (with the CONTINUE cards of a long string after it) as {key, value, comment};
 * *used_ret is how many cards it took. A HIERARCH card (ESO's convention: "HIERARCH ESO DET
 * CHIP NAME = 'CCD-42'") is the keyword of its words before '=' and the value after it, as
 * astropy and CFITSIO read it. */
static cJSON *tsr_card_json(const struct tsr_fits_card *c, int left, int *used_ret)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *value = NULL, *cplx = NULL;
	char comment[80] = "", key[80] = "";
	const char *vtext = c->has_value ? c->text : NULL, *eq = strchr(c->text, '=');
	if (!vtext && !strcmp(c->key, "HIERARCH") && eq) {
		tsr_trim(c->text, (size_t)(eq - c->text), key, sizeof(key));
		vtext = key[0] ? eq + 1 : NULL; /* (no words before '=': commentary) */
	}
	if (!key[0])
		snprintf(key, sizeof(key), "%s", c->key);
	*used_ret = 1;
	if (!o || !cJSON_AddStringToObject(o, "key", key) ||
	    (vtext && vtext != c->text && !cJSON_AddTrueToObject(o, "hierarch"))) {
		cJSON_Delete(o);
		return NULL;
	}
	if (!vtext) {
		/* COMMENT, HISTORY, blank keys and keywords without "= ": all commentary */
		tsr_trim(c->text, strlen(c->text), comment, sizeof(comment));
		value = cJSON_CreateNull();
	} else {
		*used_ret = tsr_card_value(c, left, vtext, &value, &cplx, comment, sizeof(comment));
	}
	if (!value || !cJSON_AddItemToObject(o, "value", value)) {
		cJSON_Delete(value);
		cJSON_Delete(cplx);
		cJSON_Delete(o);
		return NULL;
	}
	if (cplx && !cJSON_AddItemToObject(o, "complex", cplx)) {
		cJSON_Delete(cplx);
		cJSON_Delete(o);
		return NULL;
	}
	if (!cJSON_AddStringToObject(o, "comment", comment)) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static cJSON *tsr_fits_cards(const struct tsr_fits_header *h)
{
	cJSON *list = cJSON_CreateArray();
	for (int i = 0; list && i < h->ncards;) {
		int used;
		cJSON *card = tsr_card_json(&h->cards[i], h->ncards - i, &used);
		if (!card || !cJSON_AddItemToArray(list, card)) {
			cJSON_Delete(card);
			cJSON_Delete(list);
			return NULL;
		}
		i += used;
	}
	return list;
}

/* A keyword's value as JSON, or null when absent or malformed. */
static cJSON *tsr_kw_string(const struct tsr_fits_header *h, const char *key)
{
	char buf[1024];
	int st = tsr_fits_get_string(h, key, buf, sizeof(buf));
	tsr_error_clear();
	return st == TSR_OK ? cJSON_CreateString(buf) : cJSON_CreateNull();
}

static cJSON *tsr_kw_int(const struct tsr_fits_header *h, const char *key)
{
	int64_t v;
	int st = tsr_fits_get_int(h, key, &v);
	tsr_error_clear();
	return st == TSR_OK ? tsr_json_int(v) : cJSON_CreateNull();
}

static cJSON *tsr_kw_double(const struct tsr_fits_header *h, const char *key, double dflt)
{
	double v = dflt;
	int st = tsr_fits_get_double(h, key, &v);
	tsr_error_clear();
	/* (a real, as the card's: 2.0 stays 2.0, not 2) */
	return st == TSR_OK || st == TSR_E_NOT_FOUND ? tsr_json_real(v) : cJSON_CreateNull();
}

/* How a tile-compressed image is stored: algorithm, original BITPIX, quantization. */
static int tsr_fits_compression(const struct tsr_array *a, const struct tsr_fits_header *h,
				cJSON *root)
{
	cJSON *z = cJSON_CreateObject();
	int st = tsr_json_add(root, "compression", z);
	int64_t zbitpix = 0;
	int zst = tsr_fits_get_int(h, "ZBITPIX", &zbitpix);
	tsr_error_clear();
	/* the driver stores quantized floats as integers: that is what makes them lossy */
	int lossy = zst == TSR_OK && zbitpix < 0 && a->desc.stored_dtype != TSR_FLOAT32 &&
		    a->desc.stored_dtype != TSR_FLOAT64;
	char zq[72] = "";
	int has_zq = tsr_fits_get_string(h, "ZQUANTIZ", zq, sizeof(zq)) == TSR_OK;
	tsr_error_clear();
	if (!st)
		st = tsr_json_add(z, "zcmptype", tsr_kw_string(h, "ZCMPTYPE"));
	if (!st)
		st = tsr_json_add(z, "zbitpix", tsr_kw_int(h, "ZBITPIX"));
	if (!st)
		st = tsr_json_add(z, "tile_shape", tsr_json_dims(a->desc.chunk_shape, a->desc.ndim));
	/* quantize: the method (CFITSIO assumes NO_DITHER when ZQUANTIZ is absent) */
	if (!st)
		st = tsr_json_add(z, "quantize", !lossy ? cJSON_CreateNull()
					    : cJSON_CreateString(has_zq ? zq : "NO_DITHER"));
	int dithered = lossy && has_zq && strncmp(zq, "SUBTRACTIVE_DITHER", 18) == 0;
	if (!st) {
		int64_t seed = 1; /* CFITSIO's default when ZDITHER0 is absent */
		if (tsr_fits_get_int(h, "ZDITHER0", &seed) < 0)
			seed = 1;
		tsr_error_clear();
		st = tsr_json_add(z, "dither_seed", dithered ? tsr_json_int(seed) : cJSON_CreateNull());
	}
	if (!st)
		st = tsr_json_add(z, "lossy", cJSON_CreateBool(lossy));
	return st;
}

/* What any HDU says of itself: its place and names. */
static int tsr_fits_hdu_json(const struct tsr_fits_header *h, const struct tsr_fits_hdu *hdu,
			     cJSON *root)
{
	int st = tsr_json_add(root, "hdu", cJSON_CreateNumber(hdu->index));
	if (!st)
		st = tsr_json_add(root, "xtension", hdu->index ? cJSON_CreateString(hdu->xtension)
							       : cJSON_CreateNull());
	if (!st)
		st = tsr_json_add(root, "extname", tsr_kw_string(h, "EXTNAME"));
	if (!st)
		st = tsr_json_add(root, "extver", tsr_kw_int(h, "EXTVER"));
	return st;
}

int tsr_fits_hdu_metadata(int fd, uint64_t file_nbytes, const char *path, int index, uint64_t at,
			  const char *name, cJSON *root)
{
	struct tsr_fits_header h = {0};
	struct tsr_fits_hdu hdu;
	/* where the listing found it, else by a walk (the file changed since) */
	int st = tsr_fits_hdu_at(fd, file_nbytes, at, index, name, &h, &hdu)
			 ? TSR_OK
			 : tsr_fits_hdu_find(fd, file_nbytes, path, index, &h, &hdu);
	if (st)
		return st;
	st = tsr_fits_hdu_json(&h, &hdu, root);
	if (!st)
		st = tsr_json_add(root, "header", tsr_fits_cards(&h));
	tsr_fits_header_free(&h);
	if (st)
		tsr_error_prefix("%s: HDU %d", path, index);
	return st;
}

int tsr_fits_metadata(const struct tsr_array *a, cJSON *root)
{
	struct tsr_fits_header h = {0};
	struct tsr_fits_hdu hdu;
	/* the header the open found, not a walk from the file's start to it */
	int st = tsr_fits_hdu_read(a->fd, a->file_nbytes, a->header_at, a->desc.index, &h, &hdu);
	if (st) {
		tsr_error_prefix("%s: HDU %d", a->path, a->desc.index);
		return st;
	}
	int compressed = hdu.zimage;
	st = tsr_fits_hdu_json(&h, &hdu, root);
	if (!st)
		st = tsr_json_add(root, "bscale", tsr_kw_double(&h, "BSCALE", 1.0));
	if (!st)
		st = tsr_json_add(root, "bzero", tsr_kw_double(&h, "BZERO", 0.0));
	if (!st)
		st = tsr_json_add(root, "blank", tsr_kw_int(&h, compressed && tsr_fits_has(&h, "ZBLANK")
								  ? "ZBLANK" : "BLANK"));
	if (!st && compressed) {
		st = tsr_fits_compression(a, &h, root);
	} else if (!st) {
		st = tsr_json_add(root, "compression", cJSON_CreateNull());
	}
	/* the layout: tiles, or contiguous rows read a block of rows at a time */
	cJSON *layout = cJSON_CreateObject();
	if (!st)
		st = tsr_json_add(root, "layout", layout);
	else
		cJSON_Delete(layout);
	if (!st && compressed) {
		st = tsr_json_add(layout, "kind", cJSON_CreateString("tiles"));
		if (!st)
			st = tsr_json_add(layout, "chunk_shape",
					  tsr_json_dims(a->desc.chunk_shape, a->desc.ndim));
	} else if (!st) {
		int64_t rows = a->desc.ndim ? a->desc.chunk_shape[0] : 0;
		if (a->desc.ndim && rows > a->desc.shape[0])
			rows = a->desc.shape[0];
		st = tsr_json_add(layout, "kind", cJSON_CreateString("contiguous"));
		if (!st)
			st = tsr_json_add(layout, "chunk_shape", cJSON_CreateNull());
		if (!st)
			st = tsr_json_add(layout, "rows_per_read", tsr_json_int(rows));
	}
	if (!st)
		st = tsr_json_add(root, "header", tsr_fits_cards(&h));
	tsr_fits_header_free(&h);
	if (st)
		tsr_error_prefix("%s: HDU %d", a->path, a->desc.index);
	return st;
}
