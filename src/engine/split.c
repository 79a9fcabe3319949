/* split.c - one large chunk's blocks decoded in shares by a pool's threads (split.h): the rule, the shared chunk's load, a share's decode and placing, for both engines. */
#include <stdlib.h>
#include <string.h>

#include "split.h"

/* A read splits chunks only when it has fewer than TSR_SPLIT_TASKS tasks per thread: with
 * more, whole chunks already keep every thread busy, and splitting would only add a shared
 * state and waits. A chunk then becomes up to TSR_SPLIT_TASKS * nthreads / ntasks shares
 * (a few per thread, so that threads finishing early find work), never more than one per
 * TSR_SPLIT_PART_NBYTES of values the blocks under its task hold: a share smaller than that
 * spends as long on the task and the shared state as on decoding; so a chunk too small for two
 * such shares stays one task. How many blocks the task needs shows only in the chunk's header,
 * which the first share reads: a chunk needing fewer than 2 blocks then decodes whole in share
 * 0, and shares past the last block find none and end at once. */
#define TSR_SPLIT_TASKS 4
#define TSR_SPLIT_PART_NBYTES ((uint64_t)256 << 10)

/* TSR_SPLIT_PART_NBYTES, or the environment's TSR_CPU_PART_NBYTES (tests set it small, to split
 * the corpus's small chunks too). */
static uint64_t tsr_split_part_nbytes_v = TSR_SPLIT_PART_NBYTES;
static pthread_once_t tsr_split_part_once = PTHREAD_ONCE_INIT;
static void tsr_split_part_env(void)
{
	const char *e = getenv("TSR_CPU_PART_NBYTES");
	long long v = e ? atoll(e) : 0;
	if (v > 0)
		tsr_split_part_nbytes_v = (uint64_t)v;
}

int tsr_split_worth(int64_t ntasks, int nthreads)
{
	return nthreads >= 2 && ntasks > 0 && ntasks < (int64_t)TSR_SPLIT_TASKS * nthreads;
}

int64_t tsr_split_nshares(const struct tsr_chunk_ref *ref, const struct tsr_chunk_box *box,
			  size_t esize, int64_t ntasks, int nthreads)
{
	if (!tsr_split_worth(ntasks, nthreads))
		return 1;
	pthread_once(&tsr_split_part_once, tsr_split_part_env);
	int64_t target = (int64_t)TSR_SPLIT_TASKS * nthreads;
	uint64_t need = ref->nbytes > 0 ? tsr_chunk_split_nbytes(ref, box) : 0;
	/* A task that needs less than half its chunk is a section: it stays whole, on the path
	 * sections are tuned for (a b2nd part fetch reads only its blocks, into a buffer the
	 * thread keeps), where a split chunk pays for a chunk-sized buffer. */
	if (need * 2 < (uint64_t)ref->npix * esize)
		return 1;
	int64_t n = (target + ntasks - 1) / ntasks;
	if ((uint64_t)n > need / tsr_split_part_nbytes_v)
		n = (int64_t)(need / tsr_split_part_nbytes_v);
	return n < 2 ? 1 : n;
}

struct tsr_split *tsr_split_new(const struct tsr_chunk_ref *ref, const struct tsr_chunk_box *box,
				int64_t nshares)
{
	struct tsr_split *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	pthread_mutex_init(&s->lock, NULL);
	s->ref = *ref;
	s->box = *box;
	atomic_init(&s->left, nshares);
	s->ndim = ref->ndim;
	memcpy(s->extent, ref->extent, sizeof(s->extent));
	return s;
}

unsigned char *tsr_split_spare_take(struct tsr_split_spare *sp, size_t n, size_t *cap_ret)
{
	unsigned char *b = NULL;
	if (sp) {
		pthread_mutex_lock(&sp->lock);
		for (int i = 0; i < TSR_SPLIT_SPARES && !b; i++)
			if (sp->buf[i] && sp->cap[i] >= n) {
				b = sp->buf[i];
				*cap_ret = sp->cap[i];
				sp->buf[i] = NULL;
			}
		pthread_mutex_unlock(&sp->lock);
	}
	if (!b && (b = tsr_alloc_big(n)))
		*cap_ret = n;
	return b;
}

