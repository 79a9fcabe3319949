/* fuzz.c - zstd streams on arbitrary bytes: the GPU kernel's decoder (src/cuda/zstd_core.h, its three phases emulated) against libzstd's ZSTD_decompress, and its phase c by cells (zstd_cells_core.h) against by frames. First two bytes: the output capacity / 4. */
/* Seeds (seeds/): the first 20000 bytes of src/core/plan.c by the zstd CLI at levels 1, 3, 9,
 * 19, --fast=3 and -3 --check (capacity 20000); 200000 zero bytes at level 1 without content
 * size (capacity 262140). */
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "../guard.h"
#include "../../gpu/zstd_host.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	if (n < 2)
		return 0;
	size_t cap = ((size_t)data[0] << 8 | data[1]) * 4;
	struct tsr_guarded g;
	if (tsr_guard(&g, data + 2, n - 2))
		return 0;
	unsigned char *ref = malloc(cap + 1), *out = malloc(cap + 1);
	size_t r = ZSTD_decompress(ref, cap, g.data, n - 2);
	size_t got;
	int st = tsr_zstd_host_decode(g.data, n - 2, out, cap, &got);
	if (got > cap)
		abort();
	/* what the decoder accepts, libzstd accepts, to the same bytes */
	if (st == TSR_CUDA_ZSTD_OK && (ZSTD_isError(r) || r != got || memcmp(out, ref, got)))
		abort();
	/* (it refuses a few frames libzstd decodes: dictionaries, legacy formats, offsets past
	 * the window, oversized blocks; those are not checked here) */
	/* phase c by cells: the same status and bytes as by frames */
	unsigned char *cout = malloc(cap + 1);
	size_t cgot;
	int cst = tsr_zstd_host_decode_cells(g.data, n - 2, cout, cap, &cgot);
	if (cst != st || cgot != got || (st == TSR_CUDA_ZSTD_OK && memcmp(cout, out, got)))
		abort();
	free(cout);
	free(ref);
	free(out);
	tsr_unguard(&g);
	return 0;
}
