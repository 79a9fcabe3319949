/* read.c - shaping a read's Python arguments (options, destination, receipt) and the batch
 * and stream reads over many files. */
#include "tsrpy.h"

int tsrpy_npy_type(enum tsr_dtype dtype)
{
	switch (dtype) {
	case TSR_BOOL: return NPY_BOOL;
	case TSR_INT8: return NPY_INT8;
	case TSR_INT16: return NPY_INT16;
	case TSR_INT32: return NPY_INT32;
	case TSR_INT64: return NPY_INT64;
	case TSR_UINT8: return NPY_UINT8;
	case TSR_UINT16: return NPY_UINT16;
	case TSR_UINT32: return NPY_UINT32;
	case TSR_UINT64: return NPY_UINT64;
	case TSR_FLOAT16: return NPY_FLOAT16;
	case TSR_FLOAT32: return NPY_FLOAT32;
	case TSR_FLOAT64: return NPY_FLOAT64;
	case TSR_COMPLEX64: return NPY_COMPLEX64;
	case TSR_COMPLEX128: return NPY_COMPLEX128;
	default: return -1;
	}
}

PyObject *tsrpy_dtype_of(enum tsr_dtype dtype)
{
	int t = tsrpy_npy_type(dtype);
	if (t < 0) {
		PyErr_Format(PyExc_NotImplementedError, "tessera dtype %d has no NumPy type",
			     (int)dtype);
		return NULL;
	}
	return (PyObject *)PyArray_DescrFromType(t);
}

/* A structured descr ("[('a', '<i4'), ('', '|V4'), ...]", an NPY header's list with its
 * padding entries) through NumPy's own NPY reader: ast.literal_eval, then
 * numpy.lib.format.descr_to_dtype. Once per open, never per read. */
static PyArray_Descr *structured_descr(const char *text)
{
	static PyObject *literal_eval, *descr_to_dtype;
	PyObject *list, *d;

	if (!literal_eval) {
		PyObject *ast = PyImport_ImportModule("ast");
		PyObject *fmt = ast ? PyImport_ImportModule("numpy.lib.format") : NULL;
		if (fmt) {
			literal_eval = PyObject_GetAttrString(ast, "literal_eval");
			descr_to_dtype = PyObject_GetAttrString(fmt, "descr_to_dtype");
		}
		Py_XDECREF(ast);
		Py_XDECREF(fmt);
		if (!literal_eval || !descr_to_dtype) {
			Py_CLEAR(literal_eval);
			Py_CLEAR(descr_to_dtype);
			return NULL;
		}
	}
	list = PyObject_CallFunction(literal_eval, "s", text);
	if (!list)
		return NULL;
	d = PyObject_CallOneArg(descr_to_dtype, list);
	Py_DECREF(list);
	if (d && !PyArray_DescrCheck(d)) {
		Py_DECREF(d);
		PyErr_Format(PyExc_TypeError, "descr_to_dtype gave no dtype for %s", text);
		return NULL;
	}
	return (PyArray_Descr *)d;
}

PyArray_Descr *tsrpy_descr_of(enum tsr_dtype dtype, const char *descr)
{
	PyArray_Descr *d = NULL;
	PyObject *s;

	if (tsrpy_npy_type(dtype) >= 0) /* numbers come in native byte order */
		return PyArray_DescrFromType(tsrpy_npy_type(dtype));
	if (!descr || !*descr) {
		PyErr_Format(PyExc_NotImplementedError, "tessera dtype %s has no NumPy type",
			     tsr_dtype_name(dtype));
		return NULL;
	}
	if (descr[0] == '[')
		d = structured_descr(descr);
	else if ((s = PyUnicode_FromString(descr))) {
		if (!PyArray_DescrConverter(s, &d))
			d = NULL;
		Py_DECREF(s);
	}
	if (d && (size_t)PyDataType_ELSIZE(d) != tsr_dtype_size(dtype)) {
		PyErr_Format(PyExc_ValueError, "NumPy's dtype of descr %s has %zd bytes, not %zu",
			     descr, (Py_ssize_t)PyDataType_ELSIZE(d), tsr_dtype_size(dtype));
		Py_CLEAR(d);
	}
	return d;
}

PyObject *tsrpy_shape_tuple(int ndim, const int64_t *shape)
{
	PyObject *t = PyTuple_New(ndim);
	for (int i = 0; t && i < ndim; i++) {
		PyObject *v = PyLong_FromLongLong(shape[i]);
		if (!v) {
			Py_DECREF(t);
			return NULL;
		}
		PyTuple_SET_ITEM(t, i, v);
	}
	return t;
}

/* The ordinals a read option's devices may point at (they must outlive the options). */
#define TSRPY_MAX_ORDINAL 64
static const int tsrpy_ordinals[TSRPY_MAX_ORDINAL] = {
	0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
	22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43,
	44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63};

int tsrpy_parse_device(const char *name, int *cuda_ret, int *ordinal_ret)
{
	*cuda_ret = 0;
	*ordinal_ret = -1;
	if (!name || !strcmp(name, "cpu"))
		return 0;
	if (!strncmp(name, "cuda", 4) && (!name[4] || name[4] == ':')) {
		*cuda_ret = 1;
		if (!name[4])
			return 0;
		const char *p = name + 5;
		long v = 0;
		if (!*p)
			goto bad;
		for (; *p; p++) {
			if (*p < '0' || *p > '9' || v > 100000)
				goto bad;
			v = v * 10 + (*p - '0');
		}
		if (v >= TSRPY_MAX_ORDINAL) {
			PyErr_Format(PyExc_ValueError, "device '%s': tessera reads on CUDA devices 0 "
				     "to %d", name, TSRPY_MAX_ORDINAL - 1);
			return -1;
		}
		*ordinal_ret = (int)v;
		return 0;
	}
bad:
	PyErr_Format(PyExc_ValueError, "device must be 'cpu', 'cuda' or 'cuda:N', not '%s'", name);
	return -1;
}

