/* module.c - the tessera._tessera module: exceptions, the shared context, the calls that need
 * no handle (capabilities) and module set-up; list_arrays is listing.c's. */
#define TSRPY_IMPORT_ARRAY
#include "tsrpy.h"

#include <errno.h>
#include <sys/stat.h>

PyObject *tsrpy_TesseraError, *tsrpy_FormatError, *tsrpy_CorruptError, *tsrpy_NoDeviceError,
	*tsrpy_NotFoundError;

/* One context for the process: handles outlive any module object, and a context must outlive
 * its arrays, so it is never freed (the threads it starts end with the process). */
static struct tsr_context *g_ctx;

struct tsr_context *tsrpy_context(void)
{
	return g_ctx;
}

static PyObject *exc_for(int status)
{
	switch (status) {
	case TSR_E_INVALID_ARG:
	case TSR_E_TOO_SMALL:
		return PyExc_ValueError;
	case TSR_E_NOMEM:
		return PyExc_MemoryError;
	case TSR_E_IO:
		return PyExc_OSError;
	case TSR_E_FORMAT:
		return tsrpy_FormatError;
	case TSR_E_UNSUPPORTED:
		return PyExc_NotImplementedError;
	case TSR_E_CORRUPT:
		return tsrpy_CorruptError;
	case TSR_E_RANGE:
	case TSR_E_SELECTION:
		return PyExc_IndexError;
	case TSR_E_NOT_FOUND:
		return tsrpy_NotFoundError;
	case TSR_E_NO_DEVICE:
		return tsrpy_NoDeviceError;
	default:
		return tsrpy_TesseraError;
	}
}

/* The errno whose strerror ends an I/O error's message (the library names the OS's cause so:
 * "path: Not a directory"), among those a file's open or read gives; 0 for none. */
static int os_errno(const char *msg)
{
	static const int errs[] = {EACCES, EPERM,  ENOTDIR, EISDIR, EMFILE, ENFILE, ENAMETOOLONG,
				   ELOOP,  ENOSPC, EROFS,   EIO,    ENXIO,  ENODEV, EBUSY, ENOENT};
	size_t n = strlen(msg);
	for (size_t i = 0; i < sizeof(errs) / sizeof(*errs); i++) {
		const char *why = strerror(errs[i]);
		size_t w = strlen(why);
		if (n > w + 2 && !strcmp(msg + n - w, why) && !strncmp(msg + n - w - 2, ": ", 2))
			return errs[i];
	}
	return 0;
}

PyObject *tsrpy_raise(int status, const char *path)
{
	const char *msg = tsr_errmsg();
	PyObject *type = exc_for(status), *exc;
	struct stat st;
	int err;

	if (!msg || !*msg)
		msg = tsr_strerror(status);
	if (path && (status == TSR_E_IO || status == TSR_E_NOT_FOUND || status == TSR_E_FORMAT) &&
	    stat(path, &st) != 0 && errno == ENOENT) {
		/* as OSError's own: "[Errno 2] No such file or directory: 'path'", the path once (the
		 * exception adds it after the message, so the message's own leading copy goes) */
		size_t n = strlen(path);
		if (!strncmp(msg, path, n) && !strncmp(msg + n, ": ", 2))
			msg += n + 2;
		PyObject *p = PyUnicode_DecodeFSDefault(path);
		exc = p ? PyObject_CallFunction(PyExc_FileNotFoundError, "isO", ENOENT, msg, p) : NULL;
		Py_XDECREF(p);
	} else if (status == TSR_E_IO && (err = os_errno(msg))) {
		/* an OS error as Python's own: OSError(errno, ...) is its subclass
		 * (NotADirectoryError, PermissionError, ...), e.errno set, the path as filename */
		size_t n = path ? strlen(path) : 0;
		if (path && !strncmp(msg, path, n) && !strncmp(msg + n, ": ", 2)) {
			PyObject *p = PyUnicode_DecodeFSDefault(path);
			exc = p ? PyObject_CallFunction(PyExc_OSError, "isO", err, msg + n + 2, p) : NULL;
			Py_XDECREF(p);
		} else {
			exc = PyObject_CallFunction(PyExc_OSError, "is", err, msg);
		}
	} else {
		exc = PyObject_CallFunction(type, "s", msg);
	}
	if (!exc)
		return NULL;
	{ /* The status name rides along for callers that branch on it. */
		PyObject *name = PyUnicode_FromString(tsr_status_name(status));
		if (!name || PyObject_SetAttrString(exc, "status", name) < 0)
			PyErr_Clear();
		Py_XDECREF(name);
	}
	PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
	Py_DECREF(exc);
	return NULL;
}

