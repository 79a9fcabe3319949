/* filters.c - undoes numcodecs filters (Delta, FixedScaleOffset, AsType, Quantize, Shuffle,
 * PackBits) as their decode does with NumPy. */
#include <stdlib.h>
#include <string.h>

#include "codecs.h"

/* Scratch slots: 6 and 7 hold each filter's output in turn, 8 a byte-swapped input. */
static void *tsr_filter_slot(struct tsr_scratch *s, int i, size_t n)
{
	if (s->cap[i] < n) {
		free(s->buf[i]);
		s->buf[i] = malloc(n + 64);
		s->cap[i] = s->buf[i] ? n : 0;
	}
	return s->buf[i];
}

/* A running sum in the output type: numpy.cumsum(enc, out=dec) casts each element to dec's
 * type and adds there (integers wrap). */
static void tsr_cumsum(void *p, enum tsr_dtype t, size_t n)
{
#define TSR_CUMSUM(T)                                                      \
	do {                                                               \
		T *v = p;                                                  \
		for (size_t i = 1; i < n; i++)                             \
			v[i] = (T)(v[i] + v[i - 1]);                       \
	} while (0)
	switch (tsr_dtype_size(t)) {
	case 1: TSR_CUMSUM(uint8_t); break;
	case 2:
		if (t == TSR_FLOAT16) {
			uint16_t *v = p;
			for (size_t i = 1; i < n; i++) /* NumPy adds halves in float32 */
				v[i] = tsr_half_from_double((float)tsr_half_to_double(v[i]) +
							    (float)tsr_half_to_double(v[i - 1]));
		} else {
			TSR_CUMSUM(uint16_t);
		}
		break;
	case 4:
		if (t == TSR_FLOAT32)
			TSR_CUMSUM(float);
		else
			TSR_CUMSUM(uint32_t);
		break;
	default:
		if (t == TSR_FLOAT64)
			TSR_CUMSUM(double);
		else
			TSR_CUMSUM(uint64_t);
		break;
	}
#undef TSR_CUMSUM
}

/* Bytes of one element as numcodecs' Shuffle lays them: byte i of element j at i*count + j. */
static void tsr_unshuffle_bytes(unsigned char *dst, const unsigned char *src, size_t n, size_t es)
{
	size_t count = n / es;
	for (size_t i = 0; i < es; i++)
		for (size_t j = 0; j < count; j++)
			dst[j * es + i] = src[i * count + j];
}

static int tsr_packbits_decode(const struct tsr_chunk_ref *ref, const unsigned char *src,
			       size_t n, struct tsr_scratch *s, int slot, void **out, size_t *out_n)
{
	if (n == 0)
		return tsr_error(TSR_E_CORRUPT, "%s: packbits: empty chunk (no padding count)",
				 ref->codec_name);
	size_t pad = src[0], bits = 8 * (n - 1);
	if (pad > 7 || pad > bits)
		return tsr_error(TSR_E_CORRUPT, "%s: packbits: %zu padding bits", ref->codec_name, pad);
	unsigned char *d = tsr_filter_slot(s, slot, bits);
	if (!d)
		return tsr_error(TSR_E_NOMEM, "out of memory for %zu bytes", bits);
	for (size_t b = 0; b < bits - pad; b++)
		d[b] = (src[1 + b / 8] >> (7 - b % 8)) & 1; /* numpy.unpackbits: MSB first */
	*out = d;
	*out_n = bits - pad;
	return TSR_OK;
}

int tsr_filters_decode(const struct tsr_chunk_ref *ref, void *src, size_t n,
		       struct tsr_scratch *s, void **out, size_t *out_n)
{
	for (int k = 0; k < ref->nfilter; k++) {
		const struct tsr_filter *f = &ref->filter[k];
		int slot = 6 + (k & 1);
		if (f->id == TSR_FILTER_PACKBITS) {
			int st = tsr_packbits_decode(ref, src, n, s, slot, &src, &n);
			if (st)
				return st;
			continue;
		}
		if (f->id == TSR_FILTER_SHUFFLE) {
			size_t es = (size_t)f->elementsize;
			void *d = tsr_filter_slot(s, slot, n);
			if (!d)
				return tsr_error(TSR_E_NOMEM, "out of memory for %zu bytes", n);
			if (es <= 1) {
				memcpy(d, src, n);
			} else if (n % es) {
				return tsr_error(TSR_E_CORRUPT, "%s: shuffle: %zu bytes are not whole "
						 "elements of %zu", ref->codec_name, n, es);
			} else {
				tsr_unshuffle_bytes(d, src, n, es);
			}
			src = d;
			continue;
		}
		size_t wi = tsr_dtype_size(f->in), wo = tsr_dtype_size(f->out);
		if (!wi || n % wi)
			return tsr_error(TSR_E_CORRUPT, "%s: %zu bytes are not whole %s elements",
					 ref->codec_name, n, tsr_dtype_name(f->in));
		size_t count = n / wi;
		const void *in = src;
		if (f->in_be && wi > 1) {
			void *sw = tsr_filter_slot(s, 8, n);
			if (!sw)
				return tsr_error(TSR_E_NOMEM, "out of memory for %zu bytes", n);
			tsr_bswap_copy(sw, src, count, (int)wi);
			in = sw;
		}
		void *d = tsr_filter_slot(s, slot, count * wo);
		if (!d)
			return tsr_error(TSR_E_NOMEM, "out of memory for %zu bytes", count * wo);
		if (f->id == TSR_FILTER_SCALE_OFFSET) {
			tsr_scale_offset(d, f->out, in, f->in, count, f->scale, f->offset);
		} else {
			tsr_cast(d, f->out, in, f->in, count);
			if (f->id == TSR_FILTER_DELTA)
				tsr_cumsum(d, f->out, count);
		}
		if (f->out_be && wo > 1)
			tsr_bswap_inplace(d, count, (int)wo);
		src = d;
		n = count * wo;
	}
	*out = src;
	*out_n = n;
	return TSR_OK;
}
