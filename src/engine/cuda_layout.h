/* cuda_layout.h - the CUDA engine's host-side layout of a read (no CUDA types): tasks' routes and staging, slots filled in order, place descriptions, stream arguments and reads. */
#ifndef TSR_CUDA_LAYOUT_H
#define TSR_CUDA_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "../codecs/blosc.h"
#include "../codecs/codecs.h"
#include "../codecs/route.h"
#include "../cuda/place.h"
#include "../io/storage.h"
#include "engine.h"

/* Staging ring: copies of >= 16 MiB reach full PCIe speed (DESIGN.md section 4). The GPU decodes
 * as many slots at once as the ring has: one warp inflates a stream, so large tiles (FITS tiles
 * of 16 rows: 256 KiB, about 650 to a slot) need several slots in flight to fill the GPU. Slots
 * are allocated as the ring first reaches them: a small read takes one. */
#ifndef TSR_SLOT_NBYTES /* (a build may set other sizes, here and below, to measure them) */
#define TSR_SLOT_NBYTES ((size_t)128 << 20)
#endif
#define TSR_NSLOTS 6
#define TSR_SLOT_PLACES 16384
/* Inflate streams a slot holds: a chunk's one, or a blosc chunk's many (a stream per block, or
 * per element byte of a block when the chunk splits its blocks). */
#define TSR_SLOT_STREAMS (4 * TSR_SLOT_PLACES)
/* A slot's decode buffer holds what its compressed bytes inflate to: float images compress 1.2
 * to 3 times, so 64 MiB of staged tiles need up to about 200 MiB; a batch ends early when it
 * fills. Reads that need less allocate less. */
#ifndef TSR_DEC_NBYTES
#define TSR_DEC_NBYTES ((size_t)192 << 20)
#endif
/* A slot grows past TSR_SLOT_NBYTES, up to this, to hold one chunk decoded whole on the CPU for
 * each of the read's threads: the pool fills a slot at a time, so a 128 MiB slot of 32 MiB zstd
 * chunks kept 4 of 16 threads busy (a 1024^3 uint16 Zarr v3 store of 256^3 chunks read into
 * the device at 0.52x the host read on the H200). */
#define TSR_SLOT_CPU_NBYTES ((size_t)512 << 20)
/* Stored bytes of large chunks are read in pieces of this size by all the pool's threads: a
 * slot holding four 16 MiB Zarr chunks would otherwise keep four threads reading. Small pieces
 * also shorten the wait for the slowest thread before a slot can go to the GPU (a slot's fill
 * ends when its last read does). */
#define TSR_PIECE_NBYTES ((uint64_t)512 << 10)
/* The feed's bounce buffers (cuda_feed.c): a feed read is at most one. */
#define TSR_BOUNCE_NBYTES ((size_t)4 << 20)

/* How a task's chunk reaches the place kernel: its route (src/codecs/route.h). */
enum tsr_cuda_how {
	TSR_HOW_CPU = TSR_ROUTE_CPU,       /* decoded on the CPU: final values are staged */
	TSR_HOW_RAW = TSR_ROUTE_RAW,       /* stored elements are staged; the kernel transforms them */
	TSR_HOW_STREAM = TSR_ROUTE_STREAM, /* one compressed stream is staged; its family decodes it */
	TSR_HOW_BLOSC = TSR_ROUTE_BLOSC,   /* a blosc chunk is staged: its family decodes its streams
					      and the place kernel unshuffles its blocks; a chunk whose
					      header asks for more is decoded on the CPU instead */
};

/* What the host needs to judge one stream's result once the batch is done. */
struct tsr_cuda_check {
	int64_t chunk;
	struct tsr_route_check rc; /* its expected size and kind */
	uint32_t prefix_at;     /* its file's "path: HDU 1: tile" in the slot's prefix text */
	uint8_t name;           /* index into the slot's codec names */
	uint8_t has_label;      /* the slot's labels name it (Zarr keys) */
};

/* A task as the slot sees it: the plan's complete task (its description, route, values and
 * storage read: ti) and where it lands in the slot. */