int tsrpy_read_options(const struct tsrpy_read_args *ra, struct tsr_read_options *ro)
{
	static const char *const decoders[] = {"auto", "cpu", "gpu"};
	static const char *const storages[] = {"real", "mock-host", "mock-device", "posix", "cufile"};
	int i;

	memset(ro, 0, sizeof(*ro));
	ro->struct_size = sizeof(*ro);
	for (i = 0; i < 3 && strcmp(ra->decoder, decoders[i]); i++)
		;
	if (i == 3) {
		PyErr_Format(PyExc_ValueError, "decoder must be 'auto', 'cpu' or 'gpu', not '%s'",
			     ra->decoder);
		return -1;
	}
	ro->decoder = i;
	for (i = 0; i < 5; i++) {
		const char *a = ra->storage, *b = storages[i];
		while (*a && (*a == *b || (*a == '_' && *b == '-')))
			a++, b++;
		if (!*a && !*b)
			break;
	}
	if (i == 5) {
		PyErr_Format(PyExc_ValueError,
			     "storage must be 'real', 'mock-host', 'mock-device', 'posix' or "
			     "'cufile', not '%s'", ra->storage);
		return -1;
	}
	ro->storage = i;
	int cuda, ordinal;
	if (tsrpy_parse_device(ra->device, &cuda, &ordinal) < 0)
		return -1;
	if (cuda && ordinal >= 0) { /* "cuda:N"; "cuda": the out array's device, or the current */
		ro->devices = &tsrpy_ordinals[ordinal];
		ro->ndevices = 1;
	}
	return 0;
}

static PyObject *shape_text(int ndim, const int64_t *shape, enum tsr_dtype dtype)
{
	PyObject *t = tsrpy_shape_tuple(ndim, shape), *s;
	if (!t)
		return NULL;
	s = PyUnicode_FromFormat("shape %R and dtype %s", t, tsr_dtype_name(dtype));
	Py_DECREF(t);
	return s;
}

static int host_out(PyObject *out, enum tsr_dtype dtype, PyArray_Descr *want, int ndim,
		    const int64_t *shape, struct tsrpy_dest *d)
{
	PyArrayObject *a = (PyArrayObject *)out;
	int same = PyArray_NDIM(a) == ndim;

	for (int i = 0; same && i < ndim; i++)
		same = PyArray_DIMS(a)[i] == shape[i];
	if (!same || !PyArray_EquivTypes(PyArray_DESCR(a), want)) {
		PyObject *w = shape_text(ndim, shape, dtype), *sh = PyObject_GetAttrString(out, "shape");
		if (w && sh)
			PyErr_Format(PyExc_ValueError, "out has shape %R and dtype %S; the read gives %U "
				     "(%S)", sh, (PyObject *)PyArray_DESCR(a), w, (PyObject *)want);
		Py_XDECREF(w), Py_XDECREF(sh);
		return -1;
	}
	/* Raw dtypes keep their stored byte order: EquivTypes already compared it. */
	if (!PyArray_IS_C_CONTIGUOUS(a) || !PyArray_ISWRITEABLE(a) || !PyArray_ISALIGNED(a) ||
	    (tsrpy_npy_type(dtype) >= 0 && !PyArray_ISNOTSWAPPED(a))) {
		PyErr_SetString(PyExc_ValueError,
				"out must be a C-contiguous, aligned, writeable array in native byte "
				"order");
		return -1;
	}
	d->buf.data = PyArray_DATA(a);
	d->buf.nbytes = (size_t)PyArray_NBYTES(a);
	d->buf.mem = TSR_MEM_HOST;
	d->result = Py_NewRef(out);
	return 0;
}

/* New host arrays of at least this many bytes come from tsr_read_alloc where the caller can
 * (may_fresh): below it the library faults nothing in ahead (its big allocations start at 4
 * MiB), and a small read's cost is the call itself. */
#define TSRPY_FRESH_NBYTES ((size_t)4 << 20)

static void fresh_free(PyObject *cap)
{
	tsrpy_cache_give(PyCapsule_GetPointer(cap, "tessera.buffer"),
			 (size_t)(uintptr_t)PyCapsule_GetContext(cap));
}

PyObject *tsrpy_wrap_fresh(PyArray_Descr *descr, int ndim, const int64_t *shape, void *data,
			   size_t nbytes)
{
	npy_intp dims[TSR_MAX_DIM];
	PyObject *cap = PyCapsule_New(data, "tessera.buffer", NULL);
	if (!cap || PyCapsule_SetContext(cap, (void *)(uintptr_t)nbytes) ||
	    PyCapsule_SetDestructor(cap, fresh_free)) {
		Py_XDECREF(cap);
		tsrpy_cache_give(data, nbytes);
		return NULL;
	}
	for (int i = 0; i < ndim; i++)
		dims[i] = (npy_intp)shape[i];
	Py_INCREF(descr); /* PyArray_NewFromDescr steals it */
	PyObject *a = PyArray_NewFromDescr(&PyArray_Type, descr, ndim, dims, NULL, data,
					   NPY_ARRAY_CARRAY, NULL);
	if (!a) {
		Py_DECREF(cap);
		return NULL;
	}
	if (PyArray_SetBaseObject((PyArrayObject *)a, cap) < 0) { /* (it steals cap) */
		Py_DECREF(a);
		return NULL;
	}
	return a;
}

