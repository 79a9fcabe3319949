/* storage.c - choosing a read's storage backend once, and what every backend's callers share (readers, whole-chunk fetch). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/array.h"
#include "../core/internal.h"
#include "storage.h"

int tsr_storage_select(const struct tsr_array *a, int storage, int on_device,
		       struct tsr_storage_choice *c)
{
	c->be = &tsr_storage_posix;
	c->automatic = storage == TSR_STORAGE_REAL;
	c->why[0] = '\0';
	c->by_path = !a->unpacked;
	switch (storage) {
	case TSR_STORAGE_REAL:
	case TSR_STORAGE_CUFILE:
		if (!on_device) {
			if (storage == TSR_STORAGE_CUFILE)
				return tsr_error(TSR_E_UNSUPPORTED, "%s: cufile storage reads into "
						 "device memory: it needs a TSR_MEM_CUDA destination",
						 a->path);
			return TSR_OK; /* (host memory: cuFile has nothing to offer) */
		}
		/* cuFile where asked, or (auto) where it runs natively; forcing it elsewhere
		 * fails. */
		if (a->unpacked) {
			/* the file on disk is compressed: its bytes are only in array->fd (memory) */
			snprintf(c->why, sizeof(c->why), "the file is %s-compressed, decompressed in "
				 "memory when opened", a->unpacked);
			if (storage == TSR_STORAGE_CUFILE)
				return tsr_error(TSR_E_UNSUPPORTED, "%s: cufile storage cannot read it: "
						 "%s", a->path, c->why);
		} else if (tsr_cufile_usable(c->why, sizeof(c->why))) {
			c->be = &tsr_storage_cufile;
		} else if (storage == TSR_STORAGE_CUFILE) {
			return tsr_error(TSR_E_UNSUPPORTED, "%s: cufile storage: GPUDirect Storage "
					 "cannot run here: %s", a->path, c->why);
		}
		return TSR_OK;
	case TSR_STORAGE_POSIX:
		return TSR_OK;
	case TSR_STORAGE_MOCK_HOST:
		c->be = &tsr_storage_mock_host;
		return TSR_OK;
	case TSR_STORAGE_MOCK_DEVICE:
		if (!on_device)
			return tsr_error(TSR_E_UNSUPPORTED, "%s: mock-device storage replays chunks "
					 "from device memory: it needs a TSR_MEM_CUDA destination",
					 a->path);
		c->be = &tsr_storage_mock_device;
		return TSR_OK;
	default:
		return tsr_error(TSR_E_INVALID_ARG, "%s: read option storage %d is none of "
				 "TSR_STORAGE_REAL (0), _MOCK_HOST (1), _MOCK_DEVICE (2), _POSIX (3) "
				 "and _CUFILE (4)", a->path, storage);
	}
}

void tsr_source_init(struct tsr_source *src, const struct tsr_backend *be,
		     const struct tsr_array *array)
{
	memset(src, 0, sizeof(*src));
	src->be = be;
	src->array = array;
	src->files.fd = -1;
	src->cf.fd = -1;
	src->fd = -1;
}

void tsr_source_close(struct tsr_source *src)
{
	if (src->be)
		src->be->close(src);
}

int tsr_storage_room(unsigned char **buf, size_t *cap, uint64_t n)
{
	if (*cap >= n && *buf)
		return TSR_OK;
	free(*buf);
	*buf = n <= SIZE_MAX - 64 ? malloc((size_t)n + 64) : NULL;
	*cap = *buf ? (size_t)n : 0;
	return *buf ? TSR_OK
		    : tsr_error(TSR_E_NOMEM, "out of memory for %llu bytes", (unsigned long long)n);
}

int tsr_storage_copy(unsigned char **buf, size_t *cap, const void *src, uint64_t n)
{
	int st = tsr_storage_room(buf, cap, n);
	if (st == TSR_OK) {
		memcpy(*buf, src, (size_t)n);
		memset(*buf + n, 0, 64);
	}
	return st;
}

int tsr_storage_map(struct tsr_source *src, int64_t chunk, struct tsr_chunk_ref *ref,
		    struct tsr_map *m)
{
	const struct tsr_backend *be = src->be;
	memset(m, 0, sizeof(*m));
	if (!be->map)
		return tsr_error(TSR_E_UNSUPPORTED, "%s storage maps no chunks", be->name);
	int st = be->open(src, chunk, ref);
	if (st)
		return st;
	st = be->map(src, ref->nbytes, m);
	be->release(src);
	return st;
}

int tsr_storage_fetch(struct tsr_source *src, int64_t chunk, struct tsr_chunk_ref *ref,
		      unsigned char **buf, size_t *cap, const unsigned char **bytes_ret)
{
	const struct tsr_backend *be = src->be;
	if (be->lend) {
		const unsigned char *b = be->lend(src->array, chunk);
		if (!b)
			return tsr_error(TSR_E_INTERNAL, "%s storage: chunk not cached", be->name);
		*bytes_ret = b;
		return TSR_OK;
	}
	*bytes_ret = *buf;
	int st = be->open(src, chunk, ref);
	if (st == TSR_E_NOT_FOUND && ref->missing_is_fill) {
		/* A chunk in a file of its own that does not exist: the fill value (Zarr). */
		tsr_chunk_set_fill(ref);
		return TSR_OK;
	}
	if (st)
		return st;
	if ((st = tsr_storage_room(buf, cap, ref->nbytes))) /* (an empty file: its slack) */
		goto done;
	st = be->read(src, TSR_MEM_HOST, *buf, 0, (size_t)ref->nbytes, 0);
	if (st == TSR_OK)
		memset(*buf + ref->nbytes, 0, 64);
done:
	*bytes_ret = *buf;
	be->release(src);
	return st;
}

int tsr_source_read_host(void *arg, void *dst, size_t nbytes, uint64_t offset)
{
	struct tsr_source *src = arg;
	return src->be->read(src, TSR_MEM_HOST, dst, 0, nbytes, offset);
}