struct tsr_cuda_task {
	int64_t t;              /* plan task */
	const struct tsr_task_info *ti; /* the plan's (tsr_plan_describe) */
	int how;                /* enum tsr_cuda_how: the route's, or CPU (decoder auto, a blosc
				   header) */
	int kind;               /* STREAM, BLOSC: its streams' kind (route.h); -1: none yet */
	int why;                /* CPU: why (enum tsr_route_why) */
	int big_endian;         /* decoded elements are big-endian (BLOSC: as its header says) */
	size_t staged;          /* bytes in the slot */
	size_t slot_offset;
	size_t dec_cap;         /* STREAM, BLOSC: decode buffer bytes */
	size_t dec_offset;
	int stream;             /* STREAM: the slot's stream */
	int name;               /* STREAM: its codec name's index in the slot's names */
	int bf_stage;           /* BLOSC: the filter pass leaves its values in the staging */
	int64_t plane_block;    /* BLOSC: elements a shuffled block holds (0: not shuffled) */
	int blosc;              /* a blosc chunk (BLOSC, or CPU once its header said so) */
	int blosc_codec;        /* blosc: the header's codec (enum tsr_blosc_codec), -1: unread */
	struct tsr_blosc_blocks blocks; /* BLOSC: the blocks its box needs, as the route chose
				   them when its header was read (zeroed: every block) */
	struct tsr_map map;     /* BLOSC whose bytes the feed takes to the device: its stored
				   bytes mapped for its headers, from the header's read until its
				   streams are listed (tsr_cuda_unmap) */
};

/* What a read's layout found over all its tasks: counts for the receipt, sizes for the slots. */
struct tsr_cuda_layout {
	int64_t n_stream, n_raw, n_dequant, n_blosc;
	int64_t n_host;         /* tasks whose values the CPU makes (decoded, or fill) */
	int64_t n_cpu[TSR_WHY_N], n_gpu[TSR_FAM_N];
	const char *gpu_name[TSR_FAM_N], *cpu_name[TSR_WHY_N];
	size_t biggest, dec_biggest, dec_total, staged_total;
	uint64_t gpu_decoded;   /* bytes the GPU decodes (its streams) */
	/* Chunks the CPU decodes whole (no block shares: a zstd or lz4 frame, a tile): how many,
	 * the largest's staged bytes, and the read's threads. A slot holding fewer of them than
	 * there are threads keeps threads idle (tsr_cuda_slot_sizes). */
	int64_t n_cpu_whole;
	size_t cpu_whole_biggest;
	int nthreads;
};

/* Lays out every task of plan, described and routed by the planner (ds: tsr_plan_describe with
 * the device's families), and sizes what each stages: tasks[plan->ntasks], *L. decoder, batch,
 * nthreads: the read's (decoder auto sends too few, large streams of a single read to the CPU). */
void tsr_cuda_layout(const struct tsr_array *array, const struct tsr_plan *plan,
		     const struct tsr_plan_descs *ds, int decoder, int batch, int nthreads,
		     struct tsr_cuda_task *tasks, struct tsr_cuda_layout *L);
/* tsr_cuda_layout of a batch member (which never sends its streams to the CPU for being few,
 * whatever its decoder, so that each task's layout is its own) on up to naid of pool's threads,
 * the caller one of them, each laying out a run of at least TSR_LAYOUT_PART tasks (pool NULL
 * or naid 1: this thread alone). */
#define TSR_LAYOUT_PART 1024
struct tsr_pool;
void tsr_cuda_layout_on(const struct tsr_array *array, const struct tsr_plan *plan,
			const struct tsr_plan_descs *ds, int nthreads, struct tsr_pool *pool,
			int naid, struct tsr_cuda_task *tasks, struct tsr_cuda_layout *L);

/* Grows the sizes the ring's slots open with (*slot_want: staging, *dec_want: decode buffer) to
 * what this read needs: its largest chunk, and all its chunks where they fit (full: a batch read
 * or an open slot shares full ones). */