/* Keeps b for a later chunk when a slot is free (a larger buffer displaces a smaller one). */
void tsr_split_spare_give(struct tsr_split_spare *sp, unsigned char *b, size_t cap)
{
	if (sp && b) {
		pthread_mutex_lock(&sp->lock);
		for (int i = 0; i < TSR_SPLIT_SPARES && b; i++)
			if (!sp->buf[i] || sp->cap[i] < cap) {
				unsigned char *old = sp->buf[i];
				size_t oc = sp->cap[i];
				sp->buf[i] = b;
				sp->cap[i] = cap;
				b = old;
				cap = oc;
			}
		pthread_mutex_unlock(&sp->lock);
	}
	free(b);
}

void tsr_split_spare_init(struct tsr_split_spare *sp)
{
	memset(sp, 0, sizeof(*sp));
	pthread_mutex_init(&sp->lock, NULL);
}

void tsr_split_spare_trim(struct tsr_split_spare *sp, size_t keep_nbytes)
{
	pthread_mutex_lock(&sp->lock);
	/* the largest first, each kept while the kept ones fit */
	int order[TSR_SPLIT_SPARES], n = 0;
	for (int i = 0; i < TSR_SPLIT_SPARES; i++)
		if (sp->buf[i]) {
			int j = n++;
			for (; j > 0 && sp->cap[order[j - 1]] < sp->cap[i]; j--)
				order[j] = order[j - 1];
			order[j] = i;
		}
	size_t held = 0;
	for (int k = 0; k < n; k++) {
		int i = order[k];
		if (sp->cap[i] <= keep_nbytes - held) {
			held += sp->cap[i];
			continue;
		}
		free(sp->buf[i]);
		sp->buf[i] = NULL;
		sp->cap[i] = 0;
	}
	pthread_mutex_unlock(&sp->lock);
}

void tsr_split_spare_destroy(struct tsr_split_spare *sp)
{
	for (int i = 0; i < TSR_SPLIT_SPARES; i++)
		free(sp->buf[i]);
	pthread_mutex_destroy(&sp->lock);
}

static void tsr_split_release(struct tsr_split *s, struct tsr_split_spare *sp)
{
	tsr_chunk_parts_free(s->parts);
	s->parts = NULL;
	if (!s->lent)
		tsr_split_spare_give(sp, s->bytes, s->cap);
	s->bytes = NULL;
}

