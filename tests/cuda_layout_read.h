/* cuda_layout_read.h - a whole read of a store laid out as the CUDA engine lays it, without a device (open, plan, describe with the GPU's families, tsr_cuda_layout), for the slot tests. */
#ifndef TSR_TEST_CUDA_LAYOUT_READ_H
#define TSR_TEST_CUDA_LAYOUT_READ_H

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tessera.h"
#include "engine/cuda_layout.h"
#include "plan/plan.h"

struct layout_read {
	struct tsr_array *a;
	struct tsr_norm_sel ns;
	struct tsr_plan plan;
	struct tsr_plan_descs *ds;
	struct tsr_cuda_task *tasks;
	struct tsr_cuda_layout L;
};

/* Lays out the whole of the store at dir on nthreads with decoder (TSR_DECODER_*); 0, or -1
 * (a check failed; lr is still for layout_read_free). */
static inline int layout_read(struct tsr_context *ctx, const char *dir, int nthreads, int decoder,
			      struct layout_read *lr)
{
	memset(lr, 0, sizeof(*lr));
	CHECK_EQ_INT(tsr_open(ctx, dir, NULL, &lr->a), TSR_OK);
	if (!lr->a)
		return -1;
	const struct tsr_desc *d = &lr->a->desc;
	CHECK_EQ_INT(tsr_selection_normalize(NULL, d->ndim, d->shape, &lr->ns), TSR_OK);
	CHECK_EQ_INT(tsr_plan_build(d, &lr->ns, &lr->plan), TSR_OK);
	const struct tsr_route_device rdev = {.gpu = 1, .force_cpu = decoder == TSR_DECODER_CPU,
					      .families = ~0u};
	CHECK_EQ_INT(tsr_plan_describe(&lr->plan, lr->a, &tsr_storage_posix, 1, &rdev, &lr->ds),
		     TSR_OK);
	lr->tasks = calloc((size_t)lr->plan.ntasks, sizeof(*lr->tasks));
	if (!lr->ds || !lr->tasks)
		return -1;
	tsr_cuda_layout(lr->a, &lr->plan, lr->ds, decoder, 0, nthreads, lr->tasks, &lr->L);
	return 0;
}

static inline void layout_read_free(struct layout_read *lr)
{
	free(lr->tasks);
	tsr_plan_descs_free(lr->ds);
	tsr_plan_free(&lr->plan);
	tsr_norm_sel_free(&lr->ns);
	tsr_array_free(lr->a);
}

#endif
