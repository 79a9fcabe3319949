/* json.c - metadata files and JSON values for the Zarr driver (through cJSON). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/file.h"
#include "zarr.h"

int tsr_zarr_read_file(const char *path, char **text_ret, size_t *nbytes_ret)
{
	int fd, st;
	uint64_t size;
	*text_ret = NULL;
	const char *key;
	const struct tsr_zip *zip = tsr_zarr_zip_of(path, &key);
	if (zip) {
		const struct tsr_zip_entry *e = tsr_zip_find(zip, key);
		size_t n = 0;
		if (!e)
			return tsr_error(TSR_E_NOT_FOUND, "%s: no such entry in the zip file", path);
		st = tsr_zip_read(zip, e, TSR_ZARR_MAX_JSON, text_ret, &n);
		if (nbytes_ret)
			*nbytes_ret = n;
		return st;
	}
	if ((st = tsr_file_open(path, &fd, &size)))
		return st;
	if (size > TSR_ZARR_MAX_JSON) {
		tsr_file_close(fd);
		return tsr_error(TSR_E_FORMAT, "%s: %llu bytes is too large for metadata", path,
				 (unsigned long long)size);
	}
	char *text = malloc((size_t)size + 1);
	if (!text) {
		tsr_file_close(fd);
		return tsr_error(TSR_E_NOMEM, "out of memory");
	}
	st = tsr_file_pread(fd, text, (size_t)size, 0);
	tsr_file_close(fd);
	if (st) {
		free(text);
		return st;
	}
	text[size] = '\0';
	*text_ret = text;
	if (nbytes_ret)
		*nbytes_ret = (size_t)size;
	return TSR_OK;
}

/* The next number token of JSON text [*p, end) outside strings, its length in *len_ret; NULL
 * when none is left. */
static const char *tsr_json_next_number(const char **p, const char *end, size_t *len_ret)
{
	const char *q = *p;
	while (q < end) {
		if (*q == '"') { /* a string: to its closing quote, past escapes */
			for (q++; q < end && *q != '"'; q++)
				q += *q == '\\' && q + 1 < end;
			q++;
		} else if (*q == '-' || (*q >= '0' && *q <= '9')) {
			const char *t = q;
			while (q < end && strchr("+-0123456789.eE", *q))
				q++;
			*len_ret = (size_t)(q - t);
			*p = q;
			return t;
		} else {
			q++;
		}
	}
	*p = end;
	return NULL;
}

/* Gives each number of j, in document order (cJSON keeps the text's order), the digits of the
 * text's next number token where that is an integer beyond 2^53, which a double does not hold:
 * in the number's valuestring (cJSON frees and duplicates it with the number; its double stays
 * what readers use). Returns -1 once the tokens run out. */
static int tsr_json_keep_digits(cJSON *j, const char **p, const char *end)
{
	for (cJSON *c = j; c; c = c->next) {
		if (cJSON_IsNumber(c)) {
			size_t len = 0;
			const char *t = tsr_json_next_number(p, end, &len);
			if (!t)
				return -1;
			size_t sign = *t == '-';
			int integer = len > sign && len < 40 && strspn(t + sign, "0123456789") == len - sign;
			if (integer && fabs(c->valuedouble) >= 9007199254740992.0 && !c->valuestring) {
				c->valuestring = malloc(len + 1);
				if (c->valuestring) {
					memcpy(c->valuestring, t, len);
					c->valuestring[len] = '\0';
				}
			}
		} else if (c->child && tsr_json_keep_digits(c->child, p, end) < 0) {
			return -1;
		}
	}
	return 0;
}

int tsr_zarr_json_load(const char *path, cJSON **json_ret)
{
	char *text = NULL;
	size_t n = 0;
	*json_ret = NULL;
	int st = tsr_zarr_read_file(path, &text, &n);
	if (st)
		return st;
	const char *end = NULL;
	cJSON *j = cJSON_ParseWithLengthOpts(text, n, &end, 0);
	if (!j) {
		/* Say where the parse stopped: the line and a few characters of it. */
		size_t at = end && end >= text && end <= text + n ? (size_t)(end - text) : 0;
		int line = 1;
		for (size_t i = 0; i < at; i++)
			line += text[i] == '\n';
		char near[24];
		snprintf(near, sizeof(near), "%.20s", text + at);
		for (char *p = near; *p; p++)
			if (*p == '\n' || *p == '\r' || *p == '\t')
				*p = ' ';
		free(text);
		const char *base = strrchr(path, '/');
		return tsr_error(TSR_E_FORMAT, "%s: not valid JSON (line %d, near '%s')",
				 base ? base + 1 : path, line, near);
	}
	const char *at = text;
	tsr_json_keep_digits(j, &at, end && end >= text && end <= text + n ? end : text + n);
	*json_ret = j;
	free(text);
	return TSR_OK;
}

