/* cuda_layout.c - the CUDA engine's host-side layout of a read: each task's route and staging,
 * slots filled in order, place descriptions, stream arguments and stored reads. Plain C with no
 * CUDA types, built in every build, so benches and tests run it without a device. */
#include <stdlib.h>
#include <string.h>

#include "cuda_layout.h"
#include "gather.h"

/* The rule of a slot's stored reads (src/io/storage.h): chunks back to back in the file and in
 * the slot (FITS tiles in the heap) are one read of up to 4 MiB; chunks larger than a piece are
 * read in pieces by all the pool's threads. */
const struct tsr_coalesce_rule tsr_cuda_slot_rule = {
	.start_max = TSR_PIECE_NBYTES, .join_max = TSR_PIECE_NBYTES,
	.run_max = (uint64_t)4 << 20, .piece = TSR_PIECE_NBYTES};

/* The feed's rule of reads: tasks back to back in the same file and in the slot (FITS tiles in
 * the heap) become one read of up to a bounce buffer; a large chunk is read in pieces of one, so
 * that all threads share it. */
const struct tsr_coalesce_rule tsr_cuda_feed_rule = {
	.start_max = TSR_PIECE_NBYTES, .join_max = UINT64_MAX, .run_max = TSR_BOUNCE_NBYTES,
	.piece = TSR_BOUNCE_NBYTES};

int tsr_cuda_layout(const struct tsr_array *array, const struct tsr_plan *plan,
		    const struct tsr_backend *be, const struct tsr_route_device *rdev, int decoder,
		    int batch, int nthreads, struct tsr_cuda_task *tasks, struct tsr_cuda_layout *L)
{
	const struct tsr_desc *d = &array->desc;
	memset(L, 0, sizeof(*L));
	uint64_t max_stream = 0;
	struct tsr_plan_descs *descs = NULL; /* every chunk's settled description */
	/* settled: a chunk file's size lays out the slot (the mock backends' refs were settled by
	 * their real fetch) */
	int st = tsr_plan_describe(plan, array, be, 1, &descs);
	for (int64_t t = 0; t < plan->ntasks && st == TSR_OK; t++) {
		struct tsr_cuda_task *ct = &tasks[t];
		struct tsr_chunk_ref *ref = &ct->ref;
		ct->t = t;
		ct->how = TSR_HOW_CPU;
		ct->kind = -1;
		ct->alt_width = 0;
		ct->slot_offset = ct->dec_cap = ct->dec_offset = 0;
		ct->stream = -1;
		tsr_task_desc(descs, t, ref);
		ct->plane_block = 0;
		ct->bf_stage = 0;
		ct->blosc = 0;
		ct->blosc_codec = -1;
		struct tsr_route rt;
		tsr_route_chunk(ref, rdev, &rt);
		ct->how = rt.how;
		ct->kind = rt.kind;
		ct->why = rt.why;
		if (rt.how == TSR_HOW_RAW) {
			L->n_raw++;
		} else if (rt.how == TSR_HOW_BLOSC) {
			ct->blosc = 1; /* (counted for the receipt once its header is read) */
			L->n_blosc++;
		} else if (rt.how == TSR_HOW_STREAM) {
			size_t w = tsr_dtype_size(ref->codec.elem);
			/* Scaled integer FITS tiles may hold another width (CFITSIO decides by
			 * the size): room for the widest, as the CPU chain has. */
			ct->alt_width = ref->codec.elem_from_size && !tsr_dtype_is_float(ref->codec.elem) &&
					(ref->xform.kind == TSR_XF_SCALE || ref->xform.kind == TSR_XF_DEQUANT);
			L->n_dequant += ref->xform.kind == TSR_XF_DEQUANT;
			L->gpu_decoded += (uint64_t)ref->npix * w;
			uint64_t slow = (uint64_t)ref->npix * w * tsr_route_warp_factor(rt.kind);
			max_stream = slow > max_stream ? slow : max_stream;
			int f = rt.kind / TSR_VARIANTS;
			if (!L->n_gpu[f]++)
				L->gpu_name[f] = ref->codec_name ? ref->codec_name : d->codec;
			L->n_stream++;
		} else if (ref->codec.id != TSR_CODEC_FILL) {
			if (!L->n_cpu[rt.why]++)
				L->cpu_name[rt.why] = ref->codec_name ? ref->codec_name : d->codec;
		}
	}
	tsr_plan_descs_free(descs);
	if (st)
		return st;
	/* decoder auto, a single read: one warp decodes a stream many times slower than a CPU
	 * core does (inflate about 40 times: H200 ~8 MB/s a warp on 4 MiB gzip chunks, libdeflate
	 * ~300 MB/s a core; route.c has each family's factor), so when the largest stream alone
	 * outlasts the CPU's threads decoding them all, the CPU decodes them. (Batch and stream
	 * reads gather many files' streams in a slot; their last file, which does not defer,
	 * joins the earlier files' streams too.) */
	int few = L->n_stream && decoder == TSR_DECODER_AUTO && !(batch & TSR_BATCH_MEMBER) &&
		  max_stream * (uint64_t)(nthreads > 0 ? nthreads : 1) > L->gpu_decoded;
	if (few) {
		L->n_cpu[TSR_WHY_FEW] = L->n_stream;
		for (int f = TSR_FAM_N - 1; f >= 0; f--)
			if (L->n_gpu[f])
				L->cpu_name[TSR_WHY_FEW] = L->gpu_name[f];
		memset(L->n_gpu, 0, sizeof(L->n_gpu));
		L->n_stream = L->n_dequant = 0;
		L->gpu_decoded = 0;
	}
	for (int64_t t = 0; t < plan->ntasks; t++) {
		struct tsr_cuda_task *ct = &tasks[t];
		const struct tsr_chunk_ref *ref = &ct->ref;
		if (few && ct->how == TSR_HOW_STREAM) {
			ct->how = TSR_HOW_CPU;
			ct->kind = -1;
			ct->alt_width = 0;
		}
		L->n_host += ct->how == TSR_HOW_CPU || ct->how == TSR_HOW_BLOSC; /* (needs its bytes) */
		/* What each task stages: its stored bytes (raw, inflate: compressed streams lie back
		 * to back, since the inflate kernel reads any alignment, so that tiles next to each
		 * other in the file are read with one pread), or its values decoded on the CPU;
		 * values start 16-byte aligned for the place kernel. */
		if (ct->how == TSR_HOW_STREAM || ct->how == TSR_HOW_BLOSC) {
			ct->staged = (size_t)ref->nbytes;
			ct->dec_cap = (size_t)tsr_route_decoded_npix(ref) *
				      (ct->alt_width ? 8 : tsr_dtype_size(ref->codec.elem));
			ct->dec_cap = (ct->dec_cap + 15) & ~(size_t)15;
			if (ct->how == TSR_HOW_BLOSC) {
				/* room for its values too, should the CPU decode it, and for its
				 * decoded bytes (the filter pass's second buffer) */
				size_t v = (size_t)ref->npix * tsr_dtype_size(ref->xform.out);
				v = v > ct->dec_cap ? v : ct->dec_cap;
				ct->staged = (ct->staged > v ? ct->staged : v) + 15;
				ct->staged &= ~(size_t)15;
			}
			if (ct->dec_cap > L->dec_biggest)
				L->dec_biggest = ct->dec_cap;
			L->dec_total += ct->dec_cap;
		} else {
			ct->staged = ct->how == TSR_HOW_RAW
					     ? (size_t)ref->nbytes
					     : (size_t)ref->npix * tsr_dtype_size(ref->xform.out);
			ct->staged = (ct->staged + 15) & ~(size_t)15;
		}
		if (ct->staged > L->biggest)
			L->biggest = ct->staged;
		L->staged_total += ct->staged + 16;
	}
	return TSR_OK;
}

