/* cuda.c - the CUDA engine (host side): reads land in GPU memory. The thread pool fetches chunks
 * into a ring of pinned staging slots: stored bytes where the GPU decodes them (plain elements;
 * one DEFLATE-family stream, which the inflate kernel decodes into the slot's decode buffer),
 * values decoded on the CPU otherwise. A slot is filled up to its size, across the files of a
 * batch read, before it goes to the GPU; each slot has its own CUDA stream (copy, inflate, place
 * into the callers' arrays), so batch k's inflate overlaps batch k+1's copy and batch k+2's
 * reading, and the inflate launches of several slots share the GPU. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../codecs/codecs.h"
#include "../io/cufile.h"
#include "../io/io.h"
#include "../io/mock.h"
#include "../io/mock_device.h"
#include "engine.h"

#ifdef TSR_WITH_CUDA
#include <cuda_runtime.h>

#include "../cuda/place.h"
#include "../cuda/tsr_cuda.h"

/* Staging ring: copies of >= 16 MiB reach full PCIe speed (DESIGN.md section 4). The GPU decodes
 * as many slots at once as the ring has: one warp inflates a stream, so large tiles (FITS tiles
 * of 16 rows: 256 KiB, about 650 to a slot) need several slots in flight to fill the GPU. Slots
 * are allocated as the ring first reaches them: a small read takes one. */
#define TSR_SLOT_NBYTES ((size_t)128 << 20)
#define TSR_NSLOTS 6
#define TSR_SLOT_PLACES 16384
/* A slot's decode buffer holds what its compressed bytes inflate to: float images compress 1.2
 * to 3 times, so 64 MiB of staged tiles need up to about 200 MiB; a batch ends early when it
 * fills. Reads that need less allocate less. */
#define TSR_DEC_NBYTES ((size_t)192 << 20)
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
	uint32_t prefix_at;     /* its file's "path: HDU 1: tile" in the slot's prefix text */
	int16_t elem, out;      /* enum tsr_dtype: stored, output */
	uint8_t framing;        /* TSR_CUDA_DEFLATE / ZLIB / GZIP */
	uint8_t elem_from_size; /* FITS GZIP tile: another integer width may be legal */
	uint8_t kind;           /* enum tsr_xform_kind */
	uint8_t name;           /* index into the slot's codec names */
	uint8_t has_label;      /* the slot's labels name it (Zarr keys) */
};

#define TSR_NAMES 8

/*
 * A slot of the ring. It is open while the host fills it (chunks of one read, or of several
 * files of a batch read: each place says which output it goes to), then dispatched to its
 * stream in one piece. A dispatched batch's inflate results stay pending until the slot is
 * opened again or the ring settles: a batch read's earlier files are judged while later ones
 * are read, when their arrays may be closed, so what messages need is kept here as text.
 */
struct tsr_cuda_slot {
	unsigned char *host;            /* pinned staging */
	unsigned char *dev;
	size_t nbytes;
	struct tsr_cuda_place *host_places; /* pinned */
	struct tsr_cuda_place *dev_places;
	unsigned char *dec;             /* device decode buffer (allocated on first need) */
	size_t dec_nbytes;
	uint64_t *host_io, *dev_io;     /* inflate arguments, 4 arrays: input pointers, input
					   sizes, output pointers, output capacities; while open,
					   TSR_SLOT_PLACES apart and pointers as offsets (buffers
					   may grow before dispatch), then packed n apart */
	unsigned char *host_res, *dev_res; /* inflate results (TSR_RES_NBYTES; + scratch) */
	struct tsr_cuda_check *checks;  /* TSR_SLOT_PLACES */
	char *labels;                   /* TSR_SLOT_PLACES x TSR_LABEL_NBYTES: chunk names of
					   formats that name chunks (Zarr keys); NULL until then */
	cudaStream_t stream;            /* copy, inflate and place of this slot's batches */
	cudaEvent_t copied;             /* host buffers free again */
	cudaEvent_t placed;             /* the last batch is placed */
	cudaEvent_t checked;            /* inflate results are in host_res */
	int made;                       /* stream and events exist */
	/* the batch being filled, or the last one dispatched */
	int open;
	pthread_t owner;                /* the thread whose reads fill the open slot */
	size_t used, dec_used, nplaces, nstreams;
	int framing;                    /* of its inflate streams (one launch): -1 none yet */
	int replay;                     /* mock-device: places and inflate inputs hold device
					   addresses of the handle's cache; nothing is staged */
	int cufile;                     /* stored bytes were read into dev by cuFile: only the
					   host ranges below (CPU-decoded values) are copied */
	size_t (*ranges)[2];            /* cufile: [start, end) of the host bytes to copy */
	size_t nranges, ranges_cap;
	int64_t max_rows;
	int pending;                    /* dispatched results not judged yet */
	char names[TSR_NAMES][32];      /* codec names of the batch's streams */
	int nnames;
	char *ptext;                    /* prefixes of the batch's files, each NUL-ended */
	size_t ptext_len, ptext_cap;
	uint64_t pfx_seq;               /* the read whose prefix was added last, at pfx_at */
	uint32_t pfx_at;
};

struct tsr_cuda_task;

