/* cuda_engine.h - the CUDA engine's host side, shared by its files: the staging ring, a read's tasks and fill jobs. */
#ifndef TSR_CUDA_ENGINE_H
#define TSR_CUDA_ENGINE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime.h>

#include "../cuda/bfilter.h"
#include "../cuda/bops.h"
#include "../cuda/tsr_cuda.h"
#include "cuda_layout.h"
#include "split.h"

/* Inflate results of a batch: decoded sizes (8 bytes a stream), then statuses (4 bytes);
 * on the device the kernel's scratch follows. */
#define TSR_RES_NBYTES ((size_t)12 * TSR_SLOT_STREAMS)
#define TSR_SCRATCH_NBYTES 256
#define TSR_LABEL_NBYTES 96

_Static_assert(sizeof(size_t) == 8 && sizeof(void *) == 8,
	       "inflate arguments are staged as 64-bit words");


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
					   TSR_SLOT_STREAMS apart and pointers as offsets (buffers
					   may grow before dispatch), then packed n apart */
	unsigned char *host_res, *dev_res; /* inflate results (TSR_RES_NBYTES; + scratch) */
	struct tsr_cuda_check *checks;  /* TSR_SLOT_STREAMS */
	char *labels;                   /* TSR_SLOT_STREAMS x TSR_LABEL_NBYTES: chunk names of
					   formats that name chunks (Zarr keys); NULL until then */
	cudaStream_t stream;            /* copy, inflate and place of this slot's batches */
	cudaEvent_t copied;             /* host buffers free again */
	cudaEvent_t placed;             /* the last batch is placed */
	cudaEvent_t checked;            /* inflate results are in host_res */
	int made;                       /* stream and events exist */
	/* the batch being filled, or the last one dispatched */
	int open;
	int sealed;                     /* filled: goes to the GPU once its feed reads landed */
	cudaStream_t cstream;           /* the caller's stream its batch follows */
	pthread_t owner;                /* the thread whose reads fill the open slot */
	size_t used, dec_used, nplaces, nstreams;
	size_t ntasks;                  /* tasks its places stand for (a run is one place) */
	int replay;                     /* mock-device: places and inflate inputs hold device
					   addresses of the handle's cache; nothing is staged */
	int on_dev;                     /* stored bytes are on dev already (cuFile read them
					   there): only the host ranges below (CPU-decoded values)
					   are copied at dispatch */
	size_t (*ranges)[2];            /* [start, end) of the host bytes to copy: on_dev, the
					   CPU's values; otherwise every task's bytes (none noted:
					   all of used) */
	size_t nranges, ranges_cap;
	void *cp_args;                  /* a batch copy's arguments (destinations, sources,
					   sizes) for cp_cap ranges */
	size_t cp_cap;
	struct tsr_cuda_bop *bops;      /* blosc streams that are not coded (bops.h; host
					   pinned, grown by tsr_cuda_bops_grow) */
	size_t nbops, bops_cap;
	struct tsr_cuda_bop *dev_bops;  /* their device copy, for the one launch that runs them */
	size_t dev_bops_cap;
	struct tsr_cuda_bfilter *host_bf, *dev_bf; /* blosc chunks the filter pass undoes or
					   fills (TSR_SLOT_PLACES; host pinned) */
	size_t nbf;
	uint64_t bf_blocks;             /* their blocks */
	int bf_passes;                  /* the most passes one needs */
	int64_t max_rows;               /* the CTAs a place's rows need at most */
	int general;                    /* a place gathers or reads a blocked source */
	int pending;                    /* dispatched results not judged yet */
	char names[TSR_NAMES][32];      /* codec names of the batch's streams */
	int nnames;
	char *ptext;                    /* prefixes of the batch's files, each NUL-ended */
	size_t ptext_len, ptext_cap;
	uint64_t pfx_seq;               /* the read whose prefix was added last, at pfx_at */
	uint32_t pfx_at;
};

struct tsr_cuda_task;

/* The feed (cuda_feed.c): reads of stored bytes that the pool's threads do in the background. */
struct tsr_feed_src {
	uint32_t path;          /* text offsets: the file's path, and its "path: HDU 1: tile" */
	uint32_t prefix;
};

struct tsr_feed_item {
	const struct tsr_backend *be; /* its read's storage backend (one that opens files by path
				   and reads into pinned memory) */
	uint32_t src;
	uint32_t label;         /* text offset of the chunk's name, or UINT32_MAX: its number */
	int32_t slot;
	int64_t chunk;
	uint64_t offset, nbytes; /* in the file */
	unsigned char *dst;     /* in the slot's device staging */
};

