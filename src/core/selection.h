/* selection.h - NumPy basic indexing normalised against an array's shape. */
#ifndef TSR_SELECTION_H
#define TSR_SELECTION_H

#include "internal.h"

/* What one array axis contributes: indices start + k*step for k in [0, count). */
struct tsr_dim_sel {
	int64_t start, step, count;
	int keep; /* 0: an integer index removed this axis from the result */
};

struct tsr_norm_sel {
	int ndim;                          /* the array's dims */
	struct tsr_dim_sel dim[TSR_MAX_DIM];
	int out_ndim;                      /* result dims, None axes included */
	int64_t out_shape[TSR_MAX_DIM];
	int64_t out_count;                 /* elements in the result */
};

/* Applies NumPy's rules for basic indexing: negative indices count from the end, slices clamp,
 * an out-of-range integer is TSR_E_RANGE, step 0 / two ellipses / too many indices are
 * TSR_E_SELECTION. sel == NULL selects everything. */
int tsr_selection_normalize(const struct tsr_selection *sel, int ndim, const int64_t *shape,
			    struct tsr_norm_sel *out);

#endif
