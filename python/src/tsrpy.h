/* tsrpy.h - what the files of the Python extension share: its types, the error mapping and
 * the shaping of Python arguments into tessera.h calls. */
#ifndef TSRPY_H
#define TSRPY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define PY_ARRAY_UNIQUE_SYMBOL tsrpy_ARRAY_API
#ifndef TSRPY_IMPORT_ARRAY
#define NO_IMPORT_ARRAY
#endif
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include "tessera.h"

/* The module's exceptions (module.c). */
extern PyObject *tsrpy_TesseraError, *tsrpy_FormatError, *tsrpy_CorruptError,
	*tsrpy_NoDeviceError;

/* tsrpy_raise() sets the Python exception that matches a tessera status, with the calling
 * thread's tsr_errmsg() as its message; path (may be NULL) makes a missing file a
 * FileNotFoundError. Returns NULL for `return tsrpy_raise(...)`. */
PyObject *tsrpy_raise(int status, const char *path);
/* tsrpy_raise for a read of several files: FileNotFoundError for the one of paths[0 .. n) that
 * the message names and that does not exist, as a read of that file alone raises. */
PyObject *tsrpy_raise_among(int status, const char *const *paths, Py_ssize_t n);

/* The one context every handle of the process reads through (module.c). */
struct tsr_context *tsrpy_context(void);

/* ---- Ctrl-C during a read (interrupt.c) ---- */
#include <pthread.h>
#include <stdatomic.h>
struct tsrpy_interrupt {
	atomic_int stop;
	pthread_t caller;
	int on_main;                   /* the read runs on the main thread (signals run there) */
	long long next_ns;             /* when the caller's thread looks at signals next */
	PyObject *type, *exc, *tb;     /* what a signal handler raised (3.12: exc alone) */
};
/* At import: which thread is the main one. 0, or -1 with an exception. */
int tsrpy_interrupt_init(void);
/* Just before a read releases the GIL: ro's stop callback runs the pending signals' handlers
 * on the main thread between chunks, and an exception one raises stops the read. -1 with
 * RuntimeError where a handler starts a read inside this thread's read (it would deadlock). */
int tsrpy_interrupt_arm(struct tsrpy_interrupt *in, struct tsr_read_options *ro);
/* Just after the read, GIL held: 0, or -1 with the handler's exception set (raise it,
 * whatever the read's status, and drop the result). */
int tsrpy_interrupt_end(struct tsrpy_interrupt *in);

/* Python key -> tsr_selection (key.c): ints, slices with any step, Ellipsis, None, tuples of
 * them. *scalar_ret is 1 when NumPy would return a scalar (every axis taken by an integer). */
/* tsrpy_key: -1 with an exception, 0 for a basic key (in *sel), 1 for a key with integer
 * arrays, lists or masks, which tsrpy_index then builds (mode: enum tsr_index_mode). */
int tsrpy_key(PyObject *key, int ndim, struct tsr_selection *sel, int *scalar_ret);
int tsrpy_index(PyObject *key, int mode, struct tsr_index **index_ret);

/* NumPy type number of a tessera dtype, -1 if none. */
int tsrpy_npy_type(enum tsr_dtype dtype);

/* ---- Array (array.c) ---- */
typedef struct {
	PyObject_HEAD
	struct tsr_array *array;       /* NULL once closed */
	struct tsr_array_info info;
	PyArray_Descr *descr;          /* NumPy's dtype of what reads return, made once at open */
	PyObject *path;                /* str */
	Py_ssize_t readers;            /* reads in flight (GIL released); close waits for 0 */
	PyObject *weakrefs;
	/* how to open it again, for pickling: (path, hdu, array, level, raw, dtype), as
	 * tessera.open takes them (hdu the index found); NULL: not known */
	PyObject *reopen;
} tsrpy_Array;

