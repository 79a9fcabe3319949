/* engine.h - engines run plans. */
#ifndef TSR_ENGINE_H
#define TSR_ENGINE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include "../io/storage.h"
#include "../plan/plan.h"

/* A pool job's failure (job_error.c): its status and message, "<file> <HDU or array>
 * <chunk>: why", kept under lock for the first failing chunk in C order (the lowest chunk
 * number; a failure named by the file alone ranks first); `failed` tells the other workers
 * to stop. */
struct tsr_job_error {
	pthread_mutex_t lock;
	atomic_int failed;
	int status;
	int64_t chunk;          /* of the failure kept */
	char msg[2048];
};
void tsr_job_error_init(struct tsr_job_error *e);
void tsr_job_error_destroy(struct tsr_job_error *e);
/* Records status with the thread's message (tsr_errmsg), named by chunk (< 0: by the file),
 * unless a failure that ranks before it is already kept. */
void tsr_job_fail(struct tsr_job_error *e, const struct tsr_array *a, int64_t chunk, int status);
/* 1 when a failure of chunk would rank before the one kept (or none is kept): its task must
 * still run for the message to name the first failing chunk. */
int tsr_job_ranks_before(struct tsr_job_error *e, int64_t chunk);
/* The job's status; a failure's message becomes the calling thread's. */
int tsr_job_error_take(struct tsr_job_error *e);


/* Receipts: a caller built before `decoder` was added passes a smaller struct_size, and gets
 * the fields it has room for. */
#define TSR_RECEIPT_MIN_NBYTES offsetof(struct tsr_receipt, decoder)
static inline void tsr_receipt_store(struct tsr_receipt *dst, const struct tsr_receipt *src)
{
	size_t n = dst->struct_size < sizeof(*src) ? dst->struct_size : sizeof(*src);
	memcpy(dst, src, n);
	dst->struct_size = n;
}

struct tsr_backend;
struct tsr_storage_choice;

/* A read's stop callback (tsr_read_options.stop), asked by the engines between chunks or slots. */
struct tsr_stop {
	int (*fn)(void *arg);
	void *arg;
};
/* 1 (and the thread's message set; the caller names the file) when the caller asks the read
 * to stop. */
int tsr_stop_asked(const struct tsr_stop *stop);

/* Runs plan on up to nthreads threads, writing the selection into out (host memory).
 * Adds phase times and byte counts to *r. be: the read's storage backend (src/io/storage.h),
 * prepared for this plan. */
int tsr_cpu_run(const struct tsr_array *array, const struct tsr_plan *plan,
		const struct tsr_norm_sel *sel, void *out, int nthreads,
		const struct tsr_backend *be, const struct tsr_stop *stop, struct tsr_receipt *r);

/* How a read takes part in a batch read (tsr_read_batch), for the CUDA engine. */
enum {
	TSR_BATCH_DEFER = 1,   /* a batch's earlier file: its chunks may wait, fetched, in a
				  part-filled staging slot that the next read fills on; the last
				  read sends it, waits for all and reports a failure of any */
	TSR_BATCH_MEMBER = 2,  /* one file of a batch of several (the last one too) */
	TSR_BATCH_SHARE = 4,   /* one device's share of a read split over several devices: it
				  reads with the device's own pool of threads (nthreads of them) */
};

/* Runs plan with the CUDA engine: the selection lands in device memory at out, ordered on
 * stream (a cudaStream_t; NULL: the default stream); returns once it is there, unless batch
 * has TSR_BATCH_DEFER. decoder: TSR_DECODER_AUTO (GPU kernels where they keep the GPU busy),
 * _GPU (kernels wherever they exist) or _CPU.
 * store: the read's storage backend (src/io/storage.h), prepared for this plan (mock-device
 * adds what is missing to the array's device cache, so the array is written to). descs: the
 * plan's tasks described ahead (tsr_cuda_describe_ahead), taken over and freed; NULL: described
 * here. laid: those tasks laid out ahead too, used (not freed) by a batch member; NULL: laid
 * out here. */
