/* device.c - tessera.DeviceArray: device memory a CUDA read filled, handed to CuPy, PyTorch
 * and JAX without copies (__cuda_array_interface__ v3, DLPack); and CUDA targets and streams
 * the caller passes in. Only tessera.h's CUDA helpers are used: this file compiles the same
 * with and without a CUDA build of the library. */
#include "tsrpy.h"

#include <stdlib.h>

/* ---- DLPack (https://dmlc.github.io/dlpack/latest/c_api.html), the ABI as the spec
 * defines it; written here so the module needs no DLPack header. ---- */
enum { kDLCPU = 1, kDLCUDA = 2 };
enum { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLComplex = 5, kDLBool = 6 };

typedef struct { int32_t device_type, device_id; } DLDevice;
typedef struct { uint8_t code, bits; uint16_t lanes; } DLDataType;
typedef struct {
	void *data;
	DLDevice device;
	int32_t ndim;
	DLDataType dtype;
	int64_t *shape;
	int64_t *strides;
	uint64_t byte_offset;
} DLTensor;
typedef struct DLManagedTensor {
	DLTensor dl_tensor;
	void *manager_ctx;
	void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;
typedef struct { uint32_t major, minor; } DLPackVersion;
typedef struct DLManagedTensorVersioned {
	DLPackVersion version;
	void *manager_ctx;
	void (*deleter)(struct DLManagedTensorVersioned *self);
	uint64_t flags;
	DLTensor dl_tensor;
} DLManagedTensorVersioned;

int64_t tsrpy_count(int ndim, const int64_t *shape)
{
	int64_t n = 1;
	for (int i = 0; i < ndim; i++)
		n *= shape[i];
	return n;
}

static void c_strides(tsrpy_DeviceArray *d)
{
	int64_t s = 1;
	for (int i = d->ndim - 1; i >= 0; i--) {
		d->strides[i] = s;
		s *= d->shape[i] > 0 ? d->shape[i] : 1;
	}
}

tsrpy_DeviceArray *tsrpy_device_new(enum tsr_dtype dtype, int ndim, const int64_t *shape,
				    int device)
{
	tsrpy_DeviceArray *d;
	size_t nbytes = (size_t)tsrpy_count(ndim, shape) * tsr_dtype_size(dtype);
	void *ptr = NULL;
	int st, owner = -1;

	/* A zero-byte allocation still proves a device is there, and gives a pointer. */
	Py_BEGIN_ALLOW_THREADS
	st = device >= 0 ? tsr_cuda_malloc_on(device, nbytes ? nbytes : 1, &ptr)
			 : tsr_cuda_malloc(nbytes ? nbytes : 1, &ptr);
	/* the device it landed on, as DLPack and repr report it */
	if (st == TSR_OK && tsr_cuda_pointer_device(ptr, &owner) != TSR_OK)
		owner = device;
	Py_END_ALLOW_THREADS
	if (st) {
		if (st == TSR_E_NOMEM) {
			PyErr_Format(PyExc_MemoryError, "cannot allocate %zu bytes of device memory: %s",
				     nbytes, tsr_errmsg());
			return NULL;
		}
		return (tsrpy_DeviceArray *)tsrpy_raise(st, NULL);
	}
	d = PyObject_New(tsrpy_DeviceArray, &tsrpy_DeviceArrayType);
	if (!d) {
		tsr_cuda_free(ptr);
		return NULL;
	}
	d->ptr = ptr;
	d->owner = NULL;
	d->device = owner >= 0 ? owner : 0;
	d->nbytes = nbytes;
	d->dtype = dtype;
	d->ndim = ndim;
	memcpy(d->shape, shape, (size_t)ndim * sizeof(*shape));
	c_strides(d);
	return d;
}

PyObject *tsrpy_device_head(tsrpy_DeviceArray *base, int64_t rows)
{
	tsrpy_DeviceArray *d = PyObject_New(tsrpy_DeviceArray, &tsrpy_DeviceArrayType);
	if (!d)
		return NULL;
	d->ptr = base->ptr;
	d->owner = Py_NewRef(base);
	d->device = base->device;
	d->dtype = base->dtype;
	d->ndim = base->ndim;
	memcpy(d->shape, base->shape, sizeof(d->shape));
	d->shape[0] = rows;
	d->nbytes = (size_t)tsrpy_count(d->ndim, d->shape) * tsr_dtype_size(d->dtype);
	c_strides(d);
	return (PyObject *)d;
}

static void device_dealloc(tsrpy_DeviceArray *d)
{
	if (d->owner)
		Py_DECREF(d->owner);
	else
		tsr_cuda_free(d->ptr);
	PyObject_Free(d);
}

static PyObject *typestr(enum tsr_dtype dtype)
{
	/* The descr of tessera.h is little-endian; so is every CUDA host NumPy runs on. */
	return PyUnicode_FromString(tsr_dtype_npy_descr(dtype));
}

static PyObject *dev_cai(tsrpy_DeviceArray *d, void *c)
{
	(void)c;
	/* Reads are synchronous (tsr_read returns once the device work is done), so consumers
	 * need not wait on any stream: "stream": None. */
	return Py_BuildValue("{s:N,s:N,s:(NO),s:O,s:i,s:O}", "shape",
			     tsrpy_shape_tuple(d->ndim, d->shape), "typestr", typestr(d->dtype),
			     "data", PyLong_FromVoidPtr(d->ptr), Py_False, "strides", Py_None,
			     "version", 3, "stream", Py_None);
}

static PyObject *dev_shape(tsrpy_DeviceArray *d, void *c)
{
	(void)c;
	return tsrpy_shape_tuple(d->ndim, d->shape);
}

static PyObject *dev_dtype(tsrpy_DeviceArray *d, void *c)
{
	(void)c;
	return tsrpy_dtype_of(d->dtype);
}

static PyObject *dev_ndim(tsrpy_DeviceArray *d, void *c)
{
	(void)c;
	return PyLong_FromLong(d->ndim);
}

static PyObject *dev_size(tsrpy_DeviceArray *d, void *c)
{
	(void)c;
	return PyLong_FromLongLong(tsrpy_count(d->ndim, d->shape));
}

static PyObject *dev_nbytes(tsrpy_DeviceArray *d, void *c)
{
	(void)c;
	return PyLong_FromSize_t(d->nbytes);
}

static PyObject *dev_ptr(tsrpy_DeviceArray *d, void *c)
{
	(void)c;
	return PyLong_FromVoidPtr(d->ptr);
}

static PyObject *dev_device_id(tsrpy_DeviceArray *d, void *c)
{
	(void)c;
	return PyLong_FromLong(d->device);
}

/* ---- DLPack export ---- */

struct dl_ctx {
	PyObject *owner;               /* the DeviceArray: its memory lives while the consumer holds it */
	int64_t shape[TSR_MAX_DIM], strides[TSR_MAX_DIM];
};

static void release_owner(void *manager_ctx)
{
	struct dl_ctx *c = manager_ctx;
	PyGILState_STATE g = PyGILState_Ensure(); /* consumers may free from any thread */
	Py_DECREF(c->owner);
	PyGILState_Release(g);
	free(c);
}

static void del_legacy(DLManagedTensor *m)
{
	release_owner(m->manager_ctx);
	free(m);
}

static void del_versioned(DLManagedTensorVersioned *m)
{
	release_owner(m->manager_ctx);
	free(m);
}

/* A capsule nobody consumed still owns its tensor. */
static void capsule_legacy(PyObject *cap)
{
	if (PyCapsule_IsValid(cap, "dltensor")) {
		DLManagedTensor *m = PyCapsule_GetPointer(cap, "dltensor");
		if (m && m->deleter)
			m->deleter(m);
	}
	PyErr_Clear();
}

static void capsule_versioned(PyObject *cap)
{
	if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
		DLManagedTensorVersioned *m = PyCapsule_GetPointer(cap, "dltensor_versioned");
		if (m && m->deleter)
			m->deleter(m);
	}
	PyErr_Clear();
}

