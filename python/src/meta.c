/* meta.c - an Array's metadata as Python objects: metadata() (tsr_array_metadata's document)
 * and attrs (the user's own part of it: Zarr attributes, Blosc2 vlmeta, FITS header keys). */
#include <string.h>

#include "tsrpy.h"

/* tsr_array_metadata_flags's document as Python objects. */
static PyObject *metadata_doc(tsrpy_Array *self, unsigned flags)
{
	if (tsrpy_check_open(self) < 0)
		return NULL;
	char *text = NULL;
	int st;
	self->readers++; /* (the metadata is read again with the GIL released: close waits) */
	Py_BEGIN_ALLOW_THREADS
	st = tsr_array_metadata_flags(self->array, flags, &text);
	Py_END_ALLOW_THREADS
	self->readers--;
	if (st)
		return tsrpy_raise(st, NULL);
	PyObject *json = PyImport_ImportModule("json");
	PyObject *d = json ? PyObject_CallMethod(json, "loads", "s", text) : NULL;
	Py_XDECREF(json);
	tsr_free(text);
	return d;
}

PyObject *tsrpy_array_metadata(tsrpy_Array *self)
{
	return metadata_doc(self, 0);
}

/* Whether a tile-compressed image's table keyword key is the table's own (its structure and
 * the compression's, FITS 4.0 section 10), which the image's header does not hold. */
static int table_own(const char *k)
{
	static const char *const exact[] = {
		"XTENSION", "BITPIX", "NAXIS", "PCOUNT", "GCOUNT", "TFIELDS", "THEAP", "ZIMAGE",
		"ZCMPTYPE", "ZBITPIX", "ZNAXIS", "ZMASKCMP", "ZQUANTIZ", "ZDITHER0", "ZBLANK",
		"ZSIMPLE", "ZTENSION", "ZEXTEND", "ZBLOCKED", "ZPCOUNT", "ZGCOUNT", "ZHECKSUM",
		"ZDATASUM", "CHECKSUM", "DATASUM"};
	static const char *const indexed[] = {"NAXIS", "ZNAXIS", "ZTILE", "ZNAME", "ZVAL", "TTYPE",
					      "TFORM", "TUNIT", "TNULL", "TSCAL", "TZERO", "TDIM",
					      "TDISP"};
	for (size_t i = 0; i < sizeof(exact) / sizeof(*exact); i++)
		if (!strcmp(k, exact[i]))
			return 1;
	for (size_t i = 0; i < sizeof(indexed) / sizeof(*indexed); i++) {
		size_t n = strlen(indexed[i]);
		if (!strncmp(k, indexed[i], n) && k[n] >= '1' && k[n] <= '9' &&
		    strspn(k + n, "0123456789") == strlen(k + n))
			return 1;
	}
	return 0;
}

/* d[key] = value unless d has key (a header's first card of a key is the one it means). */
static int put_first(PyObject *d, PyObject *key, PyObject *value)
{
	int has = PyDict_Contains(d, key);
	return has < 0 ? -1 : has ? 0 : PyDict_SetItem(d, key, value);
}

/* The image's own structural keywords of a tile-compressed image, from the Z copies the table
 * keeps of them (FITS 4.0 section 10.1: ZSIMPLE or ZTENSION, ZBITPIX, ZNAXIS, ZNAXISn, ZPCOUNT,
 * ZGCOUNT, ZEXTEND, ZBLOCKED, ZHECKSUM, ZDATASUM), in the order a header starts with them. */
static int image_keys(PyObject *z, PyObject *d)
{
	PyObject *v, *one = NULL, *zero = NULL;
	int st = 0, primary = (v = PyDict_GetItemString(z, "ZSIMPLE")) != NULL;
	if (primary)
		st = PyDict_SetItemString(d, "SIMPLE", v);
	else if ((v = PyDict_GetItemString(z, "ZTENSION")))
		st = PyDict_SetItemString(d, "XTENSION", v);
	else if ((v = PyUnicode_FromString("IMAGE"))) {
		st = PyDict_SetItemString(d, "XTENSION", v);
		Py_DECREF(v);
	} else {
		st = -1;
	}
	if (!st && (v = PyDict_GetItemString(z, "ZBITPIX")))
		st = PyDict_SetItemString(d, "BITPIX", v);
	PyObject *n = PyDict_GetItemString(z, "ZNAXIS");
	if (!st && n)
		st = PyDict_SetItemString(d, "NAXIS", n);
	long naxis = n && PyLong_Check(n) ? PyLong_AsLong(n) : 0;
	if (naxis == -1 && PyErr_Occurred())
		PyErr_Clear(); /* (a ZNAXIS beyond a long: no axes to copy) */
	for (long i = 1; !st && i <= naxis && i < 1000; i++) {
		char zk[16], k[16];
		snprintf(zk, sizeof(zk), "ZNAXIS%ld", i);
		snprintf(k, sizeof(k), "NAXIS%ld", i);
		if ((v = PyDict_GetItemString(z, zk)))
			st = PyDict_SetItemString(d, k, v);
	}
	if (!st && !primary) { /* (an extension's: 0 and 1 where the table kept none) */
		one = PyLong_FromLong(1);
		zero = PyLong_FromLong(0);
		v = PyDict_GetItemString(z, "ZPCOUNT");
		st = !one || !zero || PyDict_SetItemString(d, "PCOUNT", v ? v : zero);
		v = PyDict_GetItemString(z, "ZGCOUNT");
		st = st || PyDict_SetItemString(d, "GCOUNT", v ? v : one);
		Py_XDECREF(one);
		Py_XDECREF(zero);
	}
	static const char *const copies[][2] = {{"ZEXTEND", "EXTEND"}, {"ZBLOCKED", "BLOCKED"},
						{"ZHECKSUM", "CHECKSUM"}, {"ZDATASUM", "DATASUM"}};
	for (size_t i = 0; !st && i < sizeof(copies) / sizeof(*copies); i++)
		if ((v = PyDict_GetItemString(z, copies[i][0])))
			st = PyDict_SetItemString(d, copies[i][1], v);
	return st ? -1 : 0;
}

