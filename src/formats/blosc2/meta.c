/* meta.c - Blosc2 frame metadata: the msgpack header and trailer (msgpack-c), the b2nd
 * metalayer and NumPy dtype strings.
 *
 * msgpack-c allocates room for a container's elements as soon as it reads the container's
 * count, so a corrupt count of 4 billion would ask for ~100 GB before any element is seen.
 * tsr_mp_check() walks the bytes first and rejects counts that the bytes left cannot hold;
 * only then does msgpack-c unpack them. */
#include <msgpack.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blosc2.h"

#define TSR_MP_MAX_DEPTH 24

static uint64_t rd_be(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* Checks that one msgpack object starts at p[0, n) and fits; its size goes to *size. */
static int tsr_mp_check(const uint8_t *p, size_t n, int depth, size_t *size)
{
	if (n == 0 || depth > TSR_MP_MAX_DEPTH)
		return 0;
	uint8_t c = p[0];
	uint64_t count = 0, len = 0;
	size_t at = 1;
	int kv = 1; /* objects per container element */
	if (c <= 0x7f || c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3) {
		*size = 1;
		return 1;
	}
	if (c >= 0xa0 && c <= 0xbf) {
		len = c & 0x1f;
		goto raw;
	}
	if ((c >= 0x80 && c <= 0x8f) || (c >= 0x90 && c <= 0x9f)) {
		count = c & 0x0f;
		kv = c <= 0x8f ? 2 : 1;
		goto container;
	}
	switch (c) {
	case 0xca: *size = 5; return n >= 5;
	case 0xcb: *size = 9; return n >= 9;
	case 0xcc: case 0xd0: *size = 2; return n >= 2;
	case 0xcd: case 0xd1: *size = 3; return n >= 3;
	case 0xce: case 0xd2: *size = 5; return n >= 5;
	case 0xcf: case 0xd3: *size = 9; return n >= 9;
	case 0xd4: *size = 3; return n >= 3;
	case 0xd5: *size = 4; return n >= 4;
	case 0xd6: *size = 6; return n >= 6;
	case 0xd7: *size = 10; return n >= 10;
	case 0xd8: *size = 18; return n >= 18;
	case 0xc4: case 0xd9: case 0xc5: case 0xda: case 0xc6: case 0xdb: {
		int w = c == 0xc4 || c == 0xd9 ? 1 : c == 0xc5 || c == 0xda ? 2 : 4;
		if (n < 1 + (size_t)w)
			return 0;
		len = rd_be(p + 1, w);
		at = 1 + (size_t)w;
		goto raw;
	}
	case 0xc7: case 0xc8: case 0xc9: {
		int w = c == 0xc7 ? 1 : c == 0xc8 ? 2 : 4;
		if (n < 2 + (size_t)w)
			return 0;
		len = rd_be(p + 1, w);
		at = 2 + (size_t)w;
		goto raw;
	}
	case 0xdc: case 0xdd: case 0xde: case 0xdf: {
		int w = c == 0xdc || c == 0xde ? 2 : 4;
		if (n < 1 + (size_t)w)
			return 0;
		count = rd_be(p + 1, w);
		at = 1 + (size_t)w;
		kv = c >= 0xde ? 2 : 1;
		goto container;
	}
	default: /* 0xc1 is never used */
		return 0;
	}
raw:
	if (len > n - at)
		return 0;
	*size = at + (size_t)len;
	return 1;
container:
	/* every object takes at least one byte */
	if (count > (n - at) / (uint64_t)kv)
		return 0;
	for (uint64_t i = 0; i < count * (uint64_t)kv; i++) {
		size_t s;
		if (!tsr_mp_check(p + at, n - at, depth + 1, &s))
			return 0;
		at += s;
	}
	*size = at;
	return 1;
}

/* Unpacks the object at buf[0, n) after checking it; *used gets its size. */
int tsr_mp_unpack(const uint8_t *buf, size_t n, msgpack_unpacked *u, size_t *used,
		  const char *what)
{
	size_t size = 0, off = 0;
	if (!tsr_mp_check(buf, n, 0, &size))
		return tsr_error(TSR_E_FORMAT, "%s: malformed or truncated msgpack", what);
	msgpack_unpacked_init(u);
	msgpack_unpack_return r = msgpack_unpack_next(u, (const char *)buf, size, &off);
	if (r != MSGPACK_UNPACK_SUCCESS) {
		msgpack_unpacked_destroy(u);
		return tsr_error(r == MSGPACK_UNPACK_NOMEM_ERROR ? TSR_E_NOMEM : TSR_E_FORMAT,
				 "%s: msgpack-c cannot unpack it (%d)", what, (int)r);
	}
	*used = off;
	return TSR_OK;
}

static int mp_int(const msgpack_object *o, int64_t *v)
{
	if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER && o->via.u64 <= (uint64_t)INT64_MAX) {
		*v = (int64_t)o->via.u64;
		return 1;
	}
	if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER) {
		*v = o->via.i64;
		return 1;
	}
	return 0;
}

