/* cuda.c - the CUDA engine (host side): reads land in GPU memory. It executes the plan's complete
 * tasks (tsr_plan_describe: each chunk's route, place values and storage read): each is sent one
 * of four ways (stored elements the place kernel transforms; one stream a GPU decoder family
 * decodes; a blosc chunk's streams; values decoded on the CPU), laid into the staging ring's
 * slots (cuda_layout.c, cuda_ring.c) that the pool or the feed fills (cuda_fetch.c,
 * cuda_feed.c), across the files of a batch read; each slot has its own CUDA stream (copy,
 * decode, place into the callers' arrays), so batch k's decode overlaps batch k+1's copy and
 * batch k+2's reading. */
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../codecs/blosc.h"
#include "../codecs/route.h"
#include "../codecs/codecs.h"
#include "engine.h"
#include "gather.h"

#ifdef TSR_WITH_CUDA
#include "cuda_engine.h"

/* An advanced selection's gather tables for every task of the plan (their chunks' extents
 * known), copied to the device once: *dev_ret, and each task's word offset in *at_ret. */
static int tsr_cuda_gather_tables(const struct tsr_array *a, const struct tsr_plan *plan,
				  const struct tsr_plan_descs *ds, void **dev_ret, int64_t **at_ret)
{
	int64_t words = 0;
	int64_t *at = malloc((size_t)plan->ntasks * sizeof(int64_t) + 1);
	if (!at)
		return tsr_error(TSR_E_NOMEM, "%s: out of memory for gather tables", a->path);
	for (int64_t t = 0; t < plan->ntasks; t++) {
		at[t] = words;
		words += tsr_gather_words(plan, t);
	}
	int64_t *tab = malloc((size_t)words * sizeof(int64_t) + 1);
	if (!tab) {
		free(at);
		return tsr_error(TSR_E_NOMEM, "%s: out of memory for gather tables", a->path);
	}
	for (int64_t t = 0; t < plan->ntasks; t++)
		tsr_gather_table(plan, t, tsr_task_extent(ds, t), tab + at[t]);
	void *dev = NULL;
	int st = tsr_cuda_malloc((size_t)words * sizeof(int64_t), &dev);
	if (st == TSR_OK && words) {
		cudaError_t e = cudaMemcpy(dev, tab, (size_t)words * sizeof(int64_t),
					   cudaMemcpyHostToDevice);
		if (e)
			st = tsr_cuda_fail(e, "gather tables");
	}
	free(tab);
	if (st) {
		tsr_cuda_free(dev);
		free(at);
		return st;
	}
	*dev_ret = dev;
	*at_ret = at;
	return TSR_OK;
}

/* The slot's index of a codec name (messages), added when new. */
static int tsr_cuda_name_index(struct tsr_cuda_slot *s, const char *name)
{
	for (int i = 0; i < s->nnames; i++)
		if (!strcmp(s->names[i], name))
			return i;
	if (s->nnames == TSR_NAMES)
		return TSR_NAMES - 1;
	snprintf(s->names[s->nnames], sizeof(s->names[0]), "%s", name);
	return s->nnames++;
}

/* The offset in the slot's prefix text of this read's "path: HDU 1: tile", added once a read. */
static uint32_t tsr_cuda_prefix_at(struct tsr_cuda_slot *s, uint64_t seq, const char *prefix)
{
	if (s->pfx_seq == seq)
		return s->pfx_at;
	size_t n = strlen(prefix) + 1;
	if (tsr_grow((void **)&s->ptext, &s->ptext_cap, s->ptext_len + n, 1, 4096))
		return UINT32_MAX; /* no memory for names: the message goes without */
	memcpy(s->ptext + s->ptext_len, prefix, n);
	s->pfx_seq = seq;
	s->pfx_at = (uint32_t)s->ptext_len;
	s->ptext_len += n;
	return s->pfx_at;
}

/* Where the slot's streams' arguments, checks and labels go (its labels made on first need; no
 * memory for them: messages give chunk numbers), pfx its prefix for this read. */
static struct tsr_cuda_stream_out tsr_cuda_slot_out(const struct tsr_array *a,
						    struct tsr_cuda_slot *s, uint32_t pfx)
{
	if (a->desc.chunk_label && !s->labels)
		s->labels = malloc(TSR_SLOT_STREAMS * TSR_LABEL_NBYTES);
	return (struct tsr_cuda_stream_out){
		.io = s->host_io, .cap = TSR_SLOT_STREAMS, .checks = s->checks,
		.labels = a->desc.chunk_label ? s->labels : NULL,
		.label_nbytes = TSR_LABEL_NBYTES, .array = a, .prefix_at = pfx};
}

/* Appends one inflate stream to the slot: its arguments (offsets until the slot is dispatched)
 * and what judging its result needs (check, with the slot's prefix and names filled in). */
static void tsr_cuda_stream_add(const struct tsr_cuda_job *job, struct tsr_cuda_slot *s,
				uint32_t pfx, const uint64_t io[4], struct tsr_cuda_check c,
				const char *codec_name)
{
	const struct tsr_cuda_stream_out so = tsr_cuda_slot_out(job->array, s, pfx);
	tsr_cuda_stream_store(&so, s->nstreams++, io, c, tsr_cuda_name_index(s, codec_name));
}

