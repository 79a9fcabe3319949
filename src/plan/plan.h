/* plan.h - a read as plain data: which chunks, which part of each, where it goes. */
#ifndef TSR_PLAN_H
#define TSR_PLAN_H

#include "../core/array.h"
#include "../core/selection.h"

/* One chunk task: the chunk and, per array axis, the range [k0, k1) of selected positions it
 * holds (positions count along the selection, so output index = k). */
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
	int64_t stride;          /* int64 words per task: 1 + 2 * ndim */
	int64_t *tasks;          /* ntasks * stride: chunk, k0[ndim], k1[ndim] */
	int64_t out_stride[TSR_MAX_DIM]; /* output element stride of each array axis */
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
/* Fills tab (2 * total words) for those units: per unit, cnt[u] source offsets (elements into
 * values laid out in C order with strides cstride, whose element 0 is at array index origin),
 * then cnt[u] output element offsets; an element's offsets are the sums over the units. */
void tsr_plan_unit_offsets(const struct tsr_plan *p, const struct tsr_norm_sel *sel,
			   const int64_t *k0, int nu, const int *axis, const int64_t *cnt,
			   const int64_t *origin, const int64_t *cstride, int64_t *tab);

/* A chunk may become several tasks: out gets plan's tasks with task t repeated nshares[t] times
 * (>= 1), as shares 0..nshares[t]-1 of the same chunk and box, consecutive; each share decodes
 * and places its own part of the chunk's blocks (the engine and the codec say which). */
int tsr_plan_split(const struct tsr_plan *plan, const int64_t *nshares, struct tsr_plan *out);

#endif
