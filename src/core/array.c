/* array.c - an opened array's description: its dtype view, chunk grid, names, info and backend slot. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "array.h"

/* The caller's dtype for an array whose file names one: a view of the values read, so only
 * the label changes (the engines place bytes of the array's own item size). */
int tsr_array_view(struct tsr_array *a)
{
	struct tsr_desc *d = &a->desc;
	enum tsr_dtype t = a->want_dtype;
	if (t == TSR_DTYPE_INVALID || (d->dtype_source && !strcmp(d->dtype_source, "caller")))
		return TSR_OK;
	char unit[320];
	tsr_array_unit(a, unit, sizeof(unit));
	if (tsr_dtype_size(t) != tsr_dtype_size(d->dtype))
		return tsr_error(TSR_E_INVALID_ARG, "%s%s: dtype %s has %zu-byte items, the array "
				 "(%s) has %zu-byte items", a->path, unit, tsr_dtype_name(t),
				 tsr_dtype_size(t), tsr_dtype_name(d->dtype), tsr_dtype_size(d->dtype));
	if (a->want_order == '>' && tsr_dtype_size(t) > 1)
		return tsr_error(TSR_E_UNSUPPORTED, "%s%s: a big-endian dtype ('>'): tessera "
				 "returns values in native order, and the file names its own", a->path,
				 unit);
	d->dtype = t;
	d->descr = NULL; /* the view's own */
	d->dtype_source = "caller";
	return TSR_OK;
}

void tsr_array_grid(struct tsr_array *a)
{
	a->desc.nchunks = 1;
	for (int d = 0; d < a->desc.ndim; d++) {
		int64_t c = a->desc.chunk_shape[d];
		a->desc.grid[d] = c > 0 ? (a->desc.shape[d] + c - 1) / c : 0;
		a->desc.nchunks *= a->desc.grid[d];
	}
}

int64_t tsr_array_chunk_extent(const struct tsr_array *a, int64_t chunk, int64_t *extent)
{
	const struct tsr_desc *d = &a->desc;
	int64_t rem = chunk, npix = 1;
	for (int i = d->ndim - 1; i >= 0; i--) {
		/* (no division along an axis of one chunk, a 32-bit one where both fit: drivers
		 * describe one chunk a task, 131,072 for 32 images of 4096 FITS row tiles, and two
		 * 64-bit divisions were a fifth of the FITS driver's time a tile, plan_bench's perf) */
		int64_t g = d->grid[i], c = 0;
		if (g > 1 && (((uint64_t)rem | (uint64_t)g) >> 32) == 0) {
			uint32_t q = (uint32_t)rem / (uint32_t)g;
			c = rem - (int64_t)q * g;
			rem = q;
		} else if (g > 1) {
			c = rem % g;
			rem /= g;
		}
		int64_t e = d->shape[i] - c * d->chunk_shape[i];
		extent[i] = e < d->chunk_shape[i] ? e : d->chunk_shape[i];
		npix *= extent[i];
	}
	return npix;
}

void tsr_array_unit(const struct tsr_array *a, char *buf, size_t cap)
{
	if (!a->desc.unit_noun)
		snprintf(buf, cap, "%s", "");
	else if (a->desc.unit_label)
		snprintf(buf, cap, ": %s %s", a->desc.unit_noun, a->desc.unit_label);
	else
		snprintf(buf, cap, ": %s %d", a->desc.unit_noun, a->desc.index);
}

void tsr_array_chunk_name(const struct tsr_array *a, int64_t chunk, char *prefix,
			  size_t prefix_cap, char *label, size_t label_cap)
{
	if (prefix) {
		char unit[320];
		tsr_array_unit(a, unit, sizeof(unit));
		snprintf(prefix, prefix_cap, "%s%s: %s", a->path, unit, a->desc.chunk_noun);
	}
	if (label) {
		if (a->desc.chunk_label)
			a->desc.chunk_label(a, chunk, label, label_cap);
		else
			snprintf(label, label_cap, "%lld", (long long)chunk);
	}
}

int tsr_array_info(const struct tsr_array *a, struct tsr_array_info *info_ret)
{
	struct tsr_array_info *info = info_ret;
	if (!a || !info)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_array_info: NULL argument");
	/* Callers built before `descr` was added pass a smaller struct: fill what fits. */
	size_t size = info->struct_size;
	if (size < offsetof(struct tsr_array_info, descr))
		return tsr_error(TSR_E_INVALID_ARG, "tsr_array_info: struct_size %zu is below the "
				 "first published struct's %zu", size,
				 offsetof(struct tsr_array_info, descr));
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
	info->level = d->level;
	info->name = d->name ? d->name : "";
	memcpy(info_ret, &full, size);
	return TSR_OK;
}

/* The slot is read without a lock by any thread (a mock-host read's workers look chunks up in
 * it), and the first backend to need it may race another: an atomic load and a
 * compare-and-swap keep both sound. */
void *tsr_array_backend(const struct tsr_array *a)
{
	return __atomic_load_n(&a->backend, __ATOMIC_ACQUIRE);
}

void *tsr_array_backend_attach(struct tsr_array *a, void *state, void (*release)(void *))
{
	void *none = NULL;
	if (__atomic_compare_exchange_n(&a->backend, &none, state, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE)) {
		a->backend_release = release; /* (read only by tsr_array_free, after every read) */
		return state;
	}
	return none; /* the state another thread attached first */
}

void tsr_array_backend_release(struct tsr_array *a)
{
	if (a->backend && a->backend_release)
		a->backend_release(a->backend);
	a->backend = NULL;
	a->backend_release = NULL;
}