/* Each reading thread of the feed copies what it read to the slot's device staging at once,
 * through small pinned bounce buffers of its own, on its own stream (as KvikIO does), while the
 * bytes are still in the CPU's caches. On the H200 that read the 32 x 64 MiB FITS batch at 47.5
 * GB/s and the 2 GiB Zarr array at 50.9, against 38.2 and 37.5 with the slot's one bulk copy
 * from pinned staging that the pread had filled (KvikIO: 45.0 and 46.3, same run). */
#define TSR_FEED_LANES 128
#define TSR_BOUNCES 3

/* A reading thread's way to the device: pool worker w uses lane w (the host thread lane 0). */
struct tsr_feed_lane {
	cudaStream_t stream;
	cudaEvent_t ev[TSR_BOUNCES]; /* bounce buffer k free again */
	cudaEvent_t mark[TSR_NSLOTS]; /* recorded after each copy into slot k: a slot's kernels
				   wait for the last one, not for the copies of the slots after */
	unsigned carried;       /* bit k: slot k's copies on this lane since it last went (under
				   the feed's lock) */
	unsigned char *bounce[TSR_BOUNCES];
	int next, made;
};

struct tsr_feed {
	pthread_mutex_t lock;   /* guards all below but the lanes */
	struct tsr_feed_lane lane[TSR_FEED_LANES];
	int device;
	pthread_cond_t more;    /* items queued, or the feed closes */
	pthread_cond_t landed;  /* a slot's last read landed */
	struct tsr_feed_item *items;
	size_t n, next, cap;    /* next: the first item not taken */
	struct tsr_feed_src *srcs;
	size_t nsrcs, srcs_cap;
	char *text;
	size_t text_len, text_cap;
	int64_t left[TSR_NSLOTS]; /* reads queued for each slot that have not landed */
	struct tsr_pool *pool;  /* the pool whose threads read: set while the feed runs */
	pthread_t owner;        /* the thread whose reads started it */
	int closing, dropping;
	int status;             /* the first failure */
	char msg[1024];
	double t_read;          /* seconds in reads, since last taken */
};

/* The most CUDA devices a context reads on. */
#define TSR_CUDA_MAX_DEVICES 64

/* A context's state of one CUDA device: every CUDA call on it runs with that device current. */
struct tsr_cuda_state {
	pthread_mutex_t lock;           /* one GPU read at a time per context and device */
	int device;                     /* its ordinal */
	struct tsr_pool *pool;          /* a split read's share of the context's threads (made
					   on first need): each device's storage reads run at once */
	int pool_n;
	struct tsr_pool *aid;           /* the read's planning helpers (tsr_cuda_aid; made on first
					   need) */
	int aid_n;
	struct tsr_cuda_slot slot[TSR_NSLOTS];
	size_t slot_want, dec_want;     /* slot sizes the reads so far need */
	int next_slot;                  /* the open slot, or the one to open next */
	cudaStream_t open_cstream;      /* the caller's stream of the open slot's reads */
	cudaEvent_t entry;              /* recorded on a caller's stream: work a slot must follow */
	uint64_t seq;                   /* reads so far */
	double t_wait;                  /* seconds the ring's callers waited (receipts' t_wait) */
	int randoms;                    /* the dither table is on the device */
	struct tsr_feed feed;
	struct tsr_cuda_task *tasks;    /* kept from read to read: a batch read's files reuse it */
	struct tsr_split_spare spare;   /* split chunks' byte buffers, kept from read to read (a
					   fresh chunk-sized buffer costs a page fault a page) */
	size_t tasks_cap;
	char name[256];
};

