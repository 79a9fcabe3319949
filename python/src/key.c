/* key.c - a Python indexing key as a tsr_selection (basic indexing) or a tsr_index (integer
 * arrays, lists and boolean masks among the items: NumPy's advanced indexing). */
#include "tsrpy.h"

/* NumPy's words for a key it cannot index with. */
static const char INVALID_KEY[] =
	"only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or "
	"boolean arrays are valid indices";

/* NumPy's words for an array of another dtype. */
static const char NOT_INTEGER_ARRAY[] = "arrays used as indices must be of integer (or boolean) type";

/* Lists, arrays, sequences, and objects NumPy makes arrays of (__array__, the array
 * interfaces, buffers). */
static int is_advanced(PyObject *o)
{
	return PyBool_Check(o) || PyArray_IsScalar(o, Bool) || PyList_Check(o) ||
	       PyArray_Check(o) || PySequence_Check(o) || PyObject_CheckBuffer(o) ||
	       PyObject_HasAttrString(o, "__array__") ||
	       PyObject_HasAttrString(o, "__array_interface__") ||
	       PyObject_HasAttrString(o, "__array_struct__");
}

/* One item of the key. Integers take the object's __index__ as NumPy does (so numpy.int64
 * works and floats do not); slices are unpacked by CPython, which clamps huge bounds. */
static int key_item(PyObject *o, struct tsr_sel_item *it)
{
	memset(it, 0, sizeof(*it));
	if (o == Py_Ellipsis) {
		it->kind = TSR_SEL_ELLIPSIS;
		return 0;
	}
	if (o == Py_None) {
		it->kind = TSR_SEL_NEWAXIS;
		return 0;
	}
	if (PySlice_Check(o)) {
		Py_ssize_t start, stop, step;
		PySliceObject *s = (PySliceObject *)o;
		if (PySlice_Unpack(o, &start, &stop, &step) < 0)
			return -1; /* "slice step cannot be zero", a TypeError for odd bounds */
		it->kind = TSR_SEL_SLICE;
		it->start = start, it->has_start = s->start != Py_None;
		it->stop = stop, it->has_stop = s->stop != Py_None;
		it->step = step, it->has_step = 1;
		return 0;
	}
	/* a 0-d array of floats, strings or objects: NumPy's IndexError, not __index__'s
	 * TypeError */
	if (PyArray_Check(o) && PyArray_NDIM((PyArrayObject *)o) == 0 &&
	    !PyArray_ISINTEGER((PyArrayObject *)o) && !PyArray_ISBOOL((PyArrayObject *)o)) {
		PyErr_SetString(PyExc_IndexError, NOT_INTEGER_ARRAY);
		return -1;
	}
	/* (a 0-d boolean array is a mask, as True is, not the integer its __index__ refuses) */
	if (!PyBool_Check(o) && !PyArray_IsScalar(o, Bool) && PyIndex_Check(o) &&
	    !(PyArray_Check(o) && (PyArray_NDIM((PyArrayObject *)o) > 0 ||
				   PyArray_TYPE((PyArrayObject *)o) == NPY_BOOL))) {
		PyObject *i = PyNumber_Index(o);
		int overflow = 0;
		long long v;
		if (!i)
			return -1;
		v = PyLong_AsLongLongAndOverflow(i, &overflow);
		Py_DECREF(i);
		if (v == -1 && PyErr_Occurred())
			return -1;
		if (overflow) {
			/* NumPy cannot hold it in an intp either. */
			PyErr_SetString(PyExc_IndexError, INVALID_KEY);
			return -1;
		}
		it->kind = TSR_SEL_INDEX;
		it->start = v;
		return 0;
	}
	if (is_advanced(o) && !PyUnicode_Check(o) && !PyBytes_Check(o)) {
		it->kind = TSR_SEL_ARRAY; /* (tsrpy_key sends the key to tsrpy_index) */
		return 0;
	}
	PyErr_SetString(PyExc_IndexError, INVALID_KEY);
	return -1;
}

