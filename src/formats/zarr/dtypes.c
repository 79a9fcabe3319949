/* dtypes.c - Zarr dtypes beyond numbers (fixed-length bytes and unicode, raw bytes, datetime64
 * and timedelta64, structured): their NumPy descr, element size, and fill values. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zarr.h"

/* Longest descr text kept (a structured dtype's list). */
#define TSR_ZARR_MAX_DESCR 4096
/* How deep structured dtypes may nest. */
#define TSR_ZARR_MAX_NEST 4

/* A growing descr text. */
struct tsr_descr_buf {
	char s[TSR_ZARR_MAX_DESCR];
	size_t len;
	int full;
};

static void tsr_put(struct tsr_descr_buf *b, const char *fmt, const char *a, const char *c)
{
	int n = snprintf(b->s + b->len, sizeof(b->s) - b->len, fmt, a, c);
	if (n < 0 || (size_t)n >= sizeof(b->s) - b->len)
		b->full = 1;
	else
		b->len += (size_t)n;
}

/* A datetime unit: [count]unit, unit one of NumPy's. */
static int tsr_zarr_time_unit(const char *u)
{
	static const char *const units[] = {"Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns",
					    "ps", "fs", "as", "generic"};
	while (*u >= '0' && *u <= '9')
		u++;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(u, units[i]))
			return 1;
	return 0;
}

/* One element type of v2 metadata (typestr or field list) into descr text and size. kind_ret:
 * 0 numbers, 'S', 'U', 'V', 'M' (datetime/timedelta), 'T' (structured). */
static int tsr_zarr_v2_type(const cJSON *item, int depth, struct tsr_descr_buf *b, size_t *size,
			    enum tsr_dtype *num, int *be, int *kind_ret);

static int tsr_zarr_v2_fields(const cJSON *list, int depth, struct tsr_descr_buf *b,
			      size_t *size_ret)
{
	if (depth >= TSR_ZARR_MAX_NEST)
		return tsr_error(TSR_E_UNSUPPORTED, "structured dtype nested more than %d deep",
				 TSR_ZARR_MAX_NEST);
	size_t size = 0;
	int i = 0;
	const cJSON *f;
	tsr_put(b, "%s%s", "[", "");
	cJSON_ArrayForEach(f, list) {
		const cJSON *name = cJSON_GetArrayItem(f, 0), *type = cJSON_GetArrayItem(f, 1);
		const cJSON *shape = cJSON_GetArrayItem(f, 2);
		int n = cJSON_IsArray(f) ? cJSON_GetArraySize(f) : 0;
		if ((n != 2 && n != 3) || !cJSON_IsString(name))
			return tsr_error(TSR_E_FORMAT, "structured dtype: field %d is not [name, type] "
					 "or [name, type, shape]", i);
		for (const char *c = name->valuestring; *c; c++)
			if (*c == '\'' || *c == '\\' || (unsigned char)*c < 0x20)
				return tsr_error(TSR_E_UNSUPPORTED, "structured dtype: field name with "
						 "quotes, backslashes or control characters");
		tsr_put(b, "%s('%s', ", i ? ", " : "", name->valuestring);
		size_t fsize;
		enum tsr_dtype num;
		int be, kind, st;
		if ((st = tsr_zarr_v2_type(type, depth + 1, b, &fsize, &num, &be, &kind)))
			return st;
		if (n == 3) {
			int nd;
			int64_t dims[TSR_MAX_DIM];
			if (tsr_zarr_json_dims(shape, "field shape", 0, &nd, dims))
				return tsr_error(TSR_E_FORMAT, "structured dtype: field '%s' has a bad "
						 "shape", name->valuestring);
			tsr_put(b, "%s%s", ", (", "");
			for (int d = 0; d < nd; d++) {
				char num_text[32];
				snprintf(num_text, sizeof(num_text), "%lld", (long long)dims[d]);
				tsr_put(b, "%s%s", num_text, nd == 1 || d + 1 < nd ? "," : "");
				if (d + 1 < nd)
					tsr_put(b, "%s%s", " ", "");
				if (dims[d] && fsize > (size_t)TSR_DTYPE_RAW_MAX / (size_t)dims[d])
					return tsr_error(TSR_E_UNSUPPORTED, "structured dtype: elements "
							 "of more than %d bytes", TSR_DTYPE_RAW_MAX);
				fsize *= (size_t)dims[d];
			}
			tsr_put(b, "%s%s", ")", "");
		}
		tsr_put(b, "%s%s", ")", "");
		size += fsize;
		if (size > TSR_DTYPE_RAW_MAX)
			return tsr_error(TSR_E_UNSUPPORTED, "structured dtype: elements of more than %d "
					 "bytes", TSR_DTYPE_RAW_MAX);
		i++;
	}
	if (!i)
		return tsr_error(TSR_E_FORMAT, "structured dtype without fields");
	tsr_put(b, "%s%s", "]", "");
	if (b->full)
		return tsr_error(TSR_E_UNSUPPORTED, "structured dtype: description longer than %d "
				 "characters", TSR_ZARR_MAX_DESCR);
	*size_ret = size;
	return TSR_OK;
}