static int cupy_empty(enum tsr_dtype dtype, int ndim, const int64_t *shape, int ordinal,
		      struct tsrpy_dest *d);

int tsrpy_dest(const struct tsrpy_read_args *ra, enum tsr_dtype dtype, PyArray_Descr *descr,
	       int ndim, const int64_t *shape, int may_fresh, struct tsrpy_dest *d)
{
	int has_out = ra->out && ra->out != Py_None, cuda_out = 0;
	int numeric = tsrpy_npy_type(dtype) >= 0;
	void *ptr = NULL;
	size_t nbytes = 0;

	memset(d, 0, sizeof(*d));
	int named_cuda = 0, named_ordinal = -1; /* device= "cuda" or "cuda:N" */
	if (tsrpy_parse_device(ra->device, &named_cuda, &named_ordinal) < 0)
		return -1;
	/* Strings, raw bytes, structured and datetime dtypes: host NumPy arrays only (neither
	 * DLPack nor CuPy has them). */
	if (!numeric && (named_cuda || (has_out && !PyArray_Check(ra->out)))) {
		PyErr_Format(PyExc_NotImplementedError,
			     "device reads of dtype %S: read it into host memory (device='cpu', "
			     "out= a numpy.ndarray)", (PyObject *)descr);
		return -1;
	}
	if (has_out) {
		int r = tsrpy_cuda_target(ra->out, dtype, ndim, shape, &ptr, &nbytes);
		if (r < 0)
			return -1;
		cuda_out = r == 0;
	}
	int ordinal = -1;
	if (!ra->device)
		d->cuda = cuda_out;
	else if (tsrpy_parse_device(ra->device, &d->cuda, &ordinal) < 0)
		return -1;
	if (has_out && cuda_out != d->cuda) {
		PyErr_Format(PyExc_ValueError, "out is %s array but device='%s'",
			     cuda_out ? "a CUDA" : "a host", d->cuda ? "cuda" : "cpu");
		return -1;
	}
	if (!d->cuda) {
		npy_intp dims[TSR_MAX_DIM];
		if (ra->stream && ra->stream != Py_None) {
			PyErr_SetString(PyExc_ValueError, "stream= is for device='cuda' reads");
			return -1;
		}
		if (has_out) {
			if (!PyArray_Check(ra->out)) {
				PyErr_Format(PyExc_TypeError,
					     "out must be a numpy.ndarray or a CUDA array, not %.100s",
					     Py_TYPE(ra->out)->tp_name);
				return -1;
			}
			return host_out(ra->out, dtype, descr, ndim, shape, d);
		}
		size_t nbytes_new = (size_t)tsrpy_count(ndim, shape) * tsr_dtype_size(dtype);
		if (may_fresh && nbytes_new >= TSRPY_FRESH_NBYTES) {
			d->fresh = 1;
			d->buf.mem = TSR_MEM_HOST;
			d->buf.nbytes = nbytes_new; /* (data: a kept buffer, else tsr_read_alloc's) */
			return 0;
		}
		for (int i = 0; i < ndim; i++)
			dims[i] = (npy_intp)shape[i];
		Py_INCREF(descr); /* PyArray_NewFromDescr steals it */
		d->result = PyArray_NewFromDescr(&PyArray_Type, descr, ndim, dims, NULL, NULL, 0,
						 NULL);
		if (!d->result)
			return -1;
		d->buf.data = PyArray_DATA((PyArrayObject *)d->result);
		d->buf.nbytes = (size_t)PyArray_NBYTES((PyArrayObject *)d->result);
		d->buf.mem = TSR_MEM_HOST;
		return 0;
	}
	if (tsrpy_stream_ptr(ra->stream, &d->buf.cuda_stream) < 0)
		return -1;
	d->buf.mem = TSR_MEM_CUDA;
	if (has_out) {
		d->buf.data = ptr;
		d->buf.nbytes = nbytes;
		d->result = Py_NewRef(ra->out);
		return 0;
	}
	int pooled = cupy_empty(dtype, ndim, shape, ordinal, d);
	if (pooled)
		return pooled > 0 ? 0 : -1;
	tsrpy_DeviceArray *dev = tsrpy_device_new(dtype, ndim, shape, ordinal);
	if (!dev)
		return -1;
	d->buf.data = dev->ptr;
	d->buf.nbytes = dev->nbytes;
	d->result = (PyObject *)dev;
	return 0;
}

PyObject *tsrpy_receipt_dict(const struct tsr_receipt *r)
{
	return Py_BuildValue("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:i,s:L,s:L,s:K,s:K,s:K,s:d,s:d,s:d,s:d,"
			     "s:d,s:d}",
			     "driver", r->driver, "backend", r->backend, "engine", r->engine,
			     "codec", r->codec, "reader", r->reader, "fallback", r->fallback,
			     "decoder", r->decoder, "nthreads", r->nthreads, "chunks_total",
			     (long long)r->chunks_total, "chunks_read", (long long)r->chunks_read,
			     "bytes_read", (unsigned long long)r->bytes_read, "bytes_decoded",
			     (unsigned long long)r->bytes_decoded, "bytes_out",
			     (unsigned long long)r->bytes_out, "t_plan", r->t_plan, "t_fetch",
			     r->t_fetch, "t_decode", r->t_decode, "t_place", r->t_place, "t_total",
			     r->t_total, "t_wait", r->t_wait);
}

/* 0 after set_cupy_results(False): device reads give DeviceArrays even with CuPy there. */
static int g_cupy_results = 1;

