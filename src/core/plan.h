/* plan.h - a read as plain data: which chunks, which part of each, where it goes. */
#ifndef TSR_PLAN_H
#define TSR_PLAN_H

#include "array.h"
#include "selection.h"

/* One chunk task: the chunk and, per array axis, the range [k0, k1) of selected positions it
 * holds (positions count along the selection, so output index = k). */
struct tsr_plan {
	int ndim;
	int64_t ntasks;
	int64_t stride;          /* int64 words per task: 1 + 2 * ndim */
	int64_t *tasks;          /* ntasks * stride: chunk, k0[ndim], k1[ndim] */
	int64_t out_stride[TSR_MAX_DIM]; /* output element stride of each array axis */
};

static inline int64_t tsr_task_chunk(const struct tsr_plan *p, int64_t t) { return p->tasks[t * p->stride]; }
static inline const int64_t *tsr_task_k0(const struct tsr_plan *p, int64_t t) { return p->tasks + t * p->stride + 1; }
static inline const int64_t *tsr_task_k1(const struct tsr_plan *p, int64_t t) { return p->tasks + t * p->stride + 1 + p->ndim; }

/* Intersects a normalised selection with the array's chunk grid. */
int tsr_plan_build(const struct tsr_desc *desc, const struct tsr_norm_sel *sel, struct tsr_plan *plan);
void tsr_plan_free(struct tsr_plan *plan);

#endif
