/* array.c - tessera.Array: one opened FITS HDU, Zarr array or Blosc2 array, read with NumPy
 * basic indexing; and tessera.open / tessera.read. */
#include "tsrpy.h"

#include "structmember.h"

static const char CLOSED[] = "I/O operation on a closed tessera.Array";

/* The UTF-8/filesystem bytes of str, kept alive in the list *keep (made on first use). */
static int keep_bytes(PyObject **keep, PyObject *str, const char **ret)
{
	PyObject *b = NULL;
	if (!*keep && !(*keep = PyList_New(0)))
		return -1;
	if (!PyUnicode_FSConverter(str, &b))
		return -1;
	if (PyList_Append(*keep, b) < 0) {
		Py_DECREF(b);
		return -1;
	}
	Py_DECREF(b); /* the list holds it */
	*ret = PyBytes_AS_STRING(b);
	return 0;
}

static int int_arg(PyObject *o, const char *what, long lo, int *ret)
{
	long v;
	if (PyBool_Check(o) || !PyIndex_Check(o)) {
		PyErr_Format(PyExc_TypeError, "%s must be an int, not %.100s", what, Py_TYPE(o)->tp_name);
		return -1;
	}
	v = PyLong_AsLong(o);
	if (v == -1 && PyErr_Occurred())
		return -1;
	if (v < lo || v > 1000000) {
		PyErr_Format(PyExc_ValueError, "%s must be >= %ld, not %ld", what, lo, v);
		return -1;
	}
	*ret = (int)v;
	return 0;
}

/* Open options from Python keywords: hdu/level None -> -1, array None -> the store itself.
 * hdu is an index (primary = 0), an EXTNAME ("SCI") or (EXTNAME, EXTVER). The strings the
 * options point to live in *keep (NULL when none); release it after tsr_open. */
int tsrpy_open_options_dtype(PyObject *hdu, PyObject *array, PyObject *level, int raw,
			     PyObject *dtype, struct tsr_open_options *oo, PyObject **keep)
{
	memset(oo, 0, sizeof(*oo));
	oo->struct_size = sizeof(*oo);
	oo->hdu = -1;
	oo->level = -1;
	oo->raw = raw;
	*keep = NULL;
	if (hdu && hdu != Py_None) {
		if (PyUnicode_Check(hdu)) {
			if (keep_bytes(keep, hdu, &oo->hdu_name) < 0)
				goto fail;
		} else if (PyTuple_Check(hdu)) {
			if (PyTuple_GET_SIZE(hdu) != 2 || !PyUnicode_Check(PyTuple_GET_ITEM(hdu, 0))) {
				PyErr_SetString(PyExc_TypeError, "hdu as a tuple is (EXTNAME, EXTVER)");
				goto fail;
			}
			if (keep_bytes(keep, PyTuple_GET_ITEM(hdu, 0), &oo->hdu_name) < 0 ||
			    int_arg(PyTuple_GET_ITEM(hdu, 1), "EXTVER", 1, &oo->hdu_ver) < 0)
				goto fail;
		} else if (PyBool_Check(hdu) || !PyIndex_Check(hdu)) {
			PyErr_Format(PyExc_TypeError,
				     "hdu must be an int (primary = 0), an EXTNAME str, (EXTNAME, EXTVER) "
				     "or None, not %.100s", Py_TYPE(hdu)->tp_name);
			goto fail;
		} else if (int_arg(hdu, "hdu", 0, &oo->hdu) < 0) {
			goto fail;
		}
	}
	if (level && level != Py_None && int_arg(level, "level", 0, &oo->level) < 0)
		goto fail;
	if (dtype && dtype != Py_None) {
		/* the file's values as this dtype (plain Blosc2 super-chunks store none): any
		 * NumPy dtype spelling, passed on as NumPy's own string ("<f4") */
		PyArray_Descr *d = NULL;
		PyObject *str;
		if (!PyArray_DescrConverter(dtype, &d))
			goto fail;
		str = PyObject_GetAttrString((PyObject *)d, "str");
		Py_DECREF(d);
		if (!str)
			goto fail;
		int k = keep_bytes(keep, str, &oo->dtype);
		Py_DECREF(str);
		if (k < 0)
			goto fail;
	}
	if (array && array != Py_None) {
		if (!PyUnicode_Check(array)) {
			PyErr_Format(PyExc_TypeError, "array must be a str or None, not %.100s",
				     Py_TYPE(array)->tp_name);
			goto fail;
		}
		if (keep_bytes(keep, array, &oo->array) < 0)
			goto fail;
	}
	return 0;
fail:
	Py_CLEAR(*keep);
	return -1;
}

