/* devices.c - reads split over several CUDA devices: each device's share of the files, or its slab of an array, on a thread of its own. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

int tsr_device_share(size_t n, int nparts, int part, size_t *first_ret, size_t *count_ret)
{
	if (!first_ret || !count_ret)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_device_share: NULL argument");
	if (nparts < 1 || part < 0 || part >= nparts)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_device_share: part %d of %d", part, nparts);
	/* the first n % nparts parts get one more */
	size_t q = n / (size_t)nparts, rem = n % (size_t)nparts, p = (size_t)part;
	*first_ret = p * q + (p < rem ? p : rem);
	*count_ret = q + (p < rem);
	return TSR_OK;
}

/* One device's share of a split read. */
struct tsr_share {
	int part, device;
	struct tsr_read_options opts;   /* the caller's, with this device alone */
	/* a batch share: its files; a slab: the slab's selection */
	struct tsr_context *ctx;
	const char *const *paths;
	size_t npaths;
	const struct tsr_open_options *open_opts;
	const struct tsr_selection *sel;
	struct tsr_array *array;
	struct tsr_norm_sel ns;
	const struct tsr_buffer *dst;
	int slab;
	double t0;
	struct tsr_receipt r;
	int status, ran;
	char msg[1024];
	pthread_t thread;
	int started;
};

static void *tsr_share_run(void *arg)
{
	struct tsr_share *sh = arg;
	sh->ran = 1;
	if (sh->slab)
		sh->status = tsr_read_norm(sh->array, &sh->ns, sh->dst, &sh->opts, &sh->r,
					   TSR_BATCH_SHARE, sh->t0);
	else
		sh->status = tsr_read_batch_ex(sh->ctx, sh->paths, sh->npaths, sh->open_opts, sh->sel,
					       sh->dst, &sh->opts, &sh->r, TSR_BATCH_SHARE);
	if (sh->status)
		snprintf(sh->msg, sizeof(sh->msg), "%s", tsr_errmsg()); /* (messages are per thread) */
	return NULL;
}

/* The devices of a split read's options, checked: at least one, none < 0. A device listed
 * twice takes both shares, in turn (its reads through one context are serialised); on one GPU
 * that runs every step of a split read (tests/gpu/test_gpu_devices.c). */
static int tsr_split_devices(const struct tsr_read_options *opts, const char *what,
			     const int **devices_ret, int *n_ret)
{
	struct tsr_read_options o;
	int st = tsr_read_options_load(&o, opts);
	if (st)
		return st;
	const int *devices = o.devices;
	int n = o.ndevices;
	if (n < 1 || !devices)
		return tsr_error(TSR_E_INVALID_ARG, "%s: the read options name no CUDA devices "
				 "(devices, ndevices)", what);
	for (int j = 0; j < n; j++) {
		if (devices[j] < 0)
			return tsr_error(TSR_E_INVALID_ARG, "%s: CUDA device %d < 0", what, devices[j]);
	}
	*devices_ret = devices;
	*n_ret = n;
	return TSR_OK;
}

/* Adds one share's receipt to the sum (the first share's is the start). */
static void tsr_receipt_add(struct tsr_receipt *sum, const struct tsr_receipt *r, int first)
{
	if (first) {
		*sum = *r;
		return;
	}
	sum->chunks_total += r->chunks_total;
	sum->chunks_read += r->chunks_read;
	sum->bytes_read += r->bytes_read;
	sum->bytes_decoded += r->bytes_decoded;
	sum->bytes_out += r->bytes_out;
	sum->t_plan += r->t_plan;
	sum->t_fetch += r->t_fetch;
	sum->t_decode += r->t_decode;
	sum->t_place += r->t_place;
	sum->t_wait += r->t_wait;
	sum->nthreads += r->nthreads;
	if (!sum->fallback[0])
		memcpy(sum->fallback, r->fallback, sizeof(sum->fallback));
	if (!sum->decoder[0])
		memcpy(sum->decoder, r->decoder, sizeof(sum->decoder));
}

/* Runs the shares (share 0 on the calling thread, the others on threads of their own), then
 * sums their receipts; the first failing share's status, its message naming the device. */
