/* cpu.c - the CPU engine: runs a plan on the context's threads (fetch, decode, place). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../codecs/blosc_parts.h"
#include "../codecs/codecs.h"
#include "../io/storage.h"
#include "engine.h"

#include "split.h"

struct tsr_cpu_job {
	const struct tsr_array *array;
	const struct tsr_plan *plan;
	const struct tsr_norm_sel *sel;
	unsigned char *out;
	size_t esize;
	const struct tsr_backend *be; /* the read's storage backend, prepared for the plan */
	atomic_llong next;
	struct tsr_job_error err;
	struct tsr_cpu_cache *cache; /* the context's idle worker states; NULL: none */
	struct tsr_worker_stats *stats;
	struct tsr_split **splits; /* per task of the unsplit plan: its shared chunk, or NULL */
	struct tsr_split_spare *spare;   /* split chunks' byte buffers, kept for the next ones */
	const struct tsr_stop *stop;     /* the caller's stop callback (tsr_stop_asked) */
};

/* Scatter a box of a decoded chunk (the task's, or a part of it) into the output
 * (tsr_split_place). */
static inline void tsr_place(const struct tsr_cpu_job *job, const struct tsr_chunk_ref *ref,
			     const unsigned char *vals, const struct tsr_box *b,
			     const struct tsr_chunk_box *vbox)
{
	tsr_split_place(job->out, job->esize, ref, vals, b, vbox);
}
/* tsr_place for an advanced selection (plan->ngroups > 0): the same loops, over units rather
 * than axes, a unit being a basic axis or a point group (at its first axis). Each unit's
 * source and destination offsets are tabled per position first: a group's points have no
 * stride, each lies where its coordinates say and lands where its broadcast index says. */
static int tsr_place_points(const struct tsr_cpu_job *job, const struct tsr_chunk_ref *ref,
			    const unsigned char *vals, int64_t t, const struct tsr_chunk_box *vbox)
{
	const struct tsr_plan *p = job->plan;
	int nd = p->ndim, axis[TSR_MAX_DIM];
	size_t es = job->esize;
	int64_t cstride[TSR_MAX_DIM], s = 1, total = 0;
	int64_t cnt[TSR_MAX_DIM], *so[TSR_MAX_DIM], *dof[TSR_MAX_DIM], k[TSR_MAX_DIM];
	for (int i = nd - 1; i >= 0; i--) {
		cstride[i] = s;
		s *= vbox ? vbox->hi[i] - vbox->lo[i] : ref->extent[i];
	}
	int nu = tsr_plan_units(p, tsr_task_k0(p, t), tsr_task_k1(p, t), axis, cnt, &total);
	if (nu == 0)
		return TSR_OK;
	int64_t *tab = malloc((size_t)total * 2 * sizeof(int64_t));
	if (!tab)
		return tsr_error(TSR_E_NOMEM, "out of memory");
	tsr_plan_unit_offsets(p, t, nu, axis, cnt, vbox ? vbox->lo : NULL, cstride, tab);
	int64_t *at = tab;
	for (int u = 0; u < nu; u++) {
		so[u] = at;
		dof[u] = at + cnt[u];
		at += 2 * cnt[u];
		k[u] = 0;
	}
	/* the last unit is a run when it is a basic axis of step 1 that lands contiguously */
	int last = axis[nu - 1];
	int run = p->group_of[last] == 0 && job->sel->dim[last].step == 1 && p->out_stride[last] == 1 &&
		  cstride[last] == 1;
	int64_t n = cnt[nu - 1];
	for (;;) {
		int64_t sb = 0, db = 0;
		for (int u = 0; u < nu - 1; u++) {
			sb += so[u][k[u]];
			db += dof[u][k[u]];
		}
		if (run) {
			memcpy(job->out + (db + dof[nu - 1][0]) * (int64_t)es,
			       vals + (sb + so[nu - 1][0]) * (int64_t)es, (size_t)n * es);
		} else {
			const int64_t *ls = so[nu - 1], *ld = dof[nu - 1];
			switch (es) {
			case 1: for (int64_t j = 0; j < n; j++) memcpy(job->out + (db + ld[j]), vals + (sb + ls[j]), 1); break;
			case 2: for (int64_t j = 0; j < n; j++) memcpy(job->out + (db + ld[j]) * 2, vals + (sb + ls[j]) * 2, 2); break;
			case 4: for (int64_t j = 0; j < n; j++) memcpy(job->out + (db + ld[j]) * 4, vals + (sb + ls[j]) * 4, 4); break;
			case 8: for (int64_t j = 0; j < n; j++) memcpy(job->out + (db + ld[j]) * 8, vals + (sb + ls[j]) * 8, 8); break;
			default: for (int64_t j = 0; j < n; j++) memcpy(job->out + (db + ld[j]) * (int64_t)es, vals + (sb + ls[j]) * (int64_t)es, es); break;
			}
		}
		int u = nu - 2;
		for (; u >= 0; u--) {
			if (++k[u] < cnt[u])
				break;
			k[u] = 0;
		}
		if (u < 0)
			break;
	}
	free(tab);
	return TSR_OK;
}