int tsrpy_open_options(PyObject *hdu, PyObject *array, PyObject *level, int raw,
		       struct tsr_open_options *oo, PyObject **array_bytes)
{
	return tsrpy_open_options_dtype(hdu, array, level, raw, NULL, oo, array_bytes);
}

tsrpy_Array *tsrpy_array_wrap(struct tsr_array *handle, PyObject *path)
{
	tsrpy_Array *self = PyObject_New(tsrpy_Array, &tsrpy_ArrayType);
	int st;
	if (!self) {
		tsr_array_free(handle);
		return NULL;
	}
	self->array = handle;
	self->descr = NULL;
	self->readers = 0;
	self->weakrefs = NULL;
	self->reopen = NULL;
	self->path = Py_NewRef(path);
	memset(&self->info, 0, sizeof(self->info));
	self->info.struct_size = sizeof(self->info);
	st = tsr_array_info(handle, &self->info);
	if (st) {
		tsrpy_raise(st, NULL);
		Py_DECREF(self);
		return NULL;
	}
	self->descr = tsrpy_descr_of(self->info.dtype, self->info.descr);
	if (!self->descr) {
		Py_DECREF(self);
		return NULL;
	}
	return self;
}

static tsrpy_Array *array_open(PyObject *pathobj, PyObject *hdu, PyObject *array,
			       PyObject *level, int raw, PyObject *dtype);

int tsrpy_array_reopen_set(tsrpy_Array *self, PyObject *array, PyObject *level, int raw,
			   PyObject *dtype)
{
	/* a FITS HDU by its index, whatever named it; other formats have none */
	PyObject *hdu = self->info.index >= 0 && !strcmp(self->info.format, "fits")
				? PyLong_FromLong(self->info.index)
				: Py_NewRef(Py_None);
	if (!hdu)
		return -1;
	/* a relative path joined to the directory it was opened in now: a pickle is loaded by
	 * another process (Dask, multiprocessing) whose directory may be another. (os.path.join
	 * keeps an absolute path as given; joined, not normalised: "a/link/.." is not "a" where
	 * link is a symbolic link.) */
	PyObject *os = PyImport_ImportModule("os");
	PyObject *osp = os ? PyObject_GetAttrString(os, "path") : NULL;
	PyObject *cwd = osp ? PyObject_CallMethod(os, "getcwd", NULL) : NULL;
	PyObject *path = cwd ? PyObject_CallMethod(osp, "join", "OO", cwd, self->path) : NULL;
	Py_XDECREF(cwd);
	Py_XDECREF(osp);
	Py_XDECREF(os);
	if (!path) {
		Py_DECREF(hdu);
		return -1;
	}
	Py_XSETREF(self->reopen, Py_BuildValue("(NNOOOO)", path, hdu, array ? array : Py_None,
					       level ? level : Py_None, raw ? Py_True : Py_False,
					       dtype ? dtype : Py_None));
	return self->reopen ? 0 : -1;
}

PyObject *tsrpy_reopen(PyObject *mod, PyObject *args)
{
	PyObject *path, *hdu, *array, *level, *dtype;
	int raw;
	(void)mod;
	if (!PyArg_ParseTuple(args, "OOOOpO:_reopen", &path, &hdu, &array, &level, &raw, &dtype))
		return NULL;
	return (PyObject *)array_open(path, hdu, array, level, raw, dtype);
}

/* pickle: the arguments that open it again (reads hold no state beyond the handle) */
static PyObject *array_reduce(tsrpy_Array *self, PyObject *unused)
{
	(void)unused;
	if (tsrpy_check_open(self) < 0)
		return NULL;
	if (!self->reopen) {
		PyErr_SetString(PyExc_TypeError, "this tessera.Array does not know how it was opened");
		return NULL;
	}
	PyObject *mod = PyImport_ImportModule("tessera._tessera");
	PyObject *fn = mod ? PyObject_GetAttrString(mod, "_reopen") : NULL;
	Py_XDECREF(mod);
	return fn ? Py_BuildValue("(NO)", fn, self->reopen) : NULL;
}