struct tsr_cuda_laid;
int tsr_cuda_run(struct tsr_array *array, const struct tsr_plan *plan,
		 const struct tsr_norm_sel *sel, void *out, void *stream, int nthreads, int decoder,
		 const struct tsr_storage_choice *store, int batch, int device,
		 struct tsr_plan_descs *descs, struct tsr_cuda_laid *laid,
		 const struct tsr_stop *stop, struct tsr_receipt *r);
/* plan's tasks described and laid out as tsr_cuda_run does it for store, decoder and nthreads
 * (the read's) as a batch member, describing on up to naid of pool (ahead.c: before the read's
 * turn; tsr_cuda_run takes the descriptions and uses the layout). *laid is made on first use
 * and kept for the next file (its tasks' memory faulted in once); tsr_cuda_laid_free frees it.
 * A failure names the chunk. Without CUDA: TSR_E_NO_DEVICE. */
int tsr_cuda_describe_ahead(const struct tsr_array *array, const struct tsr_plan *plan,
			    const struct tsr_storage_choice *store, int decoder, int nthreads,
			    struct tsr_pool *pool, int naid, struct tsr_plan_descs **descs_ret,
			    struct tsr_cuda_laid **laid);
void tsr_cuda_laid_free(struct tsr_cuda_laid *laid);
/* Waits for CUDA reads still in flight on ctx's device (< 0: the calling thread's current
 * one), drops their unjudged results and the
 * chunks they left staged but not sent: a batch read that stops before its last file. */
void tsr_cuda_quiesce(struct tsr_context *ctx, int device);
/* Frees what ctx keeps between reads on each CUDA device (tsr_context_trim): its staging ring,
 * the feed's bounce buffers and the decoders' unused scratch, after the device's reads in
 * flight; a device whose ring a batch read holds between its files keeps it. */
void tsr_cuda_trim(struct tsr_context *ctx);
/* Frees what ctx keeps between host reads: idle workers' codec states and buffers, and the
 * split chunks' spare buffers (tsr_context_trim). Reads running keep theirs. */
void tsr_cpu_trim(struct tsr_context *ctx);
/* The split chunks' spare bytes ctx keeps between host reads, and its idle workers' states
 * (*nidle): what tsr_cpu_trim frees (for tests). */
size_t tsr_cpu_kept_nbytes(struct tsr_context *ctx, int *nidle);

/* cuda_device.c: a CUDA read's device. tsr_cuda_enter resolves *device_ret < 0 (none named)
 * to the device whose memory out is, else the calling thread's current one; checks that it
 * exists (else TSR_E_NO_DEVICE naming it and the count) and that out (NULL: no check) is not
 * device memory of another device (TSR_E_INVALID_ARG naming both; path names the read), then
 * makes it the calling thread's current device; *prev_ret gets the one to restore with
 * tsr_cuda_leave. */
int tsr_cuda_enter(int *device_ret, const void *out, const char *path, int *prev_ret);
void tsr_cuda_leave(int prev);
/* Tests: stream s reads ahead into host memory too, up to budget bytes a group read (0: the
 * device streams' budget), as device streams do into device memory (stream.c). */
struct tsr_stream;
void tsr_stream_ahead_test(struct tsr_stream *s, size_t budget);

/* The free memory of a CUDA device (cudaMemGetInfo with it current). */
int tsr_cuda_free_nbytes(int device, size_t *nbytes_ret);

/* Copies nbytes of device memory on its device, ordered on stream (a cudaStream_t; NULL: the
 * default stream), and waits for it. */
int tsr_cuda_copy_on_device(void *dst, const void *src, size_t nbytes, void *stream);

/* The CUDA device of a read: its options' one device, else -1 (none named: tsr_cuda_enter
 * decides) (read.c). Options
 * with more than one device are TSR_E_INVALID_ARG naming `what`, which takes one. */
int tsr_read_device(const struct tsr_context *ctx, const struct tsr_read_options *opts,
		    const char *what, int *device_ret);

