/* batch.c - batch reads: the same array of many files stacked into one (N, ...) output. */
#include <stdio.h>
#include <string.h>

#include "engine.h"

int tsr_batch_alike(const char *path, int ndim, const int64_t *shape, enum tsr_dtype dtype,
		    const char *path0, int ndim0, const int64_t *shape0, enum tsr_dtype dtype0)
{
	if (ndim == ndim0 && !memcmp(shape, shape0, (size_t)ndim * sizeof(int64_t)) &&
	    dtype == dtype0)
		return TSR_OK;
	char a[256], b[256];
	tsr_shape_text(a, sizeof(a), ndim, shape);
	tsr_shape_text(b, sizeof(b), ndim0, shape0);
	return tsr_error(TSR_E_FORMAT, "%s: its selection is %s %s, where the batch's first file's "
			 "(%s) is %s %s", path, a, tsr_dtype_name(dtype), path0, b,
			 tsr_dtype_name(dtype0));
}

int tsr_read_batch(struct tsr_context *ctx, const char *const *paths, size_t npaths,
		   const struct tsr_open_options *open_opts, const struct tsr_selection *sel,
		   const struct tsr_buffer *dst, const struct tsr_read_options *opts,
		   struct tsr_receipt *receipt_ret)
{
	return tsr_read_batch_ex(ctx, paths, npaths, open_opts, sel, dst, opts, receipt_ret, 0);
}

int tsr_read_batch_ex(struct tsr_context *ctx, const char *const *paths, size_t npaths,
		      const struct tsr_open_options *open_opts, const struct tsr_selection *sel,
		      const struct tsr_buffer *dst, const struct tsr_read_options *opts,
		      struct tsr_receipt *receipt_ret, int flags)
{
	double t0 = tsr_now();
	if (!ctx || !paths || !dst)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_read_batch: NULL argument");
	if (receipt_ret && receipt_ret->struct_size < TSR_RECEIPT_MIN_NBYTES)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_read_batch: receipt struct_size too small");
	/* Both options structs are checked before any file opens (and with no files at all). */
	struct tsr_open_options oo;
	struct tsr_read_options ro;
	int st1 = tsr_open_options_load(&oo, open_opts, "tsr_read_batch");
	if (st1 == TSR_OK)
		st1 = tsr_read_options_load(&ro, opts);
	if (st1)
		return st1;
	for (size_t i = 0; i < npaths; i++)
		if (!paths[i])
			return tsr_error(TSR_E_INVALID_ARG, "tsr_read_batch: paths[%zu] is NULL", i);
	int device = -1;
	if (dst->mem == TSR_MEM_CUDA) {
		int st0 = tsr_read_device(ctx, opts, "tsr_read_batch", &device);
		if (st0)
			return st0;
	}
	struct tsr_receipt sum = {.struct_size = sizeof(sum)};
	int ndim0 = 0;
	int64_t shape0[TSR_MAX_DIM];
	enum tsr_dtype dtype0 = TSR_DTYPE_INVALID;
	size_t per = 0;
	int st = TSR_OK;
	/* Into device memory, each file's opening, planning and describing is done ahead, on
	 * threads of its own, while the file before goes to the GPU (ahead.c): on the H200 they
	 * were about half of a RICE_1 batch's own thread's work. A device's share of a split read
	 * reads with its device's pool as it is. */
	struct tsr_ahead *ahead = dst->mem == TSR_MEM_CUDA && !(flags & TSR_BATCH_SHARE)
					  ? tsr_ahead_start(ctx, paths, npaths, open_opts, sel, opts,
							    tsr_read_threads(ctx, &ro))
					  : NULL;
	for (size_t i = 0; i < npaths && st == TSR_OK; i++) {
		struct tsr_array *a = NULL;
		struct tsr_ahead_file *af = NULL;
		int ndim;
		int64_t shape[TSR_MAX_DIM];
		if (ahead) {
			/* (the look-ahead's files stay its own: it frees them) */
			if ((st = tsr_ahead_take(ahead, i, &af, &a, &ndim, shape)))
				break;
		} else {
			if ((st = tsr_open(ctx, paths[i], open_opts, &a)))
				break;
			if ((st = tsr_array_sel_shape(a, sel, &ndim, shape))) {
				tsr_array_free(a);
				break;
			}
		}
		if (i == 0) {
			ndim0 = ndim;
			memcpy(shape0, shape, sizeof(shape));
			dtype0 = a->desc.dtype;
			per = tsr_dtype_size(dtype0);
			for (int d = 0; d < ndim; d++)
				per *= (size_t)shape[d];
			if (dst->nbytes / (npaths ? npaths : 1) < per) {
				st = tsr_error(TSR_E_TOO_SMALL, "%s: a batch of %zu files of %zu bytes "
					       "(as this first file's selection) needs %zu bytes, the "
					       "buffer has %zu", paths[0], npaths, per,
					       npaths * per, dst->nbytes);
				if (!ahead)
					tsr_array_free(a);
				break;
			}
		} else if ((st = tsr_batch_alike(paths[i], ndim, shape, a->desc.dtype, paths[0], ndim0,
						 shape0, dtype0))) {
			if (!ahead)
				tsr_array_free(a);
			break;
		}
		struct tsr_buffer one = *dst;
		one.data = (unsigned char *)dst->data + i * per;
		one.nbytes = per;
		struct tsr_receipt r = {.struct_size = sizeof(r)};
		/* Into device memory, every file but the last defers: the CUDA engine fills its
		 * staging slots on with the next file's chunks (the GPU then decodes thousands of
		 * tiles a launch, not one file's few large ones) and the last read sends the rest,
		 * waits and judges every file's results. Each read has fetched what it needs from
		 * its file before it returns, so the file can close. */
		const int how = (i + 1 < npaths ? TSR_BATCH_DEFER : 0) |
				(npaths > 1 ? TSR_BATCH_MEMBER : 0) | (flags & TSR_BATCH_SHARE);
		if (ahead) {
			st = tsr_ahead_read(af, &one, &r, how);
		} else {
			st = tsr_read_ex(a, sel, &one, opts, &r, how);
			tsr_array_free(a);
		}
		if (i == 0)
			sum = r;
		else {
			sum.chunks_total += r.chunks_total;
			sum.chunks_read += r.chunks_read;
			sum.bytes_read += r.bytes_read;
			sum.bytes_decoded += r.bytes_decoded;
			sum.bytes_out += r.bytes_out;
			sum.t_plan += r.t_plan;
			sum.t_fetch += r.t_fetch;
			sum.t_decode += r.t_decode;
			sum.t_place += r.t_place;
			sum.t_wait += r.t_wait;
			if (!sum.fallback[0])
				memcpy(sum.fallback, r.fallback, sizeof(sum.fallback));
			if (!sum.decoder[0])
				memcpy(sum.decoder, r.decoder, sizeof(sum.decoder));
		}
	}
	tsr_ahead_free(ahead);
	/* A batch that stopped early may leave earlier files' GPU work in flight, and their chunks
	 * staged but not sent (their reads deferred to the last file): wait for the one and drop
	 * the other before the caller sees the error. */
	if (st != TSR_OK && dst->mem == TSR_MEM_CUDA) {
		int owner = -1; /* (no device named: the reads ran on the destination's) */
		if (device < 0 && tsr_cuda_pointer_device(dst->data, &owner) == TSR_OK && owner >= 0)
			device = owner;
		tsr_cuda_quiesce(ctx, device);
	}
	sum.t_total = tsr_now() - t0;
	if (receipt_ret)
		tsr_receipt_store(receipt_ret, &sum);
	return st;
}
