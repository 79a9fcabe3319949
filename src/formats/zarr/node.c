/* node.c - Zarr stores and their nodes: which version, where a node's metadata is (its own file
 * or the store's consolidated metadata), and array paths. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "zarr.h"

static int tsr_zarr_exists(const char *dir, const char *name)
{
	char *p = tsr_zarr_join(dir, name);
	struct stat st;
	const char *key;
	const struct tsr_zip *zip = p ? tsr_zarr_zip_of(p, &key) : NULL;
	if (zip) {
		int found = tsr_zip_find(zip, key) != NULL;
		free(p);
		return found;
	}
	int ok = p && stat(p, &st) == 0 && S_ISREG(st.st_mode);
	free(p);
	return ok;
}

int tsr_zarr_store_version(const char *dir)
{
	if (tsr_zarr_exists(dir, "zarr.json"))
		return 3;
	if (tsr_zarr_exists(dir, ".zarray") || tsr_zarr_exists(dir, ".zgroup") ||
	    tsr_zarr_exists(dir, ".zmetadata"))
		return 2;
	return 0;
}

int tsr_zarr_norm_path(const char *in, char **out_ret)
{
	size_t n = in ? strlen(in) : 0;
	char *out = malloc(n + 1);
	if (!out)
		return tsr_error(TSR_E_NOMEM, "out of memory");
	size_t o = 0;
	const char *p = in ? in : "";
	while (*p) {
		while (*p == '/' || *p == '\\')
			p++;
		const char *s = p;
		while (*p && *p != '/' && *p != '\\')
			p++;
		size_t len = (size_t)(p - s);
		if (!len)
			break;
		if ((len == 1 && s[0] == '.') || (len == 2 && s[0] == '.' && s[1] == '.')) {
			free(out);
			return tsr_error(TSR_E_INVALID_ARG, "array path '%s': '.' and '..' are not allowed",
					 in);
		}
		if (o)
			out[o++] = '/';
		memcpy(out + o, s, len);
		o += len;
	}
	out[o] = '\0';
	*out_ret = out;
	return TSR_OK;
}

void tsr_zarr_node_free(struct tsr_zarr_node *n)
{
	for (int i = 0; i < 3; i++)
		cJSON_Delete(n->owned[i]);
	memset(n, 0, sizeof(*n));
}

/* Looks key up in the consolidated metadata of the store (v2 .zmetadata, v3 root zarr.json
 * "consolidated_metadata"); the documents stay in n->owned. */
static const cJSON *tsr_zarr_consolidated(const char *store, int version, struct tsr_zarr_node *n,
					  const char *key)
{
	if (!n->owned[2]) {
		cJSON *j = NULL;
		char *p = tsr_zarr_join(store, version == 3 ? "zarr.json" : ".zmetadata");
		if (!p || tsr_zarr_json_load(p, &j)) {
			free(p);
			tsr_error_clear();
			return NULL;
		}
		free(p);
		n->owned[2] = j;
	}
	const cJSON *meta;
	if (version == 3) {
		const cJSON *cm = cJSON_GetObjectItemCaseSensitive(n->owned[2], "consolidated_metadata");
		meta = cJSON_GetObjectItemCaseSensitive(cm, "metadata");
	} else {
		meta = cJSON_GetObjectItemCaseSensitive(n->owned[2], "metadata");
	}
	return cJSON_IsObject(meta) ? cJSON_GetObjectItemCaseSensitive(meta, key) : NULL;
}

/* A metadata document of node path: its file, else (unless file_only) the consolidated
 * entry. */
