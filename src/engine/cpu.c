/* cpu.c - the CPU engine: runs a plan on the context's threads (fetch, decode, place). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../codecs/codecs.h"
#include "../io/io.h"
#include "../io/mock.h"
#include "engine.h"

struct tsr_worker_stats {
	double t_fetch, t_decode, t_place;
	uint64_t bytes_read, bytes_decoded;
	char pad[64]; /* keep workers' counters on separate cache lines */
};

struct tsr_cpu_job {
	const struct tsr_array *array;
	const struct tsr_plan *plan;
	const struct tsr_norm_sel *sel;
	unsigned char *out;
	size_t esize;
	int mock;               /* chunk bytes from the handle's mock-host cache, filled already */
	atomic_llong next;
	struct tsr_job_error err;
	struct tsr_cpu_cache *cache; /* the context's idle worker states; NULL: none */
	struct tsr_worker_stats *stats;
};

/* Scatter the selected part of a decoded chunk into the output. vals is C order over the
 * chunk's extent, or over vbox's shape when the codec decoded only that box. */
static void tsr_place(const struct tsr_cpu_job *job, const struct tsr_chunk_ref *ref,
		      const unsigned char *vals, int64_t chunk, const int64_t *k0, const int64_t *k1,
		      const struct tsr_chunk_box *vbox)
{
	const struct tsr_desc *d = &job->array->desc;
	const struct tsr_plan *p = job->plan;
	int nd = d->ndim;
	size_t es = job->esize;
	int64_t coord[TSR_MAX_DIM], cstride[TSR_MAX_DIM];
	int64_t rem = chunk, s = 1;
	for (int i = nd - 1; i >= 0; i--) {
		coord[i] = rem % d->grid[i];
		rem /= d->grid[i];
		cstride[i] = s;
		s *= vbox ? vbox->hi[i] - vbox->lo[i] : ref->extent[i];
	}
	/* box-shaped vals: chunk-local positions shift by the box's corner */
	int64_t base = 0;
	for (int i = 0; vbox && i < nd; i++)
		base -= vbox->lo[i] * cstride[i];
	if (nd == 0) {
		memcpy(job->out, vals, es);
		return;
	}
	/* Per axis: the start of position k0 and the move of one step, in vals and in out. */
	int64_t cnt[TSR_MAX_DIM], sstr[TSR_MAX_DIM], dstr[TSR_MAX_DIM], k[TSR_MAX_DIM];
	int64_t so = base, doff = 0;
	for (int i = 0; i < nd; i++) {
		const struct tsr_dim_sel *si = &job->sel->dim[i];
		cnt[i] = k1[i] - k0[i];
		sstr[i] = si->step * cstride[i];
		dstr[i] = p->out_stride[i];
		so += (si->start + k0[i] * si->step - coord[i] * d->chunk_shape[i]) * cstride[i];
		doff += k0[i] * p->out_stride[i];
		k[i] = 0;
	}
	/* Merge axes that are contiguous in both buffers, so the copies get long. */
	int m = nd;
	while (m >= 2 && sstr[m - 1] == 1 && dstr[m - 1] == 1 && sstr[m - 2] == cnt[m - 1] &&
	       dstr[m - 2] == cnt[m - 1]) {
		cnt[m - 2] *= cnt[m - 1];
		sstr[m - 2] = dstr[m - 2] = 1;
		m--;
	}
	int64_t n = cnt[m - 1];
	ptrdiff_t sstep = (ptrdiff_t)sstr[m - 1] * (ptrdiff_t)es;
	for (;;) {
		const unsigned char *from = vals + so * (int64_t)es;
		unsigned char *to = job->out + doff * (int64_t)es;
		if (sstr[m - 1] == 1) {
			memcpy(to, from, (size_t)n * es);
		} else {
			switch (es) { /* fixed sizes let the compiler inline the element moves */
			case 1: for (int64_t j = 0; j < n; j++, from += sstep, to += 1) memcpy(to, from, 1); break;
			case 2: for (int64_t j = 0; j < n; j++, from += sstep, to += 2) memcpy(to, from, 2); break;
			case 4: for (int64_t j = 0; j < n; j++, from += sstep, to += 4) memcpy(to, from, 4); break;
			case 8: for (int64_t j = 0; j < n; j++, from += sstep, to += 8) memcpy(to, from, 8); break;
			default: for (int64_t j = 0; j < n; j++, from += sstep, to += es) memcpy(to, from, es); break;
			}
		}
		int i = m - 2;
		for (; i >= 0; i--) {
			so += sstr[i];
			doff += dstr[i];
			if (++k[i] < cnt[i])
				break;
			so -= sstr[i] * cnt[i];
			doff -= dstr[i] * cnt[i];
			k[i] = 0;
		}
		if (i < 0)
			break;
	}
}

