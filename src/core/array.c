/* array.c - opening arrays (choosing the format driver), describing them, freeing them. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../io/io.h"
#include "../io/mock.h"
#include "../io/mock_device.h"
#include "../io/unpack.h"
#include "array.h"

/* Chooses the format driver: directories are Zarr stores or sparse Blosc2 frames; files are
 * Blosc2 frames when they say so, zipped Zarr stores when they are zip files, FITS otherwise
 * (whole-file compressed ones decompressed). */
static int tsr_open_driver(struct tsr_array *a, const struct tsr_open_options *o)
{
	struct stat st;
	if (stat(a->path, &st) != 0)
		return tsr_error(errno == ENOENT ? TSR_E_NOT_FOUND : TSR_E_IO, "%s: %s", a->path,
				 strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		if (tsr_blosc2_sniff_dir(a->path))
			return tsr_blosc2_open(a, o);
		return tsr_zarr_open(a, o);
	}
	int rc = tsr_io_open(a->path, &a->fd, &a->file_nbytes);
	if (rc)
		return rc;
	/* An empty file is no format at all: say so, not that it lacks FITS's first card. */
	if (a->file_nbytes == 0)
		return tsr_error(TSR_E_FORMAT, "%s: empty file (0 bytes): not a FITS file or a "
				 "Blosc2 frame", a->path);
	unsigned char head[64] = {0};
	size_t n = a->file_nbytes < sizeof(head) ? (size_t)a->file_nbytes : sizeof(head);
	if ((rc = tsr_io_pread(a->fd, head, n, 0)))
		return rc;
	/* A file named as a frame that does not start like one is a damaged frame: the Blosc2
	 * driver says what is wrong with it. */
	const char *dot = strrchr(a->path, '.');
	if (tsr_blosc2_sniff(head, n) ||
	    (dot && (!strcmp(dot, ".b2nd") || !strcmp(dot, ".b2frame")) &&
	     memcmp(head, "SIMPLE  =", n < 9 ? n : 9) != 0))
		return tsr_blosc2_open(a, o);
	if (tsr_zarr_sniff_zip(a->path, head, n))
		return tsr_zarr_open(a, o); /* a zip store */
	/* FITS as archives ship it (.fits.gz, .fits.bz2, .fits.Z): read from memory */
	enum tsr_unpack_kind packed = tsr_unpack_sniff(head, n);
	if (packed != TSR_UNPACK_NONE && (rc = tsr_unpack_array(a, packed)))
		return rc;
	return tsr_fits_open(a, o);
}

/* The caller's dtype for an array whose file names one: a view of the values read, so only
 * the label changes (the engines place bytes of the array's own item size). */
static int tsr_open_view(struct tsr_array *a)
{
	struct tsr_desc *d = &a->desc;
	enum tsr_dtype t = a->want_dtype;
	if (t == TSR_DTYPE_INVALID || (d->dtype_source && !strcmp(d->dtype_source, "caller")))
		return TSR_OK;
	char unit[320];
	tsr_array_unit(a, unit, sizeof(unit));
	if (tsr_dtype_size(t) != tsr_dtype_size(d->dtype))
		return tsr_error(TSR_E_INVALID_ARG, "%s: %s: dtype %s has %zu-byte items, the array "
				 "(%s) has %zu-byte items", a->path, unit, tsr_dtype_name(t),
				 tsr_dtype_size(t), tsr_dtype_name(d->dtype), tsr_dtype_size(d->dtype));
	if (a->want_order == '>' && tsr_dtype_size(t) > 1)
		return tsr_error(TSR_E_UNSUPPORTED, "%s: %s: a big-endian dtype ('>'): tessera "
				 "returns values in native order, and the file names its own", a->path,
				 unit);
	d->dtype = t;
	d->descr = NULL; /* the view's own */
	d->dtype_source = "caller";
	return TSR_OK;
}