/* A BLOSC task's streams: coded streams to the slot's streams (of the task's kind), the others
 * to its copies and sets. A chunk with more streams than the slot has room for is decoded here, on the CPU,
 * into its staging (sized for its values), and becomes a CPU task. */
static int tsr_cuda_blosc_task(struct tsr_cuda_job *job, struct tsr_cuda_slot *s,
			       struct tsr_cuda_task *ct, uint32_t pfx, int64_t chunk)
{
	const size_t cap = TSR_SLOT_STREAMS;
	const struct tsr_task_info *ti = ct->ti;
	/* its stored bytes: in the staging, or mapped where the feed takes them to the device */
	unsigned char *staged = job->host + ct->slot_offset;
	const unsigned char *stored = ct->map.base ? ct->map.bytes : staged;
	size_t w = ti->elem_nbytes, n = 0;
	if (!job->spans && !(job->spans = malloc(cap * sizeof(*job->spans))))
		return tsr_error(TSR_E_NOMEM, "out of memory");
	struct tsr_blosc_pipeline pipe;
	int st = tsr_blosc_streams(stored, (size_t)ti->nbytes, w, &ct->blocks, job->spans,
				   cap - s->nstreams, &n, &pipe);
	if (st == TSR_E_TOO_SMALL) {
		size_t vn = (size_t)ti->npix * ti->out_nbytes;
		unsigned char *vals = malloc(vn ? vn : 1), *copy = NULL;
		size_t copy_cap = 0;
		struct tsr_scratch scratch = {0};
		struct tsr_chunk_ref ref;
		tsr_task_desc(job->descs, ct->t, &ref);
		ref.codec.big_endian = ct->big_endian;
		uint64_t dn = 0;
		st = !vals ? tsr_error(TSR_E_NOMEM, "out of memory") : TSR_OK;
		/* a mapping has no slack past the chunk's end for the decoder: a copy */
		if (st == TSR_OK && ct->map.base &&
		    (st = tsr_storage_copy(&copy, &copy_cap, stored, ref.nbytes)) == TSR_OK)
			stored = copy;
		if (st == TSR_OK)
			st = tsr_chunk_decode(&ref, (void *)stored, ref.nbytes, vals, 0, &scratch,
					      &dn);
		if (st == TSR_OK)
			memcpy(staged, vals, vn);
		tsr_scratch_free(&scratch);
		free(vals);
		free(copy);
		ct->how = TSR_HOW_CPU;
		job->bytes_decoded += dn;
		return st;
	}
	if (st)
		return st;
	ct->plane_block = pipe.plane_block;
	ct->bf_stage = 0;
	/* Filters to undo, or a fill: the filter pass's description (its data only: the codec
	 * layer's pipeline), the chunk's staging its second buffer once its streams are decoded. */
	struct tsr_cuda_bfilter bf;
	if (tsr_cuda_bfilter_describe(&pipe, ct->dec_offset, ct->slot_offset, s->bf_blocks, &bf)) {
		if (s->nbf == TSR_SLOT_PLACES)
			return tsr_error(TSR_E_INTERNAL, "blosc: filter pass table full");
		s->host_bf[s->nbf++] = bf;
		ct->bf_stage = tsr_cuda_bfilter_in_stage(&bf);
		s->bf_blocks += bf.nblocks;
		int passes = tsr_cuda_bfilter_passes(&bf);
		s->bf_passes = passes > s->bf_passes ? passes : s->bf_passes;
	}
	for (size_t k = 0; k < n; k++) {
		const struct tsr_blosc_stream *sp = &job->spans[k];
		if (sp->kind == TSR_BLOSC_STREAM_CODED) {
			uint64_t io[4] = {ct->slot_offset + sp->src, sp->csize, ct->dec_offset + sp->dst,
					  sp->n};
			struct tsr_cuda_check c = {.chunk = chunk};
			tsr_route_bytes_check(sp->n, ct->kind, &c.rc);
			tsr_cuda_stream_add(job, s, pfx, io, c, tsr_route_blosc_name(ct->blosc_codec));
			continue;
		}
		/* in operations of at most TSR_BOP_MAX bytes: one thread block runs one, so a
		 * memcpyed chunk (one stream of all its bytes) spreads over the GPU */
		uint64_t nops = (sp->n + TSR_BOP_MAX - 1) / TSR_BOP_MAX;
		st = tsr_cuda_bops_grow(s, s->nbops + (size_t)(nops ? nops : 1));
		if (st)
			return st;
		for (uint64_t at = 0; at < sp->n; at += TSR_BOP_MAX) {
			uint64_t len = sp->n - at < TSR_BOP_MAX ? sp->n - at : TSR_BOP_MAX;
			s->bops[s->nbops++] = (struct tsr_cuda_bop){
				ct->slot_offset + sp->src + at, ct->dec_offset + sp->dst + at, len,
				sp->kind == TSR_BLOSC_STREAM_COPY ? -1 : sp->value};
		}
	}
	return TSR_OK;
}

/* Gives the job's STREAM tasks, in order, the slot's next streams and their codec names'
 * indices, so that the describing threads make their arguments with their places (*so). Only
 * where the job has no BLOSC task (whose streams are known once its header is read): returns 0
 * then, with nothing done. */
