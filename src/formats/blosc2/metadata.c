/* metadata.c - a Blosc2 frame's metadata as JSON: frame version, metalayers (the b2nd one
 * decoded), and the variable-length metalayers of the trailer (blosc-compressed msgpack, as
 * python-blosc2's vlmeta writes them) decoded into JSON values. */
#include <msgpack.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../codecs/blosc.h"
#include "../../core/file.h"
#include "../metadata.h"
#include "blosc2.h"

/* A variable-length metalayer larger than this decoded is not shown. */
#define TSR_B2_MAX_VLMETA ((int64_t)1 << 24)
/* Trailers and headers larger than this are not metadata (as the driver bounds them). */
#define TSR_B2_MAX_META ((int64_t)1 << 28)

/* j["bytes_hex"]: n bytes at p in hex (msgpack bin, and an extension type's payload, which
 * python-blosc2 gives its complex numbers, sets and NumPy arrays: tessera/_attrs.py). */
static int tsr_mp_hex(cJSON *j, const char *p, uint32_t n)
{
	static const char digits[] = "0123456789abcdef";
	char *hex = malloc((size_t)n * 2 + 1);
	if (!hex)
		return tsr_error(TSR_E_NOMEM, "out of memory for metadata");
	for (uint32_t i = 0; i < n; i++) {
		hex[2 * i] = digits[(unsigned char)p[i] >> 4];
		hex[2 * i + 1] = digits[(unsigned char)p[i] & 15];
	}
	hex[2 * (size_t)n] = '\0';
	int st = tsr_json_add(j, "bytes_hex", cJSON_CreateString(hex));
	free(hex);
	return st;
}

/* A msgpack value as JSON: bytes as a hex string, extension types by type, size and payload
 * (hex), floats as reals (tsr_json_real). */
static cJSON *tsr_mp_json(const msgpack_object *o)
{
	char buf[64];
	switch (o->type) {
	case MSGPACK_OBJECT_NIL: return cJSON_CreateNull();
	case MSGPACK_OBJECT_BOOLEAN: return cJSON_CreateBool(o->via.boolean);
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
		if (o->via.u64 <= (uint64_t)INT64_MAX)
			return tsr_json_int((int64_t)o->via.u64);
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)o->via.u64);
		return cJSON_CreateRaw(buf);
	case MSGPACK_OBJECT_NEGATIVE_INTEGER: return tsr_json_int(o->via.i64);
	case MSGPACK_OBJECT_FLOAT32:
	case MSGPACK_OBJECT_FLOAT64:
		/* a real stays one (1.0, not 1) and NaN, Infinity print as Python's json writes
		 * them, not null: what python-blosc2's vlmeta gives back */
		return tsr_json_real(o->via.f64);
	case MSGPACK_OBJECT_STR: {
		char *s = strndup(o->via.str.ptr, o->via.str.size);
		cJSON *j = s ? cJSON_CreateString(s) : NULL;
		free(s);
		return j;
	}
	case MSGPACK_OBJECT_BIN: {
		cJSON *j = cJSON_CreateObject();
		if (j && tsr_mp_hex(j, o->via.bin.ptr, o->via.bin.size) != TSR_OK) {
			cJSON_Delete(j);
			j = NULL;
		}
		return j;
	}
	case MSGPACK_OBJECT_ARRAY: {
		cJSON *list = cJSON_CreateArray();
		for (uint32_t i = 0; list && i < o->via.array.size; i++) {
			cJSON *x = tsr_mp_json(&o->via.array.ptr[i]);
			if (!x || !cJSON_AddItemToArray(list, x)) {
				cJSON_Delete(x);
				cJSON_Delete(list);
				list = NULL;
			}
		}
		return list;
	}
	case MSGPACK_OBJECT_MAP: {
		cJSON *obj = cJSON_CreateObject();
		for (uint32_t i = 0; obj && i < o->via.map.size; i++) {
			const msgpack_object *k = &o->via.map.ptr[i].key;
			char *key = k->type == MSGPACK_OBJECT_STR ? strndup(k->via.str.ptr, k->via.str.size)
								  : NULL;
			if (!key && k->type != MSGPACK_OBJECT_STR) {
				/* a key that is not a string: its JSON text names it (a float
				 * key's as its values print: 1.0, NaN) */
				cJSON *kj = tsr_mp_json(k);
				if (kj)
					tsr_json_print(kj, &key);
				cJSON_Delete(kj);
			}
			cJSON *x = key ? tsr_mp_json(&o->via.map.ptr[i].val) : NULL;
			if (!x || !cJSON_AddItemToObject(obj, key, x)) {
				cJSON_Delete(x);
				cJSON_Delete(obj);
				obj = NULL;
			}
			free(key);
		}
		return obj;
	}
	case MSGPACK_OBJECT_EXT: {
		cJSON *j = cJSON_CreateObject();
		if (j && (tsr_json_add(j, "ext_type", cJSON_CreateNumber(o->via.ext.type)) ||
			  tsr_json_add(j, "nbytes", cJSON_CreateNumber(o->via.ext.size)) ||
			  tsr_mp_hex(j, o->via.ext.ptr, o->via.ext.size))) {
			cJSON_Delete(j);
			j = NULL;
		}
		return j;
	}
	default: return cJSON_CreateNull();
	}
}

