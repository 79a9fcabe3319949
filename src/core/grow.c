/* grow.c - growing an array by doubling, the one way the library's lists and texts grow. */
#include <stdint.h>
#include <stdlib.h>

#include "internal.h"

int tsr_grow(void **buf, size_t *cap, size_t need, size_t elem_nbytes, size_t first)
{
	if (need <= *cap)
		return TSR_OK;
	size_t n = *cap ? *cap : first;
	while (n < need)
		n *= 2;
	void *p = n > SIZE_MAX / elem_nbytes ? NULL : realloc(*buf, n * elem_nbytes);
	if (!p)
		return tsr_error(TSR_E_NOMEM, "out of memory");
	*buf = p;
	*cap = n;
	return TSR_OK;
}