static int tsr_cuda_streams_ordered(struct tsr_cuda_job *job, struct tsr_cuda_slot *s,
				    uint64_t seq, const char *prefix,
				    struct tsr_cuda_stream_out *so)
{
	const struct tsr_array *a = job->array;
	for (int64_t i = 0; i < job->ntasks; i++)
		if (job->tasks[i].how == TSR_HOW_BLOSC)
			return 0;
	const char *last = NULL;
	int name = 0, any = 0;
	uint32_t pfx = UINT32_MAX;
	for (int64_t i = 0; i < job->ntasks; i++) {
		struct tsr_cuda_task *ct = &job->tasks[i];
		if (ct->how != TSR_HOW_STREAM)
			continue;
		if (!any) {
			any = 1;
			pfx = tsr_cuda_prefix_at(s, seq, prefix);
		}
		const char *codec = ct->ti->codec_name ? ct->ti->codec_name : a->desc.codec;
		if (codec != last) /* (a file's tiles: one name, one pointer) */
			name = tsr_cuda_name_index(s, codec);
		last = codec;
		ct->name = name;
		ct->stream = (int)s->nstreams++;
	}
	/* (no stream tasks: nothing is written through it, and a slot makes no labels for them) */
	*so = any ? tsr_cuda_slot_out(a, s, pfx) : (struct tsr_cuda_stream_out){0};
	return 1;
}

/* Appends the job's STREAM tasks, and the coded streams of its BLOSC tasks, to the slot's
 * streams. */
static int tsr_cuda_streams(struct tsr_cuda_job *job, struct tsr_cuda_slot *s, uint64_t seq,
			    const char *prefix)
{
	const struct tsr_array *a = job->array;
	uint32_t pfx = UINT32_MAX;
	for (int64_t i = 0; i < job->ntasks; i++) {
		struct tsr_cuda_task *ct = &job->tasks[i];
		if (ct->how != TSR_HOW_STREAM && ct->how != TSR_HOW_BLOSC)
			continue;
		if (pfx == UINT32_MAX)
			pfx = tsr_cuda_prefix_at(s, seq, prefix);
		int64_t chunk = tsr_task_chunk(job->plan, ct->t);
		if (ct->how == TSR_HOW_BLOSC) {
			int st = tsr_cuda_blosc_task(job, s, ct, pfx, chunk);
			if (st) {
				char cprefix[1400], label[320];
				tsr_array_chunk_name(a, chunk, cprefix, sizeof(cprefix), label,
						    sizeof(label));
				tsr_error_prefix("%s %s", cprefix, label);
				return st;
			}
			continue;
		}
		ct->stream = (int)s->nstreams;
		uint64_t io[4];
		struct tsr_cuda_check c;
		tsr_cuda_stream_args(ct, chunk, io, &c);
		tsr_cuda_stream_add(job, s, pfx, io, c,
				    ct->ti->codec_name ? ct->ti->codec_name : a->desc.codec);
	}
	return TSR_OK;
}

/* Says in the receipt what decoded the chunks: "GZIP_2 tiles decoded on the GPU (tessera
 * inflate kernel)", one clause per decoder family, and in its fallback which chunks the CPU
 * decoded and why. */
static void tsr_cuda_decoders(const struct tsr_array *a, const int64_t n_gpu[TSR_FAM_N],
			      const char *const gpu_name[TSR_FAM_N], int64_t n_raw,
			      const int64_t n_cpu[TSR_WHY_N], const char *const cpu_name[TSR_WHY_N],
			      struct tsr_receipt *r)
{
	const char *noun = a->desc.chunk_noun;
	char dec[sizeof(r->decoder)] = "", fb[sizeof(r->fallback)] = "";
	size_t dn = 0, fn = 0;
	for (int f = 0; f < TSR_FAM_N; f++)
		if (n_gpu[f] && dn < sizeof(dec))
			dn += (size_t)snprintf(dec + dn, sizeof(dec) - dn,
					       "%s%s %ss decoded on the GPU (tessera %s kernel)",
					       dn ? "; " : "", gpu_name[f], noun,
					       tsr_route_family_name(f));
	if (n_raw && dn < sizeof(dec))
		dn += (size_t)snprintf(dec + dn, sizeof(dec) - dn, "%suncompressed %ss placed on the GPU",
				       dn ? "; " : "", noun);
	for (int w = 0; w < TSR_WHY_N; w++) {
		if (!n_cpu[w])
			continue;
		if (dn < sizeof(dec))
			dn += (size_t)snprintf(dec + dn, sizeof(dec) - dn, "%s%s %ss decoded on the CPU",
					       dn ? "; " : "", cpu_name[w], noun);
		if (fn < sizeof(fb))
			fn += (size_t)snprintf(fb + fn, sizeof(fb) - fn, "%s%s %ss decoded on the CPU "
					       "(%s); decoded values copied", fn ? "; " : "",
					       cpu_name[w], noun, tsr_route_why_text(w));
	}
	snprintf(r->decoder, sizeof(r->decoder), "%s", dec);
	if (fb[0]) {
		size_t have = strlen(r->fallback);
		/* Append "; fb", cut to what fits (receipts are fixed-size text). */
		if (have && have + 2 < sizeof(r->fallback)) {
			size_t room = sizeof(r->fallback) - have - 3, n = strlen(fb);
			memcpy(r->fallback + have, "; ", 2);
			memcpy(r->fallback + have + 2, fb, n < room ? n : room);
			r->fallback[have + 2 + (n < room ? n : room)] = '\0';
		} else if (!have) {
			size_t n = strlen(fb), room = sizeof(r->fallback) - 1;
			memcpy(r->fallback, fb, n < room ? n : room);
			r->fallback[n < room ? n : room] = '\0';
		}
	}
}