/* The threads a read uses (read.c): ctx's, or fewer where the options o ask. */
int tsr_read_threads(const struct tsr_context *ctx, const struct tsr_read_options *o);
/* TSR_E_TOO_SMALL (naming the array and both sizes) when dst cannot hold the selection ns. */
struct tsr_norm_sel;
/* sel normalized against array's shape (tsr_selection_normalize); its failure's message names
 * the array's file and HDU or array, as every read's does. */
int tsr_array_sel_norm(const struct tsr_array *array, const struct tsr_selection *sel,
		       struct tsr_norm_sel *ns);
/* tsr_selection_shape whose failure names the array's file and unit (a batch's, a stream's
 * files: the public call's message is NumPy's own words, its caller holding the array). */
int tsr_array_sel_shape(const struct tsr_array *array, const struct tsr_selection *sel,
			int *ndim_ret, int64_t shape_ret[TSR_MAX_DIM]);
int tsr_read_room(const struct tsr_array *array, const struct tsr_norm_sel *ns,
		  const struct tsr_buffer *dst);

/* tsr_read of a normalised selection (checked receipt, dst not NULL); t0: when it began. */
int tsr_read_norm(struct tsr_array *array, const struct tsr_norm_sel *ns,
		  const struct tsr_buffer *dst, const struct tsr_read_options *opts,
		  struct tsr_receipt *receipt_ret, int batch, double t0);

/* The most planning helpers a CUDA read takes (cuda.c's tsr_cuda_aid; ahead.c's describing
 * threads); a build may set it (1: none, and no look-ahead). */
#ifndef TSR_CUDA_AID_MAX
#define TSR_CUDA_AID_MAX 8
#endif
/* A CUDA batch's look-ahead (ahead.c); a build may turn it off (0) to measure it. */
#ifndef TSR_CUDA_AHEAD
#define TSR_CUDA_AHEAD 1
#endif
/* A large file's share of a CUDA batch's threads with the look-ahead on, in eighths (ahead.c;
 * 3: 3/8 beat 4/8 for RICE_1 int16, 41.1 against 36.8 GB/s, with float32 within its spread);
 * a build may set another to measure it. */
#ifndef TSR_AHEAD_READ_EIGHTHS
#define TSR_AHEAD_READ_EIGHTHS 3
#endif
/* The look-ahead's describing threads (ahead.c); 0: as many as each file's read has
 * (tsr_aid_count of its share); a build may set another to measure it. */
#ifndef TSR_AHEAD_AID
#define TSR_AHEAD_AID 0
#endif
/* How many threads describe a CUDA read of nthreads threads: half of them, up to
 * TSR_CUDA_AID_MAX; under 2: the read's own thread alone. */
static inline int tsr_aid_count(int nthreads)
{
	int k = (nthreads > 0 ? nthreads : 1) / 2;
	return k > TSR_CUDA_AID_MAX ? TSR_CUDA_AID_MAX : k;
}

/* How many of a lone CUDA read's nthreads read for its feed where describing threads run beside
 * it (mapped blosc chunks' headers): the feed's readers, the describing threads (tsr_aid_count
 * of the readers) and the read's own thread fit in nthreads, so that none of them waits for a
 * core. With all 16 reading (and 8 describing, and the read's) on the H100 host's 16 cores, the
 * 2 GiB Zarr v2 blosc-lz4 array went to the device at 45.9 GB/s and the b2nd arrays at 26.4-32.2;
 * with 10 reading at 53.0 and 27.7-36.3, in one same-run A/B (design-notes, "A lone CUDA read's
 * feed leaves cores free"). A feed with no describing threads keeps all nthreads (fewer readers
 * lost 2-3% there); a batch's files share threads by ahead.c's rule. */
static inline int tsr_feed_readers(int nthreads)
{
	int k = (nthreads - 1) * 2 / 3;
	return k < 1 ? 1 : k;
}

/* What a read settles before its engine runs (read.c): its threads, decoder, storage backend,
 * device and plan; and, planned ahead of its turn (ahead.c, a CUDA batch's next file), its
 * tasks described as the CUDA engine routes them (NULL: the engine describes them). */
