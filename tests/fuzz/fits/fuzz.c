/* fuzz.c - the FITS driver end to end on an arbitrary file: headers, HDU walk, tile tables,
 * descriptors, and every tile's decode, with a 1 MiB output cap (larger outputs only cost memset time). */
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
		snprintf(path, sizeof(path), "/dev/shm/tsr_fuzz_fits_%d.fits", (int)getpid());
	}
	FILE *f = fopen(path, "wb");
	if (!f)
		return 0;
	fwrite(data, 1, n, f);
	fclose(f);
	for (int hdu = 0; hdu < 3; hdu++) {
		struct tsr_open_options oo = {sizeof(oo), hdu, hdu == 2, NULL, 0};
		struct tsr_array *a = NULL;
		if (tsr_open(ctx, path, &oo, &a) != TSR_OK)
			continue;
		struct tsr_array_info info = {.struct_size = sizeof(info)};
		tsr_array_info(a, &info);
		size_t count = 1;
		for (int i = 0; i < info.ndim; i++)
			count *= (size_t)info.shape[i];
		size_t nb = count * tsr_dtype_size(info.dtype);
		/* A chunk is decoded whole (Zarr chunks hold their full shape even past the
		 * array's edge): chunks claiming more than 64 MiB would only test malloc. */
		size_t cn = tsr_dtype_size(info.dtype);
		for (int i = 0; i < info.ndim; i++)
			cn = info.chunk_shape[i] > 0 && cn <= (SIZE_MAX >> 8) / (size_t)info.chunk_shape[i]
				     ? cn * (size_t)info.chunk_shape[i] : SIZE_MAX >> 4;
		if (cn > (64u << 20))
			nb = SIZE_MAX;
		if (nb <= (1u << 20)) {
			void *buf = malloc(nb ? nb : 1);
			struct tsr_buffer dst = {buf, nb, TSR_MEM_HOST, NULL};
			tsr_read(a, NULL, &dst, NULL, NULL);
			free(buf);
		}
		tsr_array_free(a);
	}
	return 0;
}
