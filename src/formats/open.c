/* open.c - the format driver table, and tsr_open / tsr_array_free over it. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/file.h"
#include "../io/unpack.h"
#include "listing.h"
#include "metadata.h"
#include "open.h"
#include "zarr/zarr.h"

/* ---- the drivers' sniffing and listing, where a driver's own files have none ---- */

/* A file named as a frame that does not start like one is a damaged frame (the Blosc2
 * driver says what is wrong with it), unless it is a FITS file under a frame's name. */
static int tsr_b2_file(const char *path, const unsigned char *head, size_t n)
{
	const char *dot = strrchr(path, '.');
	return tsr_blosc2_sniff(head, n) ||
	       (dot && (!strcmp(dot, ".b2nd") || !strcmp(dot, ".b2frame")) &&
		memcmp(head, "SIMPLE  =", n < 9 ? n : 9) != 0);
}

/* A Blosc2 frame holds one array. */
static int tsr_b2_list(const char *path, int *fd, uint64_t *file_nbytes, struct tsr_listing *l)
{
	/* a frame file's header and length are checked here, as a FITS listing reads its headers:
	 * a truncated frame is no array to list (a sparse frame's directory has no fd) */
	int64_t hlen;
	uint64_t flen;
	int st = fd && *fd >= 0 && file_nbytes ? tsr_blosc2_frame_span(*fd, *file_nbytes, &hlen, &flen)
					    : TSR_OK;
	if (st) {
		tsr_error_prefix("%s", path);
		return st;
	}
	struct tsr_entry e = {.kind = TSR_ENTRY_ARRAY, .format = "blosc2", .hdu = -1, .level = -1};
	return tsr_listing_add(l, &e, 0);
}

/* Any directory that is no sparse frame is a Zarr store (or says why it is not one). */
static int tsr_zarr_dir(const char *path)
{
	(void)path;
	return 1;
}

/* Runs fn(store, arg) on a store directory or a zipped store (a file: *fd open), named
 * without trailing slashes; a zip's entries are the store's keys while it runs. */
static int tsr_zarr_in_store(const char *path, const int *fd, const uint64_t *file_nbytes,
			     int (*fn)(const char *store, void *arg), void *arg)
{
	char *store = tsr_zarr_store_dup(path);
	if (!store)
		return TSR_E_NOMEM;
	struct tsr_zip *zip = NULL;
	int st = TSR_OK;
	if (*fd >= 0 && (st = tsr_zip_open(store, *fd, *file_nbytes, &zip)))
		tsr_error_prefix("%s", path);
	if (!st) {
		tsr_zarr_zip_enter(zip);
		st = fn(store, arg);
		tsr_zarr_zip_enter(NULL);
	}
	tsr_zip_free(zip);
	free(store);
	return st;
}

static int tsr_zarr_entries_fn(const char *store, void *l)
{
	return tsr_zarr_entries(store, l);
}

static int tsr_zarr_list_any(const char *path, int *fd, uint64_t *file_nbytes,
			     struct tsr_listing *l)
{
	return tsr_zarr_in_store(path, fd, file_nbytes, tsr_zarr_entries_fn, l);
}

/* A file that starts as FITS does (its first card's keyword), or an archive that may hold one
 * (.fits.gz, .fits.bz2, .fits.Z: the FITS driver says what it holds). A FITS file whose first
 * card is damaged is claimed by no driver, and the message says what tessera reads. */
static int tsr_fits_file(const char *path, const unsigned char *head, size_t n)
{
	(void)path;
	return memcmp(head, "SIMPLE  =", n < 9 ? n : 9) == 0 ||
	       tsr_unpack_sniff(head, n) != TSR_UNPACK_NONE;
}

static enum tsr_unpack_kind tsr_fits_packed(int fd, uint64_t nbytes, int *st)
{
	unsigned char head[4] = {0};
	size_t n = nbytes < sizeof(head) ? (size_t)nbytes : sizeof(head);
	*st = tsr_file_pread(fd, head, n, 0);
	return *st ? TSR_UNPACK_NONE : tsr_unpack_sniff(head, n);
}