/* A negative hdu counts from the end, as astropy's f[-1] does: the file's HDUs counted by a
 * listing (headers only). A new reference to the index it names, or NULL with an exception
 * (IndexError past the first HDU); hdu itself for anything else. */
static PyObject *hdu_from_end(const char *path, PyObject *hdu)
{
	if (!hdu || !PyLong_Check(hdu) || PyBool_Check(hdu))
		return Py_XNewRef(hdu);
	long v = PyLong_AsLong(hdu);
	if (v == -1 && PyErr_Occurred())
		return NULL;
	if (v >= 0)
		return Py_NewRef(hdu);
	struct tsr_listing *l = NULL;
	struct tsr_entry e = {.struct_size = sizeof(e)};
	size_t n = 0;
	int st, fits = 0;
	Py_BEGIN_ALLOW_THREADS
	st = tsr_list(path, &l);
	if (!st) {
		n = tsr_listing_count(l);
		fits = n && !tsr_listing_entry(l, 0, &e) && !strcmp(e.format, "fits");
	}
	tsr_listing_free(l);
	Py_END_ALLOW_THREADS
	if (st)
		return tsrpy_raise(st, path);
	if (!fits) /* (a format without HDUs: the option's own refusal says so) */
		return Py_NewRef(hdu);
	if ((long long)n + v < 0)
		return PyErr_Format(PyExc_IndexError, "%s: hdu %ld out of range: the file has %zu "
				    "HDUs", path, v, n);
	return PyLong_FromLongLong((long long)n + v);
}

static tsrpy_Array *array_open(PyObject *pathobj, PyObject *hdu, PyObject *array,
			       PyObject *level, int raw, PyObject *dtype)
{
	struct tsr_open_options oo;
	PyObject *pb = NULL, *ab = NULL, *str = NULL;
	struct tsr_array *handle = NULL;
	tsrpy_Array *self = NULL;
	const char *path;
	int st;

	if (!PyUnicode_FSConverter(pathobj, &pb))
		return NULL;
	PyObject *h = hdu_from_end(PyBytes_AS_STRING(pb), hdu);
	if ((hdu && !h) || tsrpy_open_options_dtype(h, array, level, raw, dtype, &oo, &ab) < 0) {
		Py_XDECREF(h);
		Py_DECREF(pb);
		return NULL;
	}
	Py_XDECREF(h);
	path = PyBytes_AS_STRING(pb);
	str = PyUnicode_DecodeFSDefault(path);
	if (str) {
		Py_BEGIN_ALLOW_THREADS
		st = tsr_open(tsrpy_context(), path, &oo, &handle);
		Py_END_ALLOW_THREADS
		if (st)
			tsrpy_raise(st, path);
		else
			self = tsrpy_array_wrap(handle, str);
		if (self && tsrpy_array_reopen_set(self, array, level, raw, dtype) < 0)
			Py_CLEAR(self);
	}
	Py_XDECREF(str);
	Py_DECREF(pb);
	Py_XDECREF(ab);
	return self;
}

PyObject *tsrpy_open(PyObject *mod, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"path", "hdu", "array", "level", "raw", "dtype", NULL};
	PyObject *path, *hdu = Py_None, *array = Py_None, *level = Py_None, *dtype = Py_None;
	int raw = 0;
	(void)mod;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$OOOpO:open", kwlist, &path, &hdu, &array,
					 &level, &raw, &dtype))
		return NULL;
	return (PyObject *)array_open(path, hdu, array, level, raw, dtype);
}

static void array_dealloc(tsrpy_Array *self)
{
	if (self->weakrefs)
		PyObject_ClearWeakRefs((PyObject *)self);
	tsr_array_free(self->array); /* no read is in flight: each holds a reference */
	Py_XDECREF(self->descr);
	Py_XDECREF(self->path);
	Py_XDECREF(self->reopen);
	PyObject_Free(self);
}

int tsrpy_check_open(tsrpy_Array *self)
{
	if (!self->array) {
		PyErr_SetString(PyExc_ValueError, CLOSED);
		return -1;
	}
	return 0;
}

/* The read every entry point ends in. getitem: NumPy's a[key] (scalars for full integer
 * keys, no receipt). */
