/* selection.h - NumPy basic indexing normalised against an array's shape. */
#ifndef TSR_SELECTION_H
#define TSR_SELECTION_H

#include "internal.h"

/* What one array axis contributes: indices start + k*step for k in [0, count). */
struct tsr_dim_sel {
	int64_t start, step, count;
	int keep; /* 0: an integer index removed this axis from the result */
};

/* Points of an advanced selection (tsr_index): the array axes they index together and each
 * point's coordinates there. A vectorised key has one group over all its indexed axes (npts =
 * the broadcast size, points in its C order); an orthogonal key one group per array axis. */
struct tsr_sel_group {
	int naxes;
	int axes[TSR_MAX_DIM];             /* ascending array axes */
	int64_t npts;
	int64_t *coords;                   /* npts * naxes, point-major, in [0, shape) */
	int64_t out_stride;                /* output elements from one point to the next */
};

struct tsr_norm_sel {
	int ndim;                          /* the array's dims */
	struct tsr_dim_sel dim[TSR_MAX_DIM];
	int out_ndim;                      /* result dims, None axes included */
	int64_t out_shape[TSR_MAX_DIM];
	int64_t out_count;                 /* elements in the result */
	/* Advanced selections only (all 0 for basic ones): groups, and which group (+1) holds
	 * each array axis (0: the axis is basic, dim[] says how); axis_stride: the output stride
	 * of each basic axis, as the planner cannot derive it from C order alone. */
	int ngroups;
	struct tsr_sel_group *groups;
	int8_t group_of[TSR_MAX_DIM];
	int64_t axis_stride[TSR_MAX_DIM];
};

/* Applies NumPy's rules for basic indexing: negative indices count from the end, slices clamp,
 * an out-of-range integer is TSR_E_RANGE, step 0 / two ellipses / too many indices are
 * TSR_E_SELECTION. sel == NULL selects everything. */
int tsr_selection_normalize(const struct tsr_selection *sel, int ndim, const int64_t *shape,
			    struct tsr_norm_sel *out);

/* The same for a tsr_index (basic items, integer arrays, masks): out gets groups that
 * tsr_norm_sel_free releases (also after a failure). */
int tsr_index_normalize(const struct tsr_index *index, int ndim, const int64_t *shape,
			struct tsr_norm_sel *out);
void tsr_norm_sel_free(struct tsr_norm_sel *sel);
/* A shape as NumPy writes it ("(3,5)", "(7,)", "()") into buf of cap bytes. */
void tsr_shape_text(char *buf, size_t cap, int ndim, const int64_t *shape);

/* One slice or integer item against an axis of n (selection.c; tsr_index uses them too). */
int tsr_sel_slice_axis(const struct tsr_sel_item *it, int axis, int64_t n, struct tsr_dim_sel *d);
int tsr_sel_index_axis(int64_t i, int axis, int64_t n, struct tsr_dim_sel *d);

#endif