/* The pool whose threads read: a device's share of a split read reads with the device's own
 * threads, so that every device's storage reads run at once (the context's pool runs one job at
 * a time); other reads with the context's. (Under cs->lock.) */
static struct tsr_pool *tsr_cuda_pool(struct tsr_cuda_state *cs, struct tsr_pool *ctx_pool,
				      int nthreads, int batch)
{
	if (!(batch & TSR_BATCH_SHARE))
		return ctx_pool;
	int want_n = nthreads > 0 ? nthreads : 1;
	if (cs->pool && cs->pool_n != want_n && !cs->feed.pool) {
		tsr_pool_free(cs->pool);
		cs->pool = NULL;
	}
	if (!cs->pool && tsr_pool_create(want_n, &cs->pool) == TSR_OK)
		cs->pool_n = want_n;
	return cs->pool ? cs->pool : ctx_pool;
}

/* Threads that describe a read's tasks and places beside its own (tsr_plan_describe_on,
 * tsr_cuda_describe_on): on the H200 a RICE_1 batch's thread spent 24 of its 58 ms describing
 * and laying out 131,072 tiles and 22 more making their places and stream arguments, while the
 * GPU needed about 16 (bench/host_profile.patch). They are the engine's own: during a batch the
 * pool's threads are the feed's until it stops. tsr_aid_count of the read's threads: they work
 * in bursts of a file's tasks, the feed's readers in theirs. Returns the pool and in *k_ret
 * how many take part (1: this thread alone). */
static struct tsr_pool *tsr_cuda_aid(struct tsr_cuda_state *cs, int nthreads, int *k_ret)
{
	int k = tsr_aid_count(nthreads);
	*k_ret = 1;
	if (k < 2)
		return NULL;
	if (cs->aid && cs->aid_n < k) {
		tsr_pool_free(cs->aid);
		cs->aid = NULL;
	}
	if (!cs->aid) {
		if (tsr_pool_create(k, &cs->aid) != TSR_OK) {
			cs->aid = NULL; /* (no threads to be had: this one describes alone) */
			return NULL;
		}
		cs->aid_n = k;
	}
	*k_ret = k;
	return cs->aid;
}

/* The read's receipt: blosc chunks counted as their headers routed them, the decoders, and why
 * the storage is not cuFile or the CPU's values are replayed. */
static void tsr_cuda_receipt(const struct tsr_array *a, struct tsr_cuda_layout *L,
			     const struct tsr_cuda_task *tasks, int64_t ntasks,
			     const struct tsr_storage_choice *store, int to_dev, int replay,
			     struct tsr_receipt *r)
{
	for (int64_t t = 0; L->n_blosc && t < ntasks; t++) {
		const struct tsr_cuda_task *ct = &tasks[t];
		if (!ct->blosc)
			continue;
		const char *name = tsr_route_blosc_name(ct->blosc_codec);
		if (ct->how == TSR_HOW_BLOSC) {
			int f = ct->kind / TSR_VARIANTS;
			if (!L->n_gpu[f]++)
				L->gpu_name[f] = name;
			L->gpu_decoded += (uint64_t)ct->ti->npix * ct->ti->elem_nbytes;
		} else if (!L->n_cpu[ct->why]++) {
			L->cpu_name[ct->why] = name;
		}
	}
	r->bytes_decoded += L->gpu_decoded;
	snprintf(r->engine, sizeof(r->engine), "cuda");
	tsr_cuda_decoders(a, L->n_gpu, L->gpu_name, L->n_raw, L->n_cpu, L->cpu_name, r);
	size_t have = strlen(r->fallback);
	if (store->automatic && !to_dev && L->n_raw + L->n_stream > 0 &&
	    have + 40 < sizeof(r->fallback)) /* auto passed cuFile over: say why */
		snprintf(r->fallback + have, sizeof(r->fallback) - have,
			 "%sstorage %s, not cuFile: %.100s", have ? "; " : "", store->be->name,
			 store->why);
	int64_t ncpu = 0;
	for (int w = 0; w < TSR_WHY_N; w++)
		ncpu += L->n_cpu[w];
	have = strlen(r->fallback);
	if (replay && ncpu && have + 60 < sizeof(r->fallback))
		snprintf(r->fallback + have, sizeof(r->fallback) - have,
			 "%smock-device replays those values", have ? "; " : "");
}

/* The split chunks' buffers a device state keeps between reads, at most (the CPU engine's
 * bound). */
#define TSR_CUDA_KEEP_SPLIT_NBYTES ((size_t)256 << 20)

/* Where a read's tasks are routed: this device's decoder families, for the read's backend and
 * decoder (the same for tasks described ahead, tsr_cuda_describe_ahead). */
