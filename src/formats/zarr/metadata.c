/* metadata.c - a Zarr array's metadata as JSON: format version, fill value, dimension names,
 * attributes, the bytes its chunks take, its place in an OME-Zarr multiscale group, and the
 * metadata document itself. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../metadata.h"
#include "zarr.h"

/* Chunk folders nest at most this deep (a '/' separator per axis, shards, a little more). */
#define TSR_ZARR_MAX_NEST (TSR_MAX_DIM + 4)

static int tsr_zarr_is_meta(const char *name)
{
	return !strcmp(name, ".zarray") || !strcmp(name, ".zattrs") || !strcmp(name, ".zgroup") ||
	       !strcmp(name, ".zmetadata") || !strcmp(name, "zarr.json");
}

/* Bytes of the chunk files under dir (everything but metadata documents). */
static uint64_t tsr_zarr_stored(const char *dir, int depth)
{
	DIR *d = opendir(dir);
	uint64_t total = 0;
	struct dirent *e;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || tsr_zarr_is_meta(e->d_name))
			continue;
		char *p = tsr_zarr_join(dir, e->d_name);
		struct stat sb;
		if (p && lstat(p, &sb) == 0) {
			if (S_ISREG(sb.st_mode))
				total += (uint64_t)sb.st_size;
			else if (S_ISDIR(sb.st_mode) && depth < TSR_ZARR_MAX_NEST)
				total += tsr_zarr_stored(p, depth + 1);
		}
		free(p);
	}
	closedir(d);
	return total;
}

/* A zipped array's stored bytes (its zip entered): its chunk entries' (those under its key
 * that are not metadata), each name once, as its reads find it (tsr_zip_find: the last of
 * duplicates). */
static uint64_t tsr_zarr_zip_stored(const struct tsr_zip *zip, const char *dir)
{
	const char *key = ""; /* (the store's root: the zip itself) */
	if (strcmp(dir, zip->root) && !tsr_zarr_zip_of(dir, &key))
		return 0;
	size_t kn = strlen(key);
	uint64_t total = 0;
	for (size_t i = 0; i < zip->n; i++) {
		const char *name = zip->entries[i].name;
		const char *base = strrchr(name, '/');
		base = base ? base + 1 : name;
		if ((kn && (strncmp(name, key, kn) || name[kn] != '/')) || !*base ||
		    tsr_zarr_is_meta(base) || (i && !strcmp(name, zip->entries[i - 1].name)))
			continue;
		const struct tsr_zip_entry *e = tsr_zip_find(zip, name);
		total += e ? e->csize : 0;
	}
	return total;
}

/* The multiscale group above array `path` that has it as a level: its entry, with the
 * group's axes and the level's coordinate transformations. NULL (and no error) when none. */