static int dl_dtype(enum tsr_dtype t, DLDataType *r)
{
	size_t bits = tsr_dtype_size(t) * 8;
	r->bits = (uint8_t)bits;
	r->lanes = 1;
	switch (t) {
	case TSR_BOOL: r->code = kDLBool; break;
	case TSR_INT8: case TSR_INT16: case TSR_INT32: case TSR_INT64: r->code = kDLInt; break;
	case TSR_UINT8: case TSR_UINT16: case TSR_UINT32: case TSR_UINT64: r->code = kDLUInt; break;
	case TSR_FLOAT16: case TSR_FLOAT32: case TSR_FLOAT64: r->code = kDLFloat; break;
	case TSR_COMPLEX64: case TSR_COMPLEX128: r->code = kDLComplex; break;
	default:
		PyErr_SetString(PyExc_BufferError, "this dtype has no DLPack type");
		return -1;
	}
	return 0;
}

static PyObject *dev_dlpack(tsrpy_DeviceArray *d, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"stream", "max_version", "dl_device", "copy", NULL};
	PyObject *stream = Py_None, *max_version = Py_None, *dl_device = Py_None, *copy = Py_None;
	struct dl_ctx *c;
	DLTensor t;
	int versioned = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|$OOOO:__dlpack__", kwlist, &stream,
					 &max_version, &dl_device, &copy))
		return NULL;
	/* stream: the consumer's stream. Nothing to order on it: the read that filled this memory
	 * finished before it returned. */
	if (stream != Py_None && !PyLong_Check(stream)) {
		PyErr_SetString(PyExc_TypeError, "__dlpack__: stream must be an int or None");
		return NULL;
	}
	if (dl_device != Py_None) {
		int dt, id;
		if (!PyArg_ParseTuple(dl_device, "ii:__dlpack__ dl_device", &dt, &id))
			return NULL;
		if (dt != kDLCUDA || id != d->device) {
			PyErr_Format(PyExc_BufferError,
				     "__dlpack__: the data is on CUDA device %d, not (%d, %d)",
				     d->device, dt, id);
			return NULL;
		}
	}
	if (copy == Py_True) {
		PyErr_SetString(PyExc_BufferError, "__dlpack__: tessera.DeviceArray cannot copy");
		return NULL;
	}
	if (max_version != Py_None) {
		PyObject *major = PySequence_GetItem(max_version, 0);
		long v = major ? PyLong_AsLong(major) : -1;
		Py_XDECREF(major);
		if (v == -1 && PyErr_Occurred())
			return NULL;
		versioned = v >= 1;
	}
	memset(&t, 0, sizeof(t));
	if (dl_dtype(d->dtype, &t.dtype) < 0)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return PyErr_NoMemory();
	memcpy(c->shape, d->shape, sizeof(c->shape));
	memcpy(c->strides, d->strides, sizeof(c->strides));
	c->owner = Py_NewRef(d);
	t.data = d->ptr;
	t.device.device_type = kDLCUDA;
	t.device.device_id = d->device;
	t.ndim = d->ndim;
	t.shape = c->shape;
	t.strides = c->strides;
	if (versioned) {
		DLManagedTensorVersioned *m = calloc(1, sizeof(*m));
		PyObject *cap;
		if (!m) {
			release_owner(c);
			return PyErr_NoMemory();
		}
		m->version.major = 1;
		m->version.minor = 0;
		m->manager_ctx = c;
		m->deleter = del_versioned;
		m->dl_tensor = t;
		cap = PyCapsule_New(m, "dltensor_versioned", capsule_versioned);
		if (!cap)
			del_versioned(m);
		return cap;
	} else {
		DLManagedTensor *m = calloc(1, sizeof(*m));
		PyObject *cap;
		if (!m) {
			release_owner(c);
			return PyErr_NoMemory();
		}
		m->dl_tensor = t;
		m->manager_ctx = c;
		m->deleter = del_legacy;
		cap = PyCapsule_New(m, "dltensor", capsule_legacy);
		if (!cap)
			del_legacy(m);
		return cap;
	}
}

