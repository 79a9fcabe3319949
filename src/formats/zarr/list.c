/* list.c - the arrays of a Zarr store: from consolidated metadata when there is some, else by
 * walking its groups (never into arrays, whose folders hold chunks). */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "zarr.h"

/* Groups deeper than this are not walked (docs/info-json.md says so; the walk recurses). */
#define TSR_ZARR_MAX_DEPTH 64

struct tsr_zarr_names {
	char **v;
	size_t n, cap;
};

static int tsr_zarr_names_add(struct tsr_zarr_names *l, const char *name)
{
	int st = tsr_grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v), 16);
	if (st)
		return st;
	if (!(l->v[l->n] = strdup(name)))
		return tsr_error(TSR_E_NOMEM, "out of memory");
	l->n++;
	return TSR_OK;
}

static void tsr_zarr_names_free(struct tsr_zarr_names *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

int tsr_zarr_path_cmp(const char *a, const char *b)
{
	for (;; a++, b++) {
		/* '/' below every other byte, so that a node's subtree follows it whole */
		int x = *a == '/' ? 1 : (unsigned char)*a, y = *b == '/' ? 1 : (unsigned char)*b;
		if (x != y || !x)
			return x - y;
	}
}

static int tsr_zarr_cmp(const void *a, const void *b)
{
	return tsr_zarr_path_cmp(*(char *const *)a, *(char *const *)b);
}

/* Consolidated metadata: v2 keys "a/b/.zarray"; v3 keys "a/b" with node_type "array". */
static int tsr_zarr_list_consolidated(const cJSON *meta, int version, struct tsr_zarr_names *l)
{
	const cJSON *e;
	int st;
	cJSON_ArrayForEach(e, meta) {
		const char *k = e->string;
		size_t len = strlen(k);
		if (version == 2) {
			if (len >= 7 && !strcmp(k + len - 7, ".zarray") && (len == 7 || k[len - 8] == '/')) {
				char name[1024];
				size_t nl = len > 7 ? len - 8 : 0;
				if (nl >= sizeof(name))
					continue;
				memcpy(name, k, nl);
				name[nl] = '\0';
				if ((st = tsr_zarr_names_add(l, name)))
					return st;
			}
		} else {
			const cJSON *nt = cJSON_GetObjectItemCaseSensitive(e, "node_type");
			if (cJSON_IsString(nt) && !strcmp(nt->valuestring, "array") &&
			    (st = tsr_zarr_names_add(l, k)))
				return st;
		}
	}
	return TSR_OK;
}

/* Whether a walked node is listed as an array: one that says so, and one whose metadata is
 * there but does not load (node load status ls), whose kind its metadata would have said; so
 * a broken array is listed and opening it names the fault, where leaving it out would hide it. */
static int tsr_zarr_listed(int ls, const struct tsr_zarr_node *n)
{
	return ls == TSR_OK ? n->is_array : ls != TSR_E_NOT_FOUND && ls != TSR_E_NOMEM;
}

/* A zip store has no directories: its arrays are the nodes whose metadata entries are named
 * PATH/.zarray (v2) or PATH/zarr.json (v3) and say they are arrays. */
static int tsr_zarr_zip_walk(const struct tsr_zip *zip, const char *store, int version,
			     struct tsr_zarr_names *l)
{
	const char *meta = version == 2 ? ".zarray" : "zarr.json";
	size_t ml = strlen(meta);
	int st = TSR_OK;
	for (size_t i = 0; i < zip->n && st == TSR_OK; i++) {
		const char *name = zip->entries[i].name;
		size_t len = strlen(name);
		if (len <= ml + 1 || strcmp(name + len - ml, meta) || name[len - ml - 1] != '/' ||
		    (i && !strcmp(name, zip->entries[i - 1].name)))
			continue;
		char *rel = strndup(name, len - ml - 1), *norm = NULL;
		struct tsr_zarr_node n;
		if (!rel || tsr_zarr_norm_path(rel, &norm)) {
			free(rel);
			st = tsr_error(TSR_E_NOMEM, "out of memory");
			break;
		}
		if (norm[0]) {
			int ls = tsr_zarr_node_load(store, version, norm, &n);
			if (tsr_zarr_listed(ls, &n))
				st = tsr_zarr_names_add(l, norm);
			else if (ls == TSR_E_NOMEM)
				st = ls;
			tsr_zarr_node_free(&n);
		}
		free(rel);
		free(norm);
	}
	tsr_error_clear();
	return st;
}

/* The directories a walk is inside, by device and inode: a link back to one of them (`ln -s .
 * same`) is a loop, not a subtree, and is left out (each loop doubled the paths a level). */
struct tsr_zarr_above {
	dev_t dev[TSR_ZARR_MAX_DEPTH + 1];
	ino_t ino[TSR_ZARR_MAX_DEPTH + 1];
};

static int tsr_zarr_is_above(const struct tsr_zarr_above *a, int depth, const struct stat *sb)
{
	for (int i = 0; i < depth; i++)
		if (a->dev[i] == sb->st_dev && a->ino[i] == sb->st_ino)
			return 1;
	return 0;
}

/* A walked folder's version: its metadata's; or the store's where a metadata name is there but
 * is no file that can be read (a folder named .zarray, a folder that may not be searched): such
 * a node is listed, and opening it names the fault (tsr_zarr_listed). 0: no node. */
static int tsr_zarr_walked_version(const char *sub, int version)
{
	int v = tsr_zarr_store_version(sub);
	static const char *const names[] = {"zarr.json", ".zarray", ".zgroup"};
	for (size_t i = 0; !v && i < sizeof(names) / sizeof(*names); i++) {
		char *p = tsr_zarr_join(sub, names[i]);
		struct stat sb;
		if (p && (stat(p, &sb) == 0 || errno == EACCES))
			v = version;
		free(p);
	}
	return v;
}

/* Whether a node whose metadata does not load may be a group, whose folder is worth walking:
 * a v2 one with .zgroup and no .zarray (a v2 array's folder may hold a deep tree of chunk
 * folders), any v3 one (the walk of a v3 folder goes no deeper than its folders' zarr.json). */
static int tsr_zarr_maybe_group(const char *sub, int version)
{
	if (version == 3)
		return 1;
	char *g = tsr_zarr_join(sub, ".zgroup"), *a = tsr_zarr_join(sub, ".zarray");
	struct stat sb;
	int yes = g && a && lstat(g, &sb) == 0 && lstat(a, &sb) != 0 && errno == ENOENT;
	free(g);
	free(a);
	return yes;
}

static int tsr_zarr_walk(const char *store, int version, const char *path, int depth,
			 struct tsr_zarr_above *above, struct tsr_zarr_names *l)
{
	char *dir = tsr_zarr_join(store, path);
	if (!dir)
		return tsr_error(TSR_E_NOMEM, "out of memory");
	struct stat here;
	if (stat(dir, &here) == 0) {
		above->dev[depth] = here.st_dev;
		above->ino[depth] = here.st_ino;
	}
	DIR *d = opendir(dir);
	int st = TSR_OK;
	if (!d) {
		free(dir);
		const struct tsr_zip *zip = depth == 0 ? tsr_zarr_zip_root(store) : NULL;
		return zip ? tsr_zarr_zip_walk(zip, store, version, l) : TSR_OK;
	}
	struct dirent *e;
	while (st == TSR_OK && (e = readdir(d))) {
		/* a dot-named folder is listed where it is a node (zarr-python lists it), but not
		 * walked as an implicit group (.git, .ipynb_checkpoints) */
		int hidden = e->d_name[0] == '.';
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char *sub = tsr_zarr_join(dir, e->d_name);
		char *rel = tsr_zarr_join(path, e->d_name);
		struct stat sb;
		if (!sub || !rel) {
			st = tsr_error(TSR_E_NOMEM, "out of memory");
		} else if (stat(sub, &sb) == 0 && S_ISDIR(sb.st_mode) &&
			   !tsr_zarr_is_above(above, depth + 1, &sb)) {
			int v = tsr_zarr_walked_version(sub, version);
			if (v == version) {
				struct tsr_zarr_node n;
				int ls = tsr_zarr_node_load(store, version, rel, &n);
				if (tsr_zarr_listed(ls, &n))
					st = tsr_zarr_names_add(l, rel);
				/* a group whose metadata does not load is listed with its error, and
				 * its children too: they open by their paths */
				if (st == TSR_OK && ls != TSR_OK && ls != TSR_E_NOMEM &&
				    depth < TSR_ZARR_MAX_DEPTH && tsr_zarr_maybe_group(sub, version))
					st = tsr_zarr_walk(store, version, rel, depth + 1, above, l);
				else if (ls == TSR_E_NOMEM)
					st = ls;
				else if (ls == TSR_OK && depth < TSR_ZARR_MAX_DEPTH)
					st = tsr_zarr_walk(store, version, rel, depth + 1, above, l);
				tsr_zarr_node_free(&n);
			} else if (v == 0 && version == 2 && !hidden && depth < TSR_ZARR_MAX_DEPTH) {
				/* v2 writers may leave intermediate groups implicit. */
				st = tsr_zarr_walk(store, version, rel, depth + 1, above, l);
			}
		}
		free(sub);
		free(rel);
	}
	closedir(d);
	free(dir);
	tsr_error_clear();
	return st;
}

int tsr_zarr_list(const char *store, char ***names_ret, size_t *count_ret)
{
	struct tsr_zarr_names l = {0};
	struct tsr_zarr_node root;
	int version = tsr_zarr_store_version(store), st;
	*names_ret = NULL;
	*count_ret = 0;
	/* a zip of a store's folder (`zip -r s.zip s.zarr`) holds the store one level down: its
	 * arrays are listed by their paths from the zip's root ("s.zarr/img"), as open's array=
	 * takes them (zarr-python opens it with ZipStore and path=) */
	const struct tsr_zip *zip = version ? NULL : tsr_zarr_zip_root(store);
	for (size_t i = 0; zip && i < zip->n && !version; i++) {
		const char *nm = zip->entries[i].name, *slash = strchr(nm, '/');
		if (slash && !strcmp(slash + 1, "zarr.json"))
			version = 3;
		else if (slash && (!strcmp(slash + 1, ".zgroup") || !strcmp(slash + 1, ".zarray")))
			version = 2;
	}
	if (!version)
		return tsr_error(TSR_E_FORMAT, "%s: not a Zarr store (no .zarray, .zgroup or "
				 "zarr.json)", store);
	if (zip) {
		st = tsr_zarr_zip_walk(zip, store, version, &l);
	} else if ((st = tsr_zarr_node_load(store, version, "", &root))) {
		tsr_error_prefix("%s", store);
		return st;
	} else if (root.is_array) {
		st = tsr_zarr_names_add(&l, "");
	} else {
		cJSON *cons = NULL;
		const cJSON *meta = NULL;
		if (version == 2) {
			char *p = tsr_zarr_join(store, ".zmetadata");
			if (p && tsr_zarr_json_load(p, &cons) == TSR_OK)
				meta = cJSON_GetObjectItemCaseSensitive(cons, "metadata");
			free(p);
		} else {
			const cJSON *cm = cJSON_GetObjectItemCaseSensitive(root.json, "consolidated_metadata");
			meta = cJSON_GetObjectItemCaseSensitive(cm, "metadata");
		}
		if (cJSON_IsObject(meta))
			st = tsr_zarr_list_consolidated(meta, version, &l);
		else
			st = tsr_zarr_walk(store, version, "", 0, &(struct tsr_zarr_above){0}, &l);
		cJSON_Delete(cons);
	}
	if (!zip)
		tsr_zarr_node_free(&root);
	if (st) {
		tsr_zarr_names_free(&l);
		return st;
	}
	if (l.n) /* qsort wants a non-NULL array even for 0 items */
		qsort(l.v, l.n, sizeof(*l.v), tsr_zarr_cmp);
	/* One allocation: the pointers, then the strings, so tsr_free() releases it all. */
	size_t total = (l.n + 1) * sizeof(char *);
	for (size_t i = 0; i < l.n; i++)
		total += strlen(l.v[i]) + 1;
	char **out = malloc(total);
	if (!out) {
		tsr_zarr_names_free(&l);
		return tsr_error(TSR_E_NOMEM, "out of memory");
	}
	char *s = (char *)(out + l.n + 1);
	for (size_t i = 0; i < l.n; i++) {
		size_t len = strlen(l.v[i]) + 1;
		memcpy(s, l.v[i], len);
		out[i] = s;
		s += len;
	}
	out[l.n] = NULL;
	*names_ret = out;
	*count_ret = l.n;
	tsr_zarr_names_free(&l);
	tsr_error_clear();
	return TSR_OK;
}

int tsr_list_arrays(const char *path, char ***names_ret, size_t *count_ret)
{
	if (!path || !names_ret || !count_ret)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_list_arrays: NULL argument");
	struct stat sb;
	*names_ret = NULL;
	*count_ret = 0;
	/* a missing path is TSR_E_NOT_FOUND, as tsr_open and tsr_list say it */
	if (stat(path, &sb) != 0)
		return tsr_error(errno == ENOENT ? TSR_E_NOT_FOUND : TSR_E_IO, "%s: %s", path,
				 strerror(errno));
	if (S_ISREG(sb.st_mode))
		return tsr_zarr_list_zip(path, names_ret, count_ret); /* a zip store, or an error */
	if (!S_ISDIR(sb.st_mode))
		return tsr_error(TSR_E_FORMAT, "%s: not a Zarr store (not a directory)", path);
	char *store = tsr_zarr_store_dup(path);
	if (!store)
		return TSR_E_NOMEM;
	int st = tsr_zarr_list(store, names_ret, count_ret);
	free(store);
	return st;
}

char *tsr_zarr_store_dup(const char *path)
{
	char *store = strdup(path);
	if (!store) {
		tsr_error(TSR_E_NOMEM, "out of memory");
		return NULL;
	}
	size_t n = strlen(store);
	while (n > 1 && store[n - 1] == '/')
		store[--n] = '\0';
	return store;
}
