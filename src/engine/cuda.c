/* cuda.c - the CUDA engine (host side): reads land in GPU memory. The thread pool fetches each
 * batch of chunks into a ring of pinned staging buffers: stored bytes where the GPU decodes them
 * (plain elements; one DEFLATE-family stream, which the inflate kernel decodes into the slot's
 * decode buffer), values decoded on the CPU otherwise. A copy stream moves each batch to the
 * device in one piece; the read's stream inflates it and the fused place kernel scatters it
 * into the caller's array, so batch k's copy and decode overlap batch k+1's reading. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../codecs/codecs.h"
#include "../io/io.h"
#include "engine.h"

#ifdef TSR_WITH_CUDA
#include <cuda_runtime.h>

#include "../cuda/place.h"
#include "../cuda/tsr_cuda.h"

/* Staging ring: copies of >= 16 MiB reach full PCIe speed (DESIGN.md section 4). */
#define TSR_SLOT_NBYTES ((size_t)64 << 20)
#define TSR_NSLOTS 3
#define TSR_SLOT_PLACES 16384
/* A slot's decode buffer holds what its compressed bytes inflate to: float images compress 1.2
 * to 3 times, so a full 64 MiB slot needs up to about 200 MiB; a batch ends early when it
 * fills. Reads that need less allocate less. */
#define TSR_DEC_NBYTES ((size_t)256 << 20)
/* Inflate results of a batch: decoded sizes (8 bytes a stream), then statuses (4 bytes);
 * on the device the kernel's scratch follows. */
#define TSR_RES_NBYTES ((size_t)12 * TSR_SLOT_PLACES)
#define TSR_SCRATCH_NBYTES 256
#define TSR_LABEL_NBYTES 96

_Static_assert(sizeof(size_t) == 8 && sizeof(void *) == 8,
	       "inflate arguments are staged as 64-bit words");

/* How a task's chunk reaches the place kernel. */
enum tsr_cuda_how {
	TSR_HOW_CPU = 0,        /* decoded on the CPU: final values are staged */
	TSR_HOW_RAW,            /* stored elements are staged; the kernel transforms them */
	TSR_HOW_INFLATE,        /* a DEFLATE-family stream is staged; the GPU inflates it */
};

/* Why a chunk was decoded on the CPU, for the receipt (first: named first). */
enum tsr_cuda_why {
	TSR_WHY_FORCED = 0,     /* read option decoder = cpu */
	TSR_WHY_DEQUANT,        /* quantized FITS tiles: no GPU dequantization yet */
	TSR_WHY_STEPS,          /* delta, axis order, element width the kernel does not do */
	TSR_WHY_CODEC,          /* no GPU decoder for the codec yet */
	TSR_WHY_N
};

/* What the host needs to judge one inflate stream's result once the batch is done. */
struct tsr_cuda_check {
	int64_t chunk;
	uint64_t npix;
	uint32_t width;         /* expected element bytes */
	int16_t elem, out;      /* enum tsr_dtype: stored, output */
	uint8_t framing;        /* TSR_CUDA_DEFLATE / ZLIB / GZIP */
	uint8_t elem_from_size; /* FITS GZIP tile: another integer width may be legal */
	uint8_t kind;           /* enum tsr_xform_kind */
	uint8_t name;           /* index into the slot's codec names */
};

#define TSR_NAMES 4

struct tsr_cuda_slot {
	unsigned char *host;            /* pinned staging */
	unsigned char *dev;
	struct tsr_cuda_place *host_places; /* pinned */
	struct tsr_cuda_place *dev_places;
	size_t nbytes;
	unsigned char *dec;             /* device decode buffer (allocated on first need) */
	size_t dec_nbytes;
	uint64_t *host_io, *dev_io;     /* inflate arguments, 4 x n words: input pointers, input
					   sizes, output pointers, output capacities */
	unsigned char *host_res, *dev_res; /* inflate results (TSR_RES_NBYTES; + scratch) */
	cudaEvent_t copied;             /* host buffers free again */
	cudaEvent_t placed;             /* device buffers free again */
	cudaEvent_t checked;            /* inflate results are in host_res */
	int used;
	/* The last batch's inflate results, still to be judged (a batch read's earlier files
	 * are judged while later ones are read: their arrays may be closed by then, so the
	 * names that messages need are kept here). */
	int pending;
	size_t nstreams;
	struct tsr_cuda_check *checks;  /* TSR_SLOT_PLACES */
	char *labels;                   /* TSR_SLOT_PLACES x TSR_LABEL_NBYTES: chunk names of
					   formats that name chunks (Zarr keys); NULL until then */
	int has_labels;
	char names[TSR_NAMES][32];      /* codec names of the batch's streams */
	int nnames;
	char prefix[1400];              /* "path: HDU 1: tile" */
};

struct tsr_cuda_task;

