/* v2.c - Zarr v2 array metadata (.zarray): shape, chunks, dtype, order, compressor, filters. */
#include <stdio.h>
#include <string.h>

#include "zarr.h"

/* numcodecs compressors we decode, by id. */
static const struct {
	const char *id;
	enum tsr_codec_id codec;
} tsr_zarr_v2_compressors[] = {
	{"blosc", TSR_CODEC_BLOSC}, {"zstd", TSR_CODEC_ZSTD}, {"gzip", TSR_CODEC_GZIP},
	{"zlib", TSR_CODEC_ZLIB},   {"lz4", TSR_CODEC_LZ4},   {"bz2", TSR_CODEC_BZ2},
	{"lzma", TSR_CODEC_LZMA},
};

static int tsr_zarr_v2_codec(const char *id, enum tsr_codec_id *codec_ret)
{
	for (size_t i = 0; i < sizeof(tsr_zarr_v2_compressors) / sizeof(tsr_zarr_v2_compressors[0]); i++) {
		if (!strcmp(id, tsr_zarr_v2_compressors[i].id)) {
			*codec_ret = tsr_zarr_v2_compressors[i].codec;
			return 1;
		}
	}
	return 0;
}

static const char *tsr_zarr_id(const cJSON *codec)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(codec, "id");
	return cJSON_IsString(id) ? id->valuestring : NULL;
}

/* One more bytes step, its parameters from its object c. */
static int tsr_zarr_add_pre(struct tsr_zarr_meta *m, const char *id, enum tsr_codec_id codec,
			    const cJSON *c)
{
	struct tsr_bytes_step step = {.id = codec};
	int st;
	if (m->npre >= TSR_MAX_PRE)
		return tsr_error(TSR_E_UNSUPPORTED, "more than %d compressors and filters", TSR_MAX_PRE);
	if ((st = tsr_zarr_step_params(id, c, &step)))
		return st;
	m->pre[m->npre++] = step;
	return TSR_OK;
}

/* numcodecs' checksum filters by id (TSR_CODEC_NONE for any other). */
static enum tsr_codec_id tsr_zarr_v2_checksum(const char *id)
{
	return !strcmp(id, "crc32")		? TSR_CODEC_CRC32
	       : !strcmp(id, "adler32")		? TSR_CODEC_ADLER32
	       : !strcmp(id, "fletcher32")	? TSR_CODEC_FLETCHER32
	       : !strcmp(id, "jenkins_lookup3") ? TSR_CODEC_LOOKUP3
						: TSR_CODEC_NONE;
}

/* Filters decode in reverse order after the compressor. A compressor used as a filter is one
 * more bytes step, so it must decode before every numcodecs filter (be written after them). */
static int tsr_zarr_v2_filters(const cJSON *filters, struct tsr_zarr_meta *m, char *label,
			       size_t cap)
{
	if (!filters || cJSON_IsNull(filters))
		return TSR_OK;
	if (!cJSON_IsArray(filters))
		return tsr_error(TSR_E_FORMAT, "'filters' is not a list or null");
	int n = cJSON_GetArraySize(filters), st;
	for (int i = n - 1; i >= 0; i--) {
		const cJSON *f = cJSON_GetArrayItem(filters, i);
		const char *id = tsr_zarr_id(f);
		enum tsr_codec_id codec;
		if (!id)
			return tsr_error(TSR_E_FORMAT, "filter %d has no \"id\"", i);
		if (tsr_zarr_v2_codec(id, &codec)) {
			if (m->nfilter)
				return tsr_error(TSR_E_UNSUPPORTED, "compressor '%s' used as a filter "
						 "before another filter", id);
			if ((st = tsr_zarr_add_pre(m, id, codec, f)))
				return st;
			continue;
		}
		if ((codec = tsr_zarr_v2_checksum(id)) != TSR_CODEC_NONE) {
			/* a checksum of the bytes the filters before it made: one more bytes step,
			 * so (as a compressor used as a filter) only after every numcodecs filter */
			if (m->nfilter)
				return tsr_error(TSR_E_UNSUPPORTED, "filter '%s' before another filter",
						 id);
			if ((st = tsr_zarr_add_pre(m, id, codec, f)))
				return st;
			continue;
		}
		struct tsr_filter flt;
		st = tsr_zarr_filter_parse(id, f, &flt);
		if (st < 0) {
			tsr_error_prefix("filter %d", i);
			return st;
		}
		if (st == 0 && (st = tsr_zarr_filter_add(m, &flt, 0)))
			return st;
	}
	for (int i = 0; i < n; i++)
		tsr_zarr_filter_label(tsr_zarr_id(cJSON_GetArrayItem(filters, i)), label, cap);
	return TSR_OK;
}