int tsr_b2_header_parse(const uint8_t *buf, size_t n, struct tsr_b2_header *h)
{
	msgpack_unpacked u;
	size_t used;
	int64_t v[11];
	memset(h, 0, sizeof(*h));
	int st = tsr_mp_unpack(buf, n, &u, &used, "frame header");
	if (st)
		return st;
	const msgpack_object *root = &u.data, *it;
	st = TSR_E_FORMAT;
	if (root->type != MSGPACK_OBJECT_ARRAY || root->via.array.size < 14) {
		tsr_error(st, "frame header: not an array of 14 fields");
		goto done;
	}
	it = root->via.array.ptr;
	if (it[0].type != MSGPACK_OBJECT_STR || it[0].via.str.size < 7 ||
	    memcmp(it[0].via.str.ptr, "b2frame", 7) != 0) {
		tsr_error(st, "frame header: no b2frame magic");
		goto done;
	}
	static const int ints[] = {1, 2, 4, 5, 6, 7, 8, 9, 10};
	for (int k = 0; k < 9; k++)
		if (!mp_int(&it[ints[k]], &v[k])) {
			tsr_error(st, "frame header: field %d is not an integer", ints[k]);
			goto done;
		}
	h->header_len = v[0];
	h->frame_len = v[1];
	h->nbytes = v[2];
	h->cbytes = v[3];
	/* c-blosc2 writes chunksize -1 (not yet known) for a super-chunk that never had a chunk
	 * (python-blosc2's SChunk() with no data): no chunks, as a chunksize of 0 says */
	if (v[6] == -1 && v[2] == 0)
		v[6] = 0;
	if (v[4] <= 0 || v[4] > INT32_MAX || v[5] < 0 || v[5] > INT32_MAX || v[6] < 0 ||
	    v[6] > INT32_MAX) {
		tsr_error(st, "frame header: typesize %lld, blocksize %lld, chunksize %lld",
			  (long long)v[4], (long long)v[5], (long long)v[6]);
		goto done;
	}
	h->typesize = (int32_t)v[4];
	h->blocksize = (int32_t)v[5];
	h->chunksize = (int32_t)v[6];
	if (it[3].type != MSGPACK_OBJECT_STR || it[3].via.str.size != 4) {
		tsr_error(st, "frame header: flags are not 4 bytes");
		goto done;
	}
	const uint8_t *fl = (const uint8_t *)it[3].via.str.ptr;
	h->general_flags = fl[0];
	h->frame_type = fl[1];
	h->codec_flags = fl[2];
	if (it[11].type != MSGPACK_OBJECT_BOOLEAN) {
		tsr_error(st, "frame header: field 11 is not a boolean");
		goto done;
	}
	h->has_vlmeta = it[11].via.boolean;
	if (it[12].type != MSGPACK_OBJECT_EXT || it[12].via.ext.size != 16 ||
	    it[12].via.ext.type < 0 || it[12].via.ext.type > 6) {
		tsr_error(st, "frame header: no filter pipeline");
		goto done;
	}
	const uint8_t *fp = (const uint8_t *)it[12].via.ext.ptr;
	h->nfilters = it[12].via.ext.type;
	memcpy(h->filters, fp, 6);
	h->udcodec = fp[6];
	memcpy(h->filters_meta, fp + 8, 6);

	/* metalayers: [index size, {name: offset of its bin32}, [bin32 ...]] */
	const msgpack_object *ml = &it[13];
	if (ml->type != MSGPACK_OBJECT_ARRAY || ml->via.array.size < 2 ||
	    ml->via.array.ptr[1].type != MSGPACK_OBJECT_MAP) {
		tsr_error(st, "frame header: no metalayer index");
		goto done;
	}
	const msgpack_object_map *map = &ml->via.array.ptr[1].via.map;
	if (map->size > TSR_B2_MAX_METALAYERS) {
		tsr_error(st, "frame header: %u metalayers (at most %d)", map->size,
			  TSR_B2_MAX_METALAYERS);
		goto done;
	}
	for (uint32_t i = 0; i < map->size; i++) {
		const msgpack_object *k = &map->ptr[i].key;
		int64_t off;
		if (k->type != MSGPACK_OBJECT_STR || k->via.str.size >= 32 ||
		    !mp_int(&map->ptr[i].val, &off)) {
			tsr_error(st, "frame header: metalayer %u is not a name and an offset", i);
			goto done;
		}
		memcpy(h->meta_name[i], k->via.str.ptr, k->via.str.size);
		h->meta_name[i][k->via.str.size] = '\0';
		h->meta_off[i] = off;
	}
	h->nmeta = (int)map->size;
	st = TSR_OK;
done:
	msgpack_unpacked_destroy(&u);
	return st;
}