PyObject *tsrpy_set_cupy_results(PyObject *mod, PyObject *flag)
{
	int prev = g_cupy_results, v = PyObject_IsTrue(flag);
	(void)mod;
	if (v < 0)
		return NULL;
	g_cupy_results = v;
	return PyBool_FromLong(prev);
}

/* The raised exception set aside and put back (PyErr_Fetch is deprecated from Python 3.12). */
static void err_set_aside(PyObject **t, PyObject **v, PyObject **tb)
{
#if PY_VERSION_HEX >= 0x030C0000
	*t = *tb = NULL;
	*v = PyErr_GetRaisedException();
#else
	PyErr_Fetch(t, v, tb);
#endif
}

static void err_put_back(PyObject *t, PyObject *v, PyObject *tb)
{
#if PY_VERSION_HEX >= 0x030C0000
	(void)t, (void)tb;
	PyErr_SetRaisedException(v);
#else
	PyErr_Restore(t, v, tb);
#endif
}

/* The cupy module (a borrowed reference, kept), or NULL where it cannot be imported. */
static PyObject *cupy_module(void)
{
	static PyObject *cupy;
	static int tried;
	if (!tried) {
		tried = 1;
		cupy = PyImport_ImportModule("cupy");
		if (!cupy)
			PyErr_Clear();
	}
	return cupy;
}

/* A new device read's destination from CuPy's memory pool, where device reads give CuPy
 * arrays: cupy.empty on device `ordinal` (-1: CuPy's current device, which is the CUDA
 * runtime's, as tessera's). The memory goes back to CuPy's pool with the array, as CuPy users
 * expect, instead of to cudaFree, which waits for the whole device (a new 64 MiB array a read
 * cost 7.2 ms against 6.4 ms into out= on an H200). Returns 1 with d set, 0 where CuPy is not
 * there or the array is empty (the caller makes a DeviceArray), -1 with CuPy's exception. */
static int cupy_empty(enum tsr_dtype dtype, int ndim, const int64_t *shape, int ordinal,
		      struct tsrpy_dest *d)
{
	PyObject *cupy = g_cupy_results ? cupy_module() : NULL;
	PyObject *shp = NULL, *type = NULL, *dev = NULL, *arr = NULL, *data = NULL, *ptr = NULL;
	int st = -1;
	size_t count = (size_t)tsrpy_count(ndim, shape);
	int ndev = 0;
	if (!cupy || !count || tsrpy_npy_type(dtype) < 0)
		return 0;
	/* (no device, or no such device: tessera's read gives the error, as without CuPy) */
	if (tsr_cuda_device_count(&ndev) != TSR_OK || ndev < 1 || ordinal >= ndev)
		return 0;
	shp = PyTuple_New(ndim);
	if (!shp)
		return -1;
	for (int i = 0; i < ndim; i++) {
		PyObject *v = PyLong_FromLongLong((long long)shape[i]);
		if (!v)
			goto done;
		PyTuple_SET_ITEM(shp, i, v);
	}
	type = (PyObject *)PyArray_DescrFromType(tsrpy_npy_type(dtype));
	if (!type)
		goto done;
	if (ordinal >= 0) {
		PyObject *cuda = PyObject_GetAttrString(cupy, "cuda"), *r;
		dev = cuda ? PyObject_CallMethod(cuda, "Device", "i", ordinal) : NULL;
		Py_XDECREF(cuda);
		r = dev ? PyObject_CallMethod(dev, "__enter__", NULL) : NULL;
		if (!r)
			goto done;
		Py_DECREF(r);
	}
	arr = PyObject_CallMethod(cupy, "empty", "OO", shp, type);
	if (dev) {
		/* (leaves CuPy's device as it was, also when empty failed: its error kept) */
		PyObject *et = NULL, *ev = NULL, *tb = NULL;
		if (!arr)
			err_set_aside(&et, &ev, &tb);
		PyObject *r = PyObject_CallMethod(dev, "__exit__", "OOO", Py_None, Py_None, Py_None);
		if (!r && arr)
			Py_CLEAR(arr);
		Py_XDECREF(r);
		if (et || ev) {
			PyErr_Clear();
			err_put_back(et, ev, tb);
		}
	}
	if (!arr)
		goto done;
	data = PyObject_GetAttrString(arr, "data");
	ptr = data ? PyObject_GetAttrString(data, "ptr") : NULL;
	void *p = ptr ? PyLong_AsVoidPtr(ptr) : NULL;
	if (!p) {
		if (!PyErr_Occurred())
			PyErr_SetString(PyExc_RuntimeError, "cupy.empty gave a NULL pointer");
		goto done;
	}
	d->buf.data = p;
	d->buf.nbytes = count * tsr_dtype_size(dtype);
	d->result = Py_NewRef(arr);
	st = 1;
done:
	Py_XDECREF(shp);
	Py_XDECREF(type);
	Py_XDECREF(dev);
	Py_XDECREF(arr);
	Py_XDECREF(data);
	Py_XDECREF(ptr);
	return st;
}

/* CuPy's array over a DeviceArray when CuPy is there (it keeps the DeviceArray, and so the
 * memory, alive); the DeviceArray itself otherwise. */
static PyObject *device_result(PyObject *dev)
{
	static PyObject *asarray;
	PyObject *r, *cupy;

	if (!g_cupy_results)
		return dev;
	if (!asarray && (cupy = cupy_module()) != NULL) {
		asarray = PyObject_GetAttrString(cupy, "asarray");
		if (!asarray)
			PyErr_Clear();
	}
	if (!asarray)
		return dev;
	r = PyObject_CallOneArg(asarray, dev);
	Py_DECREF(dev);
	return r;
}