int tsr_zarr_v2_parse(const cJSON *j, struct tsr_zarr_meta *m)
{
	int st, n;
	memset(m, 0, sizeof(*m));
	m->version = 2;
	if (!cJSON_IsObject(j))
		return tsr_error(TSR_E_FORMAT, "not a JSON object");
	const cJSON *zf = cJSON_GetObjectItemCaseSensitive(j, "zarr_format");
	int64_t fmt;
	if (zf && (tsr_zarr_json_int(zf, 0, 100, &fmt) || fmt != 2))
		return tsr_error(TSR_E_FORMAT, "zarr_format is not 2");
	if ((st = tsr_zarr_json_dims(cJSON_GetObjectItemCaseSensitive(j, "shape"), "shape", 0, &m->ndim,
				     m->shape)))
		return st;
	if ((st = tsr_zarr_json_dims(cJSON_GetObjectItemCaseSensitive(j, "chunks"), "chunks", 1, &n,
				     m->chunk)))
		return st;
	if (n != m->ndim)
		return tsr_error(TSR_E_FORMAT, "'chunks' has %d dimensions, 'shape' %d", n, m->ndim);
	if ((st = tsr_zarr_dtype_v2(cJSON_GetObjectItemCaseSensitive(j, "dtype"), m)))
		return st;
	if ((st = tsr_zarr_fill_value(cJSON_GetObjectItemCaseSensitive(j, "fill_value"), m)))
		return st;
	const cJSON *order = cJSON_GetObjectItemCaseSensitive(j, "order");
	if (order && !(cJSON_IsString(order) && (!strcmp(order->valuestring, "C") ||
						 !strcmp(order->valuestring, "F"))))
		return tsr_error(TSR_E_FORMAT, "'order' is not \"C\" or \"F\"");
	if (order && !strcmp(order->valuestring, "F") && m->ndim > 1) {
		/* F: the chunk's bytes are its transpose in C order. */
		m->has_perm = 1;
		for (int d = 0; d < m->ndim; d++)
			m->perm[d] = (int8_t)(m->ndim - 1 - d);
	}
	const cJSON *sep = cJSON_GetObjectItemCaseSensitive(j, "dimension_separator");
	m->sep = '.';
	if (sep && !cJSON_IsNull(sep)) {
		if (!cJSON_IsString(sep) || (strcmp(sep->valuestring, ".") && strcmp(sep->valuestring, "/")))
			return tsr_error(TSR_E_FORMAT, "'dimension_separator' is not \".\" or \"/\"");
		m->sep = sep->valuestring[0];
		m->sep_given = 1;
	}
	const cJSON *comp = cJSON_GetObjectItemCaseSensitive(j, "compressor");
	char names[32] = "";
	if (comp && !cJSON_IsNull(comp)) {
		const char *id = tsr_zarr_id(comp);
		enum tsr_codec_id codec;
		if (!id)
			return tsr_error(TSR_E_FORMAT, "'compressor' has no \"id\"");
		/* (a checksum as the compressor, as zarr-python writes compressors=CRC32(): a
		 * bytes step as it is among the filters) */
		if (!tsr_zarr_v2_codec(id, &codec) &&
		    (codec = tsr_zarr_v2_checksum(id)) == TSR_CODEC_NONE)
			return tsr_error(TSR_E_UNSUPPORTED, "compressor '%s' is not supported (supported: "
					 "blosc, zstd, gzip, zlib, lz4, bz2, lzma, and the checksums "
					 "crc32, adler32, fletcher32, jenkins_lookup3)", id);
		if ((st = tsr_zarr_add_pre(m, id, codec, comp)))
			return st;
		snprintf(names, sizeof(names), "%s", id);
	}
	char flabel[64] = "";
	if ((st = tsr_zarr_v2_filters(cJSON_GetObjectItemCaseSensitive(j, "filters"), m, flabel,
				      sizeof(flabel))))
		return st;
	char full[sizeof(names) + sizeof(flabel)];
	snprintf(full, sizeof(full), "%s%s", names[0] ? names : "none", flabel);
	snprintf(m->codec, sizeof(m->codec), "%.31s", full); /* a long chain's label is cut */
	return TSR_OK;
}