/* One variable-length metalayer: a bin32 at trailer[off] holding a blosc chunk of msgpack. */
static cJSON *tsr_b2_vlmeta_value(const uint8_t *t, size_t tn, uint64_t off)
{
	if (off + 5 > tn || t[off] != 0xc6)
		return cJSON_CreateString("(malformed: no bin32 at its offset)");
	uint64_t clen = tsr_be32(t + off + 1);
	if (clen > tn - off - 5)
		return cJSON_CreateString("(malformed: runs past the trailer)");
	const uint8_t *chunk = t + off + 5;
	struct tsr_blosc_info in;
	if (tsr_blosc_info(chunk, (size_t)clen, &in) || in.nbytes > TSR_B2_MAX_VLMETA) {
		tsr_error_clear();
		return cJSON_CreateString("(not a blosc chunk this reader decodes)");
	}
	uint8_t *raw = malloc(in.nbytes ? (size_t)in.nbytes : 1);
	if (!raw)
		return NULL;
	cJSON *j = NULL;
	if (tsr_blosc_decode(raw, (size_t)in.nbytes, chunk, (size_t)clen, NULL, NULL)) {
		j = cJSON_CreateString("(its blosc chunk does not decode)");
	} else {
		msgpack_unpacked u;
		size_t used;
		if (tsr_mp_unpack(raw, (size_t)in.nbytes, &u, &used, "vlmeta") == TSR_OK) {
			j = tsr_mp_json(&u.data);
			msgpack_unpacked_destroy(&u);
		} else {
			j = cJSON_CreateString("(not msgpack)");
		}
	}
	tsr_error_clear();
	free(raw);
	return j;
}

