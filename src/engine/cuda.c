/* cuda.c - the CUDA engine (host side): reads land in GPU memory. Chunks are fetched (and,
 * where no GPU decoder exists, decoded) by the thread pool into a ring of pinned staging
 * buffers, copied to the device in large batches on a copy stream, and scattered into the
 * caller's array by the fused place kernel, batch k's copy overlapping batch k+1's reading. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../codecs/codecs.h"
#include "../io/io.h"
#include "engine.h"

#ifdef TSR_WITH_CUDA
#include <cuda_runtime.h>

#include "../cuda/place.h"

/* Staging ring: copies of >= 16 MiB reach full PCIe speed (DESIGN.md section 4). */
#define TSR_SLOT_NBYTES ((size_t)64 << 20)
#define TSR_NSLOTS 3
#define TSR_SLOT_PLACES 16384

struct tsr_cuda_slot {
	unsigned char *host;            /* pinned */
	unsigned char *dev;
	struct tsr_cuda_place *host_places; /* pinned */
	struct tsr_cuda_place *dev_places;
	size_t nbytes;
	cudaEvent_t copied;             /* host buffer free again */
	cudaEvent_t placed;             /* device buffer free again */
	int used;
};

struct tsr_cuda_state {
	pthread_mutex_t lock;           /* one GPU read at a time per context */
	int device;
	cudaStream_t copy;
	struct tsr_cuda_slot slot[TSR_NSLOTS];
	size_t slot_nbytes;
	int next_slot;
	char name[256];
};

static int tsr_cuda_fail(cudaError_t e, const char *what)
{
	if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver)
		return tsr_error(TSR_E_NO_DEVICE, "no CUDA device: %s: %s", what,
				 cudaGetErrorString(e));
	return tsr_error(TSR_E_IO, "CUDA: %s: %s", what, cudaGetErrorString(e));
}

static void tsr_cuda_slots_free(struct tsr_cuda_state *cs)
{
	for (int i = 0; i < TSR_NSLOTS; i++) {
		struct tsr_cuda_slot *s = &cs->slot[i];
		if (s->host)
			cudaFreeHost(s->host);
		if (s->dev)
			cudaFree(s->dev);
		if (s->host_places)
			cudaFreeHost(s->host_places);
		if (s->dev_places)
			cudaFree(s->dev_places);
		if (s->used) {
			cudaEventDestroy(s->copied);
			cudaEventDestroy(s->placed);
		}
		memset(s, 0, sizeof(*s));
	}
	cs->slot_nbytes = 0;
}

/* Makes sure every slot holds at least nbytes. */
static int tsr_cuda_slots_ensure(struct tsr_cuda_state *cs, size_t nbytes)
{
	if (cs->slot_nbytes >= nbytes)
		return TSR_OK;
	tsr_cuda_slots_free(cs);
	for (int i = 0; i < TSR_NSLOTS; i++) {
		struct tsr_cuda_slot *s = &cs->slot[i];
		cudaError_t e;
		if ((e = cudaHostAlloc((void **)&s->host, nbytes, cudaHostAllocDefault)) ||
		    (e = cudaMalloc((void **)&s->dev, nbytes)) ||
		    (e = cudaHostAlloc((void **)&s->host_places,
				       TSR_SLOT_PLACES * sizeof(struct tsr_cuda_place),
				       cudaHostAllocDefault)) ||
		    (e = cudaMalloc((void **)&s->dev_places,
				    TSR_SLOT_PLACES * sizeof(struct tsr_cuda_place))) ||
		    (e = cudaEventCreateWithFlags(&s->copied, cudaEventDisableTiming)) ||
		    (e = cudaEventCreateWithFlags(&s->placed, cudaEventDisableTiming))) {
			tsr_cuda_slots_free(cs);
			return tsr_cuda_fail(e, "staging buffers");
		}
		s->used = 1;
		s->nbytes = nbytes;
	}
	cs->slot_nbytes = nbytes;
	return TSR_OK;
}

static pthread_mutex_t tsr_cuda_init_lock = PTHREAD_MUTEX_INITIALIZER;