struct tsr_cuda_state {
	pthread_mutex_t lock;           /* one GPU read at a time per context */
	int device;
	cudaStream_t copy;
	struct tsr_cuda_slot slot[TSR_NSLOTS];
	size_t slot_nbytes;
	int next_slot;
	struct tsr_cuda_task *tasks;    /* kept from read to read: a batch read's files reuse it */
	size_t tasks_cap;
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
		if (s->dec)
			cudaFree(s->dec);
		if (s->host_io)
			cudaFreeHost(s->host_io);
		if (s->dev_io)
			cudaFree(s->dev_io);
		if (s->host_res)
			cudaFreeHost(s->host_res);
		if (s->dev_res)
			cudaFree(s->dev_res);
		if (s->used) {
			cudaEventDestroy(s->copied);
			cudaEventDestroy(s->placed);
			cudaEventDestroy(s->checked);
		}
		free(s->checks);
		free(s->labels);
		memset(s, 0, sizeof(*s));
	}
	cs->slot_nbytes = 0;
}

static int tsr_int_width_type(uint64_t w)
{
	return w == 1 ? TSR_UINT8 : w == 2 ? TSR_INT16 : w == 4 ? TSR_INT32 : TSR_INT64;
}

/* The verdict on one inflate stream, by the CPU chain's rules (src/codecs/chain.c): TSR_OK, or
 * a status with the reason in why. The place kernel skipped exactly the streams judged bad. */
static int tsr_cuda_verdict(const struct tsr_cuda_check *c, int status, uint64_t got,
			    const char *name, char *why, size_t cap)
{
	static const char *const framing[] = {"deflate", "zlib", "gzip"};
	const char *f = framing[c->framing <= TSR_CUDA_GZIP ? c->framing : 0];
	uint64_t want = c->npix * c->width;
	if (status == TSR_CUDA_INFLATE_E_OVERFLOW) {
		snprintf(why, cap, "%s: decodes to more bytes than expected (GPU inflate)", f);
		return TSR_E_CORRUPT;
	}
	if (status != TSR_CUDA_INFLATE_OK) {
		snprintf(why, cap, "%s: %s (GPU inflate)", f, tsr_cuda_inflate_status_name(status));
		return TSR_E_CORRUPT;
	}
	if (got == want)
		return TSR_OK;
	if (!c->elem_from_size) {
		snprintf(why, cap, "%s: decodes to %llu bytes, expected %llu", name,
			 (unsigned long long)got, (unsigned long long)want);
		return TSR_E_CORRUPT;
	}
	uint64_t ew = c->npix ? got / c->npix : 0;
	if (!(ew == 1 || ew == 2 || ew == 4 || ew == 8) || ew * c->npix != got) {
		snprintf(why, cap, "%s: decodes to %llu bytes, not a whole number of 1/2/4/8-byte "
			 "values for %llu pixels", name, (unsigned long long)got,
			 (unsigned long long)c->npix);
		return TSR_E_CORRUPT;
	}
	if (tsr_dtype_is_float((enum tsr_dtype)c->elem)) {
		snprintf(why, cap, "%s: float tile decodes to %llu bytes, expected %llu", name,
			 (unsigned long long)got, (unsigned long long)want);
		return TSR_E_CORRUPT;
	}
	if (c->kind == TSR_XF_SCALE)
		return TSR_OK; /* the kernel scaled integers of that width, as the CPU does */
	snprintf(why, cap, "%s: tile holds %s values in a %s image", name,
		 tsr_dtype_name((enum tsr_dtype)tsr_int_width_type(ew)),
		 tsr_dtype_name((enum tsr_dtype)c->out));
	return TSR_E_CORRUPT;
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
		return tsr_cuda_fail(e, "GPU inflate");
	const uint64_t *sizes = (const uint64_t *)s->host_res;
	const int *status = (const int *)(s->host_res + 8 * s->nstreams);
	for (size_t i = 0; i < s->nstreams; i++) {
		const struct tsr_cuda_check *c = &s->checks[i];
		char why[320], num[32];
		int bad = tsr_cuda_verdict(c, status[i], sizes[i], s->names[c->name], why,
					   sizeof(why));
		if (bad == TSR_OK)
			continue;
		const char *label = num;
		if (s->has_labels)
			label = s->labels + i * TSR_LABEL_NBYTES;
		else
			snprintf(num, sizeof(num), "%lld", (long long)c->chunk);
		return tsr_error(bad, "%s %s: %s", s->prefix, label, why);
	}
	return TSR_OK;
}

/* Waits for all work in flight in the ring, oldest batch first; judges (check) or drops the
 * inflate results still pending. Returns the first failure. */
static int tsr_cuda_settle(struct tsr_cuda_state *cs, int check)
{
	int st = TSR_OK;
	for (int k = 0; k < TSR_NSLOTS; k++) {
		struct tsr_cuda_slot *s = &cs->slot[(cs->next_slot + k) % TSR_NSLOTS];
		if (!s->used)
			continue;
		cudaError_t e = cudaEventSynchronize(s->placed);
		if (e && st == TSR_OK && check)
			st = tsr_cuda_fail(e, "GPU decode and place");
		int one = tsr_cuda_slot_judge(s, check && st == TSR_OK);
		if (st == TSR_OK)
			st = one;
	}
	return st;
}