/* When the chunk's selected part is the whole chunk and lands as one contiguous run in the
 * output, the chunk can be decoded straight into place. Returns the output offset or -1. */
static int64_t tsr_direct_offset(const struct tsr_cpu_job *job, const int64_t *extent,
				 const struct tsr_box *b)
{
	const struct tsr_norm_sel *sel = job->sel;
	int nd = b->ndim;
	int outer = 1; /* still on the outermost axes where only one run is allowed */
	if (job->plan->ngroups)
		return -1; /* points land where their broadcast index says */
	for (int i = 0; i < nd; i++)
		if (b->step[i] != 1 || b->count[i] != extent[i])
			return -1;
	/* Inner axes must be complete in the output too. */
	for (int i = 0; i < nd; i++) {
		if (outer) {
			if (extent[i] > 1)
				outer = 0;
			continue;
		}
		if (extent[i] != sel->dim[i].count)
			return -1;
	}
	return b->out_first;
}

/* Chunks at least this large, when their codec streams (tsr_chunk_streams), are decoded piece
 * by piece through a stage of about TSR_CPU_STAGE_NBYTES and placed from there, instead of
 * whole into a chunk-sized buffer first: the stage and zstd's window stay in the core's cache,
 * where a chunk-sized buffer per thread would go out to DRAM and back once more, in the memory
 * bandwidth all threads share. Smaller chunks fit the cache either way. */
#ifndef TSR_CPU_STREAM_MIN_NBYTES
#define TSR_CPU_STREAM_MIN_NBYTES ((size_t)2 << 20)
#endif
#ifndef TSR_CPU_STAGE_NBYTES /* (tests build with tiny ones, to split chunks finely) */
#define TSR_CPU_STAGE_NBYTES ((size_t)64 << 10)
#endif
#ifndef TSR_CPU_INBUF_NBYTES /* pieces a streamed chunk file is read in */
#define TSR_CPU_INBUF_NBYTES ((size_t)256 << 10)
#endif

/* Fetches only what decoding the box needs when the codec can tell (tsr_chunk_fetch_part
 * decides; callers only ask for chunks tsr_chunk_decodes_box accepts); *done = 0 leaves the
 * whole-chunk fetch to tsr_storage_fetch (a missing chunk file too: it becomes fill). */
static int tsr_cpu_fetch_box(struct tsr_source *src, int64_t chunk, struct tsr_chunk_ref *ref,
			     const struct tsr_chunk_box *box, unsigned char **buf, size_t *cap,
			     int *done)
{
	uint64_t got = 0;
	*done = 0;
	int st = src->be->open(src, chunk, ref);
	if (st)
		return ref->missing_is_fill && st == TSR_E_NOT_FOUND ? TSR_OK : st;
	st = tsr_chunk_fetch_part(ref, box, tsr_source_read_host, src, buf, cap, &got);
	src->be->release(src);
	if (st == TSR_OK && got) {
		ref->nbytes = got;
		*done = 1;
	}
	return st;
}

/* What a worker keeps from chunk to chunk, and (idle, on the context) from read to read: codec
 * contexts and buffers. Reusing them is what lets a one-element read take microseconds: a
 * zstd context alone costs more to create than the read. */
struct tsr_cpu_state {
	struct tsr_scratch scratch;
	unsigned char *fetch, *vals, *stage, *inbuf; /* stage, inbuf: streamed chunks */
	size_t fetch_cap, vals_cap;
	int64_t *pairs;         /* gathered points: unit tables, then (element, output) pairs */
	size_t pairs_cap;       /* int64 words */
	struct tsr_cpu_state *next;
};

/* Whether the chunk streams (see TSR_CPU_STREAM_MIN_NBYTES) and where its boxes split: boxes
 * hold axes 0..j-1 at one index, take a range of `rows` on axis j, and all of later axes, where
 * j is the first axis whose one index fits the stage. Mapping a box back to the selection's
 * positions needs forward steps on axes 0..j. */
static int tsr_cpu_streams(const struct tsr_cpu_job *job, const struct tsr_chunk_ref *ref,
			   int *j_ret, int64_t *rows_ret)
{
	int nd = ref->ndim, j = 0;
	size_t inner = (size_t)ref->npix * job->esize; /* bytes of one index on axis j */
	if (nd == 0 || inner < TSR_CPU_STREAM_MIN_NBYTES || !tsr_chunk_streams(ref) ||
	    job->plan->ngroups)
		return 0;
	inner /= (size_t)ref->extent[0];
	while (j < nd - 1 && inner > TSR_CPU_STAGE_NBYTES)
		inner /= (size_t)ref->extent[++j];
	for (int i = 0; i <= j; i++)
		if (job->plan->step[i] <= 0)
			return 0;
	*j_ret = j;
	*rows_ret = (int64_t)(TSR_CPU_STAGE_NBYTES / inner); /* inner <= es on the last axis */
	return 1;
}