struct tsr_cuda_job {
	const struct tsr_array *array;
	const struct tsr_plan *plan;
	const struct tsr_plan_descs *descs; /* its tasks' descriptions (the CPU decodes from them) */
	const struct tsr_norm_sel *sel;
	void *out;              /* the read's output (device memory) */
	struct tsr_cuda_task *tasks;
	int64_t ntasks;
	unsigned char *host;
	atomic_llong next;
	int64_t group;          /* tasks a worker takes at a time */
	const struct tsr_backend *be; /* the read's storage backend */
	int host_only;          /* only the tasks whose values the CPU makes (the feed reads the
				   others) */
	int to_dev;             /* stored bytes go straight to dev (the backend reads device
				   memory: cuFile) */
	int device;             /* the read's CUDA device (current on the pool's threads too) */
	unsigned char *dev;     /* the slot's device staging */
	struct tsr_piece *pieces; /* stored bytes read before the tasks (tsr_cuda_pieces); a
				   piece's span is its (first) task */
	int64_t npieces;
	int blosc_in_slot;      /* the pieces read BLOSC tasks' stored bytes into the slot too:
				   their headers are read there, after a first pool run of the pieces
				   alone (tsr_cuda_fill_run) */
	int pieces_only;        /* that first run: workers read pieces, nothing else */
	int blosc_mapped;       /* the feed takes BLOSC tasks' stored bytes to the device; their
				   headers are read from a mapping of them (tsr_backend.map) */
	size_t pieces_cap;
	atomic_llong next_piece;
	struct tsr_job_error err;
	struct tsr_blosc_stream *spans; /* scratch for a blosc chunk's streams */
	/* CPU tasks the CPU engine would split (split.h): per job task its shared chunk, or NULL;
	 * the shares as (job task, share, shares) triples, taken before the unsplit tasks. */
	struct tsr_split **splits;
	int64_t *shares;
	int64_t nshares;
	atomic_llong next_share;
	struct tsr_split_spare *spare; /* the device state's */
	const struct tsr_stop *stop; /* the caller's stop callback (asked before a CPU decode) */
	pthread_mutex_t lock;   /* guards the sums below */
	double t_fetch, t_decode;
	uint64_t bytes_read, bytes_decoded;
	/* An advanced selection's gather tables (gather.h) on the device, and each plan task's
	 * word offset in them; NULL: the plan's tasks are boxes. */
	uint64_t gather_dev;
	const int64_t *gather_at;
};

/* A CUDA error as a status with a message naming `what` and the error: tsr_cuda_status's rule
 * (src/cuda/tsr_cuda.h: TSR_E_NO_DEVICE without a usable device or driver, TSR_E_NOMEM out of
 * device memory), and TSR_E_IO for any other CUDA error (tsr_read's documented code). */
int tsr_cuda_fail(cudaError_t e, const char *what);

/* Runs the pool over a job's pieces, shares and tasks (tsr_cuda_worker); where the pieces read
 * blosc chunks into the slot, the pieces first, alone, so that every chunk has landed before a
 * worker reads its header. */
void tsr_cuda_fill_run(struct tsr_pool *pool, int nthreads, struct tsr_cuda_job *job);

/* cuda_ring.c: the staging ring. */
/* The context's CUDA state of device (an ordinal), created on first use; an ordinal that does
 * not exist is TSR_E_NO_DEVICE naming it and the count. */
int tsr_cuda_state_get(struct tsr_context *ctx, int device, struct tsr_cuda_state **cs_ret);
/* Opens the ring's next slot for filling (or returns the open one), its last batch judged. */
int tsr_cuda_slot_open(struct tsr_cuda_state *cs, struct tsr_cuda_slot **s_ret);
/* Forgets the calling thread's open batch (a read failed: nothing of it may land). */
void tsr_cuda_drop_open(struct tsr_cuda_state *cs);
/* Sends the open slot's batch to the GPU on its stream; the ring turns to the next slot. */
int tsr_cuda_dispatch(struct tsr_cuda_state *cs, struct tsr_cuda_slot *s);
/* Waits for all the ring's work, oldest first; judges (check) or drops pending results. */
int tsr_cuda_settle(struct tsr_cuda_state *cs, int check);
/* A read's end: its last slot sent, cstream waiting for all slots, every result judged. */
int tsr_cuda_finish(struct tsr_cuda_state *cs, cudaStream_t cstream);

/* Closes the open slot's batch and turns the ring on; the batch goes to the GPU once the feed's
 * reads into it have landed (tsr_cuda_send). */
void tsr_cuda_seal(struct tsr_cuda_state *cs, struct tsr_cuda_slot *s);
/* Sends a sealed slot's batch to the GPU, reading on this thread until its reads have landed. */
int tsr_cuda_send(struct tsr_cuda_state *cs, struct tsr_cuda_slot *s);
/* Sends the sealed slots whose reads have landed, oldest first, without waiting. */
int tsr_cuda_send_landed(struct tsr_cuda_state *cs);
/* Sends every sealed slot (waiting for its reads) and stops the feed; with drop, forgets them
 * and the feed's reads not started instead. */
int tsr_cuda_flush(struct tsr_cuda_state *cs, int drop);

/* cuda_feed.c: the feed. */
void tsr_feed_init(struct tsr_feed *f);
void tsr_feed_destroy(struct tsr_feed *f);
/* Frees the lanes' streams, events and pinned bounce buffers (the feed not running); a lane
 * makes them again when next used. */