void tsr_split_free(struct tsr_split *s)
{
	if (!s)
		return;
	tsr_split_release(s, NULL);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

void tsr_split_sink_whole(int ndim, const int64_t *extent, unsigned char *out, size_t esize,
			  struct tsr_split_sink *sink)
{
	memset(sink, 0, sizeof(*sink));
	sink->out = out;
	sink->esize = esize;
	sink->direct = 0;
	sink->needed = 0;
	struct tsr_box *b = &sink->tb;
	b->ndim = ndim;
	b->out_first = 0;
	int64_t st = 1;
	for (int i = ndim - 1; i >= 0; i--) {
		b->first[i] = 0;
		b->step[i] = 1;
		b->count[i] = extent[i];
		b->out_stride[i] = st;
		st *= extent[i];
	}
}

static int tsr_split_vals(const struct tsr_split_worker *w, size_t need)
{
	if (*w->vals_cap >= need)
		return TSR_OK;
	free(*w->vals);
	*w->vals = malloc(need);
	*w->vals_cap = *w->vals ? need : 0;
	return *w->vals ? TSR_OK : tsr_error(TSR_E_NOMEM, "out of memory");
}

void tsr_split_place(unsigned char *out, size_t es, const struct tsr_chunk_ref *ref,
		     const unsigned char *vals, const struct tsr_box *b,
		     const struct tsr_chunk_box *vbox)
{
	int nd = b->ndim;
	int64_t cstride[TSR_MAX_DIM], s = 1;
	for (int i = nd - 1; i >= 0; i--) {
		cstride[i] = s;
		s *= vbox ? vbox->hi[i] - vbox->lo[i] : ref->extent[i];
	}
	/* box-shaped vals: chunk-local positions shift by the box's corner */
	int64_t base = 0;
	for (int i = 0; vbox && i < nd; i++)
		base -= vbox->lo[i] * cstride[i];
	if (nd <= 0) {
		memcpy(out, vals, es);
		return;
	}
	/* Per axis: the box's first element and the move of one step, in vals and in out. */
	int64_t cnt[TSR_MAX_DIM], sstr[TSR_MAX_DIM], dstr[TSR_MAX_DIM], k[TSR_MAX_DIM];
	int64_t so = base, doff = b->out_first;
	for (int i = 0; i < nd; i++) {
		cnt[i] = b->count[i];
		sstr[i] = b->step[i] * cstride[i];
		dstr[i] = b->out_stride[i];
		so += b->first[i] * cstride[i];
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
		unsigned char *to = out + doff * (int64_t)es;
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

/* Places the selected part of vals, a box of the chunk in C order over vbox's shape (which may
 * reach past the extent, into a b2nd block's padding). */
static void tsr_split_place_box(const struct tsr_split_sink *k, const struct tsr_chunk_ref *ref,
				const unsigned char *vals, const struct tsr_box *tb,
				const struct tsr_chunk_box *vbox)
{
	int64_t hi[TSR_MAX_DIM];
	struct tsr_box sub;
	for (int i = 0; i < tb->ndim; i++)
		hi[i] = vbox->hi[i] < ref->extent[i] ? vbox->hi[i] : ref->extent[i];
	if (tsr_box_clip(tb, vbox->lo, hi, &sub))
		tsr_split_place(k->out, k->esize, ref, vals, &sub, vbox);
}

/* Places the selected part of vals, the chunk's values [first, first + count) in C order: as
 * the few boxes such a run is (a partial row, whole rows, whole planes, ...). */
static void tsr_split_place_run(const struct tsr_split_sink *k, const struct tsr_chunk_ref *ref,
				const unsigned char *vals, const struct tsr_box *tb, int64_t first,
				int64_t count)
{
	int nd = ref->ndim;
	int64_t inner[TSR_MAX_DIM + 1]; /* inner[j]: elements of one index on axis j - 1 */
	inner[nd] = 1;
	for (int j = nd - 1; j >= 0; j--)
		inner[j] = inner[j + 1] * ref->extent[j];
	for (int64_t e = first, end = first + count; e < end;) {
		int64_t x[TSR_MAX_DIM] = {0}, rem = e; /* (zeroed: gcc cannot see j < nd) */
		for (int j = nd - 1; j >= 0; j--) {
			x[j] = rem % ref->extent[j];
			rem /= ref->extent[j];
		}
		/* the outermost axis j the box can range on: later axes start at 0 and are whole */
		int j = nd - 1;
		while (j > 0 && x[j] == 0 && inner[j] <= end - e)
			j--;
		int64_t rows = (end - e) / inner[j + 1];
		if (rows > ref->extent[j] - x[j])
			rows = ref->extent[j] - x[j];
		struct tsr_chunk_box box;
		for (int i = 0; i < nd; i++) {
			box.lo[i] = i <= j ? x[i] : 0;
			box.hi[i] = i < j ? x[i] + 1 : i == j ? x[i] + rows : ref->extent[i];
		}
		tsr_split_place_box(k, ref, vals + (e - first) * (int64_t)k->esize, tb, &box);
		e += rows * inner[j + 1];
	}
}
/* Reads [from, to) of a split chunk's stored bytes into its buffer (src: the chunk open). */
static int tsr_split_read(struct tsr_split *s, struct tsr_source *src, uint64_t from,
			  uint64_t to, struct tsr_worker_stats *stats)
{
	if (to <= from)
		return TSR_OK;
	stats->bytes_read += to - from;
	return src->be->read(src, TSR_MEM_HOST, s->bytes, (size_t)from, (size_t)(to - from), from);
}

/* Loads a split chunk (under its lock): its head (blosc header, block table, dictionary), from
 * which each share then reads its own blocks' bytes; or, where pieces cannot be read on their
 * own, all its stored bytes. Then its pieces. */
static int tsr_split_load(const struct tsr_array *array, struct tsr_split *s, int64_t chunk,
			  struct tsr_source *src, struct tsr_split_spare *spare,
			  struct tsr_scratch *scratch, struct tsr_worker_stats *stats)
{
	double t0 = tsr_now();
	int st = TSR_OK, opened = 0;
	uint64_t have = 0, n = 0;
	if (src->be->lend) {
		/* a backend holding the chunk in memory: shared by all threads (only read) */
		s->bytes = (unsigned char *)src->be->lend(array, chunk);
		s->lent = 1;
		if (!s->bytes && s->ref.nbytes)
			return tsr_error(TSR_E_INTERNAL, "not in the %s cache", src->be->name);
		s->full = 1;
		stats->bytes_read += s->ref.nbytes;
	} else if (s->ref.nbytes > 0) {
		st = src->be->open(src, chunk, &s->ref);
		if (st == TSR_E_NOT_FOUND && s->ref.missing_is_fill) {
			tsr_chunk_set_fill(&s->ref); /* as tsr_storage_fetch makes it */
			return TSR_OK;
		}
		if (st)
			return st;
		opened = 1;
		n = s->ref.nbytes;
		if (n > SIZE_MAX - 64 ||
		    !(s->bytes = tsr_split_spare_take(spare, (size_t)n + 64, &s->cap))) {
			st = tsr_error(TSR_E_NOMEM, "out of memory for %llu bytes", (unsigned long long)n);
			goto done;
		}
		memset(s->bytes + n, 0, 64); /* the slack tsr_storage_fetch leaves */
		uint64_t want = n < 4096 ? n : 4096;
		for (;;) {
			if ((st = tsr_split_read(s, src, have, want, stats)))
				goto done;
			have = want;
			size_t head = tsr_chunk_parts_head(&s->ref, s->bytes, (size_t)have, n);
			if (head == 0)
				want = n; /* the whole chunk, now */
			else if (head > have)
				want = head;
			if (want <= have)
				break;
		}
		s->full = have == n;
	}
	double t1 = tsr_now();
	if (s->ref.nbytes > 0 && tsr_chunk_split_nbytes(&s->ref, &s->box))
		st = tsr_chunk_parts_open(&s->ref, s->bytes, s->ref.nbytes, &s->box, scratch,
					  &s->parts);
	double t2 = tsr_now();
	uint64_t off, len;
	if (!st && !s->full &&
	    !(s->parts && tsr_chunk_parts_count(s->parts) > 0 &&
	      tsr_chunk_parts_span(s->parts, 0, &off, &len))) {
		/* pieces that cannot be read on their own, or a chunk that decodes whole */
		st = tsr_split_read(s, src, have, n, stats);
		s->full = 1;
	}
	stats->t_fetch += t1 - t0 + tsr_now() - t2;
	stats->t_decode += t2 - t1;
done:
	if (opened)
		src->be->release(src);
	return st;
}

static int tsr_split_span_cmp(const void *x, const void *y)
{
	const uint64_t *a = x, *b = y;
	return a[0] < b[0] ? -1 : a[0] > b[0];
}

/* Reads the stored bytes of pieces [i0, i1) of a split chunk, by this share: the chunk's read
 * spreads over the threads. Their blocks, in file order, one read per run of adjacent ones
 * (threaded writers store a chunk's blocks in about their order, not exactly). */
static int tsr_split_share_read(struct tsr_split *s, int64_t chunk, int64_t i0, int64_t i1,
				struct tsr_source *src, struct tsr_worker_stats *stats)
{
	size_t n = (size_t)(i1 - i0);
	uint64_t *span = malloc(n * 2 * sizeof(*span));
	if (!span)
		return tsr_error(TSR_E_NOMEM, "out of memory");
	int st = TSR_OK;
	for (size_t k = 0; k < n && !st; k++)
		if (!tsr_chunk_parts_span(s->parts, i0 + (int64_t)k, &span[2 * k], &span[2 * k + 1]))
			st = tsr_error(TSR_E_INTERNAL, "piece %lld has no span", (long long)(i0 + (int64_t)k));
	qsort(span, n, 2 * sizeof(*span), tsr_split_span_cmp);
	/* spans land at their own offsets in the chunk's buffer: the one rule, without limits */
	struct tsr_span *sp = st ? NULL : malloc(n * sizeof(*sp));
	if (!st && !sp)
		st = tsr_error(TSR_E_NOMEM, "out of memory");
	for (size_t k = 0; k < n && !st; k++)
		sp[k] = (struct tsr_span){"", span[2 * k], span[2 * k + 1], span[2 * k]};
	static const struct tsr_coalesce_rule whole = {UINT64_MAX, UINT64_MAX, UINT64_MAX, 0, 0};
	struct tsr_piece *pc = NULL;
	int64_t npc = 0;
	size_t pcap = 0;
	if (!st)
		st = tsr_coalesce(sp, (int64_t)n, &whole, &pc, &npc, &pcap);
	struct tsr_chunk_ref r = s->ref; /* the open may write to it */
	double t0 = tsr_now();
	if (!st && !(st = src->be->open(src, chunk, &r))) {
		for (int64_t k = 0; k < npc && !st; k++)
			st = tsr_split_read(s, src, pc[k].offset, pc[k].offset + pc[k].nbytes, stats);
		src->be->release(src);
	}
	stats->t_fetch += tsr_now() - t0;
	free(pc);
	free(sp);
	free(span);
	return st;
}

/* A split chunk whose load found no pieces: share 0 decodes it whole from the shared bytes,
 * as the whole-chunk path would. */
static int tsr_split_whole(struct tsr_split *s, const struct tsr_split_sink *k,
			   const struct tsr_split_worker *w, struct tsr_worker_stats *stats)
{
	struct tsr_chunk_ref *ref = &s->ref;
	int boxed = k->direct < 0 && tsr_chunk_decodes_box(ref);
	unsigned char *dst;
	int st;
	if (k->direct >= 0) {
		dst = k->out + (size_t)k->direct * k->esize;
	} else {
		size_t need = k->esize;
		for (int i = 0; i < ref->ndim; i++)
			need *= (size_t)(boxed ? s->box.hi[i] - s->box.lo[i] : ref->extent[i]);
		if ((st = tsr_split_vals(w, need)))
			return st;
		dst = *w->vals;
	}
	double t0 = tsr_now();
	uint64_t decoded = 0;
	size_t needed = k->direct >= 0 ? 0 : k->needed;
	if ((st = tsr_chunk_decode_box(ref, s->bytes, ref->nbytes, dst, needed,
				       boxed ? &s->box : NULL, w->scratch, &decoded)))
		return st;
	double t1 = tsr_now();
	if (k->direct < 0)
		tsr_split_place(k->out, k->esize, ref, *w->vals, &k->tb, boxed ? &s->box : NULL);
	stats->bytes_decoded += decoded;
	stats->t_decode += t1 - t0;
	stats->t_place += tsr_now() - t1;
	return TSR_OK;
}

int tsr_split_share(struct tsr_split *s, const struct tsr_array *array, int64_t chunk, int64_t p,
		    int64_t np, const struct tsr_split_sink *k, struct tsr_source *src,
		    struct tsr_split_spare *spare, const struct tsr_split_worker *w,
		    struct tsr_worker_stats *stats, struct tsr_job_error *err)
{
	int st = TSR_OK, report = 1;
	pthread_mutex_lock(&s->lock);
	if (!s->loaded) {
		s->status = tsr_split_load(array, s, chunk, src, spare, w->scratch, stats);
		s->loaded = 1;
	} else if (s->status) {
		report = 0; /* the loading share has reported it */
	}
	st = s->status;
	pthread_mutex_unlock(&s->lock);
	if (st)
		goto done;
	int64_t n = s->parts ? tsr_chunk_parts_count(s->parts) : 0;
	if (n == 0) {
		if (p == 0)
			st = tsr_split_whole(s, k, w, stats);
		goto done;
	}
	int64_t i0 = n * p / np, i1 = n * (p + 1) / np;
	size_t es = k->esize;
	if (!s->full && i0 < i1 && (st = tsr_split_share_read(s, chunk, i0, i1, src, stats)))
		goto done;
	for (int64_t i = i0; i < i1; i++) {
		struct tsr_chunk_piece pc;
		tsr_chunk_parts_piece(s->parts, i, &pc);
		double t0 = tsr_now();
		if (!pc.is_box && k->direct >= 0 && pc.nbytes == (size_t)pc.count * es) {
			st = tsr_chunk_parts_decode(s->parts, i,
						    k->out + (size_t)(k->direct + pc.first) * es,
						    w->scratch, &stats->bytes_decoded);
			stats->t_decode += tsr_now() - t0;
		} else {
			if ((st = tsr_split_vals(w, pc.nbytes)) ||
			    (st = tsr_chunk_parts_decode(s->parts, i, *w->vals, w->scratch,
							 &stats->bytes_decoded)))
				break;
			double t1 = tsr_now();
			if (pc.is_box)
				tsr_split_place_box(k, &s->ref, *w->vals, &k->tb, &pc.box);
			else
				tsr_split_place_run(k, &s->ref, *w->vals, &k->tb, pc.first, pc.count);
			stats->t_decode += t1 - t0;
			stats->t_place += tsr_now() - t1;
		}
		if (st || atomic_load(&err->failed))
			break;
	}
done:
	if (st && report)
		tsr_job_fail(err, array, chunk, st);
	/* the last share done frees the chunk: no share reads it after its own end */
	if (atomic_fetch_sub(&s->left, 1) == 1)
		tsr_split_release(s, spare);
	return st || atomic_load(&err->failed);
}