static int tsr_shares_run(struct tsr_share *sh, int n, double t0, struct tsr_receipt *receipt_ret)
{
	for (int j = 1; j < n; j++) {
		if (pthread_create(&sh[j].thread, NULL, tsr_share_run, &sh[j]) == 0) {
			sh[j].started = 1;
		} else {
			sh[j].status = TSR_E_NOMEM;
			snprintf(sh[j].msg, sizeof(sh[j].msg), "cannot start a thread");
		}
	}
	tsr_share_run(&sh[0]);
	for (int j = 1; j < n; j++)
		if (sh[j].started)
			pthread_join(sh[j].thread, NULL);
	struct tsr_receipt sum = {.struct_size = sizeof(sum)};
	int st = TSR_OK, first = 1;
	for (int j = 0; j < n; j++) {
		if (sh[j].status && st == TSR_OK) {
			st = sh[j].status;
			tsr_error(st, "CUDA device %d: %s", sh[j].device, sh[j].msg);
		}
		if (sh[j].ran) {
			tsr_receipt_add(&sum, &sh[j].r, first);
			first = 0;
		}
	}
	sum.struct_size = sizeof(sum);
	sum.t_total = tsr_now() - t0;
	if (receipt_ret)
		tsr_receipt_store(receipt_ret, &sum);
	return st;
}

/* The shares of a split read: the caller's options with one device each and its share of the
 * threads. */
static struct tsr_share *tsr_shares_make(struct tsr_context *ctx,
					 const struct tsr_read_options *opts, const int *devices,
					 int n)
{
	struct tsr_share *sh = calloc((size_t)n, sizeof(*sh));
	if (!sh) {
		tsr_error(TSR_E_NOMEM, "out of memory");
		return NULL;
	}
	struct tsr_read_options in;
	(void)tsr_read_options_load(&in, opts); /* (tsr_split_devices loaded them first) */
	int nthreads = ctx->nthreads, want = in.nthreads;
	if (want > 0 && want < nthreads)
		nthreads = want;
	int each = nthreads / n > 0 ? nthreads / n : 1;
	for (int j = 0; j < n; j++) {
		struct tsr_read_options *o = &sh[j].opts;
		o->struct_size = sizeof(*o);
		o->nthreads = each;
		o->decoder = in.decoder;
		o->storage = in.storage;
		o->devices = &devices[j];
		o->ndevices = 1;
		sh[j].part = j;
		sh[j].device = devices[j];
		sh[j].ctx = ctx;
		sh[j].r.struct_size = sizeof(sh[j].r);
	}
	return sh;
}

/* The caller's options with device alone (a split that has one device's work only). */
static void tsr_one_device(const struct tsr_read_options *opts, const int *device,
			   struct tsr_read_options *one)
{
	struct tsr_read_options in;
	(void)tsr_read_options_load(&in, opts); /* (tsr_split_devices loaded them first) */
	memset(one, 0, sizeof(*one));
	one->struct_size = sizeof(*one);
	one->nthreads = in.nthreads;
	one->decoder = in.decoder;
	one->storage = in.storage;
	one->devices = device;
	one->ndevices = 1;
}

/* The first files of the shares after the first give the first file's shape and dtype (each
 * share checks its own files against its first): TSR_E_FORMAT naming the file otherwise. */
static int tsr_shares_alike(struct tsr_context *ctx, const char *const *paths,
			    const struct tsr_open_options *open_opts,
			    const struct tsr_selection *sel, const struct tsr_share *sh, int m)
{
	int ndim0 = 0, st = TSR_OK;
	int64_t shape0[TSR_MAX_DIM];
	enum tsr_dtype dtype0 = TSR_DTYPE_INVALID;
	for (int j = 0; j < m && st == TSR_OK; j++) {
		const char *path = j ? sh[j].paths[0] : paths[0];
		struct tsr_array *a = NULL;
		int ndim;
		int64_t shape[TSR_MAX_DIM];
		if ((st = tsr_open(ctx, path, open_opts, &a)) ||
		    (st = tsr_array_sel_shape(a, sel, &ndim, shape))) {
			tsr_array_free(a);
			break;
		}
		if (j == 0) {
			ndim0 = ndim;
			memcpy(shape0, shape, sizeof(shape));
			dtype0 = a->desc.dtype;
		} else {
			st = tsr_batch_alike(path, ndim, shape, a->desc.dtype, paths[0], ndim0, shape0,
					     dtype0);
		}
		tsr_array_free(a);
	}
	return st;
}

/* Every device of a split with a device destination exists (TSR_E_NO_DEVICE naming the first
 * that does not). A host destination's share reads on the CPU, on its own thread, whatever
 * its device: so the split's steps run, and are tested, on machines without a GPU. */
static int tsr_split_check(const int *devices, int n, const struct tsr_buffer *dsts,
			   const char *what)
{
	int ndev = 0, cst = TSR_OK, counted = 0;
	for (int j = 0; j < n; j++) {
		if (dsts[j].mem != TSR_MEM_CUDA)
			continue;
		if (!counted++)
			cst = tsr_cuda_device_count(&ndev);
		if (devices[j] >= ndev) {
			char why[512] = "";
			if (cst)
				snprintf(why, sizeof(why), ": %s", tsr_errmsg());
			return tsr_error(TSR_E_NO_DEVICE, "%s: CUDA device %d does not exist: %d CUDA "
					 "device%s here%s", what, devices[j], ndev, ndev == 1 ? "" : "s",
					 why);
		}
	}
	return TSR_OK;
}

