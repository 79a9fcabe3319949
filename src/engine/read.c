/* read.c - tsr_read: normalise the selection, plan, and run the engine for the destination. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../io/storage.h"
#include "engine.h"

/* st, with a failure's message prefixed by the array's file and unit ("path: HDU 1"). */
static int tsr_array_named(const struct tsr_array *array, int st)
{
	if (st) {
		char unit[320];
		tsr_array_unit(array, unit, sizeof(unit));
		tsr_error_prefix("%s%s", array->path, unit);
	}
	return st;
}

int tsr_array_sel_norm(const struct tsr_array *array, const struct tsr_selection *sel,
		       struct tsr_norm_sel *ns)
{
	return tsr_array_named(array, tsr_selection_normalize(sel, array->desc.ndim,
							      array->desc.shape, ns));
}

/* The shape, and a failure's message with or without the array's file and unit. */
static int tsr_sel_shape(const struct tsr_array *array, const struct tsr_selection *sel,
			 int *ndim_ret, int64_t shape_ret[TSR_MAX_DIM], int named)
{
	if (!array || !ndim_ret || !shape_ret)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_selection_shape: NULL argument");
	struct tsr_norm_sel ns;
	int st = named ? tsr_array_sel_norm(array, sel, &ns)
		       : tsr_selection_normalize(sel, array->desc.ndim, array->desc.shape, &ns);
	if (st)
		return st;
	*ndim_ret = ns.out_ndim;
	for (int i = 0; i < ns.out_ndim; i++)
		shape_ret[i] = ns.out_shape[i];
	return TSR_OK;
}

int tsr_selection_shape(const struct tsr_array *array, const struct tsr_selection *sel,
			int *ndim_ret, int64_t shape_ret[TSR_MAX_DIM])
{
	return tsr_sel_shape(array, sel, ndim_ret, shape_ret, 0);
}

int tsr_array_sel_shape(const struct tsr_array *array, const struct tsr_selection *sel,
			int *ndim_ret, int64_t shape_ret[TSR_MAX_DIM])
{
	return tsr_sel_shape(array, sel, ndim_ret, shape_ret, 1);
}

int tsr_stop_asked(const struct tsr_stop *stop)
{
	if (!stop || !stop->fn || !stop->fn(stop->arg))
		return 0;
	tsr_error(TSR_E_STOPPED, "the read was stopped by its caller (read options' stop)");
	return 1;
}

void tsr_receipt_init(const struct tsr_array *a, struct tsr_receipt *r)
{
	memset(r, 0, sizeof(*r));
	r->struct_size = sizeof(*r);
	snprintf(r->driver, sizeof(r->driver), "%s", a->ops->name);
	snprintf(r->backend, sizeof(r->backend), "posix");
	snprintf(r->engine, sizeof(r->engine), "cpu");
	snprintf(r->codec, sizeof(r->codec), "%s", a->desc.codec);
	snprintf(r->reader, sizeof(r->reader), "%s", a->desc.reader);
	snprintf(r->fallback, sizeof(r->fallback), "%s", a->desc.fallback);
	r->chunks_total = a->desc.nchunks;
}

int tsr_read_device(const struct tsr_context *ctx, const struct tsr_read_options *opts,
		    const char *what, int *device_ret)
{
	struct tsr_read_options o;
	(void)ctx;
	*device_ret = -1;
	int st = tsr_read_options_load(&o, opts);
	if (st)
		return st;
	const int *devices = o.devices;
	int n = o.ndevices;
	if (n < 0 || (n > 0 && !devices))
		return tsr_error(TSR_E_INVALID_ARG, "%s: read options: ndevices %d with devices %s",
				 what, n, devices ? "set" : "NULL");
	if (n > 1)
		return tsr_error(TSR_E_INVALID_ARG, "%s reads on one CUDA device, not %d (the "
				 "tsr_*_devices calls split a read over several)", what, n);
	if (n == 1) {
		if (devices[0] < 0)
			return tsr_error(TSR_E_INVALID_ARG, "%s: CUDA device %d < 0", what, devices[0]);
		*device_ret = devices[0];
	}
	return TSR_OK;
}

int tsr_read_threads(const struct tsr_context *ctx, const struct tsr_read_options *o)
{
	int nthreads = ctx->nthreads;
	if (o->nthreads > 0 && o->nthreads < nthreads)
		nthreads = o->nthreads;
	return nthreads;
}

/* The same from the caller's options (the context's threads where they do not load: the read
 * itself then reports them). */