PyObject *tsrpy_finish(PyObject *result, const struct tsr_receipt *r, int want_receipt)
{
	PyObject *rd;
	if (result && Py_IS_TYPE(result, &tsrpy_DeviceArrayType))
		result = device_result(result);
	if (!result || !want_receipt)
		return result;
	rd = tsrpy_receipt_dict(r);
	if (!rd) {
		Py_DECREF(result);
		return NULL;
	}
	return Py_BuildValue("(NN)", result, rd);
}

/* ---- many files ---- */

/* paths as one char* vector; *keep holds the encoded strings. */
static const char **path_vector(PyObject *paths, Py_ssize_t *n_ret, PyObject **keep)
{
	PyObject *seq;
	const char **v;
	Py_ssize_t n;

	*keep = NULL;
	if (PyUnicode_Check(paths) || PyBytes_Check(paths)) {
		PyErr_SetString(PyExc_TypeError, "paths must be a sequence of paths, not one path");
		return NULL;
	}
	seq = PySequence_Fast(paths, "paths must be a sequence of paths");
	if (!seq)
		return NULL;
	n = PySequence_Fast_GET_SIZE(seq);
	if (n == 0) {
		Py_DECREF(seq);
		PyErr_SetString(PyExc_ValueError, "paths is empty");
		return NULL;
	}
	*keep = PyList_New(n);
	v = PyMem_Calloc((size_t)n, sizeof(*v));
	if (!*keep || !v) {
		Py_DECREF(seq);
		Py_CLEAR(*keep);
		PyMem_Free(v);
		PyErr_NoMemory();
		return NULL;
	}
	for (Py_ssize_t i = 0; i < n; i++) {
		PyObject *b = NULL;
		if (!PyUnicode_FSConverter(PySequence_Fast_GET_ITEM(seq, i), &b)) {
			Py_DECREF(seq);
			Py_CLEAR(*keep);
			PyMem_Free(v);
			return NULL;
		}
		PyList_SET_ITEM(*keep, i, b);
		v[i] = PyBytes_AS_STRING(b);
	}
	Py_DECREF(seq);
	*n_ret = n;
	return v;
}

/* The shape one file's selection gives (from the first file), as the stacked reads need. A key
 * with integer arrays or masks becomes *ix when ix is given (batch reads), else is refused. */
static int per_file_shape(const char *path, const struct tsr_open_options *oo, PyObject *key,
			  struct tsr_selection *sel, struct tsr_index **ix, enum tsr_dtype *dtype,
			  PyArray_Descr **descr, int *ndim, int64_t *shape)
{
	struct tsr_array *a = NULL;
	struct tsr_array_info in = {.struct_size = sizeof(in)};
	int st, scalar;

	Py_BEGIN_ALLOW_THREADS
	st = tsr_open(tsrpy_context(), path, oo, &a);
	if (st == TSR_OK)
		st = tsr_array_info(a, &in);
	Py_END_ALLOW_THREADS
	if (st) {
		tsrpy_raise(st, path);
		tsr_array_free(a);
		return -1;
	}
	*descr = tsrpy_descr_of(in.dtype, in.descr);
	if (!*descr) {
		tsr_array_free(a);
		return -1;
	}
	int kind = tsrpy_key(key, in.ndim, sel, &scalar);
	if (kind > 0 && (!ix || tsrpy_index(key, TSR_INDEX_NUMPY, ix) < 0)) {
		if (!ix)
			PyErr_SetString(PyExc_NotImplementedError,
					"stream reads take basic keys (integers, slices, ... and None); "
					"read integer arrays and masks with read_batch or an Array");
		kind = -1;
	}
	if (kind < 0) {
		tsr_array_free(a);
		Py_CLEAR(*descr);
		return -1;
	}
	st = kind ? tsr_index_shape(a, *ix, ndim, shape) : tsr_selection_shape(a, sel, ndim, shape);
	if (st)
		tsrpy_raise(st, NULL); /* before tsr_array_free: the message is the thread's last */
	tsr_array_free(a);
	if (!st && *ndim + 1 > TSR_MAX_DIM) {
		PyErr_Format(PyExc_ValueError, "a stacked result would have more than %d dimensions",
			     TSR_MAX_DIM);
		st = -1;
	}
	if (st) {
		Py_CLEAR(*descr);
		if (ix) {
			tsr_index_free(*ix);
			*ix = NULL;
		}
		return -1;
	}
	*dtype = in.dtype;
	return 0;
}

/* A batch read of an advanced key (integer arrays, masks), which tsr_read_batch does not take:
 * each file through tsr_read_index into its slot of dst, one after the other (GIL released).
 * A file whose dtype or shape under the key differs from the first's sets *bad to its index
 * (status 0); a tessera error returns its status, *bad naming the file. The receipt sums the
 * files' counts and times; its names are the first file's. */