/* Decodes a streaming chunk a box at a time into the stage (tsr_cpu_streams says how) and places
 * each box's selected part. The stored bytes are src (ref->nbytes of them), or, src NULL, read
 * from storage (fsrc) a piece at a time. *streamed = 0 (and nothing placed, or all to be placed
 * again) when the chunk should decode whole instead; a chunk file that is missing then has
 * become a fill chunk. */
static int tsr_cpu_stream(const struct tsr_cpu_job *job, struct tsr_cpu_state *ws,
			  struct tsr_chunk_ref *ref, unsigned char *src, int64_t t,
			  const struct tsr_box *tb, struct tsr_source *fsrc, uint64_t *read_ret,
			  uint64_t *decoded_ret, int *streamed)
{
	int nd = ref->ndim, j, opened = 0, st;
	size_t es = job->esize;
	int64_t cstride[TSR_MAX_DIM], s = 1, rows;
	*streamed = 0;
	if (!tsr_cpu_streams(job, ref, &j, &rows) || (!src && !tsr_chunk_streams_read(ref)))
		return TSR_OK;
	for (int i = nd - 1; i >= 0; i--) {
		cstride[i] = s;
		s *= ref->extent[i];
	}
	if (!ws->stage && !(ws->stage = malloc(TSR_CPU_STAGE_NBYTES + 64)))
		return tsr_error(TSR_E_NOMEM, "out of memory");
	struct tsr_chunk_stream cs;
	if (src) {
		st = tsr_chunk_stream_begin(&cs, ref, src, ref->nbytes, &ws->scratch);
	} else {
		if (!ws->inbuf && !(ws->inbuf = malloc(TSR_CPU_INBUF_NBYTES + 64)))
			return tsr_error(TSR_E_NOMEM, "out of memory");
		st = fsrc->be->open(fsrc, tsr_task_chunk(job->plan, t), ref);
		if (st == TSR_E_NOT_FOUND && ref->missing_is_fill) {
			tsr_chunk_set_fill(ref); /* as tsr_storage_fetch makes it */
			return TSR_OK;
		}
		if (st)
			return st;
		opened = 1;
		st = ref->nbytes ? tsr_chunk_stream_begin_read(&cs, ref, tsr_source_read_host, fsrc,
							       ref->nbytes, ws->inbuf,
							       TSR_CPU_INBUF_NBYTES, &ws->scratch)
				 : 0;
	}
	if (st <= 0)
		goto done;
	*streamed = 1;
	size_t needed = (size_t)tsr_task_needed(job->plan, t, ref->extent);
	struct tsr_chunk_box box;
	struct tsr_box sub;
	for (int i = 0; i < nd; i++) {
		box.lo[i] = 0;
		box.hi[i] = i < j ? 1 : ref->extent[i];
	}
	size_t at = 0; /* the box's first element, C order over the chunk */
	for (;;) {
		box.hi[j] = box.lo[j] + rows < ref->extent[j] ? box.lo[j] + rows : ref->extent[j];
		if (at >= needed)
			break; /* the rest of the chunk is not selected */
		size_t n = (size_t)((box.hi[j] - box.lo[j]) * cstride[j]);
		if ((st = tsr_chunk_stream_read(&cs, ws->stage, n * es)))
			goto done;
		/* the task's part of this box, if any */
		if (tsr_box_clip(tb, box.lo, box.hi, &sub))
			tsr_place(job, ref, ws->stage, &sub, &box);
		at += n;
		/* The next box, C order: on along axis j, else the next index of axes 0..j-1. */
		box.lo[j] = box.hi[j];
		if (box.lo[j] < ref->extent[j])
			continue;
		box.lo[j] = 0;
		int i = j - 1;
		for (; i >= 0; i--) {
			box.lo[i]++;
			box.hi[i]++;
			if (box.lo[i] < ref->extent[i])
				break;
			box.lo[i] = 0;
			box.hi[i] = 1;
		}
		if (i < 0)
			break;
	}
	*decoded_ret = at * es;
	if (at == (size_t)ref->npix && (st = tsr_chunk_stream_end(&cs)) == 1) {
		*streamed = 0; /* bytes after the frame: the whole-chunk decoder judges them */
		st = TSR_OK;
	}
	*read_ret = src ? ref->nbytes : cs.file_pos;
done:
	if (opened)
		fsrc->be->release(fsrc);
	return st < 0 ? st : TSR_OK;
}

/* Idle states keep buffers up to this size (a few blocks); larger ones go back to the system. */
#define TSR_CPU_KEEP_NBYTES ((size_t)4 << 20)
#define TSR_CPU_MAX_IDLE 64

/* The split chunks' buffers (split.h: a touched buffer's pages cost nothing more, where a fresh
 * chunk-sized buffer costs a page fault for every page: on a 2-core VM a fifth of a one-chunk
 * read's time) the context keeps from read to read, at most this many bytes in all (a read of
 * larger chunks frees its own at its end). */
