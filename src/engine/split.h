/* split.h - one large chunk's blocks decoded in shares by a pool's threads: the split decision, the shared chunk and a share's decode, for the CPU engine and the CUDA engine's CPU-decoded chunks. */
#ifndef TSR_SPLIT_H
#define TSR_SPLIT_H

#include <pthread.h>
#include <stdatomic.h>

#include "../codecs/blosc_parts.h"
#include "../codecs/codecs.h"
#include "../io/storage.h"
#include "../plan/plan.h"
#include "engine.h"

/* A worker's time and bytes (the receipt's sums). */
struct tsr_worker_stats {
	double t_fetch, t_decode, t_place;
	uint64_t bytes_read, bytes_decoded;
	char pad[64]; /* keep workers' counters on separate cache lines */
};

/* How many shares a task whose chunk is ref (settled sizes) and whose chunk-local box is box
 * should become, in a read of ntasks tasks on nthreads threads, values of esize bytes: 1 (no
 * split) unless the read has fewer than a few tasks per thread and the chunk's codec splits
 * into pieces (tsr_chunk_split_nbytes), the task needs at least half its chunk, and each share
 * gets enough values to outweigh its cost. Both engines decide by this one rule. */
int64_t tsr_split_nshares(const struct tsr_chunk_ref *ref, const struct tsr_chunk_box *box,
			  size_t esize, int64_t ntasks, int nthreads);
/* Whether a read of ntasks tasks on nthreads threads splits any (a cheap test first). */
int tsr_split_worth(int64_t ntasks, int nthreads);

/* Split chunks' byte buffers kept for the next split chunk (a touched buffer costs no page
 * faults): a few, any size. NULL where none are kept (buffers come from tsr_alloc_big and are
 * freed). */
#define TSR_SPLIT_SPARES 2
struct tsr_split_spare {
	pthread_mutex_t lock; /* guards the slots */
	unsigned char *buf[TSR_SPLIT_SPARES];
	size_t cap[TSR_SPLIT_SPARES];
};

/* A split chunk, shared by its shares: loaded (read, checked, header parsed) once by the first
 * share to come, only read after that; released by the last share done (or tsr_split_free). */
struct tsr_split {
	pthread_mutex_t lock;      /* held through the load: the other shares wait on it */
	int loaded, status;        /* guarded by lock: status != 0, the load failed */
	struct tsr_chunk_ref ref;  /* settled; the load may make it fill */
	struct tsr_chunk_box box;  /* the task's chunk-local box */
	unsigned char *bytes;      /* the stored bytes: fetched (owned), or lent by the backend */
	int lent;                  /* bytes are the backend's: only read, never freed here */
	size_t cap;                /* of bytes, when fetched */
	int full;                  /* all stored bytes are in memory (else each share reads its own) */
	struct tsr_chunk_parts *parts; /* count 0: share 0 decodes the chunk whole */
	atomic_llong left;         /* shares not done yet */
	int ndim;                  /* ref's axes and extent as made, never written after: read */
	int64_t extent[TSR_MAX_DIM]; /* without the lock, while a share loads ref */
};

/* A split chunk of nshares shares (NULL: out of memory). */
struct tsr_split *tsr_split_new(const struct tsr_chunk_ref *ref, const struct tsr_chunk_box *box,
				int64_t nshares);
void tsr_split_free(struct tsr_split *s);

/* Where a share's values go: out, elements of esize bytes; the task's box tb maps the chunk's
 * elements to out's; direct >= 0: the chunk's values land whole as one C-order run at out
 * element direct (pieces that are runs decode straight there); needed: for a chunk decoded whole
 * into a buffer first, one past the last element the box needs (tsr_task_needed). */
struct tsr_split_sink {
	unsigned char *out;
	size_t esize;
	struct tsr_box tb;
	int64_t direct;
	size_t needed;
};
/* The sink of a whole chunk's values, C order over extent (ndim axes), at out: the CUDA engine's
 * staging image of a chunk the CPU decodes. */
void tsr_split_sink_whole(int ndim, const int64_t *extent, unsigned char *out, size_t esize,
			  struct tsr_split_sink *sink);

/* A share's worker: its codec scratch and a buffer for pieces that are placed (grown here). */
struct tsr_split_worker {
	struct tsr_scratch *scratch;
	unsigned char **vals;
	size_t *vals_cap;
};

/* Share p of np of split chunk s (chunk `chunk` of array): the first share to come loads it
 * through src (a backend that lends chunks lends it; else its head is read, then each share reads
 * its own blocks' bytes), then each decodes its part of the pieces into the sink; a chunk with
 * no pieces is decoded whole by share 0. A failure is recorded in err once (naming the chunk;
 * the codec's message names the block); shares stop early once err has failed. The last share
 * done releases the chunk's bytes (to spare). Returns nonzero when the worker should stop. */
int tsr_split_share(struct tsr_split *s, const struct tsr_array *array, int64_t chunk, int64_t p,
		    int64_t np, const struct tsr_split_sink *sink, struct tsr_source *src,
		    struct tsr_split_spare *spare, const struct tsr_split_worker *w,
		    struct tsr_worker_stats *stats, struct tsr_job_error *err);

/* A spare that lives as long as its owner (the CUDA engine's device state): made empty;
 * trimmed to at most keep_nbytes of buffers between reads (the largest that fit kept); freed. */
void tsr_split_spare_init(struct tsr_split_spare *sp);
void tsr_split_spare_trim(struct tsr_split_spare *sp, size_t keep_nbytes);
void tsr_split_spare_destroy(struct tsr_split_spare *sp);
/* Buffers from, and back to, spare (NULL: none kept). */
unsigned char *tsr_split_spare_take(struct tsr_split_spare *sp, size_t n, size_t *cap_ret);
void tsr_split_spare_give(struct tsr_split_spare *sp, unsigned char *b, size_t cap);

/* Places the part of box b of out's mapping that vals hold: vals C order over the chunk's
 * extent, or over vbox's shape when the codec decoded only that box (as the CPU engine places). */
void tsr_split_place(unsigned char *out, size_t es, const struct tsr_chunk_ref *ref,
		     const unsigned char *vals, const struct tsr_box *b,
		     const struct tsr_chunk_box *vbox);

#endif
