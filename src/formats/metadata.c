/* metadata.c - tsr_array_metadata: what an array's metadata says, as JSON text, from the
 * format driver that opened it. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metadata.h"

cJSON *tsr_json_int(int64_t v)
{
	if (v >= -((int64_t)1 << 53) && v <= ((int64_t)1 << 53))
		return cJSON_CreateNumber((double)v);
	char digits[24];
	tsr_int_text(digits, (long long)v);
	return cJSON_CreateRaw(digits);
}

cJSON *tsr_json_dims(const int64_t *v, int n)
{
	cJSON *list = cJSON_CreateArray();
	for (int i = 0; list && i < n; i++) {
		cJSON *x = tsr_json_int(v[i]);
		if (!x || !cJSON_AddItemToArray(list, x)) {
			cJSON_Delete(x);
			cJSON_Delete(list);
			return NULL;
		}
	}
	return list;
}

void tsr_json_real_text(double v, char buf[TSR_JSON_REAL_MAX])
{
	if (isnan(v) || isinf(v)) {
		/* Python's json and the peers write and read these tokens; JSON has none */
		snprintf(buf, TSR_JSON_REAL_MAX, "%s", isnan(v) ? "NaN" : v < 0 ? "-Infinity"
								  : "Infinity");
		return;
	}
	/* the fewest digits that read back as v (17 always do) */
	int p = 1;
	for (; p <= 17; p++) {
		snprintf(buf, TSR_JSON_REAL_MAX, "%.*g", p, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	/* without an exponent from 1e-4 to 1e16, as Python's repr writes reals: %g wrote 10.0 as
	 * "1e+01" (its exponent from p digits on); the same digits, fixed */
	const double m = fabs(v);
	if (strchr(buf, 'e') && m >= 1e-4 && m < 1e16) {
		int e = (int)floor(log10(m)), decimals = p - 1 - e;
		char fixed[TSR_JSON_REAL_MAX];
		snprintf(fixed, sizeof(fixed), "%.*f", decimals > 0 ? decimals : 0, v);
		if (strtod(fixed, NULL) == v)
			memcpy(buf, fixed, strlen(fixed) + 1);
	}
	/* a process's LC_NUMERIC may write a decimal comma, which JSON does not read */
	for (char *q = buf; *q; q++)
		if (*q == ',')
			*q = '.';
	/* %g writes 1.0 as "1" (an integer to JSON readers): a real needs its '.0' */
	if (!strpbrk(buf, ".e"))
		strcat(buf, ".0");
}

cJSON *tsr_json_real(double v)
{
	/* (cJSON_CreateNumber casts to int: undefined for NaN) */
	cJSON *x = cJSON_CreateNumber(0);
	char text[TSR_JSON_REAL_MAX];
	tsr_json_real_text(v, text);
	if (x) {
		x->valuedouble = v;
		x->valueint = isnan(v) ? 0 : v >= INT_MAX ? INT_MAX : v <= INT_MIN ? INT_MIN : (int)v;
		x->valuestring = strdup(text);
	}
	if (x && !x->valuestring) {
		cJSON_Delete(x);
		x = NULL;
	}
	return x;
}

int tsr_json_add(cJSON *obj, const char *key, cJSON *item)
{
	if (!item || !cJSON_AddItemToObject(obj, key, item)) {
		cJSON_Delete(item);
		return tsr_error(TSR_E_NOMEM, "out of memory for metadata");
	}
	return TSR_OK;
}

/* Numbers that kept their text (a Zarr document's as it wrote them: zarr/json.c; reals and
 * NaN/Infinity from tsr_json_real) made raw, so that printing writes that text: cJSON itself
 * writes 1.0 as 1, 2^60 + 1 rounded, and NaN as null. An integer without text (a FITS card's,
 * a shape's, a Zarr integer within 2^53) gets its exact digits: cJSON writes a number in 15
 * significant digits and keeps them where they read back within its epsilon, so
 * 5000000000000001 came out as 5e+15, and its "%1.15g" and sscanf took 0.5 us a number (a
 * .zattrs of 4 million integers: 2 s to print). -0 stays cJSON's. Returns -1 where memory runs
 * out. */
static int tsr_json_digits_raw(cJSON *j)
{
	for (cJSON *c = j; c; c = c->next) {
		const double v = c->valuedouble;
		if (cJSON_IsNumber(c) && !c->valuestring && v == floor(v) && !(v == 0 && signbit(v)) &&
		    fabs(v) < 18446744073709551616.0) {
			char buf[32];
			if (fabs(v) < 9223372036854775808.0)
				tsr_int_text(buf, (long long)v);
			else
				snprintf(buf, sizeof(buf), "%.0f", v); /* (exact: an integer) */
			if (!(c->valuestring = strdup(buf)))
				return -1;
		}
		if (cJSON_IsNumber(c) && c->valuestring)
			c->type = cJSON_Raw;
		else if (c->child && tsr_json_digits_raw(c->child) < 0)
			return -1;
	}
	return 0;
}

/* The length of the character at s[0, n): ASCII 1, UTF-8 its bytes, 0 for a byte that starts
 * none. */
static size_t tsr_json_char(const unsigned char *s, size_t n)
{
	return s[0] < 0x80 ? 1 : tsr_utf8_len(s, n);
}

/* The document as valid UTF-8: files hold strings of any bytes (a Blosc2 vlmeta string, a Zarr
 * attribute, a path), which JSON readers refuse; each byte that starts no UTF-8 sequence
 * becomes U+FFFD, as Python's errors="replace" makes it. Such bytes lie only inside strings
 * (the rest of the document is ASCII), where the escape is text. */
static int tsr_json_utf8(char **text)
{
	const unsigned char *s = (const unsigned char *)*text;
	size_t n = strlen(*text), bad = 0;
	for (size_t i = 0; i < n;) {
		size_t k = tsr_json_char(s + i, n - i);
		bad += !k;
		i += k ? k : 1;
	}
	if (!bad)
		return TSR_OK;
	char *out = malloc(n + 5 * bad + 1), *o = out;
	if (!out)
		return tsr_error(TSR_E_NOMEM, "out of memory for metadata");
	for (size_t i = 0; i < n;) {
		size_t k = tsr_json_char(s + i, n - i);
		if (k) {
			memcpy(o, s + i, k);
			o += k;
			i += k;
		} else {
			memcpy(o, "\\ufffd", 6);
			o += 6;
			i++;
		}
	}
	*o = '\0';
	free(*text);
	*text = out;
	return TSR_OK;
}

int tsr_json_print(cJSON *root, char **json_ret)
{
	/* cJSON allocates with malloc: tsr_free releases it */
	*json_ret = tsr_json_digits_raw(root) < 0 ? NULL : cJSON_PrintUnformatted(root);
	if (!*json_ret)
		return tsr_error(TSR_E_NOMEM, "out of memory for metadata");
	int st = tsr_json_utf8(json_ret);
	if (st) {
		free(*json_ret);
		*json_ret = NULL;
	}
	return st;
}

int tsr_array_metadata(const struct tsr_array *a, char **json_ret)
{
	return tsr_array_metadata_flags(a, 0, json_ret);
}

int tsr_array_metadata_flags(const struct tsr_array *a, unsigned flags, char **json_ret)
{
	if (!json_ret)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_array_metadata: json_ret is NULL");
	*json_ret = NULL;
	if (!a || !a->ops)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_array_metadata: NULL array");
	if (flags & ~TSR_METADATA_NO_LISTING)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_array_metadata: unknown flags 0x%x",
				 flags & ~TSR_METADATA_NO_LISTING);
	cJSON *root = cJSON_CreateObject();
	if (!root)
		return tsr_error(TSR_E_NOMEM, "out of memory for metadata");
	const char *fmt = a->ops->name;
	int st = tsr_json_add(root, "format", cJSON_CreateString(fmt));
	if (!st)
		st = tsr_json_add(root, "path", cJSON_CreateString(a->path));
	if (st)
		;
	else if (!strcmp(fmt, "fits"))
		st = tsr_fits_metadata(a, root);
	else if (!strcmp(fmt, "zarr"))
		st = tsr_zarr_metadata(a, !(flags & TSR_METADATA_NO_LISTING), root);
	else if (!strcmp(fmt, "blosc2"))
		st = tsr_blosc2_metadata(a, root);
	else
		st = tsr_error(TSR_E_INTERNAL, "%s: no metadata for format %s", a->path, fmt);
	if (!st)
		st = tsr_json_print(root, json_ret);
	cJSON_Delete(root);
	if (!st)
		tsr_error_clear();
	return st;
}