/* When the chunk's selected part is the whole chunk and lands as one contiguous run in the
 * output, the chunk can be decoded straight into place. Returns the output offset or -1. */
static int64_t tsr_direct_offset(const struct tsr_cpu_job *job, const struct tsr_chunk_ref *ref,
				 const int64_t *k0, const int64_t *k1)
{
	const struct tsr_norm_sel *sel = job->sel;
	int nd = job->array->desc.ndim;
	int outer = 1; /* still on the outermost axes where only one run is allowed */
	int64_t off = 0;
	for (int i = 0; i < nd; i++) {
		if (sel->dim[i].step != 1 || k1[i] - k0[i] != ref->extent[i])
			return -1;
		off += k0[i] * job->plan->out_stride[i];
	}
	/* Inner axes must be complete in the output too. */
	for (int i = 0; i < nd; i++) {
		if (outer) {
			if (ref->extent[i] > 1)
				outer = 0;
			continue;
		}
		if (ref->extent[i] != sel->dim[i].count)
			return -1;
	}
	return off;
}

/* One past the chunk-local C-order index of the last element the task needs. */
static size_t tsr_needed_prefix(const struct tsr_cpu_job *job, const struct tsr_chunk_ref *ref,
				int64_t chunk, const int64_t *k0, const int64_t *k1)
{
	const struct tsr_desc *d = &job->array->desc;
	int64_t rem = chunk, stride = 1, last = 0;
	for (int i = d->ndim - 1; i >= 0; i--) {
		const struct tsr_dim_sel *s = &job->sel->dim[i];
		int64_t origin = (rem % d->grid[i]) * d->chunk_shape[i];
		rem /= d->grid[i];
		int64_t kmax = s->step > 0 ? k1[i] - 1 : k0[i];
		last += (s->start + kmax * s->step - origin) * stride;
		stride *= ref->extent[i];
	}
	return (size_t)last + 1;
}

/* The chunk-local bounding box of the positions a task selects (codecs that decode in pieces
 * decode only the pieces under it). */
static void tsr_task_box(const struct tsr_cpu_job *job, int64_t chunk, const int64_t *k0,
			 const int64_t *k1, struct tsr_chunk_box *box)
{
	const struct tsr_desc *d = &job->array->desc;
	int64_t rem = chunk;
	for (int i = d->ndim - 1; i >= 0; i--) {
		const struct tsr_dim_sel *s = &job->sel->dim[i];
		int64_t origin = (rem % d->grid[i]) * d->chunk_shape[i];
		rem /= d->grid[i];
		int64_t a = s->start + k0[i] * s->step - origin;
		int64_t b = s->start + (k1[i] - 1) * s->step - origin;
		box->lo[i] = a < b ? a : b;
		box->hi[i] = (a < b ? b : a) + 1;
	}
}

/* A chunk file of its own (or the array's file) read at ref->offset + off. */
struct tsr_cpu_reader {
	int fd;
	uint64_t base;
};

static int tsr_cpu_read_at(void *arg, void *dst, size_t nbytes, uint64_t off)
{
	const struct tsr_cpu_reader *r = arg;
	return tsr_io_pread(r->fd, dst, nbytes, r->base + off);
}

/* Fetches only what decoding the box needs when the codec can tell (tsr_chunk_fetch_part
 * decides; callers only ask for chunks tsr_chunk_decodes_box accepts); *done = 0 leaves the
 * whole-chunk fetch to tsr_io_fetch. */
static int tsr_cpu_fetch_box(const struct tsr_array *a, struct tsr_chunk_ref *ref,
			     const struct tsr_chunk_box *box, unsigned char **buf, size_t *cap,
			     int *done)
{
	struct tsr_cpu_reader rd = {a->fd, ref->offset};
	uint64_t got = 0;
	int st;
	*done = 0;
	if (ref->path[0]) {
		uint64_t size;
		if ((st = tsr_io_open(ref->path, &rd.fd, &size)))
			return ref->missing_is_fill && st == TSR_E_NOT_FOUND ? TSR_OK : st;
		if (ref->nbytes == TSR_WHOLE_FILE)
			ref->nbytes = size > ref->offset ? size - ref->offset : 0;
	}
	st = tsr_chunk_fetch_part(ref, box, tsr_cpu_read_at, &rd, buf, cap, &got);
	if (rd.fd != a->fd)
		tsr_io_close(rd.fd);
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
	unsigned char *fetch, *vals;
	size_t fetch_cap, vals_cap;
	struct tsr_cpu_state *next;
};

/* Idle states keep buffers up to this size (a few blocks); larger ones go back to the system. */
#define TSR_CPU_KEEP_NBYTES ((size_t)4 << 20)
#define TSR_CPU_MAX_IDLE 64

struct tsr_cpu_cache {
	pthread_mutex_t lock; /* guards idle and nidle */
	struct tsr_cpu_state *idle;
	int nidle;
};