struct tsr_cuda_state {
	pthread_mutex_t lock;           /* one GPU read at a time per context */
	int device;
	struct tsr_cuda_slot slot[TSR_NSLOTS];
	size_t slot_want, dec_want;     /* slot sizes the reads so far need */
	int next_slot;                  /* the open slot, or the one to open next */
	cudaStream_t open_cstream;      /* the caller's stream of the open slot's reads */
	cudaEvent_t entry;              /* recorded on a caller's stream: work a slot must follow */
	uint64_t seq;                   /* reads so far */
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

/* Frees a slot's buffers (its work must be done); keeps its stream and events. */
static void tsr_cuda_slot_buffers_free(struct tsr_cuda_slot *s)
{
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
	free(s->checks);
	s->host = s->dev = s->dec = s->host_res = s->dev_res = NULL;
	s->host_places = s->dev_places = NULL;
	s->host_io = s->dev_io = NULL;
	s->checks = NULL;
	s->nbytes = s->dec_nbytes = 0;
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
static int tsr_cuda_settle(struct tsr_cuda_state *cs, int check)
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
	    (e = cudaHostAlloc((void **)&s->host_io, 4 * 8 * (size_t)TSR_SLOT_PLACES,
			       cudaHostAllocDefault)) ||
	    (e = cudaMalloc((void **)&s->dev_io, 4 * 8 * (size_t)TSR_SLOT_PLACES)) ||
	    (e = cudaHostAlloc((void **)&s->host_res, TSR_RES_NBYTES, cudaHostAllocDefault)) ||
	    (e = cudaMalloc((void **)&s->dev_res, TSR_RES_NBYTES + TSR_SCRATCH_NBYTES))) {
		tsr_cuda_slot_buffers_free(s);
		return tsr_cuda_fail(e, "staging buffers");
	}
	s->checks = malloc(TSR_SLOT_PLACES * sizeof(*s->checks));
	if (!s->checks) {
		tsr_cuda_slot_buffers_free(s);
		return tsr_error(TSR_E_NOMEM, "out of memory");
	}
	s->nbytes = nbytes;
	return TSR_OK;
}

/*
 * Opens the ring's next slot for filling (or returns the open one): its stream made, its last
 * batch copied and judged (an error there names that batch's file), its buffers as large as
 * the reads need.
 */