int tsrpy_key(PyObject *key, int ndim, struct tsr_selection *sel, int *scalar_ret)
{
	Py_ssize_t n, i;
	int nint = 0, other = 0;

	memset(sel, 0, sizeof(*sel));
	*scalar_ret = 0;
	if (!key || key == Py_None) {
		if (key == Py_None) { /* a[None]: one new axis */
			sel->nitems = 1;
			sel->items[0].kind = TSR_SEL_NEWAXIS;
		}
		return 0;
	}
	if (!PyTuple_Check(key)) {
		if (key_item(key, &sel->items[0]) < 0)
			return -1;
		sel->nitems = 1;
		*scalar_ret = sel->items[0].kind == TSR_SEL_INDEX && ndim == 1;
		return sel->items[0].kind == TSR_SEL_ARRAY;
	}
	n = PyTuple_GET_SIZE(key);
	if (n > 2 * TSR_MAX_DIM) {
		PyErr_Format(PyExc_IndexError,
			     "too many indices for array: array is %d-dimensional, but %zd were indexed",
			     ndim, n);
		return -1;
	}
	int advanced = 0;
	for (i = 0; i < n; i++) {
		if (key_item(PyTuple_GET_ITEM(key, i), &sel->items[i]) < 0)
			return -1;
		advanced |= sel->items[i].kind == TSR_SEL_ARRAY;
		if (sel->items[i].kind == TSR_SEL_INDEX)
			nint++;
		else
			other++;
	}
	sel->nitems = (int)n;
	/* NumPy returns a scalar only when integers alone take every axis (a[()] of a 0-d
	 * array included); an Ellipsis or None keeps a 0-d array. */
	*scalar_ret = other == 0 && nint == ndim;
	return advanced;
}

/* Appends one advanced item: a boolean array (a mask) or an integer array, as NumPy reads
 * lists and arrays (bools and numpy.bool_ scalars are 0-d masks, which tessera refuses). */
static int index_add(struct tsr_index *ix, PyObject *o)
{
	PyArrayObject *a = (PyArrayObject *)PyArray_FROM_O(o);
	int64_t shape[TSR_MAX_DIM];
	int st;
	if (!a)
		return -1;
	int nd = PyArray_NDIM(a);
	if (nd > TSR_MAX_DIM) {
		PyErr_Format(PyExc_IndexError, "an index array of %d dimensions (at most %d)", nd,
			     TSR_MAX_DIM);
		goto fail;
	}
	for (int d = 0; d < nd; d++)
		shape[d] = PyArray_DIM(a, d);
	if (PyArray_TYPE(a) == NPY_BOOL) {
		if (nd == 0) {
			PyErr_SetString(PyExc_NotImplementedError,
					"a scalar boolean index (a[True]) is not supported");
			goto fail;
		}
		PyArrayObject *c = (PyArrayObject *)PyArray_FROM_OTF((PyObject *)a, NPY_BOOL,
								     NPY_ARRAY_C_CONTIGUOUS);
		if (!c)
			goto fail;
		st = tsr_index_add_mask(ix, nd, shape, (const unsigned char *)PyArray_DATA(c));
		Py_DECREF(c);
	} else if (PyArray_ISINTEGER(a) || (PyArray_SIZE(a) == 0 && !PyArray_Check(o))) {
		/* (an empty list is an empty integer array, as in NumPy; an empty array of
		 * another dtype is refused as any other is) */
		PyArrayObject *c = (PyArrayObject *)PyArray_FROM_OTF(
			(PyObject *)a, NPY_INT64, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_FORCECAST);
		if (!c)
			goto fail;
		st = tsr_index_add_array(ix, nd, shape, (const int64_t *)PyArray_DATA(c));
		Py_DECREF(c);
	} else {
		/* NumPy: its own words for an array, its general ones for a list */
		PyErr_SetString(PyExc_IndexError, PyArray_Check(o) ? NOT_INTEGER_ARRAY : INVALID_KEY);
		goto fail;
	}
	Py_DECREF(a);
	if (st) {
		tsrpy_raise(st, NULL);
		return -1;
	}
	return 0;
fail:
	Py_DECREF(a);
	return -1;
}

int tsrpy_index(PyObject *key, int mode, struct tsr_index **index_ret)
{
	struct tsr_index *ix = NULL;
	Py_ssize_t n = PyTuple_Check(key) ? PyTuple_GET_SIZE(key) : 1;
	int st = tsr_index_create(mode, &ix);
	*index_ret = NULL;
	if (st) {
		tsrpy_raise(st, NULL);
		return -1;
	}
	for (Py_ssize_t i = 0; i < n; i++) {
		PyObject *o = PyTuple_Check(key) ? PyTuple_GET_ITEM(key, i) : key;
		struct tsr_sel_item it;
		if (key_item(o, &it) < 0)
			goto fail;
		if (it.kind == TSR_SEL_ARRAY) {
			if (index_add(ix, o) < 0)
				goto fail;
		} else if ((st = tsr_index_add_item(ix, &it))) {
			tsrpy_raise(st, NULL);
			goto fail;
		}
	}
	*index_ret = ix;
	return 0;
fail:
	tsr_index_free(ix);
	return -1;
}