#define TSR_CPU_KEEP_SPLIT_NBYTES ((size_t)256 << 20)

struct tsr_cpu_cache {
	pthread_mutex_t lock; /* guards idle and nidle */
	struct tsr_cpu_state *idle;
	int nidle;
	struct tsr_split_spare kept; /* split chunks' buffers between reads (its own lock) */
};

static int tsr_cpu_cache_make(struct tsr_context *ctx, void **cache_ret)
{
	(void)ctx;
	struct tsr_cpu_cache *c = calloc(1, sizeof(*c));
	if (!c)
		return tsr_error(TSR_E_NOMEM, "out of memory");
	pthread_mutex_init(&c->lock, NULL);
	pthread_mutex_init(&c->kept.lock, NULL);
	*cache_ret = c;
	return TSR_OK;
}

static void tsr_cpu_state_free(struct tsr_cpu_state *st)
{
	tsr_scratch_free(&st->scratch);
	free(st->fetch);
	free(st->vals);
	free(st->stage);
	free(st->inbuf);
	free(st->pairs);
	free(st);
}

/* Frees the cache's idle states and kept spare buffers, under their locks (reads running keep
 * theirs). */
static void tsr_cpu_cache_trim(struct tsr_cpu_cache *c)
{
	pthread_mutex_lock(&c->lock);
	struct tsr_cpu_state *idle = c->idle;
	c->idle = NULL;
	c->nidle = 0;
	pthread_mutex_unlock(&c->lock);
	while (idle) {
		struct tsr_cpu_state *st = idle;
		idle = st->next;
		tsr_cpu_state_free(st);
	}
	pthread_mutex_lock(&c->kept.lock);
	for (int i = 0; i < TSR_SPLIT_SPARES; i++) {
		free(c->kept.buf[i]);
		c->kept.buf[i] = NULL;
		c->kept.cap[i] = 0;
	}
	pthread_mutex_unlock(&c->kept.lock);
}

