/* v3.c - Zarr v3 array metadata (zarr.json): grid, chunk keys, fill value, the codec chain and
 * sharding_indexed levels. */
#include <stdio.h>
#include <string.h>

#include "../../codecs/codecs.h"
#include "zarr.h"

/* A codec entry: {"name", "configuration", "must_understand"} or a short-hand "name". */
static int tsr_zarr_ext(const cJSON *e, const char **name_ret, const cJSON **conf_ret)
{
	*conf_ret = NULL;
	if (cJSON_IsString(e)) {
		*name_ret = e->valuestring;
		return TSR_OK;
	}
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "name");
	if (!cJSON_IsObject(e) || !cJSON_IsString(name))
		return tsr_error(TSR_E_FORMAT, "a codec is not {\"name\": ..., \"configuration\": ...}");
	*name_ret = name->valuestring;
	*conf_ret = cJSON_GetObjectItemCaseSensitive(e, "configuration");
	return TSR_OK;
}

static const cJSON *tsr_zarr_conf(const cJSON *conf, const char *key)
{
	return conf ? cJSON_GetObjectItemCaseSensitive(conf, key) : NULL;
}

/* Bytes-to-bytes codecs by name (v3 core names, zstd, and zarr-python's numcodecs.* names). */
static const struct {
	const char *name;
	enum tsr_codec_id id;
	const char *label;
} tsr_zarr_v3_bytes_codecs[] = {
	{"blosc", TSR_CODEC_BLOSC, "blosc"},
	{"gzip", TSR_CODEC_GZIP, "gzip"},
	{"zstd", TSR_CODEC_ZSTD, "zstd"},
	{"crc32c", TSR_CODEC_CRC32C, "crc32c"},
	{"numcodecs.blosc", TSR_CODEC_BLOSC, "blosc"},
	{"numcodecs.gzip", TSR_CODEC_GZIP, "gzip"},
	{"numcodecs.zlib", TSR_CODEC_ZLIB, "zlib"},
	{"numcodecs.zstd", TSR_CODEC_ZSTD, "zstd"},
	{"numcodecs.lz4", TSR_CODEC_LZ4, "lz4"},
	{"numcodecs.bz2", TSR_CODEC_BZ2, "bz2"},
	{"numcodecs.lzma", TSR_CODEC_LZMA, "lzma"},
	{"numcodecs.crc32c", TSR_CODEC_CRC32C, "crc32c"},
	{"numcodecs.crc32", TSR_CODEC_CRC32, "crc32"},
	{"numcodecs.adler32", TSR_CODEC_ADLER32, "adler32"},
	{"numcodecs.fletcher32", TSR_CODEC_FLETCHER32, "fletcher32"},
	{"numcodecs.jenkins_lookup3", TSR_CODEC_LOOKUP3, "jenkins_lookup3"},
};

static int tsr_zarr_endian(const cJSON *conf, int *big_ret)
{
	const cJSON *e = tsr_zarr_conf(conf, "endian");
	*big_ret = 0;
	if (!e || cJSON_IsNull(e))
		return TSR_OK; /* optional for one-byte types; little otherwise, as writers do */
	if (cJSON_IsString(e) && !strcmp(e->valuestring, "little"))
		return TSR_OK;
	if (cJSON_IsString(e) && !strcmp(e->valuestring, "big")) {
		*big_ret = 1;
		return TSR_OK;
	}
	return tsr_error(TSR_E_FORMAT, "bytes codec: endian is not \"little\" or \"big\"");
}

/* index_codecs must be a fixed-size chain: bytes, then optionally crc32c. */
static int tsr_zarr_index_codecs(const cJSON *list, struct tsr_zarr_shard *s)
{
	if (!cJSON_IsArray(list))
		return tsr_error(TSR_E_FORMAT, "sharding_indexed: 'index_codecs' is not a list");
	int i = 0, st;
	const cJSON *e;
	cJSON_ArrayForEach(e, list) {
		const char *name = NULL;
		const cJSON *conf = NULL;
		if ((st = tsr_zarr_ext(e, &name, &conf)))
			return st;
		if (i == 0 && (!strcmp(name, "bytes") || !strcmp(name, "endian"))) {
			if ((st = tsr_zarr_endian(conf, &s->index_big_endian)))
				return st;
		} else if (i == 1 && !strcmp(name, "crc32c")) {
			s->index_crc32c = 1;
		} else {
			return tsr_error(TSR_E_UNSUPPORTED, "sharding_indexed: index codec '%s' at "
					 "position %d is not supported (bytes, then crc32c)", name, i);
		}
		i++;
	}
	if (i == 0)
		return tsr_error(TSR_E_FORMAT, "sharding_indexed: 'index_codecs' is empty");
	return TSR_OK;
}