/* The context's CUDA state, created on first use. */
static int tsr_cuda_state_get(struct tsr_context *ctx, struct tsr_cuda_state **cs_ret)
{
	pthread_mutex_lock(&tsr_cuda_init_lock);
	int st = TSR_OK;
	if (!ctx->cuda) {
		int n = 0;
		cudaError_t e = cudaGetDeviceCount(&n);
		if (e != cudaSuccess || n == 0) {
			st = tsr_error(TSR_E_NO_DEVICE, "no CUDA device (%s)",
				       e ? cudaGetErrorString(e) : "0 devices");
			goto done;
		}
		struct tsr_cuda_state *cs = calloc(1, sizeof(*cs));
		if (!cs) {
			st = tsr_error(TSR_E_NOMEM, "out of memory");
			goto done;
		}
		pthread_mutex_init(&cs->lock, NULL);
		cudaGetDevice(&cs->device);
		struct cudaDeviceProp prop;
		if (cudaGetDeviceProperties(&prop, cs->device) == cudaSuccess)
			snprintf(cs->name, sizeof(cs->name), "%s", prop.name);
		if ((e = cudaStreamCreateWithFlags(&cs->copy, cudaStreamNonBlocking))) {
			free(cs);
			st = tsr_cuda_fail(e, "stream");
			goto done;
		}
		ctx->cuda = cs;
	}
	*cs_ret = ctx->cuda;
done:
	pthread_mutex_unlock(&tsr_cuda_init_lock);
	return st;
}

void tsr_cuda_state_free(void *p)
{
	struct tsr_cuda_state *cs = p;
	if (!cs)
		return;
	tsr_cuda_slots_free(cs);
	cudaStreamDestroy(cs->copy);
	pthread_mutex_destroy(&cs->lock);
	free(cs);
}

/* A task as the batch sees it. */
struct tsr_cuda_task {
	int64_t t;              /* plan task */
	struct tsr_chunk_ref ref;
	int raw;                /* stage stored bytes; the kernel transforms them */
	size_t staged;          /* bytes in the slot */
	size_t slot_offset;
};

struct tsr_cuda_job {
	const struct tsr_array *array;
	const struct tsr_plan *plan;
	const struct tsr_norm_sel *sel;
	struct tsr_cuda_task *tasks;
	int64_t ntasks;
	unsigned char *host;
	atomic_llong next;
	atomic_int failed;
	pthread_mutex_t lock;
	int status;
	char msg[1024];
	double t_fetch, t_decode;
	uint64_t bytes_read, bytes_decoded;
};

static void tsr_cuda_job_fail(struct tsr_cuda_job *job, int st, int64_t chunk)
{
	const struct tsr_array *a = job->array;
	pthread_mutex_lock(&job->lock);
	if (!job->status) {
		job->status = st;
		snprintf(job->msg, sizeof(job->msg), "%s: %s %d: %s %lld: %s", a->path,
			 a->desc.unit_noun, a->desc.index, a->desc.chunk_noun, (long long)chunk,
			 tsr_errmsg());
	}
	pthread_mutex_unlock(&job->lock);
	atomic_store(&job->failed, 1);
}

/* Pool worker: fetch (and decode where needed) the batch's chunks into the pinned slot. */
static void tsr_cuda_worker(void *arg, int w)
{
	(void)w;
	struct tsr_cuda_job *job = arg;
	struct tsr_scratch scratch = {0};
	unsigned char *fetch = NULL;
	size_t cap = 0;
	double tf = 0, td = 0;
	uint64_t br = 0, bd = 0;
	for (;;) {
		int64_t i = atomic_fetch_add(&job->next, 1);
		if (i >= job->ntasks || atomic_load(&job->failed))
			break;
		struct tsr_cuda_task *ct = &job->tasks[i];
		int64_t chunk = tsr_task_chunk(job->plan, ct->t);
		unsigned char *dst = job->host + ct->slot_offset;
		double t0 = tsr_now();
		int st = TSR_OK;
		if (ct->raw) {
			/* Stored bytes straight into pinned memory: no copy on the host. */
			st = tsr_io_pread(job->array->fd, dst, ct->ref.nbytes, ct->ref.offset);
			br += ct->ref.nbytes;
			tf += tsr_now() - t0;
		} else {
			if (ct->ref.nbytes > 0)
				st = tsr_engine_fetch(job->array, &ct->ref, &fetch, &cap);
			br += ct->ref.codec.id == TSR_CODEC_FILL ? 0 : ct->ref.nbytes;
			double t1 = tsr_now();
			tf += t1 - t0;
			uint64_t dn = 0;
			if (st == TSR_OK)
				st = tsr_chunk_decode(&ct->ref, fetch, ct->ref.nbytes, dst, 0, &scratch, &dn);
			bd += dn;
			td += tsr_now() - t1;
		}
		if (st) {
			tsr_cuda_job_fail(job, st, chunk);
			break;
		}
	}
	tsr_scratch_free(&scratch);
	free(fetch);
	pthread_mutex_lock(&job->lock);
	job->t_fetch += tf;
	job->t_decode += td;
	job->bytes_read += br;
	job->bytes_decoded += bd;
	pthread_mutex_unlock(&job->lock);
}

