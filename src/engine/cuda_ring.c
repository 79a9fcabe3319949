/* cuda_ring.c - the CUDA engine's staging ring: pinned slots, their streams and events, sending a
 * filled slot to the GPU (copy, inflate, place), and judging its inflate results. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include "../codecs/codecs.h"
#include "engine.h"

#ifdef TSR_WITH_CUDA
#include "cuda_engine.h"

int tsr_cuda_fail(cudaError_t e, const char *what)
{
	int st = tsr_cuda_status(e, TSR_E_IO);
	return tsr_error(st, "%s: %s: %s", st == TSR_E_NO_DEVICE ? "no CUDA device" : "CUDA", what,
			 cudaGetErrorString(e));
}

/* Frees a slot's buffers (its work must be done); keeps its stream and events. (The CUDA frees,
 * like free, take NULL.) */
static void tsr_cuda_slot_buffers_free(struct tsr_cuda_slot *s)
{
	cudaFreeHost(s->host);
	cudaFreeHost(s->host_places);
	cudaFreeHost(s->host_io);
	cudaFreeHost(s->host_res);
	cudaFree(s->dev);
	cudaFree(s->dev_places);
	cudaFree(s->dec);
	cudaFree(s->dev_io);
	cudaFree(s->dev_res);
	cudaFreeHost(s->host_bf);
	cudaFree(s->dev_bf);
	free(s->checks);
	s->host = s->dev = s->dec = s->host_res = s->dev_res = NULL;
	s->host_places = s->dev_places = NULL;
	s->host_io = s->dev_io = NULL;
	s->host_bf = s->dev_bf = NULL;
	s->checks = NULL;
	s->nbytes = s->dec_nbytes = 0;
}

/* Frees the slot's memory (its buffers and blosc operation tables; not its stream and events):
 * it is allocated again as the slot next opens. */
static void tsr_cuda_slot_memory_free(struct tsr_cuda_slot *s)
{
	tsr_cuda_slot_buffers_free(s);
	cudaFreeHost(s->bops);
	cudaFree(s->dev_bops);
	s->bops = s->dev_bops = NULL;
	s->nbops = s->bops_cap = s->dev_bops_cap = 0;
}

/* Judges a slot's pending inflate results (when check), then forgets them. */
static int tsr_cuda_slot_judge(struct tsr_cuda_slot *s, int check)
{
	if (!s->pending)
		return TSR_OK;
	s->pending = 0;
	cudaError_t e = cudaEventSynchronize(s->checked);
	if (!check)
		return TSR_OK;
	if (e)
		return tsr_cuda_fail(e, "GPU decode");
	const uint64_t *sizes = (const uint64_t *)s->host_res;
	const int *status = (const int *)(s->host_res + 8 * s->nstreams);
	for (size_t i = 0; i < s->nstreams; i++) {
		const struct tsr_cuda_check *c = &s->checks[i];
		char why[320], num[32];
		int fam = c->rc.kind / TSR_VARIANTS;
		int bad = tsr_route_verdict(&c->rc, status[i],
					    tsr_cuda_families[fam].status_name(status[i]), sizes[i],
					    s->names[c->name], why, sizeof(why));
		if (bad == TSR_OK)
			continue;
		const char *label = num;
		if (c->has_label && s->labels)
			label = s->labels + i * TSR_LABEL_NBYTES;
		else
			snprintf(num, sizeof(num), "%lld", (long long)c->chunk);
		const char *prefix = s->ptext && c->prefix_at < s->ptext_len ? s->ptext + c->prefix_at
									     : "";
		return tsr_error(bad, "%s %s: %s", prefix, label, why);
	}
	return TSR_OK;
}

/* Waits for all work dispatched to the ring, oldest batch first; judges (check) or drops the
 * inflate results still pending. Returns the first failure. An open slot stays open. */
int tsr_cuda_settle(struct tsr_cuda_state *cs, int check)
{
	int st = TSR_OK;
	for (int k = 0; k < TSR_NSLOTS; k++) {
		struct tsr_cuda_slot *s = &cs->slot[(cs->next_slot + k) % TSR_NSLOTS];
		if (!s->made)
			continue;
		cudaError_t e = cudaStreamSynchronize(s->stream);
		if (e && st == TSR_OK && check)
			st = tsr_cuda_fail(e, "GPU decode and place");
		int one = tsr_cuda_slot_judge(s, check && st == TSR_OK);
		if (st == TSR_OK)
			st = one;
	}
	return st;
}