static PyObject *dev_dlpack_device(tsrpy_DeviceArray *d, PyObject *noargs)
{
	(void)noargs;
	return Py_BuildValue("(ii)", kDLCUDA, d->device);
}

/* A host copy (numpy.asarray(dev), dev.get()). */
static PyObject *dev_get(tsrpy_DeviceArray *d, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"dtype", "copy", NULL};
	PyObject *dtype = Py_None, *copy = Py_None, *res;
	npy_intp dims[TSR_MAX_DIM];
	int st;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO", kwlist, &dtype, &copy))
		return NULL;
	if (copy == Py_False) {
		PyErr_SetString(PyExc_ValueError, "device memory cannot be seen by NumPy without a copy");
		return NULL;
	}
	for (int i = 0; i < d->ndim; i++)
		dims[i] = (npy_intp)d->shape[i];
	res = PyArray_SimpleNew(d->ndim, dims, tsrpy_npy_type(d->dtype));
	if (!res)
		return NULL;
	if (d->nbytes) {
		Py_BEGIN_ALLOW_THREADS
		st = tsr_cuda_memcpy_to_host(PyArray_DATA((PyArrayObject *)res), d->ptr, d->nbytes);
		Py_END_ALLOW_THREADS
		if (st) {
			Py_DECREF(res);
			return tsrpy_raise(st, NULL);
		}
	}
	if (dtype != Py_None) {
		PyObject *cast = PyObject_CallMethod(res, "astype", "O", dtype);
		Py_DECREF(res);
		res = cast;
	}
	return res;
}

