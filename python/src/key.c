/* key.c - a Python indexing key (NumPy basic indexing) as a tsr_selection. */
#include "tsrpy.h"

/* NumPy's words for a key it cannot index with. */
static const char INVALID_KEY[] =
	"only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or "
	"boolean arrays are valid indices";

static int is_advanced(PyObject *o)
{
	return PyBool_Check(o) || PyArray_IsScalar(o, Bool) || PyList_Check(o) ||
	       PyArray_Check(o) || PySequence_Check(o);
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
	if (!PyBool_Check(o) && !PyArray_IsScalar(o, Bool) && PyIndex_Check(o) &&
	    !(PyArray_Check(o) && PyArray_NDIM((PyArrayObject *)o) > 0)) {
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
		PyErr_SetString(PyExc_NotImplementedError,
				"advanced indexing (integer or boolean arrays, lists, bools) is not "
				"supported yet: use integers, slices, ... and None");
		return -1;
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
		return 0;
	}
	n = PyTuple_GET_SIZE(key);
	if (n > 2 * TSR_MAX_DIM) {
		PyErr_Format(PyExc_IndexError,
			     "too many indices for array: array is %d-dimensional, but %zd were indexed",
			     ndim, n);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (key_item(PyTuple_GET_ITEM(key, i), &sel->items[i]) < 0)
			return -1;
		if (sel->items[i].kind == TSR_SEL_INDEX)
			nint++;
		else
			other++;
	}
	sel->nitems = (int)n;
	/* NumPy returns a scalar only when integers alone take every axis (a[()] of a 0-d
	 * array included); an Ellipsis or None keeps a 0-d array. */
	*scalar_ret = other == 0 && nint == ndim;
	return 0;
}