/* Gives the slot buffers of nbytes (its earlier work is done and judged). */
static int tsr_cuda_slot_alloc(struct tsr_cuda_slot *s, size_t nbytes)
{
	tsr_cuda_slot_buffers_free(s);
	cudaError_t e;
	if ((e = cudaHostAlloc((void **)&s->host, nbytes, cudaHostAllocDefault)) ||
	    (e = cudaMalloc((void **)&s->dev, nbytes)) ||
	    (e = cudaHostAlloc((void **)&s->host_places,
			       TSR_SLOT_PLACES * sizeof(struct tsr_cuda_place),
			       cudaHostAllocDefault)) ||
	    (e = cudaMalloc((void **)&s->dev_places,
			    TSR_SLOT_PLACES * sizeof(struct tsr_cuda_place))) ||
	    (e = cudaHostAlloc((void **)&s->host_io, 4 * 8 * (size_t)TSR_SLOT_STREAMS,
			       cudaHostAllocDefault)) ||
	    (e = cudaMalloc((void **)&s->dev_io, 4 * 8 * (size_t)TSR_SLOT_STREAMS)) ||
	    (e = cudaHostAlloc((void **)&s->host_res, TSR_RES_NBYTES, cudaHostAllocDefault)) ||
	    (e = cudaMalloc((void **)&s->dev_res, TSR_RES_NBYTES + TSR_SCRATCH_NBYTES)) ||
	    (e = cudaHostAlloc((void **)&s->host_bf,
			       TSR_SLOT_PLACES * sizeof(struct tsr_cuda_bfilter),
			       cudaHostAllocDefault)) ||
	    (e = cudaMalloc((void **)&s->dev_bf,
			    TSR_SLOT_PLACES * sizeof(struct tsr_cuda_bfilter)))) {
		tsr_cuda_slot_buffers_free(s);
		return tsr_cuda_fail(e, "staging buffers");
	}
	s->checks = malloc(TSR_SLOT_STREAMS * sizeof(*s->checks));
	if (!s->checks) {
		tsr_cuda_slot_buffers_free(s);
		return tsr_error(TSR_E_NOMEM, "out of memory");
	}
	s->nbytes = nbytes;
	return TSR_OK;
}

/* Whether a slot other than s is sealed and not yet sent. */
static int tsr_cuda_unsent(const struct tsr_cuda_state *cs, const struct tsr_cuda_slot *s)
{
	for (int k = 0; k < TSR_NSLOTS; k++)
		if (&cs->slot[k] != s && cs->slot[k].sealed)
			return 1;
	return 0;
}

/*
 * Waits for s's last GPU work (*e: how it ended), sending meanwhile the newer slots whose feed
 * reads land: where the feed reads ahead of slots the GPU decodes, they would otherwise wait
 * unsent, the GPU busy with s alone, until the wait ended. With none left to send, it blocks.
 */
static int tsr_cuda_wait_placed(struct tsr_cuda_state *cs, struct tsr_cuda_slot *s,
				cudaError_t *e)
{
	for (;;) {
		int st = tsr_cuda_send_landed(cs);
		if (st)
			return st;
		*e = cudaEventQuery(s->placed);
		if (*e != cudaErrorNotReady)
			return TSR_OK;
		if (cudaPeekAtLastError() == cudaErrorNotReady)
			(void)cudaGetLastError(); /* (not a failure for a later launch's check) */
		if (!tsr_cuda_unsent(cs, s)) {
			*e = cudaEventSynchronize(s->placed);
			return TSR_OK;
		}
		struct timespec ts = {0, 20000}; /* (a landed slot goes within 20 us) */
		nanosleep(&ts, NULL);
	}
}

/*
 * Opens the ring's next slot for filling (or returns the open one): its stream made, its last
 * batch copied and judged (an error there names that batch's file), its buffers as large as
 * the reads need.
 */