static struct tsr_route_device tsr_cuda_rdev(const struct tsr_backend *be, int decoder)
{
	const int to_dev = (be->mems & TSR_MEMBIT(TSR_MEM_CUDA)) != 0, replay = be->kept != NULL;
	return (struct tsr_route_device){
		.gpu = 1, .force_cpu = decoder == TSR_DECODER_CPU,
		.blosc = !to_dev && !replay, /* (its header is read on the host) */
		.families = tsr_cuda_family_mask()};
}

/* A read's tasks laid out ahead: on the H200 laying out a RICE_1 batch's 131,072 tiles took
 * 4.5-6.2 of its thread's 31-35 ms (bench/host_profile.patch). */
struct tsr_cuda_laid {
	struct tsr_cuda_task *tasks;
	size_t cap;
	struct tsr_cuda_layout L;
	int ok;                 /* laid out for the descriptions last made with it */
};

int tsr_cuda_describe_ahead(const struct tsr_array *array, const struct tsr_plan *plan,
			    const struct tsr_storage_choice *store, int decoder, int nthreads,
			    struct tsr_pool *pool, int naid, struct tsr_plan_descs **descs_ret,
			    struct tsr_cuda_laid **laid)
{
	const struct tsr_route_device rdev = tsr_cuda_rdev(store->be, decoder);
	if (*laid)
		(*laid)->ok = 0;
	int st = tsr_plan_describe_on(plan, array, store->be, 1, &rdev, pool, naid, descs_ret);
	if (st)
		return st;
	/* (no memory to lay out ahead: the read lays out in its turn) */
	struct tsr_cuda_laid *ld = *laid ? *laid : (*laid = calloc(1, sizeof(**laid)));
	if (!ld)
		return TSR_OK;
	size_t n = (size_t)(plan->ntasks ? plan->ntasks : 1);
	if (ld->cap < n) {
		free(ld->tasks);
		ld->tasks = malloc(n * sizeof(*ld->tasks));
		ld->cap = ld->tasks ? n : 0;
		if (!ld->tasks)
			return TSR_OK;
	}
	tsr_cuda_layout_on(array, plan, *descs_ret, nthreads, pool, naid, ld->tasks, &ld->L);
	ld->ok = 1;
	return TSR_OK;
}

void tsr_cuda_laid_free(struct tsr_cuda_laid *laid)
{
	if (!laid)
		return;
	free(laid->tasks);
	free(laid);
}

