/* capabilities.c - tsr_capabilities: what this build and machine can do (GPU decoder families, CUDA devices, cuFile). */
#include <stdio.h>
#include <string.h>

#include "../codecs/route.h"
#include "engine.h"
#ifdef TSR_WITH_CUDA
#include "cuda_engine.h"
#endif

int tsr_capabilities(struct tsr_capabilities *caps)
{
	if (!caps)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_capabilities: NULL");
	size_t have = caps->struct_size;
	if (have < offsetof(struct tsr_capabilities, cufile_why) + sizeof(caps->cufile_why))
		return tsr_error(TSR_E_INVALID_ARG,
				 "tsr_capabilities: struct_size %zu (set it to sizeof(struct "
				 "tsr_capabilities))", have);
	struct tsr_capabilities c;
	memset(&c, 0, sizeof(c));
	c.struct_size = have < sizeof(c) ? have : sizeof(c);
#ifdef TSR_WITH_CUDA
	c.cuda_built = 1;
	int n = 0;
	if (tsr_cuda_device_count(&n) == TSR_OK)
		c.cuda_devices = n;
	unsigned mask = tsr_cuda_family_mask();
	size_t at = 0;
	for (int f = 0; f < TSR_FAM_N; f++)
		if (mask >> f & 1) {
			int k = snprintf(c.gpu_decoders + at, sizeof(c.gpu_decoders) - at, "%s%s",
					 at ? "," : "", tsr_route_family_name(f));
			if (k > 0 && (size_t)k < sizeof(c.gpu_decoders) - at)
				at += (size_t)k;
		}
#endif
	c.cufile_usable = tsr_cufile_usable(c.cufile_why, sizeof(c.cufile_why));
	memcpy(caps, &c, c.struct_size);
	return TSR_OK;
}