int tsr_cuda_slot_open(struct tsr_cuda_state *cs, struct tsr_cuda_slot **s_ret)
{
	struct tsr_cuda_slot *s = &cs->slot[cs->next_slot];
	*s_ret = s;
	if (s->open)
		return TSR_OK;
	int st;
	if (s->sealed && (st = tsr_cuda_send(cs, s))) /* the ring came round to it */
		return st;
	cudaError_t e;
	if (!s->made) {
		cudaEvent_t *ev[3] = {&s->copied, &s->placed, &s->checked};
		int k = 0;
		if ((e = cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking)))
			return tsr_cuda_fail(e, "stream");
		while (k < 3 && !(e = cudaEventCreateWithFlags(ev[k], cudaEventDisableTiming)))
			k++;
		if (k < 3) {
			while (k-- > 0)
				cudaEventDestroy(*ev[k]);
			cudaStreamDestroy(s->stream);
			return tsr_cuda_fail(e, "events");
		}
		s->made = 1;
	}
	/* Its last batch placed, not only copied: cuFile and the feed's copies write the device
	 * staging from other streams, which the slot's kernels do not order. (Six slots back, it
	 * is long done.) */
	double t0 = tsr_now();
	st = tsr_cuda_wait_placed(cs, s, &e);
	cs->t_wait += tsr_now() - t0;
	if (st)
		return st;
	if (e)
		return tsr_cuda_fail(e, "place kernel");
	if ((st = tsr_cuda_slot_judge(s, 1)))
		return st;
	if (s->nbytes < cs->slot_want || s->dec_nbytes < cs->dec_want) {
		/* The slot's last kernels may still read the old buffers. */
		t0 = tsr_now();
		e = cudaStreamSynchronize(s->stream);
		cs->t_wait += tsr_now() - t0;
		if (e)
			return tsr_cuda_fail(e, "GPU decode and place");
		if (s->nbytes < cs->slot_want && (st = tsr_cuda_slot_alloc(s, cs->slot_want)))
			return st;
		if (s->dec_nbytes < cs->dec_want) {
			cudaFree(s->dec);
			s->dec = NULL;
			s->dec_nbytes = 0;
			if ((e = cudaMalloc((void **)&s->dec, cs->dec_want)))
				return tsr_cuda_fail(e, "decode buffers");
			s->dec_nbytes = cs->dec_want;
		}
	}
	s->used = s->dec_used = s->nplaces = s->ntasks = s->nstreams = s->nbops = s->nbf = 0;
	s->general = 0;
	s->bf_blocks = 0;
	s->bf_passes = 0;
	s->max_rows = 1;
	s->nnames = 0;
	s->ptext_len = 0;
	s->pfx_seq = 0;
	s->owner = pthread_self();
	s->open = 1;
	return TSR_OK;
}

/* Forgets the open slot's batch (a read failed: nothing of it may land). Only the calling
 * thread's: another thread's batch read goes on. */
void tsr_cuda_drop_open(struct tsr_cuda_state *cs)
{
	struct tsr_cuda_slot *s = &cs->slot[cs->next_slot];
	if (s->open && pthread_equal(s->owner, pthread_self()))
		s->open = 0;
}

/* The context's CUDA states, one per device it has read on (made on first use). */
struct tsr_cuda_devs {
	pthread_mutex_t lock;   /* guards making the states */
	int count;              /* devices there when the context first read on a GPU */
	struct tsr_cuda_state *dev[TSR_CUDA_MAX_DEVICES];
};

/* Makes a context's device table (tsr_context_state calls it once, under the context's lock). */
static int tsr_cuda_devs_make(struct tsr_context *ctx, void **state_ret)
{
	(void)ctx;
	int n = 0;
	int st = tsr_cuda_device_count(&n);
	if (st)
		return st;
	struct tsr_cuda_devs *dv = calloc(1, sizeof(*dv));
	if (!dv)
		return tsr_error(TSR_E_NOMEM, "out of memory");
	pthread_mutex_init(&dv->lock, NULL);
	dv->count = n < TSR_CUDA_MAX_DEVICES ? n : TSR_CUDA_MAX_DEVICES;
	*state_ret = dv;
	return TSR_OK;
}

