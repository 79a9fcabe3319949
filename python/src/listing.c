/* listing.c - tessera.list_arrays (tsr_list's entries as dicts: each array's shape, dtype and
 * layout from opening it, a multiscale group's level shapes from its levels' entries) and
 * tessera.iter_arrays (each listed array opened in turn where the listing found it). */
#include "tsrpy.h"

#include <errno.h>
#include <sys/stat.h>

static const char *kind_name(enum tsr_entry_kind k)
{
	switch (k) {
	case TSR_ENTRY_ARRAY:
		return "array";
	case TSR_ENTRY_EMPTY:
		return "empty";
	case TSR_ENTRY_TABLE:
		return "table";
	case TSR_ENTRY_MULTISCALE:
		return "multiscale";
	}
	return "unknown";
}

/* Listing entry i's shape, chunks, dtype, codec, ... (opened where the listing found it), or
 * its "error" and "status" where it does not open, added to d. Returns 0, or -1 with a Python
 * error set. */
static int add_array(PyObject *d, const struct tsr_listing *l, size_t i)
{
	struct tsr_array *a = NULL;
	struct tsr_array_info in = {.struct_size = sizeof(in)};
	PyObject *v;
	int st, rc;

	Py_BEGIN_ALLOW_THREADS
	st = tsr_listing_open(tsrpy_context(), l, i, NULL, &a);
	if (st == TSR_OK)
		st = tsr_array_info(a, &in);
	Py_END_ALLOW_THREADS
	if (st) {
		/* the message first: the next tessera call may replace it */
		v = Py_BuildValue("{s:s,s:s}", "error", tsr_errmsg(), "status", tsr_status_name(st));
		tsr_array_free(a);
		rc = v ? PyDict_Update(d, v) : -1;
		Py_XDECREF(v);
		return rc;
	}
	v = Py_BuildValue("{s:N,s:N,s:N,s:s,s:N,s:L,s:O}", "shape",
			  tsrpy_shape_tuple(in.ndim, in.shape), "chunks",
			  tsrpy_shape_tuple(in.ndim, in.chunk_shape), "dtype",
			  (PyObject *)tsrpy_descr_of(in.dtype, in.descr), "codec", in.codec,
			  "stored_nbytes", tsrpy_stored_of(&in), "nchunks", (long long)in.nchunks,
			  "scaled", in.scaled ? Py_True : Py_False);
	tsr_array_free(a);
	rc = v ? PyDict_Update(d, v) : -1;
	Py_XDECREF(v);
	return rc;
}

/* The dict of listing entry i (e): what every entry says, then its format's own keys. */
static PyObject *entry_dict(const struct tsr_listing *l, size_t i, const struct tsr_entry *e)
{
	PyObject *d = Py_BuildValue("{s:s,s:s,s:N}", "kind", kind_name(e->kind), "format", e->format,
				    "hdu", e->hdu >= 0 ? PyLong_FromLong(e->hdu) : Py_NewRef(Py_None));
	PyObject *v = NULL;

	if (!d)
		return NULL;
	if (!strcmp(e->format, "fits")) {
		/* as the CLI's JSON: EXTNAME ("" when none), EXTVER and XTENSION None when absent */
		v = Py_BuildValue("{s:N,s:N,s:N,s:O}", "name", PyUnicode_DecodeFSDefault(e->name),
				  "extver", e->extver ? PyLong_FromLong(e->extver) : Py_NewRef(Py_None),
				  "xtension", e->xtension[0] ? PyUnicode_DecodeFSDefault(e->xtension)
							     : Py_NewRef(Py_None),
				  "compressed", e->compressed ? Py_True : Py_False);
	} else if (!strcmp(e->format, "zarr")) {
		/* "array" is what open(array=) takes; a group's level arrays name it in "group" */
		PyObject *nm = PyUnicode_DecodeFSDefault(e->name);
		if (e->kind == TSR_ENTRY_MULTISCALE)
			v = Py_BuildValue("{s:O,s:O,s:O,s:i}", "name", nm, "array", nm,
					  "multiscale", Py_True, "nlevels",
					  e->nlevels);
		else
			v = Py_BuildValue("{s:O,s:O,s:N,s:N}", "name", nm, "array", nm, "group",
					  e->level >= 0 ? PyUnicode_DecodeFSDefault(e->group)
							: Py_NewRef(Py_None),
					  "level",
					  e->level >= 0 ? PyLong_FromLong(e->level) : Py_NewRef(Py_None));
		Py_XDECREF(nm);
	} else {
		v = Py_BuildValue("{s:N}", "name", PyUnicode_DecodeFSDefault(e->name));
	}
	if (!v || PyDict_Update(d, v) < 0 ||
	    (e->kind == TSR_ENTRY_ARRAY && add_array(d, l, i) < 0)) {
		Py_XDECREF(v);
		Py_DECREF(d);
		return NULL;
	}
	Py_DECREF(v);
	return d;
}

