/* zarr.c - the Zarr v2/v3 driver (to come: stores are recognised, not read yet). */
#include "../../core/array.h"

int tsr_zarr_open(struct tsr_array *array, const struct tsr_open_options *opts)
{
	(void)opts;
	return tsr_error(TSR_E_UNSUPPORTED, "%s: a directory; Zarr stores are not read yet",
			 array->path);
}