static int tsr_cuda_slot_open(struct tsr_cuda_state *cs, struct tsr_cuda_slot **s_ret)
{
	struct tsr_cuda_slot *s = &cs->slot[cs->next_slot];
	*s_ret = s;
	if (s->open)
		return TSR_OK;
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
	if ((e = cudaEventSynchronize(s->copied)))
		return tsr_cuda_fail(e, "staging copy");
	int st = tsr_cuda_slot_judge(s, 1);
	if (st)
		return st;
	if (s->nbytes < cs->slot_want || s->dec_nbytes < cs->dec_want) {
		/* The slot's last kernels may still read the old buffers. */
		if ((e = cudaStreamSynchronize(s->stream)))
			return tsr_cuda_fail(e, "GPU decode and place");
		if (s->nbytes < cs->slot_want && (st = tsr_cuda_slot_alloc(s, cs->slot_want)))
			return st;
		if (s->dec_nbytes < cs->dec_want) {
			if (s->dec)
				cudaFree(s->dec);
			s->dec = NULL;
			s->dec_nbytes = 0;
			if ((e = cudaMalloc((void **)&s->dec, cs->dec_want)))
				return tsr_cuda_fail(e, "decode buffers");
			s->dec_nbytes = cs->dec_want;
		}
	}
	s->used = s->dec_used = s->nplaces = s->nstreams = 0;
	s->framing = -1;
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
static void tsr_cuda_drop_open(struct tsr_cuda_state *cs)
{
	struct tsr_cuda_slot *s = &cs->slot[cs->next_slot];
	if (s->open && pthread_equal(s->owner, pthread_self()))
		s->open = 0;
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
		if ((e = cudaEventCreateWithFlags(&cs->entry, cudaEventDisableTiming))) {
			pthread_mutex_destroy(&cs->lock);
			free(cs);
			st = tsr_cuda_fail(e, "event");
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
	for (int i = 0; i < TSR_NSLOTS; i++) {
		struct tsr_cuda_slot *s = &cs->slot[i];
		tsr_cuda_slot_buffers_free(s);
		free(s->labels);
		free(s->ptext);
		free(s->ranges);
		if (s->made) {
			cudaEventDestroy(s->copied);
			cudaEventDestroy(s->placed);
			cudaEventDestroy(s->checked);
			cudaStreamDestroy(s->stream);
		}
	}
	free(cs->tasks);
	cudaEventDestroy(cs->entry);
	pthread_mutex_destroy(&cs->lock);
	free(cs);
}

void tsr_cuda_quiesce(struct tsr_context *ctx)
{
	struct tsr_cuda_state *cs = ctx ? ctx->cuda : NULL;
	if (!cs)
		return;
	pthread_mutex_lock(&cs->lock);
	tsr_cuda_drop_open(cs);
	tsr_cuda_settle(cs, 0);
	pthread_mutex_unlock(&cs->lock);
}

/* A task as the slot sees it. */
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
	int stream;             /* INFLATE: the slot's inflate stream */
	int split;              /* stored bytes read in pieces (job->pieces), not as a task */
};

/* Stored bytes of large chunks are read in pieces of this size by all the pool's threads: a
 * slot holding four 16 MiB Zarr chunks would otherwise keep four threads reading. Small pieces
 * also shorten the wait for the slowest thread before a slot can go to the GPU (a slot's fill
 * ends when its last read does). */
#define TSR_PIECE_NBYTES ((uint64_t)512 << 10)

struct tsr_cuda_piece {
	int64_t task;           /* index into the job's tasks */
	uint64_t offset, nbytes; /* within the chunk's stored bytes */
};

struct tsr_cuda_job {
	const struct tsr_array *array;
	const struct tsr_plan *plan;
	const struct tsr_norm_sel *sel;
	void *out;              /* the read's output (device memory) */
	struct tsr_cuda_task *tasks;
	int64_t ntasks;
	unsigned char *host;
	atomic_llong next;
	int64_t group;          /* tasks a worker takes at a time */
	atomic_int failed;
	int mock;               /* mock-host: chunk bytes from the array's host cache */
	int cufile;             /* stored bytes go straight to dev through cuFile */
	unsigned char *dev;     /* the slot's device staging */
	struct tsr_cuda_piece *pieces; /* read before the tasks */
	int64_t npieces;
	atomic_llong next_piece;
	pthread_mutex_t lock;
	int status;
	char msg[2048];
	double t_fetch, t_decode;
	uint64_t bytes_read, bytes_decoded;
};

static void tsr_cuda_job_fail(struct tsr_cuda_job *job, int st, int64_t chunk)
{
	char prefix[1400], label[320];
	tsr_array_chunk_name(job->array, chunk, prefix, sizeof(prefix), label, sizeof(label));
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

/* Reads a chunk's stored bytes (or a piece: ref already narrowed) to dst_offset in the slot:
 * into pinned memory with pread, or straight into device memory with cuFile. */
static int tsr_cuda_read_to_slot(const struct tsr_cuda_job *job, const struct tsr_chunk_ref *r,
				 size_t dst_offset, struct tsr_fd_cache *fc,
				 struct tsr_cufile_file *cf)
{
	if (!job->cufile)
		return tsr_cuda_read_stored(job->array, r, job->host + dst_offset, fc);
	const char *path = r->path[0] ? r->path : job->array->path;
	if (cf->fd < 0 || strcmp(cf->path, path) != 0) {
		tsr_cufile_close(cf);
		int st = tsr_cufile_open(path, cf);
		if (st)
			return st;
	}
	return tsr_cufile_read(cf, job->dev, dst_offset, (size_t)r->nbytes, r->offset);
}

/* Pool worker: fetch (and decode where needed) the batch's chunks into the pinned slot. */
static void tsr_cuda_worker(void *arg, int w)
{
	(void)w;
	struct tsr_cuda_job *job = arg;
	struct tsr_scratch scratch = {0};
	struct tsr_fd_cache fc = {.fd = -1};
	struct tsr_cufile_file cf = {.fd = -1};
	unsigned char *fetch = NULL;
	size_t cap = 0;
	double tf = 0, td = 0;
	uint64_t br = 0, bd = 0;
	int64_t i = 0, end = 0;
	for (int64_t k; (k = atomic_fetch_add(&job->next_piece, 1)) < job->npieces;) {
		if (atomic_load(&job->failed))
			break;
		const struct tsr_cuda_piece *pc = &job->pieces[k];
		struct tsr_cuda_task *ct = &job->tasks[pc->task];
		struct tsr_chunk_ref run = ct->ref;
		run.offset += pc->offset;
		run.nbytes = pc->nbytes;
		double t0 = tsr_now();
		int st = tsr_cuda_read_to_slot(job, &run, ct->slot_offset + pc->offset, &fc, &cf);
		tf += tsr_now() - t0;
		br += pc->nbytes;
		if (st) {
			tsr_cuda_job_fail(job, st, tsr_task_chunk(job->plan, ct->t));
			break;
		}
	}
	for (;;) {
		if (i >= end) {
			/* Tasks are taken a group at a time, so that neighbours can share a read. */
			i = atomic_fetch_add(&job->next, job->group);
			end = i + job->group < job->ntasks ? i + job->group : job->ntasks;
		}
		if (i >= job->ntasks || atomic_load(&job->failed))
			break;
		struct tsr_cuda_task *ct = &job->tasks[i];
		if (ct->split) {
			i++;
			continue;
		}
		int64_t chunk = tsr_task_chunk(job->plan, ct->t);
		unsigned char *dst = job->host + ct->slot_offset;
		double t0 = tsr_now();
		int st = TSR_OK;
		if (job->mock) {
			/* mock-host: the handle's copy of the stored bytes, no I/O. */
			const struct tsr_mock_chunk *mc = tsr_mock_chunk(job->array, chunk);
			i++;
			if (!mc) {
				st = tsr_error(TSR_E_INTERNAL, "mock-host storage: chunk not cached");
			} else if (ct->how != TSR_HOW_CPU) {
				memcpy(dst, mc->bytes, (size_t)ct->ref.nbytes);
				br += ct->ref.nbytes;
			} else {
				br += ct->ref.codec.id == TSR_CODEC_FILL ? 0 : ct->ref.nbytes;
				double t1 = tsr_now();
				tf += t1 - t0;
				uint64_t dn = 0;
				st = tsr_chunk_decode(&ct->ref, mc->bytes, ct->ref.nbytes, dst, 0,
						      &scratch, &dn);
				bd += dn;
				td += tsr_now() - t1;
				t0 = tsr_now();
			}
			tf += tsr_now() - t0;
		} else if (ct->how != TSR_HOW_CPU) {
			/* Stored bytes straight into pinned memory: no copy on the host. Chunks
			 * that lie back to back in the same file and in the slot (FITS tiles in
			 * the heap) are one read, of up to 4 MiB. */
			struct tsr_chunk_ref run = ct->ref;
			int64_t j = i + 1;
			while (j < end && job->tasks[j].how != TSR_HOW_CPU && !job->tasks[j].split &&
			       job->tasks[j].ref.offset == run.offset + run.nbytes &&
			       job->tasks[j].slot_offset == ct->slot_offset + run.nbytes &&
			       run.nbytes + job->tasks[j].ref.nbytes <= ((uint64_t)4 << 20) &&
			       !strcmp(job->tasks[j].ref.path, run.path)) {
				run.nbytes += job->tasks[j].ref.nbytes;
				j++;
			}
			st = tsr_cuda_read_to_slot(job, &run, ct->slot_offset, &fc, &cf);
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
	tsr_cufile_close(&cf);
	tsr_scratch_free(&scratch);
	free(fetch);
	pthread_mutex_lock(&job->lock);
	job->t_fetch += tf;
	job->t_decode += td;
	job->bytes_read += br;
	job->bytes_decoded += bd;
	pthread_mutex_unlock(&job->lock);
}

/* Lists the pieces of the job's large stored chunks (real storage), marking those tasks split. */
static int tsr_cuda_pieces(struct tsr_cuda_job *job)
{
	int64_t n = 0;
	for (int pass = 0; pass < 2; pass++) {
		n = 0;
		for (int64_t i = 0; i < job->ntasks; i++) {
			struct tsr_cuda_task *ct = &job->tasks[i];
			ct->split = 0;
			if (ct->how == TSR_HOW_CPU || job->mock || ct->ref.nbytes <= TSR_PIECE_NBYTES)
				continue;
			ct->split = 1;
			for (uint64_t off = 0; off < ct->ref.nbytes; off += TSR_PIECE_NBYTES, n++)
				if (pass)
					job->pieces[n] = (struct tsr_cuda_piece){
						i, off, ct->ref.nbytes - off < TSR_PIECE_NBYTES
								? ct->ref.nbytes - off : TSR_PIECE_NBYTES};
		}
		if (!pass) {
			free(job->pieces);
			job->pieces = n ? malloc((size_t)n * sizeof(*job->pieces)) : NULL;
			if (n && !job->pieces)
				return tsr_error(TSR_E_NOMEM, "out of memory");
		}
	}
	job->npieces = n;
	atomic_store(&job->next_piece, 0);
	return TSR_OK;
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

/* The place of a task: its box of the chunk, where it lands in the read's output, where its
 * values are in the slot. */
static void tsr_cuda_describe(const struct tsr_cuda_job *job, const struct tsr_cuda_task *ct,
			      struct tsr_cuda_place *pl)
{
	const struct tsr_desc *d = &job->array->desc;
	const struct tsr_plan *p = job->plan;
	const int64_t *k0 = tsr_task_k0(p, ct->t), *k1 = tsr_task_k1(p, ct->t);
	int64_t chunk = tsr_task_chunk(p, ct->t), rem = chunk;
	memset(pl, 0, sizeof(*pl));
	pl->out = (uint64_t)(uintptr_t)job->out;
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

/* The offset in the slot's prefix text of this read's "path: HDU 1: tile", added once a read. */
static uint32_t tsr_cuda_prefix_at(struct tsr_cuda_slot *s, uint64_t seq, const char *prefix)
{
	if (s->pfx_seq == seq)
		return s->pfx_at;
	size_t n = strlen(prefix) + 1;
	if (s->ptext_len + n > s->ptext_cap) {
		size_t cap = s->ptext_cap ? 2 * s->ptext_cap : 4096;
		while (cap < s->ptext_len + n)
			cap *= 2;
		char *p = realloc(s->ptext, cap);
		if (!p)
			return UINT32_MAX; /* no memory for names: the message goes without */
		s->ptext = p;
		s->ptext_cap = cap;
	}
	memcpy(s->ptext + s->ptext_len, prefix, n);
	s->pfx_seq = seq;
	s->pfx_at = (uint32_t)s->ptext_len;
	s->ptext_len += n;
	return s->pfx_at;
}

/* Appends the job's INFLATE tasks to the slot's inflate streams: arguments (offsets until the
 * slot is dispatched) and what judging their results needs. */
static void tsr_cuda_streams(struct tsr_cuda_job *job, struct tsr_cuda_slot *s, uint64_t seq,
			     const char *prefix)
{
	const struct tsr_array *a = job->array;
	const size_t cap = TSR_SLOT_PLACES;
	uint32_t pfx = UINT32_MAX;
	for (int64_t i = 0; i < job->ntasks; i++) {
		struct tsr_cuda_task *ct = &job->tasks[i];
		if (ct->how != TSR_HOW_INFLATE)
			continue;
		if (pfx == UINT32_MAX)
			pfx = tsr_cuda_prefix_at(s, seq, prefix);
		if (a->desc.chunk_label && !s->labels)
			s->labels = malloc(cap * TSR_LABEL_NBYTES);
		size_t k = s->nstreams++;
		ct->stream = (int)k;
		s->host_io[k] = ct->slot_offset;
		s->host_io[cap + k] = ct->ref.nbytes;
		s->host_io[2 * cap + k] = ct->dec_offset;
		s->host_io[3 * cap + k] = ct->dec_cap;
		struct tsr_cuda_check *c = &s->checks[k];
		int64_t chunk = tsr_task_chunk(job->plan, ct->t);
		c->chunk = chunk;
		c->npix = (uint64_t)ct->ref.npix;
		c->width = (uint32_t)tsr_dtype_size(ct->ref.codec.elem);
		c->prefix_at = pfx;
		c->elem = (int16_t)ct->ref.codec.elem;
		c->out = (int16_t)ct->ref.xform.out;
		c->framing = (uint8_t)ct->framing;
		c->elem_from_size = (uint8_t)ct->ref.codec.elem_from_size;
		c->kind = (uint8_t)ct->ref.xform.kind;
		c->name = (uint8_t)tsr_cuda_name_index(s, ct->ref.codec_name ? ct->ref.codec_name
									  : a->desc.codec);
		/* no memory for names: messages give chunk numbers */
		c->has_label = a->desc.chunk_label && s->labels;
		if (c->has_label)
			a->desc.chunk_label(a, chunk, s->labels + k * TSR_LABEL_NBYTES,
					    TSR_LABEL_NBYTES);
	}
}

/* cufile: the slot's host ranges to the device, on its stream. */
static cudaError_t tsr_cuda_copy_ranges(const struct tsr_cuda_slot *s)
{
	cudaError_t e = cudaSuccess;
	for (size_t k = 0; k < s->nranges && !e; k++)
		e = cudaMemcpyAsync(s->dev + s->ranges[k][0], s->host + s->ranges[k][0],
				    s->ranges[k][1] - s->ranges[k][0], cudaMemcpyHostToDevice,
				    s->stream);
	return e;
}

/*
 * Sends the open slot's batch to the GPU on the slot's stream, after the work its reads'
 * caller had queued on their stream: the staged bytes, places and inflate arguments in one
 * copy each, one inflate launch, one place launch, the inflate results back. The ring turns
 * on to the next slot.
 */
static int tsr_cuda_dispatch(struct tsr_cuda_state *cs, struct tsr_cuda_slot *s)
{
	s->open = 0;
	cs->next_slot = (cs->next_slot + 1) % TSR_NSLOTS;
	if (!s->nplaces)
		return TSR_OK;
	/* Pack the inflate arguments n apart, offsets made pointers into today's buffers. */
	size_t n = s->nstreams;
	uint64_t *io = s->host_io;
	for (int j = 1; j < 4; j++)
		memmove(io + j * n, io + j * (size_t)TSR_SLOT_PLACES, 8 * n);
	uint64_t in_base = s->replay ? 0 : (uint64_t)(uintptr_t)s->dev;
	for (size_t k = 0; k < n; k++) {
		io[k] += in_base;
		io[2 * n + k] += (uint64_t)(uintptr_t)s->dec;
	}
	cudaStream_t ss = s->stream;
	cudaError_t e;
	if ((e = cudaEventRecord(cs->entry, cs->open_cstream)) ||
	    (e = cudaStreamWaitEvent(ss, cs->entry, 0)) ||
	    (s->used && !s->cufile &&
	     (e = cudaMemcpyAsync(s->dev, s->host, s->used, cudaMemcpyHostToDevice, ss))) ||
	    (s->cufile && (e = tsr_cuda_copy_ranges(s))) ||
	    (e = cudaMemcpyAsync(s->dev_places, s->host_places,
				 s->nplaces * sizeof(struct tsr_cuda_place), cudaMemcpyHostToDevice,
				 ss)) ||
	    (n && (e = cudaMemcpyAsync(s->dev_io, s->host_io, 4 * 8 * n, cudaMemcpyHostToDevice,
				       ss))) ||
	    (e = cudaEventRecord(s->copied, ss)))
		return tsr_cuda_fail(e, "copy to the device");
	uint64_t *dio = s->dev_io;
	size_t *d_sizes = (size_t *)s->dev_res;
	int *d_status = (int *)(s->dev_res + 8 * n);
	if (n) {
		int st = tsr_cuda_inflate_batch((const void *const *)dio, (const size_t *)(dio + n),
						(void *const *)(dio + 2 * n),
						(const size_t *)(dio + 3 * n), d_sizes, d_status, n,
						s->framing, s->dev_res + TSR_RES_NBYTES,
						TSR_SCRATCH_NBYTES, ss);
		if (st)
			return tsr_error(st, "GPU inflate: launch failed: %s", tsr_strerror(st));
	}
	int ke = tsr_cuda_place_launch(s->replay ? NULL : s->dev, s->dec, s->dev_places, s->nplaces, s->max_rows,
				       n ? d_status : NULL, n ? d_sizes : NULL, ss);
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

/*
 * mock-device: makes sure the array's device cache holds what each task's chunk puts before the
 * GPU (its stored bytes, or its values decoded on the CPU), copying in what is missing from the
 * host mock cache, and points the task at it (slot_offset becomes a device address).
 */
static int tsr_cuda_replay_fill(struct tsr_array *array, const struct tsr_plan *plan,
				struct tsr_cuda_task *tasks)
{
	struct tsr_scratch scratch = {0};
	unsigned char *vals = NULL;
	size_t vcap = 0;
	int st = TSR_OK;
	for (int64_t t = 0; t < plan->ntasks && st == TSR_OK; t++) {
		struct tsr_cuda_task *ct = &tasks[t];
		int64_t chunk = tsr_task_chunk(plan, t);
		int kind = ct->how == TSR_HOW_CPU ? TSR_MOCK_DEV_VALUES : TSR_MOCK_DEV_STORED;
		uint64_t addr, have;
		if (!(addr = tsr_mock_dev_find(array, chunk, kind, &have))) {
			const struct tsr_mock_chunk *mc = tsr_mock_chunk(array, chunk);
			if (!mc) {
				st = tsr_error(TSR_E_INTERNAL, "mock storage: chunk not cached");
			} else if (kind == TSR_MOCK_DEV_STORED) {
				st = tsr_mock_dev_put(array, chunk, kind, mc->bytes,
						      (size_t)ct->ref.nbytes, &addr);
			} else {
				if (ct->staged > vcap) {
					free(vals);
					vcap = ct->staged;
					if (!(vals = malloc(vcap)))
						vcap = 0;
				}
				uint64_t dn = 0;
				st = !vals && ct->staged ? tsr_error(TSR_E_NOMEM, "out of memory")
					: tsr_chunk_decode(&ct->ref, mc->bytes, ct->ref.nbytes, vals,
							   0, &scratch, &dn);
				if (st == TSR_OK)
					st = tsr_mock_dev_put(array, chunk, kind, vals, ct->staged,
							      &addr);
			}
			if (st) {
				char prefix[1400], label[320];
				tsr_array_chunk_name(array, chunk, prefix, sizeof(prefix), label,
						    sizeof(label));
				tsr_error_prefix("%s %s", prefix, label);
			}
		}
		ct->slot_offset = (size_t)addr;
	}
	tsr_scratch_free(&scratch);
	free(vals);
	return st;
}

/* cufile: notes the host byte ranges of the job's CPU-decoded tasks, the only ones the slot
 * copies (cuFile put the stored bytes of the others on the device already). */
static int tsr_cuda_host_ranges(const struct tsr_cuda_job *job, struct tsr_cuda_slot *s)
{
	for (int64_t i = 0; i < job->ntasks; i++) {
		const struct tsr_cuda_task *ct = &job->tasks[i];
		if (ct->how != TSR_HOW_CPU || !ct->staged)
			continue;
		size_t a = ct->slot_offset, b = a + ct->staged;
		if (s->nranges && s->ranges[s->nranges - 1][1] == a) {
			s->ranges[s->nranges - 1][1] = b;
			continue;
		}
		if (s->nranges == s->ranges_cap) {
			size_t cap = s->ranges_cap ? 2 * s->ranges_cap : 64;
			void *p = realloc(s->ranges, cap * sizeof(*s->ranges));
			if (!p)
				return tsr_error(TSR_E_NOMEM, "out of memory");
			s->ranges = p;
			s->ranges_cap = cap;
		}
		s->ranges[s->nranges][0] = a;
		s->ranges[s->nranges][1] = b;
		s->nranges++;
	}
	return TSR_OK;
}

/* The end of a read that succeeded so far: its last slot goes to the GPU, the caller's stream
 * waits for every slot's work, and every inflate result of the read (a batch read: of all its
 * files) is judged before it returns. */
static int tsr_cuda_finish(struct tsr_cuda_state *cs, cudaStream_t cstream)
{
	struct tsr_cuda_slot *s = &cs->slot[cs->next_slot];
	int st = TSR_OK;
	if (s->open && (st = tsr_cuda_dispatch(cs, s)))
		return st;
	cudaError_t e = cudaSuccess;
	for (int k = 0; k < TSR_NSLOTS && !e; k++)
		if (cs->slot[k].made)
			e = cudaStreamWaitEvent(cstream, cs->slot[k].placed, 0);
	if (!e)
		e = cudaStreamSynchronize(cstream);
	st = tsr_cuda_settle(cs, 1);
	if (st == TSR_OK && e)
		st = tsr_cuda_fail(e, "place kernel");
	return st;
}

int tsr_cuda_run(struct tsr_array *array, const struct tsr_plan *plan,
		 const struct tsr_norm_sel *sel, void *out, void *stream, int nthreads, int decoder,
		 int storage, int defer_sync, struct tsr_receipt *r)
{
	struct tsr_cuda_state *cs = NULL;
	const struct tsr_desc *d = &array->desc;
	int st = tsr_cuda_state_get(array->ctx, &cs);
	if (st)
		return st;
	if (d->ndim > TSR_CUDA_MAX_DIM)
		return tsr_error(TSR_E_UNSUPPORTED, "%s: the CUDA engine places up to %d axes",
				 array->path, TSR_CUDA_MAX_DIM);
	const int mock = storage == TSR_STORAGE_MOCK_HOST || storage == TSR_STORAGE_MOCK_DEVICE;
	const int replay = storage == TSR_STORAGE_MOCK_DEVICE;
	/* cuFile where asked, or (auto) where it runs natively; forcing it elsewhere fails. */
	char cf_why[256] = "";
	int cufile = 0;
	if (storage == TSR_STORAGE_REAL || storage == TSR_STORAGE_CUFILE) {
		cufile = tsr_cufile_usable(cf_why, sizeof(cf_why));
		if (!cufile && storage == TSR_STORAGE_CUFILE)
			return tsr_error(TSR_E_UNSUPPORTED, "%s: cufile storage: GPUDirect Storage "
					 "cannot run here: %s", array->path, cf_why);
	}
	pthread_mutex_lock(&cs->lock);
	cudaStream_t cstream = (cudaStream_t)stream;
	uint64_t seq = ++cs->seq;
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
	size_t biggest = 0, dec_biggest = 0, dec_total = 0, staged_total = 0;
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
		ct->split = 0;
		st = array->ops->chunk_ref(array, tsr_task_chunk(plan, t), ref);
		if (st) {
			char prefix[1400], label[320];
			tsr_array_chunk_name(array, tsr_task_chunk(plan, t), prefix, sizeof(prefix),
					    label, sizeof(label));
			tsr_error_prefix("%s %s", prefix, label);
			break;
		}
		ref->ndim = d->ndim;
		if (mock) {
			/* The mock cache's ref, settled by its real fetch (sizes exact, missing
			 * chunk files turned into fill chunks). */
			const struct tsr_mock_chunk *mc = tsr_mock_chunk(array, tsr_task_chunk(plan, t));
			if (!mc) {
				st = tsr_error(TSR_E_INTERNAL, "%s: mock storage: chunk not cached",
					       array->path);
				break;
			}
			*ref = mc->ref;
			ref->ndim = d->ndim;
		} else if (ref->path[0] && ref->nbytes == TSR_WHOLE_FILE &&
			   ref->codec.id != TSR_CODEC_FILL) {
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
		staged_total += ct->staged + 16;
	}
	double t_fill = 0;
	if (st == TSR_OK && replay) {
		double tf0 = tsr_now();
		st = tsr_cuda_replay_fill(array, plan, tasks);
		t_fill = tsr_now() - tf0;
	}
	struct tsr_cuda_slot *s = &cs->slot[cs->next_slot];
	if (st == TSR_OK) {
		/* Slots the ring opens from now on hold the largest chunk, and decode room for
		 * this read; a batch read's files share slots, so its reads take the most. A
		 * lone small read takes a small slot (pinned allocations take time in
		 * proportion to their size); a batch read's files share full ones. */
		size_t want = staged_total < TSR_SLOT_NBYTES && !defer_sync && !s->open
				      ? staged_total : TSR_SLOT_NBYTES;
		want = (want + ((size_t)16 << 20) - 1) & ~(((size_t)16 << 20) - 1); /* 16 MiB steps */
		want = biggest > want ? biggest : want;
		if (want > cs->slot_want)
			cs->slot_want = want;
		if (n_inflate) {
			want = defer_sync || s->open || dec_total > TSR_DEC_NBYTES ? TSR_DEC_NBYTES
										 : dec_total;
			want = want > dec_biggest ? want : dec_biggest;
			if (want > cs->dec_want)
				cs->dec_want = want;
		}
		/* The open slot of another thread's batch read, or of reads ordered on another
		 * stream, goes to the GPU first: this read neither waits for nor drops it. */
		if (s->open && (!pthread_equal(s->owner, pthread_self()) ||
				cs->open_cstream != cstream || s->replay != replay ||
				s->cufile != cufile))
			st = tsr_cuda_dispatch(cs, s);
	}
	char prefix[1400] = "";
	if (n_inflate)
		tsr_array_chunk_name(array, 0, prefix, sizeof(prefix), NULL, 0);
	struct tsr_cuda_job job = {0};
	pthread_mutex_init(&job.lock, NULL);
	job.array = array;
	job.plan = plan;
	job.sel = sel;
	job.out = out;
	int64_t t0 = 0;
	double t_copy = 0;
	while (st == TSR_OK && t0 < plan->ntasks) {
		/* The open slot, or the ring's next one: its last copy done and its inflate results
		 * judged before the host refills it (a batch read's earlier file: the error names
		 * that file). */
		if ((st = tsr_cuda_slot_open(cs, &s)))
			break;
		cs->open_cstream = cstream;
		s->replay = replay;
		if (!s->nplaces)
			s->nranges = 0;
		s->cufile = cufile;
		/* Fill it on from where it stands: as many tasks as fit the slot, its decode buffer
		 * and its one inflate launch (one framing). */
		size_t used = s->used, dec_used = s->dec_used;
		int framing = s->framing;
		int64_t max_rows = s->max_rows, t1 = t0;
		while (t1 < plan->ntasks && s->nplaces + (size_t)(t1 - t0) < TSR_SLOT_PLACES) {
			struct tsr_cuda_task *ct = &tasks[t1];
			if (ct->how == TSR_HOW_INFLATE && framing >= 0 && ct->framing != framing)
				break;
			if (ct->dec_cap && dec_used + ct->dec_cap > s->dec_nbytes)
				break;
			if (!replay) {
				/* (replay: slot_offset is the chunk's address in the cache) */
				size_t at = ct->how == TSR_HOW_INFLATE ? used
								       : (used + 15) & ~(size_t)15;
				if (at + ct->staged > s->nbytes)
					break;
				ct->slot_offset = at;
				used = at + ct->staged;
			}
			ct->dec_offset = dec_used;
			dec_used += ct->dec_cap;
			if (ct->how == TSR_HOW_INFLATE)
				framing = ct->framing;
			int64_t rows = 1;
			const int64_t *k0 = tsr_task_k0(plan, t1), *k1 = tsr_task_k1(plan, t1);
			for (int i = 0; i < d->ndim - 1; i++)
				rows *= k1[i] - k0[i];
			if (rows > max_rows)
				max_rows = rows;
			t1++;
		}
		if (t1 == t0) {
			/* Full with earlier files' chunks (or of smaller buffers than this read
			 * needs): on to a fresh slot. A fresh one was sized for the largest chunk. */
			if (s->nplaces) {
				double tc = tsr_now();
				st = tsr_cuda_dispatch(cs, s);
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
		atomic_store(&job.failed, 0);
		job.mock = mock;
		job.cufile = cufile;
		job.dev = s->dev;
		if (!replay && (st = tsr_cuda_pieces(&job)))
			break;
		if (!replay)
			tsr_pool_run(array->ctx->pool, nthreads, tsr_cuda_worker, &job);
		if (job.status) {
			st = job.status;
			tsr_error_set_text(job.msg);
			break;
		}
		if (cufile && (st = tsr_cuda_host_ranges(&job, s)))
			break;
		tsr_cuda_streams(&job, s, seq, prefix);
		for (int64_t i = 0; i < job.ntasks; i++)
			tsr_cuda_describe(&job, &job.tasks[i], &s->host_places[s->nplaces + (size_t)i]);
		s->nplaces += (size_t)job.ntasks;
		s->used = used;
		s->dec_used = dec_used;
		s->framing = framing;
		s->max_rows = max_rows;
		t0 = t1;
		/* A full slot goes to the GPU now; the last, part-filled one waits for the next
		 * file of a batch read, or for the end of the read. */
		if (t0 < plan->ntasks) {
			double tc = tsr_now();
			st = tsr_cuda_dispatch(cs, s);
			t_copy += tsr_now() - tc;
		}
	}
	/* Reads are synchronous: the status covers every kernel of this read (in a batch, the
	 * last file's read waits for all of them and judges every pending result). A failed
	 * read still waits, so nothing writes into the caller's buffer after it returns. */
	if (st == TSR_OK && !defer_sync)
		st = tsr_cuda_finish(cs, cstream);
	if (st != TSR_OK) {
		char msg[1024];
		snprintf(msg, sizeof(msg), "%s", tsr_errmsg());
		tsr_cuda_drop_open(cs);
		tsr_cuda_settle(cs, 0);
		cudaStreamSynchronize(cstream);
		tsr_error_set_text(msg);
	}
	r->t_fetch += job.t_fetch + t_fill;
	r->t_decode += job.t_decode;
	r->t_place += t_copy;
	r->bytes_read += job.bytes_read;
	r->bytes_decoded += job.bytes_decoded + gpu_decoded;
	r->nthreads = nthreads;
	snprintf(r->engine, sizeof(r->engine), "cuda");
	tsr_cuda_receipt(array, n_inflate, gpu_name, n_raw, n_cpu, cpu_name, r);
	if (!mock)
		snprintf(r->backend, sizeof(r->backend), "%s", cufile ? "cufile" : "posix");
	if (!mock && !cufile && storage == TSR_STORAGE_REAL && n_raw + n_inflate > 0) {
		/* auto passed cuFile over: say why (once per read) */
		size_t have = strlen(r->fallback);
		if (have + 40 < sizeof(r->fallback))
			snprintf(r->fallback + have, sizeof(r->fallback) - have,
				 "%sstorage posix, not cuFile: %.100s", have ? "; " : "", cf_why);
	}
	if (replay) {
		int64_t ncpu = 0;
		for (int w = 0; w < TSR_WHY_N; w++)
			ncpu += n_cpu[w];
		size_t have = strlen(r->fallback);
		if (ncpu && have + 60 < sizeof(r->fallback))
			snprintf(r->fallback + have, sizeof(r->fallback) - have,
				 "%smock-device replays those values", have ? "; " : "");
	}
	free(job.pieces);
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

int tsr_cuda_run(struct tsr_array *array, const struct tsr_plan *plan,
		 const struct tsr_norm_sel *sel, void *out, void *stream, int nthreads, int decoder,
		 int storage, int defer_sync, struct tsr_receipt *r)
{
	(void)plan, (void)sel, (void)out, (void)stream, (void)nthreads, (void)decoder;
	(void)storage, (void)defer_sync, (void)r;
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