int tsr_b2_trailer_parse(const uint8_t *buf, size_t n, int *nvlmeta_ret)
{
	msgpack_unpacked u;
	size_t used;
	*nvlmeta_ret = 0;
	int st = tsr_mp_unpack(buf, n, &u, &used, "frame trailer");
	if (st)
		return st;
	const msgpack_object *root = &u.data;
	st = TSR_OK;
	/* [version, [index size, {name: offset}, [bin32 ...]], trailer length, fingerprint] */
	if (root->type != MSGPACK_OBJECT_ARRAY || root->via.array.size < 2 ||
	    root->via.array.ptr[1].type != MSGPACK_OBJECT_ARRAY ||
	    root->via.array.ptr[1].via.array.size < 2 ||
	    root->via.array.ptr[1].via.array.ptr[1].type != MSGPACK_OBJECT_MAP)
		st = tsr_error(TSR_E_FORMAT, "frame trailer: no variable-length metalayer index");
	else
		*nvlmeta_ret = (int)root->via.array.ptr[1].via.array.ptr[1].via.map.size;
	msgpack_unpacked_destroy(&u);
	return st;
}

/* ---- the b2nd metalayer ----
 * c-blosc2 writes it with fixed markers (b2nd.c b2nd_serialize_meta): fixarray(7) | version |
 * ndim | fixarray(ndim) of int64 | fixarray(ndim) of int32 | same | dtype format | str32 dtype.
 * With 16 dimensions its "fixarray(16)" marker is the byte 0xa0, which msgpack reads as an
 * empty string; c-blosc2 skips markers, so this reader checks them against 0x90 + ndim as bytes
 * rather than through msgpack-c. */

struct tsr_cur {
	const uint8_t *p;
	size_t n, at;
};

static int cur_int(struct tsr_cur *c, int64_t *v)
{
	if (c->at >= c->n)
		return 0;
	uint8_t m = c->p[c->at];
	int w;
	int sgn;
	if (m <= 0x7f) {
		*v = m;
		c->at++;
		return 1;
	}
	if (m >= 0xe0) {
		*v = (int8_t)m;
		c->at++;
		return 1;
	}
	switch (m) {
	case 0xcc: w = 1; sgn = 0; break;
	case 0xcd: w = 2; sgn = 0; break;
	case 0xce: w = 4; sgn = 0; break;
	case 0xcf: w = 8; sgn = 0; break;
	case 0xd0: w = 1; sgn = 1; break;
	case 0xd1: w = 2; sgn = 1; break;
	case 0xd2: w = 4; sgn = 1; break;
	case 0xd3: w = 8; sgn = 1; break;
	default: return 0;
	}
	if (c->n - c->at < 1 + (size_t)w)
		return 0;
	uint64_t u = rd_be(c->p + c->at + 1, w);
	if (sgn && w < 8 && (u >> (8 * w - 1)))
		u |= ~(uint64_t)0 << (8 * w); /* sign-extend */
	if (!sgn && w == 8 && u > (uint64_t)INT64_MAX)
		return 0;
	*v = (int64_t)u;
	c->at += 1 + (size_t)w;
	return 1;
}

