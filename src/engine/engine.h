/* engine.h - engines run plans. */
#ifndef TSR_ENGINE_H
#define TSR_ENGINE_H

#include "../core/plan.h"

/* Runs plan on up to nthreads threads, writing the selection into out (host memory).
 * Adds phase times and byte counts to *r. */
int tsr_cpu_run(const struct tsr_array *array, const struct tsr_plan *plan,
		const struct tsr_norm_sel *sel, void *out, int nthreads, struct tsr_receipt *r);

#endif
