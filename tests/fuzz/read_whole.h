/* read_whole.h - reads a fuzzed array whole, unless its output or one chunk would be large. */
#ifndef TSR_FUZZ_READ_WHOLE_H
#define TSR_FUZZ_READ_WHOLE_H

#include <stdint.h>
#include <stdlib.h>

#include "tessera.h"

/* The product of n extents times size, or SIZE_MAX when it passes SIZE_MAX >> 8. */
static inline size_t tsr_fuzz_nbytes(const int64_t *ext, int n, size_t size)
{
	for (int i = 0; i < n; i++)
		size = ext[i] >= 0 && (ext[i] == 0 || size <= (SIZE_MAX >> 8) / (size_t)ext[i])
			       ? size * (size_t)ext[i] : SIZE_MAX;
	return size;
}

/* Reads a whole when the output is at most 1 MiB (larger outputs only cost memset time) and a
 * chunk at most 64 MiB (a chunk is decoded whole: Zarr chunks hold their full shape even past
 * the array's edge, and bigger ones would only test malloc). */
static inline void tsr_fuzz_read_whole(struct tsr_array *a)
{
	struct tsr_array_info info = {.struct_size = sizeof(info)};
	if (tsr_array_info(a, &info) != TSR_OK)
		return;
	size_t w = tsr_dtype_size(info.dtype);
	size_t nb = tsr_fuzz_nbytes(info.shape, info.ndim, w);
	if (nb > (1u << 20) || tsr_fuzz_nbytes(info.chunk_shape, info.ndim, w) > (64u << 20))
		return;
	void *buf = malloc(nb ? nb : 1);
	struct tsr_buffer dst = {buf, nb, TSR_MEM_HOST, NULL};
	tsr_read(a, NULL, &dst, NULL, NULL);
	free(buf);
}

#endif