void tsr_feed_lanes_free(struct tsr_feed *f);
/* Queues the reads of a job's raw and inflate tasks into slot `slot` (its device staging),
 * starting the feed on the pool's nthreads when it is not running; adds the bytes queued to
 * *bytes. */
int tsr_feed_queue(struct tsr_feed *f, struct tsr_pool *pool, int nthreads,
		   const struct tsr_cuda_job *job, int slot, uint64_t *bytes);
/* Reads items on the calling thread until slot's reads have landed; the feed's status. */
int tsr_feed_wait_slot(struct tsr_feed *f, int slot);
/* Whether slot's reads have all landed. */
int tsr_feed_landed(struct tsr_feed *f, int slot);
/* Ends the feed (drop: reads not started are dropped); the first failure. */
int tsr_feed_stop(struct tsr_feed *f, int drop);
/* Makes stream ss wait for every copy the feed's threads have issued into slot `slot` (the
 * copies into later slots go on). */
int tsr_feed_order(struct tsr_feed *f, int slot, cudaStream_t ss);
/* Read seconds of landed items since the last call, added to *t_read. */
void tsr_feed_take_time(struct tsr_feed *f, double *t_read);

/* cuda_families.c: the GPU decoder families' launchers, indexed by enum tsr_family. A launch
 * decodes n streams of one variant (arguments as tsr_cuda_inflate_batch's). */
struct tsr_cuda_family {
	int (*launch)(const void *const *d_in, const size_t *d_in_nbytes, void *const *d_out,
		      const size_t *d_out_cap, size_t *d_out_nbytes, int *d_status, size_t n,
		      int variant, void *d_scratch, size_t scratch_nbytes, void *stream);
	const char *(*status_name)(int status);
};
extern const struct tsr_cuda_family tsr_cuda_families[TSR_FAM_N];
/* The families registered (bit f: family f), for tsr_route_device.families. */
unsigned tsr_cuda_family_mask(void);

/* cuda_blosc.c: room for need operations in the slot's (pinned) table of blosc streams that
 * are not coded. */
int tsr_cuda_bops_grow(struct tsr_cuda_slot *s, size_t need);
/* Their table to the device, on the slot's stream (with its other tables). */
cudaError_t tsr_cuda_bops_table(struct tsr_cuda_slot *s);
/* Those streams copied and set on the slot's stream (the decode buffer's chunk bytes, before
 * its kernels run). */
int tsr_cuda_blosc_ops(struct tsr_cuda_slot *s);
/* The filter pass over the slot's blosc chunks that need it, on its stream (after the decoder
 * families, before the place kernel); their descriptions were copied with the batch. */
int tsr_cuda_blosc_filters(struct tsr_cuda_slot *s);

/* cuda_fetch.c: filling a slot. */
/* Pool worker (a struct tsr_cuda_job): fetch, or decode on the CPU, into the slot. */
void tsr_cuda_worker(void *arg, int w);
/* Lists the reads of the job's stored bytes, coalesced and split into pieces (src/io/storage.h:
 * tsr_coalesce); none for a backend that lends whole chunks. */
int tsr_cuda_pieces(struct tsr_cuda_job *job);
/* Splits the job's CPU tasks the CPU engine would split into shares over nthreads
 * (tsr_cuda_split_shares); none where none would, or memory runs out (then each decodes whole). */
void tsr_cuda_shares(struct tsr_cuda_job *job, int nthreads);
void tsr_cuda_shares_free(struct tsr_cuda_job *job);
/* on_dev: notes the host ranges (CPU-decoded values) the slot must still copy. */
int tsr_cuda_host_ranges(const struct tsr_cuda_job *job, struct tsr_cuda_slot *s);
/* Ends the mappings of tasks[0, n) (tsr_cuda_task.map). */
void tsr_cuda_unmap(struct tsr_cuda_task *tasks, int64_t n);
/* Not on_dev (the host staging holds the slot's bytes): notes the host byte ranges of the job's
 * tasks that go to the device, each task's staging but for a blosc chunk the GPU decodes, of
 * which only the stored bytes (a chunk of 1.6x compression stages its values' room too: the
 * copy of all of it moved 1.6x the bytes). After its streams (a header may send a chunk to the
 * CPU, which then stages its values). */
int tsr_cuda_staged_ranges(const struct tsr_cuda_job *job, struct tsr_cuda_slot *s);
/* A device-keeping backend (be->kept: mock-device): what each task needs kept in device memory;
 * slot_offset = its address. */
int tsr_cuda_replay_fill(struct tsr_array *array, const struct tsr_backend *be,
			 const struct tsr_plan *plan, const struct tsr_plan_descs *ds,
			 struct tsr_cuda_task *tasks);

#endif