int64_t tsr_cuda_fill_slot(const struct tsr_plan *plan, struct tsr_cuda_task *tasks,
			   int64_t ntasks, int64_t t0, const int64_t *gather_at,
			   struct tsr_cuda_fill *f)
{
	size_t used = f->used, dec_used = f->dec_used;
	int64_t max_rows = f->max_rows, t1 = t0;
	while (t1 < ntasks && f->nplaces + (size_t)(t1 - t0) < TSR_SLOT_PLACES) {
		struct tsr_cuda_task *ct = &tasks[t1];
		if (ct->dec_cap && dec_used + ct->dec_cap > f->dec_nbytes)
			break;
		if (!f->replay) {
			/* (replay: slot_offset is the chunk's address in the cache) */
			size_t at = ct->how == TSR_HOW_STREAM ? used : (used + 15) & ~(size_t)15;
			if (at + ct->staged > f->nbytes)
				break;
			ct->slot_offset = at;
			used = at + ct->staged;
		}
		ct->dec_offset = dec_used;
		dec_used += ct->dec_cap;
		int64_t rows = 1;
		const int64_t *k0 = tsr_task_k0(plan, t1), *k1 = tsr_task_k1(plan, t1);
		if (gather_at) {
			/* a gather's rows: all its units but the last, and the last's segments
			 * (place_core.h) */
			int axis[TSR_MAX_DIM];
			int64_t cnt[TSR_MAX_DIM], total;
			int nu = tsr_plan_units(plan, k0, k1, axis, cnt, &total);
			for (int u = 0; u < nu - 1; u++)
				rows *= cnt[u];
			if (nu)
				rows *= (cnt[nu - 1] + TSR_PC_SEG - 1) / TSR_PC_SEG;
		} else {
			for (int i = 0; i < plan->ndim - 1; i++)
				rows *= k1[i] - k0[i];
		}
		if (rows > max_rows)
			max_rows = rows;
		t1++;
	}
	if (t1 > t0) {
		f->used = used;
		f->dec_used = dec_used;
		f->max_rows = max_rows;
	}
	return t1;
}

