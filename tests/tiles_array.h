/* tiles_array.h - a hand-made FITS-like array of row tiles (tests of planning): rows tiles of 1 x
 * cols in "tiles.fits", its chunks what ops' driver says. */
#ifndef TSR_TEST_TILES_ARRAY_H
#define TSR_TEST_TILES_ARRAY_H
#include <string.h>

#include "core/internal.h"

static inline void tiles_array(struct tsr_array *a, struct tsr_driver_ops *ops, int64_t rows,
			       int64_t cols)
{
	memset(a, 0, sizeof(*a));
	a->path = "tiles.fits";
	a->ops = ops;
	a->desc.ndim = 2;
	a->desc.shape[0] = rows, a->desc.shape[1] = cols;
	a->desc.chunk_shape[0] = 1, a->desc.chunk_shape[1] = cols;
	a->desc.grid[0] = rows, a->desc.grid[1] = 1;
	a->desc.nchunks = rows;
	a->desc.unit_noun = "HDU";
	a->desc.chunk_noun = "tile";
}

#endif