int tsr_zarr_json_int(const cJSON *item, int64_t lo, int64_t hi, int64_t *v_ret)
{
	if (!cJSON_IsNumber(item))
		return TSR_E_FORMAT;
	double v = item->valuedouble;
	/* Integers beyond 2^53 are not exact in a double: metadata never needs them here. */
	if (!(v == floor(v)) || v < -9007199254740992.0 || v > 9007199254740992.0)
		return TSR_E_FORMAT;
	if ((int64_t)v < lo || (int64_t)v > hi)
		return TSR_E_RANGE;
	*v_ret = (int64_t)v;
	return TSR_OK;
}

int tsr_zarr_json_dims(const cJSON *list, const char *what, int64_t lo, int *n_ret, int64_t *v)
{
	if (!list)
		return tsr_error(TSR_E_FORMAT, "no '%s'", what);
	if (!cJSON_IsArray(list))
		return tsr_error(TSR_E_FORMAT, "'%s' is not a list", what);
	int n = cJSON_GetArraySize(list);
	if (n > TSR_MAX_DIM)
		return tsr_error(TSR_E_UNSUPPORTED, "'%s' has %d dimensions (at most %d)", what, n,
				 TSR_MAX_DIM);
	int i = 0;
	const cJSON *e;
	cJSON_ArrayForEach(e, list) {
		if (tsr_zarr_json_int(e, lo, (int64_t)1 << 53, &v[i])) {
			/* JSON numbers are doubles: past 2^53 they are no longer exact integers */
			if (cJSON_IsNumber(e) && e->valuedouble > 9007199254740992.0)
				return tsr_error(TSR_E_FORMAT, "'%s'[%d] = %.17g is above 2^53 "
						 "(9007199254740992), the largest extent tessera "
						 "reads", what, i, e->valuedouble);
			return tsr_error(TSR_E_FORMAT, "'%s'[%d] is not an integer >= %lld", what, i,
					 (long long)lo);
		}
		i++;
	}
	*n_ret = n;
	return TSR_OK;
}

/* cJSON keeps numbers as doubles: a 64-bit integer fill value such as 2^63 - 1 needs its digits,
 * which the loader kept in the number itself (tsr_json_keep_digits). */
int tsr_zarr_json_exact_int(const cJSON *item, int is_unsigned, uint64_t *bits_ret)
{
	double v = item->valuedouble;
	if (v == floor(v) && fabs(v) < 9007199254740992.0) {
		if (is_unsigned && v < 0)
			return TSR_E_RANGE;
		*bits_ret = v < 0 ? (uint64_t)(int64_t)v : (uint64_t)v;
		return TSR_OK;
	}
	/* beyond 2^53: the digits the loader kept (tsr_json_keep_digits); none, not an integer */
	const char *q = item->valuestring;
	if (!q)
		return TSR_E_FORMAT;
	char *end;
	errno = 0;
	if (*q == '-') {
		long long s = strtoll(q, &end, 10);
		if (errno || end == q || *end)
			return TSR_E_FORMAT;
		if (is_unsigned)
			return TSR_E_RANGE;
		*bits_ret = (uint64_t)s;
		return TSR_OK;
	}
	unsigned long long u = strtoull(q, &end, 10);
	if (errno || end == q || *end)
		return TSR_E_FORMAT;
	if (!is_unsigned && u > (unsigned long long)INT64_MAX)
		return TSR_E_RANGE;
	*bits_ret = u;
	return TSR_OK;
}

char *tsr_zarr_join(const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	char *s = malloc(a + b + 2);
	if (!s)
		return NULL;
	memcpy(s, dir, a);
	size_t n = a;
	if (b) {
		if (n && s[n - 1] != '/')
			s[n++] = '/';
		memcpy(s + n, name, b);
		n += b;
	}
	s[n] = '\0';
	return s;
}