/* Each multiscale entry's "levels": the shapes of the array entries naming it as their group,
 * by level (None for a level that did not open). Returns 0, or -1 with a Python error set. */
static int add_levels(PyObject *res)
{
	Py_ssize_t n = PyList_GET_SIZE(res);
	for (Py_ssize_t i = 0; i < n; i++) {
		PyObject *g = PyList_GET_ITEM(res, i), *levels;
		PyObject *nl = PyDict_GetItemString(g, "nlevels");
		if (!PyDict_GetItemString(g, "multiscale") || !nl)
			continue;
		levels = PyList_New(PyLong_AsSsize_t(nl));
		if (!levels)
			return -1;
		for (Py_ssize_t k = 0; k < PyList_GET_SIZE(levels); k++)
			PyList_SET_ITEM(levels, k, Py_NewRef(Py_None));
		for (Py_ssize_t j = 0; j < n; j++) {
			PyObject *a = PyList_GET_ITEM(res, j);
			PyObject *grp = PyDict_GetItemString(a, "group");
			PyObject *lv = PyDict_GetItemString(a, "level");
			PyObject *shape = PyDict_GetItemString(a, "shape");
			Py_ssize_t k;
			int same;
			if (!grp || grp == Py_None || !lv || lv == Py_None || !shape)
				continue;
			same = PyObject_RichCompareBool(grp, PyDict_GetItemString(g, "array"), Py_EQ);
			if (same < 0) {
				Py_DECREF(levels);
				return -1;
			}
			k = PyLong_AsSsize_t(lv);
			if (same && k >= 0 && k < PyList_GET_SIZE(levels))
				PyList_SetItem(levels, k, Py_NewRef(shape));
		}
		if (PyDict_SetItemString(g, "levels", levels) < 0) {
			Py_DECREF(levels);
			return -1;
		}
		Py_DECREF(levels);
	}
	return 0;
}

/* tsr_list of path into *l: 0, or -1 with a Python error set (a missing path is Python's
 * FileNotFoundError, as open() of a missing file). */
static int list_path(const char *path, struct tsr_listing **l)
{
	struct stat sb;
	int st;
	if (stat(path, &sb) != 0) {
		PyErr_SetFromErrnoWithFilename(PyExc_OSError, path);
		return -1;
	}
	Py_BEGIN_ALLOW_THREADS
	st = tsr_list(path, l);
	Py_END_ALLOW_THREADS
	if (st) {
		tsrpy_raise(st, path);
		return -1;
	}
	return 0;
}

/* tessera.list_arrays(store): what tsr_list finds (FITS HDUs, Zarr arrays and multiscale
 * groups, a Blosc2 array), without reading pixels. */
PyObject *tsrpy_list_arrays(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"store", NULL};
	PyObject *pathobj = NULL, *res = NULL;
	struct tsr_listing *l = NULL;
	const char *path;
	(void)self;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&:list_arrays", kwlist, PyUnicode_FSConverter,
					 &pathobj))
		return NULL;
	path = PyBytes_AS_STRING(pathobj);
	if (list_path(path, &l) < 0)
		goto fail;
	res = PyList_New(0);
	if (!res)
		goto fail;
	for (size_t i = 0; i < tsr_listing_count(l); i++) {
		struct tsr_entry e = {.struct_size = sizeof(e)};
		PyObject *d;
		if (tsr_listing_entry(l, i, &e) != TSR_OK) {
			tsrpy_raise(TSR_E_RANGE, path);
			goto fail;
		}
		d = entry_dict(l, i, &e);
		if (!d || PyList_Append(res, d) < 0) {
			Py_XDECREF(d);
			goto fail;
		}
		Py_DECREF(d);
	}
	if (add_levels(res) < 0)
		goto fail;
	tsr_listing_free(l);
	Py_DECREF(pathobj);
	return res;