extern PyTypeObject tsrpy_ArrayType;
/* 0, or -1 with ValueError once the Array is closed. */
int tsrpy_check_open(tsrpy_Array *self);
/* iter(a): the rows of axis 0, read a block of whole chunks at a time (iter.c). */
extern PyTypeObject tsrpy_ArrayIterType;
PyObject *tsrpy_array_iter(tsrpy_Array *self);
PyObject *tsrpy_open(PyObject *self, PyObject *args, PyObject *kw);
/* tessera.list_arrays (listing.c). */
PyObject *tsrpy_list_arrays(PyObject *self, PyObject *args, PyObject *kw);
PyObject *tsrpy_read_fn(PyObject *self, PyObject *args, PyObject *kw);
int tsrpy_open_options(PyObject *hdu, PyObject *array, PyObject *level, int raw,
		       struct tsr_open_options *oo, PyObject **array_bytes);
/* The same with open()'s dtype (None: none); *keep holds the strings oo points into. */
int tsrpy_open_options_dtype(PyObject *hdu, PyObject *array, PyObject *level, int raw,
			     PyObject *dtype, struct tsr_open_options *oo, PyObject **keep);
/* An Array of an opened handle, taken over (freed on failure too); path: its str. NULL with
 * an exception on failure. */
tsrpy_Array *tsrpy_array_wrap(struct tsr_array *handle, PyObject *path);
/* Records how a wrapped Array opens again (tessera.open's arguments; hdu: an int or None, the
 * rest as open takes them); a FITS Array's hdu becomes the index it was opened at. Steals
 * nothing. 0, or -1 with an exception. */
int tsrpy_array_reopen_set(tsrpy_Array *self, PyObject *array, PyObject *level, int raw,
			   PyObject *dtype);
/* tessera._tessera._reopen(path, hdu, array, level, raw, dtype): what unpickling calls. */
PyObject *tsrpy_reopen(PyObject *mod, PyObject *args);
/* tessera.iter_arrays (listing.c). */
extern PyTypeObject tsrpy_ArraysIterType;
PyObject *tsrpy_iter_arrays(PyObject *self, PyObject *args, PyObject *kw);
/* An info dict's "hdu": the FITS HDU's index, None for formats without HDUs (as the CLI's
 * JSON gives it). */
PyObject *tsrpy_hdu_of(const struct tsr_array_info *in);
/* An info dict's "stored_nbytes": None for Zarr, where tessera does not list every chunk to
 * count them (metadata() does). */
PyObject *tsrpy_stored_of(const struct tsr_array_info *in);
PyObject *tsrpy_info_dict(const struct tsr_array_info *in, PyArray_Descr *descr,
			  PyObject *path);
/* metadata(): tsr_array_metadata's document as a dict; attrs: its user part (meta.c). */
PyObject *tsrpy_array_metadata(tsrpy_Array *self);
PyObject *tsrpy_array_attrs(tsrpy_Array *self);

/* ---- Reads (read.c) ---- */
/* The keyword arguments every read shares, parsed once. */
struct tsrpy_read_args {
	PyObject *key;
	const char *device;            /* NULL: inferred from out (CUDA array -> cuda), else cpu */
	PyObject *out;
	PyObject *stream;
	const char *decoder;
	const char *storage;
	int receipt;
};

/* Where a read lands: a host NumPy array, a caller's CUDA array or a DeviceArray of ours. */
struct tsrpy_dest {
	PyObject *result;              /* new reference: what the call returns */
	struct tsr_buffer buf;
	int cuda;
	int fresh;                     /* result NULL: read into a kept buffer (host_cache.c)
					  or with tsr_read_alloc, then wrap it (tsrpy_wrap_fresh);
					  buf.nbytes is the result's size */
};

/* Parses a device name: "cpu" (*cuda_ret 0), "cuda" (1, *ordinal_ret -1: the out array's
 * device, else the current one) or "cuda:N" (1, N); ValueError otherwise. NULL: cpu. */
int tsrpy_parse_device(const char *name, int *cuda_ret, int *ordinal_ret);
int tsrpy_read_options(const struct tsrpy_read_args *ra, struct tsr_read_options *ro);
/* descr (borrowed): NumPy's dtype of dtype (tsrpy_descr_of); strings, raw bytes, structured
 * and datetime dtypes land in host arrays only. */
/* may_fresh: a large new host array may come from tsr_read_alloc instead (d->fresh), which
 * faults its pages in on the library's threads before the read, as C callers' new buffers
 * are; the caller reads with it and wraps the result. */