static int cur_dims(struct tsr_cur *c, int ndim, int64_t *out)
{
	if (c->at >= c->n || c->p[c->at] != (uint8_t)(0x90 + ndim))
		return 0;
	c->at++;
	for (int d = 0; d < ndim; d++)
		if (!cur_int(c, &out[d]))
			return 0;
	return 1;
}

int tsr_b2nd_meta_parse(const uint8_t *p, size_t n, struct tsr_b2nd_meta *m)
{
	struct tsr_cur c = {p, n, 0};
	int64_t version, ndim;
	memset(m, 0, sizeof(*m));
	if (n < 3 || p[0] < 0x95 || p[0] > 0x97)
		return tsr_error(TSR_E_FORMAT, "b2nd metalayer: not an array of 5 to 7 fields");
	int nfields = p[0] & 0x0f;
	c.at = 1;
	if (!cur_int(&c, &version) || !cur_int(&c, &ndim))
		return tsr_error(TSR_E_FORMAT, "b2nd metalayer: no version or ndim");
	if (ndim < 0 || ndim > TSR_B2ND_MAX_DIM)
		return tsr_error(TSR_E_UNSUPPORTED, "b2nd metalayer: %lld dimensions (at most %d)",
				 (long long)ndim, TSR_B2ND_MAX_DIM);
	m->version = (int)version;
	m->ndim = (int)ndim;
	if (!cur_dims(&c, m->ndim, m->shape) || !cur_dims(&c, m->ndim, m->chunkshape) ||
	    !cur_dims(&c, m->ndim, m->blockshape))
		return tsr_error(TSR_E_FORMAT, "b2nd metalayer: malformed or truncated shapes");
	if (nfields < 7 || c.at >= n)
		return TSR_OK; /* "caterva" metalayers have no dtype */
	int64_t fmt;
	if (!cur_int(&c, &fmt) || c.at >= n)
		return tsr_error(TSR_E_FORMAT, "b2nd metalayer: no dtype format");
	uint8_t mk = p[c.at];
	uint64_t len;
	size_t at;
	if (mk >= 0xa0 && mk <= 0xbf) {
		len = mk & 0x1f;
		at = c.at + 1;
	} else if ((mk == 0xd9 || mk == 0xda || mk == 0xdb) &&
		   n - c.at >= 1 + (size_t)(mk == 0xd9 ? 1 : mk == 0xda ? 2 : 4)) {
		int w = mk == 0xd9 ? 1 : mk == 0xda ? 2 : 4;
		len = rd_be(p + c.at + 1, w);
		at = c.at + 1 + (size_t)w;
	} else {
		return tsr_error(TSR_E_FORMAT, "b2nd metalayer: dtype is not a string");
	}
	if (len > n - at)
		return tsr_error(TSR_E_FORMAT, "b2nd metalayer: dtype runs past the metalayer");
	m->has_dtype = 1;
	m->dtype_format = (int)fmt;
	size_t keep = len < sizeof(m->dtype) - 1 ? (size_t)len : sizeof(m->dtype) - 1;
	memcpy(m->dtype, p + at, keep);
	m->dtype[keep] = '\0';
	return TSR_OK;
}