/* Makes device `device`'s state (that device current). */
static int tsr_cuda_state_make(int device, struct tsr_cuda_state **cs_ret)
{
	struct tsr_cuda_state *cs = calloc(1, sizeof(*cs));
	if (!cs)
		return tsr_error(TSR_E_NOMEM, "out of memory");
	pthread_mutex_init(&cs->lock, NULL);
	tsr_feed_init(&cs->feed);
	tsr_split_spare_init(&cs->spare);
	cs->device = device;
	cs->feed.device = device;
	struct cudaDeviceProp prop;
	if (cudaGetDeviceProperties(&prop, device) == cudaSuccess)
		snprintf(cs->name, sizeof(cs->name), "%s", prop.name);
	cudaError_t e = cudaEventCreateWithFlags(&cs->entry, cudaEventDisableTiming);
	if (e) {
		tsr_feed_destroy(&cs->feed);
		tsr_split_spare_destroy(&cs->spare);
		pthread_mutex_destroy(&cs->lock);
		free(cs);
		return tsr_cuda_fail(e, "event");
	}
	*cs_ret = cs;
	return TSR_OK;
}

static void tsr_cuda_devs_free(void *p);

/* The context's CUDA state of `device`, created on first use. */
int tsr_cuda_state_get(struct tsr_context *ctx, int device, struct tsr_cuda_state **cs_ret)
{
	void *state = NULL;
	*cs_ret = NULL;
	int st = tsr_context_state(ctx, TSR_CTX_CUDA, tsr_cuda_devs_make, tsr_cuda_devs_free,
				   &state);
	if (st)
		return st;
	struct tsr_cuda_devs *dv = state;
	if (device < 0 || device >= dv->count)
		return tsr_error(TSR_E_NO_DEVICE, "CUDA device %d does not exist: %d CUDA device%s "
				 "here (ordinals 0 to %d)", device, dv->count,
				 dv->count == 1 ? "" : "s", dv->count - 1);
	pthread_mutex_lock(&dv->lock);
	if (!dv->dev[device]) {
		int prev = -1;
		cudaGetDevice(&prev);
		cudaError_t e = cudaSetDevice(device);
		st = e ? tsr_cuda_fail(e, "cudaSetDevice") : tsr_cuda_state_make(device, &dv->dev[device]);
		if (prev >= 0 && prev != device)
			cudaSetDevice(prev);
	}
	*cs_ret = dv->dev[device];
	pthread_mutex_unlock(&dv->lock);
	return st;
}

static void tsr_cuda_state_free(struct tsr_cuda_state *cs)
{
	tsr_cuda_settle(cs, 0);
	for (int i = 0; i < TSR_NSLOTS; i++) {
		struct tsr_cuda_slot *s = &cs->slot[i];
		tsr_cuda_slot_memory_free(s);
		free(s->labels);
		free(s->ptext);
		free(s->ranges);
		free(s->cp_args);
		if (s->made) {
			cudaEventDestroy(s->copied);
			cudaEventDestroy(s->placed);
			cudaEventDestroy(s->checked);
			cudaStreamDestroy(s->stream);
		}
	}
	free(cs->tasks);
	tsr_split_spare_destroy(&cs->spare);
	/* (the feed is not running: every read that starts it stops it before it returns) */
	tsr_feed_destroy(&cs->feed);
	if (cs->pool)
		tsr_pool_free(cs->pool);
	if (cs->aid)
		tsr_pool_free(cs->aid);
	cudaEventDestroy(cs->entry);
	/* (the launchers' scratch pool keeps memory between batches: it goes with the context) */
	tsr_cuda_scratch_trim(cs->device);
	pthread_mutex_destroy(&cs->lock);
	free(cs);
}

static void tsr_cuda_devs_free(void *p)
{
	struct tsr_cuda_devs *dv = p;
	if (!dv)
		return;
	int prev = -1;
	cudaGetDevice(&prev);
	for (int d = 0; d < dv->count; d++) {
		if (!dv->dev[d])
			continue;
		cudaSetDevice(d); /* (its streams, events and buffers are that device's) */
		tsr_cuda_state_free(dv->dev[d]);
	}
	if (prev >= 0)
		cudaSetDevice(prev);
	pthread_mutex_destroy(&dv->lock);
	free(dv);
}