void tsr_cuda_describe(const struct tsr_plan *p, const struct tsr_cuda_task *ct, uint64_t out,
		       uint64_t gather_dev, const int64_t *gather_at, struct tsr_cuda_place *pl)
{
	struct tsr_box b;
	tsr_task_box(p, ct->t, &b);
	memset(pl, 0, sizeof(*pl));
	pl->out = out;
	pl->src_offset = ct->slot_offset;
	pl->stream = -1;
	const struct tsr_xform *xf = &ct->ref.xform;
	if (ct->how != TSR_HOW_CPU) {
		pl->in_type = ct->ref.codec.elem;
		pl->in_be = ct->ref.codec.big_endian;
		pl->kind = xf->kind == TSR_XF_OFFSET ? TSR_CUDA_OFFSET
			   : xf->kind == TSR_XF_SCALE ? TSR_CUDA_SCALE
			   : xf->kind == TSR_XF_DEQUANT ? TSR_CUDA_DEQUANT : TSR_CUDA_COPY;
		pl->dither = xf->dither == TSR_DITHER_1 ? 1 : xf->dither == TSR_DITHER_2 ? 2 : 0;
		pl->dither_row = xf->dither_row;
		pl->scale = xf->scale;
		pl->zero = xf->zero;
		pl->offset = xf->offset;
		pl->has_blank = xf->has_blank;
		pl->blank = xf->blank;
		if (ct->how == TSR_HOW_STREAM) {
			pl->src_offset = ct->dec_offset;
			pl->src_dec = 1;
			pl->stream = ct->stream;
			pl->alt_width = ct->alt_width;
			pl->planes = ct->ref.codec.byte_shuffle && tsr_dtype_size(ct->ref.codec.elem) > 1;
		} else if (ct->how == TSR_HOW_BLOSC) {
			/* its streams' results are judged with the slot's (a failed read returns
			 * its error; nothing of it is reported placed) */
			pl->src_offset = ct->bf_stage ? ct->slot_offset : ct->dec_offset;
			pl->src_dec = !ct->bf_stage;
			pl->planes = ct->plane_block > 0;
			pl->plane_block = ct->plane_block;
			pl->src_npix = tsr_route_decoded_npix(&ct->ref);
			pl->blocked = tsr_route_blocked(&ct->ref);
			for (int i = 0; pl->blocked && i < ct->ref.ndim; i++) {
				pl->block[i] = ct->ref.blocked.block[i];
				pl->padded[i] = ct->ref.blocked.padded[i];
			}
		}
	} else {
		pl->in_type = xf->out; /* decoded on the host: values are final */
		pl->kind = TSR_CUDA_COPY;
	}
	pl->out_type = xf->out;
	pl->ndim = b.ndim;
	pl->out_first = b.out_first;
	for (int i = 0; i < b.ndim; i++) {
		pl->extent[i] = ct->ref.extent[i];
		pl->first[i] = b.first[i];
		pl->step[i] = b.step[i];
		pl->count[i] = b.count[i];
		pl->out_stride[i] = b.out_stride[i];
	}
	if (gather_at) /* points: the place kernel gathers them through the task's tables */
		tsr_gather_describe(p, ct->t, gather_dev + 8 * (uint64_t)gather_at[ct->t], pl);
}

void tsr_cuda_stream_args(const struct tsr_cuda_task *ct, int64_t chunk, uint64_t io[4],
			  struct tsr_cuda_check *c)
{
	/* a stream may fill exactly its values' bytes (the decode room is rounded up to 16 for
	 * alignment; decoders that take their size from the capacity need it exact), or the
	 * widest integers where the tile's width is decided by its size */
	uint64_t cap = ct->alt_width ? ct->dec_cap
				     : (uint64_t)ct->ref.npix * tsr_dtype_size(ct->ref.codec.elem);
	io[0] = ct->slot_offset;
	io[1] = ct->ref.nbytes;
	io[2] = ct->dec_offset;
	io[3] = cap;
	*c = (struct tsr_cuda_check){
		.chunk = chunk,
		.rc = {.npix = (uint64_t)ct->ref.npix,
		       .width = (uint32_t)tsr_dtype_size(ct->ref.codec.elem),
		       .elem = (int16_t)ct->ref.codec.elem,
		       .out = (int16_t)ct->ref.xform.out,
		       .kind = (uint8_t)ct->kind,
		       .elem_from_size = (uint8_t)ct->ref.codec.elem_from_size,
		       .xform = (uint8_t)ct->ref.xform.kind}};
}

int64_t tsr_cuda_spans(const struct tsr_cuda_task *tasks, int64_t n, int with_blosc,
		       struct tsr_span *spans, int64_t *task)
{
	int64_t k = 0;
	for (int64_t i = 0; i < n; i++) {
		const struct tsr_cuda_task *ct = &tasks[i];
		if (ct->how == TSR_HOW_CPU || (ct->how == TSR_HOW_BLOSC && !with_blosc))
			continue; /* (the CPU needs them whole, in host memory) */
		spans[k] = (struct tsr_span){ct->ref.path, ct->ref.offset, ct->ref.nbytes,
					     ct->slot_offset};
		task[k++] = i;
	}
	return k;
}