static int tsr_read_nthreads(const struct tsr_array *array, const struct tsr_read_options *opts)
{
	struct tsr_read_options o;
	return tsr_read_options_load(&o, opts) ? array->ctx->nthreads
					       : tsr_read_threads(array->ctx, &o);
}

int tsr_read_prepare(struct tsr_array *array, const struct tsr_norm_sel *ns, int on_device,
		     const struct tsr_read_options *opts, struct tsr_read_prep *prep)
{
	memset(prep, 0, sizeof(*prep));
	prep->device = -1;
	struct tsr_read_options o;
	int st = tsr_read_options_load(&o, opts);
	if (st)
		return st;
	prep->nthreads = tsr_read_threads(array->ctx, &o);
	prep->decoder = o.decoder;
	prep->stop = (struct tsr_stop){o.stop, o.stop_arg};
	if (o.decoder != TSR_DECODER_AUTO && o.decoder != TSR_DECODER_CPU &&
	    o.decoder != TSR_DECODER_GPU)
		return tsr_error(TSR_E_INVALID_ARG, "%s: read option decoder %d is none of "
				 "TSR_DECODER_AUTO (0), _CPU (1), _GPU (2)", array->path, o.decoder);
	/* The read's storage backend, chosen once here: the engines only call it. */
	if (o.storage < TSR_STORAGE_REAL || o.storage > TSR_STORAGE_CUFILE)
		return tsr_storage_select(array, o.storage, on_device, &prep->store); /* (says why) */
	if (on_device && tsr_dtype_is_raw(array->desc.dtype))
		return tsr_error(TSR_E_UNSUPPORTED, "%s: %s elements (%s) are read into host memory "
				 "only", array->path, array->desc.descr ? array->desc.descr : "raw",
				 tsr_dtype_name(array->desc.dtype));
	st = tsr_storage_select(array, o.storage, on_device, &prep->store);
	if (st == TSR_OK && on_device)
		st = tsr_read_device(array->ctx, opts, array->path, &prep->device);
	if (st)
		return st;
	st = tsr_plan_build(&array->desc, ns, &prep->plan);
	prep->planned = st == TSR_OK;
	return st;
}

void tsr_read_prep_free(struct tsr_read_prep *prep)
{
	if (prep->planned)
		tsr_plan_free(&prep->plan);
	tsr_plan_descs_free(prep->descs);
	prep->planned = 0;
	prep->descs = NULL;
}

int tsr_read_execute(struct tsr_array *array, const struct tsr_norm_sel *ns, void *out,
		     void *cuda_stream, int on_device, int batch, struct tsr_read_prep *prep,
		     struct tsr_receipt *r, double t_start)
{
	const struct tsr_storage_choice *store = &prep->store;
	int st = TSR_OK;
	r->chunks_read = prep->plan.ntasks;
	snprintf(r->backend, sizeof(r->backend), "%s", store->be->name);
	if (store->be->prepare) {
		/* The mock backends' cache: only the handle's first reads of its chunks touch
		 * storage, and that time is fetch time. */
		double t0 = tsr_now();
		st = store->be->prepare(array, prep->plan.tasks, prep->plan.ntasks, prep->plan.stride);
		r->t_fetch += tsr_now() - t0;
	}
	struct tsr_plan_descs *descs = prep->descs;
	prep->descs = NULL; /* (the engine's now) */
	if (!st && on_device)
		st = tsr_cuda_run(array, &prep->plan, ns, out, cuda_stream, prep->nthreads,
				  prep->decoder, store, batch, prep->device, descs, prep->laid,
				  &prep->stop, r);
	else {
		tsr_plan_descs_free(descs);
		if (!st)
			st = tsr_cpu_run(array, &prep->plan, ns, out, prep->nthreads, store->be,
					 &prep->stop, r);
	}
	r->bytes_out = st ? 0 : (uint64_t)ns->out_count * tsr_dtype_size(array->desc.dtype);
	r->t_total = tsr_now() - t_start;
	return st;
}

static int tsr_read_impl(struct tsr_array *array, const struct tsr_norm_sel *ns, void *out,
			 void *cuda_stream, int on_device, int batch,
			 const struct tsr_read_options *opts, struct tsr_receipt *r, double t_start)
{
	struct tsr_read_prep prep;
	int st = tsr_read_prepare(array, ns, on_device, opts, &prep);
	if (st == TSR_OK) {
		r->t_plan = tsr_now() - t_start;
		st = tsr_read_execute(array, ns, out, cuda_stream, on_device, batch, &prep, r,
				      t_start);
	}
	tsr_read_prep_free(&prep);
	return st;
}

