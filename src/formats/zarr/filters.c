/* filters.c - numcodecs filters in Zarr metadata (v2 "filters", v3 "numcodecs.*" codecs): their
 * configurations into the chunk's filter steps. */
#include <stdio.h>
#include <string.h>

#include "../../codecs/codecs.h"
#include "zarr.h"

/* A dtype as numcodecs takes it (np.dtype of a string): "<f8", "|u1", "f8", "float64". */
static int tsr_zarr_np_dtype(const cJSON *item, const char *filter, const char *key,
			     enum tsr_dtype *t, int *be)
{
	if (!cJSON_IsString(item))
		return tsr_error(TSR_E_FORMAT, "filter '%s': '%s' is not a dtype string", filter, key);
	const char *s = item->valuestring;
	*be = 0;
	for (enum tsr_dtype k = TSR_BOOL; k <= TSR_COMPLEX128; k++) {
		if (!strcmp(s, tsr_dtype_name(k))) {
			*t = k;
			return TSR_OK;
		}
	}
	char buf[16];
	if (strlen(s) + 2 > sizeof(buf))
		return tsr_error(TSR_E_UNSUPPORTED, "filter '%s': %s '%.40s' is not supported", filter,
				 key, s);
	snprintf(buf, sizeof(buf), "%s%s", strchr("<>|=", s[0]) && s[0] ? "" : "<", s);
	cJSON tmp = {0};
	tmp.type = cJSON_String;
	tmp.valuestring = buf;
	int st = tsr_zarr_v2_dtype(&tmp, t, be);
	if (st || !tsr_cast_ok(*t)) {
		tsr_error_clear();
		return tsr_error(TSR_E_UNSUPPORTED, "filter '%s': %s '%s' is not supported (bool, "
				 "integers, float16/32/64)", filter, key, s);
	}
	return TSR_OK;
}

/* A number parameter (scale, offset). */
static int tsr_zarr_filter_number(const cJSON *conf, const char *filter, const char *key,
				  double *v)
{
	const cJSON *x = conf ? cJSON_GetObjectItemCaseSensitive(conf, key) : NULL;
	if (!cJSON_IsNumber(x))
		return tsr_error(TSR_E_FORMAT, "filter '%s': '%s' is not a number", filter, key);
	*v = x->valuedouble;
	return TSR_OK;
}

/* in (and out, when its key is given) of a filter; `out` defaults to `in`. */
static int tsr_zarr_filter_types(const cJSON *conf, const char *filter, const char *in_key,
				 const char *out_key, struct tsr_filter *f)
{
	int be, st;
	const cJSON *in = conf ? cJSON_GetObjectItemCaseSensitive(conf, in_key) : NULL;
	const cJSON *out = conf && out_key ? cJSON_GetObjectItemCaseSensitive(conf, out_key) : NULL;
	if ((st = tsr_zarr_np_dtype(in, filter, in_key, &f->in, &be)))
		return st;
	f->in_be = (uint8_t)(be && tsr_dtype_size(f->in) > 1);
	f->out = f->in;
	f->out_be = f->in_be;
	if (out && !cJSON_IsNull(out)) {
		if ((st = tsr_zarr_np_dtype(out, filter, out_key, &f->out, &be)))
			return st;
		f->out_be = (uint8_t)(be && tsr_dtype_size(f->out) > 1);
	}
	return TSR_OK;
}