/* A listed FITS archive's memory file replaces *fd (which the caller closes) and its size
 * *nbytes; any other file is left as it is. */
static int tsr_fits_unpack_fd(const char *path, int *fd, uint64_t *nbytes)
{
	int st;
	enum tsr_unpack_kind packed = tsr_fits_packed(*fd, *nbytes, &st);
	if (!st && packed != TSR_UNPACK_NONE)
		st = tsr_unpack_file(path, packed, fd, nbytes);
	return st;
}

/* A whole-file compressed FITS file is read from the memory file it decompresses to. */
static int tsr_fits_open_any(struct tsr_array *a, const struct tsr_open_options *o)
{
	int st;
	enum tsr_unpack_kind packed = tsr_fits_packed(a->fd, a->file_nbytes, &st);
	if (!st && packed != TSR_UNPACK_NONE)
		st = tsr_unpack_array(a, packed);
	return st ? st : tsr_fits_open(a, o);
}

static int tsr_fits_list_any(const char *path, int *fd, uint64_t *file_nbytes,
			     struct tsr_listing *l)
{
	int st = tsr_fits_unpack_fd(path, fd, file_nbytes);
	return st ? st : tsr_fits_list(path, *fd, *file_nbytes, l);
}

static int tsr_fits_meta(const char *path, int *fd, uint64_t *file_nbytes,
			 const struct tsr_entry *e, uint64_t at, cJSON *root)
{
	int st = tsr_fits_unpack_fd(path, fd, file_nbytes);
	return st ? st : tsr_fits_hdu_metadata(*fd, *file_nbytes, path, e->hdu, at, e->name, root);
}

struct tsr_zarr_meta_arg {
	const struct tsr_entry *e;
	cJSON *root;
};

static int tsr_zarr_meta_fn(const char *store, void *arg)
{
	const struct tsr_zarr_meta_arg *m = arg;
	return tsr_zarr_node_metadata(store, m->e->name, m->root);
}

static int tsr_zarr_meta(const char *path, int *fd, uint64_t *file_nbytes,
			 const struct tsr_entry *e, uint64_t at, cJSON *root)
{
	(void)at;
	struct tsr_zarr_meta_arg m = {e, root};
	return tsr_zarr_in_store(path, fd, file_nbytes, tsr_zarr_meta_fn, &m);
}

static int tsr_b2_meta(const char *path, int *fd, uint64_t *file_nbytes,
		       const struct tsr_entry *e, uint64_t at, cJSON *root)
{
	(void)fd, (void)file_nbytes, (void)e, (void)at;
	return tsr_blosc2_path_metadata(path, root);
}

/* The files a Zarr store keeps its metadata in: a path to one names the store wrongly. */
static int tsr_zarr_meta_file(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	static const char *const names[] = {"zarr.json", ".zarray", ".zgroup", ".zattrs",
					    ".zmetadata"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(base, names[i]))
			return 1;
	return 0;
}

/* The message for a file that no driver claims. */
static int tsr_unclaimed_file(const char *path)
{
	if (!tsr_zarr_meta_file(path))
		return tsr_error(TSR_E_FORMAT, "%s: not a file tessera reads: not a FITS file (it "
				 "does not start with SIMPLE), a Blosc2 frame or a zipped Zarr "
				 "store", path);
	const char *slash = strrchr(path, '/');
	int dir = slash ? (slash == path ? 1 : (int)(slash - path)) : 1;
	return tsr_error(TSR_E_FORMAT, "%s: a Zarr metadata file, not an array: open the "
			 "folder it describes, %.*s", path, dir, slash ? path : ".");
}

/* Whether the thread's message names path already: messages keep bytes outside printable
 * ASCII escaped (\xff), so the path is looked for as they write it. */
static int tsr_names_path(const char *path)
{
	char esc[4200];
	tsr_escape(esc, sizeof(esc), path, strlen(path));
	return strstr(tsr_errmsg(), esc) != NULL;
}