PyObject *tsrpy_raise_among(int status, const char *const *paths, Py_ssize_t n)
{
	const char *msg = tsr_errmsg();
	struct stat st;
	/* the missing file the message names: a file of the list that does not exist (a longer
	 * path that merely contains another exists, or is not in the list) */
	if (msg && (status == TSR_E_IO || status == TSR_E_NOT_FOUND || status == TSR_E_FORMAT)) {
		for (Py_ssize_t i = 0; i < n; i++)
			if (paths[i] && strstr(msg, paths[i]) && stat(paths[i], &st) != 0 &&
			    errno == ENOENT)
				return tsrpy_raise(status, paths[i]);
		/* a name the message holds escaped (bytes that are not UTF-8 become \xNN): the
		 * list's first missing file, as a batch reads its files in order */
		for (Py_ssize_t i = 0; status == TSR_E_NOT_FOUND && i < n; i++)
			if (paths[i] && stat(paths[i], &st) != 0 && errno == ENOENT)
				return tsrpy_raise(status, paths[i]);
	}
	return tsrpy_raise(status, NULL);
}

static PyObject *capabilities(PyObject *self, PyObject *noargs)
{
	int ndev = 0, st, usable;
	char why[256] = "";
	PyObject *cuda, *res;
	(void)self, (void)noargs;

	st = tsr_cuda_device_count(&ndev);
	cuda = Py_BuildValue("{s:i,s:s}", "devices", st ? 0 : ndev, "reason",
			     st ? tsr_errmsg() : "");
	if (!cuda)
		return NULL;
	struct tsr_capabilities caps = {.struct_size = sizeof(caps)};
	if (tsr_capabilities(&caps) == TSR_OK) {
		PyObject *fam = PyUnicode_FromString(caps.gpu_decoders), *sep = PyUnicode_FromString(",");
		PyObject *list = NULL;
		if (fam && sep)
			list = caps.gpu_decoders[0] ? PyUnicode_Split(fam, sep, -1) : PyList_New(0);
		Py_XDECREF(fam);
		Py_XDECREF(sep);
		if (!list || PyDict_SetItemString(cuda, "gpu_decoders", list) < 0 ||
		    PyDict_SetItemString(cuda, "built", caps.cuda_built ? Py_True : Py_False) < 0) {
			Py_XDECREF(list);
			Py_DECREF(cuda);
			return NULL;
		}
		Py_DECREF(list);
	}
	usable = tsr_cufile_usable(why, sizeof(why));
	res = Py_BuildValue("{s:s,s:(sss),s:i,s:i,s:N,s:{s:O,s:s}}", "version", tsr_version(),
			    "formats", "fits", "zarr", "blosc2", "max_ndim", TSR_MAX_DIM,
			    "nthreads", tsr_context_nthreads(g_ctx), "cuda", cuda, "cufile",
			    "usable", usable ? Py_True : Py_False, "reason", why);
	return res;
}

/* tessera.trim(): the module's context gives back what it keeps between reads (tsr_context_trim),
 * as torch.cuda.empty_cache() does for PyTorch's allocator. */
