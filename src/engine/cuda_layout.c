/* cuda_layout.c - the CUDA engine's host-side layout of a read: each task's route and staging,
 * slots filled in order, place descriptions, stream arguments and stored reads. Plain C with no
 * CUDA types, built in every build, so benches and tests run it without a device. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../codecs/blosc_parts.h"
#include "../core/internal.h"
#include "cuda_layout.h"
#include "gather.h"
#include "split.h"

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

struct tsr_coalesce_rule tsr_cuda_feed_rule_for(uint64_t nbytes, int64_t npieces, int nthreads)
{
	const uint64_t mib = (uint64_t)1 << 20;
	struct tsr_coalesce_rule r = tsr_cuda_feed_rule;
	if (nthreads < 1 || npieces >= (int64_t)3 * nthreads)
		return r;
	uint64_t p = nbytes / ((uint64_t)4 * (uint64_t)nthreads) / mib * mib;
	r.piece = p < mib ? mib : p > TSR_BOUNCE_NBYTES ? TSR_BOUNCE_NBYTES : p;
	r.whole_max = TSR_BOUNCE_NBYTES;
	return r;
}

int tsr_cuda_feed_pieces(const struct tsr_span *spans, int64_t nspans, int nthreads,
			 struct tsr_piece **pieces, int64_t *npieces, size_t *cap)
{
	const int64_t k0 = *npieces;
	int st = tsr_coalesce(spans, nspans, &tsr_cuda_feed_rule, pieces, npieces, cap);
	if (st)
		return st;
	uint64_t all = 0;
	int cuttable = 0; /* a span read alone in bounce buffers' pieces: the rule may cut it finer */
	for (int64_t k = k0; k < *npieces; k++) {
		const struct tsr_piece *pc = &(*pieces)[k];
		all += pc->nbytes;
		cuttable |= pc->nspans == 1 && spans[pc->span].nbytes > TSR_BOUNCE_NBYTES;
	}
	if (!cuttable) /* (runs and spans that fit a bounce buffer: read as they are, whatever the rule) */
		return TSR_OK;
	struct tsr_coalesce_rule rule = tsr_cuda_feed_rule_for(all, *npieces - k0, nthreads);
	if (rule.piece == tsr_cuda_feed_rule.piece)
		return TSR_OK;
	*npieces = k0; /* (few reads for the readers: again, large spans in smaller pieces) */
	return tsr_coalesce(spans, nspans, &rule, pieces, npieces, cap);
}

/* The first pass over tasks [t0, t1): each task's route into tasks[t], and the counts of each
 * way into L; returns the slowest stream's warp time (in bytes of a CPU core's). */
static uint64_t tsr_layout_routes(const struct tsr_array *array, const struct tsr_plan_descs *ds,
				  int64_t t0, int64_t t1, struct tsr_cuda_task *tasks,
				  struct tsr_cuda_layout *L)
{
	const struct tsr_desc *d = &array->desc;
	uint64_t max_stream = 0;
	for (int64_t t = t0; t < t1; t++) {
		struct tsr_cuda_task *ct = &tasks[t];
		const struct tsr_task_info *ti = tsr_task_info(ds, t);
		const struct tsr_route *rt = &ti->route;
		*ct = (struct tsr_cuda_task){.t = t, .ti = ti, .how = rt->how, .kind = rt->kind,
					     .why = rt->why, .big_endian = rt->big_endian,
					     .stream = -1, .blosc_codec = -1};
		if (rt->how == TSR_HOW_RAW) {
			L->n_raw++;
		} else if (rt->how == TSR_HOW_BLOSC) {
			ct->blosc = 1; /* (counted for the receipt once its header is read) */
			L->n_blosc++;
		} else if (rt->how == TSR_HOW_STREAM) {
			uint64_t n = (uint64_t)ti->npix * ti->elem_nbytes;
			L->n_dequant += ti->values.kind == TSR_VALUES_DEQUANT;
			L->gpu_decoded += n;
			uint64_t slow = tsr_route_serial_bytes(rt->kind, n) * tsr_route_warp_factor(rt->kind);
			max_stream = slow > max_stream ? slow : max_stream;
			int f = rt->kind / TSR_VARIANTS;
			if (!L->n_gpu[f]++)
				L->gpu_name[f] = ti->codec_name ? ti->codec_name : d->codec;
			L->n_stream++;
		} else if (!rt->fill) {
			if (!L->n_cpu[rt->why]++)
				L->cpu_name[rt->why] = ti->codec_name ? ti->codec_name : d->codec;
		}
	}
	return max_stream;
}

