/* fuzz.c - zip stores (zarr-python's ZipStore) from arbitrary bytes: the input is the zip file;
 * it is opened and read whole (1 MiB output cap), and its arrays are listed. */
#include <stdio.h>
#include <unistd.h>

#include "../read_whole.h"
#include "tessera.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	static struct tsr_context *ctx;
	static char path[64];
	if (!ctx) {
		struct tsr_context_options co = {sizeof(co), 1};
		tsr_context_create(&co, &ctx);
		snprintf(path, sizeof(path), "/dev/shm/tsr_fuzz_zip_%d.zarr.zip", (int)getpid());
	}
	FILE *f = fopen(path, "wb");
	if (!f)
		return 0;
	fwrite(data, 1, n, f);
	fclose(f);
	struct tsr_array *a = NULL;
	if (tsr_open(ctx, path, NULL, &a) == TSR_OK) {
		tsr_fuzz_read_whole(a);
		tsr_array_free(a);
	}
	char **names = NULL;
	size_t count = 0;
	if (tsr_list_arrays(path, &names, &count) == TSR_OK)
		tsr_free(names);
	return 0;
}