void tsr_cuda_slot_sizes(const struct tsr_cuda_layout *L, int full, size_t *slot_want,
			 size_t *dec_want);

/* A slot being filled: its room and what it holds so far. */
struct tsr_cuda_fill {
	size_t nbytes, dec_nbytes;      /* staging and decode buffer sizes */
	size_t used, dec_used;
	size_t ntasks;                  /* tasks laid in (TSR_SLOT_PLACES at most) */
	int replay;                     /* slot_offset is the chunk's device address: none staged */
};
/* Puts a read's tasks in file order where their files repeat out of it (each file's together,
 * files in the order they first appear, each by offset), so that the slots filled in turn hold
 * runs of a file's chunks, each one read; returns whether it moved any. The engine calls it once
 * a read, before its slots (a read of one chunk a file, and a replay, keep the plan's order). */
int tsr_cuda_file_order(struct tsr_cuda_task *tasks, int64_t ntasks);
/* Lays tasks t0, t0 + 1, ... into the slot while they fit, in their order; returns one past
 * the last. */
int64_t tsr_cuda_fill_slot(struct tsr_cuda_task *tasks, int64_t ntasks, int64_t t0,
			   struct tsr_cuda_fill *f);

/* The place of a task: its box of the chunk, where it lands in the read's output (device
 * address out), where its values are in the slot; points gather through the tables at gather_dev
 * (each task's at its gather_at word; NULL: a box). */
void tsr_cuda_describe(const struct tsr_plan *p, const struct tsr_plan_descs *ds,
		       const struct tsr_cuda_task *ct, uint64_t out, uint64_t gather_dev,
		       const int64_t *gather_at, struct tsr_cuda_place *pl);

/* Where the stream arguments of a slot's STREAM tasks go when tsr_cuda_describe_on makes them
 * with the places: each task's at its stream index ct->stream (given in task order, ct->name
 * its codec name's index): io in 4 columns of cap (tsr_cuda_stream_args), its check with
 * prefix_at and name, and where labels is not NULL its label (array's chunk_label, label_nbytes
 * each). */
struct tsr_cuda_stream_out {
	uint64_t *io;
	size_t cap;
	struct tsr_cuda_check *checks;
	char *labels;
	size_t label_nbytes;
	const struct tsr_array *array;
	uint32_t prefix_at;
};

/* Writes stream k's arguments io and its check c, with so's prefix, the codec name index
 * name and, where so has labels, its label (the serial path's and the describing threads'). */
void tsr_cuda_stream_store(const struct tsr_cuda_stream_out *so, size_t k, const uint64_t io[4],
			   struct tsr_cuda_check c, int name);

/* What tsr_cuda_describe_on made. */
struct tsr_cuda_described {
	size_t nplaces;   /* places (a run of tasks is one: place.h) */
	int general;      /* some place gathers or reads a blocked source: the slot's place kernel
			     takes its general path */
	int64_t max_rows; /* the CTAs a place's rows need at most (tsr_pc_ctas) */
};

/* The places of tasks [0, n) from places[0] on (at most n: consecutive tasks whose places differ
 * only by a stride in their values' place, their box's place in the output and their stream
 * are one place, a run, place.h), and with so (not NULL) every task's stream arguments, on up to
 * nthreads of pool's threads (the caller one of them; pool NULL or nthreads 1: this thread
 * alone), in parts of at least a thousand tasks. A run ends at a part's end; its tasks' places
 * (tsr_cuda_place_task) and the stream arguments are the same whatever the threads. */
#define TSR_PLACES_PARTS_MAX 64
struct tsr_pool;
void tsr_cuda_describe_on(const struct tsr_plan *p, const struct tsr_plan_descs *ds,
			  const struct tsr_cuda_task *tasks, int64_t n, uint64_t out,
			  uint64_t gather_dev, const int64_t *gather_at,
			  struct tsr_cuda_place *places, const struct tsr_cuda_stream_out *so,
			  struct tsr_pool *pool, int nthreads, struct tsr_cuda_described *res);