static int tsr_cuda_run_on(struct tsr_array *array, const struct tsr_plan *plan,
			   const struct tsr_norm_sel *sel, void *out, void *stream, int nthreads,
			   int decoder, const struct tsr_storage_choice *store, int batch,
			   int device, struct tsr_plan_descs *descs, struct tsr_cuda_laid *laid,
			   const struct tsr_stop *stop, struct tsr_receipt *r)
{
	const int defer_sync = batch & TSR_BATCH_DEFER;
	/* laid out ahead, as this read would lay it out (a batch member's) */
	const int ahead = laid && laid->ok && descs && (batch & TSR_BATCH_MEMBER);
	struct tsr_cuda_state *cs = NULL;
	const struct tsr_desc *d = &array->desc;
	int st = tsr_cuda_state_get(array->ctx, device, &cs);
	if (st == TSR_OK && d->ndim > TSR_CUDA_MAX_DIM)
		st = tsr_error(TSR_E_UNSUPPORTED, "%s: the CUDA engine places up to %d axes",
			       array->path, TSR_CUDA_MAX_DIM);
	if (st) {
		tsr_plan_descs_free(descs);
		return st;
	}
	/* What the read's backend (chosen once, by read.c) offers: whole chunks lent from host
	 * memory (mock-host, mock-device), chunks kept in device memory (mock-device), reads
	 * straight into device memory (cuFile). */
	const struct tsr_backend *be = store->be;
	const int lends = be->lend != NULL;
	const int replay = be->kept != NULL;
	const int to_dev = (be->mems & TSR_MEMBIT(TSR_MEM_CUDA)) != 0;
	/* Stored bytes on the device already, before dispatch: cuFile read them there. (Workers
	 * copying each piece to the device as they read it, on streams of their own, was tried:
	 * on the H200 it read the FITS batch at 26.7 GB/s and the Zarr array at 31.5, against
	 * 38.7 and 40.4 with one bulk copy of each slot.) */
	int on_dev = to_dev;
	pthread_mutex_lock(&cs->lock);
	struct tsr_pool *pool = tsr_cuda_pool(cs, array->ctx->pool, nthreads, batch);
	cudaStream_t cstream = (cudaStream_t)stream;
	uint64_t seq = ++cs->seq;
	const double wait0 = cs->t_wait; /* (this read's waits: the difference at its end) */
	size_t ntasks = (size_t)(plan->ntasks ? plan->ntasks : 1);
	if (!ahead && cs->tasks_cap < ntasks) {
		/* kept between reads: a fresh one costs page faults on every file of a batch */
		free(cs->tasks);
		cs->tasks = malloc(ntasks * sizeof(*cs->tasks));
		cs->tasks_cap = cs->tasks ? ntasks : 0;
		if (!cs->tasks) {
			pthread_mutex_unlock(&cs->lock);
			tsr_plan_descs_free(descs);
			return tsr_error(TSR_E_NOMEM, "out of memory");
		}
	}
	struct tsr_cuda_task *tasks = ahead ? laid->tasks : cs->tasks;
	/* Route every task and size what it stages: the slots hold the largest chunk, the decode
	 * buffers the largest decoded chunk (and the read's, up to TSR_DEC_NBYTES). */
	const struct tsr_route_device rdev = tsr_cuda_rdev(be, decoder);
	/* every task complete, as the planner describes and routes it: the layout reads it (the
	 * slots are sized from every chunk, so all are described before any is read); settled: a
	 * chunk file's size lays out the slot (the mock backends' refs were settled by their real
	 * fetch) */
	struct tsr_cuda_layout L;
	double tp0 = tsr_now(); /* (planning on this thread: the receipt's t_plan) */
	int naid = 1;
	struct tsr_pool *aid = tsr_cuda_aid(cs, nthreads, &naid);
	if (!descs) /* (else described ahead: ahead.c) */
		st = tsr_plan_describe_on(plan, array, be, 1, &rdev, aid, naid, &descs);
	if (st == TSR_OK && ahead)
		L = laid->L;
	else if (st == TSR_OK)
		tsr_cuda_layout(array, plan, descs, decoder, batch, nthreads, tasks, &L);
	else
		memset(&L, 0, sizeof(L));
	/* The read in file order before its slots are filled: a sharded Zarr store's plan crosses
	 * its shards row by row, so a slot held a few Morton runs of each of many shards (215-336
	 * reads a slot of 805 inner chunks with each slot ordered alone); now it holds whole
	 * shards. */
	if (st == TSR_OK && !replay && tsr_plan_descs_npaths(descs) < (size_t)plan->ntasks)
		tsr_cuda_file_order(tasks, plan->ntasks);
	double t_plan = tsr_now() - tp0;
	if (st == TSR_OK && L.n_dequant && !cs->randoms) {
		/* (under cs->lock: no other read of this context is placing) */
		int ke = tsr_cuda_place_randoms(tsr_dither_randoms());
		if (ke)
			st = tsr_cuda_fail((cudaError_t)ke, "dither table");
		else
			cs->randoms = 1;
	}
	void *gather_dev = NULL;
	int64_t *gather_at = NULL;
	if (st == TSR_OK && plan->ngroups && defer_sync) /* (tables live for one read) */
		st = tsr_error(TSR_E_INTERNAL, "%s: a batch read of an advanced selection",
			       array->path);
	else if (st == TSR_OK && plan->ngroups)
		st = tsr_cuda_gather_tables(array, plan, descs, &gather_dev, &gather_at);
	double t_fill = 0;
	if (st == TSR_OK && replay) {
		double tf0 = tsr_now();
		st = tsr_cuda_replay_fill(array, be, plan, descs, tasks);
		t_fill = tsr_now() - tf0;
	}
	/* Stored bytes read with pread into the slots: the feed reads them in the background
	 * (cuda_feed.c), and this thread makes the values of the few chunks the CPU decodes (a
	 * FITS tile that GZIP did not shrink, a missing Zarr chunk's fill). Where many need the
	 * CPU, the pool's threads fill each slot in one run instead, so a feed still running (this
	 * batch's earlier files, or another thread's batch) lands and stops first; its slots go to
	 * the GPU. */
	/* Blosc chunks ride the feed too where the backend maps files: their headers are read
	 * from a mapping (a few bytes a block), their bytes go to the device through the feed's
	 * bounce buffers. (H200, bench/gpu_host_read_bench, a 2 GiB Zarr v2 blosc-lz4 store's
	 * files on 16 threads: 49.2 GB/s read through bounce buffers and copied, against 37.8
	 * read into a pinned staging alone and 22.9 with its copy after; mapping each file and
	 * reading a byte of every 16 KiB, one thread: 334 GB/s.) */
	const struct tsr_backend *hbe = be->host ? be->host : be;
	const int64_t n_mapped = hbe->map ? L.n_blosc : 0;
	const int feed = !lends && !to_dev && (L.n_host - n_mapped) * 16 <= plan->ntasks &&
			 store->by_path; /* (the feed opens files by path; the pool reads fd) */
	if (feed)
		on_dev = 1; /* the feed's threads copy the stored bytes to the device */
	/* a lone read's feed and the describing threads beside it (mapped blosc chunks' headers)
	 * leave cores for each other and this thread (tsr_feed_readers); without describing
	 * threads the feed keeps every thread; a batch member's are its share already (ahead.c) */
	const int nfeed = (batch & TSR_BATCH_MEMBER) || !n_mapped ? nthreads
								: tsr_feed_readers(nthreads);
	const int nfeed_aid = naid < tsr_aid_count(nfeed) ? naid : tsr_aid_count(nfeed);
	if (st == TSR_OK && cs->feed.pool &&
	    (!feed || !pthread_equal(cs->feed.owner, pthread_self())))
		st = tsr_cuda_flush(cs, 0);
	struct tsr_cuda_slot *s = &cs->slot[cs->next_slot];
	if (st == TSR_OK) {
		/* Slots the ring opens from now on hold the largest chunk, and decode room for
		 * this read (tsr_cuda_slot_sizes). */
		tsr_cuda_slot_sizes(&L, defer_sync || s->open, &cs->slot_want, &cs->dec_want);
		/* The open slot of another thread's batch read, or of reads ordered on another
		 * stream, goes to the GPU first: this read neither waits for nor drops it. */
		if (s->open && (!pthread_equal(s->owner, pthread_self()) ||
				cs->open_cstream != cstream || s->replay != replay ||
				s->on_dev != on_dev))
			st = tsr_cuda_dispatch(cs, s);
	}
	char prefix[1400] = "";
	if (L.n_stream || L.n_blosc)
		tsr_array_chunk_name(array, 0, prefix, sizeof(prefix), NULL, 0);
	struct tsr_cuda_job job = {0};
	pthread_mutex_init(&job.lock, NULL);
	tsr_job_error_init(&job.err);
	job.array = array;
	job.plan = plan;
	job.descs = descs;
	job.sel = sel;
	job.out = out;
	job.gather_dev = (uint64_t)(uintptr_t)gather_dev;
	job.gather_at = gather_at;
	job.device = device;
	job.spare = &cs->spare;
	job.stop = stop;
	int64_t t0 = 0;
	double t_copy = 0;
	while (st == TSR_OK && t0 < plan->ntasks) {
		/* A stop goes the way of a failure: what was sent finishes, nothing more is. */
		if (tsr_stop_asked(stop)) {
			st = TSR_E_STOPPED;
			tsr_error_prefix("%s", array->path);
			break;
		}
		/* The open slot, or the ring's next one: its last copy done and its inflate results
		 * judged before the host refills it (a batch read's earlier file: the error names
		 * that file). */
		if ((st = tsr_cuda_slot_open(cs, &s)))
			break;
		cs->open_cstream = cstream;
		s->replay = replay;
		if (!s->nplaces)
			s->nranges = 0;
		s->on_dev = on_dev;
		/* Fill it on from where it stands: as many tasks as fit the slot and its decode
		 * buffer (streams of several kinds are grouped at dispatch). */
		struct tsr_cuda_fill fill = {
			.nbytes = s->nbytes, .dec_nbytes = s->dec_nbytes, .used = s->used,
			.dec_used = s->dec_used, .ntasks = s->ntasks, .replay = replay};
		int64_t t1 = tsr_cuda_fill_slot(tasks, plan->ntasks, t0, &fill);
		if (t1 == t0) {
			/* Full with earlier files' chunks (or of smaller buffers than this read
			 * needs): on to a fresh slot. A fresh one was sized for the largest chunk. */
			if (s->nplaces) {
				double tc = tsr_now();
				tsr_cuda_seal(cs, s);
				st = tsr_cuda_send_landed(cs);
				t_copy += tsr_now() - tc;
				continue;
			}
			st = tsr_error(TSR_E_INTERNAL, "%s: a chunk does not fit the staging slot",
				       array->path);
			break;
		}
		job.tasks = tasks + t0;
		job.ntasks = t1 - t0;
		job.host = s->host;
		job.group = job.ntasks / (8 * (nthreads > 0 ? nthreads : 1));
		job.group = job.group < 1 ? 1 : job.group > 256 ? 256 : job.group;
		atomic_store(&job.next, 0);
		atomic_store(&job.err.failed, 0);
		job.be = be;
		job.to_dev = to_dev;
		job.dev = s->dev;
		job.blosc_mapped = feed && n_mapped;
		if (feed) {
			uint64_t nb = 0;
			st = tsr_feed_queue(&cs->feed, pool, nfeed, &job,
					    (int)(s - cs->slot), &nb);
			job.bytes_read += nb;
			if (st)
				break;
			if (L.n_host) {
				job.host_only = 1;
				atomic_store(&job.next, 0);
				job.npieces = 0;
				/* mapped blosc chunks: every one's headers, and the CPU's decode
				 * of those they send it, on the describing threads too */
				if (job.blosc_mapped && aid && nfeed_aid > 1)
					tsr_pool_run(aid, nfeed_aid, tsr_cuda_worker, &job);
				else
					tsr_cuda_worker(&job, 0);
				job.host_only = 0;
			}
		} else if (!replay) {
			if ((st = tsr_cuda_pieces(&job)))
				break;
			tsr_cuda_shares(&job, nthreads);
			tsr_cuda_fill_run(pool, nthreads, &job);
			tsr_cuda_shares_free(&job);
		}
		if ((st = tsr_job_error_take(&job.err)))
			break;
		tp0 = tsr_now();
		struct tsr_cuda_stream_out so;
		const int so_on = tsr_cuda_streams_ordered(&job, s, seq, prefix, &so);
		if (!so_on && (st = tsr_cuda_streams(&job, s, seq, prefix)))
			break;
		tsr_cuda_unmap(job.tasks, job.ntasks);
		/* (after the streams: a blosc chunk of too many streams became a CPU task there) */
		if (on_dev && (st = tsr_cuda_host_ranges(&job, s)))
			break;
		if (!on_dev && !replay && (st = tsr_cuda_staged_ranges(&job, s)))
			break;
		struct tsr_cuda_described made;
		tsr_cuda_describe_on(plan, descs, job.tasks, job.ntasks, (uint64_t)(uintptr_t)out,
				     job.gather_dev, gather_at, &s->host_places[s->nplaces],
				     so_on ? &so : NULL, aid, naid, &made);
		t_plan += tsr_now() - tp0;
		s->nplaces += made.nplaces;
		s->general |= made.general;
		s->max_rows = made.max_rows > s->max_rows ? made.max_rows : s->max_rows;
		s->ntasks = fill.ntasks;
		s->used = fill.used;
		s->dec_used = fill.dec_used;
		t0 = t1;
		/* A full slot goes to the GPU now; the last, part-filled one waits for the next
		 * file of a batch read, or for the end of the read. */
		if (t0 < plan->ntasks) {
			/* It goes once its reads have landed (the pool's have, the feed's may not
			 * yet: the feed reads on). */
			double tc = tsr_now();
			tsr_cuda_seal(cs, s);
			st = tsr_cuda_send_landed(cs);
			t_copy += tsr_now() - tc;
		}
	}
	if (st != TSR_OK && job.tasks) /* (a job that failed before its streams were listed) */
		tsr_cuda_unmap(job.tasks, job.ntasks);
	if (st == TSR_OK && feed && defer_sync) {
		double tc = tsr_now();
		st = tsr_cuda_send_landed(cs);
		t_copy += tsr_now() - tc;
	}
	/* Reads are synchronous: the status covers every kernel of this read (in a batch, the
	 * last file's read waits for all of them and judges every pending result). A failed
	 * read still waits, so nothing writes into the caller's buffer after it returns. */
	if (st == TSR_OK && !defer_sync)
		st = tsr_cuda_finish(cs, cstream);
	if (st != TSR_OK) {
		char msg[1024];
		snprintf(msg, sizeof(msg), "%s", tsr_errmsg());
		tsr_cuda_flush(cs, 1);
		tsr_cuda_drop_open(cs);
		tsr_cuda_settle(cs, 0);
		cudaStreamSynchronize(cstream);
		tsr_error_set_text(msg);
	}
	/* (cudaFree waits for the device: no kernel of this read still reads the tables) */
	tsr_cuda_free(gather_dev);
	free(gather_at);
	tsr_feed_take_time(&cs->feed, &job.t_fetch); /* (finish waited for the last reads) */
	r->t_plan += t_plan;
	r->t_fetch += job.t_fetch + t_fill;
	r->t_decode += job.t_decode;
	r->t_place += t_copy;
	r->t_wait += cs->t_wait - wait0;
	r->bytes_read += job.bytes_read;
	r->bytes_decoded += job.bytes_decoded;
	r->nthreads = nthreads;
	tsr_cuda_receipt(array, &L, tasks, plan->ntasks, store, to_dev, replay, r);
	tsr_split_spare_trim(&cs->spare, TSR_CUDA_KEEP_SPLIT_NBYTES);
	free(job.pieces);
	free(job.spans);
	tsr_plan_descs_free(descs);
	pthread_mutex_destroy(&job.lock);
	tsr_job_error_destroy(&job.err);
	pthread_mutex_unlock(&cs->lock);
	return st;
}