/* Frees what a device's state keeps between reads (cs->lock held, that device current): its
 * slots' buffers, the feed's bounce buffers, the split chunks' spare buffers and the decoders'
 * unused scratch; the next read allocates what it needs. A batch read between its files holds
 * the ring (a slot open, sealed or with results to judge, or the feed running): then the state
 * is left as it is. */
static void tsr_cuda_state_trim(struct tsr_cuda_state *cs)
{
	if (cs->feed.pool)
		return;
	for (int i = 0; i < TSR_NSLOTS; i++)
		if (cs->slot[i].open || cs->slot[i].sealed || cs->slot[i].pending)
			return;
	tsr_cuda_settle(cs, 0); /* (nothing pending: waits for the slots' streams only) */
	for (int i = 0; i < TSR_NSLOTS; i++)
		tsr_cuda_slot_memory_free(&cs->slot[i]);
	cs->slot_want = cs->dec_want = 0;
	tsr_feed_lanes_free(&cs->feed);
	tsr_split_spare_trim(&cs->spare, 0);
	tsr_cuda_scratch_trim(cs->device);
}

void tsr_cuda_trim(struct tsr_context *ctx)
{
	struct tsr_cuda_devs *dv = ctx ? tsr_context_state_peek(ctx, TSR_CTX_CUDA) : NULL;
	if (!dv)
		return;
	int prev = -1;
	cudaGetDevice(&prev);
	for (int d = 0; d < dv->count; d++) {
		pthread_mutex_lock(&dv->lock);
		struct tsr_cuda_state *cs = dv->dev[d];
		pthread_mutex_unlock(&dv->lock);
		if (!cs)
			continue;
		pthread_mutex_lock(&cs->lock);
		cudaSetDevice(d);
		tsr_cuda_state_trim(cs);
		pthread_mutex_unlock(&cs->lock);
	}
	if (prev >= 0)
		cudaSetDevice(prev);
}

void tsr_cuda_quiesce(struct tsr_context *ctx, int device)
{
	struct tsr_cuda_devs *dv = ctx ? tsr_context_state_peek(ctx, TSR_CTX_CUDA) : NULL;
	if (device < 0 && cudaGetDevice(&device) != cudaSuccess)
		return;
	if (!dv || device < 0 || device >= dv->count)
		return;
	pthread_mutex_lock(&dv->lock);
	struct tsr_cuda_state *cs = dv->dev[device];
	pthread_mutex_unlock(&dv->lock);
	if (!cs)
		return;
	int prev = -1;
	cudaGetDevice(&prev);
	pthread_mutex_lock(&cs->lock);
	cudaSetDevice(device);
	tsr_cuda_flush(cs, 1);
	tsr_cuda_drop_open(cs);
	tsr_cuda_settle(cs, 0);
	pthread_mutex_unlock(&cs->lock);
	if (prev >= 0)
		cudaSetDevice(prev);
}

/*
 * The slot's noted host ranges to the device, on its stream (on_dev: the CPU's values; else
 * every task's bytes but the blosc chunks' rooms): several in one batch copy. None noted: on_dev
 * nothing (the stored bytes are there), else all the staging used.
 */