int tsr_b2_dtype_parse(const char *s, enum tsr_dtype *dtype_ret, int *big_endian_ret)
{
	static const struct {
		char kind;
		int size;
		enum tsr_dtype t;
	} map[] = {
		{'b', 1, TSR_BOOL},      {'i', 1, TSR_INT8},       {'i', 2, TSR_INT16},
		{'i', 4, TSR_INT32},     {'i', 8, TSR_INT64},      {'u', 1, TSR_UINT8},
		{'u', 2, TSR_UINT16},    {'u', 4, TSR_UINT32},     {'u', 8, TSR_UINT64},
		{'f', 2, TSR_FLOAT16},   {'f', 4, TSR_FLOAT32},    {'f', 8, TSR_FLOAT64},
		{'c', 8, TSR_COMPLEX64}, {'c', 16, TSR_COMPLEX128},
	};
	char order = s[0];
	if (order != '<' && order != '>' && order != '|' && order != '=')
		return tsr_error(TSR_E_UNSUPPORTED, "dtype '%s' is not a simple NumPy dtype", s);
	char kind = s[1];
	char *end = NULL;
	long size = kind ? strtol(s + 2, &end, 10) : 0;
	if (!kind || !end || *end || end == s + 2)
		return tsr_error(TSR_E_UNSUPPORTED, "dtype '%s' is not a simple NumPy dtype", s);
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (map[i].kind == kind && map[i].size == size) {
			*dtype_ret = map[i].t;
			*big_endian_ret = order == '>' && size > 1;
			return TSR_OK;
		}
	return tsr_error(TSR_E_UNSUPPORTED, "dtype '%s' is not supported", s);
}

/* ---- dtypes beyond numbers ---- */

/* The size of one typestr ("<i4", "S3", "|U2", ">M8[ns]", "?") of len characters; 0 if it is none
 * tessera reads. *kind_ret: its kind letter; *be_ret: '>' byte order. */
static size_t tsr_b2_typestr_size(const char *s, size_t len, char *kind_ret, int *be_ret)
{
	size_t i = 0;
	*be_ret = 0;
	if (len && strchr("<>|=", s[0])) {
		*be_ret = s[0] == '>';
		i = 1;
	}
	if (i >= len)
		return 0;
	char kind = s[i++];
	*kind_ret = kind;
	if (kind == '?' && i == len) { /* NumPy's str(dtype) spells a bool field so, not "b1" */
		*kind_ret = 'b';
		return 1;
	}
	size_t n = 0, digits = 0;
	while (i < len && s[i] >= '0' && s[i] <= '9' && n < ((size_t)1 << 30)) {
		n = n * 10 + (size_t)(s[i++] - '0');
		digits++;
	}
	if (kind == 'M' || kind == 'm') {
		/* 8-byte counts of a unit: "M8", "M8[ns]", "M8[10s]" */
		if (n != 8 || (i < len && (s[i] != '[' || s[len - 1] != ']')))
			return 0;
		return 8;
	}
	if (i != len || !digits || !n)
		return 0;
	switch (kind) {
	case 'S': case 'V': case 'a': return n;
	case 'U': return n > ((size_t)1 << 28) ? 0 : 4 * n;
	case 'b': case 'i': case 'u': case 'f': case 'c': return n <= 16 ? n : 0;
	default: return 0;
	}
}

struct tsr_b2_lit {
	const char *s;
	size_t at, len;
};

static void tsr_b2_ws(struct tsr_b2_lit *l)
{
	while (l->at < l->len && l->s[l->at] == ' ')
		l->at++;
}

static int tsr_b2_eat(struct tsr_b2_lit *l, char c)
{
	tsr_b2_ws(l);
	if (l->at < l->len && l->s[l->at] == c) {
		l->at++;
		return 1;
	}
	return 0;
}

/* A quoted Python string without escapes or control characters: [*start, +*n) of l->s. */
static int tsr_b2_str(struct tsr_b2_lit *l, size_t *start, size_t *n)
{
	tsr_b2_ws(l);
	if (l->at >= l->len || (l->s[l->at] != '\'' && l->s[l->at] != '"'))
		return 0;
	char q = l->s[l->at++];
	*start = l->at;
	while (l->at < l->len && l->s[l->at] != q) {
		if (l->s[l->at] == '\\' || (unsigned char)l->s[l->at] < 0x20)
			return 0; /* escapes and control characters: not in an NPY header */
		l->at++;
	}
	if (l->at >= l->len)
		return 0;
	*n = l->at - *start;
	l->at++;
	return 1;
}