static int tsr_zarr_v2_type(const cJSON *item, int depth, struct tsr_descr_buf *b, size_t *size,
			    enum tsr_dtype *num, int *be, int *kind_ret)
{
	*num = TSR_DTYPE_INVALID;
	*be = 0;
	*kind_ret = 0;
	if (cJSON_IsArray(item)) {
		*kind_ret = 'T';
		return tsr_zarr_v2_fields(item, depth, b, size);
	}
	if (!cJSON_IsString(item))
		return tsr_error(TSR_E_FORMAT, "'dtype' is not a string or a list of fields");
	const char *s = item->valuestring;
	char order = strchr("<>|=", s[0]) && s[0] ? s[0] : '=';
	const char *k = s + (s[0] && strchr("<>|=", s[0]) ? 1 : 0);
	if (k[0] == 'O')
		return tsr_error(TSR_E_UNSUPPORTED, "dtype '%s': object elements (variable-length "
				 "strings, bytes or objects) are not supported", s);
	if (k[0] == 'S' || k[0] == 'U' || k[0] == 'V') {
		char *end;
		long n = strtol(k + 1, &end, 10);
		size_t w = k[0] == 'U' ? 4 : 1;
		if (end == k + 1 || *end || n < 1 || (size_t)n > TSR_DTYPE_RAW_MAX / w)
			return tsr_error(TSR_E_UNSUPPORTED, "dtype '%s' is not supported (fixed length "
					 "of 1 to %d bytes)", s, TSR_DTYPE_RAW_MAX);
		*size = (size_t)n * w;
		*kind_ret = k[0];
		*be = k[0] == 'U' && order == '>';
		char text[32];
		snprintf(text, sizeof(text), "%c%c%ld", k[0] == 'U' ? (*be ? '>' : '<') : '|', k[0], n);
		tsr_put(b, "'%s'%s", text, "");
		return TSR_OK;
	}
	if ((k[0] == 'M' || k[0] == 'm') && k[1] == '8') {
		const char *u = k + 2;
		char unit[24] = "";
		if (*u == '[') {
			size_t len = strlen(u);
			if (len < 3 || len > 20 || u[len - 1] != ']')
				return tsr_error(TSR_E_FORMAT, "dtype '%s': bad datetime unit", s);
			memcpy(unit, u + 1, len - 2);
			unit[len - 2] = '\0';
			if (!tsr_zarr_time_unit(unit))
				return tsr_error(TSR_E_UNSUPPORTED, "dtype '%s': unit '%s' is not one of "
						 "NumPy's", s, unit);
		} else if (*u) {
			return tsr_error(TSR_E_FORMAT, "dtype '%s': bad datetime unit", s);
		}
		*size = 8;
		*kind_ret = 'M';
		*num = k[0] == 'M' ? TSR_DATETIME64 : TSR_TIMEDELTA64;
		*be = order == '>';
		char text[48];
		snprintf(text, sizeof(text), "%c%c8%s%s%s", depth ? (*be ? '>' : '<') : '<', k[0],
			 unit[0] ? "[" : "", unit, unit[0] ? "]" : "");
		tsr_put(b, "'%s'%s", text, "");
		return TSR_OK;
	}
	int st = tsr_zarr_v2_dtype(item, num, be);
	if (st)
		return st;
	*size = tsr_dtype_size(*num);
	char text[16];
	/* inside a structured dtype the bytes stay as stored: keep their byte order */
	snprintf(text, sizeof(text), "%s", tsr_dtype_npy_descr(*num));
	if (depth && *be)
		text[0] = '>';
	tsr_put(b, "'%s'%s", text, "");
	return TSR_OK;
}

