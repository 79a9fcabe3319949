/* bits_types.c - Zarr data types NumPy has no dtype for (bfloat16, float8_*): read as their bits,
 * under the dtype the caller names. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zarr.h"

/* How each type's bits are laid out (ml_dtypes' and tensorstore's names): exponent and
 * mantissa bits, the exponent's bias, and its specials: IEEE-like (the top exponent is inf and
 * NaN), "fn" (no inf; the top exponent with an all-ones mantissa is NaN) or "fnuz" (no inf, no
 * negative zero; 0x80 is NaN), or e8m0 (OCP MX's scale: no sign, no mantissa, no zero, no inf;
 * 2^(E - 127), 0xff NaN). bfloat16 is float32's top half. */
enum { TSR_BITS_IEEE, TSR_BITS_FN, TSR_BITS_FNUZ, TSR_BITS_E8M0 };
static const struct tsr_bits_type {
	const char *name;
	int ebits, mbits, bias, kind;
} tsr_bits_types[] = {
	{"bfloat16", 8, 7, 127, TSR_BITS_IEEE},
	{"float8_e3m4", 3, 4, 3, TSR_BITS_IEEE},
	{"float8_e4m3", 4, 3, 7, TSR_BITS_IEEE},
	{"float8_e4m3fn", 4, 3, 7, TSR_BITS_FN},
	{"float8_e4m3fnuz", 4, 3, 8, TSR_BITS_FNUZ},
	{"float8_e4m3b11fnuz", 4, 3, 11, TSR_BITS_FNUZ},
	{"float8_e5m2", 5, 2, 15, TSR_BITS_IEEE},
	{"float8_e5m2fnuz", 5, 2, 16, TSR_BITS_FNUZ},
	{"float8_e8m0fnu", 8, 0, 127, TSR_BITS_E8M0},
};

static const struct tsr_bits_type *tsr_bits_find(const char *name)
{
	for (size_t i = 0; i < sizeof(tsr_bits_types) / sizeof(tsr_bits_types[0]); i++)
		if (!strcmp(name, tsr_bits_types[i].name))
			return &tsr_bits_types[i];
	return NULL;
}

int tsr_zarr_bits_type(const char *name, struct tsr_zarr_meta *m)
{
	const struct tsr_bits_type *t = name ? tsr_bits_find(name) : NULL;
	if (!t)
		return 0;
	m->bits_of = t->name;
	m->kind = 0;
	m->dtype = t->ebits + t->mbits == 15 ? TSR_UINT16 : TSR_UINT8;
	return 1;
}

/* v's bits in type t where v is exactly one of its finite values; -1 where it is not. */
static int64_t tsr_bits_encode(const struct tsr_bits_type *t, double v)
{
	if (t->kind == TSR_BITS_E8M0) { /* a power of two: 2^(E - 127), E in 0..254 */
		int e;
		if (!(v > 0) || !isfinite(v) || frexp(v, &e) != 0.5)
			return -1;
		int64_t E = (int64_t)e - 1 + t->bias;
		return E >= 0 && E <= 254 ? E : -1;
	}
	int nbits = 1 + t->ebits + t->mbits, sign = signbit(v) != 0;
	int64_t s = (int64_t)sign << (nbits - 1);
	if (v == 0)
		return t->kind == TSR_BITS_FNUZ ? 0 : s; /* (fnuz: 0x80 is NaN, not -0) */
	if (!isfinite(v))
		return -1;
	int e;
	double f = frexp(fabs(v), &e); /* |v| = f * 2^e, f in [0.5, 1) */
	int64_t top = (1 << t->ebits) - 1, E = (int64_t)e - 1 + t->bias, field;
	if (E >= 1) { /* normal: 1.m * 2^(E - bias) */
		double m = (2 * f - 1) * (double)(1 << t->mbits);
		if (m != floor(m))
			return -1;
		field = (E << t->mbits) | (int64_t)m;
	} else { /* subnormal: m * 2^(1 - bias - mbits) */
		double m = ldexp(fabs(v), t->bias - 1 + t->mbits);
		if (m != floor(m) || m >= (double)(1 << t->mbits))
			return -1;
		field = (int64_t)m;
	}
	int64_t most = t->kind == TSR_BITS_IEEE ? (top << t->mbits) - 1 /* below inf */
		       : t->kind == TSR_BITS_FN ? (top << t->mbits) + (1 << t->mbits) - 2
						: (top << t->mbits) + (1 << t->mbits) - 1;
	return field > most ? -1 : s | field;
}

/* The bits of "NaN", "Infinity" or "-Infinity" in type t, as ml_dtypes converts NaN and the
 * infinities and tensorstore reads the fill back: IEEE-like types their quiet NaN and their
 * infinities; a type without infinities takes them as its NaN (fn: with the sign). -1 for any
 * other text. */
static int64_t tsr_bits_special(const struct tsr_bits_type *t, const char *s)
{
	int nan = !strcmp(s, "NaN"), neg = !strcmp(s, "-Infinity");
	if (!nan && !neg && strcmp(s, "Infinity"))
		return -1;
	int64_t sign = (int64_t)1 << (t->ebits + t->mbits), top = ((1 << t->ebits) - 1) << t->mbits;
	switch (t->kind) {
	case TSR_BITS_IEEE:
		return nan ? top | 1 << (t->mbits - 1) : top | (neg ? sign : 0);
	case TSR_BITS_FN:
		return top | ((1 << t->mbits) - 1) | (neg ? sign : 0);
	case TSR_BITS_FNUZ:
		return sign; /* 0x80 */
	default:
		return 0xff; /* e8m0 */
	}
}

int tsr_zarr_bits_fill(const cJSON *fv, struct tsr_zarr_meta *m)
{
	const struct tsr_bits_type *t = tsr_bits_find(m->bits_of);
	size_t w = tsr_dtype_size(m->dtype);
	int64_t bits = -1;
	memset(m->fill, 0, sizeof(m->fill));
	if (!fv || cJSON_IsNull(fv))
		return TSR_OK;
	if (cJSON_IsString(fv) && !strncmp(fv->valuestring, "0x", 2)) {
		char *end = NULL;
		unsigned long long u = strtoull(fv->valuestring + 2, &end, 16);
		if (end && !*end && end != fv->valuestring + 2 && u < (1ull << (8 * w)))
			bits = (int64_t)u;
	} else if (cJSON_IsNumber(fv)) {
		bits = tsr_bits_encode(t, fv->valuedouble);
	} else if (cJSON_IsString(fv)) {
		bits = tsr_bits_special(t, fv->valuestring);
	}
	if (bits < 0)
		return tsr_error(TSR_E_UNSUPPORTED, "fill_value of a %s array: tessera takes a number "
				 "it holds exactly, \"NaN\", \"Infinity\", \"-Infinity\", or its "
				 "bits as \"0x...\"", t->name);
	for (size_t i = 0; i < w; i++)
		m->fill[i] = (uint8_t)((uint64_t)bits >> (8 * i));
	return TSR_OK;
}
