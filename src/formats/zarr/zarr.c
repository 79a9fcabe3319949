/* zarr.c - the Zarr v2/v3 driver: opens an array of a store (by path, or an OME-Zarr level of
 * an image group) and describes its chunks to the engine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../open.h"
#include "zarr.h"

static void tsr_zarr_free(void *impl)
{
	struct tsr_zarr *z = impl;
	if (!z)
		return;
	for (int k = 0; k < TSR_ZARR_MAX_SHARD; k++)
		tsr_zarr_cache_free(&z->cache[k]);
	tsr_zip_free(z->zip);
	free(z->m.descr);
	free(z->m.fill_wide);
	free(z->dir);
	free(z->label);
	free(z);
}

/* Grid coordinates of chunk number `chunk` (C order over the engine's grid). */
static void tsr_zarr_coords(const struct tsr_array *a, int64_t chunk, int64_t *idx)
{
	for (int i = a->desc.ndim - 1; i >= 0; i--) {
		idx[i] = a->desc.grid[i] ? chunk % a->desc.grid[i] : 0;
		chunk = a->desc.grid[i] ? chunk / a->desc.grid[i] : 0;
	}
}

static int tsr_zarr_chunk_ref(const struct tsr_array *a, int64_t chunk, struct tsr_chunk_ref *ref)
{
	struct tsr_zarr *z = a->impl;
	int64_t idx[TSR_MAX_DIM];
	memcpy(ref, &z->tmpl, sizeof(*ref));
	tsr_zarr_coords(a, chunk, idx);
	if (z->m.nshard) {
		for (int d = 0; d < a->desc.ndim; d++)
			idx[d] *= z->cshape[d];
		return tsr_zarr_shard_ref(z, idx, ref);
	}
	int st = tsr_zarr_chunk_path(z, idx, ref);
	if (!st && z->zip)
		st = tsr_zarr_zip_ref(z, ref);
	return st;
}

int tsr_zarr_chunk_path(const struct tsr_zarr *z, const int64_t *idx, struct tsr_chunk_ref *ref)
{
	char key[512];
	int st = tsr_zarr_key(&z->m, idx, key, sizeof(key));
	if (st)
		return st;
	if (z->dir_len + 1 + strlen(key) >= sizeof(ref->path))
		return tsr_error(TSR_E_UNSUPPORTED, "chunk path longer than %zu bytes", sizeof(ref->path));
	memcpy(ref->path, z->dir, z->dir_len);
	ref->path[z->dir_len] = '/';
	strcpy(ref->path + z->dir_len + 1, key);
	return TSR_OK;
}

/* Messages name a chunk by its key; an inner chunk by its shard's key and its place there. */
static void tsr_zarr_chunk_label(const struct tsr_array *a, int64_t chunk, char *buf, size_t cap)
{
	const struct tsr_zarr *z = a->impl;
	int64_t idx[TSR_MAX_DIM], shard[TSR_MAX_DIM];
	tsr_zarr_coords(a, chunk, idx);
	if (!z->m.nshard) {
		if (tsr_zarr_key(&z->m, idx, buf, cap))
			snprintf(buf, cap, "%lld", (long long)chunk);
		return;
	}
	for (int d = 0; d < a->desc.ndim; d++)
		shard[d] = idx[d] * z->cshape[d] / z->m.chunk[d];
	if (tsr_zarr_key(&z->m, shard, buf, cap)) {
		snprintf(buf, cap, "%lld", (long long)chunk);
		return;
	}
	size_t n = strlen(buf);
	for (int d = 0; d < a->desc.ndim && n + 24 < cap; d++) {
		int64_t in = (idx[d] * z->cshape[d] % z->m.chunk[d]) / z->cshape[d];
		n += (size_t)snprintf(buf + n, cap - n, "%s%lld", d ? "," : " inner chunk (",
				      (long long)in);
	}
	if (a->desc.ndim && n + 2 < cap)
		snprintf(buf + n, cap - n, ")");
}

static const struct tsr_driver_ops tsr_zarr_ops = {
	.name = "zarr", .chunk_ref = tsr_zarr_chunk_ref, .free = tsr_zarr_free};