static Py_ssize_t dev_len(tsrpy_DeviceArray *d)
{
	if (d->ndim == 0) {
		PyErr_SetString(PyExc_TypeError, "len() of unsized object");
		return -1;
	}
	return (Py_ssize_t)d->shape[0];
}

static PyObject *dev_repr(tsrpy_DeviceArray *d)
{
	PyObject *s = tsrpy_shape_tuple(d->ndim, d->shape), *r;
	if (!s)
		return NULL;
	r = PyUnicode_FromFormat("<tessera.DeviceArray cuda:%d shape=%R dtype=%s>", d->device,
				 s, tsr_dtype_name(d->dtype));
	Py_DECREF(s);
	return r;
}

static PyMethodDef dev_methods[] = {
	{"__dlpack__", (PyCFunction)(void (*)(void))dev_dlpack, METH_VARARGS | METH_KEYWORDS,
	 "__dlpack__($self, /, *, stream=None, max_version=None, dl_device=None, copy=None)\n--\n\n"
	 "DLPack capsule (legacy, or versioned when max_version >= (1, 0))"},
	{"__dlpack_device__", (PyCFunction)dev_dlpack_device, METH_NOARGS,
	 "__dlpack_device__($self, /)\n--\n\n(kDLCUDA, device id)"},
	{"get", (PyCFunction)(void (*)(void))dev_get, METH_VARARGS | METH_KEYWORDS,
	 "get($self, /, dtype=None, copy=None)\n--\n\nA numpy.ndarray copied to the host."},
	{"__array__", (PyCFunction)(void (*)(void))dev_get, METH_VARARGS | METH_KEYWORDS, NULL},
	{NULL, NULL, 0, NULL},
};

