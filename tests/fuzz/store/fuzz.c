/* fuzz.c - the metadata side of a multi-file store: the input unpacks into a directory
 * (store_archive.h); tsr_list_arrays lists it, and every array it names (and the store itself,
 * at the OME level the tail's first byte picks) is opened and described: tsr_array_info,
 * tsr_selection_shape, and a whole read when small (read_whole.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../read_whole.h"
#include "../store_archive.h"
#include "tessera.h"

static void tsr_fuzz_describe(struct tsr_context *ctx, const char *dir, const char *name, int level)
{
	struct tsr_open_options oo = {sizeof(oo), -1, 0, name, level};
	struct tsr_array *a = NULL;
	if (tsr_open(ctx, dir, &oo, &a) != TSR_OK)
		return;
	struct tsr_array_info info = {.struct_size = sizeof(info)};
	if (tsr_array_info(a, &info) == TSR_OK) {
		/* the strings live as long as the array */
		volatile size_t sink = strlen(info.codec) + strlen(info.reader) + strlen(info.path);
		(void)sink;
		struct tsr_selection sel;
		int ndim;
		int64_t shape[TSR_MAX_DIM];
		if (tsr_selection_parse("...,::-2", &sel) == TSR_OK)
			tsr_selection_shape(a, &sel, &ndim, shape);
	}
	tsr_fuzz_read_whole(a);
	tsr_array_free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	static struct tsr_context *ctx;
	static char dir[64];
	if (!ctx) {
		struct tsr_context_options co = {sizeof(co), 1};
		tsr_context_create(&co, &ctx);
		snprintf(dir, sizeof(dir), "/dev/shm/tsr_fuzz_store_%d", (int)getpid());
	}
	const uint8_t *tail;
	size_t tn;
	tsr_fuzz_unpack(dir, data, n, &tail, &tn, NULL);
	int level = tn ? (int)(tail[0] % 4) - 1 : -1;
	char **names = NULL;
	size_t count = 0;
	if (tsr_list_arrays(dir, &names, &count) == TSR_OK) {
		for (size_t i = 0; i < count && i < 8; i++)
			tsr_fuzz_describe(ctx, dir, names[i], -1);
		tsr_free(names);
	}
	/* the store itself: its root array, or an OME-Zarr level of its root group */
	tsr_fuzz_describe(ctx, dir, NULL, level);
	return 0;
}
