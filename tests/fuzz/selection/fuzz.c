/* fuzz.c - the section parsers (basic and advanced keys), NumPy normalisation and the points'
 * plan on arbitrary strings and shapes. */
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "core/selection.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	if (n < 1)
		return 0;
	int ndim = data[0] % 5;
	int64_t shape[4] = {0};
	for (int i = 0; i < ndim; i++)
		shape[i] = n > (size_t)(1 + i) ? data[1 + i] % 9 : 3;
	char *spec = malloc(n + 1);
	memcpy(spec, data, n);
	spec[n] = '\0';
	struct tsr_selection sel;
	struct tsr_norm_sel ns;
	if (tsr_selection_parse(spec, &sel) == TSR_OK)
		tsr_selection_normalize(&sel, ndim, shape, &ns);
	/* advanced keys, both modes, planned over a grid of 2-wide chunks */
	for (int mode = 0; mode < 2; mode++) {
		struct tsr_index *ix = NULL;
		if (tsr_index_parse(spec, mode, &ix) != TSR_OK)
			continue;
		if (tsr_index_normalize(ix, ndim, shape, &ns) == TSR_OK) {
			struct tsr_desc desc;
			struct tsr_plan plan;
			memset(&desc, 0, sizeof(desc));
			desc.ndim = ndim;
			for (int i = 0; i < ndim; i++) {
				desc.shape[i] = shape[i];
				desc.chunk_shape[i] = 2;
				desc.grid[i] = (shape[i] + 1) / 2;
			}
			if (tsr_plan_build(&desc, &ns, &plan) == TSR_OK)
				tsr_plan_free(&plan);
			tsr_norm_sel_free(&ns);
		}
		tsr_index_free(ix);
	}
	free(spec);
	return 0;
}