/* "a, b, c" of the store's arrays, for messages. */
static void tsr_zarr_array_names(const char *store, char *buf, size_t cap)
{
	char **names;
	size_t n;
	buf[0] = '\0';
	if (tsr_zarr_list(store, &names, &n) != TSR_OK) {
		snprintf(buf, cap, "(none found)");
		tsr_error_clear();
		return;
	}
	size_t len = 0;
	for (size_t i = 0; i < n && len + 8 < cap; i++) {
		int w = snprintf(buf + len, cap - len, "%s%s", i ? ", " : "", names[i][0] ? names[i] : "/");
		if (w < 0 || (size_t)w >= cap - len) {
			snprintf(buf + len, cap - len, ", ...");
			break;
		}
		len += (size_t)w;
	}
	if (!n)
		snprintf(buf, cap, "none");
	free(names);
}

/* Fills the array's description and the chunk template from the metadata. */
static int tsr_zarr_describe(struct tsr_array *a, struct tsr_zarr *z)
{
	const struct tsr_zarr_meta *m = &z->m;
	struct tsr_desc *d = &a->desc;
	size_t es = tsr_dtype_size(m->dtype);
	int64_t npix = 1;
	memcpy(z->cshape, m->nshard ? m->shard[m->nshard - 1].inner : m->chunk, sizeof(z->cshape));
	d->ndim = m->ndim;
	for (int i = 0; i < m->ndim; i++) {
		d->shape[i] = m->shape[i];
		d->chunk_shape[i] = z->cshape[i];
		if (npix > ((int64_t)1 << 44) / z->cshape[i])
			return tsr_error(TSR_E_UNSUPPORTED, "a chunk of more than 2^44 elements");
		npix *= z->cshape[i];
	}
	/* Grids must not overflow: per level, blobs over the whole array. */
	for (int k = 0; k < m->nshard; k++) {
		struct tsr_zarr_shard *s = &z->m.shard[k];
		s->nblobs = 1;
		for (int i = 0; i < m->ndim; i++) {
			s->grid[i] = (m->shape[i] + s->outer[i] - 1) / s->outer[i];
			if (s->grid[i] && s->nblobs > ((int64_t)1 << 50) / s->grid[i])
				return tsr_error(TSR_E_UNSUPPORTED, "more than 2^50 shards");
			s->nblobs *= s->grid[i];
		}
		int st = tsr_zarr_cache_init(&z->cache[k], s->nblobs);
		if (st)
			return st;
	}
	int64_t nchunks = 1;
	for (int i = 0; i < m->ndim; i++) {
		int64_t g = (m->shape[i] + z->cshape[i] - 1) / z->cshape[i];
		if (g && nchunks > ((int64_t)1 << 56) / g)
			return tsr_error(TSR_E_UNSUPPORTED, "more than 2^56 chunks");
		nchunks *= g;
	}
	d->dtype = m->dtype;
	d->stored_dtype = m->dtype;
	d->descr = m->descr;
	if (m->bits_of) {
		/* NumPy has no such dtype: the caller names one of its size to read its bits as */
		enum tsr_dtype t = a->want_dtype;
		if (t == TSR_DTYPE_INVALID)
			return tsr_error(TSR_E_UNSUPPORTED, "data_type '%s' has no NumPy dtype: give "
					 "a dtype of %zu-byte items to read its bits (%s; "
					 "ml_dtypes' %s views them)", m->bits_of, es,
					 es == 2 ? "uint16" : "uint8", m->bits_of);
		if (tsr_dtype_size(t) != es)
			return tsr_error(TSR_E_INVALID_ARG, "dtype %s has %zu-byte items, the %s "
					 "array has %zu-byte items", tsr_dtype_name(t),
					 tsr_dtype_size(t), m->bits_of, es);
		if (a->want_order == '>' && es > 1)
			return tsr_error(TSR_E_UNSUPPORTED, "a big-endian dtype ('>'): tessera "
					 "returns values in native order");
		d->dtype = t;
		d->dtype_source = "caller";
	}
	d->scaled = 0;
	d->stored_nbytes = 0; /* unknown without listing every chunk */
	d->max_chunk_nbytes = (uint64_t)npix * es;
	snprintf(d->codec, sizeof(d->codec), "%s", m->codec);
	snprintf(d->reader, sizeof(d->reader), "tessera");
	d->unit_label = z->label;
	d->name = strcmp(z->label, "/") ? z->label : "";
	d->chunk_label = tsr_zarr_chunk_label;

	struct tsr_chunk_ref *t = &z->tmpl;
	memset(t, 0, sizeof(*t));
	t->missing_is_fill = 1;
	t->nbytes = TSR_WHOLE_FILE;
	t->npre = m->npre;
	memcpy(t->pre, m->pre, sizeof(t->pre));
	t->ndim = m->ndim;
	for (int i = 0; i < m->ndim; i++)
		t->extent[i] = z->cshape[i]; /* stored chunks are full size, edge ones too */
	t->npix = npix;
	t->codec.id = TSR_CODEC_NONE;
	t->codec.elem = m->dtype;
	t->codec.big_endian = m->big_endian;
	t->xform.kind = TSR_XF_COPY;
	t->xform.out = m->dtype;
	t->xform.has_fill = 1;
	memcpy(t->xform.fill, m->fill, sizeof(t->xform.fill));
	t->xform.fill_wide = m->fill_wide;
	t->codec_name = d->codec;
	t->nfilter = m->nfilter;
	memcpy(t->filter, m->filter, sizeof(t->filter));
	t->has_perm = m->has_perm;
	memcpy(t->perm, m->perm, sizeof(t->perm));
	return TSR_OK;
}