static cudaError_t tsr_cuda_copy_noted(struct tsr_cuda_slot *s)
{
	const size_t n = s->nranges;
	if (n == 0)
		return s->on_dev || !s->used ? cudaSuccess
					     : cudaMemcpyAsync(s->dev, s->host, s->used,
							       cudaMemcpyHostToDevice, s->stream);
	/* the batch's arguments: n destinations, n sources and n sizes, in one block */
	const size_t each = 2 * sizeof(void *) + sizeof(size_t);
	if (n > 1 && n > s->cp_cap) {
		free(s->cp_args);
		s->cp_args = malloc(n * each);
		s->cp_cap = s->cp_args ? n : 0;
	}
	if (n == 1 || !s->cp_args) { /* (one range, or no room for the arguments: a copy each) */
		cudaError_t e = cudaSuccess;
		for (size_t k = 0; k < n && !e; k++)
			e = cudaMemcpyAsync(s->dev + s->ranges[k][0], s->host + s->ranges[k][0],
					    s->ranges[k][1] - s->ranges[k][0],
					    cudaMemcpyHostToDevice, s->stream);
		return e;
	}
	void **dst = s->cp_args;
	const void **src = (const void **)(dst + n);
	size_t *size = (size_t *)(void *)(src + n);
	for (size_t k = 0; k < n; k++) {
		dst[k] = s->dev + s->ranges[k][0];
		src[k] = s->host + s->ranges[k][0];
		size[k] = s->ranges[k][1] - s->ranges[k][0];
	}
	/* (the host staging is pinned and written before the send: read in stream order) */
	struct cudaMemcpyAttributes attr = {.srcAccessOrder = cudaMemcpySrcAccessOrderStream};
	size_t at = 0;
	return cudaMemcpyBatchAsync(dst, src, size, n, &attr, &at, 1, s->stream);
}

void tsr_cuda_seal(struct tsr_cuda_state *cs, struct tsr_cuda_slot *s)
{
	s->open = 0;
	s->sealed = s->nplaces > 0;
	s->cstream = cs->open_cstream;
	cs->next_slot = (cs->next_slot + 1) % TSR_NSLOTS;
}

/*
 * Puts the open slot's streams in order of kind, so that each kind's are one launch: their
 * arguments, checks and labels move, and the places that name a stream follow it. count[k]:
 * the streams of kind k. Most batches hold one kind and move nothing.
 */