/* The second pass over tasks [t0, t1): what each stages and decodes (streams sent to the CPU
 * where few), summed into L. */
static void tsr_layout_sizes(const struct tsr_plan_descs *ds, int64_t t0, int64_t t1, int few,
			     struct tsr_cuda_task *tasks, struct tsr_cuda_layout *L)
{
	uint32_t split_id = UINT32_MAX; /* the description last asked whether it splits */
	int splits = 0;
	for (int64_t t = t0; t < t1; t++) {
		struct tsr_cuda_task *ct = &tasks[t];
		const struct tsr_task_info *ti = ct->ti;
		if (few && ct->how == TSR_HOW_STREAM) {
			ct->how = TSR_HOW_CPU;
			ct->kind = -1;
		}
		L->n_host += ct->how == TSR_HOW_CPU || ct->how == TSR_HOW_BLOSC; /* (needs its bytes) */
		/* What each task stages: its stored bytes (raw, inflate: compressed streams lie back
		 * to back, since the inflate kernel reads any alignment, so that tiles next to each
		 * other in the file are read with one pread), or its values decoded on the CPU;
		 * values start 16-byte aligned for the place kernel. */
		if (ct->how == TSR_HOW_STREAM || ct->how == TSR_HOW_BLOSC) {
			ct->staged = (size_t)ti->nbytes;
			ct->dec_cap = (size_t)ti->dec_npix * (ti->route.alt_width ? 8 : ti->elem_nbytes);
			ct->dec_cap = (ct->dec_cap + 15) & ~(size_t)15;
			if (ct->how == TSR_HOW_BLOSC) {
				/* room for its values too, should the CPU decode it, and for its
				 * decoded bytes (the filter pass's second buffer) */
				size_t v = (size_t)ti->npix * ti->out_nbytes;
				v = v > ct->dec_cap ? v : ct->dec_cap;
				ct->staged = (ct->staged > v ? ct->staged : v) + 15;
				ct->staged &= ~(size_t)15;
			}
			if (ct->dec_cap > L->dec_biggest)
				L->dec_biggest = ct->dec_cap;
			L->dec_total += ct->dec_cap;
		} else {
			ct->staged = ct->how == TSR_HOW_RAW ? (size_t)ti->nbytes
							    : (size_t)ti->npix * ti->out_nbytes;
			ct->staged = (ct->staged + 15) & ~(size_t)15;
			if (ct->how == TSR_HOW_CPU && !ti->route.fill) {
				/* (whether a chunk splits is its description's: asked once an id) */
				uint32_t id = tsr_task_desc_id(ds, t);
				if (id != split_id) {
					split_id = id;
					splits = tsr_cuda_task_splits(ds, ct);
				}
				if (!splits) {
					L->n_cpu_whole++;
					if (ct->staged > L->cpu_whole_biggest)
						L->cpu_whole_biggest = ct->staged;
				}
			}
		}
		if (ct->staged > L->biggest)
			L->biggest = ct->staged;
		L->staged_total += ct->staged + 16;
	}
}