static int tsr_zarr_multiscale(const char *store, int version, const char *path, cJSON **ms_ret)
{
	*ms_ret = NULL;
	size_t len = strlen(path);
	char *g = strdup(path);
	if (!g)
		return tsr_error(TSR_E_NOMEM, "out of memory");
	int st = TSR_OK;
	while (len > 0 && !*ms_ret && !st) {
		/* the parent: the path before the last '/', or the root */
		while (len > 0 && g[len - 1] != '/')
			len--;
		g[len ? len - 1 : 0] = '\0';
		len = strlen(g);
		struct tsr_zarr_node n;
		int nlevels = 0;
		const char *ds;
		if (tsr_zarr_node_load(store, version, g, &n) == TSR_OK && !n.is_array &&
		    tsr_zarr_ome_level(n.attrs, 0, &ds, &nlevels) == TSR_OK) {
			for (int k = 0; k < nlevels && !*ms_ret && !st; k++) {
				char *joined = NULL, *norm = NULL;
				if (tsr_zarr_ome_level(n.attrs, k, &ds, NULL) == TSR_OK &&
				    (joined = tsr_zarr_join(g, ds)) &&
				    tsr_zarr_norm_path(joined, &norm) == TSR_OK && !strcmp(norm, path)) {
					const cJSON *msl = cJSON_GetObjectItemCaseSensitive(n.attrs, "multiscales");
					if (!msl)
						msl = cJSON_GetObjectItemCaseSensitive(
							cJSON_GetObjectItemCaseSensitive(n.attrs, "ome"),
							"multiscales");
					const cJSON *m0 = cJSON_GetArrayItem(msl, 0);
					const cJSON *dsl = cJSON_GetObjectItemCaseSensitive(m0, "datasets");
					const cJSON *ct = cJSON_GetObjectItemCaseSensitive(
						cJSON_GetArrayItem(dsl, k), "coordinateTransformations");
					const cJSON *axes = cJSON_GetObjectItemCaseSensitive(m0, "axes");
					/* (the image-wide transforms, applied after each level's own) */
					const cJSON *mct = cJSON_GetObjectItemCaseSensitive(
						m0, "coordinateTransformations");
					cJSON *o = cJSON_CreateObject();
					if ((st = tsr_json_add(o, "group", cJSON_CreateString(g))) ||
					    (st = tsr_json_add(o, "level", cJSON_CreateNumber(k))) ||
					    (st = tsr_json_add(o, "nlevels", cJSON_CreateNumber(nlevels))) ||
					    (st = tsr_json_add(o, "axes", axes ? cJSON_Duplicate(axes, 1)
									    : cJSON_CreateNull())) ||
					    (st = tsr_json_add(o, "coordinateTransformations",
							       ct ? cJSON_Duplicate(ct, 1)
								  : cJSON_CreateNull())) ||
					    (st = tsr_json_add(o, "groupCoordinateTransformations",
							       mct ? cJSON_Duplicate(mct, 1)
								   : cJSON_CreateNull())) ||
					    (st = tsr_json_add(o, "attributes",
							       n.attrs ? cJSON_Duplicate(n.attrs, 1)
								       : cJSON_CreateObject())))
						cJSON_Delete(o);
					else
						*ms_ret = o;
				}
				free(joined);
				free(norm);
			}
		}
		tsr_zarr_node_free(&n);
		tsr_error_clear();
	}
	free(g);
	return st;
}

static cJSON *tsr_copy_or_null(const cJSON *item)
{
	return item ? cJSON_Duplicate(item, 1) : cJSON_CreateNull();
}

/* item's members moved into a new item of its kind, item left empty: a node's documents are
 * its own and freed after the metadata is made, so a copy of them (a cJSON item a number or
 * string: 4 million for a .zattrs of that many) is waste. A v2 node's attributes are a
 * document of their own; a v3 node's lie in its zarr.json, which the metadata holds too. */
static cJSON *tsr_json_take(cJSON *item)
{
	cJSON *t = cJSON_IsObject(item)  ? cJSON_CreateObject()
		   : cJSON_IsArray(item) ? cJSON_CreateArray()
					 : NULL;
	if (!t)
		return item ? cJSON_Duplicate(item, 1) : cJSON_CreateNull();
	t->child = item->child;
	item->child = NULL;
	return t;
}

/* A node's attributes for its metadata: moved out of a v2 node, copied out of a v3 node's
 * zarr.json (an empty object where there are none). */
static cJSON *tsr_node_attrs(struct tsr_zarr_node *n)
{
	if (!n->attrs)
		return cJSON_CreateObject();
	return n->version == 2 ? tsr_json_take(n->attrs) : cJSON_Duplicate(n->attrs, 1);
}

static int tsr_zarr_metadata_in(const struct tsr_array *a, int count, cJSON *root);

/* A zipped store's documents are its entries: the array's zip is entered for the reads. */
int tsr_zarr_metadata(const struct tsr_array *a, int count, cJSON *root)
{
	const struct tsr_zarr *z = a->impl;
	tsr_zarr_zip_enter(z->zip);
	int st = tsr_zarr_metadata_in(a, count, root);
	tsr_zarr_zip_enter(NULL);
	return st;
}