/* Can the kernel apply this chunk's transform to its stored bytes? */
static int tsr_cuda_raw_ok(const struct tsr_chunk_ref *r)
{
	return r->codec.id == TSR_CODEC_NONE && r->npre == 0 && !r->has_perm && !r->delta &&
	       !r->path[0] && !r->codec.byte_shuffle && !r->codec.elem_from_size &&
	       r->xform.kind != TSR_XF_DEQUANT && r->nbytes != TSR_WHOLE_FILE &&
	       r->nbytes == (uint64_t)r->npix * tsr_dtype_size(r->codec.elem);
}

static void tsr_cuda_describe(const struct tsr_cuda_job *job, const struct tsr_cuda_task *ct,
			      struct tsr_cuda_place *pl)
{
	const struct tsr_desc *d = &job->array->desc;
	const struct tsr_plan *p = job->plan;
	const int64_t *k0 = tsr_task_k0(p, ct->t), *k1 = tsr_task_k1(p, ct->t);
	int64_t chunk = tsr_task_chunk(p, ct->t), rem = chunk;
	memset(pl, 0, sizeof(*pl));
	pl->src_offset = ct->slot_offset;
	const struct tsr_xform *xf = &ct->ref.xform;
	if (ct->raw) {
		pl->in_type = ct->ref.codec.elem;
		pl->in_be = ct->ref.codec.big_endian;
		pl->kind = xf->kind == TSR_XF_OFFSET ? TSR_CUDA_OFFSET
			   : xf->kind == TSR_XF_SCALE ? TSR_CUDA_SCALE : TSR_CUDA_COPY;
		pl->scale = xf->scale;
		pl->zero = xf->zero;
		pl->offset = xf->offset;
		pl->has_blank = xf->has_blank;
		pl->blank = xf->blank;
	} else {
		pl->in_type = xf->out; /* decoded on the host: values are final */
		pl->kind = TSR_CUDA_COPY;
	}
	pl->out_type = xf->out;
	pl->ndim = d->ndim;
	pl->out_first = 0;
	for (int i = d->ndim - 1; i >= 0; i--) {
		int64_t c = rem % d->grid[i];
		rem /= d->grid[i];
		const struct tsr_dim_sel *s = &job->sel->dim[i];
		pl->extent[i] = ct->ref.extent[i];
		pl->first[i] = s->start + k0[i] * s->step - c * d->chunk_shape[i];
		pl->step[i] = s->step;
		pl->count[i] = k1[i] - k0[i];
		pl->out_stride[i] = p->out_stride[i];
		pl->out_first += k0[i] * p->out_stride[i];
	}
}