/* Task k (0 <= k < run) of place pl as a place of its own (run 1): what tsr_cuda_describe gave
 * that task. */
void tsr_cuda_place_task(const struct tsr_cuda_place *pl, int k, struct tsr_cuda_place *one);

/* A STREAM task's decoder arguments (offsets into the slot: input, its size, output, capacity)
 * and what judging its result needs. */
void tsr_cuda_stream_args(const struct tsr_cuda_task *ct, int64_t chunk, uint64_t io[4],
			  struct tsr_cuda_check *c);

/* The stored reads of tasks [0, n) into their slot: spans of the tasks that are not CPU tasks
 * (nor BLOSC ones, unless with_blosc), and each span's task; returns how many. */
int64_t tsr_cuda_spans(const struct tsr_cuda_task *tasks, int64_t n, int with_blosc,
		       struct tsr_span *spans, int64_t *task);

/* How many shares (split.h) the pool's threads decode each of tasks [0, n) in: a task the CPU
 * decodes into the staging (CPU at layout: forced, or its codec's route) whose chunk the CPU engine
 * would split, in a read of as many tasks as the CPU decodes here on nthreads threads, gets the
 * CPU engine's count of shares, its box the whole chunk (the staging holds its values whole);
 * every other task 1. nshares[n]; returns their sum. */
int64_t tsr_cuda_split_shares(const struct tsr_plan_descs *ds, const struct tsr_cuda_task *tasks,
			      int64_t n, int nthreads, int64_t *nshares);
/* A task's chunk description (tsr_cuda_task_ref) and the box of the whole chunk. */
void tsr_cuda_task_whole(const struct tsr_plan_descs *ds, const struct tsr_cuda_task *ct,
			 struct tsr_chunk_ref *ref, struct tsr_chunk_box *box);
/* Whether a CPU task's chunk could split into block shares (a blosc chunk whose blocks lie
 * apart; tsr_chunk_split_nbytes). */
int tsr_cuda_task_splits(const struct tsr_plan_descs *ds, const struct tsr_cuda_task *ct);
/* The chunk description a CPU task decodes from (its header's byte order, for a blosc chunk). */
void tsr_cuda_task_ref(const struct tsr_plan_descs *ds, const struct tsr_cuda_task *ct,
		       struct tsr_chunk_ref *ref);

/* The rule of a slot's stored reads by the pool (cuda_fetch.c) and by the feed (cuda_feed.c). */
extern const struct tsr_coalesce_rule tsr_cuda_slot_rule, tsr_cuda_feed_rule;
/* The feed's rule for a slot whose reads by tsr_cuda_feed_rule are npieces, nbytes in all, for
 * nthreads readers: that rule, or, where it leaves the readers fewer than three reads each, the
 * same with each span larger than a bounce buffer cut into pieces of a quarter of a reader's
 * share in whole MiB (at least 1 MiB); a span that fits a bounce buffer stays one read. Measured
 * on H100 hosts (2026-12-06, docs/design-notes.md "Feed pieces cut to the readers" and "The
 * feed rule settled on the device"): Blosc2 slots of two chunks of about 50 MB (25 reads of 4
 * MiB for 10 readers) reached the device 9-16% sooner in pieces of 1 or 2 MiB than of 4 (512 KiB
 * lost 1-4%), while Zarr v2 slots of 32 chunk files of a few MiB lost 5% when every file was cut
 * in 1 MiB pieces; with this rule the first gained as with 1 MiB, the second kept its rate. */
struct tsr_coalesce_rule tsr_cuda_feed_rule_for(uint64_t nbytes, int64_t npieces, int nthreads);
/* The feed's reads of a slot's spans for nthreads readers, by the rule above, appended to *pieces
 * (*npieces of them, capacity *cap) as tsr_coalesce appends them; coalesced a second time only
 * where the rule cuts finer and a span read alone is larger than a bounce buffer. */
int tsr_cuda_feed_pieces(const struct tsr_span *spans, int64_t nspans, int nthreads,
			 struct tsr_piece **pieces, int64_t *npieces, size_t *cap);

#endif