/* The trailer's {name: offset} map decoded into an object of values. */
static int tsr_b2_vlmeta(const uint8_t *t, size_t tn, cJSON *root)
{
	msgpack_unpacked u;
	size_t used;
	int st = tsr_mp_unpack(t, tn, &u, &used, "frame trailer");
	if (st)
		return st;
	cJSON *obj = cJSON_CreateObject();
	st = tsr_json_add(root, "vlmeta", obj);
	const msgpack_object *r = &u.data;
	if (!st && r->type == MSGPACK_OBJECT_ARRAY && r->via.array.size >= 2 &&
	    r->via.array.ptr[1].type == MSGPACK_OBJECT_ARRAY &&
	    r->via.array.ptr[1].via.array.size >= 2 &&
	    r->via.array.ptr[1].via.array.ptr[1].type == MSGPACK_OBJECT_MAP) {
		const msgpack_object_map *m = &r->via.array.ptr[1].via.array.ptr[1].via.map;
		for (uint32_t i = 0; i < m->size && !st; i++) {
			const msgpack_object *k = &m->ptr[i].key, *v = &m->ptr[i].val;
			if (k->type != MSGPACK_OBJECT_STR || v->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
				continue;
			char *name = strndup(k->via.str.ptr, k->via.str.size);
			st = name ? tsr_json_add(obj, name, tsr_b2_vlmeta_value(t, tn, v->via.u64))
				  : tsr_error(TSR_E_NOMEM, "out of memory");
			free(name);
		}
	}
	msgpack_unpacked_destroy(&u);
	return st;
}

static int tsr_b2_read(int fd, uint64_t at, uint64_t n, uint8_t **buf_ret)
{
	*buf_ret = malloc(n ? (size_t)n : 1);
	if (!*buf_ret)
		return tsr_error(TSR_E_NOMEM, "out of memory");
	int st = tsr_file_pread(fd, *buf_ret, (size_t)n, at);
	if (st) {
		free(*buf_ret);
		*buf_ret = NULL;
	}
	return st;
}

static int tsr_b2_meta_frame(const struct tsr_array *a, int fd, uint64_t fsize, cJSON *root)
{
	uint8_t fixed[TSR_B2_HEADER_MINLEN], tail[23], *hbuf = NULL, *tbuf = NULL;
	int st;
	if (fsize < sizeof(fixed) + sizeof(tail))
		return tsr_error(TSR_E_FORMAT, "no longer a Blosc2 frame (truncated)");
	if ((st = tsr_file_pread(fd, fixed, sizeof(fixed), 0)))
		return st;
	/* the frame may end before the file does */
	uint64_t flen = tsr_be64(fixed + 16);
	if (fixed[15] != 0xcf || flen > fsize || flen < sizeof(fixed) + sizeof(tail))
		return tsr_error(TSR_E_FORMAT, "frame header changed since it was opened");
	fsize = flen;
	if ((st = tsr_file_pread(fd, tail, sizeof(tail), fsize - sizeof(tail))))
		return st;
	int64_t hlen = (int32_t)tsr_be32(fixed + 11);
	int64_t tlen = (int64_t)tsr_be32(tail + 1);
	if (fixed[10] != 0xd2 || hlen < TSR_B2_HEADER_MINLEN || hlen > TSR_B2_MAX_META ||
	    (uint64_t)hlen > fsize || tail[0] != 0xce || tlen < 23 || (uint64_t)tlen > fsize ||
	    tlen > TSR_B2_MAX_META)
		return tsr_error(TSR_E_FORMAT, "frame header or trailer changed since it was opened");
	struct tsr_b2_header h;
	if ((st = tsr_b2_read(fd, 0, (uint64_t)hlen, &hbuf)) ||
	    (st = tsr_b2_header_parse(hbuf, (size_t)hlen, &h)) ||
	    (st = tsr_b2_read(fd, fsize - (uint64_t)tlen, (uint64_t)tlen, &tbuf)))
		goto done;
	cJSON *metas = cJSON_CreateArray();
	if ((st = tsr_json_add(root, "frame_version", cJSON_CreateNumber(h.general_flags & 0x0f))) ||
	    (st = tsr_json_add(root, "typesize", cJSON_CreateNumber(h.typesize))) ||
	    (st = tsr_json_add(root, "metalayers", metas)))
		goto done;
	for (int i = 0; i < h.nmeta && !st; i++) {
		cJSON *s = cJSON_CreateString(h.meta_name[i]);
		if (!s || !cJSON_AddItemToArray(metas, s)) {
			cJSON_Delete(s);
			st = tsr_error(TSR_E_NOMEM, "out of memory");
		}
	}
	if (!st)
		st = tsr_b2_vlmeta(tbuf, (size_t)tlen, root);
	if (!st && a) {
		cJSON *layout = cJSON_CreateObject();
		if (!(st = tsr_json_add(root, "layout", layout)) &&
		    !(st = tsr_json_add(layout, "kind", cJSON_CreateString("chunks"))))
			st = tsr_json_add(layout, "chunk_shape",
					  tsr_json_dims(a->desc.chunk_shape, a->desc.ndim));
	}
done:
	free(hbuf);
	free(tbuf);
	return st;
}

/* The frame of path (a file, or a sparse frame's folder), described without an array (a
 * NULL: no layout) or for array a (whose file stays open: fd >= 0). */
static int tsr_b2_meta_path(const char *path, const struct tsr_array *a, int fd, uint64_t fsize,
			    cJSON *root)
{
	char ipath[4096];
	int st, own = fd < 0;
	if (own) {
		struct stat sb;
		const char *file = path;
		if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
			/* a sparse frame: header and trailer are in chunks.b2frame */
			if ((size_t)snprintf(ipath, sizeof(ipath), "%s/chunks.b2frame", path) >=
			    sizeof(ipath))
				return tsr_error(TSR_E_INVALID_ARG, "%s: path too long", path);
			file = ipath;
		}
		if ((st = tsr_file_open(file, &fd, &fsize))) {
			tsr_error_prefix("%s", path);
			return st;
		}
	}
	st = tsr_b2_meta_frame(a, fd, fsize, root);
	if (own)
		tsr_file_close(fd);
	if (st)
		tsr_error_prefix("%s", path);
	return st;
}

int tsr_blosc2_metadata(const struct tsr_array *a, cJSON *root)
{
	return tsr_b2_meta_path(a->path, a, a->fd, a->file_nbytes, root);
}

int tsr_blosc2_path_metadata(const char *path, cJSON *root)
{
	return tsr_b2_meta_path(path, NULL, -1, 0, root);
}
