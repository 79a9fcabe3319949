/* fuzz.c - the section parser and NumPy normalisation on arbitrary strings and shapes. */
#include <stdlib.h>
#include <string.h>

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
	free(spec);
	return 0;
}
