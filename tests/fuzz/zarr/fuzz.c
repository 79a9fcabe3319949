/* fuzz.c - the Zarr driver on arbitrary metadata: the input's first byte picks v2 (.zarray)
 * or v3 (zarr.json); the rest, up to a NUL, is the metadata and what follows is chunk 0's file
 * (every key spelling). The store is opened and read whole, with a 1 MiB output cap. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../read_whole.h"
#include "tessera.h"

static void put(const char *dir, const char *name, const uint8_t *p, size_t n)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f)
		return;
	fwrite(p, 1, n, f);
	fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	static struct tsr_context *ctx;
	static char dir[64];
	if (!ctx) {
		struct tsr_context_options co = {sizeof(co), 1};
		tsr_context_create(&co, &ctx);
		snprintf(dir, sizeof(dir), "/dev/shm/tsr_fuzz_zarr_%d", (int)getpid());
	}
	if (n < 2)
		return 0;
	int v3 = data[0] & 1;
	const uint8_t *meta = data + 1, *end = memchr(meta, 0, n - 1);
	size_t mn = end ? (size_t)(end - meta) : n - 1;
	const uint8_t *chunk = end ? end + 1 : data + n;
	size_t cn = (size_t)(data + n - chunk);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "%s/c", dir);
	mkdir(dir, 0755);
	mkdir(cmd, 0755);
	put(dir, v3 ? "zarr.json" : ".zarray", meta, mn);
	char other[512];
	snprintf(other, sizeof(other), "%s/%s", dir, v3 ? ".zarray" : "zarr.json");
	unlink(other);
	put(dir, "0", chunk, cn);
	put(dir, "0.0", chunk, cn);
	put(dir, "0.0.0", chunk, cn);
	put(cmd, "0", chunk, cn);
	struct tsr_array *a = NULL;
	if (tsr_open(ctx, dir, NULL, &a) == TSR_OK) {
		tsr_fuzz_read_whole(a);
		tsr_array_free(a);
	}
	return 0;
}
