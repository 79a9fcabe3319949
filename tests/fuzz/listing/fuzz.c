/* fuzz.c - tsr_list, tsr_listing_metadata and tsr_array_metadata on an arbitrary file (FITS or
 * Blosc2 by its content): the HDU walk, header cards into JSON, frame trailers and vlmeta. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tessera.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	static struct tsr_context *ctx;
	static char path[64];
	if (!ctx) {
		struct tsr_context_options co = {sizeof(co), 1};
		tsr_context_create(&co, &ctx);
		snprintf(path, sizeof(path), "/dev/shm/tsr_fuzz_listing_%d", (int)getpid());
	}
	FILE *f = fopen(path, "wb");
	if (!f)
		return 0;
	fwrite(data, 1, n, f);
	fclose(f);
	struct tsr_listing *l = NULL;
	if (tsr_list(path, &l) != TSR_OK)
		return 0;
	for (size_t i = 0; i < tsr_listing_count(l) && i < 8; i++) {
		struct tsr_entry e = {.struct_size = sizeof(e)};
		char *json = NULL;
		if (tsr_listing_entry(l, i, &e) != TSR_OK)
			abort(); /* every index below the count is an entry */
		tsr_listing_metadata(l, i, &json);
		tsr_free(json);
		if (e.kind != TSR_ENTRY_ARRAY)
			continue;
		struct tsr_open_options oo = {sizeof(oo), e.hdu, 0, NULL, -1, NULL, 0};
		struct tsr_array *a = NULL;
		if (tsr_open(ctx, path, &oo, &a) == TSR_OK) {
			json = NULL;
			tsr_array_metadata(a, &json);
			tsr_free(json);
		}
		tsr_array_free(a);
	}
	tsr_listing_free(l);
	return 0;
}
