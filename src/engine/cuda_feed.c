/* cuda_feed.c - the CUDA engine's feed: the pool's threads read stored bytes through the read's
 * storage backend into the staging slots' device memory in the background, across slots and a
 * batch's files, while the host plans the next ones. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../io/storage.h"
#include "engine.h"

#ifdef TSR_WITH_CUDA
#include "cuda_engine.h"

/*
 * Why a feed: filling each slot with one pool run made every thread wait, at the end of each
 * slot and of each file of a batch, for the slowest read and for the host's serial setup of the
 * next file (the workers were busy 88% of the time; KvikIO's pool never waits). The feed's
 * queue holds reads of many slots and files; a slot's kernels run once its own reads have
 * landed, while the threads already read the next. Items carry what their read needs (path,
 * offset, size, destination), so a batch's earlier files may close while their bytes arrive.
 * Each thread copies what it reads to the device itself (cuda_engine.h says why).
 */

void tsr_feed_init(struct tsr_feed *f)
{
	memset(f, 0, sizeof(*f));
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->more, NULL);
	pthread_cond_init(&f->landed, NULL);
}

void tsr_feed_lanes_free(struct tsr_feed *f)
{
	for (int w = 0; w < TSR_FEED_LANES; w++) {
		struct tsr_feed_lane *l = &f->lane[w];
		if (!l->made)
			continue;
		cudaStreamSynchronize(l->stream);
		for (int k = 0; k < TSR_BOUNCES; k++) {
			cudaEventDestroy(l->ev[k]);
			cudaFreeHost(l->bounce[k]);
		}
		for (int k = 0; k < TSR_NSLOTS; k++)
			cudaEventDestroy(l->mark[k]);
		cudaStreamDestroy(l->stream);
		l->made = 0; /* (made again on its next use: tsr_feed_lane_make) */
	}
}

void tsr_feed_destroy(struct tsr_feed *f)
{
	tsr_feed_lanes_free(f);
	free(f->items);
	free(f->srcs);
	free(f->text);
	pthread_cond_destroy(&f->landed);
	pthread_cond_destroy(&f->more);
	pthread_mutex_destroy(&f->lock);
}

/* A taker's way into storage: the source (file) of its last item, kept open for the next. */
struct tsr_feed_fd {
	uint32_t src;
	struct tsr_source in;   /* in.be NULL: not opened yet */
	struct tsr_feed_lane *lane;
	char path[4096];
};

static void tsr_feed_fd_close(struct tsr_feed_fd *fc)
{
	tsr_source_close(&fc->in);
}

/* The lane's stream, events and bounce buffers, made on first use. */
static int tsr_feed_lane_make(struct tsr_feed *f, struct tsr_feed_lane *l)
{
	if (l->made)
		return TSR_OK;
	cudaError_t e = cudaSetDevice(f->device);
	int k = 0;
	if (!e)
		e = cudaStreamCreateWithFlags(&l->stream, cudaStreamNonBlocking);
	if (e)
		return tsr_cuda_fail(e, "feed stream");
	int m = 0;
	while (m < TSR_NSLOTS && !(e = cudaEventCreateWithFlags(&l->mark[m], cudaEventDisableTiming)))
		m++;
	if (m < TSR_NSLOTS) {
		while (m-- > 0)
			cudaEventDestroy(l->mark[m]);
		cudaStreamDestroy(l->stream);
		return tsr_cuda_fail(e, "feed events");
	}
	for (; k < TSR_BOUNCES; k++) {
		if ((e = cudaEventCreateWithFlags(&l->ev[k], cudaEventDisableTiming)))
			break;
		if ((e = cudaHostAlloc((void **)&l->bounce[k], TSR_BOUNCE_NBYTES,
				       cudaHostAllocDefault))) {
			cudaEventDestroy(l->ev[k]);
			break;
		}
	}
	if (k < TSR_BOUNCES) {
		while (k-- > 0) {
			cudaEventDestroy(l->ev[k]);
			cudaFreeHost(l->bounce[k]);
		}
		for (m = 0; m < TSR_NSLOTS; m++)
			cudaEventDestroy(l->mark[m]);
		cudaStreamDestroy(l->stream);
		return tsr_cuda_fail(e, "bounce buffers");
	}
	l->next = 0;
	l->carried = 0;
	l->made = 1;
	return TSR_OK;
}

