/* plan.h - a read as plain data: which chunks, which part of each, where it goes. */
#ifndef TSR_PLAN_H
#define TSR_PLAN_H

#include "../core/array.h"
#include "../core/selection.h"
#include "../codecs/route.h"
#include "../io/storage.h"

/* One chunk task, as int64 words (tsr_plan.stride of them): the chunk; per array axis the
 * range [k0, k1) of selected positions it holds (positions count along the selection, so output
 * index = k); its box's first element per axis, in chunk element coordinates; the output
 * element offset of that first element; in plans of points, per axis one past the box's last
 * element (its bounds on a group's axes, whose points have no step). The planner computes
 * them once; engines read them through tsr_task_box and the functions below. */
/* A point group of an advanced selection, its points sorted by chunk (plan_points.c): a
 * task's k range on any of the group's axes is the run [k0, k1) of its points in that chunk. */
struct tsr_plan_group {
	int naxes;
	int axes[TSR_MAX_DIM];
	int64_t npts;
	int64_t *coords;         /* npts * naxes, sorted by chunk */
	int64_t *dst;            /* npts: each point's output element offset */
};

struct tsr_plan {
	int ndim;
	int64_t ntasks;
	int64_t stride;          /* int64 words per task: 2 + 3 * ndim (points: 2 + 4 * ndim) */
	int64_t *tasks;          /* ntasks * stride: chunk, k0[ndim], k1[ndim], first[ndim],
				    out_first (points: then hi[ndim]) */
	int64_t out_stride[TSR_MAX_DIM]; /* output element stride of each array axis */
	int64_t step[TSR_MAX_DIM];       /* each axis's step in chunk elements (0: a point
					    group's axis) */
	int64_t grid[TSR_MAX_DIM];       /* the chunk grid (chunks per axis, their spacing): */
	int64_t chunk_shape[TSR_MAX_DIM];/* where a chunk lies in the array */
	/* Advanced selections only (0 / NULL otherwise): */
	int ngroups;
	struct tsr_plan_group *groups;
	int8_t group_of[TSR_MAX_DIM];    /* group + 1 holding each axis; 0: a basic axis */
	/* Part tasks (tsr_plan_split): NULL, or per task 3 words: share p of P of the blocks of
	 * its chunk's part, and the task of the unsplit plan it came from. */
	int64_t *part;
};

static inline int64_t tsr_task_chunk(const struct tsr_plan *p, int64_t t) { return p->tasks[t * p->stride]; }
static inline const int64_t *tsr_task_k0(const struct tsr_plan *p, int64_t t) { return p->tasks + t * p->stride + 1; }
static inline const int64_t *tsr_task_k1(const struct tsr_plan *p, int64_t t) { return p->tasks + t * p->stride + 1 + p->ndim; }
static inline const int64_t *tsr_task_first(const struct tsr_plan *p, int64_t t) { return p->tasks + t * p->stride + 1 + 2 * p->ndim; }
static inline int64_t tsr_task_out_first(const struct tsr_plan *p, int64_t t) { return p->tasks[t * p->stride + 1 + 3 * p->ndim]; }

/* A task's part of its chunk, complete: the selected elements are first[i] + j * step[i]
 * (0 <= j < count[i]) on each axis, in chunk element coordinates, and element (j...) lands at
 * output element out_first + sum j[i] * out_stride[i]. On a point group's axes (step 0) first
 * is the lowest of the task's points there and count their number: their places are the
 * tables' (tsr_plan_unit_offsets). */
struct tsr_box {
	int ndim;
	int64_t first[TSR_MAX_DIM], step[TSR_MAX_DIM], count[TSR_MAX_DIM];
	int64_t out_first, out_stride[TSR_MAX_DIM];
};
/* Task t's box, as the planner computed it. */
void tsr_task_box(const struct tsr_plan *p, int64_t t, struct tsr_box *b);
/* The part of box b (basic axes only) whose elements lie in the chunk-local box [lo, hi):
 * *sub, with its output mapping; returns 0 when no element does. */
int tsr_box_clip(const struct tsr_box *b, const int64_t *lo, const int64_t *hi,
		 struct tsr_box *sub);
/* The chunk-local bounding box [lo, hi) of the elements task t selects (point groups too). */
void tsr_task_bounds(const struct tsr_plan *p, int64_t t, int64_t *lo, int64_t *hi);
/* One past the C-order index, in a chunk of shape extent, of the last element task t needs. */
int64_t tsr_task_needed(const struct tsr_plan *p, int64_t t, const int64_t *extent);
/* The plan's tasks' settled chunk descriptions (describe.c): each task's chunk as be (the read's
 * storage backend, src/io/storage.h) describes it (settle: chunk files' sizes made exact now),
 * kept without its path, and each distinct path (the array's file, a shard, a chunk file) once.
 * With a route device (NULL: none), each task is also routed there (src/codecs/route.h) and its
 * place values mapped, once, here: a complete task an engine executes without reading its
 * description again. A failure names the chunk. The CUDA engine lays out its slots from them all
 * at once; the CPU engine asks per task, from its threads, as a driver may read to describe a
 * chunk (a shard's index), and those reads should not wait on one thread. A task whose chunk
 * follows the task before's is described from that one where the backend's chunk_next can (a
 * FITS image's tiles), its route kept where its size allows (tsr_route_size_class): the same
 * descriptions, without describing 131,072 tiles whole for 32 images of 4096 row tiles. */
struct tsr_plan_descs;
struct tsr_backend;
int tsr_plan_describe(const struct tsr_plan *p, const struct tsr_array *a,
		      const struct tsr_backend *be, int settle, const struct tsr_route_device *dev,
		      struct tsr_plan_descs **descs_ret);