static PyObject *array_read_args(tsrpy_Array *self, const struct tsrpy_read_args *ra, int getitem)
{
	struct tsr_selection sel;
	struct tsr_read_options ro;
	struct tsr_receipt rec;
	struct tsrpy_dest d;
	int64_t shape[TSR_MAX_DIM];
	int ndim = 0, scalar = 0, st;

	if (tsrpy_check_open(self) < 0)
		return NULL;
	/* Counted from here: a device allocation below releases the GIL, and close() in another
	 * thread must not free the handle under this read. */
	self->readers++;
	struct tsr_index *ix = NULL;
	int kind = tsrpy_key(ra->key, self->info.ndim, &sel, &scalar);
	if (kind < 0 || (kind > 0 && tsrpy_index(ra->key, TSR_INDEX_NUMPY, &ix) < 0))
		goto fail;
	st = ix ? tsr_index_shape(self->array, ix, &ndim, shape)
		: tsr_selection_shape(self->array, &sel, &ndim, shape);
	if (st) {
		tsrpy_raise(st, NULL);
		goto fail;
	}
	if (tsrpy_read_options(ra, &ro) < 0 ||
	    tsrpy_dest(ra, self->info.dtype, self->descr, ndim, shape, !ix, &d) < 0)
		goto fail;
	void *fresh = NULL;
	size_t fresh_nbytes = 0;
	if (d.fresh) /* a kept buffer of an earlier result, read into as into out= (host_cache.c) */
		d.buf.data = fresh = tsrpy_cache_take(d.buf.nbytes, &fresh_nbytes);
	memset(&rec, 0, sizeof(rec));
	rec.struct_size = sizeof(rec);
	struct tsrpy_interrupt intr;
	if (tsrpy_interrupt_arm(&intr, &ro) < 0) {
		Py_XDECREF(d.result);
		tsrpy_cache_give(fresh, fresh_nbytes);
		goto fail;
	}
	int alloc = d.fresh && !fresh, nd;
	int64_t got[TSR_MAX_DIM];
	Py_BEGIN_ALLOW_THREADS
	/* No receipt unless asked: filling one (names, timings) costs more than a small read. */
	if (alloc)
		st = tsr_read_alloc(self->array, &sel, &ro, &fresh, &fresh_nbytes, &nd, got,
				    ra->receipt ? &rec : NULL);
	else if (ix)
		st = tsr_read_index(self->array, ix, &d.buf, &ro, ra->receipt ? &rec : NULL);
	else
		st = tsr_read(self->array, &sel, &d.buf, &ro, ra->receipt ? &rec : NULL);
	Py_END_ALLOW_THREADS
	if (alloc && st == TSR_E_NOMEM && tsrpy_cache_clear()) {
		/* the kept buffers may hold the memory the new one lacked: without them, again */
		Py_BEGIN_ALLOW_THREADS
		st = tsr_read_alloc(self->array, &sel, &ro, &fresh, &fresh_nbytes, &nd, got,
				    ra->receipt ? &rec : NULL);
		Py_END_ALLOW_THREADS
	}
	tsr_index_free(ix);
	ix = NULL;
	self->readers--;
	if (tsrpy_interrupt_end(&intr) < 0 || st) {
		if (!PyErr_Occurred())
			tsrpy_raise(st, NULL); /* first: freeing device memory is a tessera call */
		Py_XDECREF(d.result);
		tsrpy_cache_give(fresh, fresh_nbytes); /* (a kept buffer the read failed into) */
		return NULL;
	}
	if (d.fresh &&
	    !(d.result = tsrpy_wrap_fresh(self->descr, ndim, shape, fresh, fresh_nbytes)))
		return NULL;
	if (getitem && scalar && !d.cuda && PyArray_Check(d.result))
		return PyArray_Return((PyArrayObject *)d.result);
	return tsrpy_finish(d.result, &rec, ra->receipt);
fail:
	tsr_index_free(ix);
	self->readers--;
	return NULL;
}

#define READ_KWLIST "key", "device", "out", "stream", "decoder", "storage", "receipt"

/* A str keyword's UTF-8 (None allowed where none_ok: NULL). */
static int str_arg(PyObject *v, const char *name, int none_ok, const char **ret)
{
	if (none_ok && v == Py_None) {
		*ret = NULL;
		return 0;
	}
	if (!PyUnicode_Check(v)) {
		PyErr_Format(PyExc_TypeError, "read() argument '%s' must be str%s, not %.100s", name,
			     none_ok ? " or None" : "", Py_TYPE(v)->tp_name);
		return -1;
	}
	Py_ssize_t n;
	*ret = PyUnicode_AsUTF8AndSize(v, &n);
	if (*ret && strlen(*ret) != (size_t)n) {
		PyErr_SetString(PyExc_ValueError, "embedded null character");
		return -1;
	}
	return *ret ? 0 : -1;
}