/* Reads an item through the lane's bounce buffers, each piece copied to the device on the
 * lane's stream as soon as it is read (while it is still in the CPU's caches). */
static int tsr_feed_read_copy(struct tsr_feed *f, struct tsr_feed_lane *l, struct tsr_source *in,
			      const struct tsr_feed_item *it)
{
	int st = tsr_feed_lane_make(f, l);
	for (uint64_t off = 0; off < it->nbytes && st == TSR_OK; off += TSR_BOUNCE_NBYTES) {
		size_t n = it->nbytes - off < TSR_BOUNCE_NBYTES ? (size_t)(it->nbytes - off)
								 : TSR_BOUNCE_NBYTES;
		int k = l->next;
		l->next = (k + 1) % TSR_BOUNCES;
		cudaError_t e = cudaEventSynchronize(l->ev[k]);
		if (e)
			return tsr_cuda_fail(e, "bounce copy");
		if ((st = in->be->read(in, TSR_MEM_HOST_PINNED, l->bounce[k], 0, n,
				       it->offset + off)))
			break;
		if ((e = cudaMemcpyAsync(it->dst + off, l->bounce[k], n, cudaMemcpyHostToDevice,
					 l->stream)) ||
		    (e = cudaEventRecord(l->ev[k], l->stream)))
			return tsr_cuda_fail(e, "bounce copy");
	}
	cudaError_t e;
	if (st == TSR_OK && (e = cudaEventRecord(l->mark[it->slot], l->stream)))
		return tsr_cuda_fail(e, "feed copies");
	return st;
}

int tsr_feed_order(struct tsr_feed *f, int slot, cudaStream_t ss)
{
	cudaError_t e = cudaSuccess;
	pthread_mutex_lock(&f->lock);
	for (int w = 0; w < TSR_FEED_LANES && !e; w++) {
		struct tsr_feed_lane *l = &f->lane[w];
		if (!(l->carried & 1u << slot))
			continue;
		l->carried &= ~(1u << slot);
		e = cudaStreamWaitEvent(ss, l->mark[slot], 0);
	}
	pthread_mutex_unlock(&f->lock);
	return e ? tsr_cuda_fail(e, "feed copies") : TSR_OK;
}

/* Appends s (with its NUL) to the feed's text; the offset, or UINT32_MAX without memory. */
static uint32_t tsr_feed_text(struct tsr_feed *f, const char *s)
{
	size_t n = strlen(s) + 1;
	if (f->text_len + n > UINT32_MAX ||
	    tsr_grow((void **)&f->text, &f->text_cap, f->text_len + n, 1, 16384))
		return UINT32_MAX;
	memcpy(f->text + f->text_len, s, n);
	f->text_len += n;
	return (uint32_t)(f->text_len - n);
}

/*
 * Takes the next item and reads it (called with the lock held; released during the read). After
 * a failure, items are taken and dropped unread, so that the slots' counts still reach zero.
 */
static void tsr_feed_take(struct tsr_feed *f, struct tsr_feed_fd *fc)
{
	struct tsr_feed_item it = f->items[f->next++];
	int st = TSR_OK;
	if (!f->status && !f->dropping) {
		if (fc->in.be != it.be) {
			tsr_feed_fd_close(fc);
			tsr_source_init(&fc->in, it.be, NULL);
			fc->src = UINT32_MAX;
		}
		if (fc->src != it.src) {
			/* (a copy: the text may move while this thread reads unlocked) */
			fc->src = it.src;
			snprintf(fc->path, sizeof(fc->path), "%s", f->text + f->srcs[it.src].path);
		}
		pthread_mutex_unlock(&f->lock);
		double t0 = tsr_now();
		/* (the source keeps the file open for its next item) */
		st = fc->in.be->open_path(&fc->in, fc->path);
		if (st == TSR_OK) {
			st = tsr_feed_read_copy(f, fc->lane, &fc->in, &it);
			fc->in.be->release(&fc->in);
		}
		double t = tsr_now() - t0;
		char msg[400];
		if (st)
			snprintf(msg, sizeof(msg), "%s", tsr_errmsg());
		pthread_mutex_lock(&f->lock);
		if (st == TSR_OK) /* (its mark is recorded on the lane) */
			fc->lane->carried |= 1u << it.slot;
		f->t_read += t;
		if (st && !f->status) {
			const struct tsr_feed_src *src = &f->srcs[it.src];
			char num[32];
			snprintf(num, sizeof(num), "%lld", (long long)it.chunk);
			f->status = st;
			snprintf(f->msg, sizeof(f->msg), "%.300s %.300s: %s", f->text + src->prefix,
				 it.label != UINT32_MAX ? f->text + it.label : num, msg);
		}
	}
	if (--f->left[it.slot] == 0)
		pthread_cond_broadcast(&f->landed);
}