/* The same on up to nthreads of pool's threads (the caller one of them), each describing a run
 * of tasks; the descriptions, paths, ids and failure are what tsr_plan_describe gives, but that a
 * run of equal descriptions may be kept once a thread (ids name equal descriptions, not
 * distinct ones). pool NULL or nthreads 1: tsr_plan_describe. */
struct tsr_pool;
int tsr_plan_describe_on(const struct tsr_plan *p, const struct tsr_array *a,
			 const struct tsr_backend *be, int settle,
			 const struct tsr_route_device *dev, struct tsr_pool *pool, int nthreads,
			 struct tsr_plan_descs **descs_ret);
void tsr_plan_descs_free(struct tsr_plan_descs *ds);
/* Task t's description, path included (a copy: for the tasks the CPU decodes). */
void tsr_task_desc(const struct tsr_plan_descs *ds, int64_t t, struct tsr_chunk_ref *ref);
const char *tsr_task_desc_path(const struct tsr_plan_descs *ds, int64_t t);
/* How many distinct paths the descriptions hold. */
size_t tsr_plan_descs_npaths(const struct tsr_plan_descs *ds);

/* What a described task says at a glance, read in place (no copy). */
struct tsr_task_info {
	const char *path;       /* its file, interned: equal paths are the same pointer ("": the
				   array's own file) */
	uint64_t offset, nbytes; /* its stored bytes in that file: the storage read */
	int64_t npix;           /* elements of the chunk */
	int64_t dec_npix;       /* elements as decoded (a b2nd chunk's padded shape) */
	const char *codec_name; /* NULL: the array's */
	/* Routed (a route device given): */
	struct tsr_route route;
	struct tsr_route_values values;
	struct tsr_route_check check; /* STREAM: how its stream's result is judged */
	uint32_t elem_nbytes;   /* bytes of a decoded element, and of an output element */
	uint32_t out_nbytes;
};
const struct tsr_task_info *tsr_task_info(const struct tsr_plan_descs *ds, int64_t t);
/* Which of the plan's distinct descriptions task t has: tasks of one id differ only in their
 * stored bytes' file, offset and size and in a tile's own scale, zero and dither row (a
 * quantized FITS tile's), so a verdict on the rest of the description holds for all of them
 * (the tiles of an image share one or two). */
uint32_t tsr_task_desc_id(const struct tsr_plan_descs *ds, int64_t t);
/* Task t's chunk extent as stored (C order, the plan's ndim axes). */
const int64_t *tsr_task_extent(const struct tsr_plan_descs *ds, int64_t t);
/* The storage read of task t's stored bytes into dst (bytes into a destination). */
static inline struct tsr_span tsr_task_span(const struct tsr_task_info *ti, uint64_t dst)
{
	return (struct tsr_span){ti->path, ti->offset, ti->nbytes, dst};
}
/* Where chunk `chunk` (C order over the grid) starts in the array, per axis. */
void tsr_plan_chunk_origin(const struct tsr_plan *p, int64_t chunk, int64_t *origin);

/* Share p of P (P == 1: the whole chunk task) and the unsplit task it came from. */
static inline int64_t tsr_task_share(const struct tsr_plan *p, int64_t t) { return p->part ? p->part[3 * t] : 0; }
static inline int64_t tsr_task_nshares(const struct tsr_plan *p, int64_t t) { return p->part ? p->part[3 * t + 1] : 1; }
static inline int64_t tsr_task_origin(const struct tsr_plan *p, int64_t t) { return p->part ? p->part[3 * t + 2] : t; }

/* Intersects a normalised selection with the array's chunk grid. */
int tsr_plan_build(const struct tsr_desc *desc, const struct tsr_norm_sel *sel, struct tsr_plan *plan);
void tsr_plan_free(struct tsr_plan *plan);
/* The positions k in [0, s->count) whose index lies in [lo, hi), as [*k0, *k1). */
void tsr_plan_k_range(const struct tsr_dim_sel *s, int64_t lo, int64_t hi, int64_t *k0,
		      int64_t *k1);
/* tsr_plan_build for selections with point groups (plan_points.c). */
int tsr_plan_build_points(const struct tsr_desc *desc, const struct tsr_norm_sel *sel,
			  struct tsr_plan *plan);

/* A task of an advanced selection as gather units (plan_points.c): its basic axes and point
 * groups (each at its first axis), in axis order; a unit's positions are k0..k1 of its axis.
 * Returns the number of units, 0 when the task selects nothing; axis[u] and cnt[u] per unit,
 * *total their sum. */
int tsr_plan_units(const struct tsr_plan *p, const int64_t *k0, const int64_t *k1,
		   int axis[TSR_MAX_DIM], int64_t cnt[TSR_MAX_DIM], int64_t *total);
/* Fills tab (2 * total words) for task t's units: per unit, cnt[u] source offsets (elements
 * into values laid out in C order with strides cstride, whose element 0 is at chunk-local
 * index lo, NULL: 0), then cnt[u] output element offsets; an element's offsets are the sums
 * over the units. */
void tsr_plan_unit_offsets(const struct tsr_plan *p, int64_t t, int nu, const int *axis,
			   const int64_t *cnt, const int64_t *lo, const int64_t *cstride,
			   int64_t *tab);

/* A chunk may become several tasks: out gets plan's tasks with task t repeated nshares[t] times
 * (>= 1), as shares 0..nshares[t]-1 of the same chunk and box, consecutive; each share decodes
 * and places its own part of the chunk's blocks (the engine and the codec say which). */
int tsr_plan_split(const struct tsr_plan *plan, const int64_t *nshares, struct tsr_plan *out);

#endif
