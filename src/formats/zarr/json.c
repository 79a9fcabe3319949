/* json.c - metadata files and JSON values for the Zarr driver (through cJSON). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/file.h"
#include "../metadata.h"
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

/* The length of a NaN, Infinity or -Infinity token at q of text [start, end) (outside
 * strings), 0 where there is none: such a token stands where a value may, so it must be
 * preceded by a blank, '[', ':' or ',' (or the text's start) and followed by a blank, ',', ']'
 * or '}' (or the end). Anything else ("NaNx", "1NaN", "nan") stays what cJSON refuses: read as
 * a number it could pass for another ("NaN1" as 0.01). */
static size_t tsr_json_nonfinite(const char *q, const char *start, const char *end)
{
	static const char *const tokens[] = {"NaN", "Infinity", "-Infinity"};
	if (q > start && !strchr(" \t\r\n[:,", q[-1]))
		return 0;
	for (size_t i = 0; i < sizeof(tokens) / sizeof(*tokens); i++) {
		size_t n = strlen(tokens[i]);
		if ((size_t)(end - q) >= n && !memcmp(q, tokens[i], n) &&
		    (q + n == end || (q[n] && strchr(" \t\r\n,]}", q[n]))))
			return n;
	}
	return 0;
}

/* Whether number token [t, t + n) (tsr_json_next_number's) is NaN, Infinity or -Infinity. */
static int tsr_json_is_nonfinite(const char *t, size_t n)
{
	return *t == 'N' || *t == 'I' || (*t == '-' && n > 1 && t[1] == 'I');
}

/* The next number token of JSON text [*p, end) outside strings (NaN, Infinity and -Infinity
 * among them: tsr_json_nonfinite), its length in *len_ret; NULL when none is left. start is
 * the text's start. */