/* Makes sure every slot holds at least nbytes. */
static int tsr_cuda_slots_ensure(struct tsr_cuda_state *cs, size_t nbytes)
{
	if (cs->slot_nbytes >= nbytes)
		return TSR_OK;
	/* Results of a batch read's earlier files are judged before their buffers go. */
	int st = tsr_cuda_settle(cs, 1);
	if (st)
		return st;
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
		    (e = cudaHostAlloc((void **)&s->host_io, 4 * 8 * (size_t)TSR_SLOT_PLACES,
				       cudaHostAllocDefault)) ||
		    (e = cudaMalloc((void **)&s->dev_io, 4 * 8 * (size_t)TSR_SLOT_PLACES)) ||
		    (e = cudaHostAlloc((void **)&s->host_res, TSR_RES_NBYTES, cudaHostAllocDefault)) ||
		    (e = cudaMalloc((void **)&s->dev_res, TSR_RES_NBYTES + TSR_SCRATCH_NBYTES)) ||
		    (e = cudaEventCreateWithFlags(&s->copied, cudaEventDisableTiming)) ||
		    (e = cudaEventCreateWithFlags(&s->placed, cudaEventDisableTiming)) ||
		    (e = cudaEventCreateWithFlags(&s->checked, cudaEventDisableTiming))) {
			/* events made before the failure are destroyed with the slot */
			s->used = 1;
			tsr_cuda_slots_free(cs);
			return tsr_cuda_fail(e, "staging buffers");
		}
		s->used = 1;
		s->nbytes = nbytes;
		s->checks = malloc(TSR_SLOT_PLACES * sizeof(*s->checks));
		if (!s->checks) {
			tsr_cuda_slots_free(cs);
			return tsr_error(TSR_E_NOMEM, "out of memory");
		}
	}
	cs->slot_nbytes = nbytes;
	return TSR_OK;
}

/* Makes sure every slot's decode buffer holds at least nbytes. */
static int tsr_cuda_dec_ensure(struct tsr_cuda_state *cs, size_t nbytes)
{
	for (int i = 0; i < TSR_NSLOTS; i++) {
		struct tsr_cuda_slot *s = &cs->slot[i];
		if (s->dec_nbytes >= nbytes)
			continue;
		/* The slot's last kernels may still read the old buffer. */
		cudaError_t e = cudaEventSynchronize(s->placed);
		if (s->dec)
			cudaFree(s->dec);
		s->dec = NULL;
		s->dec_nbytes = 0;
		if (e || (e = cudaMalloc((void **)&s->dec, nbytes)))
			return tsr_cuda_fail(e, "decode buffers");
		s->dec_nbytes = nbytes;
	}
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
	tsr_cuda_settle(cs, 0);
	tsr_cuda_slots_free(cs);
	free(cs->tasks);
	cudaStreamDestroy(cs->copy);
	pthread_mutex_destroy(&cs->lock);
	free(cs);
}

void tsr_cuda_quiesce(struct tsr_context *ctx)
{
	struct tsr_cuda_state *cs = ctx ? ctx->cuda : NULL;
	if (!cs)
		return;
	pthread_mutex_lock(&cs->lock);
	tsr_cuda_settle(cs, 0);
	pthread_mutex_unlock(&cs->lock);
}

/* A task as the batch sees it. */
struct tsr_cuda_task {
	int64_t t;              /* plan task */
	struct tsr_chunk_ref ref;
	int how;                /* enum tsr_cuda_how */
	int framing;            /* INFLATE: TSR_CUDA_DEFLATE / ZLIB / GZIP */
	int alt_width;          /* INFLATE: another integer width is legal (place.h) */
	size_t staged;          /* bytes in the slot */
	size_t slot_offset;
	size_t dec_cap;         /* INFLATE: decode buffer bytes */
	size_t dec_offset;
	int stream;             /* INFLATE: the batch's inflate stream */
};

struct tsr_cuda_job {
	const struct tsr_array *array;
	const struct tsr_plan *plan;
	const struct tsr_norm_sel *sel;
	struct tsr_cuda_task *tasks;
	int64_t ntasks;
	unsigned char *host;
	atomic_llong next;
	int64_t group;          /* tasks a worker takes at a time */
	atomic_int failed;
	pthread_mutex_t lock;
	int status;
	char msg[2048];
	double t_fetch, t_decode;
	uint64_t bytes_read, bytes_decoded;
};

/* Names a chunk in messages as the CPU engine does: "path: HDU 1: tile 7", "path: array /:
 * chunk c/0/1". */