/* A read's arguments checked before its selection, as every call checks its options first:
 * the receipt's size and the read options (loaded again where the read uses them). */
static int tsr_read_args(const char *what, const struct tsr_read_options *opts,
			 const struct tsr_receipt *receipt)
{
	struct tsr_read_options o;
	if (receipt && receipt->struct_size < TSR_RECEIPT_MIN_NBYTES)
		return tsr_error(TSR_E_INVALID_ARG, "%s: receipt struct_size too small", what);
	int st = tsr_read_options_load(&o, opts);
	if (st)
		tsr_error_prefix("%s: ", what);
	return st;
}

int tsr_read(struct tsr_array *array, const struct tsr_selection *sel, const struct tsr_buffer *dst,
	     const struct tsr_read_options *opts, struct tsr_receipt *receipt_ret)
{
	return tsr_read_ex(array, sel, dst, opts, receipt_ret, 0);
}

int tsr_read_ex(struct tsr_array *array, const struct tsr_selection *sel,
		const struct tsr_buffer *dst, const struct tsr_read_options *opts,
		struct tsr_receipt *receipt_ret, int batch)
{
	double t0 = tsr_now();
	if (!array || !dst)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_read: NULL array or destination");
	int st = tsr_read_args("tsr_read", opts, receipt_ret);
	if (st)
		return st;
	struct tsr_norm_sel ns;
	if ((st = tsr_array_sel_norm(array, sel, &ns)))
		return st;
	return tsr_read_norm(array, &ns, dst, opts, receipt_ret, batch, t0);
}

int tsr_read_room(const struct tsr_array *array, const struct tsr_norm_sel *ns,
		  const struct tsr_buffer *dst)
{
	size_t need = (size_t)ns->out_count * tsr_dtype_size(array->desc.dtype);
	if ((unsigned)dst->mem > TSR_MEM_CUDA)
		return tsr_error(TSR_E_INVALID_ARG, "%s: destination memory %d is none of "
				 "TSR_MEM_HOST, TSR_MEM_HOST_PINNED, TSR_MEM_CUDA",
				 array->path, (int)dst->mem);
	if (need && !dst->data)
		return tsr_error(TSR_E_TOO_SMALL, "%s: the selection needs %zu bytes, the buffer's "
				 "data is NULL", array->path, need);
	if (dst->nbytes < need)
		return tsr_error(TSR_E_TOO_SMALL, "%s: the selection needs %zu bytes, the buffer has %zu",
				 array->path, need, dst->nbytes);
	size_t align = tsr_dtype_align(array->desc.dtype);
	if (need && (uintptr_t)dst->data % align)
		return tsr_error(TSR_E_INVALID_ARG, "%s: the buffer's data (%p) is not aligned to "
				 "%zu bytes, as %s values need", array->path, dst->data, align,
				 tsr_dtype_name(array->desc.dtype));
	return TSR_OK;
}

int tsr_read_norm(struct tsr_array *array, const struct tsr_norm_sel *ns,
		  const struct tsr_buffer *dst, const struct tsr_read_options *opts,
		  struct tsr_receipt *receipt_ret, int batch, double t0)
{
	int st = tsr_read_room(array, ns, dst);
	if (st)
		return st;
	struct tsr_receipt r;
	tsr_receipt_init(array, &r);
	st = tsr_read_impl(array, ns, dst->data, dst->cuda_stream, dst->mem == TSR_MEM_CUDA, batch,
			   opts, &r, t0);
	if (receipt_ret)
		tsr_receipt_store(receipt_ret, &r);
	return st;
}

/* The read into a buffer of its own, for a normalised selection (basic or of points): the
 * allocation, the read, the receipt and the shape, shared by tsr_read_alloc and
 * tsr_read_index_alloc. */
static int tsr_read_alloc_norm(struct tsr_array *array, const struct tsr_norm_sel *ns,
			       const struct tsr_read_options *opts, double t0, void **data_ret,
			       size_t *nbytes_ret, int *ndim_ret, int64_t shape_ret[TSR_MAX_DIM],
			       struct tsr_receipt *receipt_ret)
{
	size_t need = (size_t)ns->out_count * tsr_dtype_size(array->desc.dtype);
	void *buf = tsr_alloc_big(need);
	if (!buf)
		return tsr_error(TSR_E_NOMEM, "%s: cannot allocate %zu bytes", array->path, need);
	/* the fresh buffer's pages faulted in by the read's threads, each page by one */
	tsr_big_populate(buf, need, array->ctx->pool, tsr_read_nthreads(array, opts));
	struct tsr_receipt r;
	tsr_receipt_init(array, &r);
	int st = tsr_read_impl(array, ns, buf, NULL, 0, 0, opts, &r, t0);
	if (receipt_ret)
		tsr_receipt_store(receipt_ret, &r);
	if (st) {
		free(buf);
		return st;
	}
	*data_ret = buf;
	*nbytes_ret = need;
	*ndim_ret = ns->out_ndim;
	for (int i = 0; i < ns->out_ndim; i++)
		shape_ret[i] = ns->out_shape[i];
	return TSR_OK;
}