/* A structured dtype's field list; its size into *size. */
static int tsr_b2_fields(struct tsr_b2_lit *l, int depth, size_t *size)
{
	size_t total = 0;
	if (depth > 4 || !tsr_b2_eat(l, '['))
		return 0;
	do {
		size_t a, n, fsize;
		if (!tsr_b2_eat(l, '(') || !tsr_b2_str(l, &a, &n) || !tsr_b2_eat(l, ','))
			return 0;
		tsr_b2_ws(l);
		if (l->at < l->len && l->s[l->at] == '[') {
			if (!tsr_b2_fields(l, depth + 1, &fsize))
				return 0;
		} else {
			char kind;
			int be;
			if (!tsr_b2_str(l, &a, &n) ||
			    !(fsize = tsr_b2_typestr_size(l->s + a, n, &kind, &be)))
				return 0;
		}
		if (tsr_b2_eat(l, ',') && tsr_b2_eat(l, '(')) {
			/* a subarray field: (n,) or (n, m, ...) */
			do {
				tsr_b2_ws(l);
				size_t d = 0, digits = 0;
				while (l->at < l->len && l->s[l->at] >= '0' && l->s[l->at] <= '9' &&
				       d < ((size_t)1 << 30)) {
					d = d * 10 + (size_t)(l->s[l->at++] - '0');
					digits++;
				}
				if (!digits)
					break;
				if (d && fsize > ((size_t)TSR_DTYPE_RAW_MAX) / d)
					return 0;
				fsize *= d;
			} while (tsr_b2_eat(l, ','));
			if (!tsr_b2_eat(l, ')'))
				return 0;
		}
		if (!tsr_b2_eat(l, ')'))
			return 0;
		total += fsize;
		if (total > TSR_DTYPE_RAW_MAX)
			return 0;
	} while (tsr_b2_eat(l, ','));
	if (!tsr_b2_eat(l, ']'))
		return 0;
	*size = total;
	return 1;
}

int tsr_b2_dtype_ext(const char *s, enum tsr_dtype *dtype_ret, int *big_endian_ret,
		     char **descr_ret)
{
	size_t len = strlen(s), size = 0;
	char kind = 0;
	int be = 0;
	*descr_ret = NULL;
	if (s[0] == '[') {
		struct tsr_b2_lit l = {s, 0, len};
		if (!tsr_b2_fields(&l, 0, &size) || (tsr_b2_ws(&l), l.at != len) || !size)
			return tsr_error(TSR_E_UNSUPPORTED, "structured dtype '%.200s' is not one "
					 "tessera reads", s);
		kind = 'T';
	} else if (!(size = tsr_b2_typestr_size(s, len, &kind, &be)) || strchr("bifuc", kind)) {
		return tsr_error(TSR_E_UNSUPPORTED, "dtype '%.200s' is not supported", s);
	}
	if (kind == 'O')
		return tsr_error(TSR_E_UNSUPPORTED, "dtype '%s': object elements", s);
	char *descr = malloc(len + 1);
	if (!descr)
		return tsr_error(TSR_E_NOMEM, "out of memory");
	memcpy(descr, s, len + 1);
	if (kind == 'M' || kind == 'm') {
		descr[0] = '<'; /* counts are swapped to native order */
		if (strchr("<>|=", s[0]) == NULL || !s[0]) {
			free(descr);
			descr = malloc(len + 2);
			if (!descr)
				return tsr_error(TSR_E_NOMEM, "out of memory");
			descr[0] = '<';
			memcpy(descr + 1, s, len + 1);
		}
		*dtype_ret = kind == 'M' ? TSR_DATETIME64 : TSR_TIMEDELTA64;
		*big_endian_ret = be;
	} else {
		*dtype_ret = TSR_DTYPE_RAW_OF(size);
		*big_endian_ret = 0;
	}
	*descr_ret = descr;
	return TSR_OK;
}
