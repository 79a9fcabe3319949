/* host_cache.c - large host result buffers kept after their arrays go, for the next read of a
 * like size: a new buffer costs its first-touch page faults (the kernel zeroes every page), so a
 * read into a new 300 MiB array took 1.18x the time of the same read into a reused buffer on the
 * H200, the difference between Python's `tessera.read(path)` and `tessera bench`. CuPy's and
 * PyTorch's caching allocators keep freed device memory for the same reason; this keeps at most
 * TSRPY_KEPT host buffers and `limit` bytes (tessera.host_cache). Every call runs with the GIL
 * held (a capsule's destructor, a read before it releases the GIL), which orders them. */
#include "tsrpy.h"

#define TSRPY_KEPT 4

static struct {
	void *p;
	size_t nbytes;
} kept[TSRPY_KEPT];
static int nkept;
static size_t kept_bytes, limit = (size_t)1 << 30; /* 1 GiB */

void *tsrpy_cache_take(size_t need, size_t *nbytes_ret)
{
	int best = -1;
	for (int i = 0; i < nkept; i++)
		/* (a buffer a quarter larger than the read or more stays for a larger one) */
		if (kept[i].nbytes >= need && kept[i].nbytes - need <= need / 4 &&
		    (best < 0 || kept[i].nbytes < kept[best].nbytes))
			best = i;
	if (best < 0)
		return NULL;
	void *p = kept[best].p;
	*nbytes_ret = kept[best].nbytes;
	kept_bytes -= kept[best].nbytes;
	kept[best] = kept[--nkept];
	return p;
}

/* Frees the oldest kept buffer. */
static void drop_oldest(void)
{
	tsr_free(kept[0].p);
	kept_bytes -= kept[0].nbytes;
	for (int i = 1; i < nkept; i++)
		kept[i - 1] = kept[i];
	nkept--;
}

int tsrpy_cache_clear(void)
{
	int had = nkept > 0;
	while (nkept)
		drop_oldest();
	return had;
}

void tsrpy_cache_give(void *p, size_t nbytes)
{
	if (!p)
		return;
	if (nbytes > limit) {
		tsr_free(p);
		return;
	}
	while (nkept && (nkept == TSRPY_KEPT || kept_bytes + nbytes > limit))
		drop_oldest();
	kept[nkept].p = p;
	kept[nkept++].nbytes = nbytes;
	kept_bytes += nbytes;
}

PyObject *tsrpy_host_cache(PyObject *self, PyObject *args, PyObject *kw)
{
	(void)self;
	static char *kwlist[] = {"limit", NULL};
	PyObject *lim = Py_None;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:host_cache", kwlist, &lim))
		return NULL;
	if (lim != Py_None) {
		unsigned long long n = PyLong_AsUnsignedLongLong(lim);
		if (n == (unsigned long long)-1 && PyErr_Occurred()) {
			if (PyErr_ExceptionMatches(PyExc_OverflowError))
				PyErr_SetString(PyExc_ValueError, "host_cache: limit must be >= 0 bytes");
			return NULL;
		}
		limit = n > SIZE_MAX ? SIZE_MAX : (size_t)n;
		while (nkept && kept_bytes > limit)
			drop_oldest();
	}
	return Py_BuildValue("{s:K,s:K,s:i}", "limit", (unsigned long long)limit, "bytes",
			     (unsigned long long)kept_bytes, "buffers", nkept);
}
