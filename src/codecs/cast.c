/* cast.c - NumPy's astype between numeric dtypes (bool, integers, float16/32/64), value by value. */
#include <math.h>
#include <string.h>

#include "codecs.h"

/* NumPy casts floats to integers with C casts, which x86-64 compiles to cvttsd2si: a value out
 * of range (or NaN) gives the "integer indefinite" (the smallest integer of the width). Small
 * targets go through 32 bits and keep the low bits; unsigned 32 and 64-bit targets convert
 * values from 2^(w-1) up less 2^(w-1) and flip the top bit back (NumPy 2 on x86-64, checked
 * against it value by value in tests/test_peer_zarr_filters.py). */
static int32_t tsr_cvt32(double x)
{
	return x > -2147483649.0 && x < 2147483648.0 ? (int32_t)x : INT32_MIN;
}

static int64_t tsr_cvt64(double x)
{
	return x >= -9223372036854775808.0 && x < 9223372036854775808.0 ? (int64_t)x : INT64_MIN;
}

/* The bits of the integer of type t that NumPy makes of x. */
static uint64_t tsr_float_to_int_bits(double x, enum tsr_dtype t)
{
	switch (t) {
	case TSR_INT8: case TSR_UINT8: case TSR_INT16: case TSR_UINT16: case TSR_INT32:
		return (uint64_t)(uint32_t)tsr_cvt32(x);
	case TSR_UINT32:
		if (!(x >= 2147483648.0))
			return (uint64_t)(uint32_t)tsr_cvt32(x);
		return (uint64_t)((uint32_t)tsr_cvt32(x - 2147483648.0) ^ 0x80000000u);
	case TSR_INT64:
		return (uint64_t)tsr_cvt64(x);
	default: /* uint64: below 2^63 directly, else 2^63 less and the top bit flipped */
		if (!(x >= 9223372036854775808.0))
			return (uint64_t)tsr_cvt64(x);
		return (uint64_t)tsr_cvt64(x - 9223372036854775808.0) ^ 0x8000000000000000ull;
	}
}

/* One element loaded: exactly as an integer (i/u) or as a float (f, with its single or double
 * value). */
struct tsr_num {
	int is_float, is_unsigned, is_single;
	int64_t i;
	uint64_t u;
	double f;
};

static struct tsr_num tsr_load(const unsigned char *p, enum tsr_dtype t)
{
	struct tsr_num v = {0};
	switch (t) {
	case TSR_BOOL: v.i = p[0] != 0; break;
	case TSR_INT8: v.i = (int8_t)p[0]; break;
	case TSR_UINT8: v.i = p[0]; break;
	case TSR_INT16: { int16_t x; memcpy(&x, p, 2); v.i = x; break; }
	case TSR_UINT16: { uint16_t x; memcpy(&x, p, 2); v.i = x; break; }
	case TSR_INT32: { int32_t x; memcpy(&x, p, 4); v.i = x; break; }
	case TSR_UINT32: { uint32_t x; memcpy(&x, p, 4); v.i = x; break; }
	case TSR_INT64: memcpy(&v.i, p, 8); break;
	case TSR_UINT64: memcpy(&v.u, p, 8); v.is_unsigned = 1; break;
	case TSR_FLOAT16: { uint16_t h; memcpy(&h, p, 2); v.f = tsr_half_to_double(h);
			    v.is_float = 1; v.is_single = 1; break; }
	case TSR_FLOAT32: { float x; memcpy(&x, p, 4); v.f = x; v.is_float = 1; v.is_single = 1;
			    break; }
	default: memcpy(&v.f, p, 8); v.is_float = 1; break;
	}
	return v;
}

static void tsr_store(unsigned char *p, enum tsr_dtype t, struct tsr_num v)
{
	uint64_t bits;
	switch (t) {
	case TSR_BOOL:
		p[0] = v.is_float ? v.f != 0 || isnan(v.f) : v.is_unsigned ? v.u != 0 : v.i != 0;
		return;
	case TSR_FLOAT16: {
		double d = v.is_float ? v.f : v.is_unsigned ? (double)v.u : (double)v.i;
		uint16_t h = tsr_half_from_double(d);
		memcpy(p, &h, 2);
		return;
	}
	case TSR_FLOAT32: {
		/* straight from the integer: one rounding, as C and NumPy convert */
		float f = v.is_float ? (float)v.f : v.is_unsigned ? (float)v.u : (float)v.i;
		memcpy(p, &f, 4);
		return;
	}
	case TSR_FLOAT64: {
		double d = v.is_float ? v.f : v.is_unsigned ? (double)v.u : (double)v.i;
		memcpy(p, &d, 8);
		return;
	}
	default:
		break;
	}
	bits = v.is_float ? tsr_float_to_int_bits(v.f, t) : v.is_unsigned ? v.u : (uint64_t)v.i;
	for (size_t b = 0; b < tsr_dtype_size(t); b++)
		p[b] = (unsigned char)(bits >> (8 * b)); /* little-endian host: low bytes first */
}

int tsr_cast_ok(enum tsr_dtype t)
{
	return t >= TSR_BOOL && t <= TSR_FLOAT64;
}

void tsr_cast(void *dst, enum tsr_dtype to, const void *src, enum tsr_dtype from, size_t n)
{
	size_t wi = tsr_dtype_size(from), wo = tsr_dtype_size(to);
	const unsigned char *s = src;
	unsigned char *d = dst;
	for (size_t i = 0; i < n; i++)
		tsr_store(d + i * wo, to, tsr_load(s + i * wi, from));
}

/* FixedScaleOffset's (enc / scale) + offset, in the precision NumPy picks: float64 for
 * integer (and bool) input, the input's own float type otherwise (scale and offset, Python
 * numbers, are cast to it first); float16 arithmetic runs in float32 and rounds to half. */
void tsr_scale_offset(void *dst, enum tsr_dtype to, const void *src, enum tsr_dtype from,
		      size_t n, double scale, double offset)
{
	size_t wi = tsr_dtype_size(from), wo = tsr_dtype_size(to);
	const unsigned char *s = src;
	unsigned char *d = dst;
	float fs = (float)scale, fo = (float)offset;
	float hs = (float)tsr_half_to_double(tsr_half_from_double(scale));
	float ho = (float)tsr_half_to_double(tsr_half_from_double(offset));
	for (size_t i = 0; i < n; i++) {
		struct tsr_num v = tsr_load(s + i * wi, from);
		struct tsr_num r = {.is_float = 1};
		if (from == TSR_FLOAT32) {
			float x = (float)v.f / fs;
			x = x + fo;
			r.f = x;
		} else if (from == TSR_FLOAT16) {
			float x = (float)v.f / hs;
			x = (float)tsr_half_to_double(tsr_half_from_double(x));
			x = x + ho;
			r.f = tsr_half_to_double(tsr_half_from_double(x));
		} else {
			double x = v.is_float ? v.f : v.is_unsigned ? (double)v.u : (double)v.i;
			r.f = x / scale + offset;
		}
		tsr_store(d + i * wo, to, r);
	}
}