/* Keeps descr text (without quotes for a single type) on m. */
static int tsr_zarr_set_descr(struct tsr_zarr_meta *m, const struct tsr_descr_buf *b)
{
	size_t len = b->len;
	const char *s = b->s;
	if (len >= 2 && s[0] == '\'') {
		s++;
		len -= 2;
	}
	free(m->descr);
	m->descr = malloc(len + 1);
	if (!m->descr)
		return tsr_error(TSR_E_NOMEM, "out of memory");
	memcpy(m->descr, s, len);
	m->descr[len] = '\0';
	return TSR_OK;
}

int tsr_zarr_dtype_v2(const cJSON *item, struct tsr_zarr_meta *m)
{
	struct tsr_descr_buf b = {0};
	size_t size;
	enum tsr_dtype num;
	int be, kind, st;
	/* tensorstore writes "bfloat16" (little-endian, as its other v2 dtypes without '>') */
	if (cJSON_IsString(item) && tsr_zarr_bits_type(item->valuestring, m))
		return TSR_OK;
	if ((st = tsr_zarr_v2_type(item, 0, &b, &size, &num, &be, &kind)))
		return st;
	m->kind = kind;
	if (!kind) {
		m->dtype = num;
		m->big_endian = be;
		return TSR_OK;
	}
	if (kind == 'M') {
		m->dtype = num;
		m->big_endian = be; /* int64 counts: swapped to native like numbers */
	} else {
		m->dtype = TSR_DTYPE_RAW_OF(size);
		m->big_endian = 0; /* raw elements stay as stored; descr says their order */
		m->raw_be = be;
	}
	return tsr_zarr_set_descr(m, &b);
}

/* ---- v3 ---- */

static const cJSON *tsr_zarr_v3_conf(const cJSON *item, const char *key)
{
	const cJSON *c = cJSON_IsObject(item) ? cJSON_GetObjectItemCaseSensitive(item, "configuration")
					      : NULL;
	return c ? cJSON_GetObjectItemCaseSensitive(c, key) : NULL;
}

static int tsr_zarr_v3_type(const cJSON *item, int depth, struct tsr_descr_buf *b, size_t *size,
			    enum tsr_dtype *num, int *kind_ret);

static int tsr_zarr_v3_fields(const cJSON *list, int depth, struct tsr_descr_buf *b,
			      size_t *size_ret)
{
	if (depth >= TSR_ZARR_MAX_NEST)
		return tsr_error(TSR_E_UNSUPPORTED, "structured dtype nested more than %d deep",
				 TSR_ZARR_MAX_NEST);
	if (!cJSON_IsArray(list))
		return tsr_error(TSR_E_FORMAT, "structured: 'fields' is not a list");
	size_t size = 0;
	int i = 0;
	const cJSON *f;
	tsr_put(b, "%s%s", "[", "");
	cJSON_ArrayForEach(f, list) {
		const cJSON *name = cJSON_GetArrayItem(f, 0), *type = cJSON_GetArrayItem(f, 1);
		if (!cJSON_IsArray(f) || cJSON_GetArraySize(f) != 2 || !cJSON_IsString(name))
			return tsr_error(TSR_E_FORMAT, "structured: field %d is not [name, data_type]", i);
		for (const char *c = name->valuestring; *c; c++)
			if (*c == '\'' || *c == '\\' || (unsigned char)*c < 0x20)
				return tsr_error(TSR_E_UNSUPPORTED, "structured dtype: field name with "
						 "quotes, backslashes or control characters");
		tsr_put(b, "%s('%s', ", i ? ", " : "", name->valuestring);
		size_t fsize;
		enum tsr_dtype num;
		int kind, st;
		if ((st = tsr_zarr_v3_type(type, depth + 1, b, &fsize, &num, &kind)))
			return st;
		tsr_put(b, "%s%s", ")", "");
		size += fsize;
		if (size > TSR_DTYPE_RAW_MAX)
			return tsr_error(TSR_E_UNSUPPORTED, "structured dtype: elements of more than %d "
					 "bytes", TSR_DTYPE_RAW_MAX);
		i++;
	}
	if (!i)
		return tsr_error(TSR_E_FORMAT, "structured dtype without fields");
	tsr_put(b, "%s%s", "]", "");
	if (b->full)
		return tsr_error(TSR_E_UNSUPPORTED, "structured dtype: description longer than %d "
				 "characters", TSR_ZARR_MAX_DESCR);
	*size_ret = size;
	return TSR_OK;
}