static int tsr_zarr_metadata_in(const struct tsr_array *a, int count, cJSON *root)
{
	const struct tsr_zarr *z = a->impl;
	const char *path = strcmp(z->label, "/") ? z->label : "";
	char *store = strdup(a->path);
	if (!store)
		return tsr_error(TSR_E_NOMEM, "out of memory");
	size_t len = strlen(store);
	while (len > 1 && store[len - 1] == '/')
		store[--len] = '\0';
	int version = z->m.version;
	struct tsr_zarr_node n;
	int st = tsr_zarr_node_load_attrs(store, version, path, &n);
	if (st == TSR_OK && !n.is_array)
		st = tsr_error(TSR_E_FORMAT, "no longer an array");
	if (st) {
		tsr_error_prefix("%s: array %s", a->path, z->label);
		tsr_zarr_node_free(&n);
		free(store);
		return st;
	}
	const cJSON *attrs = n.attrs;
	const cJSON *dims = version == 3 ? cJSON_GetObjectItemCaseSensitive(n.json, "dimension_names")
					 : cJSON_GetObjectItemCaseSensitive(attrs, "_ARRAY_DIMENSIONS");
	cJSON *ms = NULL;
	if (!st)
		st = tsr_json_add(root, "array", cJSON_CreateString(path));
	if (!st)
		st = tsr_json_add(root, "zarr_format", cJSON_CreateNumber(version));
	if (!st)
		st = tsr_json_add(root, "fill_value", tsr_copy_or_null(
			cJSON_GetObjectItemCaseSensitive(n.json, "fill_value")));
	if (!st)
		st = tsr_json_add(root, "dimension_names", tsr_copy_or_null(dims));
	if (!st)
		st = tsr_json_add(root, "attributes", tsr_node_attrs(&n));
	if (!st)
		st = tsr_json_add(root, "stored_nbytes",
				  !count ? cJSON_CreateNull()
					 : tsr_json_int((int64_t)(z->zip ? tsr_zarr_zip_stored(z->zip, z->dir)
									 : tsr_zarr_stored(z->dir, 0))));
	cJSON *layout = st ? NULL : cJSON_CreateObject();
	if (!st)
		st = tsr_json_add(root, "layout", layout);
	if (!st)
		st = tsr_json_add(layout, "kind", cJSON_CreateString("chunks"));
	if (!st)
		st = tsr_json_add(layout, "chunk_shape", tsr_json_dims(z->cshape, z->m.ndim));
	if (!st)
		st = tsr_json_add(layout, "shard_shape", z->m.nshard ? tsr_json_dims(z->m.chunk, z->m.ndim)
								     : cJSON_CreateNull());
	if (!st)
		st = tsr_zarr_multiscale(store, version, path, &ms);
	if (!st)
		st = tsr_json_add(root, "multiscale", ms ? ms : cJSON_CreateNull());
	if (!st)
		st = tsr_json_add(root, "metadata", tsr_json_take(n.json));
	if (st)
		tsr_error_prefix("%s: array %s", a->path, z->label);
	tsr_zarr_node_free(&n);
	free(store);
	return st;
}

int tsr_zarr_node_metadata(const char *store, const char *name, cJSON *root)
{
	int version = tsr_zarr_store_version(store);
	struct tsr_zarr_node n;
	int st = version ? tsr_zarr_node_load_attrs(store, version, name, &n)
			 : tsr_error(TSR_E_FORMAT, "no longer a Zarr store");
	if (st) {
		if (version)
			tsr_zarr_node_free(&n);
		tsr_error_prefix("%s: %s", store, name[0] ? name : "/");
		return st;
	}
	st = tsr_json_add(root, "name", cJSON_CreateString(name));
	if (!st)
		st = tsr_json_add(root, "zarr_format", cJSON_CreateNumber(version));
	if (!st)
		st = tsr_json_add(root, "node_type", cJSON_CreateString(n.is_array ? "array" : "group"));
	if (!st)
		st = tsr_json_add(root, "attributes", tsr_node_attrs(&n));
	if (!st)
		st = tsr_json_add(root, "metadata", tsr_json_take(n.json));
	if (st)
		tsr_error_prefix("%s: %s", store, name[0] ? name : "/");
	tsr_zarr_node_free(&n);
	return st;
}