static int batch_index(const char **paths, Py_ssize_t n, const struct tsr_open_options *oo,
		       const struct tsr_index *ix, enum tsr_dtype dtype, int ndim,
		       const int64_t *shape, const struct tsr_buffer *dst,
		       const struct tsr_read_options *ro, struct tsr_receipt *rec, Py_ssize_t *bad)
{
	size_t per = n ? dst->nbytes / (size_t)n : 0;
	for (Py_ssize_t i = 0; i < n; i++) {
		struct tsr_array *a = NULL;
		struct tsr_array_info in = {.struct_size = sizeof(in)};
		struct tsr_receipt r = {.struct_size = sizeof(r)};
		struct tsr_buffer b = *dst;
		int64_t sh[TSR_MAX_DIM];
		int nd = 0, same;
		*bad = i;
		int st = tsr_open(tsrpy_context(), paths[i], oo, &a);
		if (!st)
			st = tsr_array_info(a, &in);
		if (!st)
			st = tsr_index_shape(a, ix, &nd, sh);
		if (st) {
			tsr_array_free(a);
			return st;
		}
		same = in.dtype == dtype && nd == ndim &&
		       !memcmp(sh, shape, (size_t)ndim * sizeof(*sh));
		if (!same) {
			tsr_array_free(a);
			return TSR_OK; /* *bad = i */
		}
		b.data = (char *)dst->data + (size_t)i * per;
		b.nbytes = per;
		st = tsr_read_index(a, ix, &b, ro, rec ? &r : NULL);
		tsr_array_free(a);
		if (st)
			return st;
		if (rec && i == 0) {
			*rec = r;
		} else if (rec) {
			rec->chunks_total += r.chunks_total;
			rec->chunks_read += r.chunks_read;
			rec->bytes_read += r.bytes_read;
			rec->bytes_decoded += r.bytes_decoded;
			rec->bytes_out += r.bytes_out;
			rec->t_plan += r.t_plan, rec->t_fetch += r.t_fetch;
			rec->t_decode += r.t_decode, rec->t_place += r.t_place;
			rec->t_total += r.t_total;
			rec->t_wait += r.t_wait;
		}
	}
	*bad = -1;
	return TSR_OK;
}

/* One stacked read of every path at one HDU. */
static PyObject *batch_one(const char **paths, Py_ssize_t n, PyObject *hdu,
			   const struct tsrpy_read_args *ra, PyObject *array, PyObject *level,
			   int raw)
{
	struct tsr_open_options oo;
	struct tsr_selection sel;
	struct tsr_read_options ro;
	struct tsr_receipt rec = {.struct_size = sizeof(rec)};
	struct tsrpy_dest d;
	enum tsr_dtype dtype;
	PyArray_Descr *descr = NULL;
	int64_t shape[TSR_MAX_DIM + 1];
	PyObject *ab = NULL;
	int ndim, st;

	if (tsrpy_open_options(hdu, array, level, raw, &oo, &ab) < 0)
		return NULL;
	struct tsr_index *ix = NULL;
	Py_ssize_t bad = -1;
	if (per_file_shape(paths[0], &oo, ra->key, &sel, &ix, &dtype, &descr, &ndim, shape + 1) < 0 ||
	    tsrpy_read_options(ra, &ro) < 0)
		goto fail;
	shape[0] = n;
	if (tsrpy_dest(ra, dtype, descr, ndim + 1, shape, 0, &d) < 0)
		goto fail;
	Py_CLEAR(descr);
	struct tsrpy_interrupt intr;
	if (tsrpy_interrupt_arm(&intr, &ro) < 0) {
		Py_DECREF(d.result);
		goto fail;
	}
	Py_BEGIN_ALLOW_THREADS
	if (ix)
		st = batch_index(paths, n, &oo, ix, dtype, ndim, shape + 1, &d.buf, &ro,
				 ra->receipt ? &rec : NULL, &bad);
	else
		st = tsr_read_batch(tsrpy_context(), paths, (size_t)n, &oo, &sel, &d.buf, &ro,
				    ra->receipt ? &rec : NULL);
	Py_END_ALLOW_THREADS
	tsr_index_free(ix);
	Py_XDECREF(ab);
	if (tsrpy_interrupt_end(&intr) < 0) {
		Py_DECREF(d.result);
		return NULL;
	}
	if (st || bad >= 0) {
		if (st) /* (before freeing device memory: the message is the thread's last) */
			bad >= 0 ? tsrpy_raise(st, paths[bad]) : tsrpy_raise_among(st, paths, n);
		else
			PyErr_Format(tsrpy_FormatError,
				     "%s: the key gives another shape or dtype than in %s (batch reads "
				     "stack equal results)", paths[bad], paths[0]);
		Py_DECREF(d.result);
		return NULL;
	}
	return tsrpy_finish(d.result, &rec, ra->receipt);
fail:
	tsr_index_free(ix);
	Py_XDECREF(descr);
	Py_XDECREF(ab);
	return NULL;
}