static int tsr_zarr_v3_type(const cJSON *item, int depth, struct tsr_descr_buf *b, size_t *size,
			    enum tsr_dtype *num, int *kind_ret)
{
	const char *name = cJSON_IsString(item) ? item->valuestring : NULL;
	if (cJSON_IsObject(item) && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(item, "name")))
		name = cJSON_GetObjectItemCaseSensitive(item, "name")->valuestring;
	if (!name)
		return tsr_error(TSR_E_FORMAT, "'data_type' is not a name or {\"name\": ...}");
	*num = TSR_DTYPE_INVALID;
	*kind_ret = 0;
	if (!strcmp(name, "null_terminated_bytes") || !strcmp(name, "fixed_length_utf32") ||
	    !strcmp(name, "raw_bytes")) {
		int64_t n;
		int u = name[0] == 'f';
		if (tsr_zarr_json_int(tsr_zarr_v3_conf(item, "length_bytes"), 1, TSR_DTYPE_RAW_MAX, &n) ||
		    (u && n % 4))
			return tsr_error(TSR_E_FORMAT, "data_type '%s': length_bytes is not an integer "
					 "in [1, %d]%s", name, TSR_DTYPE_RAW_MAX,
					 u ? " divisible by 4" : "");
		char text[32];
		snprintf(text, sizeof(text), "%c%c%lld", u ? '<' : '|', u ? 'U' : name[0] == 'n' ? 'S' : 'V',
			 (long long)(u ? n / 4 : n));
		tsr_put(b, "'%s'%s", text, "");
		*size = (size_t)n;
		*kind_ret = u ? 'U' : name[0] == 'n' ? 'S' : 'V';
		return TSR_OK;
	}
	if (!strcmp(name, "numpy.datetime64") || !strcmp(name, "numpy.timedelta64")) {
		const cJSON *unit = tsr_zarr_v3_conf(item, "unit");
		const cJSON *sf = tsr_zarr_v3_conf(item, "scale_factor");
		int64_t scale = 1;
		if (!cJSON_IsString(unit) || !tsr_zarr_time_unit(unit->valuestring) ||
		    (unit->valuestring[0] >= '0' && unit->valuestring[0] <= '9'))
			return tsr_error(TSR_E_FORMAT, "data_type '%s': 'unit' is not one of NumPy's",
					 name);
		if (sf && tsr_zarr_json_int(sf, 1, INT32_MAX, &scale))
			return tsr_error(TSR_E_FORMAT, "data_type '%s': 'scale_factor' is not a positive "
					 "integer", name);
		char text[64], count[24] = "";
		if (scale != 1)
			snprintf(count, sizeof(count), "%lld", (long long)scale);
		snprintf(text, sizeof(text), "<%c8[%s%s]", name[6] == 'd' ? 'M' : 'm', count,
			 unit->valuestring);
		tsr_put(b, "'%s'%s", text, "");
		*size = 8;
		*kind_ret = 'M';
		*num = name[6] == 'd' ? TSR_DATETIME64 : TSR_TIMEDELTA64;
		return TSR_OK;
	}
	if (!strcmp(name, "structured")) {
		*kind_ret = 'T';
		return tsr_zarr_v3_fields(tsr_zarr_v3_conf(item, "fields"), depth, b, size);
	}
	if (!strcmp(name, "string") || !strcmp(name, "variable_length_utf8") ||
	    !strcmp(name, "variable_length_bytes") || !strcmp(name, "bytes"))
		return tsr_error(TSR_E_UNSUPPORTED, "data_type '%s': variable-length elements are "
				 "not supported", name);
	int st = tsr_zarr_v3_dtype(item, num);
	if (st)
		return st;
	*size = tsr_dtype_size(*num);
	tsr_put(b, "'%s'%s", tsr_dtype_npy_descr(*num), "");
	return TSR_OK;
}

int tsr_zarr_dtype_v3(const cJSON *item, struct tsr_zarr_meta *m)
{
	struct tsr_descr_buf b = {0};
	size_t size;
	enum tsr_dtype num;
	int kind, st;
	if (cJSON_IsString(item) && tsr_zarr_bits_type(item->valuestring, m))
		return TSR_OK;
	if ((st = tsr_zarr_v3_type(item, 0, &b, &size, &num, &kind)))
		return st;
	m->kind = kind;
	if (!kind) {
		m->dtype = num;
		return TSR_OK;
	}
	m->dtype = kind == 'M' ? num : TSR_DTYPE_RAW_OF(size);
	return tsr_zarr_set_descr(m, &b);
}

