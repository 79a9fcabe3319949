/* values.c - stored elements into output values: byte order, BZERO offsets, BSCALE/BZERO
 * scaling with BLANK, and FITS dequantization. */
#include <math.h>
#include <string.h>

#include "codecs.h"

/* Scaling must round like NumPy (astropy scales in the output dtype, one rounding per
 * operation): the build compiles with -ffp-contract=off so no fused multiply-adds appear. */

void tsr_bswap_inplace(void *p, size_t n, int w)
{
	switch (w) {
	case 2: {
		uint16_t *q = p;
		for (size_t i = 0; i < n; i++)
			q[i] = __builtin_bswap16(q[i]);
		break;
	}
	case 4: {
		uint32_t *q = p;
		for (size_t i = 0; i < n; i++)
			q[i] = __builtin_bswap32(q[i]);
		break;
	}
	case 8: {
		uint64_t *q = p;
		for (size_t i = 0; i < n; i++)
			q[i] = __builtin_bswap64(q[i]);
		break;
	}
	default:
		break;
	}
}

void tsr_bswap_copy(void *dst, const void *src, size_t n, int w)
{
	switch (w) {
	case 2: {
		uint16_t *d = dst;
		const uint16_t *s = src;
		for (size_t i = 0; i < n; i++)
			d[i] = __builtin_bswap16(s[i]);
		break;
	}
	case 4: {
		uint32_t *d = dst;
		const uint32_t *s = src;
		for (size_t i = 0; i < n; i++)
			d[i] = __builtin_bswap32(s[i]);
		break;
	}
	case 8: {
		uint64_t *d = dst;
		const uint64_t *s = src;
		for (size_t i = 0; i < n; i++)
			d[i] = __builtin_bswap64(s[i]);
		break;
	}
	default:
		memcpy(dst, src, n * (size_t)w);
		break;
	}
}

#define TSR_SCALE_LOOP(IN_T, OUT_T)                                                      \
	do {                                                                             \
		const IN_T *s = in;                                                      \
		OUT_T *d = out;                                                          \
		const OUT_T sc = (OUT_T)xf->scale, z = (OUT_T)xf->zero;                  \
		const IN_T blank = (IN_T)xf->blank;                                      \
		for (size_t i = 0; i < n; i++) {                                         \
			OUT_T v = (OUT_T)s[i];                                           \
			if (xf->scale != 1.0)                                            \
				v = v * sc;                                              \
			if (xf->zero != 0.0)                                             \
				v = v + z;                                               \
			d[i] = (xf->has_blank && s[i] == blank) ? (OUT_T)NAN : v;        \
		}                                                                        \
	} while (0)

#define TSR_SCALE_OUT(OUT_T)                                                             \
	do {                                                                             \
		switch (in_type) {                                                       \
		case TSR_UINT8: TSR_SCALE_LOOP(uint8_t, OUT_T); break;                   \
		case TSR_INT8: TSR_SCALE_LOOP(int8_t, OUT_T); break;                     \
		case TSR_INT16: TSR_SCALE_LOOP(int16_t, OUT_T); break;                   \
		case TSR_INT32: TSR_SCALE_LOOP(int32_t, OUT_T); break;                   \
		case TSR_INT64: TSR_SCALE_LOOP(int64_t, OUT_T); break;                   \
		case TSR_FLOAT32: TSR_SCALE_LOOP(float, OUT_T); break;                   \
		case TSR_FLOAT64: TSR_SCALE_LOOP(double, OUT_T); break;                  \
		default: return tsr_error(TSR_E_INTERNAL, "scale: stored type %s",      \
					  tsr_dtype_name(in_type));                      \
		}                                                                        \
	} while (0)

