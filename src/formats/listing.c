/* listing.c - tsr_list: what a path holds (FITS HDUs, Zarr arrays and multiscale groups, a
 * Blosc2 array), from headers and metadata alone, in one caller-freed listing. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/array.h"
#include "../io/io.h"
#include "../io/unpack.h"
#include "listing.h"
#include "metadata.h"

/* The first published struct tsr_entry ends at nlevels. */
#define TSR_ENTRY_MIN_NBYTES (offsetof(struct tsr_entry, nlevels) + sizeof(int))

static char *tsr_listing_str(const char *s)
{
	return strdup(s ? s : "");
}

int tsr_listing_add(struct tsr_listing *l, const struct tsr_entry *e)
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
	l->v[l->n++] = c;
	return TSR_OK;
}

void tsr_listing_free(struct tsr_listing *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++) {
		free((char *)l->v[i].name);
		free((char *)l->v[i].xtension);
		free((char *)l->v[i].group);
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
		return tsr_error(TSR_E_INVALID_ARG, "tsr_listing_entry: bad struct_size");
	if (i >= l->n)
		return tsr_error(TSR_E_RANGE, "tsr_listing_entry: entry %zu of %zu", i, l->n);
	size_t n = e->struct_size < sizeof(*e) ? e->struct_size : sizeof(*e);
	memcpy((char *)e + sizeof(e->struct_size), (const char *)&l->v[i] + sizeof(e->struct_size),
	       n - sizeof(e->struct_size));
	return TSR_OK;
}

/* The one array of a Blosc2 frame. */
static int tsr_listing_blosc2(struct tsr_listing *l)
{
	struct tsr_entry e = {.kind = TSR_ENTRY_ARRAY, .format = "blosc2", .hdu = -1, .level = -1};
	return tsr_listing_add(l, &e);
}

/* Opens a file to list: a whole-file compressed one (.fits.gz, .bz2, .Z) as the memory file it
 * decompresses to, as tsr_open reads it. On failure the message names path. */
static int tsr_listing_open(const char *path, int *fd, uint64_t *nbytes)
{
	int st = tsr_io_open(path, fd, nbytes);
	unsigned char head[4] = {0};
	size_t n = *nbytes < sizeof(head) ? (size_t)*nbytes : sizeof(head);
	if (!st && !(st = tsr_io_pread(*fd, head, n, 0))) {
		enum tsr_unpack_kind kind = tsr_unpack_sniff(head, n);
		if (kind != TSR_UNPACK_NONE)
			st = tsr_unpack_file(path, kind, fd, nbytes);
	}
	if (st) {
		tsr_io_close(*fd);
		*fd = -1;
		if (!strstr(tsr_errmsg(), path))
			tsr_error_prefix("%s", path);
	}
	return st;
}

/* Chooses the lister as tsr_open chooses the driver. */
static int tsr_list_path(const char *path, struct tsr_listing *l)
{
	struct stat sb;
	if (stat(path, &sb) != 0)
		return tsr_error(errno == ENOENT ? TSR_E_NOT_FOUND : TSR_E_IO, "%s: %s", path,
				 strerror(errno));
	if (S_ISDIR(sb.st_mode)) {
		if (tsr_blosc2_sniff_dir(path))
			return tsr_listing_blosc2(l);
		char *store = strdup(path);
		if (!store)
			return tsr_error(TSR_E_NOMEM, "out of memory");
		size_t n = strlen(store);
		while (n > 1 && store[n - 1] == '/')
			store[--n] = '\0';
		int st = tsr_zarr_entries(store, l);
		free(store);
		return st;
	}
	int fd = -1;
	uint64_t nbytes = 0;
	int st = tsr_listing_open(path, &fd, &nbytes);
	if (st)
		return st;
	unsigned char head[64] = {0};
	size_t n = nbytes < sizeof(head) ? (size_t)nbytes : sizeof(head);
	if (!(st = tsr_io_pread(fd, head, n, 0))) {
		if (tsr_zarr_sniff_zip(path, head, n)) {
			tsr_io_close(fd);
			return tsr_zarr_entries(path, l); /* a zipped store, listed in place */
		}
		st = tsr_blosc2_sniff(head, n) ? tsr_listing_blosc2(l)
					       : tsr_fits_list(path, fd, nbytes, l);
	}
	tsr_io_close(fd);
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

int tsr_listing_metadata(const struct tsr_listing *l, size_t i, char **json_ret)
{
	if (!json_ret)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_listing_metadata: json_ret is NULL");
	*json_ret = NULL;
	if (!l)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_listing_metadata: NULL listing");
	if (i >= l->n)
		return tsr_error(TSR_E_RANGE, "tsr_listing_metadata: entry %zu of %zu", i, l->n);
	const struct tsr_entry *e = &l->v[i];
	cJSON *root = cJSON_CreateObject();
	if (!root)
		return tsr_error(TSR_E_NOMEM, "out of memory for metadata");
	int st = tsr_json_add(root, "format", cJSON_CreateString(e->format));
	if (!st)
		st = tsr_json_add(root, "path", cJSON_CreateString(l->path));
	if (st) {
		/* out of memory already */
	} else if (!strcmp(e->format, "fits")) {
		int fd = -1;
		uint64_t nbytes = 0;
		if (!(st = tsr_listing_open(l->path, &fd, &nbytes)))
			st = tsr_fits_hdu_metadata(fd, nbytes, l->path, e->hdu, root);
		tsr_io_close(fd);
	} else if (!strcmp(e->format, "zarr")) {
		st = tsr_zarr_node_metadata(l->path, e->name, root);
	} else {
		st = tsr_blosc2_path_metadata(l->path, root);
	}
	if (!st && !(*json_ret = cJSON_PrintUnformatted(root)))
		st = tsr_error(TSR_E_NOMEM, "out of memory for metadata");
	cJSON_Delete(root);
	if (!st)
		tsr_error_clear();
	return st;
}
