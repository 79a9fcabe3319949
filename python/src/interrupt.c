/* interrupt.c - Ctrl-C stops a read: between chunks (slots on the GPU) the read's stop callback
 * lets Python run the main thread's signal handlers, and an exception one raises stops the read
 * and is raised by the call, as a NumPy or zarr-python user expects of a long read. */
#include "tsrpy.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

/* How often the main thread's reads look at pending signals: a handler waits at most this
 * long, or one chunk's decode where a chunk takes longer (the engines ask between chunks). */
#define TSRPY_SIGNAL_EVERY_NS 50000000LL

static unsigned long g_main_ident; /* threading.main_thread().ident, where signals are handled */
static _Thread_local int tl_reading; /* a read of this thread is running (its handlers run in it) */

int tsrpy_interrupt_init(void)
{
	PyObject *threading = PyImport_ImportModule("threading");
	PyObject *main = threading ? PyObject_CallMethod(threading, "main_thread", NULL) : NULL;
	PyObject *ident = main ? PyObject_GetAttrString(main, "ident") : NULL;
	Py_XDECREF(threading);
	Py_XDECREF(main);
	if (!ident)
		return -1;
	g_main_ident = PyLong_AsUnsignedLong(ident);
	Py_DECREF(ident);
	return PyErr_Occurred() ? -1 : 0;
}

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The read's stop callback: the flag for every thread; on the main thread, every
 * TSRPY_SIGNAL_EVERY_NS, the pending signals' handlers run (GIL taken back for them). */
static int stop_cb(void *arg)
{
	struct tsrpy_interrupt *in = arg;
	if (atomic_load_explicit(&in->stop, memory_order_relaxed))
		return 1;
	if (!in->on_main || !pthread_equal(pthread_self(), in->caller))
		return 0;
	long long t = now_ns();
	if (t < in->next_ns)
		return 0;
	in->next_ns = t + TSRPY_SIGNAL_EVERY_NS;
	PyGILState_STATE g = PyGILState_Ensure();
	if (PyErr_CheckSignals() < 0) {
#if PY_VERSION_HEX >= 0x030C0000
		in->exc = PyErr_GetRaisedException();
#else
		PyErr_Fetch(&in->type, &in->exc, &in->tb);
#endif
		atomic_store(&in->stop, 1);
	}
	PyGILState_Release(g);
	return atomic_load(&in->stop);
}

int tsrpy_interrupt_arm(struct tsrpy_interrupt *in, struct tsr_read_options *ro)
{
	memset(in, 0, sizeof(*in));
	if (tl_reading) {
		/* a signal handler reading while this thread's read waits for it: the context's
		 * threads are that read's, so this one would wait for it forever */
		PyErr_SetString(PyExc_RuntimeError, "a tessera read cannot start in a signal "
				"handler that runs during another tessera read of the same thread");
		return -1;
	}
	atomic_init(&in->stop, 0);
	in->caller = pthread_self();
	in->on_main = PyThread_get_thread_ident() == g_main_ident;
	in->next_ns = now_ns() + TSRPY_SIGNAL_EVERY_NS;
	ro->stop = stop_cb;
	ro->stop_arg = in;
	tl_reading = 1;
	return 0;
}

int tsrpy_interrupt_end(struct tsrpy_interrupt *in)
{
	tl_reading = 0;
	if (!in->exc && !in->type)
		return 0;
#if PY_VERSION_HEX >= 0x030C0000
	PyErr_SetRaisedException(in->exc);
#else
	PyErr_Restore(in->type, in->exc, in->tb);
#endif
	in->exc = in->type = in->tb = NULL;
	return -1;
}