/* Array.read's arguments by the vectorcall protocol: PyArg_ParseTupleAndKeywords's dict and
 * tuple cost more than a small read's own Python share. Same rules: key positional or by
 * name, the rest keyword-only. */
static int read_args_fast(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
			  struct tsrpy_read_args *ra)
{
	static const char *const names[] = {"key", "device", "out", "stream", "decoder", "storage",
					    "receipt"};
	Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
	if (nargs > 1) {
		PyErr_Format(PyExc_TypeError, "read() takes at most 1 positional argument (%zd given)",
			     nargs);
		return -1;
	}
	if (nargs == 1)
		ra->key = args[0];
	for (Py_ssize_t i = 0; i < nkw; i++) {
		PyObject *name = PyTuple_GET_ITEM(kwnames, i), *v = args[nargs + i];
		int k = 0, t;
		while (k < 7 && PyUnicode_CompareWithASCIIString(name, names[k]))
			k++;
		switch (k) {
		case 0:
			if (nargs == 1) {
				PyErr_SetString(PyExc_TypeError,
						"read() got multiple values for argument 'key'");
				return -1;
			}
			ra->key = v;
			break;
		case 1:
			if (str_arg(v, "device", 1, &ra->device) < 0)
				return -1;
			break;
		case 2:
			ra->out = v;
			break;
		case 3:
			ra->stream = v;
			break;
		case 4:
			if (str_arg(v, "decoder", 0, &ra->decoder) < 0)
				return -1;
			break;
		case 5:
			if (str_arg(v, "storage", 0, &ra->storage) < 0)
				return -1;
			break;
		case 6:
			if ((t = PyObject_IsTrue(v)) < 0)
				return -1;
			ra->receipt = t;
			break;
		default:
			PyErr_Format(PyExc_TypeError, "read() got an unexpected keyword argument '%U'",
				     name);
			return -1;
		}
	}
	return 0;
}

static PyObject *array_read(tsrpy_Array *self, PyObject *const *args, Py_ssize_t nargs,
			    PyObject *kwnames)
{
	struct tsrpy_read_args ra = {NULL, NULL, Py_None, Py_None, "auto", "real", 0};
	if (read_args_fast(args, nargs, kwnames, &ra) < 0)
		return NULL;
	if (ra.key == Py_None)
		ra.key = NULL; /* read(None) / read(): everything */
	return array_read_args(self, &ra, 0);
}

PyObject *tsrpy_read_fn(PyObject *mod, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"path", READ_KWLIST, "hdu", "array", "level", "raw", "dtype", NULL};
	struct tsrpy_read_args ra = {NULL, NULL, Py_None, Py_None, "auto", "real", 0};
	PyObject *path, *hdu = Py_None, *array = Py_None, *level = Py_None, *dtype = Py_None, *res;
	tsrpy_Array *a;
	int raw = 0;
	(void)mod;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O$zOOsspOOOpO:read", kwlist, &path, &ra.key,
					 &ra.device, &ra.out, &ra.stream, &ra.decoder, &ra.storage,
					 &ra.receipt, &hdu, &array, &level, &raw, &dtype))
		return NULL;
	if (ra.key == Py_None)
		ra.key = NULL;
	a = array_open(path, hdu, array, level, raw, dtype);
	if (!a)
		return NULL;
	res = array_read_args(a, &ra, 0);
	Py_DECREF(a);
	return res;
}

static PyObject *array_getitem(tsrpy_Array *self, PyObject *key)
{
	struct tsrpy_read_args ra = {key, "cpu", Py_None, Py_None, "auto", "real", 0};
	return array_read_args(self, &ra, 1);
}

static PyObject *array_array(tsrpy_Array *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"dtype", "copy", NULL};
	struct tsrpy_read_args ra = {NULL, "cpu", Py_None, Py_None, "auto", "real", 0};
	PyObject *dtype = Py_None, *copy = Py_None, *res;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO:__array__", kwlist, &dtype, &copy))
		return NULL;
	if (copy == Py_False) {
		PyErr_SetString(PyExc_ValueError,
				"tessera.Array reads from its file: a copy cannot be avoided");
		return NULL;
	}
	res = array_read_args(self, &ra, 0);
	if (res && dtype != Py_None) {
		PyObject *cast = PyObject_CallMethod(res, "astype", "O", dtype);
		Py_DECREF(res);
		res = cast;
	}
	return res;
}