static PyObject *trim(PyObject *self, PyObject *unused)
{
	(void)self, (void)unused;
	int st;
	Py_BEGIN_ALLOW_THREADS
	st = tsr_context_trim(g_ctx);
	Py_END_ALLOW_THREADS
	if (st != TSR_OK)
		return tsrpy_raise(st, NULL);
	Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
	{"open", (PyCFunction)(void (*)(void))tsrpy_open, METH_VARARGS | METH_KEYWORDS,
	 "open($module, /, path, *, hdu=None, array=None, level=None, raw=False, dtype=None)\n--\n\n"
	 "Opens the array at path (a FITS file, a Zarr v2/v3 store or array, a Blosc2 .b2nd or\n"
	 "frame) and returns a tessera.Array; nothing is read until it is indexed.\n\n"
	 "hdu: FITS HDU as astropy counts (0 = primary), an EXTNAME str or (EXTNAME, EXTVER);\n"
	 "None = the first HDU with image data. array: a Zarr array's path inside the store.\n"
	 "level: an OME-Zarr multiscale level. raw: True reads stored values (no BSCALE/BZERO,\n"
	 "no dequantization). dtype: the dtype to read the items as (any NumPy spelling): plain\n"
	 "Blosc2 super-chunks store only an item size and read as unsigned integers of that size\n"
	 "without it; for any other array it is a view of the values read (as numpy's\n"
	 "a.view(dtype), no conversion), and its item size must be the array's.\n"
	 "Missing path: FileNotFoundError; a damaged or malformed file: CorruptError or\n"
	 "FormatError (tessera.TesseraError); a codec, filter or dtype tessera does not decode:\n"
	 "NotImplementedError; no such HDU or array: NotFoundError (by name) or IndexError\n"
	 "(by number)."},
	{"read", (PyCFunction)(void (*)(void))tsrpy_read_fn, METH_VARARGS | METH_KEYWORDS,
	 "read($module, /, path, key=None, *, device=None, out=None, stream=None, decoder='auto', "
	 "storage='real', receipt=False, hdu=None, array=None, level=None, raw=False, dtype=None)"
	 "\n--\n\n"
	 "open(path, ...)[key] in one call: a numpy.ndarray, or with device='cuda' a\n"
	 "cupy.ndarray (tessera.DeviceArray without CuPy); out: an array to read into;\n"
	 "receipt=True returns (result, receipt dict). See tessera.open and Array.read."},
	{"read_batch", (PyCFunction)(void (*)(void))tsrpy_read_batch, METH_VARARGS | METH_KEYWORDS,
	 "read_batch($module, /, paths, *, hdu=None, hdus=None, array=None, level=None, raw=False, "
	 "key=None, device=None, out=None, stream=None, decoder='auto', storage='real', "
	 "receipt=False)\n--\n\n"
	 "The same key of every file of paths, stacked on a new first axis (every file must give\n"
	 "the same shape and dtype). hdus: several HDUs, one stacked result each (a tuple)."},
	{"stream", (PyCFunction)(void (*)(void))tsrpy_stream_fn, METH_VARARGS | METH_KEYWORDS,
	 "stream($module, /, paths, *, batch=1, prefetch=0, hdu=None, array=None, level=None, "
	 "raw=False, key=None, device=None, stream=None, decoder='auto', storage='real')"
	 "\n--\n\n"
	 "An iterator of stacked batches of batch files each (the last may be shorter), the next\n"
	 "prefetch batches read ahead. An error ends the iteration, as a generator's does."},
	{"list_arrays", (PyCFunction)(void (*)(void))tsrpy_list_arrays, METH_VARARGS | METH_KEYWORDS,
	 "list_arrays($module, /, store)\n--\n\n"
	 "A list of dicts, one an entry: a FITS file's HDUs, a Zarr store's arrays and OME-Zarr\n"
	 "multiscale groups, a Blosc2 frame's array; 'kind' says which. No pixels are read."},
	{"iter_arrays", (PyCFunction)(void (*)(void))tsrpy_iter_arrays, METH_VARARGS | METH_KEYWORDS,
	 "iter_arrays($module, /, store, *, raw=False, dtype=None)\n--\n\n"
	 "An iterator of tessera.Array: each array a path holds (list_arrays' 'array' entries),\n"
	 "opened in turn where the listing found it."},
	{"_reopen", tsrpy_reopen, METH_VARARGS,
	 "_reopen($module, path, hdu, array, level, raw, dtype, /)\n--\n\n"
	 "What unpickling an Array calls."},
	{"set_cupy_results", tsrpy_set_cupy_results, METH_O,
	 "set_cupy_results($module, flag, /)\n--\n\n"
	 "Returns the previous flag. True (the default): device='cuda' reads give cupy.ndarray\n"
	 "when CuPy imports; False: tessera.DeviceArray (CUDA Array Interface, DLPack) for\n"
	 "PyTorch, JAX or CuPy to take without a copy."},
	{"capabilities", capabilities, METH_NOARGS,
	 "capabilities($module, /)\n--\n\n"
	 "A dict of what this build and machine can do: CUDA devices, GPU decoders, cuFile."},
	{"trim", trim, METH_NOARGS,
	 "trim($module, /)\n--\n\n"
	 "Gives back the memory tessera keeps between reads: on each GPU it has read into, its\n"
	 "staging ring (pinned host and device buffers) and its decoders' unused scratch; on the\n"
	 "host, its workers' buffers. Later reads allocate again. Arrays already handed out are\n"
	 "not touched (host_cache(0) frees kept host result buffers)."},
	{"host_cache", (PyCFunction)(void (*)(void))tsrpy_host_cache, METH_VARARGS | METH_KEYWORDS,
	 "host_cache($module, /, limit=None)\n--\n\n"
	 "Returns dict(limit, bytes, buffers): the freed large host result buffers kept for later\n"
	 "reads of a like size (a new buffer's pages cost their first touch); limit: bytes kept at\n"
	 "most (default 1 GiB; 0 keeps none and frees what is kept)."},
	{NULL, NULL, 0, NULL},
};