int tsr_read_batch_devices(struct tsr_context *ctx, const char *const *paths, size_t npaths,
			   const struct tsr_open_options *open_opts, const struct tsr_selection *sel,
			   const struct tsr_buffer *dsts, const struct tsr_read_options *opts,
			   struct tsr_receipt *receipt_ret)
{
	double t0 = tsr_now();
	const char *what = "tsr_read_batch_devices";
	if (!ctx || !paths || !dsts)
		return tsr_error(TSR_E_INVALID_ARG, "%s: NULL argument", what);
	if (receipt_ret && receipt_ret->struct_size < TSR_RECEIPT_MIN_NBYTES)
		return tsr_error(TSR_E_INVALID_ARG, "%s: receipt struct_size too small", what);
	const int *devices = NULL;
	int n = 0;
	struct tsr_open_options oo; /* (checked before any file opens, as tsr_read_batch does) */
	int st = tsr_open_options_load(&oo, open_opts, what);
	if (st == TSR_OK)
		st = tsr_split_devices(opts, what, &devices, &n);
	if (st == TSR_OK)
		st = tsr_split_check(devices, n, dsts, what);
	if (st)
		return st;
	if (n == 1) /* one device: its own batch read, as it is */
		return tsr_read_batch(ctx, paths, npaths, open_opts, sel, dsts, opts, receipt_ret);
	struct tsr_share *sh = tsr_shares_make(ctx, opts, devices, n);
	if (!sh)
		return TSR_E_NOMEM;
	int m = 0; /* shares with files, packed first */
	for (int j = 0; j < n; j++) {
		size_t first, count;
		tsr_device_share(npaths, n, j, &first, &count);
		if (!count)
			continue;
		sh[m] = sh[j];
		sh[m].opts.devices = &devices[j];
		sh[m].paths = paths + first;
		sh[m].npaths = count;
		sh[m].open_opts = open_opts;
		sh[m].sel = sel;
		sh[m].dst = &dsts[j];
		m++;
	}
	st = m > 1 ? tsr_shares_alike(ctx, paths, open_opts, sel, sh, m) : TSR_OK;
	if (st == TSR_OK && m)
		st = tsr_shares_run(sh, m, t0, receipt_ret);
	free(sh);
	return st;
}

/* The slab boundaries of a normalised selection along array axis `ax` (kept): k[j], k[j + 1]
 * are slab j's first and end rows of the result; cut at chunk boundaries, even in chunks. */
static void tsr_slab_bounds(const struct tsr_desc *d, const struct tsr_dim_sel *s, int ax,
			    int nparts, int64_t *k)
{
	const int64_t c = d->chunk_shape[ax] > 0 ? d->chunk_shape[ax] : 1;
	k[0] = 0;
	k[nparts] = s->count;
	if (s->count <= 0) {
		for (int j = 1; j < nparts; j++)
			k[j] = 0;
		return;
	}
	const int64_t last = s->start + (s->count - 1) * s->step;
	const int64_t ca = s->start / c, cb = last / c;
	const int64_t nc = (ca > cb ? ca - cb : cb - ca) + 1;
	for (int j = 1; j < nparts; j++) {
		int64_t off = nc * j / nparts, kj;
		if (s->step > 0) {
			int64_t b = (ca + off) * c; /* the slab's first array index */
			kj = b <= s->start ? 0 : (b - s->start + s->step - 1) / s->step;
		} else {
			int64_t top = (ca - off + 1) * c - 1; /* its highest array index */
			kj = top >= s->start ? 0 : (s->start - top + (-s->step) - 1) / (-s->step);
		}
		kj = kj < k[j - 1] ? k[j - 1] : kj > s->count ? s->count : kj;
		k[j] = kj;
	}
}

/* The first array axis the selection keeps (-1: none), and its axis in the result: the first
 * of the result's size (the result's axes before it are None axes, of size 1). */
static void tsr_slab_axis(const struct tsr_norm_sel *ns, int *ax_ret, int *out_ret)
{
	*ax_ret = *out_ret = -1;
	for (int i = 0; i < ns->ndim; i++)
		if (ns->dim[i].keep) {
			*ax_ret = i;
			break;
		}
	if (*ax_ret < 0)
		return;
	for (int o = 0; o < ns->out_ndim; o++)
		if (ns->out_shape[o] == ns->dim[*ax_ret].count) {
			*out_ret = o;
			return;
		}
	*ax_ret = -1; /* (cannot happen: the axis is in the result) */
}

