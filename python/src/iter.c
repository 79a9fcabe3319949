/* iter.c - iteration over an Array's first axis, as NumPy's: rows read a block at a time. */
#include "tsrpy.h"

/* A block's rows: whole chunks of axis 0, at least TSRPY_ITER_NBYTES a block, so that a store
 * of small chunks (a FITS image's tiles of one row) is not read a row a call, and a row's
 * chunks are read once, not once a row; memory held: one block. */
#define TSRPY_ITER_NBYTES ((int64_t)4 << 20)

typedef struct {
	PyObject_HEAD
	tsrpy_Array *array;
	int64_t next, n;               /* the next row; rows of axis 0 */
	int64_t b0, b1;                /* the block held: rows b0 to b1 - 1 */
	PyObject *block;               /* NumPy array of those rows, or NULL */
	int busy;                      /* a block's read in flight (the GIL released) */
} tsrpy_ArrayIter;

static void iter_dealloc(tsrpy_ArrayIter *it)
{
	Py_XDECREF(it->block);
	Py_XDECREF(it->array);
	Py_TYPE(it)->tp_free((PyObject *)it);
}

/* Rows a block: whole chunks of axis 0 reaching TSRPY_ITER_NBYTES (one chunk at least). */
static int64_t iter_block_rows(const tsrpy_Array *a)
{
	int64_t row = (int64_t)PyDataType_ELSIZE(a->descr);
	for (int i = 1; i < a->info.ndim; i++)
		row = a->info.shape[i] > 0 && row > INT64_MAX / a->info.shape[i] ? INT64_MAX
			: row * a->info.shape[i];
	int64_t c = a->info.chunk_shape[0] > 0 ? a->info.chunk_shape[0] : 1;
	int64_t want = row > 0 ? (TSRPY_ITER_NBYTES + row - 1) / row : 1;
	return want <= c ? c : (want + c - 1) / c * c;
}

static PyObject *iter_next(tsrpy_ArrayIter *it)
{
	if (it->next >= it->n)
		return NULL; /* StopIteration */
	if (!it->array->array) {
		/* closed: whatever the block holds, as a closed file's iterator */
		PyErr_SetString(PyExc_ValueError, "I/O operation on a closed tessera.Array");
		return NULL;
	}
	if (it->busy) {
		/* another thread's next() is reading the block: as a generator's, refused */
		PyErr_SetString(PyExc_ValueError, "tessera.ArrayIterator already executing");
		return NULL;
	}
	if (!it->block || it->next >= it->b1) {
		Py_CLEAR(it->block);
		int64_t rows = iter_block_rows(it->array);
		/* from the chunk boundary the next row lies in, so blocks read whole chunks */
		int64_t c = it->array->info.chunk_shape[0] > 0 ? it->array->info.chunk_shape[0] : 1;
		int64_t b0 = it->next - it->next % c;
		int64_t b1 = rows > it->n - b0 ? it->n : b0 + rows;
		PyObject *lo = PyLong_FromLongLong(b0), *hi = PyLong_FromLongLong(b1);
		PyObject *key = lo && hi ? PySlice_New(lo, hi, NULL) : NULL;
		Py_XDECREF(lo);
		Py_XDECREF(hi);
		if (!key)
			return NULL;
		it->busy = 1;
		it->block = PyObject_GetItem((PyObject *)it->array, key);
		it->busy = 0;
		Py_DECREF(key);
		if (!it->block)
			return NULL;
		it->b0 = b0;
		it->b1 = b1;
	}
	/* a view of the block, as iterating over a NumPy array gives */
	return PySequence_GetItem(it->block, (Py_ssize_t)(it->next++ - it->b0));
}

static PyObject *iter_length_hint(tsrpy_ArrayIter *it, PyObject *noargs)
{
	(void)noargs;
	return PyLong_FromLongLong(it->n > it->next ? it->n - it->next : 0);
}

static PyMethodDef iter_methods[] = {
	{"__length_hint__", (PyCFunction)iter_length_hint, METH_NOARGS, NULL},
	{NULL, NULL, 0, NULL},
};

PyTypeObject tsrpy_ArrayIterType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "tessera.ArrayIterator",
	.tp_basicsize = sizeof(tsrpy_ArrayIter),
	.tp_dealloc = (destructor)iter_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "The rows of a tessera.Array's first axis (iter(a)), read a block at a time.",
	.tp_iter = PyObject_SelfIter,
	.tp_iternext = (iternextfunc)iter_next,
	.tp_methods = iter_methods,
};

PyObject *tsrpy_array_iter(tsrpy_Array *self)
{
	if (!self->array) {
		PyErr_SetString(PyExc_ValueError, "I/O operation on a closed tessera.Array");
		return NULL;
	}
	if (self->info.ndim == 0) {
		PyErr_SetString(PyExc_TypeError, "iteration over a 0-d array");
		return NULL;
	}
	tsrpy_ArrayIter *it = PyObject_New(tsrpy_ArrayIter, &tsrpy_ArrayIterType);
	if (!it)
		return NULL;
	Py_INCREF(self);
	it->array = self;
	it->next = 0;
	it->n = self->info.shape[0];
	it->b0 = it->b1 = 0;
	it->block = NULL;
	it->busy = 0;
	return (PyObject *)it;
}