int tsr_open(struct tsr_context *ctx, const char *path, const struct tsr_open_options *opts,
	     struct tsr_array **array_ret)
{
	if (!array_ret)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_open: array_ret is NULL");
	*array_ret = NULL;
	if (!ctx || !path)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_open: NULL context or path");
	struct tsr_open_options o = {.struct_size = sizeof(o), .hdu = -1, .level = -1};
	int st = tsr_options_load(&o, sizeof(o), opts, offsetof(struct tsr_open_options, array),
				  "tsr_open");
	if (st)
		return st;
	struct tsr_array *a = calloc(1, sizeof(*a));
	if (!a)
		return tsr_error(TSR_E_NOMEM, "tsr_open: out of memory");
	a->ctx = ctx;
	a->fd = -1;
	a->path = strdup(path);
	if (!a->path) {
		free(a);
		return tsr_error(TSR_E_NOMEM, "tsr_open: out of memory");
	}
	if (o.dtype && o.dtype[0])
		st = tsr_dtype_parse(o.dtype, &a->want_dtype, &a->want_order);
	if (st == TSR_OK)
		st = tsr_open_driver(a, &o);
	if (st == TSR_OK)
		st = tsr_open_view(a);
	if (st != TSR_OK) {
		/* Every failure names the file, whichever layer it came from. */
		if (!strstr(tsr_errmsg(), path))
			tsr_error_prefix("%s", path);
		tsr_array_free(a);
		return st;
	}
	a->desc.nchunks = 1;
	for (int d = 0; d < a->desc.ndim; d++) {
		int64_t c = a->desc.chunk_shape[d];
		a->desc.grid[d] = c > 0 ? (a->desc.shape[d] + c - 1) / c : 0;
		a->desc.nchunks *= a->desc.grid[d];
	}
	*array_ret = a;
	return TSR_OK;
}

void tsr_array_unit(const struct tsr_array *a, char *buf, size_t cap)
{
	if (a->desc.unit_label)
		snprintf(buf, cap, "%s %s", a->desc.unit_noun, a->desc.unit_label);
	else
		snprintf(buf, cap, "%s %d", a->desc.unit_noun, a->desc.index);
}

void tsr_array_chunk_name(const struct tsr_array *a, int64_t chunk, char *prefix,
			  size_t prefix_cap, char *label, size_t label_cap)
{
	if (prefix) {
		char unit[320];
		tsr_array_unit(a, unit, sizeof(unit));
		snprintf(prefix, prefix_cap, "%s: %s: %s", a->path, unit, a->desc.chunk_noun);
	}
	if (label) {
		if (a->desc.chunk_label)
			a->desc.chunk_label(a, chunk, label, label_cap);
		else
			snprintf(label, label_cap, "%lld", (long long)chunk);
	}
}

void tsr_array_free(struct tsr_array *a)
{
	if (!a)
		return;
	if (a->ops && a->ops->free)
		a->ops->free(a->impl);
	tsr_mock_free(a->mock);
	tsr_mock_dev_free(a->mock_dev);
	tsr_io_close(a->fd);
	free(a->path);
	free(a);
}

int tsr_array_info(const struct tsr_array *a, struct tsr_array_info *info_ret)
{
	struct tsr_array_info *info = info_ret;
	if (!a || !info)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_array_info: NULL argument");
	/* Callers built before `descr` was added pass a smaller struct: fill what fits. */
	size_t size = info->struct_size;
	if (size < offsetof(struct tsr_array_info, descr))
		return tsr_error(TSR_E_INVALID_ARG, "tsr_array_info: bad struct_size");
	if (size > sizeof(*info))
		size = sizeof(*info);
	const struct tsr_desc *d = &a->desc;
	struct tsr_array_info full;
	memset(&full, 0, sizeof(full));
	full.struct_size = size;
	full.descr = d->descr ? d->descr : tsr_dtype_npy_descr(d->dtype);
	info = &full;
	info->format = a->ops ? a->ops->name : "";
	info->path = a->path;
	info->index = d->index;
	info->dtype = d->dtype;
	info->stored_dtype = d->stored_dtype;
	info->ndim = d->ndim;
	for (int i = 0; i < d->ndim; i++) {
		info->shape[i] = d->shape[i];
		info->chunk_shape[i] = d->chunk_shape[i];
	}
	info->nchunks = d->nchunks;
	info->codec = d->codec;
	info->reader = d->reader;
	info->stored_nbytes = d->stored_nbytes;
	info->scaled = d->scaled;
	info->dtype_source = d->dtype_source ? d->dtype_source : "file";
	memcpy(info_ret, &full, size);
	return TSR_OK;
}