int tsr_read_slabs(const struct tsr_array *array, const struct tsr_selection *sel, int nparts,
		   int *axis_ret, int64_t *first_ret, int64_t *count_ret)
{
	if (!array || !axis_ret || !first_ret || !count_ret)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_read_slabs: NULL argument");
	if (nparts < 1 || nparts > 4096)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_read_slabs: %d parts", nparts);
	struct tsr_norm_sel ns;
	int st = tsr_array_sel_norm(array, sel, &ns);
	if (st)
		return st;
	int ax, out;
	tsr_slab_axis(&ns, &ax, &out);
	*axis_ret = out;
	if (ax < 0) {
		for (int j = 0; j < nparts; j++)
			first_ret[j] = 0, count_ret[j] = j == 0;
		return TSR_OK;
	}
	int64_t *k = malloc(((size_t)nparts + 1) * sizeof(*k));
	if (!k)
		return tsr_error(TSR_E_NOMEM, "out of memory");
	tsr_slab_bounds(&array->desc, &ns.dim[ax], ax, nparts, k);
	for (int j = 0; j < nparts; j++) {
		first_ret[j] = k[j];
		count_ret[j] = k[j + 1] - k[j];
	}
	free(k);
	return TSR_OK;
}

int tsr_read_devices(struct tsr_array *array, const struct tsr_selection *sel,
		     const struct tsr_buffer *dsts, const struct tsr_read_options *opts,
		     struct tsr_receipt *receipt_ret)
{
	double t0 = tsr_now();
	const char *what = "tsr_read_devices";
	if (!array || !dsts)
		return tsr_error(TSR_E_INVALID_ARG, "%s: NULL argument", what);
	if (receipt_ret && receipt_ret->struct_size < TSR_RECEIPT_MIN_NBYTES)
		return tsr_error(TSR_E_INVALID_ARG, "%s: receipt struct_size too small", what);
	const int *devices = NULL;
	int n = 0;
	int st = tsr_split_devices(opts, what, &devices, &n);
	if (st == TSR_OK)
		st = tsr_split_check(devices, n, dsts, array->path);
	if (st)
		return st;
	if (n == 1) /* one device: its own read, as it is */
		return tsr_read(array, sel, dsts, opts, receipt_ret);
	struct tsr_read_options in;
	(void)tsr_read_options_load(&in, opts); /* (tsr_split_devices loaded them) */
	if (in.storage == TSR_STORAGE_MOCK_DEVICE)
		return tsr_error(TSR_E_UNSUPPORTED, "%s: mock-device storage keeps one device cache "
				 "a handle: it replays on one device", array->path);
	struct tsr_norm_sel ns;
	if ((st = tsr_array_sel_norm(array, sel, &ns)))
		return st;
	int ax, out;
	tsr_slab_axis(&ns, &ax, &out);
	struct tsr_read_options first;
	tsr_one_device(opts, &devices[0], &first);
	if (ax < 0) /* nothing to cut: the first device reads it all */
		return tsr_read_norm(array, &ns, &dsts[0], &first, receipt_ret, 0, t0);
	int64_t *k = malloc(((size_t)n + 1) * sizeof(*k));
	struct tsr_share *sh = k ? tsr_shares_make(array->ctx, opts, devices, n) : NULL;
	if (!sh) {
		free(k);
		return tsr_error(TSR_E_NOMEM, "out of memory");
	}
	tsr_slab_bounds(&array->desc, &ns.dim[ax], ax, n, k);
	const int64_t rows = ns.dim[ax].count, per_row = rows ? ns.out_count / rows : 0;
	int m = 0;
	for (int j = 0; j < n; j++) {
		int64_t cnt = k[j + 1] - k[j];
		if (cnt <= 0)
			continue; /* an empty slab: its device has nothing to do */
		sh[m] = sh[j];
		sh[m].opts.devices = &devices[j];
		sh[m].slab = 1;
		sh[m].array = array;
		sh[m].ns = ns;
		sh[m].ns.dim[ax].start = ns.dim[ax].start + k[j] * ns.dim[ax].step;
		sh[m].ns.dim[ax].count = cnt;
		sh[m].ns.out_shape[out] = cnt;
		sh[m].ns.out_count = per_row * cnt;
		sh[m].dst = &dsts[j];
		sh[m].t0 = t0;
		m++;
	}
	st = m ? tsr_shares_run(sh, m, t0, receipt_ret)
	       : tsr_read_norm(array, &ns, &dsts[0], &first, receipt_ret, 0, t0);
	free(sh);
	free(k);
	return st;
}
