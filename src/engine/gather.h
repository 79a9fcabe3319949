/* gather.h - an advanced selection's tasks as the place kernel's gathers (gather.c). */
#ifndef TSR_GATHER_H
#define TSR_GATHER_H

#include "../plan/plan.h"
#include "../cuda/place.h"

/* The int64 words task t's gather tables take (tsr_gather_table): 0 when it selects nothing. */
int64_t tsr_gather_words(const struct tsr_plan *p, int64_t t);
/* Writes task t's tables into tab (tsr_gather_words of them) for its chunk's values, laid out
 * in C order over extent (the chunk as stored). What to gather is the plan's; the tables only
 * say it in offsets, so the kernel needs no coordinates. */
void tsr_gather_table(const struct tsr_plan *p, int64_t t, const int64_t *extent, int64_t *tab);
/* Makes pl (its value fields set already) gather task t through its tables at tab_dev, the
 * device address they are copied to. */
void tsr_gather_describe(const struct tsr_plan *p, int64_t t, uint64_t tab_dev,
			 struct tsr_cuda_place *pl);

#endif