/* In order: the first that claims a path takes it. */
static const struct tsr_driver tsr_drivers[] = {
	{"blosc2", "Blosc2 frame", 0, tsr_blosc2_sniff_dir, tsr_b2_file, tsr_blosc2_open,
	 tsr_b2_list, tsr_b2_meta},
	{"zarr", "Zarr store", TSR_TAKES_ARRAY | TSR_TAKES_LEVEL, tsr_zarr_dir, tsr_zarr_sniff_zip,
	 tsr_zarr_open, tsr_zarr_list_any, tsr_zarr_meta},
	{"fits", "FITS file", TSR_TAKES_HDU, NULL, tsr_fits_file, tsr_fits_open_any,
	 tsr_fits_list_any, tsr_fits_meta},
};

int tsr_driver_find(const char *path, const struct tsr_driver **driver_ret, int *fd_ret,
		    uint64_t *nbytes_ret)
{
	size_t nd = sizeof(tsr_drivers) / sizeof(tsr_drivers[0]);
	*fd_ret = -1;
	*nbytes_ret = 0;
	struct stat sb;
	if (stat(path, &sb) != 0) {
		int e = errno;
		const char *scheme = strstr(path, "://");
		/* s3://, gs://, https://: a URL, which no storage backend reads yet */
		if (e == ENOENT && scheme && scheme > path &&
		    strspn(path, "abcdefghijklmnopqrstuvwxyz0123456789+.-") == (size_t)(scheme - path))
			return tsr_error(TSR_E_NOT_FOUND, "%s: %s (a URL: tessera reads local files "
					 "and folders, and mounted ones)", path, strerror(e));
		return tsr_error(e == ENOENT ? TSR_E_NOT_FOUND : TSR_E_IO, "%s: %s", path,
				 strerror(e));
	}
	if (S_ISDIR(sb.st_mode)) {
		for (size_t i = 0; i < nd; i++)
			if (tsr_drivers[i].dir && tsr_drivers[i].dir(path)) {
				*driver_ret = &tsr_drivers[i];
				return TSR_OK;
			}
		return tsr_error(TSR_E_FORMAT, "%s: a directory that no format claims", path);
	}
	int fd = -1;
	uint64_t nbytes = 0;
	int st = tsr_file_open(path, &fd, &nbytes);
	if (st)
		goto fail;
	/* An empty file is no format at all: say so, not that it lacks FITS's first card. */
	if (nbytes == 0) {
		st = tsr_error(TSR_E_FORMAT, "%s: empty file (0 bytes): not a FITS file or a "
			       "Blosc2 frame", path);
		goto fail;
	}
	unsigned char head[64] = {0};
	size_t n = nbytes < sizeof(head) ? (size_t)nbytes : sizeof(head);
	if ((st = tsr_file_pread(fd, head, n, 0)))
		goto fail;
	for (size_t i = 0; i < nd; i++)
		if (tsr_drivers[i].file && tsr_drivers[i].file(path, head, n)) {
			*driver_ret = &tsr_drivers[i];
			*fd_ret = fd;
			*nbytes_ret = nbytes;
			return TSR_OK;
		}
	st = tsr_unclaimed_file(path);
fail:
	tsr_file_close(fd);
	if (!tsr_names_path(path))
		tsr_error_prefix("%s", path);
	return st;
}

/* ---- tsr_open and tsr_array_free: an array's life ---- */

/* An option that names something the format's paths do not have is refused, not ignored: an
 * hdu of a Zarr store would otherwise read its one array as if it were that HDU. */