int tsr_read_alloc(struct tsr_array *array, const struct tsr_selection *sel,
		   const struct tsr_read_options *opts, void **data_ret, size_t *nbytes_ret,
		   int *ndim_ret, int64_t shape_ret[TSR_MAX_DIM], struct tsr_receipt *receipt_ret)
{
	double t0 = tsr_now();
	if (!array || !data_ret || !nbytes_ret || !ndim_ret || !shape_ret)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_read_alloc: NULL argument");
	int st = tsr_read_args("tsr_read_alloc", opts, receipt_ret);
	if (st)
		return st;
	*data_ret = NULL;
	*nbytes_ret = 0;
	struct tsr_norm_sel ns;
	if ((st = tsr_array_sel_norm(array, sel, &ns)))
		return st;
	return tsr_read_alloc_norm(array, &ns, opts, t0, data_ret, nbytes_ret, ndim_ret, shape_ret,
				   receipt_ret);
}

void tsr_free(void *p)
{
	free(p);
}

/* ---- advanced selections (tsr_index) ---- */

static int tsr_index_norm(const struct tsr_array *array, const struct tsr_index *index,
			  struct tsr_norm_sel *ns)
{
	return tsr_array_named(array, tsr_index_normalize(index, array->desc.ndim,
							  array->desc.shape, ns));
}

int tsr_index_shape(const struct tsr_array *array, const struct tsr_index *index, int *ndim_ret,
		    int64_t shape_ret[TSR_MAX_DIM])
{
	if (!array || !ndim_ret || !shape_ret)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_index_shape: NULL argument");
	struct tsr_norm_sel ns;
	int st = tsr_index_norm(array, index, &ns);
	if (st)
		return st;
	*ndim_ret = ns.out_ndim;
	for (int i = 0; i < ns.out_ndim; i++)
		shape_ret[i] = ns.out_shape[i];
	tsr_norm_sel_free(&ns);
	return TSR_OK;
}

int tsr_read_index(struct tsr_array *array, const struct tsr_index *index,
		   const struct tsr_buffer *dst, const struct tsr_read_options *opts,
		   struct tsr_receipt *receipt_ret)
{
	double t0 = tsr_now();
	if (!array || !dst)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_read_index: NULL array or destination");
	int st = tsr_read_args("tsr_read_index", opts, receipt_ret);
	if (st)
		return st;
	struct tsr_norm_sel ns;
	if ((st = tsr_index_norm(array, index, &ns)))
		return st;
	if ((st = tsr_read_room(array, &ns, dst))) {
		tsr_norm_sel_free(&ns);
		return st;
	}
	struct tsr_receipt r;
	tsr_receipt_init(array, &r);
	/* (on the CUDA engine the place kernel gathers the points from the chunks it decoded) */
	st = tsr_read_impl(array, &ns, dst->data, dst->cuda_stream, dst->mem == TSR_MEM_CUDA, 0,
			   opts, &r, t0);
	tsr_norm_sel_free(&ns);
	if (receipt_ret)
		tsr_receipt_store(receipt_ret, &r);
	return st;
}

int tsr_read_index_alloc(struct tsr_array *array, const struct tsr_index *index,
			 const struct tsr_read_options *opts, void **data_ret, size_t *nbytes_ret,
			 int *ndim_ret, int64_t shape_ret[TSR_MAX_DIM],
			 struct tsr_receipt *receipt_ret)
{
	double t0 = tsr_now();
	if (!array || !data_ret || !nbytes_ret || !ndim_ret || !shape_ret)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_read_index_alloc: NULL argument");
	int st = tsr_read_args("tsr_read_index_alloc", opts, receipt_ret);
	if (st)
		return st;
	*data_ret = NULL;
	*nbytes_ret = 0;
	struct tsr_norm_sel ns;
	if ((st = tsr_index_norm(array, index, &ns)))
		return st;
	st = tsr_read_alloc_norm(array, &ns, opts, t0, data_ret, nbytes_ret, ndim_ret, shape_ret,
				 receipt_ret);
	tsr_norm_sel_free(&ns);
	return st;
}