/* The separator of v2 array `path`'s chunk keys where its .zarray names none: '/' where a
 * group above it lists it as a dataset of NGFF 0.2 to 0.4 (tsr_zarr_ome_nested), opened by
 * its level or its path alike; else '.', zarr's default. */
static char tsr_zarr_v2_default_sep(const char *store, const char *path)
{
	char *up = strdup(path);
	int nested = 0;
	if (!up)
		return '.';
	/* each group above it, nearest first: up[0, i) ("" the root), the dataset below it */
	for (size_t i = strlen(path); i-- > 0 && !nested;) {
		if (up[i] != '/' && i > 0)
			continue;
		const char *ds = up[i] == '/' ? path + i + 1 : path;
		up[i] = '\0';
		struct tsr_zarr_node g = {0};
		if (tsr_zarr_node_load(store, 2, up, &g) == TSR_OK && !g.is_array)
			nested = tsr_zarr_ome_nested(g.attrs, ds);
		tsr_zarr_node_free(&g);
	}
	free(up);
	tsr_error_clear(); /* (a group that does not load only names no dataset) */
	return nested ? '/' : '.';
}

/* Resolves the node to open: the array at `path`, or a level of the OME-Zarr group there. */
static int tsr_zarr_resolve(struct tsr_array *a, const char *store, int version, char **path,
			    const struct tsr_open_options *o, struct tsr_zarr_node *n)
{
	const char *shown = (*path)[0] ? *path : "/";
	int st = tsr_zarr_node_load(store, version, *path, n);
	if (st == TSR_E_NOT_FOUND) {
		char names[512];
		tsr_zarr_array_names(store, names, sizeof(names));
		return tsr_error(TSR_E_NOT_FOUND, "%s: no array or group '%s' (arrays: %s)", a->path,
				 shown, names);
	}
	if (st) {
		tsr_error_prefix("%s: array %s", a->path, shown);
		return st;
	}
	if (n->is_array) {
		if (o->level > 0)
			return tsr_error(TSR_E_RANGE, "%s: array %s: level %d: not an OME-Zarr "
					 "multiscale group", a->path, shown, o->level);
		return TSR_OK;
	}
	int level = o->level < 0 ? 0 : o->level;
	const char *ds;
	st = tsr_zarr_ome_level(n->attrs, level, &ds, NULL);
	if (st == TSR_E_NOT_FOUND) {
		char names[512];
		tsr_zarr_array_names(store, names, sizeof(names));
		return tsr_error(TSR_E_NOT_FOUND, "%s: '%s' is a group, not an array; its store holds "
				 "the arrays: %s", a->path, shown, names);
	}
	if (st) {
		tsr_error_prefix("%s: group %s", a->path, shown);
		return st;
	}
	char *joined = tsr_zarr_join(*path, ds), *norm = NULL;
	if (!joined)
		return tsr_error(TSR_E_NOMEM, "out of memory");
	st = tsr_zarr_norm_path(joined, &norm);
	free(joined);
	if (st)
		return st;
	free(*path);
	*path = norm;
	a->desc.index = level;
	a->desc.level = level;
	tsr_zarr_node_free(n);
	st = tsr_zarr_node_load(store, version, *path, n);
	if (st == TSR_OK && !n->is_array)
		st = tsr_error(TSR_E_FORMAT, "not an array");
	if (st)
		tsr_error_prefix("%s: multiscale level %d: array %s", a->path, level, *path);
	return st;
}