int tsr_cuda_run(struct tsr_array *array, const struct tsr_plan *plan,
		 const struct tsr_norm_sel *sel, void *out, void *stream, int nthreads, int decoder,
		 const struct tsr_storage_choice *store, int batch, int device,
		 struct tsr_plan_descs *descs, struct tsr_cuda_laid *laid,
		 const struct tsr_stop *stop, struct tsr_receipt *r)
{
	/* every CUDA call of the read runs on its device (the caller's current one restored) */
	int prev = -1;
	int st = tsr_cuda_enter(&device, out, array->path, &prev);
	if (st == TSR_OK)
		st = tsr_cuda_run_on(array, plan, sel, out, stream, nthreads, decoder, store, batch,
				     device, descs, laid, stop, r);
	else
		tsr_plan_descs_free(descs);
	tsr_cuda_leave(prev);
	return st;
}

#else /* no CUDA in this build */

int tsr_cuda_run(struct tsr_array *array, const struct tsr_plan *plan,
		 const struct tsr_norm_sel *sel, void *out, void *stream, int nthreads, int decoder,
		 const struct tsr_storage_choice *store, int batch, int device,
		 struct tsr_plan_descs *descs, struct tsr_cuda_laid *laid,
		 const struct tsr_stop *stop, struct tsr_receipt *r)
{
	(void)plan, (void)sel, (void)out, (void)stream, (void)nthreads, (void)decoder;
	(void)store, (void)batch, (void)laid, (void)stop, (void)r;
	tsr_plan_descs_free(descs);
	int prev;
	return tsr_cuda_enter(&device, out, array->path, &prev); /* (says no CUDA engine) */
}

int tsr_cuda_describe_ahead(const struct tsr_array *array, const struct tsr_plan *plan,
			    const struct tsr_storage_choice *store, int decoder, int nthreads,
			    struct tsr_pool *pool, int naid, struct tsr_plan_descs **descs_ret,
			    struct tsr_cuda_laid **laid)
{
	(void)plan, (void)store, (void)decoder, (void)nthreads, (void)pool, (void)naid, (void)laid;
	*descs_ret = NULL;
	int prev, device = -1;
	return tsr_cuda_enter(&device, NULL, array->path, &prev); /* (says no CUDA engine) */
}

void tsr_cuda_laid_free(struct tsr_cuda_laid *laid)
{
	(void)laid; /* (never made without CUDA) */
}

#endif
