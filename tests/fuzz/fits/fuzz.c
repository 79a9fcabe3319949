/* fuzz.c - the FITS driver end to end on an arbitrary file: headers, HDU walk, tile tables,
 * descriptors, and every tile's decode (read_whole.h caps output and chunk sizes). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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
		snprintf(path, sizeof(path), "/dev/shm/tsr_fuzz_fits_%d.fits", (int)getpid());
	}
	/* bzip2 and compress can grow a few bytes into gigabytes, up to tsr_open's limit of half
	 * the machine's memory: their decoders are fuzzed under a small limit in fuzz/unpack */
	if (n >= 2 && ((data[0] == 'B' && data[1] == 'Z') || (data[0] == 0x1f && data[1] == 0x9d)))
		return 0;
	FILE *f = fopen(path, "wb");
	if (!f)
		return 0;
	fwrite(data, 1, n, f);
	fclose(f);
	for (int hdu = 0; hdu < 3; hdu++) {
		struct tsr_open_options oo = {sizeof(oo), hdu, hdu == 2, NULL, 0, NULL, 0};
		struct tsr_array *a = NULL;
		if (tsr_open(ctx, path, &oo, &a) != TSR_OK)
			continue;
		tsr_fuzz_read_whole(a);
		tsr_array_free(a);
	}
	return 0;
}