struct tsr_read_prep {
	int nthreads, decoder, device;
	struct tsr_stop stop;
	struct tsr_storage_choice store;
	struct tsr_plan plan;
	int planned;
	struct tsr_plan_descs *descs;
	struct tsr_cuda_laid *laid; /* (the look-ahead's, lent: not freed with prep) */
};
/* tsr_read's steps before the engine, for a normalised selection into host or device memory
 * (on_device); *prep for tsr_read_prep_free whatever the status. */
int tsr_read_prepare(struct tsr_array *array, const struct tsr_norm_sel *ns, int on_device,
		     const struct tsr_read_options *opts, struct tsr_read_prep *prep);
void tsr_read_prep_free(struct tsr_read_prep *prep);
/* The rest of the read: the engine run into out (the CUDA engine takes prep->descs), the
 * receipt's counts and times (t_start: when the read began; r from tsr_receipt_init). */
int tsr_read_execute(struct tsr_array *array, const struct tsr_norm_sel *ns, void *out,
		     void *cuda_stream, int on_device, int batch, struct tsr_read_prep *prep,
		     struct tsr_receipt *r, double t_start);
void tsr_receipt_init(const struct tsr_array *a, struct tsr_receipt *r);

/* A CUDA batch read's look-ahead (ahead.c): file i + 1 opened, its selection normalised,
 * planned and its tasks described on a thread of its own (and tsr_aid_count describing threads)
 * while file i is read; a file of 1,024 tasks or more, described on helpers, is then read with
 * TSR_AHEAD_READ_EIGHTHS eighths of nthreads (the batch's threads are the read's, not three
 * times them). tsr_ahead_start returns NULL where it cannot start its threads (the batch then
 * reads file by file as before). tsr_ahead_take waits for file i and starts file i + 1; its
 * status is file i's open and selection (with the message those steps give);
 * tsr_ahead_read reads it into dst as tsr_read_ex would (its planning's failure first), and
 * tsr_ahead_free waits for the thread and frees every file not yet read. */
struct tsr_ahead;
struct tsr_ahead_file;
struct tsr_ahead *tsr_ahead_start(struct tsr_context *ctx, const char *const *paths,
				  size_t npaths, const struct tsr_open_options *oo,
				  const struct tsr_selection *sel, const struct tsr_read_options *opts,
				  int nthreads);
int tsr_ahead_take(struct tsr_ahead *ah, size_t i, struct tsr_ahead_file **file_ret,
		   struct tsr_array **array_ret, int *ndim_ret, int64_t shape_ret[TSR_MAX_DIM]);
int tsr_ahead_read(struct tsr_ahead_file *f, const struct tsr_buffer *dst,
		   struct tsr_receipt *r, int batch);
void tsr_ahead_free(struct tsr_ahead *ah);

/* tsr_read_batch with TSR_BATCH_* flags (batch.c): TSR_BATCH_SHARE for a device's share. */
/* Whether a batch's file (its selection's shape and dtype) is like its first: TSR_OK, or
 * TSR_E_FORMAT naming both files, shapes and dtypes. */
int tsr_batch_alike(const char *path, int ndim, const int64_t *shape, enum tsr_dtype dtype,
		    const char *path0, int ndim0, const int64_t *shape0, enum tsr_dtype dtype0);
int tsr_read_batch_ex(struct tsr_context *ctx, const char *const *paths, size_t npaths,
		      const struct tsr_open_options *open_opts, const struct tsr_selection *sel,
		      const struct tsr_buffer *dst, const struct tsr_read_options *opts,
		      struct tsr_receipt *receipt_ret, int flags);

/* tsr_read as one file of a batch read (batch: TSR_BATCH_* flags; 0 for a lone read). */
int tsr_read_ex(struct tsr_array *array, const struct tsr_selection *sel,
		const struct tsr_buffer *dst, const struct tsr_read_options *opts,
		struct tsr_receipt *receipt_ret, int batch);


#endif