static const char *tsr_json_next_number(const char **p, const char *start, const char *end,
					size_t *len_ret)
{
	const char *q = *p;
	while (q < end) {
		size_t n;
		if (*q == '"') { /* a string: to its closing quote, past escapes */
			for (q++; q < end && *q != '"'; q++)
				q += *q == '\\' && q + 1 < end;
			q++;
		} else if ((*q == 'N' || *q == 'I' || *q == '-') &&
			   (n = tsr_json_nonfinite(q, start, end))) {
			*len_ret = n;
			*p = q + n;
			return q;
		} else if (*q == '-' || (*q >= '0' && *q <= '9')) {
			const char *t = q;
			/* (the characters cJSON's parse_number takes; tested without strchr,
			 * which a call a character made a fifth of a large document's load) */
			while (q < end && ((*q >= '0' && *q <= '9') || *q == '.' || *q == 'e' ||
					   *q == 'E' || *q == '+' || *q == '-'))
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

/* How many decimal digits [q, end) starts with. */
static size_t tsr_json_ndigits(const char *q, const char *end)
{
	size_t d = 0;
	while (q + d < end && q[d] >= '0' && q[d] <= '9')
		d++;
	return d;
}

/* Whether [t, t + n) is a number as JSON writes it: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
 * (cJSON also reads "01", "1." and "-.5", which Python's json refuses). */
static int tsr_json_number_ok(const char *t, size_t n)
{
	const char *q = t, *end = t + n;
	q += q < end && *q == '-';
	size_t d = tsr_json_ndigits(q, end);
	if (!d || (*q == '0' && d > 1))
		return 0;
	q += d;
	if (q < end && *q == '.') {
		if (!(d = tsr_json_ndigits(++q, end)))
			return 0;
		q += d;
	}
	if (q < end && (*q == 'e' || *q == 'E')) {
		q++;
		q += q < end && (*q == '+' || *q == '-');
		if (!(d = tsr_json_ndigits(q, end)))
			return 0;
		q += d;
	}
	return q == end;
}

/* The text to print for number token [t, t + n) of value v; NULL where cJSON's own printing
 * is it (a plain integer within 2^53: exact as a double, written as an integer). Otherwise the
 * token itself, so that 1.0 stays a real (Python's json: a float), -0.0 keeps its sign and
 * 2^63 - 1 its digits; a token JSON does not write (cJSON also reads "01", "1.") as JSON text
 * of the same value: an integer's digits, a real's shortest text (tsr_json_real_text). */
static char *tsr_json_token_text(const char *t, size_t n, double v)
{
	size_t sign = *t == '-', skip = 0;
	int integer = n > sign && tsr_json_ndigits(t + sign, t + n) == n - sign;
	if (!tsr_json_is_nonfinite(t, n) && !tsr_json_number_ok(t, n)) {
		if (!integer) {
			char buf[TSR_JSON_REAL_MAX];
			tsr_json_real_text(v, buf);
			return strdup(buf);
		}
		while (skip + 1 < n - sign && t[sign + skip] == '0')
			skip++; /* leading zeros off, one digit kept */
	}
	if (integer && fabs(v) < 9007199254740992.0)
		return NULL;
	char *s = malloc(n + 1);
	if (s) {
		memcpy(s, t, sign);
		memcpy(s + sign, t + sign + skip, n - sign - skip);
		s[n - skip] = '\0';
	}
	return s;
}

/* Gives each number of j, in document order (cJSON keeps the text's order), the text of the
 * next number token of the text [*p, end) (start its start) in its valuestring where that is
 * not a plain integer within 2^53 (tsr_json_token_text; cJSON frees and duplicates it with the
 * number, and tsr_json_print writes it), and NaN, Infinity, -Infinity their values (cJSON
 * parsed zeros in their place: tsr_zarr_json_load). A number's double stays what readers use.
 * Returns -1 once the tokens run out. */
static int tsr_json_keep_digits(cJSON *j, const char **p, const char *start, const char *end)
{
	for (cJSON *c = j; c; c = c->next) {
		if (cJSON_IsNumber(c)) {
			size_t len = 0;
			const char *t = tsr_json_next_number(p, start, end, &len);
			if (!t)
				return -1;
			if (tsr_json_is_nonfinite(t, len)) {
				c->valuedouble = *t == 'N' ? NAN : *t == '-' ? -INFINITY : INFINITY;
				c->valueint = *t == 'N' ? 0 : *t == '-' ? INT_MIN : INT_MAX;
			}
			if (!c->valuestring)
				c->valuestring = tsr_json_token_text(t, len, c->valuedouble);
		} else if (c->child && tsr_json_keep_digits(c->child, p, start, end) < 0) {
			return -1;
		}
	}
	return 0;
}

int tsr_zarr_json_load(const char *path, cJSON **json_ret)
{
	char *text = NULL, *copy = NULL;
	size_t n = 0, len = 0;
	*json_ret = NULL;
	int st = tsr_zarr_read_file(path, &text, &n);
	if (st)
		return st;
	/* zarr-python writes float attributes NaN, Infinity, -Infinity bare, as Python's json
	 * does, and cJSON refuses them: cJSON parses a copy with each replaced by a number as
	 * long ("0.0", "0.000000", "-0.000000": offsets stay the text's), to which
	 * tsr_json_keep_digits gives their values. */
	const char *q = text, *t;
	while ((t = tsr_json_next_number(&q, text, text + n, &len))) {
		if (!tsr_json_is_nonfinite(t, len))
			continue;
		if (!copy) {
			if (!(copy = malloc(n + 1))) {
				free(text);
				return tsr_error(TSR_E_NOMEM, "out of memory");
			}
			memcpy(copy, text, n);
			copy[n] = '\0';
		}
		char *r = copy + (t - text);
		memset(r, '0', len);
		r[0] = *t == '-' ? '-' : '0';
		r[*t == '-' ? 2 : 1] = '.';
	}
	const char *parsed = copy ? copy : text, *end = NULL;
	cJSON *j = cJSON_ParseWithLengthOpts(parsed, n, &end, 0);
	/* where the parse stopped: the same offset in text */
	int has_end = end && end >= parsed && end <= parsed + n;
	size_t stop = has_end ? (size_t)(end - parsed) : 0;
	free(copy);
	if (!j) {
		/* Say where the parse stopped: the line and a few characters of it. */
		int line = 1;
		for (size_t i = 0; i < stop; i++)
			line += text[i] == '\n';
		char near[24];
		snprintf(near, sizeof(near), "%.20s", text + stop);
		for (char *p = near; *p; p++)
			if (*p == '\n' || *p == '\r' || *p == '\t')
				*p = ' ';
		/* cJSON refuses nesting past its limit: say that, not that the text is not JSON */
		int depth = 0, most = 0, quoted = 0;
		for (size_t i = 0; i < n; i++) {
			char c = text[i];
			if (quoted) {
				i += c == '\\';
				quoted = c != '"';
			} else if (c == '"') {
				quoted = 1;
			} else if (c == '[' || c == '{') {
				most = ++depth > most ? depth : most;
			} else if (c == ']' || c == '}') {
				depth--;
			}
		}
		free(text);
		const char *base = strrchr(path, '/');
		if (most > CJSON_NESTING_LIMIT)
			return tsr_error(TSR_E_UNSUPPORTED, "%s: JSON nested %d levels deep, past the "
					 "%d its parser takes", base ? base + 1 : path, most,
					 CJSON_NESTING_LIMIT);
		return tsr_error(TSR_E_FORMAT, "%s: not valid JSON (line %d, near '%s')",
				 base ? base + 1 : path, line, near);
	}
	const char *at = text;
	tsr_json_keep_digits(j, &at, text, has_end ? text + stop : text + n);
	*json_ret = j;
	free(text);
	return TSR_OK;
}

int tsr_zarr_json_int(const cJSON *item, int64_t lo, int64_t hi, int64_t *v_ret)
{
	if (!cJSON_IsNumber(item))
		return TSR_E_FORMAT;
	double v = item->valuedouble;
	/* Integers beyond 2^53 are not exact in a double: metadata never needs them here. (A
	 * token past 2^53 that rounds to it, 9007199254740993, is told by its kept digits.) */
	if (!(v == floor(v)) || v < -9007199254740992.0 || v > 9007199254740992.0 ||
	    (fabs(v) == 9007199254740992.0 && item->valuestring &&
	     strcmp(item->valuestring + (*item->valuestring == '-'), "9007199254740992") != 0))
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
			if (cJSON_IsNumber(e) && e->valuedouble >= 9007199254740992.0) {
				char d[32]; /* (its digits, where the loader kept them) */
				snprintf(d, sizeof(d), "%.17g", e->valuedouble);
				return tsr_error(TSR_E_UNSUPPORTED, "'%s'[%d] = %s is above 2^53 "
						 "(9007199254740992), the largest extent tessera "
						 "reads", what, i, e->valuestring ? e->valuestring : d);
			}
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
	/* beyond 2^53: the digits the loader kept (tsr_json_keep_digits); none, not an integer.
	 * (It keeps every number's text that is not a plain integer within 2^53: "1e20", "1.5",
	 * "NaN" are no integer's digits.) */
	const char *q = item->valuestring;
	size_t sign = q && *q == '-';
	if (!q || !q[sign] || strspn(q + sign, "0123456789") != strlen(q + sign))
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

int tsr_zarr_step_params(const char *name, const cJSON *holder, struct tsr_bytes_step *step)
{
	if (step->id == TSR_CODEC_LZMA) {
		const cJSON *fmt = holder ? cJSON_GetObjectItemCaseSensitive(holder, "format") : NULL;
		int64_t f = 1;
		if (fmt && !cJSON_IsNull(fmt) && tsr_zarr_json_int(fmt, 0, 3, &f))
			return tsr_error(TSR_E_FORMAT, "codec '%s': 'format' is not 0, 1, 2 or 3",
					 name);
		/* raw streams have no header: their filter chain and its options would come from
		 * the metadata's "filters", which is not read */
		if (f == 3)
			return tsr_error(TSR_E_UNSUPPORTED, "codec '%s' with format 3 (raw)", name);
		step->lzma_format = (int)f;
		return TSR_OK;
	}
	if (!tsr_codec_is_checksum(step->id))
		return TSR_OK;
	const cJSON *loc = cJSON_GetObjectItemCaseSensitive(holder, "location");
	enum tsr_codec_id id = step->id;
	/* numcodecs' Checksum32 puts its bytes at the start unless told; crc32c (Zarr v3's own),
	 * Fletcher32 and JenkinsLookup3 always put them at the end */
	step->at_end = id != TSR_CODEC_CRC32 && id != TSR_CODEC_ADLER32;
	if (loc && !cJSON_IsNull(loc)) {
		if (!cJSON_IsString(loc) ||
		    (strcmp(loc->valuestring, "start") && strcmp(loc->valuestring, "end")))
			return tsr_error(TSR_E_FORMAT, "codec '%s': 'location' is not 'start' or 'end'",
					 name);
		int end = !strcmp(loc->valuestring, "end");
		if (step->at_end && !end)
			return tsr_error(TSR_E_UNSUPPORTED, "codec '%s' with its checksum at the start",
					 name);
		step->at_end = end;
	}
	if (id != TSR_CODEC_LOOKUP3)
		return TSR_OK;
	const cJSON *iv = cJSON_GetObjectItemCaseSensitive(holder, "initval");
	const cJSON *prefix = cJSON_GetObjectItemCaseSensitive(holder, "prefix");
	int64_t v = 0;
	if (iv && !cJSON_IsNull(iv) && tsr_zarr_json_int(iv, 0, UINT32_MAX, &v))
		return tsr_error(TSR_E_FORMAT, "codec '%s': 'initval' is not an integer in 0..2^32-1",
				 name);
	/* bytes hashed before each chunk's: NumPy arrays and bytes, which JSON does not hold */
	if (prefix && !cJSON_IsNull(prefix))
		return tsr_error(TSR_E_UNSUPPORTED, "codec '%s' with a 'prefix'", name);
	step->initval = (uint32_t)v;
	return TSR_OK;
}