PyObject *tsrpy_hdu_of(const struct tsr_array_info *in)
{
	return strcmp(in->format, "fits") ? Py_NewRef(Py_None) : PyLong_FromLong(in->index);
}

PyObject *tsrpy_stored_of(const struct tsr_array_info *in)
{
	return strcmp(in->format, "zarr") ? PyLong_FromUnsignedLongLong(in->stored_nbytes)
					  : Py_NewRef(Py_None);
}

PyObject *tsrpy_info_dict(const struct tsr_array_info *in, PyArray_Descr *descr,
			  PyObject *path)
{
	/* stored_dtype differs from dtype for scaled numbers only; raw dtypes are stored as read */
	PyObject *stored = in->stored_dtype == in->dtype || tsrpy_npy_type(in->stored_dtype) < 0
				   ? Py_NewRef((PyObject *)descr)
				   : tsrpy_dtype_of(in->stored_dtype);
	PyObject *level = in->level >= 0 ? PyLong_FromLong(in->level) : Py_NewRef(Py_None);
	if (!level) {
		Py_XDECREF(stored);
		return NULL;
	}
	/* (a name is the file's bytes, UTF-8 or not: decoded as paths are, surrogateescape) */
	return Py_BuildValue("{s:s,s:O,s:N,s:N,s:N,s:O,s:N,s:i,s:N,s:N,s:L,s:s,s:s,s:N,s:O,s:s,s:s}",
			     "format", in->format, "path", path, "hdu", tsrpy_hdu_of(in), "level",
			     level, "name", PyUnicode_DecodeFSDefault(in->name ? in->name : ""), "dtype",
			     (PyObject *)descr, "stored_dtype", stored, "ndim", in->ndim, "shape",
			     tsrpy_shape_tuple(in->ndim, in->shape), "chunks",
			     tsrpy_shape_tuple(in->ndim, in->chunk_shape), "nchunks",
			     (long long)in->nchunks, "codec", in->codec, "reader", in->reader,
			     "stored_nbytes", tsrpy_stored_of(in), "scaled",
			     in->scaled ? Py_True : Py_False, "descr", in->descr ? in->descr : "",
			     "dtype_source", in->dtype_source ? in->dtype_source : "file");
}

static PyObject *array_info(tsrpy_Array *self, PyObject *noargs)
{
	(void)noargs;
	if (tsrpy_check_open(self) < 0)
		return NULL;
	return tsrpy_info_dict(&self->info, self->descr, self->path);
}

static PyObject *array_close(tsrpy_Array *self, PyObject *noargs)
{
	(void)noargs;
	if (self->readers > 0) {
		PyErr_SetString(PyExc_RuntimeError,
				"tessera.Array.close: reads are in progress in other threads");
		return NULL;
	}
	tsr_array_free(self->array);
	self->array = NULL;
	Py_RETURN_NONE;
}

static PyObject *array_enter(tsrpy_Array *self, PyObject *noargs)
{
	(void)noargs;
	if (tsrpy_check_open(self) < 0)
		return NULL;
	return Py_NewRef(self);
}

static PyObject *array_exit(tsrpy_Array *self, PyObject *args)
{
	(void)args;
	return array_close(self, NULL);
}

static PyObject *get_shape(tsrpy_Array *self, void *c)
{
	(void)c;
	return tsrpy_shape_tuple(self->info.ndim, self->info.shape);
}

static PyObject *get_chunks(tsrpy_Array *self, void *c)
{
	(void)c;
	return tsrpy_shape_tuple(self->info.ndim, self->info.chunk_shape);
}

static PyObject *get_dtype(tsrpy_Array *self, void *c)
{
	(void)c;
	return Py_NewRef((PyObject *)self->descr);
}

static int64_t array_size(const tsrpy_Array *self)
{
	int64_t n = 1;
	for (int i = 0; i < self->info.ndim; i++)
		n *= self->info.shape[i];
	return n;
}

static PyObject *get_size(tsrpy_Array *self, void *c)
{
	(void)c;
	return PyLong_FromLongLong(array_size(self));
}