/* A FITS keyword as astropy names it: an 8-character keyword upper-cased (FITS keywords are
 * upper case; astropy reads "exptime" as EXPTIME), a HIERARCH card's words as written (a new
 * reference). The metadata document keeps each card's key as the file has it. */
static PyObject *astropy_key(PyObject *key, int hierarch)
{
	return hierarch ? Py_NewRef(key) : PyObject_CallMethod(key, "upper", NULL);
}

/* A FITS header's cards as {key: value}: each key's first card, as astropy's header[key] gives
 * it; commentary (COMMENT, HISTORY, blank keys) left out, as it has no value to map. A
 * tile-compressed image's are its image's header, as astropy and CFITSIO show it: the table's
 * own keywords out, the image's structural ones from their Z copies. */
static PyObject *header_keys(PyObject *cards, int compressed)
{
	PyObject *all = PyDict_New(), *d = compressed ? PyDict_New() : NULL;
	Py_ssize_t n = cards && PyList_Check(cards) ? PyList_GET_SIZE(cards) : 0;
	for (Py_ssize_t i = 0; all && i < n; i++) {
		PyObject *card = PyList_GET_ITEM(cards, i);
		PyObject *key = PyDict_Check(card) ? PyDict_GetItemString(card, "key") : NULL;
		PyObject *value = PyDict_Check(card) ? PyDict_GetItemString(card, "value") : NULL;
		if (!key || !PyUnicode_Check(key) || !value || !PyUnicode_GET_LENGTH(key) ||
		    !PyUnicode_CompareWithASCIIString(key, "COMMENT") ||
		    !PyUnicode_CompareWithASCIIString(key, "HISTORY"))
			continue;
		PyObject *k = astropy_key(key, PyDict_GetItemString(card, "hierarch") != NULL);
		/* a complex value: its parts (the document's value is its text), as astropy's
		 * complex */
		PyObject *parts = PyDict_GetItemString(card, "complex"), *cv = NULL;
		if (parts && PyList_Check(parts) && PyList_GET_SIZE(parts) == 2) {
			PyObject *args = PyList_AsTuple(parts); /* complex(re, im) */
			cv = args ? PyObject_Call((PyObject *)&PyComplex_Type, args, NULL) : NULL;
			Py_XDECREF(args);
			if (!cv)
				Py_CLEAR(all);
		}
		if (!k || (all && put_first(all, k, cv ? cv : value) < 0))
			Py_CLEAR(all);
		Py_XDECREF(cv);
		Py_XDECREF(k);
	}
	if (!compressed || !all)
		return all;
	if (!d || image_keys(all, d) < 0) {
		Py_XDECREF(d);
		Py_DECREF(all);
		return NULL;
	}
	PyObject *key, *value;
	Py_ssize_t pos = 0;
	while (PyDict_Next(all, &pos, &key, &value)) {
		const char *k = PyUnicode_AsUTF8(key);
		/* (EXTNAME 'COMPRESSED_IMAGE' is the name fpack and CFITSIO give a compressed
		 * primary image's table, not the image's: CFITSIO and astropy leave it out) */
		if (k && !strcmp(k, "EXTNAME") && PyUnicode_Check(value) &&
		    !PyUnicode_CompareWithASCIIString(value, "COMPRESSED_IMAGE"))
			continue;
		if (!k || (!table_own(k) && put_first(d, key, value) < 0)) {
			Py_CLEAR(d);
			break;
		}
	}
	Py_DECREF(all);
	return d;
}

PyObject *tsrpy_array_attrs(tsrpy_Array *self)
{
	/* (no chunk listing: a Zarr array's stored bytes are not the user's metadata, and
	 * counting them lists every chunk file, 19 ms for 10,000) */
	PyObject *m = metadata_doc(self, TSR_METADATA_NO_LISTING);
	if (!m)
		return NULL;
	const char *fmt = self->info.format;
	PyObject *r = NULL;
	if (!strcmp(fmt, "fits")) {
		PyObject *c = PyDict_GetItemString(m, "compression");
		r = header_keys(PyDict_GetItemString(m, "header"), c && c != Py_None);
	} else {
		PyObject *part = PyDict_GetItemString(m, strcmp(fmt, "zarr") ? "vlmeta" : "attributes");
		r = part && PyDict_Check(part) ? Py_NewRef(part) : PyDict_New();
	}
	Py_DECREF(m);
	/* as tessera._attrs makes it: read-only, and python-blosc2's tuples */
	PyObject *mod = r ? PyImport_ImportModule("tessera._attrs") : NULL;
	PyObject *a = mod ? PyObject_CallMethod(mod, "make", "Os", r, fmt) : NULL;
	Py_XDECREF(mod);
	Py_XDECREF(r);
	return a;
}