static int tsr_cuda_group_streams(struct tsr_cuda_slot *s, size_t *count)
{
	const size_t n = s->nstreams, cap = TSR_SLOT_STREAMS, nk = TSR_FAM_N * TSR_VARIANTS;
	size_t start[TSR_FAM_N * TSR_VARIANTS], kinds = 0;
	memset(count, 0, nk * sizeof(*count));
	for (size_t i = 0; i < n; i++)
		count[s->checks[i].rc.kind]++;
	for (size_t k = 0, at = 0; k < nk; at += count[k++]) {
		start[k] = at;
		kinds += count[k] > 0;
	}
	if (kinds <= 1)
		return TSR_OK;
	uint32_t *pos = malloc(n * sizeof(*pos));
	uint64_t *io = malloc(4 * n * sizeof(*io));
	struct tsr_cuda_check *ck = malloc(n * sizeof(*ck));
	char *lb = s->labels ? malloc(n * TSR_LABEL_NBYTES) : NULL;
	if (!pos || !io || !ck || (s->labels && !lb)) {
		free(pos), free(io), free(ck), free(lb);
		return tsr_error(TSR_E_NOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		pos[i] = (uint32_t)start[s->checks[i].rc.kind]++;
	for (size_t i = 0; i < n; i++) {
		for (int j = 0; j < 4; j++)
			io[j * n + pos[i]] = s->host_io[j * cap + i];
		ck[pos[i]] = s->checks[i];
		if (lb)
			memcpy(lb + pos[i] * TSR_LABEL_NBYTES, s->labels + i * TSR_LABEL_NBYTES,
			       TSR_LABEL_NBYTES);
	}
	for (int j = 0; j < 4; j++)
		memcpy(s->host_io + j * cap, io + j * n, n * sizeof(*io));
	memcpy(s->checks, ck, n * sizeof(*ck));
	if (lb)
		memcpy(s->labels, lb, n * TSR_LABEL_NBYTES);
	int st = TSR_OK;
	for (size_t p = 0; p < s->nplaces; p++) {
		struct tsr_cuda_place *pl = &s->host_places[p];
		if (pl->stream < 0)
			continue;
		/* a run's streams are of one kind (tsr_cuda_describe_on), so they stay
		 * consecutive; should one not, its place would read another task's results */
		for (int k = 1; k < pl->run && st == TSR_OK; k++)
			if (pos[pl->stream + k] != pos[pl->stream] + (uint32_t)k)
				st = tsr_error(TSR_E_INTERNAL, "a run of places has streams of "
					       "several kinds");
		pl->stream = (int32_t)pos[pl->stream];
	}
	free(pos), free(io), free(ck), free(lb);
	return st;
}

/*
 * Sends a sealed slot's batch to the GPU on the slot's stream, once the feed's reads into it
 * have landed (this thread reads too while it waits), after the work its reads' caller had
 * queued on their stream: the staged bytes, places and inflate arguments in one copy each, one
 * inflate launch, one place launch, the inflate results back.
 */
int tsr_cuda_send(struct tsr_cuda_state *cs, struct tsr_cuda_slot *s)
{
	if (!s->sealed)
		return TSR_OK;
	s->sealed = 0;
	double t0 = tsr_now();
	int st = tsr_feed_wait_slot(&cs->feed, (int)(s - cs->slot));
	cs->t_wait += tsr_now() - t0;
	if (st)
		return st;
	/* Streams of one kind side by side (one launch each), then their arguments packed n
	 * apart, offsets made pointers into today's buffers. */
	size_t n = s->nstreams, count[TSR_FAM_N * TSR_VARIANTS];
	if ((st = tsr_cuda_group_streams(s, count)))
		return st;
	uint64_t *io = s->host_io;
	for (int j = 1; j < 4; j++)
		memmove(io + j * n, io + j * (size_t)TSR_SLOT_STREAMS, 8 * n);
	uint64_t in_base = s->replay ? 0 : (uint64_t)(uintptr_t)s->dev;
	for (size_t k = 0; k < n; k++) {
		io[k] += in_base;
		io[2 * n + k] += (uint64_t)(uintptr_t)s->dec;
	}
	cudaStream_t ss = s->stream;
	cudaError_t e;
	if (s->on_dev && (st = tsr_feed_order(&cs->feed, (int)(s - cs->slot), ss)))
		return st;
	/* The tables (pinned) by the upload kernel, not the copy engine: where the feed reads on,
	 * its copies of the next slot's bytes fill the copy engine's queue, and a table copied
	 * behind them held this slot's kernels back until they were done. */
	if ((e = cudaEventRecord(cs->entry, s->cstream)) ||
	    (e = cudaStreamWaitEvent(ss, cs->entry, 0)) ||
	    (e = tsr_cuda_copy_noted(s)) ||
	    (e = (cudaError_t)tsr_cuda_upload(s->dev_places, s->host_places,
					      s->nplaces * sizeof(struct tsr_cuda_place), ss)) ||
	    (e = (cudaError_t)tsr_cuda_upload(s->dev_io, s->host_io, 4 * 8 * n, ss)) ||
	    (e = (cudaError_t)tsr_cuda_upload(s->dev_bf, s->host_bf,
					      s->nbf * sizeof(struct tsr_cuda_bfilter), ss)) ||
	    (s->nbops && (e = tsr_cuda_bops_table(s))) ||
	    (e = cudaEventRecord(s->copied, ss)))
		return tsr_cuda_fail(e, "copy to the device");
	if (s->nbops && (st = tsr_cuda_blosc_ops(s)))
		return st;
	uint64_t *dio = s->dev_io;
	size_t *d_sizes = (size_t *)s->dev_res;
	int *d_status = (int *)(s->dev_res + 8 * n);
	for (size_t kind = 0, at = 0; kind < TSR_FAM_N * TSR_VARIANTS; at += count[kind++]) {
		if (!count[kind])
			continue;
		const struct tsr_cuda_family *f = &tsr_cuda_families[kind / TSR_VARIANTS];
		(void)tsr_cuda_status_take_error();
		int st = f->launch((const void *const *)dio + at, (const size_t *)(dio + n + at),
				   (void *const *)(dio + 2 * n + at), (const size_t *)(dio + 3 * n + at),
				   d_sizes + at, d_status + at, count[kind], (int)(kind % TSR_VARIANTS),
				   s->dev_res + TSR_RES_NBYTES, TSR_SCRATCH_NBYTES, ss);
		if (st) {
			int ce = tsr_cuda_status_take_error();
			return tsr_error(st, "GPU %s: launch failed: %s",
					 tsr_route_family_name((int)(kind / TSR_VARIANTS)),
					 ce ? tsr_cuda_error_string(ce) : tsr_strerror(st));
		}
	}
	if ((st = tsr_cuda_blosc_filters(s)))
		return st;
	int ke = tsr_cuda_place_launch(s->replay ? NULL : s->dev, s->dec, s->dev_places, s->nplaces, s->max_rows,
				       s->general, n ? d_status : NULL, n ? d_sizes : NULL, ss);
	if (ke)
		return tsr_cuda_fail((cudaError_t)ke, "place kernel");
	/* The small result arrays come back with the batch, judged when the slot comes round
	 * again or the ring settles. */
	if (n) {
		if ((e = cudaMemcpyAsync(s->host_res, s->dev_res, 12 * n, cudaMemcpyDeviceToHost,
					 ss)) ||
		    (e = cudaEventRecord(s->checked, ss)))
			return tsr_cuda_fail(e, "inflate results");
		s->pending = 1;
	}
	if ((e = cudaEventRecord(s->placed, ss)))
		return tsr_cuda_fail(e, "place kernel");
	return TSR_OK;
}

/* The end of a read that succeeded so far: its last slot goes to the GPU, the caller's stream
 * waits for every slot's work, and every inflate result of the read (a batch read: of all its
 * files) is judged before it returns. */
int tsr_cuda_finish(struct tsr_cuda_state *cs, cudaStream_t cstream)
{
	struct tsr_cuda_slot *s = &cs->slot[cs->next_slot];
	int st = TSR_OK;
	if (s->open)
		tsr_cuda_seal(cs, s);
	if ((st = tsr_cuda_flush(cs, 0)))
		return st;
	cudaError_t e = cudaSuccess;
	for (int k = 0; k < TSR_NSLOTS && !e; k++)
		if (cs->slot[k].made)
			e = cudaStreamWaitEvent(cstream, cs->slot[k].placed, 0);
	double t0 = tsr_now();
	if (!e)
		e = cudaStreamSynchronize(cstream);
	cs->t_wait += tsr_now() - t0;
	st = tsr_cuda_settle(cs, 1);
	if (st == TSR_OK && e)
		st = tsr_cuda_fail(e, "place kernel");
	/* The ring is idle: the next read starts again at the first slot, so reads one after
	 * another reuse the slots the first of them made instead of making all six, each a
	 * cudaHostAlloc and a cudaMalloc of up to TSR_SLOT_CPU_NBYTES (a lone 256 MiB read of
	 * 32 MiB zstd chunks made a 256 MiB slot on each of its first six calls) */
	cs->next_slot = 0;
	return st;
}

/* The open slot's batch to the GPU now (its reads are done, or are waited for). */
int tsr_cuda_dispatch(struct tsr_cuda_state *cs, struct tsr_cuda_slot *s)
{
	tsr_cuda_seal(cs, s);
	return tsr_cuda_send(cs, s);
}

int tsr_cuda_send_landed(struct tsr_cuda_state *cs)
{
	for (int k = 0; k < TSR_NSLOTS; k++) {
		struct tsr_cuda_slot *s = &cs->slot[(cs->next_slot + k) % TSR_NSLOTS];
		if (!s->sealed)
			continue;
		if (!tsr_feed_landed(&cs->feed, (int)(s - cs->slot)))
			break; /* oldest first: the copy engine takes them in order anyway */
		int st = tsr_cuda_send(cs, s);
		if (st)
			return st;
	}
	return TSR_OK;
}

int tsr_cuda_flush(struct tsr_cuda_state *cs, int drop)
{
	int st = TSR_OK;
	if (drop) {
		tsr_feed_stop(&cs->feed, 1);
		for (int k = 0; k < TSR_NSLOTS; k++)
			cs->slot[k].sealed = 0;
		return TSR_OK;
	}
	for (int k = 0; k < TSR_NSLOTS && st == TSR_OK; k++)
		st = tsr_cuda_send(cs, &cs->slot[(cs->next_slot + k) % TSR_NSLOTS]);
	if (st) {
		tsr_cuda_flush(cs, 1);
		return st;
	}
	return tsr_feed_stop(&cs->feed, 0);
}

#endif