static int tsr_cpu_cache_make(struct tsr_context *ctx, void **cache_ret)
{
	(void)ctx;
	struct tsr_cpu_cache *c = calloc(1, sizeof(*c));
	if (!c)
		return tsr_error(TSR_E_NOMEM, "out of memory");
	pthread_mutex_init(&c->lock, NULL);
	*cache_ret = c;
	return TSR_OK;
}

static void tsr_cpu_state_free(struct tsr_cpu_state *st)
{
	tsr_scratch_free(&st->scratch);
	free(st->fetch);
	free(st->vals);
	free(st);
}

static void tsr_cpu_cache_free(void *cache)
{
	struct tsr_cpu_cache *c = cache;
	if (!c)
		return;
	while (c->idle) {
		struct tsr_cpu_state *st = c->idle;
		c->idle = st->next;
		tsr_cpu_state_free(st);
	}
	pthread_mutex_destroy(&c->lock);
	free(c);
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
	struct tsr_fd_cache fdc = {.fd = -1};
	for (;;) {
		int64_t t = atomic_fetch_add(&job->next, 1);
		if (t >= job->plan->ntasks || atomic_load(&job->err.failed))
			break;
		int64_t chunk = tsr_task_chunk(job->plan, t);
		const int64_t *k0 = tsr_task_k0(job->plan, t), *k1 = tsr_task_k1(job->plan, t);
		struct tsr_chunk_ref ref;
		unsigned char *src = ws->fetch;
		double t0 = tsr_now();
		int st = TSR_OK;
		if (job->mock) {
			/* The cached ref is the one the fill's real fetch settled. */
			const struct tsr_mock_chunk *mc = tsr_mock_chunk(a, chunk);
			if (mc) {
				ref = mc->ref;
				src = mc->bytes; /* decoding only reads it: shared by all threads */
			} else {
				st = tsr_error(TSR_E_INTERNAL, "not in the mock-host cache");
			}
		} else {
			st = a->ops->chunk_ref(a, chunk, &ref);
		}
		if (st) {
			tsr_job_fail(&job->err, job->array, chunk, st);
			break;
		}
		ref.ndim = a->desc.ndim;
		int64_t direct = tsr_direct_offset(job, &ref, k0, k1);
		/* Part of a chunk: codecs that decode in pieces (b2nd blocks) fetch and decode only
		 * the pieces under the task's box, into a box-sized buffer. */
		struct tsr_chunk_box box;
		tsr_task_box(job, chunk, k0, k1, &box);
		if (ref.nbytes > 0 && job->mock) {
			/* Box reads decode their blocks from the whole cached chunk. */
			stats->bytes_read += ref.nbytes;
		} else if (ref.nbytes > 0) {
			int done = 0;
			if (direct < 0 && tsr_chunk_decodes_box(&ref))
				st = tsr_cpu_fetch_box(a, &ref, &box, &ws->fetch, &ws->fetch_cap, &done);
			if (!st && !done)
				st = tsr_io_fetch_cached(a, &ref, &ws->fetch, &ws->fetch_cap, &fdc);
			if (st) {
				tsr_job_fail(&job->err, job->array, chunk, st);
				break;
			}
			stats->bytes_read += ref.nbytes;
			src = ws->fetch;
		}
		double t1 = tsr_now();
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
					break;
				}
			}
			dst = ws->vals;
		}
		uint64_t decoded = 0;
		size_t needed = direct >= 0 ? 0 : tsr_needed_prefix(job, &ref, chunk, k0, k1);
		st = tsr_chunk_decode_box(&ref, src, ref.nbytes, dst, needed,
					  boxed ? &box : NULL, &ws->scratch, &decoded);
		if (st) {
			tsr_job_fail(&job->err, job->array, chunk, st);
			break;
		}
		stats->bytes_decoded += decoded;
		double t2 = tsr_now();
		if (direct < 0)
			tsr_place(job, &ref, ws->vals, chunk, k0, k1, boxed ? &box : NULL);
		double t3 = tsr_now();
		stats->t_fetch += t1 - t0;
		stats->t_decode += t2 - t1;
		stats->t_place += t3 - t2;
	}
	tsr_fd_cache_close(&fdc);
	tsr_cpu_state_put(job->cache, ws);
}

int tsr_cpu_run(const struct tsr_array *array, const struct tsr_plan *plan,
		const struct tsr_norm_sel *sel, void *out, int nthreads, int mock,
		struct tsr_receipt *r)
{
	struct tsr_cpu_job job = {0};
	job.mock = mock;
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
	if (nthreads > plan->ntasks)
		nthreads = plan->ntasks > 0 ? (int)plan->ntasks : 1;
	job.stats = calloc((size_t)nthreads, sizeof(*job.stats));
	if (!job.stats) {
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
	int st = tsr_job_error_take(&job.err);
	tsr_job_error_destroy(&job.err);
	return st;
}