static int tsr_zarr_v3_chain(const cJSON *codecs, struct tsr_zarr_meta *m, const int64_t *shape,
			     int depth, char *label, size_t label_cap);

static int tsr_zarr_sharding(const cJSON *conf, struct tsr_zarr_meta *m, const int64_t *outer,
			     int depth, char *label, size_t label_cap)
{
	int st, n;
	if (m->nshard >= TSR_ZARR_MAX_SHARD)
		return tsr_error(TSR_E_UNSUPPORTED, "sharding_indexed nested more than %d deep",
				 TSR_ZARR_MAX_SHARD);
	if (!cJSON_IsObject(conf))
		return tsr_error(TSR_E_FORMAT, "sharding_indexed has no configuration");
	struct tsr_zarr_shard *s = &m->shard[m->nshard++];
	if ((st = tsr_zarr_json_dims(tsr_zarr_conf(conf, "chunk_shape"), "chunk_shape", 1, &n,
				     s->inner)))
		return st;
	if (n != m->ndim)
		return tsr_error(TSR_E_FORMAT, "sharding_indexed: chunk_shape has %d dimensions, the "
				 "array %d", n, m->ndim);
	s->ninner = 1;
	for (int d = 0; d < m->ndim; d++) {
		s->outer[d] = outer[d];
		if (outer[d] % s->inner[d])
			return tsr_error(TSR_E_FORMAT, "sharding_indexed: inner chunk_shape[%d] = %lld "
					 "does not divide the shard's %lld", d, (long long)s->inner[d],
					 (long long)outer[d]);
		s->per[d] = outer[d] / s->inner[d];
		if (s->per[d] > 0 && s->ninner > ((int64_t)1 << 40) / s->per[d])
			return tsr_error(TSR_E_UNSUPPORTED, "sharding_indexed: too many inner chunks");
		s->ninner *= s->per[d];
	}
	const cJSON *loc = tsr_zarr_conf(conf, "index_location");
	if (loc && !(cJSON_IsString(loc) && (!strcmp(loc->valuestring, "start") ||
					     !strcmp(loc->valuestring, "end"))))
		return tsr_error(TSR_E_FORMAT, "sharding_indexed: index_location is not \"start\" or "
				 "\"end\"");
	s->index_at_start = loc && !strcmp(loc->valuestring, "start");
	if ((st = tsr_zarr_index_codecs(tsr_zarr_conf(conf, "index_codecs"), s)))
		return st;
	s->index_nbytes = 16 * (uint64_t)s->ninner + (s->index_crc32c ? 4 : 0);
	if (s->index_nbytes > TSR_ZARR_MAX_INDEX)
		return tsr_error(TSR_E_UNSUPPORTED, "sharding_indexed: an index of %llu bytes "
				 "(%llu inner chunks a shard); tessera reads indexes up to %llu bytes",
				 (unsigned long long)s->index_nbytes,
				 (unsigned long long)s->ninner,
				 (unsigned long long)TSR_ZARR_MAX_INDEX);
	size_t len = strlen(label);
	snprintf(label + len, label_cap - len, "shard/");
	int64_t inner[TSR_MAX_DIM];
	memcpy(inner, s->inner, sizeof(inner));
	return tsr_zarr_v3_chain(tsr_zarr_conf(conf, "codecs"), m, inner, depth + 1, label, label_cap);
}

/* One codec chain (the array's, or a shard's inner chunks'): array->array codecs, one
 * array->bytes codec, bytes->bytes codecs. Only the innermost chain may have bytes codecs
 * after its array->bytes codec, since inner chunks are read alone. */