PyObject *tsrpy_read_batch(PyObject *mod, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"paths", "hdu", "hdus", "array", "level", "raw", "key", "device",
				 "out", "stream", "decoder", "storage", "receipt", NULL};
	struct tsrpy_read_args ra = {NULL, NULL, Py_None, Py_None, "auto", "real", 0};
	PyObject *paths, *hdu = Py_None, *hdus = Py_None, *array = Py_None, *level = Py_None;
	PyObject *keep = NULL, *res = NULL, *outs = NULL;
	const char **v;
	Py_ssize_t n;
	int raw = 0;
	(void)mod;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$OOOOpOzOOssp:read_batch", kwlist, &paths,
					 &hdu, &hdus, &array, &level, &raw, &ra.key, &ra.device,
					 &ra.out, &ra.stream, &ra.decoder, &ra.storage, &ra.receipt))
		return NULL;
	if (ra.key == Py_None)
		ra.key = NULL;
	v = path_vector(paths, &n, &keep);
	if (!v)
		return NULL;
	if (hdus == Py_None) {
		res = batch_one(v, n, hdu, &ra, array, level, raw);
		goto done;
	}
	/* Several HDUs: a tuple with one stacked array each (out: one target per HDU). */
	if (hdu != Py_None) {
		PyErr_SetString(PyExc_TypeError, "give hdu= or hdus=, not both");
		goto done;
	}
	PyObject *hs = PySequence_Fast(hdus, "hdus must be a sequence of HDU indices");
	if (!hs)
		goto done;
	Py_ssize_t nh = PySequence_Fast_GET_SIZE(hs);
	if (ra.out != Py_None) {
		outs = PySequence_Fast(ra.out, "with hdus=, out must be a sequence of arrays");
		if (!outs || PySequence_Fast_GET_SIZE(outs) != nh) {
			if (outs)
				PyErr_Format(PyExc_ValueError, "out has %zd arrays for %zd HDUs",
					     PySequence_Fast_GET_SIZE(outs), nh);
			Py_DECREF(hs);
			goto done;
		}
	}
	res = PyTuple_New(nh);
	for (Py_ssize_t i = 0; res && i < nh; i++) {
		struct tsrpy_read_args one = ra;
		PyObject *r;
		if (outs)
			one.out = PySequence_Fast_GET_ITEM(outs, i);
		r = batch_one(v, n, PySequence_Fast_GET_ITEM(hs, i), &one, array, level, raw);
		if (!r)
			Py_CLEAR(res);
		else
			PyTuple_SET_ITEM(res, i, r);
	}
	Py_DECREF(hs);
	if (res && ra.receipt) {
		/* ((arrays...), (receipts...)) rather than pairs per HDU. */
		PyObject *arrs = PyTuple_New(nh), *recs = PyTuple_New(nh);
		for (Py_ssize_t i = 0; arrs && recs && i < nh; i++) {
			PyObject *pair = PyTuple_GET_ITEM(res, i);
			PyTuple_SET_ITEM(arrs, i, Py_NewRef(PyTuple_GET_ITEM(pair, 0)));
			PyTuple_SET_ITEM(recs, i, Py_NewRef(PyTuple_GET_ITEM(pair, 1)));
		}
		Py_DECREF(res);
		res = arrs && recs ? Py_BuildValue("(NN)", arrs, recs) : NULL;
	}
done:
	Py_XDECREF(outs);
	Py_XDECREF(keep);
	PyMem_Free((void *)v);
	return res;
}

/* ---- stream: an iterator of stacked batches ---- */

typedef struct {
	PyObject_HEAD
	struct tsr_stream *stream;
	PyObject *keep;                /* the encoded paths */
	const char **paths;
	Py_ssize_t npaths;
	struct tsr_read_options ro;
	enum tsr_dtype dtype;
	PyArray_Descr *descr;          /* NumPy's dtype of dtype */
	int ndim;                      /* of one batch, the file axis included */
	int64_t shape[TSR_MAX_DIM + 1];
	int cuda;
	char device[16];               /* "cuda:N" or "cuda" (cuda reads) */
	PyObject *cuda_stream;
	int busy;
	PyObject *receipt;             /* of the last batch */
} tsrpy_Stream;

PyObject *tsrpy_stream_fn(PyObject *mod, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"paths", "batch", "prefetch", "hdu", "array", "level", "raw",
				 "key", "device", "stream", "decoder", "storage", NULL};
	struct tsrpy_read_args ra = {NULL, NULL, Py_None, Py_None, "auto", "real", 0};
	struct tsr_stream_options so = {sizeof(so), 1, 0};
	struct tsr_open_options oo;
	struct tsr_selection sel;
	PyObject *paths, *hdu = Py_None, *array = Py_None, *level = Py_None, *ab = NULL;
	tsrpy_Stream *s;
	Py_ssize_t n;
	int raw = 0, st;
	(void)mod;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$iiOOOpOzOss:stream", kwlist, &paths,
					 &so.files_per_batch, &so.prefetch, &hdu, &array, &level,
					 &raw, &ra.key, &ra.device, &ra.stream, &ra.decoder,
					 &ra.storage))
		return NULL;
	if (so.files_per_batch < 1 || so.prefetch < 0) {
		PyErr_Format(PyExc_ValueError, "batch must be >= 1 and prefetch >= 0 (got %d, %d)",
			     so.files_per_batch, so.prefetch);
		return NULL;
	}
	if (ra.key == Py_None)
		ra.key = NULL;
	s = PyObject_New(tsrpy_Stream, &tsrpy_StreamType);
	if (!s)
		return NULL;
	s->stream = NULL, s->keep = NULL, s->paths = NULL, s->busy = 0, s->receipt = NULL;
	s->npaths = 0;
	s->descr = NULL;
	s->cuda_stream = Py_NewRef(ra.stream);
	s->paths = path_vector(paths, &n, &s->keep);
	s->npaths = n;
	if (!s->paths || tsrpy_open_options(hdu, array, level, raw, &oo, &ab) < 0 ||
	    tsrpy_read_options(&ra, &s->ro) < 0 ||
	    per_file_shape(s->paths[0], &oo, ra.key, &sel, NULL, &s->dtype, &s->descr, &s->ndim,
			   s->shape + 1) < 0)
		goto fail;
	s->ndim += 1;
	s->shape[0] = so.files_per_batch < n ? so.files_per_batch : n;
	int ordinal = -1;
	if (tsrpy_parse_device(ra.device, &s->cuda, &ordinal) < 0)
		goto fail;
	if (ordinal >= 0)
		snprintf(s->device, sizeof(s->device), "cuda:%d", ordinal);
	else
		snprintf(s->device, sizeof(s->device), "cuda");
	if (s->cuda && tsrpy_npy_type(s->dtype) < 0) {
		PyErr_Format(PyExc_NotImplementedError,
			     "device reads of dtype %S: read it into host memory (device='cpu')",
			     (PyObject *)s->descr);
		goto fail;
	}
	Py_BEGIN_ALLOW_THREADS
	st = tsr_stream_open(tsrpy_context(), s->paths, (size_t)n, &oo, &sel, &so, &s->stream);
	Py_END_ALLOW_THREADS
	if (st) {
		tsrpy_raise_among(st, s->paths, n);
		goto fail;
	}
	Py_XDECREF(ab);
	return (PyObject *)s;