static int tsr_driver_takes(const struct tsr_driver *drv, const struct tsr_open_options *o,
			    const char *path)
{
	const char *n = drv->noun;
	if (!(drv->takes & TSR_TAKES_HDU) && o->hdu_name && o->hdu_name[0])
		return tsr_error(TSR_E_NOT_FOUND, "%s: a %s has no HDUs (no '%s'): hdu names a FITS "
				 "file's", path, n, o->hdu_name);
	if (!(drv->takes & TSR_TAKES_HDU) && o->hdu > 0)
		return tsr_error(TSR_E_RANGE, "%s: a %s has no HDUs (no HDU %d): hdu counts a FITS "
				 "file's", path, n, o->hdu);
	if (!(drv->takes & TSR_TAKES_ARRAY) && o->array && o->array[0])
		return tsr_error(TSR_E_NOT_FOUND, "%s: a %s has no arrays by path (no '%s'): array "
				 "names one in a Zarr store", path, n, o->array);
	if (!(drv->takes & TSR_TAKES_LEVEL) && o->level > 0)
		return tsr_error(TSR_E_RANGE, "%s: a %s has no multiscale levels (no level %d): level "
				 "counts an OME-Zarr group's", path, n, o->level);
	return TSR_OK;
}

/* An array whose elements a selection can count (int64): one of more opened, but no
 * selection of it, not even one element, could be read (the selection counts the array's). */
static int tsr_array_countable(const struct tsr_array *a)
{
	int64_t total = 1;
	for (int i = 0; i < a->desc.ndim; i++)
		if (a->desc.shape[i] == 0)
			return TSR_OK;
	for (int i = 0; i < a->desc.ndim; i++) {
		if (total > INT64_MAX / a->desc.shape[i]) {
			char unit[320];
			tsr_array_unit(a, unit, sizeof(unit));
			return tsr_error(TSR_E_UNSUPPORTED, "%s%s: an array of more than INT64_MAX "
					 "elements (axis %d of %lld)", a->path, unit, i,
					 (long long)a->desc.shape[i]);
		}
		total *= a->desc.shape[i];
	}
	return TSR_OK;
}

int tsr_open(struct tsr_context *ctx, const char *path, const struct tsr_open_options *opts,
	     struct tsr_array **array_ret)
{
	return tsr_open_at(ctx, path, opts, 0, 0, NULL, array_ret);
}

int tsr_open_at(struct tsr_context *ctx, const char *path, const struct tsr_open_options *opts,
		int start_hdu, uint64_t start_at, const char *start_name,
		struct tsr_array **array_ret)
{
	if (!array_ret)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_open: array_ret is NULL");
	*array_ret = NULL;
	if (!ctx || !path)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_open: NULL context or path");
	struct tsr_open_options o;
	int st = tsr_open_options_load(&o, opts, "tsr_open");
	if (st)
		return st;
	struct tsr_array *a = calloc(1, sizeof(*a));
	if (!a)
		return tsr_error(TSR_E_NOMEM, "tsr_open: out of memory");
	a->ctx = ctx;
	a->fd = -1;
	a->desc.level = -1;
	a->start_hdu = start_hdu;
	a->start_at = start_at;
	a->start_name = start_name;
	a->path = strdup(path);
	if (!a->path) {
		free(a);
		return tsr_error(TSR_E_NOMEM, "tsr_open: out of memory");
	}
	const struct tsr_driver *drv = NULL;
	if (o.dtype && o.dtype[0])
		st = tsr_dtype_parse(o.dtype, &a->want_dtype, &a->want_order);
	if (st == TSR_OK)
		st = tsr_driver_find(a->path, &drv, &a->fd, &a->file_nbytes);
	if (st == TSR_OK)
		st = tsr_driver_takes(drv, &o, a->path);
	if (st == TSR_OK)
		st = drv->open(a, &o);
	if (st == TSR_OK)
		st = tsr_array_view(a);
	if (st == TSR_OK)
		st = tsr_array_countable(a);
	if (st != TSR_OK) {
		/* Every failure names the file, whichever layer it came from. */
		if (!tsr_names_path(path))
			tsr_error_prefix("%s", path);
		tsr_array_free(a);
		return st;
	}
	tsr_array_grid(a);
	*array_ret = a;
	return TSR_OK;
}

void tsr_array_free(struct tsr_array *a)
{
	if (!a)
		return;
	if (a->ops && a->ops->free)
		a->ops->free(a->impl);
	tsr_array_backend_release(a);
	tsr_file_close(a->fd);
	free(a->path);
	free(a);
}