int tsr_values_apply(void *out, const struct tsr_xform *xf, void *in, enum tsr_dtype in_type,
		     int in_be, size_t n, int32_t *tmp)
{
	int w = (int)tsr_dtype_size(in_type);
	if (xf->kind == TSR_XF_COPY) {
		if (tsr_dtype_size(xf->out) != (size_t)w)
			return tsr_error(TSR_E_INTERNAL, "copy from %s to %s", tsr_dtype_name(in_type),
					 tsr_dtype_name(xf->out));
		if (in_be && (in_type == TSR_COMPLEX64 || in_type == TSR_COMPLEX128))
			tsr_bswap_copy(out, in, 2 * n, w / 2); /* each part swaps alone */
		else if (in_be)
			tsr_bswap_copy(out, in, n, w);
		else if (out != in)
			memcpy(out, in, n * (size_t)w);
		return TSR_OK;
	}
	if (in_be)
		tsr_bswap_inplace(in, n, w);
	switch (xf->kind) {
	case TSR_XF_OFFSET:
		/* Same width in and out; unsigned arithmetic wraps exactly as BZERO intends. */
		if (tsr_dtype_size(xf->out) != (size_t)w)
			return tsr_error(TSR_E_INTERNAL, "offset from %s to %s",
					 tsr_dtype_name(in_type), tsr_dtype_name(xf->out));
		switch (w) {
		case 1: {
			const uint8_t *s = in;
			uint8_t *d = out, o = (uint8_t)xf->offset;
			for (size_t i = 0; i < n; i++)
				d[i] = (uint8_t)(s[i] + o);
			break;
		}
		case 2: {
			const uint16_t *s = in;
			uint16_t *d = out, o = (uint16_t)xf->offset;
			for (size_t i = 0; i < n; i++)
				d[i] = (uint16_t)(s[i] + o);
			break;
		}
		case 4: {
			const uint32_t *s = in;
			uint32_t *d = out, o = (uint32_t)xf->offset;
			for (size_t i = 0; i < n; i++)
				d[i] = s[i] + o;
			break;
		}
		default: {
			const uint64_t *s = in;
			uint64_t *d = out, o = xf->offset;
			for (size_t i = 0; i < n; i++)
				d[i] = s[i] + o;
			break;
		}
		}
		return TSR_OK;
	case TSR_XF_SCALE:
		if (xf->out == TSR_FLOAT32)
			TSR_SCALE_OUT(float);
		else if (xf->out == TSR_FLOAT64)
			TSR_SCALE_OUT(double);
		else
			return tsr_error(TSR_E_INTERNAL, "scale to %s", tsr_dtype_name(xf->out));
		return TSR_OK;
	case TSR_XF_DEQUANT: {
		const int32_t *q = in;
		if (in_type != TSR_INT32) {
			/* 8/16-bit quantized tiles: widen; CFITSIO never zero-tests these. */
			for (size_t i = 0; i < n; i++) {
				switch (in_type) {
				case TSR_UINT8: tmp[i] = ((const uint8_t *)in)[i]; break;
				case TSR_INT16: tmp[i] = ((const int16_t *)in)[i]; break;
				default: return tsr_error(TSR_E_FORMAT, "quantized tile of %s values",
							  tsr_dtype_name(in_type));
				}
			}
			q = tmp;
		}
		tsr_dequantize(out, xf->out, q, n, xf->scale, xf->zero, xf->dither, xf->dither_row,
			       xf->has_blank, xf->blank, in_type == TSR_INT32);
		return TSR_OK;
	}
	default:
		return tsr_error(TSR_E_INTERNAL, "unknown value transform %d", (int)xf->kind);
	}
}

static int64_t tsr_load_int(const void *p, enum tsr_dtype t, size_t i)
{
	switch (t) {
	case TSR_UINT8: return ((const uint8_t *)p)[i];
	case TSR_INT8: return ((const int8_t *)p)[i];
	case TSR_INT16: return ((const int16_t *)p)[i];
	case TSR_UINT16: return ((const uint16_t *)p)[i];
	case TSR_INT32: return ((const int32_t *)p)[i];
	case TSR_UINT32: return ((const uint32_t *)p)[i];
	default: return ((const int64_t *)p)[i];
	}
}

int tsr_int_convert(void *dst, enum tsr_dtype dst_type, const void *src, enum tsr_dtype src_type,
		    size_t n)
{
	int64_t lo, hi;
	switch (dst_type) {
	case TSR_UINT8: lo = 0; hi = UINT8_MAX; break;
	case TSR_INT16: lo = INT16_MIN; hi = INT16_MAX; break;
	case TSR_UINT16: lo = 0; hi = UINT16_MAX; break;
	case TSR_INT32: lo = INT32_MIN; hi = INT32_MAX; break;
	case TSR_INT64: lo = INT64_MIN; hi = INT64_MAX; break;
	default: return tsr_error(TSR_E_INTERNAL, "integer conversion to %s", tsr_dtype_name(dst_type));
	}
	for (size_t i = 0; i < n; i++) {
		int64_t v = tsr_load_int(src, src_type, i);
		if (v < lo || v > hi)
			return tsr_error(TSR_E_CORRUPT, "pixel %zu = %lld does not fit %s", i, (long long)v,
					 tsr_dtype_name(dst_type));
		switch (dst_type) {
		case TSR_UINT8: ((uint8_t *)dst)[i] = (uint8_t)v; break;
		case TSR_INT16: ((int16_t *)dst)[i] = (int16_t)v; break;
		case TSR_UINT16: ((uint16_t *)dst)[i] = (uint16_t)v; break;
		case TSR_INT32: ((int32_t *)dst)[i] = (int32_t)v; break;
		default: ((int64_t *)dst)[i] = v; break;
		}
	}
	return TSR_OK;
}