int tsr_cuda_run(const struct tsr_array *array, const struct tsr_plan *plan,
		 const struct tsr_norm_sel *sel, void *out, void *stream, int nthreads, int defer_sync,
		 struct tsr_receipt *r)
{
	struct tsr_cuda_state *cs = NULL;
	const struct tsr_desc *d = &array->desc;
	int st = tsr_cuda_state_get(array->ctx, &cs);
	if (st)
		return st;
	if (d->ndim > TSR_CUDA_MAX_DIM)
		return tsr_error(TSR_E_UNSUPPORTED, "%s: the CUDA engine places up to %d axes",
				 array->path, TSR_CUDA_MAX_DIM);
	pthread_mutex_lock(&cs->lock);
	cudaStream_t cstream = (cudaStream_t)stream;
	struct tsr_cuda_task *tasks = calloc((size_t)(plan->ntasks ? plan->ntasks : 1), sizeof(*tasks));
	if (!tasks) {
		pthread_mutex_unlock(&cs->lock);
		return tsr_error(TSR_E_NOMEM, "out of memory");
	}
	/* Describe every task, and size the slots for the largest chunk. */
	size_t biggest = 0;
	int fallback = 0;
	for (int64_t t = 0; t < plan->ntasks && st == TSR_OK; t++) {
		struct tsr_cuda_task *ct = &tasks[t];
		ct->t = t;
		st = array->ops->chunk_ref(array, tsr_task_chunk(plan, t), &ct->ref);
		if (st) {
			tsr_error_prefix("%s: %s %d: %s %lld", array->path, d->unit_noun, d->index,
					 d->chunk_noun, (long long)tsr_task_chunk(plan, t));
			break;
		}
		ct->ref.ndim = d->ndim;
		ct->raw = tsr_cuda_raw_ok(&ct->ref);
		fallback |= !ct->raw && ct->ref.codec.id != TSR_CODEC_FILL;
		ct->staged = ct->raw ? (size_t)ct->ref.nbytes
				     : (size_t)ct->ref.npix * tsr_dtype_size(ct->ref.xform.out);
		ct->staged = (ct->staged + 15) & ~(size_t)15; /* aligned starts for the kernel */
		if (ct->staged > biggest)
			biggest = ct->staged;
	}
	if (st == TSR_OK)
		st = tsr_cuda_slots_ensure(cs, biggest > TSR_SLOT_NBYTES ? biggest : TSR_SLOT_NBYTES);
	struct tsr_cuda_job job = {0};
	pthread_mutex_init(&job.lock, NULL);
	job.array = array;
	job.plan = plan;
	job.sel = sel;
	int64_t t0 = 0;
	int slot_i = cs->next_slot; /* the ring turns on across reads of a batch */
	double t_copy = 0;
	while (st == TSR_OK && t0 < plan->ntasks) {
		struct tsr_cuda_slot *s = &cs->slot[slot_i];
		/* This slot's last copy must be done before the host refills it. */
		cudaError_t e = cudaEventSynchronize(s->copied);
		if (e) {
			st = tsr_cuda_fail(e, "staging copy");
			break;
		}
		/* Fill the batch: as many tasks as fit the slot. */
		size_t used = 0;
		int64_t t1 = t0;
		int64_t max_rows = 1;
		while (t1 < plan->ntasks && t1 - t0 < TSR_SLOT_PLACES &&
		       used + tasks[t1].staged <= s->nbytes) {
			tasks[t1].slot_offset = used;
			used += tasks[t1].staged;
			int64_t rows = 1;
			const int64_t *k0 = tsr_task_k0(plan, t1), *k1 = tsr_task_k1(plan, t1);
			for (int i = 0; i < d->ndim - 1; i++)
				rows *= k1[i] - k0[i];
			if (rows > max_rows)
				max_rows = rows;
			t1++;
		}
		job.tasks = tasks + t0;
		job.ntasks = t1 - t0;
		job.host = s->host;
		atomic_store(&job.next, 0);
		atomic_store(&job.failed, 0);
		tsr_pool_run(array->ctx->pool, nthreads, tsr_cuda_worker, &job);
		if (job.status) {
			st = job.status;
			tsr_error_set_text(job.msg);
			break;
		}
		for (int64_t i = 0; i < job.ntasks; i++)
			tsr_cuda_describe(&job, &job.tasks[i], &s->host_places[i]);
		double tc = tsr_now();
		/* The device half of the slot must be free of the previous batch's kernel. */
		if ((e = cudaStreamWaitEvent(cs->copy, s->placed, 0)) ||
		    (e = cudaMemcpyAsync(s->dev, s->host, used, cudaMemcpyHostToDevice, cs->copy)) ||
		    (e = cudaMemcpyAsync(s->dev_places, s->host_places,
					 (size_t)job.ntasks * sizeof(struct tsr_cuda_place),
					 cudaMemcpyHostToDevice, cs->copy)) ||
		    (e = cudaEventRecord(s->copied, cs->copy)) ||
		    (e = cudaStreamWaitEvent(cstream, s->copied, 0))) {
			st = tsr_cuda_fail(e, "copy to the device");
			break;
		}
		int ke = tsr_cuda_place_launch(out, s->dev, s->dev_places, (size_t)job.ntasks,
					       max_rows, cstream);
		if (ke || (e = cudaEventRecord(s->placed, cstream))) {
			st = tsr_cuda_fail(ke ? (cudaError_t)ke : e, "place kernel");
			break;
		}
		t_copy += tsr_now() - tc;
		r->bytes_out += 0;
		t0 = t1;
		slot_i = (slot_i + 1) % TSR_NSLOTS;
	}
	cs->next_slot = slot_i;
	/* Reads are synchronous: the status covers every kernel of this read (in a batch, the
	 * last file's read waits for all of them: they share the stream). */
	cudaError_t e = cudaSuccess;
	if (!defer_sync || st != TSR_OK) {
		e = cudaStreamSynchronize(cstream);
		cudaStreamSynchronize(cs->copy);
	}
	if (st == TSR_OK && e)
		st = tsr_cuda_fail(e, "place kernel");
	r->t_fetch += job.t_fetch;
	r->t_decode += job.t_decode;
	r->t_place += t_copy;
	r->bytes_read += job.bytes_read;
	r->bytes_decoded += job.bytes_decoded;
	r->nthreads = nthreads;
	snprintf(r->engine, sizeof(r->engine), "cuda");
	if (fallback)
		snprintf(r->fallback, sizeof(r->fallback),
			 "%s chunks decoded on the CPU (no GPU decoder yet); decoded values copied",
			 d->codec);
	pthread_mutex_destroy(&job.lock);
	free(tasks);
	pthread_mutex_unlock(&cs->lock);
	return st;
}