static PyGetSetDef dev_getset[] = {
	{"__cuda_array_interface__", (getter)dev_cai, NULL, "CUDA Array Interface v3", NULL},
	{"shape", (getter)dev_shape, NULL, NULL, NULL},
	{"dtype", (getter)dev_dtype, NULL, NULL, NULL},
	{"ndim", (getter)dev_ndim, NULL, NULL, NULL},
	{"size", (getter)dev_size, NULL, NULL, NULL},
	{"nbytes", (getter)dev_nbytes, NULL, NULL, NULL},
	{"ptr", (getter)dev_ptr, NULL, "device pointer (int)", NULL},
	{"device_id", (getter)dev_device_id, NULL, "CUDA device ordinal of the memory (int)", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

static PyMappingMethods dev_mapping = {(lenfunc)dev_len, NULL, NULL};

PyTypeObject tsrpy_DeviceArrayType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "tessera.DeviceArray",
	.tp_basicsize = sizeof(tsrpy_DeviceArray),
	.tp_dealloc = (destructor)device_dealloc,
	.tp_repr = (reprfunc)dev_repr,
	.tp_as_mapping = &dev_mapping,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "Device memory a CUDA read filled (C order); cupy.asarray, torch.as_tensor, "
		  "torch.from_dlpack and jax.dlpack take it without a copy.",
	.tp_methods = dev_methods,
	.tp_getset = dev_getset,
};

/* ---- what the caller hands in ---- */

int tsrpy_cuda_target(PyObject *obj, enum tsr_dtype dtype, int ndim, const int64_t *shape,
		      void **ptr_ret, size_t *nbytes_ret)
{
	PyObject *cai, *oshape, *tstr, *data, *strides, *want = NULL, *got = NULL;
	PyArray_Descr *gd = NULL, *wd = NULL;
	int rc = -1, same;
	Py_ssize_t n;
	int64_t count = 1, dims[TSR_MAX_DIM];

	if (PyArray_Check(obj))
		return 1;
	cai = PyObject_GetAttrString(obj, "__cuda_array_interface__");
	if (!cai) {
		if (!PyErr_ExceptionMatches(PyExc_AttributeError))
			return -1;
		PyErr_Clear();
		return 1;
	}
	if (!PyDict_Check(cai)) {
		PyErr_SetString(PyExc_TypeError, "out.__cuda_array_interface__ is not a dict");
		goto done;
	}
	oshape = PyDict_GetItemString(cai, "shape");
	tstr = PyDict_GetItemString(cai, "typestr");
	data = PyDict_GetItemString(cai, "data");
	strides = PyDict_GetItemString(cai, "strides");
	if (!oshape || !PyTuple_Check(oshape) || !tstr || !data || !PyTuple_Check(data) ||
	    PyTuple_GET_SIZE(data) != 2) {
		PyErr_SetString(PyExc_ValueError, "out.__cuda_array_interface__ lacks shape, typestr "
						  "or data");
		goto done;
	}
	n = PyTuple_GET_SIZE(oshape);
	same = n == ndim;
	for (Py_ssize_t i = 0; i < n && i < TSR_MAX_DIM; i++) {
		long long v = PyLong_AsLongLong(PyTuple_GET_ITEM(oshape, i));
		if (v == -1 && PyErr_Occurred())
			goto done;
		dims[i] = v;
		count *= v;
		if (same && v != shape[i])
			same = 0;
	}
	if (!PyArray_DescrConverter(tstr, &gd))
		goto done;
	wd = PyArray_DescrFromType(tsrpy_npy_type(dtype));
	if (!wd)
		goto done;
	if (!same || !PyArray_EquivTypes(gd, wd)) {
		want = tsrpy_shape_tuple(ndim, shape);
		if (want)
			PyErr_Format(PyExc_ValueError,
				     "out has shape %R and dtype %S; the read gives shape %R and dtype %s",
				     oshape, (PyObject *)gd, want, tsr_dtype_name(dtype));
		goto done;
	}
	if (PyObject_IsTrue(PyTuple_GET_ITEM(data, 1))) {
		PyErr_SetString(PyExc_ValueError, "out is read-only");
		goto done;
	}
	if (strides && strides != Py_None) {
		/* Any strides are fine if they are C order's (axes of length 1 aside). */
		int64_t s = tsr_dtype_size(dtype);
		int ok = PyTuple_Check(strides) && PyTuple_GET_SIZE(strides) == n;
		for (Py_ssize_t i = n - 1; ok && i >= 0; i--) {
			long long v = PyLong_AsLongLong(PyTuple_GET_ITEM(strides, i));
			if (v == -1 && PyErr_Occurred())
				goto done;
			if (dims[i] > 1 && v != s)
				ok = 0;
			s *= dims[i];
		}
		if (!ok) {
			PyErr_SetString(PyExc_ValueError, "out must be C-contiguous");
			goto done;
		}
	}
	*ptr_ret = PyLong_AsVoidPtr(PyTuple_GET_ITEM(data, 0));
	if (PyErr_Occurred())
		goto done;
	*nbytes_ret = (size_t)count * tsr_dtype_size(dtype);
	rc = 0;
done:
	Py_XDECREF(gd);
	Py_XDECREF(wd);
	Py_XDECREF(want);
	Py_XDECREF(got);
	Py_DECREF(cai);
	return rc;
}

int tsrpy_stream_ptr(PyObject *stream, void **ret)
{
	PyObject *h = NULL;

	*ret = NULL;
	if (!stream || stream == Py_None)
		return 0;
	if (PyLong_Check(stream))
		h = Py_NewRef(stream);
	else if (PyObject_HasAttrString(stream, "cuda_stream")) /* torch.cuda.Stream */
		h = PyObject_GetAttrString(stream, "cuda_stream");
	else if (PyObject_HasAttrString(stream, "ptr")) /* cupy.cuda.Stream */
		h = PyObject_GetAttrString(stream, "ptr");
	if (!h || !PyLong_Check(h)) {
		if (!PyErr_Occurred())
			PyErr_Format(PyExc_TypeError,
				     "stream must be a CuPy or PyTorch stream or an int handle, not "
				     "%.100s", Py_TYPE(stream)->tp_name);
		Py_XDECREF(h);
		return -1;
	}
	*ret = PyLong_AsVoidPtr(h);
	Py_DECREF(h);
	return PyErr_Occurred() ? -1 : 0;
}