static PyObject *get_nbytes(tsrpy_Array *self, void *c)
{
	(void)c;
	return PyLong_FromLongLong(array_size(self) * (int64_t)tsr_dtype_size(self->info.dtype));
}

static PyObject *get_ndim(tsrpy_Array *self, void *c)
{
	(void)c;
	return PyLong_FromLong(self->info.ndim);
}

static PyObject *get_format(tsrpy_Array *self, void *c)
{
	(void)c;
	if (tsrpy_check_open(self) < 0) /* the info's strings live as long as the handle */
		return NULL;
	return PyUnicode_FromString(self->info.format);
}

static PyObject *get_codec(tsrpy_Array *self, void *c)
{
	(void)c;
	if (tsrpy_check_open(self) < 0)
		return NULL;
	return PyUnicode_FromString(self->info.codec);
}

static PyObject *get_closed(tsrpy_Array *self, void *c)
{
	(void)c;
	return PyBool_FromLong(self->array == NULL);
}

static Py_ssize_t array_len(tsrpy_Array *self)
{
	if (self->info.ndim == 0) {
		PyErr_SetString(PyExc_TypeError, "len() of unsized object");
		return -1;
	}
	return (Py_ssize_t)self->info.shape[0];
}

static PyObject *array_repr(tsrpy_Array *self)
{
	PyObject *shape = get_shape(self, NULL), *r;
	if (!shape)
		return NULL;
	if (!self->array)
		r = PyUnicode_FromFormat("<tessera.Array %R (closed)>", self->path);
	else {
		/* what picked the array inside the file: a FITS HDU, an OME-Zarr level, a Zarr
		 * array's path in its store */
		char where[320] = "";
		if (!strcmp(self->info.format, "fits"))
			snprintf(where, sizeof(where), " hdu=%d", self->info.index);
		else if (self->info.level >= 0)
			snprintf(where, sizeof(where), " level=%d", self->info.level);
		else if (self->info.name && self->info.name[0])
			snprintf(where, sizeof(where), " array='%.300s'", self->info.name);
		r = PyUnicode_FromFormat("<tessera.Array %s %R%s shape=%R dtype=%S codec=%s>",
					 self->info.format, self->path, where, shape,
					 (PyObject *)self->descr, self->info.codec);
	}
	Py_DECREF(shape);
	return r;
}

static PyMethodDef array_methods[] = {
	{"read", (PyCFunction)(void (*)(void))array_read, METH_FASTCALL | METH_KEYWORDS,
	 "read($self, /, key=None, *, device=None, out=None, stream=None, decoder='auto', "
	 "storage='real', receipt=False)\n--\n\n"
	 "a[key] with the read's options: key as NumPy indexing takes it (None: everything);\n"
	 "device: None or 'cpu' (numpy.ndarray), 'cuda' or 'cuda:N' (cupy.ndarray, or\n"
	 "tessera.DeviceArray without CuPy); out: an array of the result's shape and dtype to read\n"
	 "into (returned); stream: a CUDA stream the result is ready on; decoder: 'auto', 'gpu'\n"
	 "or 'cpu'; storage: 'real', 'cufile' or 'posix'; receipt=True returns (result, dict of\n"
	 "what the read did and where its time went)."},
	{"info", (PyCFunction)array_info, METH_NOARGS,
	 "info($self, /)\n--\n\nA dict of every field of tsr_array_info: format, shape, chunks, "
	 "dtype, codec, HDU, level, name, scaling."},
	{"metadata", (PyCFunction)tsrpy_array_metadata, METH_NOARGS,
	 "metadata($self, /)\n--\n\n"
	 "A dict of what the file says of the array (FITS header cards, Zarr metadata document\n"
	 "and attributes, OME-Zarr scales, Blosc2 metalayers and vlmeta), read again each call."},
	{"close", (PyCFunction)array_close, METH_NOARGS,
	 "close($self, /)\n--\n\nFrees the handle; later reads raise ValueError."},
	{"__enter__", (PyCFunction)array_enter, METH_NOARGS,
	 "__enter__($self, /)\n--\n\nThe Array itself (with tessera.open(p) as a: ...)."},
	{"__exit__", (PyCFunction)array_exit, METH_VARARGS,
	 "__exit__($self, exc_type, exc_value, traceback, /)\n--\n\nCloses the Array."},
	{"__array__", (PyCFunction)(void (*)(void))array_array, METH_VARARGS | METH_KEYWORDS,
	 "__array__($self, /, dtype=None, copy=None)\n--\n\n"
	 "The whole array read into host memory (numpy.asarray(a)); dtype: cast to it."},
	{"__reduce__", (PyCFunction)array_reduce, METH_NOARGS,
	 "__reduce__($self, /)\n--\n\n"
	 "pickling: the Array opens again from its path and open() arguments"},
	{NULL, NULL, 0, NULL},
};

