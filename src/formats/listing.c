/* listing.c - tsr_list: what a path holds (FITS HDUs, Zarr arrays and multiscale groups, a
 * Blosc2 array), from headers and metadata alone, in one caller-freed listing. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/array.h"
#include "../core/file.h"
#include "listing.h"
#include "open.h"
#include "metadata.h"

/* The first published struct tsr_entry ends at nlevels. */
#define TSR_ENTRY_MIN_NBYTES (offsetof(struct tsr_entry, nlevels) + sizeof(int))

static char *tsr_listing_str(const char *s)
{
	return strdup(s ? s : "");
}

int tsr_listing_add(struct tsr_listing *l, const struct tsr_entry *e, uint64_t at)
{
	int st = tsr_grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v), 8);
	if (st)
		return st;
	struct tsr_entry c = *e;
	c.struct_size = sizeof(c);
	c.name = tsr_listing_str(e->name);
	c.xtension = tsr_listing_str(e->xtension);
	c.group = tsr_listing_str(e->group);
	if (!c.name || !c.xtension || !c.group) {
		free((char *)c.name);
		free((char *)c.xtension);
		free((char *)c.group);
		return tsr_error(TSR_E_NOMEM, "out of memory");
	}
	l->v[l->n++] = (struct tsr_listed){c, at};
	return TSR_OK;
}

void tsr_listing_free(struct tsr_listing *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++) {
		free((char *)l->v[i].e.name);
		free((char *)l->v[i].e.xtension);
		free((char *)l->v[i].e.group);
	}
	free(l->v);
	free(l->path);
	free(l);
}

size_t tsr_listing_count(const struct tsr_listing *l)
{
	return l ? l->n : 0;
}

int tsr_listing_entry(const struct tsr_listing *l, size_t i, struct tsr_entry *e)
{
	if (!l || !e)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_listing_entry: NULL argument");
	if (e->struct_size < TSR_ENTRY_MIN_NBYTES)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_listing_entry: struct_size %zu is below the "
				 "first published struct's %zu", e->struct_size,
				 (size_t)TSR_ENTRY_MIN_NBYTES);
	if (i >= l->n)
		return tsr_error(TSR_E_RANGE, "tsr_listing_entry: entry %zu of %zu", i, l->n);
	size_t n = e->struct_size < sizeof(*e) ? e->struct_size : sizeof(*e);
	memcpy((char *)e + sizeof(e->struct_size), (const char *)&l->v[i].e + sizeof(e->struct_size),
	       n - sizeof(e->struct_size));
	return TSR_OK;
}

/* Lists path by the driver tsr_open would choose. */
static int tsr_list_path(const char *path, struct tsr_listing *l)
{
	const struct tsr_driver *drv = NULL;
	int fd = -1;
	uint64_t nbytes = 0;
	int st = tsr_driver_find(path, &drv, &fd, &nbytes);
	if (st == TSR_OK)
		st = drv->list(path, &fd, &nbytes, l);
	tsr_file_close(fd);
	if (st && !strstr(tsr_errmsg(), path))
		tsr_error_prefix("%s", path);
	return st;
}

int tsr_list(const char *path, struct tsr_listing **listing_ret)
{
	if (!listing_ret)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_list: listing_ret is NULL");
	*listing_ret = NULL;
	if (!path)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_list: path is NULL");
	struct tsr_listing *l = calloc(1, sizeof(*l));
	if (!l || !(l->path = strdup(path))) {
		free(l);
		return tsr_error(TSR_E_NOMEM, "out of memory");
	}
	size_t len = strlen(l->path);
	while (len > 1 && l->path[len - 1] == '/')
		l->path[--len] = '\0';
	int st = tsr_list_path(path, l);
	if (st) {
		tsr_listing_free(l);
		return st;
	}
	tsr_error_clear();
	*listing_ret = l;
	return TSR_OK;
}

int tsr_listing_open(struct tsr_context *ctx, const struct tsr_listing *l, size_t i,
		     const struct tsr_open_options *opts, struct tsr_array **array_ret)
{
	if (!array_ret)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_listing_open: array_ret is NULL");
	*array_ret = NULL;
	if (!ctx || !l)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_listing_open: NULL context or listing");
	struct tsr_open_options o; /* (the options first, as every call checks them) */
	int st = tsr_open_options_load(&o, opts, "tsr_listing_open");
	if (st)
		return st;
	if (i >= l->n)
		return tsr_error(TSR_E_RANGE, "tsr_listing_open: entry %zu of %zu", i, l->n);
	const struct tsr_entry *e = &l->v[i].e;
	if (e->kind != TSR_ENTRY_ARRAY)
		return tsr_error(TSR_E_INVALID_ARG, "%s: entry %zu is no array (%s)", l->path, i,
				 e->kind == TSR_ENTRY_EMPTY	 ? "an HDU without data"
				 : e->kind == TSR_ENTRY_TABLE ? "a table"
							      : "a multiscale group");
	/* the entry's own array, whatever opts named */
	o.hdu = e->hdu;
	o.hdu_name = NULL;
	o.hdu_ver = 0;
	o.array = !strcmp(e->format, "zarr") ? e->name : NULL;
	o.level = -1;
	if (o.array && e->level >= 0) {
		/* a multiscale level: as open(array=group, level=k) opens it, so that it says its
		 * level (tsr_array_info.level), not only its path */
		o.array = e->group[0] ? e->group : NULL;
		o.level = e->level;
	}
	int fits = !strcmp(e->format, "fits");
	return tsr_open_at(ctx, l->path, &o, fits ? e->hdu : 0, fits ? l->v[i].at : 0,
			   fits ? e->name : NULL, array_ret);
}

int tsr_listing_metadata(const struct tsr_listing *l, size_t i, char **json_ret)
{
	if (!json_ret)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_listing_metadata: json_ret is NULL");
	*json_ret = NULL;
	if (!l)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_listing_metadata: NULL listing");
	if (i >= l->n)
		return tsr_error(TSR_E_RANGE, "tsr_listing_metadata: entry %zu of %zu", i, l->n);
	const struct tsr_entry *e = &l->v[i].e;
	cJSON *root = cJSON_CreateObject();
	if (!root)
		return tsr_error(TSR_E_NOMEM, "out of memory for metadata");
	int st = tsr_json_add(root, "format", cJSON_CreateString(e->format));
	if (!st)
		st = tsr_json_add(root, "path", cJSON_CreateString(l->path));
	if (!st) {
		/* the driver that listed the entry, as the path holds it now */
		const struct tsr_driver *drv = NULL;
		int fd = -1;
		uint64_t nbytes = 0;
		st = tsr_driver_find(l->path, &drv, &fd, &nbytes);
		if (!st && strcmp(drv->name, e->format))
			st = tsr_error(TSR_E_FORMAT, "%s: now a %s input, listed as %s", l->path,
				       drv->name, e->format);
		if (!st)
			st = drv->metadata(l->path, &fd, &nbytes, e, l->v[i].at, root);
		tsr_file_close(fd);
	}
	if (!st)
		st = tsr_json_print(root, json_ret);
	cJSON_Delete(root);
	if (!st)
		tsr_error_clear();
	return st;
}