fail:
	tsr_listing_free(l);
	Py_XDECREF(pathobj);
	Py_XDECREF(res);
	return NULL;
}

/* tessera.iter_arrays(store): each array of tsr_list's listing opened in turn, where the
 * listing found it (tsr_listing_open), one open at a time. */
typedef struct {
	PyObject_HEAD
	struct tsr_listing *listing;
	size_t next;
	PyObject *path;                /* str */
	PyObject *keep;                /* what opts' strings point into */
	struct tsr_open_options opts;  /* raw, dtype */
	PyObject *dtype;               /* as given (each Array's pickle opens with it) */
} tsrpy_ArraysIter;

static void arrays_iter_dealloc(tsrpy_ArraysIter *it)
{
	tsr_listing_free(it->listing);
	Py_XDECREF(it->path);
	Py_XDECREF(it->keep);
	Py_XDECREF(it->dtype);
	PyObject_Free(it);
}

static PyObject *arrays_iter_next(tsrpy_ArraysIter *it)
{
	while (it->listing && it->next < tsr_listing_count(it->listing)) {
		struct tsr_entry e = {.struct_size = sizeof(e)};
		struct tsr_array *a = NULL;
		size_t i = it->next++;
		int st;
		if (tsr_listing_entry(it->listing, i, &e) != TSR_OK || e.kind != TSR_ENTRY_ARRAY)
			continue;
		Py_BEGIN_ALLOW_THREADS
		st = tsr_listing_open(tsrpy_context(), it->listing, i, &it->opts, &a);
		Py_END_ALLOW_THREADS
		if (st)
			return tsrpy_raise(st, NULL); /* (the next call goes on past it) */
		tsrpy_Array *arr = tsrpy_array_wrap(a, it->path);
		/* (pickled, it opens again as listed: a Zarr array by its path, a multiscale level
		 * as its group's level, as tsr_listing_open opened it) */
		int zarr = !strcmp(e.format, "zarr"), lv = zarr && e.level >= 0;
		PyObject *name = !arr || !zarr		  ? NULL
				 : lv && !e.group[0] ? Py_NewRef(Py_None)
				 : PyUnicode_DecodeFSDefault(lv ? e.group : e.name);
		PyObject *level = arr && lv ? PyLong_FromLong(e.level) : NULL;
		if (arr && ((zarr && !name) || (lv && !level) ||
			    tsrpy_array_reopen_set(arr, name, level, it->opts.raw, it->dtype) < 0))
			Py_CLEAR(arr);
		Py_XDECREF(name);
		Py_XDECREF(level);
		return (PyObject *)arr;
	}
	return NULL; /* StopIteration */
}

PyTypeObject tsrpy_ArraysIterType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "tessera.ArraysIterator",
	.tp_basicsize = sizeof(tsrpy_ArraysIter),
	.tp_dealloc = (destructor)arrays_iter_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "Each array a path holds, opened in turn (tessera.iter_arrays).",
	.tp_iter = PyObject_SelfIter,
	.tp_iternext = (iternextfunc)arrays_iter_next,
};

PyObject *tsrpy_iter_arrays(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"store", "raw", "dtype", NULL};
	PyObject *pathobj = NULL, *dtype = Py_None;
	int raw = 0;
	(void)self;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|$pO:iter_arrays", kwlist,
					 PyUnicode_FSConverter, &pathobj, &raw, &dtype))
		return NULL;
	const char *path = PyBytes_AS_STRING(pathobj);
	tsrpy_ArraysIter *it = PyObject_New(tsrpy_ArraysIter, &tsrpy_ArraysIterType);
	if (!it) {
		Py_DECREF(pathobj);
		return NULL;
	}
	it->listing = NULL;
	it->next = 0;
	it->keep = NULL;
	it->dtype = Py_NewRef(dtype);
	it->path = PyUnicode_DecodeFSDefault(path);
	if (!it->path ||
	    tsrpy_open_options_dtype(NULL, NULL, NULL, raw, dtype, &it->opts, &it->keep) < 0 ||
	    list_path(path, &it->listing) < 0)
		goto fail;
	Py_DECREF(pathobj);
	return (PyObject *)it;
fail:
	Py_DECREF(pathobj);
	Py_DECREF(it);
	return NULL;
}