static int tsr_zarr_v3_chain(const cJSON *codecs, struct tsr_zarr_meta *m, const int64_t *shape,
			     int depth, char *label, size_t label_cap)
{
	if (!codecs)
		return tsr_error(TSR_E_FORMAT, "no 'codecs'");
	if (!cJSON_IsArray(codecs))
		return tsr_error(TSR_E_FORMAT, "'codecs' is not a list");
	int phase = 0, st, nperm = 0, sharded = 0;
	struct tsr_bytes_step bytes[TSR_MAX_PRE];
	const char *bytes_label[TSR_MAX_PRE];
	int nbytes = 0;
	struct tsr_filter aa[TSR_MAX_FILTERS]; /* numcodecs array->array filters, listed order */
	int naa = 0, ordered = 0, shuffle = 0;
	struct tsr_filter shuf, tf;
	char flabel[64] = "";
	int8_t perm[TSR_MAX_DIM];
	for (int d = 0; d < m->ndim; d++)
		perm[d] = (int8_t)d;
	const cJSON *e;
	cJSON_ArrayForEach(e, codecs) {
		const char *name = NULL;
		const cJSON *conf = NULL;
		if ((st = tsr_zarr_ext(e, &name, &conf)))
			return st;
		if (!strcmp(name, "transpose")) {
			if (phase)
				return tsr_error(TSR_E_FORMAT, "transpose after an array->bytes codec");
			const cJSON *order = tsr_zarr_conf(conf, "order");
			int8_t o[TSR_MAX_DIM], nxt[TSR_MAX_DIM];
			if (cJSON_IsString(order) && !strcmp(order->valuestring, "C")) {
				for (int d = 0; d < m->ndim; d++)
					o[d] = (int8_t)d;
			} else if (cJSON_IsString(order) && !strcmp(order->valuestring, "F")) {
				for (int d = 0; d < m->ndim; d++)
					o[d] = (int8_t)(m->ndim - 1 - d);
			} else {
				int64_t v[TSR_MAX_DIM];
				int n;
				uint64_t seen = 0;
				if (tsr_zarr_json_dims(order, "order", 0, &n, v) || n != m->ndim)
					return tsr_error(TSR_E_FORMAT, "transpose: 'order' is not a "
							 "permutation of the %d axes", m->ndim);
				for (int d = 0; d < n; d++) {
					if (v[d] >= n || (seen & (1ull << v[d])))
						return tsr_error(TSR_E_FORMAT, "transpose: 'order' is not "
								 "a permutation of the %d axes", n);
					seen |= 1ull << v[d];
					o[d] = (int8_t)v[d];
				}
			}
			/* Encoded axis i of this transpose is axis o[i] of its input. */
			for (int d = 0; d < m->ndim; d++)
				nxt[d] = perm[o[d]];
			memcpy(perm, nxt, sizeof(perm));
			nperm++;
		} else if (!strcmp(name, "bytes") || !strcmp(name, "endian")) {
			if (phase)
				return tsr_error(TSR_E_FORMAT, "two array->bytes codecs");
			phase = 1;
			if ((st = tsr_zarr_endian(conf, &m->big_endian)))
				return st;
			if (tsr_dtype_size(m->dtype) == 1)
				m->big_endian = 0;
		} else if (!strcmp(name, "sharding_indexed")) {
			if (phase)
				return tsr_error(TSR_E_FORMAT, "two array->bytes codecs");
			if (nperm)
				return tsr_error(TSR_E_UNSUPPORTED, "transpose before sharding_indexed");
			phase = 1;
			sharded = 1;
			if ((st = tsr_zarr_sharding(conf, m, shape, depth, label, label_cap)))
				return st;
		} else if (!strncmp(name, "numcodecs.", 10) &&
			   (st = tsr_zarr_filter_parse(name + 10, conf, &tf)) >= 0) {
			/* zarr-python's numcodecs filters: array->array before the bytes codec,
			 * numcodecs.shuffle a bytes->bytes codec after it */
			int is_shuffle = tf.id == TSR_FILTER_SHUFFLE;
			if (st == 1)
				; /* bitround: nothing to undo */
			else if (phase != is_shuffle)
				return tsr_error(TSR_E_FORMAT, "codec '%s' %s the array->bytes codec", name,
						 phase ? "after" : "before");
			else if (is_shuffle && (nbytes || shuffle))
				return tsr_error(TSR_E_UNSUPPORTED, "codec '%s' after another bytes codec",
						 name);
			else if (sharded)
				return tsr_error(TSR_E_UNSUPPORTED, "codec '%s' after sharding_indexed",
						 name);
			else if (is_shuffle)
				shuffle = 1, shuf = tf;
			else if (naa == TSR_MAX_FILTERS)
				return tsr_error(TSR_E_UNSUPPORTED, "more than %d numcodecs filters",
						 TSR_MAX_FILTERS);
			else
				aa[naa++] = tf;
			ordered |= st == 0 && (tf.id == TSR_FILTER_DELTA || tf.id == TSR_FILTER_PACKBITS);
			tsr_zarr_filter_label(name + 10, flabel, sizeof(flabel));
		} else if (!strncmp(name, "numcodecs.", 10) && st != TSR_E_UNSUPPORTED) {
			return st;
		} else {
			tsr_error_clear();
			size_t k = 0, nk = sizeof(tsr_zarr_v3_bytes_codecs) / sizeof(tsr_zarr_v3_bytes_codecs[0]);
			while (k < nk && strcmp(name, tsr_zarr_v3_bytes_codecs[k].name))
				k++;
			if (k == nk)
				return tsr_error(TSR_E_UNSUPPORTED, "codec '%s' is not supported (bytes, "
						 "transpose, sharding_indexed, blosc, gzip, zstd, crc32c, "
						 "numcodecs.zlib/lz4/bz2/lzma/crc32/adler32/fletcher32/jenkins_lookup3)", name);
			if (!phase)
				return tsr_error(TSR_E_FORMAT, "bytes codec '%s' before the array->bytes "
						 "codec", name);
			if (sharded && depth)
				return tsr_error(TSR_E_UNSUPPORTED, "codec '%s' after a nested "
						 "sharding_indexed", name);
			if (nbytes >= TSR_MAX_PRE)
				return tsr_error(TSR_E_UNSUPPORTED, "more than %d bytes codecs", TSR_MAX_PRE);
			struct tsr_bytes_step step = {.id = tsr_zarr_v3_bytes_codecs[k].id};
			if ((st = tsr_zarr_step_params(name, conf, &step)))
				return st;
			bytes_label[nbytes] = tsr_zarr_v3_bytes_codecs[k].label;
			bytes[nbytes++] = step;
		}
	}
	if (!phase)
		return tsr_error(TSR_E_FORMAT, "no array->bytes codec (bytes or sharding_indexed)");
	if (sharded && naa)
		return tsr_error(TSR_E_UNSUPPORTED, "numcodecs filters before sharding_indexed (on "
				 "whole shards)");
	if (sharded && nbytes) {
		/* codecs on the whole shard (zarr-python writes its default compressor there when
		 * the serializer is a ShardingCodec): undone first, in reverse */
		struct tsr_zarr_shard *s = &m->shard[0];
		if (m->nshard > 1)
			return tsr_error(TSR_E_UNSUPPORTED, "bytes codecs on whole shards with nested "
					 "sharding_indexed");
		s->nwhole = nbytes;
		char inner[64];
		snprintf(inner, sizeof(inner), "%s", label);
		size_t len = 0;
		for (int i = 0; i < nbytes; i++) {
			s->whole[i] = bytes[nbytes - 1 - i];
			len += (size_t)snprintf(label + len, label_cap > len ? label_cap - len : 0,
						"%s%s", i ? "+" : "", bytes_label[i]);
		}
		if (len < label_cap)
			snprintf(label + len, label_cap - len, "(%s)", inner);
	}
	if (sharded)
		return TSR_OK;
	if (naa && nperm && ordered)
		return tsr_error(TSR_E_UNSUPPORTED, "numcodecs.delta or numcodecs.packbits with a "
				 "transpose");
	if (naa && m->big_endian)
		return tsr_error(TSR_E_UNSUPPORTED, "numcodecs filters with big-endian bytes");
	/* Filters decode in reverse order, shuffle (the last bytes codec undone) first; the
	 * values they leave are the array's, in native order. */
	if (shuffle && (st = tsr_zarr_filter_add(m, &shuf, 0)))
		return st;
	for (int i = naa - 1; i >= 0; i--)
		if ((st = tsr_zarr_filter_add(m, &aa[i], 0)))
			return st;
	/* The innermost chunk: bytes codecs undo in reverse order. */
	m->npre = nbytes;
	for (int i = 0; i < nbytes; i++)
		m->pre[i] = bytes[nbytes - 1 - i];
	int identity = 1;
	for (int d = 0; d < m->ndim; d++) {
		m->perm[d] = perm[d];
		identity &= perm[d] == d;
	}
	m->has_perm = !identity;
	size_t len = strlen(label);
	for (int i = 0; i < nbytes; i++) {
		snprintf(label + len, label_cap - len, "%s%s", i ? "+" : "", bytes_label[i]);
		len = strlen(label);
	}
	if (!nbytes)
		snprintf(label + len, label_cap - len, "none");
	len = strlen(label);
	snprintf(label + len, label_cap - len, "%s", flabel);
	return TSR_OK;
}