int tsr_zarr_open(struct tsr_array *a, const struct tsr_open_options *o)
{
	struct tsr_zarr_node n = {0};
	char *store = strdup(a->path), *path = NULL;
	struct tsr_zarr *z = NULL;
	struct tsr_zip *zip = NULL;
	int st;
	a->desc.unit_noun = "array";
	a->desc.chunk_noun = "chunk";
	if (!store)
		return tsr_error(TSR_E_NOMEM, "out of memory");
	size_t len = strlen(store);
	while (len > 1 && store[len - 1] == '/')
		store[--len] = '\0';
	if (a->fd >= 0) {
		/* a zip file (zarr-python's ZipStore): its entries are the store's keys */
		if ((st = tsr_zip_open(store, a->fd, a->file_nbytes, &zip))) {
			tsr_error_prefix("%s", a->path);
			goto fail;
		}
		tsr_zarr_zip_enter(zip);
	}
	int version = tsr_zarr_store_version(store);
	if ((st = tsr_zarr_norm_path(o->array, &path)))
		goto fail;
	if (!version && path[0]) {
		/* a store whose root holds no metadata (arrays written by their paths alone):
		 * zarr-python opens an array in it by its path, whose own metadata gives the
		 * version */
		char *dir = tsr_zarr_join(store, path);
		if (!dir) {
			st = tsr_error(TSR_E_NOMEM, "out of memory");
			goto fail;
		}
		version = tsr_zarr_store_version(dir);
		free(dir);
	}
	if (!version) {
		st = tsr_error(TSR_E_FORMAT, "%s: not a Zarr store (no .zarray, .zgroup or zarr.json)",
			       a->path);
		goto fail;
	}
	if ((st = tsr_zarr_resolve(a, store, version, &path, o, &n)))
		goto fail;
	z = calloc(1, sizeof(*z));
	if (!z) {
		st = tsr_error(TSR_E_NOMEM, "out of memory");
		goto fail;
	}
	z->dir = tsr_zarr_join(store, path);
	z->label = strdup(path[0] ? path : "/");
	if (!z->dir || !z->label) {
		st = tsr_error(TSR_E_NOMEM, "out of memory");
		goto fail;
	}
	z->dir_len = strlen(z->dir);
	z->zip = zip;
	zip = NULL;
	if (version == 2) {
		st = tsr_zarr_v2_parse(n.json, &z->m);
		if (!st && !z->m.sep_given && path[0])
			z->m.sep = tsr_zarr_v2_default_sep(store, path);
	} else
		st = tsr_zarr_v3_parse(n.json, &z->m);
	if (st) {
		tsr_error_prefix("%s: array %s: %s", a->path, z->label,
				 version == 2 ? ".zarray" : "zarr.json");
		goto fail;
	}
	if ((st = tsr_zarr_describe(a, z))) {
		tsr_error_prefix("%s: array %s", a->path, z->label);
		goto fail;
	}
	a->ops = &tsr_zarr_ops;
	a->impl = z;
	z = NULL;
fail:
	tsr_zarr_zip_enter(NULL);
	tsr_zip_free(zip);
	tsr_zarr_free(z);
	if (st)
		a->desc.unit_label = a->desc.name = NULL;
	tsr_zarr_node_free(&n);
	free(path);
	free(store);
	return st;
}
