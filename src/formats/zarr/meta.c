/* meta.c - Zarr dtypes (v2 typestrings, v3 data_type names) and fill values as bytes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "zarr.h"

int tsr_zarr_v2_dtype(const cJSON *item, enum tsr_dtype *dtype_ret, int *big_endian_ret)
{
	if (cJSON_IsArray(item))
		return tsr_error(TSR_E_UNSUPPORTED, "structured dtypes are not supported");
	if (!cJSON_IsString(item))
		return tsr_error(TSR_E_FORMAT, "'dtype' is not a string");
	const char *s = item->valuestring;
	static const struct {
		const char *code;
		enum tsr_dtype t;
	} map[] = {
		{"b1", TSR_BOOL}, {"i1", TSR_INT8}, {"i2", TSR_INT16}, {"i4", TSR_INT32},
		{"i8", TSR_INT64}, {"u1", TSR_UINT8}, {"u2", TSR_UINT16}, {"u4", TSR_UINT32},
		{"u8", TSR_UINT64}, {"f2", TSR_FLOAT16}, {"f4", TSR_FLOAT32}, {"f8", TSR_FLOAT64},
		{"c8", TSR_COMPLEX64}, {"c16", TSR_COMPLEX128},
	};
	if (s[0] == '<' || s[0] == '>' || s[0] == '|' || s[0] == '=') {
		for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
			if (strcmp(s + 1, map[i].code) != 0)
				continue;
			*dtype_ret = map[i].t;
			*big_endian_ret = s[0] == '>' && tsr_dtype_size(map[i].t) > 1;
			return TSR_OK;
		}
	}
	return tsr_error(TSR_E_UNSUPPORTED, "dtype '%s' is not supported (tessera reads bool, "
			 "int8-64, uint8-64, float16/32/64, complex64/128, datetime64, timedelta64, "
			 "S, U, V and structured dtypes)", s);
}

int tsr_zarr_v3_dtype(const cJSON *item, enum tsr_dtype *dtype_ret)
{
	const char *s = NULL;
	if (cJSON_IsString(item))
		s = item->valuestring;
	else if (cJSON_IsObject(item) && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(item, "name")))
		s = cJSON_GetObjectItemCaseSensitive(item, "name")->valuestring;
	if (!s)
		return tsr_error(TSR_E_FORMAT, "'data_type' is not a string");
	for (enum tsr_dtype t = TSR_BOOL; t <= TSR_COMPLEX128; t++) {
		if (!strcmp(s, tsr_dtype_name(t))) {
			*dtype_ret = t;
			return TSR_OK;
		}
	}
	return tsr_error(TSR_E_UNSUPPORTED, "data_type '%s' is not supported (Zarr v3: tessera "
			 "reads bool, int8-64, uint8-64, float16/32/64, complex64/128; bfloat16 and "
			 "float8_* as their bits under a dtype the caller names)", s);
}

/* One float fill (a number, "NaN", "Infinity", "-Infinity" or "0x" raw bits) of w bytes. */
static int tsr_zarr_fill_float(const cJSON *fv, size_t w, uint8_t *out)
{
	double v;
	if (cJSON_IsNumber(fv)) {
		v = fv->valuedouble;
	} else if (cJSON_IsString(fv)) {
		const char *s = fv->valuestring;
		if (!strcmp(s, "NaN")) {
			/* The quiet NaN the specs name (sign 0, top mantissa bit set). */
			static const uint8_t nan16[2] = {0x00, 0x7e}, nan32[4] = {0, 0, 0xc0, 0x7f},
					     nan64[8] = {0, 0, 0, 0, 0, 0, 0xf8, 0x7f};
			memcpy(out, w == 2 ? nan16 : w == 4 ? nan32 : nan64, w);
			return TSR_OK;
		} else if (!strcmp(s, "Infinity")) {
			v = INFINITY;
		} else if (!strcmp(s, "-Infinity")) {
			v = -INFINITY;
		} else if ((s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) && strlen(s) == 2 + 2 * w) {
			char *end;
			uint64_t bits = strtoull(s + 2, &end, 16);
			if (*end)
				return tsr_error(TSR_E_FORMAT, "fill_value '%s' is not hexadecimal", s);
			for (size_t i = 0; i < w; i++)
				out[i] = (uint8_t)(bits >> (8 * i));
			return TSR_OK;
		} else {
			return tsr_error(TSR_E_FORMAT, "fill_value '%s' is not a number, \"NaN\", "
					 "\"Infinity\", \"-Infinity\" or %zu-byte hex", s, w);
		}
	} else {
		return tsr_error(TSR_E_FORMAT, "fill_value is not a number");
	}
	if (w == 2) {
		uint16_t h = tsr_half_from_double(v);
		memcpy(out, &h, 2);
	} else if (w == 4) {
		float f = (float)v;
		memcpy(out, &f, 4);
	} else {
		memcpy(out, &v, 8);
	}
	return TSR_OK;
}

int tsr_zarr_fill(const cJSON *fv, enum tsr_dtype t, uint8_t out[16])
{
	size_t w = tsr_dtype_size(t);
	memset(out, 0, 16);
	if (!fv || cJSON_IsNull(fv))
		return TSR_OK;
	switch (t) {
	case TSR_BOOL:
		if (cJSON_IsBool(fv))
			out[0] = cJSON_IsTrue(fv) ? 1 : 0;
		else if (cJSON_IsNumber(fv) && (fv->valuedouble == 0 || fv->valuedouble == 1))
			out[0] = fv->valuedouble != 0;
		else
			return tsr_error(TSR_E_FORMAT, "fill_value of a bool array is not true/false");
		return TSR_OK;
	case TSR_FLOAT16:
	case TSR_FLOAT32:
	case TSR_FLOAT64:
		return tsr_zarr_fill_float(fv, w, out);
	case TSR_COMPLEX64:
	case TSR_COMPLEX128: {
		if (!cJSON_IsArray(fv) || cJSON_GetArraySize(fv) != 2)
			return tsr_error(TSR_E_FORMAT, "fill_value of a complex array is not [re, im]");
		int st = tsr_zarr_fill_float(cJSON_GetArrayItem(fv, 0), w / 2, out);
		if (!st)
			st = tsr_zarr_fill_float(cJSON_GetArrayItem(fv, 1), w / 2, out + w / 2);
		return st;
	}
	default:
		break;
	}
	/* Integers: exact, and in range for the type. */
	if (!cJSON_IsNumber(fv))
		return tsr_error(TSR_E_FORMAT, "fill_value of an integer array is not a number");
	double d = fv->valuedouble;
	if (d != floor(d))
		return tsr_error(TSR_E_FORMAT, "fill_value %g of an integer array is not an integer", d);
	int is_signed = tsr_dtype_is_signed(t);
	uint64_t bits;
	int st = tsr_zarr_json_exact_int(fv, !is_signed, &bits);
	if (st)
		return tsr_error(TSR_E_FORMAT, "fill_value %g does not fit %s", d, tsr_dtype_name(t));
	if (w < 8) {
		int64_t s = (int64_t)bits;
		int64_t lo = is_signed ? -((int64_t)1 << (8 * w - 1)) : 0;
		int64_t hi = is_signed ? ((int64_t)1 << (8 * w - 1)) - 1 : ((int64_t)1 << (8 * w)) - 1;
		if (s < lo || s > hi)
			return tsr_error(TSR_E_FORMAT, "fill_value %lld does not fit %s", (long long)s,
					 tsr_dtype_name(t));
	}
	for (size_t i = 0; i < w; i++)
		out[i] = (uint8_t)(bits >> (8 * i));
	return TSR_OK;
}
