/* dtype.c - element types: sizes, names, NPY descriptors. */
#include <math.h>
#include <string.h>

#include "internal.h"

static const struct {
	size_t size;
	const char *name, *descr;
	int is_float, is_signed;
} tsr_dtypes[] = {
	[TSR_DTYPE_INVALID] = {0, "invalid", "", 0, 0},
	[TSR_BOOL] = {1, "bool", "|b1", 0, 0},
	[TSR_INT8] = {1, "int8", "|i1", 0, 1},
	[TSR_INT16] = {2, "int16", "<i2", 0, 1},
	[TSR_INT32] = {4, "int32", "<i4", 0, 1},
	[TSR_INT64] = {8, "int64", "<i8", 0, 1},
	[TSR_UINT8] = {1, "uint8", "|u1", 0, 0},
	[TSR_UINT16] = {2, "uint16", "<u2", 0, 0},
	[TSR_UINT32] = {4, "uint32", "<u4", 0, 0},
	[TSR_UINT64] = {8, "uint64", "<u8", 0, 0},
	[TSR_FLOAT16] = {2, "float16", "<f2", 1, 1},
	[TSR_FLOAT32] = {4, "float32", "<f4", 1, 1},
	[TSR_FLOAT64] = {8, "float64", "<f8", 1, 1},
	[TSR_COMPLEX64] = {8, "complex64", "<c8", 1, 1},
	[TSR_COMPLEX128] = {16, "complex128", "<c16", 1, 1},
	[TSR_DATETIME64] = {8, "datetime64", "<M8", 0, 1},
	[TSR_TIMEDELTA64] = {8, "timedelta64", "<m8", 0, 1},
};

static int tsr_dtype_ok(enum tsr_dtype t)
{
	return t > TSR_DTYPE_INVALID && t <= TSR_TIMEDELTA64;
}

int tsr_dtype_is_raw(enum tsr_dtype t)
{
	return (int)t > TSR_DTYPE_RAW && (int)t <= TSR_DTYPE_RAW_LAST;
}

size_t tsr_dtype_size(enum tsr_dtype t)
{
	if (tsr_dtype_is_raw(t))
		return (size_t)((int)t - TSR_DTYPE_RAW);
	return tsr_dtype_ok(t) ? tsr_dtypes[t].size : 0;
}

size_t tsr_dtype_align(enum tsr_dtype t)
{
	if (tsr_dtype_is_raw(t) || !tsr_dtype_ok(t))
		return 1;
	return t == TSR_COMPLEX64 || t == TSR_COMPLEX128 ? tsr_dtypes[t].size / 2 : tsr_dtypes[t].size;
}

const char *tsr_dtype_name(enum tsr_dtype t)
{
	if (tsr_dtype_is_raw(t))
		return "raw";
	return tsr_dtype_ok(t) ? tsr_dtypes[t].name : "invalid";
}

const char *tsr_dtype_npy_descr(enum tsr_dtype t)
{
	return tsr_dtype_ok(t) ? tsr_dtypes[t].descr : ""; /* raw: only the array knows */
}

int tsr_dtype_is_float(enum tsr_dtype t)
{
	return tsr_dtype_ok(t) && tsr_dtypes[t].is_float;
}

int tsr_dtype_is_signed(enum tsr_dtype t)
{
	return tsr_dtype_ok(t) && tsr_dtypes[t].is_signed;
}

/* IEEE half from a double, rounding to nearest even (as NumPy's float16 cast does). */
uint16_t tsr_half_from_double(double v)
{
	uint64_t b;
	memcpy(&b, &v, 8);
	uint16_t sign = (uint16_t)((b >> 48) & 0x8000);
	int e = (int)((b >> 52) & 0x7ff);
	uint64_t m = b & 0xfffffffffffffull;
	if (e == 0x7ff)
		return (uint16_t)(sign | 0x7c00 | (m ? 0x200 | (uint16_t)(m >> 42) : 0));
	int ue = e - 1023;
	if (ue > 15)
		return (uint16_t)(sign | 0x7c00);
	uint64_t mant;
	int shift;
	uint32_t base;
	if (ue >= -14) {
		mant = m;       /* 52 fraction bits to 10 */
		shift = 42;
		base = (uint32_t)(ue + 15) << 10;
	} else {
		mant = m | (1ull << 52); /* subnormal: units of 2^-24 */
		shift = 28 - ue;
		base = 0;
		if (shift > 63)
			return sign;
	}
	uint64_t r = mant >> shift, rem = mant & ((1ull << shift) - 1), half = 1ull << (shift - 1);
	if (rem > half || (rem == half && (r & 1)))
		r++;
	uint32_t out = base + (uint32_t)r; /* a carry moves into the exponent, as it should */
	if (out >= 0x7c00)
		return (uint16_t)(sign | 0x7c00);
	return (uint16_t)(sign | out);
}

double tsr_half_to_double(uint16_t h)
{
	int e = (h >> 10) & 0x1f;
	double m = h & 0x3ff, v;
	if (e == 0x1f)
		v = m ? NAN : INFINITY;
	else if (e == 0)
		v = ldexp(m, -24);
	else
		v = ldexp(m + 1024, e - 25);
	return (h & 0x8000) ? -v : v;
}

int tsr_dtype_parse(const char *s, enum tsr_dtype *dtype_ret, char *order_ret)
{
	const char *p = s;
	char order = 0;
	if (*p == '<' || *p == '>' || *p == '|' || *p == '=')
		order = *p++;
	for (int t = TSR_BOOL; t <= TSR_COMPLEX128; t++) {
		const char *d = tsr_dtypes[t].descr;
		/* "float32" (names take no byte order), or "f4" / "<f4" (the kind and size of the
		 * descr, whatever its own order character) */
		if ((!order && !strcmp(p, tsr_dtypes[t].name)) || !strcmp(p, d + 1) ||
		    (t == TSR_BOOL && !strcmp(p, "?"))) {
			*dtype_ret = (enum tsr_dtype)t;
			*order_ret = order;
			return TSR_OK;
		}
	}
	/* (bytes, strings, records and datetimes are read where a file names them; a caller
	 * names numbers only) */
	return tsr_error(TSR_E_INVALID_ARG, "dtype '%s': a caller's dtype is a number's or bool "
			 "(NumPy's spelling: '<f4', 'i2', 'uint8', 'float64', 'bool', ...); bytes, "
			 "string, record and datetime dtypes are read only as a file names them", s);
}