/* Fields an array's zarr.json may have; any other needs "must_understand": false. */
static const char *const tsr_zarr_v3_fields[] = {
	"zarr_format", "node_type", "shape", "data_type", "chunk_grid", "chunk_key_encoding",
	"fill_value", "codecs", "attributes", "storage_transformers", "dimension_names",
};

int tsr_zarr_v3_parse(const cJSON *j, struct tsr_zarr_meta *m)
{
	int st, n;
	memset(m, 0, sizeof(*m));
	m->version = 3;
	if (!cJSON_IsObject(j))
		return tsr_error(TSR_E_FORMAT, "not a JSON object");
	const cJSON *f;
	cJSON_ArrayForEach(f, j) {
		size_t k = 0, nk = sizeof(tsr_zarr_v3_fields) / sizeof(tsr_zarr_v3_fields[0]);
		while (k < nk && strcmp(f->string, tsr_zarr_v3_fields[k]))
			k++;
		if (k < nk)
			continue;
		const cJSON *mu = cJSON_IsObject(f) ?
				  cJSON_GetObjectItemCaseSensitive(f, "must_understand") : NULL;
		if (!cJSON_IsFalse(mu))
			return tsr_error(TSR_E_UNSUPPORTED, "unknown field '%s' (an extension that must "
					 "be understood)", f->string);
	}
	const cJSON *st_tr = cJSON_GetObjectItemCaseSensitive(j, "storage_transformers");
	if (st_tr && !cJSON_IsNull(st_tr) && !(cJSON_IsArray(st_tr) && cJSON_GetArraySize(st_tr) == 0))
		return tsr_error(TSR_E_UNSUPPORTED, "storage_transformers are not supported");
	if ((st = tsr_zarr_json_dims(cJSON_GetObjectItemCaseSensitive(j, "shape"), "shape", 0, &m->ndim,
				     m->shape)))
		return st;
	if ((st = tsr_zarr_dtype_v3(cJSON_GetObjectItemCaseSensitive(j, "data_type"), m)))
		return st;

	const cJSON *grid = cJSON_GetObjectItemCaseSensitive(j, "chunk_grid");
	const char *gname = NULL;
	const cJSON *gconf = NULL;
	if (!grid)
		return tsr_error(TSR_E_FORMAT, "no 'chunk_grid'");
	if ((st = tsr_zarr_ext(grid, &gname, &gconf)))
		return st;
	if (strcmp(gname, "regular"))
		return tsr_error(TSR_E_UNSUPPORTED, "chunk_grid '%s' is not supported (regular)", gname);
	if ((st = tsr_zarr_json_dims(tsr_zarr_conf(gconf, "chunk_shape"), "chunk_shape", 1, &n,
				     m->chunk)))
		return st;
	if (n != m->ndim)
		return tsr_error(TSR_E_FORMAT, "chunk_shape has %d dimensions, shape %d", n, m->ndim);

	const cJSON *cke = cJSON_GetObjectItemCaseSensitive(j, "chunk_key_encoding");
	const char *kname = NULL;
	const cJSON *kconf = NULL;
	if (!cke)
		return tsr_error(TSR_E_FORMAT, "no 'chunk_key_encoding'");
	if ((st = tsr_zarr_ext(cke, &kname, &kconf)))
		return st;
	if (!strcmp(kname, "default")) {
		m->key_c_prefix = 1;
		m->sep = '/';
	} else if (!strcmp(kname, "v2")) {
		m->sep = '.';
	} else {
		return tsr_error(TSR_E_UNSUPPORTED, "chunk_key_encoding '%s' is not supported "
				 "(default, v2)", kname);
	}
	const cJSON *sep = tsr_zarr_conf(kconf, "separator");
	if (sep) {
		if (!cJSON_IsString(sep) || (strcmp(sep->valuestring, ".") && strcmp(sep->valuestring, "/")))
			return tsr_error(TSR_E_FORMAT, "chunk_key_encoding: separator is not \".\" or \"/\"");
		m->sep = sep->valuestring[0];
	}
	const cJSON *fv = cJSON_GetObjectItemCaseSensitive(j, "fill_value");
	if (!fv)
		return tsr_error(TSR_E_FORMAT, "no 'fill_value'");
	char label[sizeof(m->codec) + 64] = "";
	if ((st = tsr_zarr_v3_chain(cJSON_GetObjectItemCaseSensitive(j, "codecs"), m, m->chunk, 0,
				    label, sizeof(label))))
		return st;
	tsr_zarr_v3_raw_order(m);
	/* after the codecs: a unicode fill takes the byte order they store */
	if ((st = tsr_zarr_fill_value(fv, m)))
		return st;
	snprintf(m->codec, sizeof(m->codec), "%.31s", label);
	return TSR_OK;
}
