/* entries.c - a Zarr store's listing for tsr_list: its arrays, and the OME-Zarr multiscale
 * groups above them with the level each array is. */
#include <stdlib.h>
#include <string.h>

#include "../listing.h"
#include "zarr.h"

static int tsr_entry_cmp(const void *a, const void *b)
{
	return tsr_zarr_path_cmp(((const struct tsr_entry *)a)->name,
				 ((const struct tsr_entry *)b)->name);
}

static int tsr_str_cmp(const void *a, const void *b)
{
	return tsr_zarr_path_cmp(*(char *const *)a, *(char *const *)b);
}

/* Every group that holds an array at some depth: the proper prefixes of the array paths
 * ("" = the root), sorted, each once; *v_ret is freed by the caller (strings too). */
static int tsr_zarr_groups(char **names, size_t n, char ***v_ret, size_t *n_ret)
{
	size_t cap = 0, count = 0;
	char **v = NULL;
	int st = TSR_OK;
	for (size_t i = 0; i < n && !st; i++) {
		if (!names[i][0])
			continue; /* the store is itself an array */
		const char *p = NULL;
		do {
			/* the root first, then the path before each '/' */
			size_t len = p ? (size_t)(p - names[i]) : 0;
			if ((st = tsr_grow((void **)&v, &cap, count + 1, sizeof(*v), 16)))
				break;
			if (!(v[count] = strndup(names[i], len))) {
				st = tsr_error(TSR_E_NOMEM, "out of memory");
				break;
			}
			count++;
			p = strchr(p ? p + 1 : names[i], '/');
		} while (p);
	}
	if (count)
		qsort(v, count, sizeof(*v), tsr_str_cmp);
	size_t u = 0;
	for (size_t i = 0; i < count; i++) {
		if (u && !strcmp(v[u - 1], v[i]))
			free(v[i]);
		else
			v[u++] = v[i];
	}
	*v_ret = v;
	*n_ret = u;
	return st;
}

/* Marks the arrays that are levels of group g (a multiscale group): returns its level count,
 * or 0 when g is not one (or its multiscales are malformed: then it is no group to list). */
static int tsr_zarr_mark_levels(const char *store, int version, const char *g,
				struct tsr_entry *arrays, size_t n)
{
	struct tsr_zarr_node node;
	int nlevels = 0;
	const char *ds;
	if (tsr_zarr_node_load(store, version, g, &node) != TSR_OK || node.is_array ||
	    tsr_zarr_ome_level(node.attrs, 0, &ds, &nlevels) != TSR_OK) {
		tsr_zarr_node_free(&node);
		tsr_error_clear();
		return 0;
	}
	for (int k = 0; k < nlevels; k++) {
		char *joined = NULL, *norm = NULL;
		if (tsr_zarr_ome_level(node.attrs, k, &ds, NULL) != TSR_OK ||
		    !(joined = tsr_zarr_join(g, ds)) || tsr_zarr_norm_path(joined, &norm) != TSR_OK) {
			free(joined);
			continue;
		}
		for (size_t i = 0; i < n; i++) {
			if (!strcmp(arrays[i].name, norm) && arrays[i].level < 0) {
				arrays[i].group = g;
				arrays[i].level = k;
			}
		}
		free(joined);
		free(norm);
	}
	tsr_zarr_node_free(&node);
	tsr_error_clear();
	return nlevels;
}

int tsr_zarr_entries(const char *store, struct tsr_listing *l)
{
	char **names = NULL, **groups = NULL;
	size_t n = 0, ng = 0;
	struct tsr_entry *v = NULL;
	int st = tsr_zarr_list(store, &names, &n);
	if (st)
		return st;
	int version = tsr_zarr_store_version(store);
	if ((st = tsr_zarr_groups(names, n, &groups, &ng)))
		goto done;
	if (!(v = calloc(n + ng + 1, sizeof(*v)))) {
		st = tsr_error(TSR_E_NOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < n; i++)
		v[i] = (struct tsr_entry){.kind = TSR_ENTRY_ARRAY, .format = "zarr", .hdu = -1,
					  .name = names[i], .group = "", .level = -1};
	size_t count = n;
	for (size_t g = 0; g < ng; g++) {
		int nlevels = tsr_zarr_mark_levels(store, version, groups[g], v, n);
		if (nlevels > 0)
			v[count++] = (struct tsr_entry){.kind = TSR_ENTRY_MULTISCALE, .format = "zarr",
							.hdu = -1, .name = groups[g], .group = "",
							.level = -1, .nlevels = nlevels};
	}
	/* a group's path is a prefix of its arrays' paths, so it sorts before them */
	qsort(v, count, sizeof(*v), tsr_entry_cmp);
	for (size_t i = 0; i < count && !st; i++)
		st = tsr_listing_add(l, &v[i], 0);
done:
	for (size_t g = 0; g < ng; g++)
		free(groups[g]);
	free(groups);
	free(v);
	tsr_free(names);
	return st;
}