int tsrpy_dest(const struct tsrpy_read_args *ra, enum tsr_dtype dtype, PyArray_Descr *descr,
	       int ndim, const int64_t *shape, int may_fresh, struct tsrpy_dest *d);
/* A NumPy array (C order, writeable) over data (nbytes) from tsr_read_alloc, which goes to the
 * host cache (tsrpy_cache_give) when the array goes; on failure too. */
PyObject *tsrpy_wrap_fresh(PyArray_Descr *descr, int ndim, const int64_t *shape, void *data,
			   size_t nbytes);
/* ---- Host cache (host_cache.c): freed large result buffers kept for the next read ---- */
/* A kept buffer of at least need bytes (and not a quarter more), out of the cache; its size in
 * *nbytes_ret. NULL: none. */
void *tsrpy_cache_take(size_t need, size_t *nbytes_ret);
/* Frees every kept buffer (a read that found no memory tries again without them); returns
 * whether there were any. */
int tsrpy_cache_clear(void);
/* Keeps p (nbytes, from tsr_read_alloc) for a later read, or frees it (over the limit; older
 * buffers are freed first to make room). */
void tsrpy_cache_give(void *p, size_t nbytes);
/* tessera.host_cache(limit=None) */
PyObject *tsrpy_host_cache(PyObject *self, PyObject *args, PyObject *kw);
/* Elements of an array of this shape. */
int64_t tsrpy_count(int ndim, const int64_t *shape);
PyObject *tsrpy_receipt_dict(const struct tsr_receipt *r);
PyObject *tsrpy_finish(PyObject *result, const struct tsr_receipt *r, int want_receipt);
PyObject *tsrpy_set_cupy_results(PyObject *mod, PyObject *flag);
PyObject *tsrpy_read_batch(PyObject *self, PyObject *args, PyObject *kw);
PyObject *tsrpy_stream_fn(PyObject *self, PyObject *args, PyObject *kw);
extern PyTypeObject tsrpy_StreamType;
PyObject *tsrpy_dtype_of(enum tsr_dtype dtype);
/* The NumPy dtype of a tessera dtype and tsr_array_info's descr (which names the exact dtype
 * of strings, raw bytes, structured and datetime elements): a new reference, or NULL. */
PyArray_Descr *tsrpy_descr_of(enum tsr_dtype dtype, const char *descr);
PyObject *tsrpy_shape_tuple(int ndim, const int64_t *shape);

/* ---- Device memory (device.c) ---- */
typedef struct {
	PyObject_HEAD
	void *ptr;                     /* tsr_cuda_malloc'd, or borrowed from owner */
	PyObject *owner;               /* keeps ptr alive when it is not ours (a view) */
	size_t nbytes;
	enum tsr_dtype dtype;
	int ndim;
	int64_t shape[TSR_MAX_DIM];
	int64_t strides[TSR_MAX_DIM];  /* for DLPack (elements, C order) */
	int device;                    /* the CUDA device ordinal its memory is on */
} tsrpy_DeviceArray;

extern PyTypeObject tsrpy_DeviceArrayType;
/* A new DeviceArray of tessera device memory on CUDA device `device` (-1: the current one), or
 * NULL with an exception. */
tsrpy_DeviceArray *tsrpy_device_new(enum tsr_dtype dtype, int ndim, const int64_t *shape,
				    int device);
/* A DeviceArray on the first rows of base (a short last stream batch). */
PyObject *tsrpy_device_head(tsrpy_DeviceArray *base, int64_t rows);
/* The CUDA pointer of any object with __cuda_array_interface__ after checking shape and
 * dtype (ValueError naming both); 1 if obj has no such interface (not a CUDA array). */
int tsrpy_cuda_target(PyObject *obj, enum tsr_dtype dtype, int ndim, const int64_t *shape,
		      void **ptr_ret, size_t *nbytes_ret);
/* A CUDA stream argument (None, int handle, CuPy .ptr, PyTorch .cuda_stream) as a pointer. */
int tsrpy_stream_ptr(PyObject *stream, void **ret);

#endif