/* Pool worker: reads items until the feed closes. */
static void tsr_feed_worker(void *arg, int w)
{
	struct tsr_feed *f = arg;
	struct tsr_feed_fd fc = {.src = UINT32_MAX,
				 .lane = &f->lane[w < TSR_FEED_LANES ? w : TSR_FEED_LANES - 1]};
	cudaSetDevice(f->device); /* (the runtime's device is per thread) */
	pthread_mutex_lock(&f->lock);
	for (;;) {
		if (f->next < f->n)
			tsr_feed_take(f, &fc);
		else if (f->closing)
			break;
		else
			pthread_cond_wait(&f->more, &f->lock);
	}
	pthread_mutex_unlock(&f->lock);
	tsr_feed_fd_close(&fc);
}

/* The source index of path (the last one, when it is the same file), added when new. */
static int tsr_feed_src(struct tsr_feed *f, const char *path, uint32_t prefix, uint32_t *src_ret)
{
	if (f->nsrcs && !strcmp(f->text + f->srcs[f->nsrcs - 1].path, path)) {
		*src_ret = (uint32_t)(f->nsrcs - 1);
		return TSR_OK;
	}
	int st = tsr_grow((void **)&f->srcs, &f->srcs_cap, f->nsrcs + 1, sizeof(*f->srcs), 256);
	if (st)
		return st;
	uint32_t at = tsr_feed_text(f, path);
	if (at == UINT32_MAX)
		return tsr_error(TSR_E_NOMEM, "out of memory");
	f->srcs[f->nsrcs] = (struct tsr_feed_src){at, prefix};
	*src_ret = (uint32_t)f->nsrcs++;
	return TSR_OK;
}

/*
 * Queues the reads of a job's tasks into slot `slot` (the stored bytes of its raw and inflate tasks),
 * starting the feed on the pool when it is not running; the reads are the job's spans coalesced
 * and split by the feed's rule.
 */
int tsr_feed_queue(struct tsr_feed *f, struct tsr_pool *pool, int nthreads,
		   const struct tsr_cuda_job *job, int slot, uint64_t *bytes)
{
	const struct tsr_array *a = job->array;
	char prefix[1400];
	tsr_array_chunk_name(a, 0, prefix, sizeof(prefix), NULL, 0);
	/* the stored bytes of the tasks whose values the CPU does not make (see tsr_cuda_run) */
	struct tsr_span *spans = malloc((size_t)(job->ntasks ? job->ntasks : 1) * sizeof(*spans));
	int64_t *task = malloc((size_t)(job->ntasks ? job->ntasks : 1) * sizeof(*task)), nspans = 0;
	struct tsr_piece *pieces = NULL;
	int64_t npieces = 0;
	size_t pcap = 0;
	int st = spans && task ? TSR_OK : tsr_error(TSR_E_NOMEM, "out of memory");
	if (st == TSR_OK)
		nspans = tsr_cuda_spans(job->tasks, job->ntasks, 1, spans, task);
	if (st == TSR_OK)
		st = tsr_cuda_feed_pieces(spans, nspans, nthreads, &pieces, &npieces, &pcap);
	size_t added = 0;
	pthread_mutex_lock(&f->lock);
	uint32_t pfx = st == TSR_OK ? tsr_feed_text(f, prefix) : UINT32_MAX;
	if (st == TSR_OK && pfx == UINT32_MAX)
		st = tsr_error(TSR_E_NOMEM, "out of memory");
	if (st == TSR_OK)
		st = tsr_grow((void **)&f->items, &f->cap, f->n + (size_t)npieces,
			      sizeof(*f->items), 4096);
	uint32_t src = 0, label = UINT32_MAX;
	for (int64_t k = 0, last = -1; k < npieces && st == TSR_OK; k++) {
		const struct tsr_piece *pc = &pieces[k];
		const struct tsr_cuda_task *ct = &job->tasks[task[pc->span]];
		int64_t chunk = tsr_task_chunk(job->plan, ct->t);
		if (pc->span != last) { /* (a chunk's pieces share its names) */
			last = pc->span;
			label = UINT32_MAX;
			const char *path = ct->ti->path[0] ? ct->ti->path : a->path;
			if ((st = tsr_feed_src(f, path, pfx, &src)))
				break;
			if (a->desc.chunk_label) {
				char name[320];
				a->desc.chunk_label(a, chunk, name, sizeof(name));
				label = tsr_feed_text(f, name);
			}
		}
		f->items[f->n++] = (struct tsr_feed_item){
			.be = job->be, .src = src, .label = label, .slot = slot, .chunk = chunk,
			.offset = pc->offset, .nbytes = pc->nbytes, .dst = job->dev + pc->dst};
		*bytes += pc->nbytes;
		added++;
	}
	f->left[slot] += (int64_t)added;
	if (added)
		pthread_cond_broadcast(&f->more);
	int start = !f->pool && st == TSR_OK && added;
	if (start) {
		f->pool = pool;
		f->owner = pthread_self();
	}
	pthread_mutex_unlock(&f->lock);
	free(pieces);
	free(spans);
	free(task);
	if (start)
		tsr_pool_start(pool, nthreads, tsr_feed_worker, f);
	return st;
}