fail:
	Py_XDECREF(ab);
	Py_DECREF(s);
	return NULL;
}

static void stream_close_now(tsrpy_Stream *s)
{
	struct tsr_stream *st = s->stream;
	s->stream = NULL;
	if (st) {
		Py_BEGIN_ALLOW_THREADS
		tsr_stream_free(st);
		Py_END_ALLOW_THREADS
	}
}

static void stream_dealloc(tsrpy_Stream *s)
{
	stream_close_now(s);
	Py_XDECREF(s->keep);
	Py_XDECREF(s->cuda_stream);
	Py_XDECREF(s->receipt);
	Py_XDECREF(s->descr);
	PyMem_Free((void *)s->paths);
	PyObject_Free(s);
}

static PyObject *stream_next(tsrpy_Stream *s)
{
	struct tsrpy_read_args ra = {NULL, s->cuda ? s->device : "cpu", Py_None, s->cuda_stream,
				     "auto", "real", 0};
	struct tsr_receipt rec = {.struct_size = sizeof(rec)};
	struct tsrpy_dest d;
	size_t got = 0;
	int st;

	if (!s->stream)
		return NULL; /* exhausted or closed: StopIteration */
	if (s->busy) {
		PyErr_SetString(PyExc_RuntimeError, "a tessera.Stream is read by one thread at a time");
		return NULL;
	}
	s->busy = 1; /* from here: a device allocation may release the GIL */
	if (tsrpy_dest(&ra, s->dtype, s->descr, s->ndim, s->shape, 0, &d) < 0) {
		s->busy = 0;
		return NULL;
	}
	struct tsrpy_interrupt intr;
	if (tsrpy_interrupt_arm(&intr, &s->ro) < 0) {
		s->busy = 0;
		Py_DECREF(d.result);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	st = tsr_stream_next(s->stream, &d.buf, &s->ro, &got, &rec);
	Py_END_ALLOW_THREADS
	s->busy = 0;
	s->ro.stop = NULL, s->ro.stop_arg = NULL; /* (intr lives for this call only) */
	if (tsrpy_interrupt_end(&intr) < 0) {
		/* as a generator an exception ends: the stream is closed */
		Py_DECREF(d.result);
		stream_close_now(s);
		return NULL;
	}
	if (st) {
		/* first: freeing device memory is a tessera call */
		tsrpy_raise_among(st, s->paths, s->npaths);
		Py_DECREF(d.result);
		/* as a generator an exception ends: the next call stops the iteration, where it
		 * raised the same error again */
		stream_close_now(s);
		return NULL;
	}
	if (got == 0) {
		Py_DECREF(d.result);
		stream_close_now(s);
		return NULL;
	}
	Py_XSETREF(s->receipt, tsrpy_receipt_dict(&rec));
	if ((int64_t)got < s->shape[0]) { /* the last, short batch */
		PyObject *head;
		/* (a DeviceArray has no slicing; NumPy's and CuPy's arrays do) */
		if (d.cuda && Py_IS_TYPE(d.result, &tsrpy_DeviceArrayType))
			head = tsrpy_device_head((tsrpy_DeviceArray *)d.result, (int64_t)got);
		else
			head = PySequence_GetSlice(d.result, 0, (Py_ssize_t)got);
		Py_DECREF(d.result);
		d.result = head;
	}
	return tsrpy_finish(d.result, &rec, 0);
}

static PyObject *stream_close(tsrpy_Stream *s, PyObject *noargs)
{
	(void)noargs;
	if (s->busy) {
		PyErr_SetString(PyExc_RuntimeError, "tessera.Stream.close: a batch is being read");
		return NULL;
	}
	stream_close_now(s);
	Py_RETURN_NONE;
}

static PyObject *stream_enter(tsrpy_Stream *s, PyObject *noargs)
{
	(void)noargs;
	return Py_NewRef(s);
}

static PyObject *stream_exit(tsrpy_Stream *s, PyObject *args)
{
	(void)args;
	return stream_close(s, NULL);
}

static PyObject *stream_receipt(tsrpy_Stream *s, void *c)
{
	(void)c;
	return Py_NewRef(s->receipt ? s->receipt : Py_None);
}

static PyMethodDef stream_methods[] = {
	{"close", (PyCFunction)stream_close, METH_NOARGS,
	 "close($self, /)\n--\n\nStops the read-ahead; later batches raise StopIteration."},
	{"__enter__", (PyCFunction)stream_enter, METH_NOARGS,
	 "__enter__($self, /)\n--\n\nThe Stream itself."},
	{"__exit__", (PyCFunction)stream_exit, METH_VARARGS,
	 "__exit__($self, exc_type, exc_value, traceback, /)\n--\n\nCloses the Stream."},
	{NULL, NULL, 0, NULL},
};

static PyGetSetDef stream_getset[] = {
	{"receipt", (getter)stream_receipt, NULL, "receipt of the last batch (dict)", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject tsrpy_StreamType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "tessera.Stream",
	.tp_basicsize = sizeof(tsrpy_Stream),
	.tp_dealloc = (destructor)stream_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "Stacked batches of many files, read ahead (tessera.stream).",
	.tp_iter = PyObject_SelfIter,
	.tp_iternext = (iternextfunc)stream_next,
	.tp_methods = stream_methods,
	.tp_getset = stream_getset,
};