static void tsr_cuda_chunk_name(const struct tsr_array *a, int64_t chunk, char *prefix,
				size_t prefix_cap, char *label, size_t label_cap)
{
	char unit[320];
	tsr_array_unit(a, unit, sizeof(unit));
	if (prefix)
		snprintf(prefix, prefix_cap, "%s: %s: %s", a->path, unit, a->desc.chunk_noun);
	if (label) {
		if (a->desc.chunk_label)
			a->desc.chunk_label(a, chunk, label, label_cap);
		else
			snprintf(label, label_cap, "%lld", (long long)chunk);
	}
}

static void tsr_cuda_job_fail(struct tsr_cuda_job *job, int st, int64_t chunk)
{
	char prefix[1400], label[320];
	tsr_cuda_chunk_name(job->array, chunk, prefix, sizeof(prefix), label, sizeof(label));
	pthread_mutex_lock(&job->lock);
	if (!job->status) {
		job->status = st;
		snprintf(job->msg, sizeof(job->msg), "%s %s: %s", prefix, label, tsr_errmsg());
	}
	pthread_mutex_unlock(&job->lock);
	atomic_store(&job->failed, 1);
}

/* Reads a chunk's stored bytes into dst (its own file kept open in fc for the next chunk of
 * the same file: inner chunks of a shard). */
static int tsr_cuda_read_stored(const struct tsr_array *a, const struct tsr_chunk_ref *r,
				void *dst, struct tsr_fd_cache *fc)
{
	int fd = a->fd;
	if (r->path[0]) {
		if (fc->fd < 0 || strcmp(fc->path, r->path) != 0) {
			tsr_fd_cache_close(fc);
			uint64_t size;
			int st = tsr_io_open(r->path, &fd, &size);
			if (st)
				return st;
			fc->fd = fd;
			fc->size = size;
			snprintf(fc->path, sizeof(fc->path), "%s", r->path);
		}
		fd = fc->fd;
	}
	return tsr_io_pread(fd, dst, (size_t)r->nbytes, r->offset);
}