void tsr_cuda_layout(const struct tsr_array *array, const struct tsr_plan *plan,
		     const struct tsr_plan_descs *ds, int decoder, int batch, int nthreads,
		     struct tsr_cuda_task *tasks, struct tsr_cuda_layout *L)
{
	memset(L, 0, sizeof(*L));
	L->nthreads = nthreads > 0 ? nthreads : 1;
	uint64_t max_stream = tsr_layout_routes(array, ds, 0, plan->ntasks, tasks, L);
	/* decoder auto, a single read: one warp decodes a stream many times slower than a CPU
	 * core does (inflate about 40 times: H200 ~8 MB/s a warp on 4 MiB gzip chunks, libdeflate
	 * ~300 MB/s a core; route.c has each family's factor, and a zstd frame is decoded a
	 * block at a time side by side: tsr_route_serial_bytes), so when the largest stream alone
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
	tsr_layout_sizes(ds, 0, plan->ntasks, few, tasks, L);
}

/* A share of a batch member's layout: tasks [t0, t1), their counts and sizes in L. */
struct tsr_layout_part {
	int64_t t0, t1;
	struct tsr_cuda_layout L;
};

struct tsr_layout_job {
	const struct tsr_array *array;
	const struct tsr_plan_descs *ds;
	struct tsr_cuda_task *tasks;
	struct tsr_layout_part *parts;
};

static void tsr_layout_worker(void *arg, int w)
{
	const struct tsr_layout_job *job = arg;
	struct tsr_layout_part *pt = &job->parts[w];
	tsr_layout_routes(job->array, job->ds, pt->t0, pt->t1, job->tasks, &pt->L);
	tsr_layout_sizes(job->ds, pt->t0, pt->t1, 0, job->tasks, &pt->L);
}

/* Adds part q's counts and sizes to L's (L holds the tasks before q's: its names stay first). */
static void tsr_layout_merge(struct tsr_cuda_layout *L, const struct tsr_cuda_layout *q)
{
	L->n_stream += q->n_stream;
	L->n_raw += q->n_raw;
	L->n_dequant += q->n_dequant;
	L->n_blosc += q->n_blosc;
	L->n_host += q->n_host;
	for (int w = 0; w < TSR_WHY_N; w++) {
		if (!L->n_cpu[w])
			L->cpu_name[w] = q->cpu_name[w];
		L->n_cpu[w] += q->n_cpu[w];
	}
	for (int f = 0; f < TSR_FAM_N; f++) {
		if (!L->n_gpu[f])
			L->gpu_name[f] = q->gpu_name[f];
		L->n_gpu[f] += q->n_gpu[f];
	}
	L->biggest = q->biggest > L->biggest ? q->biggest : L->biggest;
	L->dec_biggest = q->dec_biggest > L->dec_biggest ? q->dec_biggest : L->dec_biggest;
	L->dec_total += q->dec_total;
	L->staged_total += q->staged_total;
	L->gpu_decoded += q->gpu_decoded;
	L->n_cpu_whole += q->n_cpu_whole;
	L->cpu_whole_biggest = q->cpu_whole_biggest > L->cpu_whole_biggest ? q->cpu_whole_biggest
									      : L->cpu_whole_biggest;
}

void tsr_cuda_layout_on(const struct tsr_array *array, const struct tsr_plan *plan,
			const struct tsr_plan_descs *ds, int nthreads, struct tsr_pool *pool,
			int naid, struct tsr_cuda_task *tasks, struct tsr_cuda_layout *L)
{
	/* parts of TSR_LAYOUT_PART tasks at least, one a thread */
	int64_t n = plan->ntasks;
	int nparts = pool && naid > 1 ? (int)(n / TSR_LAYOUT_PART) : 1;
	nparts = nparts > naid ? naid : nparts;
	struct tsr_layout_part *parts = nparts > 1 ? calloc((size_t)nparts, sizeof(*parts)) : NULL;
	if (!parts) { /* (the decoder matters only to a read's few streams) */
		tsr_cuda_layout(array, plan, ds, TSR_DECODER_AUTO, TSR_BATCH_MEMBER, nthreads, tasks,
				L);
		return;
	}
	for (int k = 0; k < nparts; k++) {
		parts[k].t0 = n * k / nparts;
		parts[k].t1 = n * (k + 1) / nparts;
	}
	struct tsr_layout_job job = {array, ds, tasks, parts};
	tsr_pool_run(pool, nparts, tsr_layout_worker, &job);
	*L = parts[0].L;
	for (int k = 1; k < nparts; k++)
		tsr_layout_merge(L, &parts[k].L);
	L->nthreads = nthreads > 0 ? nthreads : 1;
	free(parts);
}

void tsr_cuda_slot_sizes(const struct tsr_cuda_layout *L, int full, size_t *slot_want,
			 size_t *dec_want)
{
	/* A lone small read takes a small slot (pinned allocations take time in proportion to
	 * their size); a batch read's files share full ones. */
	size_t want = L->staged_total < TSR_SLOT_NBYTES && !full ? L->staged_total : TSR_SLOT_NBYTES;
	if (L->n_cpu_whole > 1 && L->cpu_whole_biggest) {
		/* one whole-decoded chunk per thread, as far as TSR_SLOT_CPU_NBYTES allows */
		size_t k = (size_t)(L->n_cpu_whole < L->nthreads ? L->n_cpu_whole : L->nthreads);
		size_t fit = TSR_SLOT_CPU_NBYTES / L->cpu_whole_biggest;
		k = k < fit ? k : fit;
		size_t cpu = k * L->cpu_whole_biggest;
		want = cpu > want ? cpu : want;
	}
	want = (want + ((size_t)16 << 20) - 1) & ~(((size_t)16 << 20) - 1); /* 16 MiB steps */
	want = L->biggest > want ? L->biggest : want;
	if (want > *slot_want)
		*slot_want = want;
	if (!L->n_stream && !L->n_blosc)
		return;
	want = full || L->dec_total > TSR_DEC_NBYTES ? TSR_DEC_NBYTES : L->dec_total;
	want = want > L->dec_biggest ? want : L->dec_biggest;
	if (want > *dec_want)
		*dec_want = want;
}

/* Lays tasks t0, t0 + 1, ... (tmax at most) from where f stands while they fit; returns one
 * past the last, and the slot's bytes used in *used and *dec_used. */
static int64_t tsr_fill_lay(struct tsr_cuda_task *tasks, int64_t tmax, int64_t t0,
			    const struct tsr_cuda_fill *f, size_t *used_ret, size_t *dec_used_ret)
{
	size_t used = f->used, dec_used = f->dec_used;
	int64_t t1 = t0;
	while (t1 < tmax && f->ntasks + (size_t)(t1 - t0) < TSR_SLOT_PLACES) {
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
		t1++;
	}
	*used_ret = used;
	*dec_used_ret = dec_used;
	return t1;
}

/* A task's place in its slot's file order: its file's (in the order files first appear), its
 * offset in that file, and its place before. */
struct tsr_file_rank {
	uint32_t file;
	int32_t i;
	uint64_t offset;
};

static int tsr_file_rank_cmp(const void *a, const void *b)
{
	const struct tsr_file_rank *x = a, *y = b;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* A file seen in a slot (an open-addressing table's entry): its path, and its number. */
struct tsr_file_seen {
	const char *path;
	uint32_t file;
};

/* The files of tasks [t0, t1) numbered in the order they first appear (paths are interned: one
 * pointer a file), into r; returns whether a file's tasks are apart or out of offset order. */
static int tsr_file_ranks(const struct tsr_cuda_task *tasks, int64_t t0, int64_t t1,
			  struct tsr_file_rank *r, struct tsr_file_seen *table, size_t mask)
{
	uint32_t nfiles = 0;
	int moved = 0;
	for (int64_t t = t0; t < t1; t++) {
		const struct tsr_task_info *ti = tasks[t].ti;
		size_t h = ((uintptr_t)ti->path >> 4) * (size_t)0x9E3779B97F4A7C15u & mask;
		while (table[h].path && table[h].path != ti->path)
			h = (h + 1) & mask;
		const int seen = table[h].path != NULL;
		if (!seen)
			table[h] = (struct tsr_file_seen){ti->path, nfiles++};
		struct tsr_file_rank *k = &r[t - t0];
		*k = (struct tsr_file_rank){table[h].file, (int32_t)(t - t0), ti->offset};
		if (t > t0 && seen)
			moved |= k->file != k[-1].file || k->offset < k[-1].offset;
	}
	return moved;
}

/* Puts a read's tasks in file order where their files repeat out of it: each file's tasks
 * together, files in the order they first appear, each by offset. Chunks back to back in a file
 * then lie back to back in a slot, and a run of them is one read (tsr_coalesce): the plan lays a
 * sharded Zarr store's inner chunks in C order across the array, and zarr-python writes them in
 * Morton order within each shard, so that a slot of 805 inner chunks of 80 KB took 805 reads
 * (H100, 2026-12-06), 215-336 with each slot in file order (2026-12-07), and the read's 4,096
 * 116 in all with the read in file order (plan_bench, a later session). (The place kernel puts
 * each task where it lands, in any order.) Returns whether it moved any; on a failed allocation
 * none. */
static int tsr_file_order(struct tsr_cuda_task *tasks, int64_t t0, int64_t t1)
{
	int one = 1; /* one file in offset order (a FITS heap, a Blosc2 frame): nothing to do */
	for (int64_t t = t0 + 1; one && t < t1; t++)
		one = tasks[t].ti->path == tasks[t - 1].ti->path &&
		      tasks[t].ti->offset >= tasks[t - 1].ti->offset;
	if (one)
		return 0;
	const size_t n = (size_t)(t1 - t0);
	size_t cap = 16;
	while (cap < 2 * n)
		cap *= 2;
	struct tsr_file_rank *r = malloc(n * sizeof(*r));
	struct tsr_file_seen *table = calloc(cap, sizeof(*table));
	struct tsr_cuda_task *tmp = NULL;
	int moved = r && table && tsr_file_ranks(tasks, t0, t1, r, table, cap - 1);
	if (moved)
		tmp = malloc(n * sizeof(*tmp));
	moved = tmp != NULL;
	if (moved) {
		qsort(r, n, sizeof(*r), tsr_file_rank_cmp);
		for (size_t k = 0; k < n; k++)
			tmp[k] = tasks[t0 + r[k].i];
		memcpy(tasks + t0, tmp, n * sizeof(*tmp));
	}
	free(tmp);
	free(table);
	free(r);
	return moved;
}

int tsr_cuda_file_order(struct tsr_cuda_task *tasks, int64_t ntasks)
{
	return ntasks > 1 && ntasks <= INT32_MAX && tsr_file_order(tasks, 0, ntasks);
}

int64_t tsr_cuda_fill_slot(struct tsr_cuda_task *tasks, int64_t ntasks, int64_t t0,
			   struct tsr_cuda_fill *f)
{
	size_t used, dec_used;
	int64_t t1 = tsr_fill_lay(tasks, ntasks, t0, f, &used, &dec_used);
	if (t1 > t0) {
		f->used = used;
		f->dec_used = dec_used;
		f->ntasks += (size_t)(t1 - t0);
	}
	return t1;
}

_Static_assert((int)TSR_CUDA_COPY == (int)TSR_VALUES_COPY &&
		       (int)TSR_CUDA_OFFSET == (int)TSR_VALUES_OFFSET &&
		       (int)TSR_CUDA_SCALE == (int)TSR_VALUES_SCALE &&
		       (int)TSR_CUDA_DEQUANT == (int)TSR_VALUES_DEQUANT,
	       "the place kernel's value kinds are the route's");

void tsr_cuda_describe(const struct tsr_plan *p, const struct tsr_plan_descs *ds,
		       const struct tsr_cuda_task *ct, uint64_t out, uint64_t gather_dev,
		       const int64_t *gather_at, struct tsr_cuda_place *pl)
{
	const struct tsr_route_values *v = &ct->ti->values;
	const int cpu = ct->how == TSR_HOW_CPU, stream = ct->how == TSR_HOW_STREAM;
	const int blosc = ct->how == TSR_HOW_BLOSC, dec = stream || (blosc && !ct->bf_stage);
	/* Every field written once, the per-axis arrays up to ndim (the kernel reads no further),
	 * none zeroed first: a slot's 16384 places are 10 MB, and this function's time is its
	 * stores' cache misses (perf on bench/plan_bench.c), so fewer lines touched is faster. CPU
	 * tasks arrive as final values; stream and blosc tasks are read from the decode buffer (a
	 * blosc chunk whose filter pass leaves its values in the staging, from there). */
	pl->out = out;
	pl->src_offset = dec ? ct->dec_offset : ct->slot_offset;
	pl->in_type = cpu ? v->out_type : v->in_type;
	pl->out_type = v->out_type;
	pl->in_be = cpu ? 0 : ct->big_endian;
	pl->kind = cpu ? TSR_CUDA_COPY : v->kind;
	pl->scale = cpu ? 0 : v->scale;
	pl->zero = cpu ? 0 : v->zero;
	pl->offset = cpu ? 0 : v->offset;
	pl->has_blank = cpu ? 0 : v->has_blank;
	pl->blank = cpu ? 0 : v->blank;
	pl->dither = cpu ? 0 : v->dither;
	pl->run = 1; /* (tsr_cuda_describe_on folds runs) */
	pl->dither_row = cpu ? 0 : v->dither_row;
	pl->src_dec = dec;
	pl->planes = stream ? v->planes : blosc ? ct->plane_block > 0 : 0;
	pl->stream = stream ? ct->stream : -1;
	pl->alt_width = stream ? ct->ti->route.alt_width : 0;
	pl->plane_block = blosc ? ct->plane_block : 0;
	pl->blocked = 0;
	pl->src_npix = 0;
	if (blosc) {
		/* its streams' results are judged with the slot's (a failed read returns its
		 * error; nothing of it is reported placed) */
		struct tsr_chunk_ref ref; /* (its blocked layout: BLOSC chunks are large) */
		tsr_task_desc(ds, ct->t, &ref);
		pl->src_npix = ct->ti->dec_npix;
		pl->blocked = tsr_route_blocked(&ref);
		for (int i = 0; pl->blocked && i < ref.ndim; i++) {
			pl->block[i] = ref.blocked.block[i];
			pl->padded[i] = ref.blocked.padded[i];
		}
	}
	/* the task's box (tsr_task_box, read straight from the plan's words) */
	const int64_t *k0 = tsr_task_k0(p, ct->t), *k1 = tsr_task_k1(p, ct->t);
	const int64_t *first = tsr_task_first(p, ct->t), *extent = tsr_task_extent(ds, ct->t);
	pl->ndim = p->ndim;
	pl->out_first = tsr_task_out_first(p, ct->t);
	pl->run_src = pl->run_out = 0;
	pl->units = 0;
	pl->nunits = pl->pad1 = pl->pad2 = 0;
	for (int i = 0; i < p->ndim; i++) {
		pl->extent[i] = extent[i];
		pl->first[i] = first[i];
		pl->step[i] = p->step[i];
		pl->count[i] = k1[i] - k0[i];
		pl->out_stride[i] = p->out_stride[i];
	}
	if (gather_at) /* points: the place kernel gathers them through the task's tables */
		tsr_gather_describe(p, ct->t, gather_dev + 8 * (uint64_t)gather_at[ct->t], pl);
}

/* A describing thread's places at least: a place is 50-170 ns of stores (the VM, the H200's
 * host during a batch), a pool's wake-up tens of microseconds. */
#define TSR_PLACES_PART 1024

struct tsr_places_job {
	const struct tsr_plan *p;
	const struct tsr_plan_descs *ds;
	const struct tsr_cuda_task *tasks;
	int64_t n;
	uint64_t out, gather_dev;
	const int64_t *gather_at;
	struct tsr_cuda_place *places;
	const struct tsr_cuda_stream_out *so;
	int nparts;
	struct tsr_cuda_described res[TSR_PLACES_PARTS_MAX]; /* each part's, its places from
								  its first task's index */
};

void tsr_cuda_stream_store(const struct tsr_cuda_stream_out *so, size_t k, const uint64_t io[4],
			   struct tsr_cuda_check c, int name)
{
	for (int j = 0; j < 4; j++)
		so->io[(size_t)j * so->cap + k] = io[j];
	c.prefix_at = so->prefix_at;
	c.name = (uint8_t)name;
	c.has_label = so->labels != NULL;
	if (so->labels)
		so->array->desc.chunk_label(so->array, c.chunk, so->labels + k * so->label_nbytes,
					    so->label_nbytes);
	so->checks[k] = c;
}

/* A STREAM task's arguments, check and label at its stream index. (Made beside its place, on
 * the describing threads: on the H200 a RICE_1 batch's thread spent 4.3-6.5 ms of its 31-35
 * making them one by one.) */
static void tsr_cuda_stream_put(const struct tsr_plan *p, const struct tsr_cuda_task *ct,
				const struct tsr_cuda_stream_out *so)
{
	uint64_t io[4];
	struct tsr_cuda_check c;
	tsr_cuda_stream_args(ct, tsr_task_chunk(p, ct->t), io, &c);
	tsr_cuda_stream_store(so, (size_t)ct->stream, io, c, ct->name);
}

/* Whether pl continues the run that h stands for (h->run tasks so far): every field the kernel
 * reads the same but the three that move a task at a time, and those by h's strides (the
 * first task after h's own sets them). Gathers never run: each task has tables of its own. */
static int tsr_place_extends(struct tsr_cuda_place *h, const struct tsr_cuda_place *pl)
{
	const int64_t k = h->run;
	const int64_t ds = (int64_t)(pl->src_offset - h->src_offset);
	const int64_t dout = pl->out_first - h->out_first;
	if (k >= INT32_MAX || h->nunits || pl->nunits ||
	    (k > 1 && (ds != k * h->run_src || dout != k * h->run_out)) ||
	    (h->stream >= 0 ? pl->stream != h->stream + k : pl->stream >= 0) ||
	    h->out != pl->out || h->in_type != pl->in_type || h->out_type != pl->out_type ||
	    h->in_be != pl->in_be || h->kind != pl->kind || memcmp(&h->scale, &pl->scale, 8) ||
	    memcmp(&h->zero, &pl->zero, 8) || h->offset != pl->offset ||
	    h->has_blank != pl->has_blank || h->ndim != pl->ndim || h->blank != pl->blank ||
	    h->dither != pl->dither || h->dither_row != pl->dither_row ||
	    h->src_dec != pl->src_dec || h->planes != pl->planes || h->alt_width != pl->alt_width ||
	    h->plane_block != pl->plane_block || h->blocked != pl->blocked ||
	    h->src_npix != pl->src_npix)
		return 0;
	for (int i = 0; i < pl->ndim; i++)
		if (h->extent[i] != pl->extent[i] || h->first[i] != pl->first[i] ||
		    h->step[i] != pl->step[i] || h->count[i] != pl->count[i] ||
		    h->out_stride[i] != pl->out_stride[i] ||
		    (pl->blocked && (h->block[i] != pl->block[i] || h->padded[i] != pl->padded[i])))
			return 0;
	if (k == 1) {
		h->run_src = ds;
		h->run_out = dout;
	}
	return 1;
}

void tsr_cuda_place_task(const struct tsr_cuda_place *pl, int k, struct tsr_cuda_place *one)
{
	*one = *pl;
	one->src_offset += (uint64_t)(k * pl->run_src);
	one->out_first += k * pl->run_out;
	one->stream += pl->stream >= 0 ? k : 0;
	one->run = 1;
	one->run_src = one->run_out = 0;
}

/* A part's places from its first task's index: each task's described where the part's next
 * place goes, and folded into the place before it when it continues that place's run (its
 * stores then land on the lines the last task's did: a slot's tiles of one image cost a
 * place's stores, not a tile's each). */
static void tsr_places_worker(void *arg, int w)
{
	struct tsr_places_job *j = arg;
	int64_t t0 = j->n * w / j->nparts, t1 = j->n * (w + 1) / j->nparts;
	struct tsr_cuda_place *places = j->places + t0;
	struct tsr_cuda_described r = {0, 0, 1};
	int head_kind = -1; /* the run's streams' kind: a run's streams stay one launch's */
	for (int64_t i = t0; i < t1; i++) {
		struct tsr_cuda_place *pl = &places[r.nplaces];
		const struct tsr_cuda_task *ct = &j->tasks[i];
		tsr_cuda_describe(j->p, j->ds, ct, j->out, j->gather_dev, j->gather_at, pl);
		if (j->so && ct->how == TSR_HOW_STREAM)
			tsr_cuda_stream_put(j->p, ct, j->so);
		if (r.nplaces && ct->kind == head_kind && tsr_place_extends(pl - 1, pl)) {
			pl[-1].run++;
			continue;
		}
		head_kind = ct->kind;
		r.general |= pl->nunits > 0 || pl->blocked;
		r.nplaces++;
	}
	for (size_t i = 0; i < r.nplaces; i++) {
		int64_t nmax, rows = tsr_pc_rows(&places[i], &nmax) * places[i].run;
		int64_t ctas = tsr_pc_ctas(rows, nmax);
		r.max_rows = ctas > r.max_rows ? ctas : r.max_rows;
	}
	j->res[w] = r;
}

void tsr_cuda_describe_on(const struct tsr_plan *p, const struct tsr_plan_descs *ds,
			  const struct tsr_cuda_task *tasks, int64_t n, uint64_t out,
			  uint64_t gather_dev, const int64_t *gather_at,
			  struct tsr_cuda_place *places, const struct tsr_cuda_stream_out *so,
			  struct tsr_pool *pool, int nthreads, struct tsr_cuda_described *res)
{
	struct tsr_places_job j = {p, ds, tasks, n, out, gather_dev, gather_at, places, so, 1, {{0}}};
	int64_t nparts = pool && nthreads > 1 ? n / TSR_PLACES_PART : 1;
	nparts = nparts > nthreads ? nthreads : nparts;
	nparts = nparts > TSR_PLACES_PARTS_MAX ? TSR_PLACES_PARTS_MAX : nparts;
	j.nparts = nparts < 1 ? 1 : (int)nparts;
	if (j.nparts > 1)
		tsr_pool_run(pool, j.nparts, tsr_places_worker, &j);
	else
		tsr_places_worker(&j, 0);
	/* the parts' places one after another (each began at its first task's index) */
	*res = j.res[0];
	for (int w = 1; w < j.nparts; w++) {
		const struct tsr_cuda_described *r = &j.res[w];
		struct tsr_cuda_place *from = places + n * w / j.nparts;
		if (from != places + res->nplaces)
			memmove(places + res->nplaces, from, r->nplaces * sizeof(*places));
		res->nplaces += r->nplaces;
		res->general |= r->general;
		res->max_rows = r->max_rows > res->max_rows ? r->max_rows : res->max_rows;
	}
}

void tsr_cuda_stream_args(const struct tsr_cuda_task *ct, int64_t chunk, uint64_t io[4],
			  struct tsr_cuda_check *c)
{
	const struct tsr_task_info *ti = ct->ti;
	/* a stream may fill exactly its values' bytes (the decode room is rounded up to 16 for
	 * alignment; decoders that take their size from the capacity need it exact), or the
	 * widest integers where the tile's width is decided by its size */
	uint64_t cap = ti->route.alt_width ? ct->dec_cap : (uint64_t)ti->npix * ti->elem_nbytes;
	io[0] = ct->slot_offset;
	io[1] = ti->nbytes;
	io[2] = ct->dec_offset;
	io[3] = cap;
	c->chunk = chunk;
	c->rc = ti->check;
	c->rc.kind = (uint8_t)ct->kind;
}

int64_t tsr_cuda_spans(const struct tsr_cuda_task *tasks, int64_t n, int with_blosc,
		       struct tsr_span *spans, int64_t *task)
{
	int64_t k = 0;
	for (int64_t i = 0; i < n; i++) {
		const struct tsr_cuda_task *ct = &tasks[i];
		if (ct->how == TSR_HOW_CPU || (ct->how == TSR_HOW_BLOSC && !with_blosc))
			continue; /* (the CPU needs them whole, in host memory) */
		spans[k] = tsr_task_span(ct->ti, ct->slot_offset);
		task[k++] = i;
	}
	return k;
}

void tsr_cuda_task_ref(const struct tsr_plan_descs *ds, const struct tsr_cuda_task *ct,
		       struct tsr_chunk_ref *ref)
{
	tsr_task_desc(ds, ct->t, ref);
	ref->codec.big_endian = ct->big_endian; /* (a blosc header's) */
}

void tsr_cuda_task_whole(const struct tsr_plan_descs *ds, const struct tsr_cuda_task *ct,
			 struct tsr_chunk_ref *ref, struct tsr_chunk_box *box)
{
	tsr_cuda_task_ref(ds, ct, ref);
	for (int d = 0; d < ref->ndim; d++) {
		box->lo[d] = 0;
		box->hi[d] = ref->extent[d];
	}
}

int tsr_cuda_task_splits(const struct tsr_plan_descs *ds, const struct tsr_cuda_task *ct)
{
	struct tsr_chunk_ref ref;
	struct tsr_chunk_box box;
	tsr_cuda_task_whole(ds, ct, &ref, &box);
	return tsr_chunk_split_nbytes(&ref, &box) > 0;
}

int64_t tsr_cuda_split_shares(const struct tsr_plan_descs *ds, const struct tsr_cuda_task *tasks,
			      int64_t n, int nthreads, int64_t *nshares)
{
	int64_t ncpu = 0, total = 0;
	for (int64_t i = 0; i < n; i++)
		ncpu += tasks[i].how == TSR_HOW_CPU;
	for (int64_t i = 0; i < n; i++) {
		const struct tsr_cuda_task *ct = &tasks[i];
		nshares[i] = 1;
		/* (a fill chunk has no stored bytes: tsr_split_nshares keeps it whole) */
		if (ct->how == TSR_HOW_CPU && tsr_split_worth(ncpu, nthreads)) {
			struct tsr_chunk_ref ref;
			struct tsr_chunk_box box;
			tsr_cuda_task_whole(ds, ct, &ref, &box);
			nshares[i] = tsr_split_nshares(&ref, &box, ct->ti->out_nbytes, ncpu, nthreads);
		}
		total += nshares[i];
	}
	return total;
}