static int tsr_zarr_doc(const char *store, int version, const char *path, const char *file,
			struct tsr_zarr_node *n, int slot, int file_only, const cJSON **doc_ret)
{
	char *dir = tsr_zarr_join(store, path), *p = dir ? tsr_zarr_join(dir, file) : NULL;
	free(dir);
	if (!p)
		return tsr_error(TSR_E_NOMEM, "out of memory");
	cJSON *j = NULL;
	int st = tsr_zarr_json_load(p, &j);
	free(p);
	if (st == TSR_OK) {
		n->owned[slot] = j;
		*doc_ret = j;
		return TSR_OK;
	}
	if (st != TSR_E_NOT_FOUND || file_only)
		return st;
	/* Consolidated keys: "a/b/.zarray" (v2), "a/b" (v3; the root itself is not listed). */
	char key[1024];
	if (version == 3) {
		if (!path[0])
			return tsr_error(TSR_E_NOT_FOUND, "no %s", file);
		snprintf(key, sizeof(key), "%s", path);
	} else {
		snprintf(key, sizeof(key), "%s%s%s", path, path[0] ? "/" : "", file);
	}
	const cJSON *c = tsr_zarr_consolidated(store, version, n, key);
	if (!c)
		return tsr_error(TSR_E_NOT_FOUND, "no %s", file);
	*doc_ret = c;
	return TSR_OK;
}

static int tsr_zarr_node_read(const char *store, int version, const char *path,
			      struct tsr_zarr_node *n, int strict)
{
	const cJSON *doc = NULL;
	int st;
	memset(n, 0, sizeof(*n));
	n->version = version;
	if (version == 3) {
		if ((st = tsr_zarr_doc(store, 3, path, "zarr.json", n, 0, 0, &doc)))
			return st;
		const cJSON *zf = cJSON_GetObjectItemCaseSensitive(doc, "zarr_format");
		const cJSON *nt = cJSON_GetObjectItemCaseSensitive(doc, "node_type");
		if (!cJSON_IsNumber(zf) || zf->valuedouble != 3)
			return tsr_error(TSR_E_FORMAT, "zarr.json: zarr_format is not 3");
		if (!cJSON_IsString(nt) || (strcmp(nt->valuestring, "array") &&
					    strcmp(nt->valuestring, "group")))
			return tsr_error(TSR_E_FORMAT, "zarr.json: node_type is not \"array\" or \"group\"");
		n->is_array = !strcmp(nt->valuestring, "array");
		n->json = (cJSON *)doc;
		n->attrs = cJSON_GetObjectItemCaseSensitive(doc, "attributes");
		return TSR_OK;
	}
	/* The files first, .zarray then .zgroup; then the consolidated entries, in that order:
	 * a group that is a folder of files (the root of a consolidated store among them) is
	 * known without parsing the consolidated document, which can be megabytes. */
	for (int consolidated = 0; consolidated < 2; consolidated++) {
		st = tsr_zarr_doc(store, 2, path, ".zarray", n, 0, !consolidated, &doc);
		if (st == TSR_OK) {
			n->is_array = 1;
			break;
		}
		if (st == TSR_E_NOT_FOUND)
			st = tsr_zarr_doc(store, 2, path, ".zgroup", n, 0, !consolidated, &doc);
		if (st != TSR_E_NOT_FOUND)
			break;
	}
	if (st)
		return st == TSR_E_NOT_FOUND ? tsr_error(TSR_E_NOT_FOUND, "no .zarray or .zgroup") : st;
	n->json = (cJSON *)doc;
	/* An array's .zattrs is read when its attributes are asked for (tsr_zarr_node_load_attrs),
	 * as zarr-python reads them: opening and reading an array never parse it, so one that
	 * is large or does not load costs nothing there (its metadata and attrs raise). A group's
	 * are read with it: its multiscales name its levels. */
	if (!strict && n->is_array)
		return TSR_OK;
	st = tsr_zarr_doc(store, 2, path, ".zattrs", n, 1, 0, &doc);
	if (st == TSR_OK)
		n->attrs = (cJSON *)doc;
	else if (st != TSR_E_NOT_FOUND)
		return st;
	tsr_error_clear();
	return TSR_OK;
}

/* A node that loads but is then refused owns documents already: freed here, so no caller leaks
 * them on its error path (issue 21, D4). */
int tsr_zarr_node_load(const char *store, int version, const char *path, struct tsr_zarr_node *n)
{
	int st = tsr_zarr_node_read(store, version, path, n, 0);
	if (st)
		tsr_zarr_node_free(n);
	return st;
}

int tsr_zarr_node_load_attrs(const char *store, int version, const char *path,
			     struct tsr_zarr_node *n)
{
	int st = tsr_zarr_node_read(store, version, path, n, 1);
	if (st)
		tsr_zarr_node_free(n);
	return st;
}