static void tsr_cpu_cache_free(void *cache)
{
	struct tsr_cpu_cache *c = cache;
	if (!c)
		return;
	tsr_cpu_cache_trim(c);
	pthread_mutex_destroy(&c->kept.lock);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

void tsr_cpu_trim(struct tsr_context *ctx)
{
	struct tsr_cpu_cache *c = ctx ? tsr_context_state_peek(ctx, TSR_CTX_CPU) : NULL;
	if (c)
		tsr_cpu_cache_trim(c);
}

size_t tsr_cpu_kept_nbytes(struct tsr_context *ctx, int *nidle)
{
	struct tsr_cpu_cache *c = ctx ? tsr_context_state_peek(ctx, TSR_CTX_CPU) : NULL;
	size_t n = 0;
	*nidle = 0;
	if (!c)
		return 0;
	pthread_mutex_lock(&c->lock);
	*nidle = c->nidle;
	pthread_mutex_unlock(&c->lock);
	pthread_mutex_lock(&c->kept.lock);
	for (int i = 0; i < TSR_SPLIT_SPARES; i++)
		n += c->kept.buf[i] ? c->kept.cap[i] : 0;
	pthread_mutex_unlock(&c->kept.lock);
	return n;
}

static struct tsr_cpu_state *tsr_cpu_state_get(struct tsr_cpu_cache *c)
{
	struct tsr_cpu_state *st = NULL;
	if (c) {
		pthread_mutex_lock(&c->lock);
		if ((st = c->idle)) {
			c->idle = st->next;
			c->nidle--;
		}
		pthread_mutex_unlock(&c->lock);
	}
	return st ? st : calloc(1, sizeof(*st));
}

static void tsr_cpu_state_put(struct tsr_cpu_cache *c, struct tsr_cpu_state *st)
{
	if (!st)
		return;
	if (!c) {
		tsr_cpu_state_free(st);
		return;
	}
	for (int i = 0; i < TSR_SCRATCH_SLOTS; i++)
		if (st->scratch.cap[i] > TSR_CPU_KEEP_NBYTES) {
			free(st->scratch.buf[i]);
			st->scratch.buf[i] = NULL;
			st->scratch.cap[i] = 0;
		}
	if (st->fetch_cap > TSR_CPU_KEEP_NBYTES) {
		free(st->fetch);
		st->fetch = NULL;
		st->fetch_cap = 0;
	}
	if (st->vals_cap > TSR_CPU_KEEP_NBYTES) {
		free(st->vals);
		st->vals = NULL;
		st->vals_cap = 0;
	}
	pthread_mutex_lock(&c->lock);
	int keep = c->nidle < TSR_CPU_MAX_IDLE;
	if (keep) {
		st->next = c->idle;
		c->idle = st;
		c->nidle++;
	}
	pthread_mutex_unlock(&c->lock);
	if (!keep)
		tsr_cpu_state_free(st);
}

static void tsr_cpu_spare_free(struct tsr_split_spare *sp)
{
	if (!sp)
		return;
	for (int i = 0; i < TSR_SPLIT_SPARES; i++)
		free(sp->buf[i]);
	pthread_mutex_destroy(&sp->lock);
	free(sp);
}

/* A read's spare buffers start as those the context kept from earlier reads (a concurrent read
 * on the context finds none and allocates its own). */
static void tsr_cpu_spare_seed(struct tsr_split_spare *sp, struct tsr_cpu_cache *c)
{
	if (!sp || !c)
		return;
	pthread_mutex_lock(&c->kept.lock);
	for (int i = 0; i < TSR_SPLIT_SPARES; i++) {
		sp->buf[i] = c->kept.buf[i];
		sp->cap[i] = c->kept.cap[i];
		c->kept.buf[i] = NULL;
		c->kept.cap[i] = 0;
	}
	pthread_mutex_unlock(&c->kept.lock);
}

/* At a read's end: its spare buffers go back to the context, the largest first, while they fit
 * TSR_CPU_KEEP_SPLIT_NBYTES together with what the context holds; the rest are freed. */
static void tsr_cpu_spare_keep(struct tsr_split_spare *sp, struct tsr_cpu_cache *c)
{
	if (!sp || !c)
		return;
	pthread_mutex_lock(&c->kept.lock);
	size_t held = 0;
	for (int i = 0; i < TSR_SPLIT_SPARES; i++)
		held += c->kept.cap[i];
	for (int k = 0; k < TSR_SPLIT_SPARES; k++) {
		int big = -1; /* the largest buffer left */
		for (int i = 0; i < TSR_SPLIT_SPARES; i++)
			if (sp->buf[i] && (big < 0 || sp->cap[i] > sp->cap[big]))
				big = i;
		if (big < 0)
			break;
		int slot = -1;
		for (int i = 0; i < TSR_SPLIT_SPARES && slot < 0; i++)
			if (!c->kept.buf[i])
				slot = i;
		if (slot >= 0 && sp->cap[big] <= TSR_CPU_KEEP_SPLIT_NBYTES - held) {
			c->kept.buf[slot] = sp->buf[big];
			c->kept.cap[slot] = sp->cap[big];
			held += sp->cap[big];
		} else {
			free(sp->buf[big]);
		}
		sp->buf[big] = NULL;
		sp->cap[big] = 0;
	}
	pthread_mutex_unlock(&c->kept.lock);
}

static void tsr_cpu_splits_free(struct tsr_split **splits, int64_t n)
{
	for (int64_t t = 0; splits && t < n; t++)
		tsr_split_free(splits[t]);
	free(splits);
}

/* The first pass: which tasks split, into how many shares (tsr_plan_split makes the tasks).
 * *splits_ret stays NULL when none does, or on any failure: the read then runs unsplit, and
 * the whole-chunk path reports what is wrong with a chunk. */
static void tsr_cpu_split_plan(const struct tsr_cpu_job *job, int nthreads, struct tsr_plan *out,
			       struct tsr_split ***splits_ret)
{
	const struct tsr_plan *plan = job->plan;
	const struct tsr_array *a = job->array;
	int64_t nt = plan->ntasks, any = 0;
	*splits_ret = NULL;
	if (!tsr_split_worth(nt, nthreads) || plan->part || plan->ngroups)
		return; /* (reads of points place each chunk's points whole) */
	int64_t *nshares = malloc((size_t)nt * sizeof(*nshares));
	struct tsr_split **splits = calloc((size_t)nt, sizeof(*splits));
	if (!nshares || !splits)
		goto fail;
	for (int64_t t = 0; t < nt; t++) {
		int64_t chunk = tsr_task_chunk(plan, t);
		struct tsr_chunk_ref ref;
		nshares[t] = 1;
		if (job->be->chunk_ref(a, chunk, 0, &ref))
			continue;
		struct tsr_chunk_box box;
		tsr_task_bounds(plan, t, box.lo, box.hi);
		int64_t n = tsr_split_nshares(&ref, &box, job->esize, nt, nthreads);
		if (n < 2)
			continue;
		if (!(splits[t] = tsr_split_new(&ref, &box, n)))
			goto fail;
		nshares[t] = n;
		any = 1;
	}
	if (any && tsr_plan_split(plan, nshares, out) == TSR_OK) {
		free(nshares);
		*splits_ret = splits;
		return;
	}
fail:
	free(nshares);
	tsr_cpu_splits_free(splits, nt);
}

/* Reads [from, to) of a split chunk's stored bytes into its buffer (src: the chunk open). */
static int tsr_cpu_vals(struct tsr_cpu_state *ws, size_t need)
{
	if (ws->vals_cap >= need)
		return TSR_OK;
	free(ws->vals);
	ws->vals = malloc(need);
	ws->vals_cap = ws->vals ? need : 0;
	return ws->vals ? TSR_OK : tsr_error(TSR_E_NOMEM, "out of memory");
}

/*
 * A task of an advanced selection on a chunk whose codec gives single elements
 * (tsr_chunk_gathers): its points' chunk-local elements and output places are listed from the
 * plan's units, the codec turns just those elements into values (no pass over the whole chunk
 * after inflating it: FITS GZIP_2 byte planes and big-endian swaps cost as much as the
 * inflate), and they land where the plan says.
 */
static int tsr_cpu_gather(const struct tsr_cpu_job *job, struct tsr_cpu_state *ws,
			  const struct tsr_chunk_ref *ref, unsigned char *src, int64_t t,
			  uint64_t *decoded, double *t_place)
{
	const struct tsr_plan *p = job->plan;
	int nd = p->ndim, axis[TSR_MAX_DIM];
	size_t es = job->esize;
	int64_t cstride[TSR_MAX_DIM], cnt[TSR_MAX_DIM], k[TSR_MAX_DIM];
	int64_t s = 1, total = 0, n = 1;
	for (int i = nd - 1; i >= 0; i--) {
		cstride[i] = s;
		s *= ref->extent[i];
	}
	int nu = tsr_plan_units(p, tsr_task_k0(p, t), tsr_task_k1(p, t), axis, cnt, &total);
	if (nu == 0)
		return TSR_OK;
	for (int u = 0; u < nu; u++)
		n *= cnt[u];
	size_t words = 2 * (size_t)total + 2 * (size_t)n;
	if (ws->pairs_cap < words) {
		free(ws->pairs);
		ws->pairs = malloc(words * sizeof(int64_t));
		ws->pairs_cap = ws->pairs ? words : 0;
		if (!ws->pairs)
			return tsr_error(TSR_E_NOMEM, "out of memory");
	}
	int64_t *tab = ws->pairs, *el = tab + 2 * total, *ol = el + n, *so[TSR_MAX_DIM],
		*dof[TSR_MAX_DIM];
	tsr_plan_unit_offsets(p, t, nu, axis, cnt, NULL, cstride, tab);
	for (int64_t u = 0, at = 0; u < nu; at += 2 * cnt[u], u++) {
		so[u] = tab + at;
		dof[u] = tab + at + cnt[u];
		k[u] = 0;
	}
	/* the units' product, the last unit fastest: every point's element and output place */
	for (int64_t i = 0; i < n;) {
		int64_t sb = 0, db = 0;
		for (int u = 0; u < nu - 1; u++) {
			sb += so[u][k[u]];
			db += dof[u][k[u]];
		}
		for (int64_t j = 0; j < cnt[nu - 1]; j++, i++) {
			el[i] = sb + so[nu - 1][j];
			ol[i] = db + dof[nu - 1][j];
		}
		for (int u = nu - 2; u >= 0; u--) {
			if (++k[u] < cnt[u])
				break;
			k[u] = 0;
		}
	}
	int st = tsr_cpu_vals(ws, (size_t)n * es);
	if (!st)
		st = tsr_chunk_decode_gather(ref, src, ref->nbytes, el, (size_t)n, ws->vals,
					     &ws->scratch, decoded);
	if (st)
		return st;
	double t0 = tsr_now();
	unsigned char *out = job->out;
	const unsigned char *v = ws->vals;
	switch (es) { /* fixed sizes let the compiler inline the element moves */
	case 1: for (int64_t i = 0; i < n; i++) out[ol[i]] = v[i]; break;
	case 2: for (int64_t i = 0; i < n; i++) memcpy(out + ol[i] * 2, v + i * 2, 2); break;
	case 4: for (int64_t i = 0; i < n; i++) memcpy(out + ol[i] * 4, v + i * 4, 4); break;
	case 8: for (int64_t i = 0; i < n; i++) memcpy(out + ol[i] * 8, v + i * 8, 8); break;
	default: for (int64_t i = 0; i < n; i++) memcpy(out + ol[i] * (int64_t)es, v + i * (int64_t)es, es); break;
	}
	*t_place += tsr_now() - t0;
	return TSR_OK;
}

/* Share p of P of a split chunk (split.h): its part of the pieces (blocks), each decoded
 * straight into the output where the chunk's values land there as one run, else into this
 * thread's buffer and placed. Returns nonzero when the worker should stop (the failure is
 * recorded). */
static int tsr_cpu_share(struct tsr_cpu_job *job, struct tsr_cpu_state *ws, int64_t t,
			 struct tsr_source *src, struct tsr_worker_stats *stats)
{
	const struct tsr_plan *plan = job->plan;
	struct tsr_split *s = job->splits[tsr_task_origin(plan, t)];
	struct tsr_split_sink sink = {.out = job->out, .esize = job->esize};
	tsr_task_box(plan, t, &sink.tb);
	/* (the extent as the split was made: another share may be loading s->ref now) */
	sink.direct = tsr_direct_offset(job, s->extent, &sink.tb);
	sink.needed = (size_t)tsr_task_needed(plan, t, s->extent);
	const struct tsr_split_worker w = {&ws->scratch, &ws->vals, &ws->vals_cap};
	return tsr_split_share(s, job->array, tsr_task_chunk(plan, t), tsr_task_share(plan, t),
			       tsr_task_nshares(plan, t), &sink, src, job->spare, &w, stats,
			       &job->err);
}

static void tsr_cpu_worker(void *arg, int w)
{
	struct tsr_cpu_job *job = arg;
	const struct tsr_array *a = job->array;
	struct tsr_worker_stats *stats = &job->stats[w];
	struct tsr_cpu_state *ws = tsr_cpu_state_get(job->cache);
	if (!ws) {
		tsr_job_fail(&job->err, a, -1, tsr_error(TSR_E_NOMEM, "out of memory"));
		return;
	}
	/* Chunk files stay open while the next chunk is in the same file (a shard). */
	struct tsr_source store;
	tsr_source_init(&store, job->be, a);
	const int lends = job->be->lend != NULL; /* whole chunks in memory already */
	for (;;) {
		int64_t t = atomic_fetch_add(&job->next, 1);
		if (t >= job->plan->ntasks)
			break;
		/* After a failure only chunks that would be named before it still run (a read
		 * with negative steps takes its chunks in descending order), so the message names
		 * the first failing chunk in C order whatever the threads and steps. */
		if (atomic_load(&job->err.failed) &&
		    !tsr_job_ranks_before(&job->err, tsr_task_chunk(job->plan, t)))
			continue;
		/* A stop ranks first (named by the file): the tasks after it are skipped. */
		if (tsr_stop_asked(job->stop)) {
			tsr_job_fail(&job->err, a, -1, TSR_E_STOPPED);
			break;
		}
		if (tsr_task_nshares(job->plan, t) > 1) {
			tsr_cpu_share(job, ws, t, &store, stats);
			continue;
		}
		int64_t chunk = tsr_task_chunk(job->plan, t);
		struct tsr_box tb;
		tsr_task_box(job->plan, t, &tb);
		struct tsr_chunk_ref ref;
		unsigned char *src = ws->fetch;
		double t0 = tsr_now();
		int st = job->be->chunk_ref(a, chunk, 0, &ref);
		if (st) {
			tsr_job_fail(&job->err, job->array, chunk, st);
			continue;
		}
		int64_t direct = tsr_direct_offset(job, ref.extent, &tb);
		/* A large zstd chunk is read, decoded and placed a piece at a time (the time counts
		 * as decoding): from its file, else from its bytes in memory (lent by the backend,
		 * steps before the zstd step); tsr_cpu_stream declines the rest. */
		uint64_t decoded = 0, nread = 0;
		int streamed = 0;
		/* from its file where the stored bytes are the zstd frame itself; a chunk that
		 * declines there decodes whole */
		const int from_file = direct < 0 && !lends && ref.nbytes > 0 &&
				      tsr_chunk_streams_read(&ref);
		if (from_file)
			st = tsr_cpu_stream(job, ws, &ref, NULL, t, &tb, &store, &nread, &decoded,
					    &streamed);
		/* Part of a chunk: codecs that decode in pieces (b2nd blocks) fetch and decode only
		 * the pieces under the task's box, into a box-sized buffer. */
		struct tsr_chunk_box box;
		tsr_task_bounds(job->plan, t, box.lo, box.hi);
		int done = 0; /* only the box's part fetched */
		if (st || streamed) {
			/* nothing to fetch */
		} else if (ref.nbytes > 0) {
			/* A lent chunk is whole in memory: box reads decode their blocks from
			 * it. (Points gathered from a chunk take it whole.) */
			if (!lends && direct < 0 && tsr_chunk_decodes_box(&ref) &&
			    !(job->plan->ngroups && tsr_chunk_gathers(&ref)))
				st = tsr_cpu_fetch_box(&store, chunk, &ref, &box, &ws->fetch,
						       &ws->fetch_cap, &done);
			const unsigned char *bytes = ws->fetch;
			if (!st && !done)
				st = tsr_storage_fetch(&store, chunk, &ref, &ws->fetch,
						       &ws->fetch_cap, &bytes);
			nread = ref.nbytes;
			src = (unsigned char *)bytes; /* (lent bytes: decoding only reads them) */
		}
		double t1 = tsr_now();
		if (!st && !streamed && !from_file && direct < 0 && ref.nbytes > 0) {
			uint64_t unused;
			st = tsr_cpu_stream(job, ws, &ref, src, t, &tb, NULL, &unused, &decoded,
					    &streamed);
		}
		if (st) {
			tsr_job_fail(&job->err, job->array, chunk, st);
			continue;
		}
		stats->bytes_read += nread;
		if (streamed) {
			/* from the file, reads and decoding interleave: all of it is decoding */
			stats->bytes_decoded += decoded;
			stats->t_fetch += from_file ? 0 : t1 - t0;
			stats->t_decode += tsr_now() - (from_file ? t0 : t1);
			continue;
		}
		if (job->plan->ngroups && tsr_chunk_gathers(&ref)) {
			double t_place = 0;
			st = tsr_cpu_gather(job, ws, &ref, src, t, &decoded, &t_place);
			if (st) {
				tsr_job_fail(&job->err, job->array, chunk, st);
				continue;
			}
			stats->bytes_decoded += decoded;
			stats->t_fetch += t1 - t0;
			stats->t_decode += tsr_now() - t1 - t_place;
			stats->t_place += t_place;
			continue;
		}
		/* (a chunk that cannot be its claim fails before its claim is allocated) */
		if (!done && (st = tsr_chunk_check_stored(&ref, ref.nbytes))) {
			tsr_job_fail(&job->err, job->array, chunk, st);
			continue;
		}
		int boxed = direct < 0 && tsr_chunk_decodes_box(&ref);
		unsigned char *dst;
		if (direct >= 0) {
			dst = job->out + (size_t)direct * job->esize;
		} else {
			size_t need = job->esize;
			for (int i = 0; i < ref.ndim; i++)
				need *= (size_t)(boxed ? box.hi[i] - box.lo[i] : ref.extent[i]);
			if (ws->vals_cap < need) {
				free(ws->vals);
				ws->vals = malloc(need);
				ws->vals_cap = ws->vals ? need : 0;
				if (!ws->vals) {
					tsr_job_fail(&job->err, job->array, chunk,
						     tsr_error(TSR_E_NOMEM, "out of memory"));
					continue;
				}
			}
			dst = ws->vals;
		}
		size_t needed = direct >= 0 ? 0 : (size_t)tsr_task_needed(job->plan, t, ref.extent);
		st = tsr_chunk_decode_box(&ref, src, ref.nbytes, dst, needed,
					  boxed ? &box : NULL, &ws->scratch, &decoded);
		if (st) {
			tsr_job_fail(&job->err, job->array, chunk, st);
			continue;
		}
		stats->bytes_decoded += decoded;
		double t2 = tsr_now();
		if (direct < 0 && job->plan->ngroups)
			st = tsr_place_points(job, &ref, ws->vals, t, boxed ? &box : NULL);
		else if (direct < 0)
			tsr_place(job, &ref, ws->vals, &tb, boxed ? &box : NULL);
		if (st) {
			tsr_job_fail(&job->err, job->array, chunk, st);
			continue;
		}
		double t3 = tsr_now();
		stats->t_fetch += t1 - t0;
		stats->t_decode += t2 - t1;
		stats->t_place += t3 - t2;
	}
	tsr_source_close(&store);
	tsr_cpu_state_put(job->cache, ws);
}

int tsr_cpu_run(const struct tsr_array *array, const struct tsr_plan *plan,
		const struct tsr_norm_sel *sel, void *out, int nthreads,
		const struct tsr_backend *be, const struct tsr_stop *stop, struct tsr_receipt *r)
{
	struct tsr_cpu_job job = {0};
	job.be = be;
	job.stop = stop;
	job.array = array;
	job.plan = plan;
	job.sel = sel;
	job.out = out;
	job.esize = tsr_dtype_size(array->desc.dtype);
	atomic_init(&job.next, 0);
	tsr_job_error_init(&job.err);
	/* no cache (out of memory) only makes this read's workers allocate their own states */
	void *cache = NULL;
	tsr_context_state(array->ctx, TSR_CTX_CPU, tsr_cpu_cache_make, tsr_cpu_cache_free, &cache);
	job.cache = cache;
	/* Large blosc chunks of a read with few tasks become several (block tasks). */
	struct tsr_plan split = {0};
	tsr_cpu_split_plan(&job, nthreads, &split, &job.splits);
	if (job.splits) {
		job.plan = &split;
		if ((job.spare = calloc(1, sizeof(*job.spare)))) {
			pthread_mutex_init(&job.spare->lock, NULL);
			tsr_cpu_spare_seed(job.spare, job.cache);
		}
	}
	if (nthreads > job.plan->ntasks)
		nthreads = job.plan->ntasks > 0 ? (int)job.plan->ntasks : 1;
	job.stats = calloc((size_t)nthreads, sizeof(*job.stats));
	if (!job.stats) {
		tsr_cpu_splits_free(job.splits, plan->ntasks);
		tsr_cpu_spare_free(job.spare);
		tsr_plan_free(&split);
		tsr_job_error_destroy(&job.err);
		return tsr_error(TSR_E_NOMEM, "out of memory");
	}
	tsr_pool_run(array->ctx->pool, nthreads, tsr_cpu_worker, &job);
	for (int w = 0; w < nthreads; w++) {
		r->t_fetch += job.stats[w].t_fetch;
		r->t_decode += job.stats[w].t_decode;
		r->t_place += job.stats[w].t_place;
		r->bytes_read += job.stats[w].bytes_read;
		r->bytes_decoded += job.stats[w].bytes_decoded;
	}
	r->nthreads = nthreads;
	free(job.stats);
	tsr_cpu_splits_free(job.splits, plan->ntasks);
	tsr_cpu_spare_keep(job.spare, job.cache);
	tsr_cpu_spare_free(job.spare);
	tsr_plan_free(&split);
	int st = tsr_job_error_take(&job.err);
	tsr_job_error_destroy(&job.err);
	return st;
}