/* Reads items on the calling thread until slot's reads have all landed; the feed's status. */
int tsr_feed_wait_slot(struct tsr_feed *f, int slot)
{
	struct tsr_feed_fd fc = {.src = UINT32_MAX, .lane = &f->lane[0]};
	pthread_mutex_lock(&f->lock);
	while (f->left[slot] > 0) {
		if (f->next < f->n)
			tsr_feed_take(f, &fc);
		else
			pthread_cond_wait(&f->landed, &f->lock);
	}
	int st = f->status;
	pthread_mutex_unlock(&f->lock);
	tsr_feed_fd_close(&fc);
	if (st)
		tsr_error_set_text(f->msg);
	return st;
}

/* Whether slot's reads have all landed (no waiting). */
int tsr_feed_landed(struct tsr_feed *f, int slot)
{
	pthread_mutex_lock(&f->lock);
	int done = f->left[slot] == 0;
	pthread_mutex_unlock(&f->lock);
	return done;
}

/*
 * Ends the feed: every read landed (with drop: the reads not started are dropped, and failures
 * are not reported), the pool's threads released, the queue emptied. Returns the first failure
 * (its message set), and forgets it. (The read time stays for tsr_feed_take_time.)
 */
int tsr_feed_stop(struct tsr_feed *f, int drop)
{
	struct tsr_feed_fd fc = {.src = UINT32_MAX, .lane = &f->lane[0]};
	pthread_mutex_lock(&f->lock);
	f->dropping = drop;
	while (f->next < f->n)
		tsr_feed_take(f, &fc);
	f->closing = 1;
	pthread_cond_broadcast(&f->more);
	struct tsr_pool *pool = f->pool;
	pthread_mutex_unlock(&f->lock);
	tsr_feed_fd_close(&fc);
	if (pool)
		tsr_pool_wait(pool);
	for (int w = 0; w < TSR_FEED_LANES; w++) /* no copy into a slot outlives the feed */
		if (f->lane[w].made)
			cudaStreamSynchronize(f->lane[w].stream);
	/* every item is taken, and the threads that read them are done */
	int st = drop ? TSR_OK : f->status; /* dropped: the caller has its own error */
	if (st)
		tsr_error_set_text(f->msg);
	f->status = 0;
	f->closing = 0;
	f->dropping = 0;
	f->pool = NULL;
	f->n = f->next = f->nsrcs = f->text_len = 0;
	memset(f->left, 0, sizeof(f->left));
	return st;
}

/* The read time of landed items since the last call, added to *t_read. */
void tsr_feed_take_time(struct tsr_feed *f, double *t_read)
{
	pthread_mutex_lock(&f->lock);
	*t_read += f->t_read;
	f->t_read = 0;
	pthread_mutex_unlock(&f->lock);
}

#endif