int tsr_zarr_filter_parse(const char *id, const cJSON *conf, struct tsr_filter *f)
{
	int st;
	memset(f, 0, sizeof(*f));
	if (!strcmp(id, "delta")) {
		/* Delta(dtype, astype): astype is what is stored, dtype what decoding makes */
		f->id = TSR_FILTER_DELTA;
		if ((st = tsr_zarr_filter_types(conf, id, "dtype", NULL, f)))
			return st;
		const cJSON *as = conf ? cJSON_GetObjectItemCaseSensitive(conf, "astype") : NULL;
		if (as && !cJSON_IsNull(as)) {
			struct tsr_filter g;
			if ((st = tsr_zarr_filter_types(conf, id, "astype", NULL, &g)))
				return st;
			f->in = g.in;
			f->in_be = g.in_be;
		}
		/* cumsum in the decoded type: summing bools is or-ing them, not supported */
		if (f->out == TSR_BOOL)
			return tsr_error(TSR_E_UNSUPPORTED, "filter 'delta' of bool values");
		return TSR_OK;
	}
	if (!strcmp(id, "fixedscaleoffset")) {
		/* astype (what is stored) defaults to dtype (what decoding makes) */
		f->id = TSR_FILTER_SCALE_OFFSET;
		if ((st = tsr_zarr_filter_types(conf, id, "dtype", NULL, f)))
			return st;
		const cJSON *as = conf ? cJSON_GetObjectItemCaseSensitive(conf, "astype") : NULL;
		if (as && !cJSON_IsNull(as)) {
			struct tsr_filter g;
			if ((st = tsr_zarr_filter_types(conf, id, "astype", NULL, &g)))
				return st;
			f->in = g.in;
			f->in_be = g.in_be;
		}
		if ((st = tsr_zarr_filter_number(conf, id, "scale", &f->scale)) ||
		    (st = tsr_zarr_filter_number(conf, id, "offset", &f->offset)))
			return st;
		return TSR_OK;
	}
	if (!strcmp(id, "astype")) {
		f->id = TSR_FILTER_ASTYPE;
		return tsr_zarr_filter_types(conf, id, "encode_dtype", "decode_dtype", f);
	}
	if (!strcmp(id, "quantize")) {
		/* lossy on write; decoding casts astype (what is stored) to dtype */
		f->id = TSR_FILTER_ASTYPE;
		if ((st = tsr_zarr_filter_types(conf, id, "dtype", NULL, f)))
			return st;
		struct tsr_filter g = *f;
		const cJSON *as = conf ? cJSON_GetObjectItemCaseSensitive(conf, "astype") : NULL;
		if (as && !cJSON_IsNull(as)) {
			if ((st = tsr_zarr_filter_types(conf, id, "astype", NULL, &g)))
				return st;
			f->in = g.in;
			f->in_be = g.in_be;
		}
		return TSR_OK;
	}
	if (!strcmp(id, "shuffle")) {
		f->id = TSR_FILTER_SHUFFLE;
		const cJSON *es = conf ? cJSON_GetObjectItemCaseSensitive(conf, "elementsize") : NULL;
		int64_t v = 4; /* numcodecs' default */
		if (es && tsr_zarr_json_int(es, 0, 1 << 20, &v))
			return tsr_error(TSR_E_FORMAT, "filter 'shuffle': 'elementsize' is not an "
					 "integer in [0, 2^20]");
		f->elementsize = (int)v;
		return TSR_OK;
	}
	if (!strcmp(id, "packbits")) {
		f->id = TSR_FILTER_PACKBITS;
		f->in = TSR_UINT8;
		f->out = TSR_BOOL;
		return TSR_OK;
	}
	if (!strcmp(id, "bitround"))
		return 1; /* lossy on write only: decoding returns the bytes unchanged */
	if (!strcmp(id, "vlen-utf8") || !strcmp(id, "vlen-bytes") || !strcmp(id, "vlen-array") ||
	    !strcmp(id, "json2") || !strcmp(id, "msgpack2") || !strcmp(id, "pickle"))
		return tsr_error(TSR_E_UNSUPPORTED, "filter '%s': variable-length and object "
				 "elements are not supported", id);
	return tsr_error(TSR_E_UNSUPPORTED, "filter '%s' is not supported (supported filters: "
			 "delta, fixedscaleoffset, astype, quantize, shuffle, packbits, bitround, "
			 "crc32, adler32, fletcher32, jenkins_lookup3, and the compressors blosc, zstd, "
			 "gzip, zlib, lz4, bz2, lzma)", id);
}

int tsr_zarr_filter_add(struct tsr_zarr_meta *m, const struct tsr_filter *f, int at_front)
{
	if (m->nfilter >= TSR_MAX_FILTERS)
		return tsr_error(TSR_E_UNSUPPORTED, "more than %d numcodecs filters", TSR_MAX_FILTERS);
	if (at_front) {
		memmove(&m->filter[1], &m->filter[0], sizeof(m->filter[0]) * (size_t)m->nfilter);
		m->filter[0] = *f;
	} else {
		m->filter[m->nfilter] = *f;
	}
	m->nfilter++;
	return TSR_OK;
}

void tsr_zarr_filter_label(const char *id, char *label, size_t cap)
{
	size_t len = strlen(label);
	if (len + 1 < cap)
		snprintf(label + len, cap - len, "+%s", id);
}