static PyGetSetDef array_getset[] = {
	{"shape", (getter)get_shape, NULL, "shape (tuple)", NULL},
	{"chunks", (getter)get_chunks, NULL, "chunk / tile shape (tuple)", NULL},
	{"dtype", (getter)get_dtype, NULL, "numpy.dtype of what reads return", NULL},
	{"size", (getter)get_size, NULL, "number of elements", NULL},
	{"nbytes", (getter)get_nbytes, NULL, "bytes of the whole array in memory", NULL},
	{"ndim", (getter)get_ndim, NULL, "number of dimensions", NULL},
	{"format", (getter)get_format, NULL, "'fits', 'zarr' or 'blosc2'", NULL},
	{"codec", (getter)get_codec, NULL, "codec of the chunks ('none', 'GZIP_1', ...)", NULL},
	{"closed", (getter)get_closed, NULL, "True once closed", NULL},
	{"attrs", (getter)tsrpy_array_attrs, NULL,
	 "dict of the user's metadata: Zarr attributes, Blosc2 vlmeta, FITS header keywords "
	 "(each key's first card; COMMENT and HISTORY in metadata()['header'])", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

static PyMemberDef array_members[] = {
	{"path", T_OBJECT, offsetof(tsrpy_Array, path), READONLY, "path opened"},
	{NULL, 0, 0, 0, NULL},
};

/* `value in a`: NumPy's (any element equal), over the whole array read */
static int array_contains(tsrpy_Array *self, PyObject *value)
{
	PyObject *all = PyObject_CallMethod((PyObject *)self, "read", NULL);
	int r = all ? PySequence_Contains(all, value) : -1;
	Py_XDECREF(all);
	return r;
}

/* bool(a): NumPy's, a one-element array's value, ValueError for none or more (it was len()'s:
 * an empty array False, a 0-d one a TypeError, any other True) */
static int array_bool(tsrpy_Array *self)
{
	if (tsrpy_check_open(self) < 0)
		return -1;
	int64_t n = array_size(self);
	if (n != 1) {
		PyErr_SetString(PyExc_ValueError,
				n ? "The truth value of an array with more than one element is "
				    "ambiguous. Use a.any() or a.all()"
				  : "The truth value of an empty array is ambiguous. Use `array.size > "
				    "0` to check that an array is not empty.");
		return -1;
	}
	PyObject *all = PyObject_CallMethod((PyObject *)self, "read", NULL);
	int r = all ? PyObject_IsTrue(all) : -1;
	Py_XDECREF(all);
	return r;
}

static PyNumberMethods array_number = {
	.nb_bool = (inquiry)array_bool,
};

static PySequenceMethods array_sequence = {
	.sq_contains = (objobjproc)array_contains,
};

static PyMappingMethods array_mapping = {
	(lenfunc)array_len,
	(binaryfunc)array_getitem,
	NULL,
};

PyTypeObject tsrpy_ArrayType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "tessera.Array",
	.tp_basicsize = sizeof(tsrpy_Array),
	.tp_dealloc = (destructor)array_dealloc,
	.tp_repr = (reprfunc)array_repr,
	.tp_as_mapping = &array_mapping,
	.tp_as_sequence = &array_sequence,
	.tp_as_number = &array_number,
	.tp_iter = (getiterfunc)tsrpy_array_iter,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "An opened array (tessera.open): a FITS image HDU, a Zarr array or a Blosc2 "
		  "array. a[key] reads as NumPy indexes (basic slices, integer arrays, boolean "
		  "masks); reads release the GIL and one Array may be read from many threads at "
		  "once. attrs is the user's metadata, read-only.",
	.tp_methods = array_methods,
	.tp_getset = array_getset,
	.tp_members = array_members,
	.tp_weaklistoffset = offsetof(tsrpy_Array, weakrefs),
};