/* Pool worker: fetch (and decode where needed) the batch's chunks into the pinned slot. */
static void tsr_cuda_worker(void *arg, int w)
{
	(void)w;
	struct tsr_cuda_job *job = arg;
	struct tsr_scratch scratch = {0};
	struct tsr_fd_cache fc = {.fd = -1};
	unsigned char *fetch = NULL;
	size_t cap = 0;
	double tf = 0, td = 0;
	uint64_t br = 0, bd = 0;
	int64_t i = 0, end = 0;
	for (;;) {
		if (i >= end) {
			/* Tasks are taken a group at a time, so that neighbours can share a read. */
			i = atomic_fetch_add(&job->next, job->group);
			end = i + job->group < job->ntasks ? i + job->group : job->ntasks;
		}
		if (i >= job->ntasks || atomic_load(&job->failed))
			break;
		struct tsr_cuda_task *ct = &job->tasks[i];
		int64_t chunk = tsr_task_chunk(job->plan, ct->t);
		unsigned char *dst = job->host + ct->slot_offset;
		double t0 = tsr_now();
		int st = TSR_OK;
		if (ct->how != TSR_HOW_CPU) {
			/* Stored bytes straight into pinned memory: no copy on the host. Chunks
			 * that lie back to back in the same file and in the slot (FITS tiles in
			 * the heap) are one read, of up to 4 MiB. */
			struct tsr_chunk_ref run = ct->ref;
			int64_t j = i + 1;
			while (j < end && job->tasks[j].how != TSR_HOW_CPU &&
			       job->tasks[j].ref.offset == run.offset + run.nbytes &&
			       job->tasks[j].slot_offset == ct->slot_offset + run.nbytes &&
			       run.nbytes + job->tasks[j].ref.nbytes <= ((uint64_t)4 << 20) &&
			       !strcmp(job->tasks[j].ref.path, run.path)) {
				run.nbytes += job->tasks[j].ref.nbytes;
				j++;
			}
			st = tsr_cuda_read_stored(job->array, &run, dst, &fc);
			br += run.nbytes;
			tf += tsr_now() - t0;
			i = j;
		} else {
			i++;
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
	tsr_fd_cache_close(&fc);
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
	       !r->codec.byte_shuffle && !r->codec.elem_from_size &&
	       r->xform.kind != TSR_XF_DEQUANT && r->nbytes != TSR_WHOLE_FILE &&
	       r->nbytes == (uint64_t)r->npix * tsr_dtype_size(r->codec.elem);
}

/* Does the place kernel compute this value transform exactly as src/codecs/values.c does? */
static int tsr_cuda_xform_ok(const struct tsr_chunk_ref *r)
{
	enum tsr_dtype in = r->codec.elem, out = r->xform.out;
	size_t w = tsr_dtype_size(in);
	switch (r->xform.kind) {
	case TSR_XF_COPY:
		return tsr_dtype_size(out) == w;
	case TSR_XF_OFFSET:
		return tsr_dtype_size(out) == w && !tsr_dtype_is_float(in) && w <= 8 &&
		       in != TSR_COMPLEX64;
	case TSR_XF_SCALE:
		return (out == TSR_FLOAT32 || out == TSR_FLOAT64) &&
		       (in == TSR_UINT8 || in == TSR_INT8 || in == TSR_INT16 || in == TSR_INT32 ||
			in == TSR_INT64 || in == TSR_FLOAT32 || in == TSR_FLOAT64);
	default:
		return 0;
	}
}

/* Is the chunk's whole decode one DEFLATE-family stream then plain elements (FITS GZIP_1/2
 * tiles; Zarr chunks with one gzip or zlib step)? Returns its framing, or -1 with why set. */
static int tsr_cuda_inflate_ok(const struct tsr_chunk_ref *r, int force_cpu, int *why)
{
	const struct tsr_codec_step *c = &r->codec;
	enum tsr_codec_id id = TSR_CODEC_NONE;
	if (r->npre == 0)
		id = c->id;
	else if (r->npre == 1 && c->id == TSR_CODEC_NONE && !c->byte_shuffle && !c->elem_from_size &&
		 (r->pre[0].id == TSR_CODEC_GZIP || r->pre[0].id == TSR_CODEC_ZLIB))
		id = r->pre[0].id;
	int framing = id == TSR_CODEC_GZIP ? TSR_CUDA_GZIP
		      : id == TSR_CODEC_ZLIB ? TSR_CUDA_ZLIB
		      : id == TSR_CODEC_DEFLATE ? TSR_CUDA_DEFLATE : -1;
	size_t w = tsr_dtype_size(c->elem);
	int cplx = c->elem == TSR_COMPLEX64 || c->elem == TSR_COMPLEX128;
	if (framing < 0)
		*why = r->npre == 0 && c->id == TSR_CODEC_NONE ? TSR_WHY_STEPS : TSR_WHY_CODEC;
	else if (force_cpu)
		*why = TSR_WHY_FORCED;
	else if (r->xform.kind == TSR_XF_DEQUANT)
		*why = TSR_WHY_DEQUANT;
	else if (r->has_perm || r->delta || w == 0 || r->npix <= 0 || !tsr_cuda_xform_ok(r) ||
		 (c->byte_shuffle && (cplx || w > 8)) || r->nbytes == 0 ||
		 r->nbytes == TSR_WHOLE_FILE)
		*why = TSR_WHY_STEPS;
	else
		return framing;
	return -1;
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
	pl->stream = -1;
	const struct tsr_xform *xf = &ct->ref.xform;
	if (ct->how != TSR_HOW_CPU) {
		pl->in_type = ct->ref.codec.elem;
		pl->in_be = ct->ref.codec.big_endian;
		pl->kind = xf->kind == TSR_XF_OFFSET ? TSR_CUDA_OFFSET
			   : xf->kind == TSR_XF_SCALE ? TSR_CUDA_SCALE : TSR_CUDA_COPY;
		pl->scale = xf->scale;
		pl->zero = xf->zero;
		pl->offset = xf->offset;
		pl->has_blank = xf->has_blank;
		pl->blank = xf->blank;
		if (ct->how == TSR_HOW_INFLATE) {
			pl->src_offset = ct->dec_offset;
			pl->src_dec = 1;
			pl->stream = ct->stream;
			pl->alt_width = ct->alt_width;
			pl->planes = ct->ref.codec.byte_shuffle && tsr_dtype_size(ct->ref.codec.elem) > 1;
		}
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

/* Fills the slot's inflate arguments and checks for the batch's INFLATE tasks; streams are
 * grouped by framing (one launch each). Returns the number of streams; first[f] and count[f]
 * give each framing's range. */
static size_t tsr_cuda_streams(const struct tsr_cuda_job *job, struct tsr_cuda_slot *s,
			       size_t first[3], size_t count[3])
{
	const struct tsr_array *a = job->array;
	size_t n = 0, next[3];
	count[0] = count[1] = count[2] = 0;
	for (int64_t i = 0; i < job->ntasks; i++)
		if (job->tasks[i].how == TSR_HOW_INFLATE) {
			count[job->tasks[i].framing]++;
			n++;
		}
	first[0] = next[0] = 0;
	first[1] = next[1] = count[0];
	first[2] = next[2] = count[0] + count[1];
	s->nnames = 0;
	s->has_labels = 0;
	if (n && a->desc.chunk_label && !s->labels)
		s->labels = malloc((size_t)TSR_SLOT_PLACES * TSR_LABEL_NBYTES);
	if (n)
		tsr_cuda_chunk_name(a, 0, s->prefix, sizeof(s->prefix), NULL, 0);
	for (int64_t i = 0; i < job->ntasks; i++) {
		struct tsr_cuda_task *ct = &job->tasks[i];
		if (ct->how != TSR_HOW_INFLATE)
			continue;
		size_t k = next[ct->framing]++;
		ct->stream = (int)k;
		s->host_io[k] = (uint64_t)(uintptr_t)(s->dev + ct->slot_offset);
		s->host_io[n + k] = ct->ref.nbytes;
		s->host_io[2 * n + k] = (uint64_t)(uintptr_t)(s->dec + ct->dec_offset);
		s->host_io[3 * n + k] = ct->dec_cap;
		struct tsr_cuda_check *c = &s->checks[k];
		int64_t chunk = tsr_task_chunk(job->plan, ct->t);
		c->chunk = chunk;
		c->npix = (uint64_t)ct->ref.npix;
		c->width = (uint32_t)tsr_dtype_size(ct->ref.codec.elem);
		c->elem = (int16_t)ct->ref.codec.elem;
		c->out = (int16_t)ct->ref.xform.out;
		c->framing = (uint8_t)ct->framing;
		c->elem_from_size = (uint8_t)ct->ref.codec.elem_from_size;
		c->kind = (uint8_t)ct->ref.xform.kind;
		c->name = (uint8_t)tsr_cuda_name_index(s, ct->ref.codec_name ? ct->ref.codec_name
									  : a->desc.codec);
		if (a->desc.chunk_label && s->labels) {
			a->desc.chunk_label(a, chunk, s->labels + k * TSR_LABEL_NBYTES,
					    TSR_LABEL_NBYTES);
			s->has_labels = 1;
		}
	}
	if (a->desc.chunk_label && !s->labels)
		s->has_labels = 0; /* no memory for names: messages give chunk numbers */
	s->nstreams = n;
	return n;
}

/* Says in the receipt what decoded the chunks: "GZIP_2 tiles decoded on the GPU (tessera
 * inflate kernel)", and in its fallback which chunks the CPU decoded and why. */
static void tsr_cuda_receipt(const struct tsr_array *a, int64_t n_inflate, const char *gpu_name,
			     int64_t n_raw, const int64_t n_cpu[TSR_WHY_N],
			     const char *const cpu_name[TSR_WHY_N], struct tsr_receipt *r)
{
	static const char *const reason[TSR_WHY_N] = {
		"decoder option cpu", "quantized: no GPU dequantization yet",
		"steps with no GPU kernel yet", "no GPU decoder yet"};
	const char *noun = a->desc.chunk_noun;
	char dec[sizeof(r->decoder)] = "", fb[sizeof(r->fallback)] = "";
	size_t dn = 0, fn = 0;
	if (n_inflate)
		dn += (size_t)snprintf(dec + dn, sizeof(dec) - dn,
				       "%s %ss decoded on the GPU (tessera inflate kernel)", gpu_name,
				       noun);
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
					       cpu_name[w], noun, reason[w]);
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

int tsr_cuda_run(const struct tsr_array *array, const struct tsr_plan *plan,
		 const struct tsr_norm_sel *sel, void *out, void *stream, int nthreads, int decoder,
		 int defer_sync, struct tsr_receipt *r)
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
	size_t ntasks = (size_t)(plan->ntasks ? plan->ntasks : 1);
	if (cs->tasks_cap < ntasks) {
		/* kept between reads: a fresh one costs page faults on every file of a batch */
		free(cs->tasks);
		cs->tasks = malloc(ntasks * sizeof(*cs->tasks));
		cs->tasks_cap = cs->tasks ? ntasks : 0;
		if (!cs->tasks) {
			pthread_mutex_unlock(&cs->lock);
			return tsr_error(TSR_E_NOMEM, "out of memory");
		}
	}
	struct tsr_cuda_task *tasks = cs->tasks;
	/* Describe every task; size the slots for the largest chunk, the decode buffers for the
	 * largest decoded chunk (and for the read, up to TSR_DEC_NBYTES). */
	size_t biggest = 0, dec_biggest = 0, dec_total = 0;
	int64_t n_inflate = 0, n_raw = 0, n_cpu[TSR_WHY_N] = {0};
	const char *gpu_name = d->codec, *cpu_name[TSR_WHY_N] = {0};
	uint64_t gpu_decoded = 0;
	for (int64_t t = 0; t < plan->ntasks && st == TSR_OK; t++) {
		struct tsr_cuda_task *ct = &tasks[t];
		struct tsr_chunk_ref *ref = &ct->ref;
		ct->t = t;
		ct->how = TSR_HOW_CPU;
		ct->framing = -1;
		ct->alt_width = 0;
		ct->slot_offset = ct->dec_cap = ct->dec_offset = 0;
		ct->stream = -1;
		st = array->ops->chunk_ref(array, tsr_task_chunk(plan, t), ref);
		if (st) {
			char prefix[1400], label[320];
			tsr_cuda_chunk_name(array, tsr_task_chunk(plan, t), prefix, sizeof(prefix),
					    label, sizeof(label));
			tsr_error_prefix("%s %s", prefix, label);
			break;
		}
		ref->ndim = d->ndim;
		if (ref->path[0] && ref->nbytes == TSR_WHOLE_FILE && ref->codec.id != TSR_CODEC_FILL) {
			/* A chunk file of its own (Zarr): its size lays out the slot. A missing
			 * one reads as the fill value; other trouble is left to the CPU path,
			 * which reports it. */
			struct stat sb;
			int rc = stat(ref->path, &sb);
			if (rc == 0 && S_ISREG(sb.st_mode))
				ref->nbytes = (uint64_t)sb.st_size > ref->offset
						      ? (uint64_t)sb.st_size - ref->offset : 0;
			else if (rc != 0 && errno == ENOENT && ref->missing_is_fill) {
				ref->codec.id = TSR_CODEC_FILL;
				ref->nbytes = 0;
			}
		}
		int why = TSR_WHY_CODEC;
		if (tsr_cuda_raw_ok(ref)) {
			ct->how = TSR_HOW_RAW;
			ct->staged = (size_t)ref->nbytes;
			n_raw++;
		} else if (ref->codec.id != TSR_CODEC_FILL &&
			   (ct->framing = tsr_cuda_inflate_ok(ref, decoder == TSR_DECODER_CPU,
							      &why)) >= 0) {
			size_t w = tsr_dtype_size(ref->codec.elem);
			ct->how = TSR_HOW_INFLATE;
			/* Scaled integer FITS tiles may hold another width (CFITSIO decides by
			 * the size): room for the widest, as the CPU chain has. */
			ct->alt_width = ref->codec.elem_from_size && ref->xform.kind == TSR_XF_SCALE &&
					!tsr_dtype_is_float(ref->codec.elem);
			ct->staged = (size_t)ref->nbytes;
			ct->dec_cap = (size_t)ref->npix * (ct->alt_width ? 8 : w);
			ct->dec_cap = (ct->dec_cap + 15) & ~(size_t)15;
			if (ct->dec_cap > dec_biggest)
				dec_biggest = ct->dec_cap;
			dec_total += ct->dec_cap;
			gpu_decoded += (uint64_t)ref->npix * w;
			if (!n_inflate++ && ref->codec_name)
				gpu_name = ref->codec_name;
		} else {
			ct->how = TSR_HOW_CPU;
			ct->staged = (size_t)ref->npix * tsr_dtype_size(ref->xform.out);
			if (ref->codec.id != TSR_CODEC_FILL) {
				if (!n_cpu[why]++)
					cpu_name[why] = ref->codec_name ? ref->codec_name : d->codec;
			}
		}
		/* Values start 16-byte aligned for the place kernel; compressed streams lie back to
		 * back (the inflate kernel reads any alignment), so that tiles next to each other
		 * in the file are read with one pread. */
		if (ct->how != TSR_HOW_INFLATE)
			ct->staged = (ct->staged + 15) & ~(size_t)15;
		if (ct->staged > biggest)
			biggest = ct->staged;
	}
	if (st == TSR_OK)
		st = tsr_cuda_slots_ensure(cs, biggest > TSR_SLOT_NBYTES ? biggest : TSR_SLOT_NBYTES);
	if (st == TSR_OK && n_inflate) {
		size_t want = dec_total < TSR_DEC_NBYTES ? dec_total : TSR_DEC_NBYTES;
		st = tsr_cuda_dec_ensure(cs, want > dec_biggest ? want : dec_biggest);
	}
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
		/* This slot's last copy must be done before the host refills it, and its last
		 * inflate results judged before they are overwritten (a batch read's earlier
		 * file: the error names that file). */
		cudaError_t e = cudaEventSynchronize(s->copied);
		if (e) {
			st = tsr_cuda_fail(e, "staging copy");
			break;
		}
		if ((st = tsr_cuda_slot_judge(s, 1)))
			break;
		/* Fill the batch: as many tasks as fit the slot and its decode buffer. */
		size_t used = 0, dec_used = 0;
		int64_t t1 = t0;
		int64_t max_rows = 1;
		while (t1 < plan->ntasks && t1 - t0 < TSR_SLOT_PLACES) {
			size_t at = tasks[t1].how == TSR_HOW_INFLATE ? used : (used + 15) & ~(size_t)15;
			if (at + tasks[t1].staged > s->nbytes ||
			    (tasks[t1].dec_cap && dec_used + tasks[t1].dec_cap > s->dec_nbytes))
				break;
			tasks[t1].slot_offset = at;
			used = at + tasks[t1].staged;
			tasks[t1].dec_offset = dec_used;
			dec_used += tasks[t1].dec_cap;
			int64_t rows = 1;
			const int64_t *k0 = tsr_task_k0(plan, t1), *k1 = tsr_task_k1(plan, t1);
			for (int i = 0; i < d->ndim - 1; i++)
				rows *= k1[i] - k0[i];
			if (rows > max_rows)
				max_rows = rows;
			t1++;
		}
		if (t1 == t0) { /* the slots were sized for the largest chunk: never happens */
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
		atomic_store(&job.failed, 0);
		tsr_pool_run(array->ctx->pool, nthreads, tsr_cuda_worker, &job);
		if (job.status) {
			st = job.status;
			tsr_error_set_text(job.msg);
			break;
		}
		size_t first[3], count[3];
		size_t ns = tsr_cuda_streams(&job, s, first, count);
		for (int64_t i = 0; i < job.ntasks; i++)
			tsr_cuda_describe(&job, &job.tasks[i], &s->host_places[i]);
		double tc = tsr_now();
		/* The device half of the slot must be free of the previous batch's kernels. */
		if ((e = cudaStreamWaitEvent(cs->copy, s->placed, 0)) ||
		    (e = cudaMemcpyAsync(s->dev, s->host, used, cudaMemcpyHostToDevice, cs->copy)) ||
		    (e = cudaMemcpyAsync(s->dev_places, s->host_places,
					 (size_t)job.ntasks * sizeof(struct tsr_cuda_place),
					 cudaMemcpyHostToDevice, cs->copy)) ||
		    (ns && (e = cudaMemcpyAsync(s->dev_io, s->host_io, 4 * 8 * ns,
						cudaMemcpyHostToDevice, cs->copy))) ||
		    (e = cudaEventRecord(s->copied, cs->copy)) ||
		    (e = cudaStreamWaitEvent(cstream, s->copied, 0))) {
			st = tsr_cuda_fail(e, "copy to the device");
			break;
		}
		/* Inflate on the read's stream, one launch per framing, into the decode buffer. */
		uint64_t *io = s->dev_io;
		size_t *d_sizes = (size_t *)s->dev_res;
		int *d_status = (int *)(s->dev_res + 8 * ns);
		for (int f = 0; f < 3 && st == TSR_OK; f++) {
			if (!count[f])
				continue;
			size_t k = first[f];
			st = tsr_cuda_inflate_batch((const void *const *)(io + k),
						    (const size_t *)(io + ns + k),
						    (void *const *)(io + 2 * ns + k),
						    (const size_t *)(io + 3 * ns + k), d_sizes + k,
						    d_status + k, count[f], f, s->dev_res + TSR_RES_NBYTES,
						    TSR_SCRATCH_NBYTES, cstream);
			if (st)
				st = tsr_error(st, "%s: GPU inflate: launch failed: %s", array->path,
					       tsr_strerror(st));
		}
		if (st)
			break;
		int ke = tsr_cuda_place_launch(out, s->dev, s->dec, s->dev_places, (size_t)job.ntasks,
					       max_rows, ns ? d_status : NULL, ns ? d_sizes : NULL,
					       cstream);
		if (ke) {
			st = tsr_cuda_fail((cudaError_t)ke, "place kernel");
			break;
		}
		/* The small result arrays come back with the batch, judged before the read
		 * returns (or, in a batch read, when the slot comes round again). */
		if (ns) {
			if ((e = cudaMemcpyAsync(s->host_res, s->dev_res, 12 * ns,
						 cudaMemcpyDeviceToHost, cstream)) ||
			    (e = cudaEventRecord(s->checked, cstream))) {
				st = tsr_cuda_fail(e, "inflate results");
				break;
			}
			s->pending = 1;
		}
		if ((e = cudaEventRecord(s->placed, cstream))) {
			st = tsr_cuda_fail(e, "place kernel");
			break;
		}
		t_copy += tsr_now() - tc;
		t0 = t1;
		slot_i = (slot_i + 1) % TSR_NSLOTS;
	}
	cs->next_slot = slot_i;
	/* Reads are synchronous: the status covers every kernel of this read (in a batch, the
	 * last file's read waits for all of them and judges every pending result). A failed
	 * read still waits, so nothing writes into the caller's buffer after it returns. */
	if (st != TSR_OK) {
		char msg[1024];
		snprintf(msg, sizeof(msg), "%s", tsr_errmsg());
		tsr_cuda_settle(cs, 0);
		cudaStreamSynchronize(cstream);
		tsr_error_set_text(msg);
	} else if (!defer_sync) {
		cudaError_t e = cudaStreamSynchronize(cstream);
		st = tsr_cuda_settle(cs, 1);
		if (st == TSR_OK && e)
			st = tsr_cuda_fail(e, "place kernel");
	}
	r->t_fetch += job.t_fetch;
	r->t_decode += job.t_decode;
	r->t_place += t_copy;
	r->bytes_read += job.bytes_read;
	r->bytes_decoded += job.bytes_decoded + gpu_decoded;
	r->nthreads = nthreads;
	snprintf(r->engine, sizeof(r->engine), "cuda");
	tsr_cuda_receipt(array, n_inflate, gpu_name, n_raw, n_cpu, cpu_name, r);
	pthread_mutex_destroy(&job.lock);
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
		 const struct tsr_norm_sel *sel, void *out, void *stream, int nthreads, int decoder,
		 int defer_sync, struct tsr_receipt *r)
{
	(void)plan, (void)sel, (void)out, (void)stream, (void)nthreads, (void)decoder;
	(void)defer_sync, (void)r;
	return tsr_error(TSR_E_NO_DEVICE, "%s: this build of tessera has no CUDA engine",
			 array->path);
}

void tsr_cuda_state_free(void *p)
{
	(void)p;
}

void tsr_cuda_quiesce(struct tsr_context *ctx)
{
	(void)ctx;
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