void tsr_zarr_v3_raw_order(struct tsr_zarr_meta *m)
{
	if (m->kind == 'U' && m->big_endian && m->descr)
		m->descr[0] = '>'; /* stored big-endian, delivered as stored */
	if (m->kind && m->kind != 'M') {
		m->raw_be = m->big_endian && m->kind == 'U';
		m->big_endian = 0;
	}
}

/* ---- fill values ---- */

static int tsr_b64(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Standard base64 (padding optional) into at most cap bytes. */
static int tsr_zarr_base64(const char *s, uint8_t *out, size_t cap, size_t *n_ret)
{
	size_t n = 0;
	uint32_t acc = 0;
	int bits = 0;
	for (; *s && *s != '='; s++) {
		int v = tsr_b64((unsigned char)*s);
		if (v < 0)
			return tsr_error(TSR_E_FORMAT, "fill_value is not base64");
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (n == cap)
				return tsr_error(TSR_E_FORMAT, "fill_value holds more than the %zu bytes "
						 "of an element", cap);
			out[n++] = (uint8_t)(acc >> bits);
		}
	}
	while (*s == '=')
		s++;
	if (*s)
		return tsr_error(TSR_E_FORMAT, "fill_value is not base64");
	*n_ret = n;
	return TSR_OK;
}

/* A UTF-8 string into UTF-32 code units of the given byte order, at most cap bytes. */
static int tsr_zarr_utf32(const char *s, int be, uint8_t *out, size_t cap)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0;
	while (*p) {
		uint32_t c;
		int more;
		if (*p < 0x80)
			c = *p, more = 0;
		else if ((*p & 0xe0) == 0xc0)
			c = *p & 0x1f, more = 1;
		else if ((*p & 0xf0) == 0xe0)
			c = *p & 0x0f, more = 2;
		else if ((*p & 0xf8) == 0xf0)
			c = *p & 0x07, more = 3;
		else
			return tsr_error(TSR_E_FORMAT, "fill_value is not UTF-8");
		p++;
		for (int i = 0; i < more; i++, p++) {
			if ((*p & 0xc0) != 0x80)
				return tsr_error(TSR_E_FORMAT, "fill_value is not UTF-8");
			c = (c << 6) | (*p & 0x3f);
		}
		if (n + 4 > cap)
			return tsr_error(TSR_E_FORMAT, "fill_value has more characters than the %zu of "
					 "an element", cap / 4);
		for (int i = 0; i < 4; i++)
			out[n + (size_t)i] = (uint8_t)(c >> (8 * (be ? 3 - i : i)));
		n += 4;
	}
	return TSR_OK;
}

int tsr_zarr_fill_value(const cJSON *fv, struct tsr_zarr_meta *m)
{
	size_t w = tsr_dtype_size(m->dtype);
	uint8_t *out = m->fill;
	if (m->bits_of)
		return tsr_zarr_bits_fill(fv, m);
	memset(m->fill, 0, sizeof(m->fill));
	if (!m->kind)
		return tsr_zarr_fill(fv, m->dtype, m->fill);
	if (m->kind == 'M') {
		/* an integer count, or NaT (INT64_MIN): "NaT", and null as zarr-python reads it */
		if (!fv || cJSON_IsNull(fv) || (cJSON_IsString(fv) && !strcmp(fv->valuestring, "NaT"))) {
			int64_t nat = INT64_MIN;
			memcpy(m->fill, &nat, 8);
			return TSR_OK;
		}
		return tsr_zarr_fill(fv, TSR_INT64, m->fill);
	}
	if (w > sizeof(m->fill)) {
		m->fill_wide = calloc(1, w);
		if (!m->fill_wide)
			return tsr_error(TSR_E_NOMEM, "out of memory");
		out = m->fill_wide;
	}
	if (!fv || cJSON_IsNull(fv))
		return TSR_OK;
	if (!cJSON_IsString(fv))
		return tsr_error(TSR_E_FORMAT, "fill_value of a %s array is not a string", m->descr);
	if (m->kind == 'U')
		return tsr_zarr_utf32(fv->valuestring, m->raw_be, out, w);
	size_t n;
	return tsr_zarr_base64(fv->valuestring, out, w, &n);
}