static struct PyModuleDef moddef = {
	PyModuleDef_HEAD_INIT, "_tessera",
	"tessera's C extension: FITS, Zarr and Blosc2 arrays into NumPy or GPU memory.", -1,
	methods, NULL, NULL, NULL, NULL,
};

static int add_exc(PyObject *m, const char *name, PyObject *bases, PyObject **ret)
{
	char full[64];
	snprintf(full, sizeof(full), "tessera.%s", name);
	*ret = PyErr_NewException(full, bases, NULL);
	if (!*ret)
		return -1;
	Py_INCREF(*ret);
	return PyModule_AddObject(m, name, *ret);
}

PyMODINIT_FUNC PyInit__tessera(void)
{
	PyObject *m, *b;
	struct tsr_context_options co = {sizeof(co), 0};

	import_array();
	m = PyModule_Create(&moddef);
	if (!m)
		return NULL;
	if (!g_ctx && tsr_context_create(&co, &g_ctx)) {
		PyErr_Format(PyExc_ImportError, "tessera: cannot create a context: %s", tsr_errmsg());
		Py_DECREF(m);
		return NULL;
	}
	if (tsrpy_interrupt_init() < 0 ||
	    add_exc(m, "TesseraError", NULL, &tsrpy_TesseraError) < 0 ||
	    add_exc(m, "FormatError", tsrpy_TesseraError, &tsrpy_FormatError) < 0 ||
	    add_exc(m, "CorruptError", tsrpy_TesseraError, &tsrpy_CorruptError) < 0)
		goto fail;
	b = PyTuple_Pack(2, tsrpy_TesseraError, PyExc_RuntimeError);
	if (!b || add_exc(m, "NoDeviceError", b, &tsrpy_NoDeviceError) < 0)
		goto fail;
	Py_DECREF(b);
	b = PyTuple_Pack(2, tsrpy_TesseraError, PyExc_LookupError);
	if (!b || add_exc(m, "NotFoundError", b, &tsrpy_NotFoundError) < 0)
		goto fail;
	Py_DECREF(b);
	if (PyType_Ready(&tsrpy_ArrayType) < 0 || PyType_Ready(&tsrpy_ArrayIterType) < 0 ||
	    PyType_Ready(&tsrpy_ArraysIterType) < 0 ||
	    PyType_Ready(&tsrpy_DeviceArrayType) < 0 || PyType_Ready(&tsrpy_StreamType) < 0)
		goto fail;
	Py_INCREF(&tsrpy_ArrayType);
	Py_INCREF(&tsrpy_DeviceArrayType);
	Py_INCREF(&tsrpy_StreamType);
	if (PyModule_AddObject(m, "Array", (PyObject *)&tsrpy_ArrayType) < 0 ||
	    PyModule_AddObject(m, "DeviceArray", (PyObject *)&tsrpy_DeviceArrayType) < 0 ||
	    PyModule_AddObject(m, "Stream", (PyObject *)&tsrpy_StreamType) < 0 ||
	    PyModule_AddStringConstant(m, "__version__", tsr_version()) < 0 ||
	    PyModule_AddIntConstant(m, "MAX_NDIM", TSR_MAX_DIM) < 0)
		goto fail;
	return m;
fail:
	Py_DECREF(m);
	return NULL;
}