int tsr_cuda_device_count(int *n_ret)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	*n_ret = e == cudaSuccess ? n : 0;
	if (e != cudaSuccess || n == 0)
		return tsr_error(TSR_E_NO_DEVICE, "no CUDA device (%s)",
				 e ? cudaGetErrorString(e) : "0 devices");
	return TSR_OK;
}

int tsr_cuda_malloc(size_t nbytes, void **ptr_ret)
{
	cudaError_t e = cudaMalloc(ptr_ret, nbytes ? nbytes : 1);
	return e ? tsr_cuda_fail(e, "cudaMalloc") : TSR_OK;
}

void tsr_cuda_free(void *ptr)
{
	if (ptr)
		cudaFree(ptr);
}

int tsr_cuda_memcpy_to_host(void *dst, const void *src, size_t nbytes)
{
	cudaError_t e = cudaMemcpy(dst, src, nbytes, cudaMemcpyDeviceToHost);
	return e ? tsr_cuda_fail(e, "copy to the host") : TSR_OK;
}

#else /* no CUDA in this build */

int tsr_cuda_run(const struct tsr_array *array, const struct tsr_plan *plan,
		 const struct tsr_norm_sel *sel, void *out, void *stream, int nthreads, int defer_sync,
		 struct tsr_receipt *r)
{
	(void)plan, (void)sel, (void)out, (void)stream, (void)nthreads, (void)defer_sync, (void)r;
	return tsr_error(TSR_E_NO_DEVICE, "%s: this build of tessera has no CUDA engine",
			 array->path);
}

void tsr_cuda_state_free(void *p)
{
	(void)p;
}

int tsr_cuda_device_count(int *n_ret)
{
	*n_ret = 0;
	return tsr_error(TSR_E_NO_DEVICE, "this build of tessera has no CUDA engine");
}

int tsr_cuda_malloc(size_t nbytes, void **ptr_ret)
{
	(void)nbytes;
	*ptr_ret = NULL;
	return tsr_error(TSR_E_NO_DEVICE, "this build of tessera has no CUDA engine");
}

void tsr_cuda_free(void *ptr)
{
	(void)ptr;
}

int tsr_cuda_memcpy_to_host(void *dst, const void *src, size_t nbytes)
{
	(void)dst, (void)src, (void)nbytes;
	return tsr_error(TSR_E_NO_DEVICE, "this build of tessera has no CUDA engine");
}
#endif
