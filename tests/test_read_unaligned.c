/* test_read_unaligned.c - a destination not aligned for the array's dtype is refused with
 * TSR_E_INVALID_ARG naming the file and the alignment (the decoders stored through it as typed
 * pointers: undefined behaviour, and on a GPU a misaligned-address fault); uint8 values and an
 * empty selection with NULL data read as before; the read into an aligned buffer is unchanged. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tessera.h"

/* Reads all of corpus/rel into base + off; returns the status. */
static int read_at(struct tsr_context *ctx, const char *rel, size_t off, size_t *nbytes_ret)
{
	const char *corpus = getenv("TSR_CORPUS");
	char path[1100];
	snprintf(path, sizeof(path), "%s/%s", corpus ? corpus : "../../shared/corpus", rel);
	struct tsr_array *a = NULL;
	CHECK_EQ_INT(tsr_open(ctx, path, NULL, &a), TSR_OK);
	void *ref = NULL;
	size_t n = 0;
	int nd;
	int64_t shape[TSR_MAX_DIM];
	CHECK_EQ_INT(tsr_read_alloc(a, NULL, NULL, &ref, &n, &nd, shape, NULL), TSR_OK);
	unsigned char *base = malloc(n + 16);
	struct tsr_buffer dst = {base + off, n, TSR_MEM_HOST, NULL};
	int st = tsr_read(a, NULL, &dst, NULL, NULL);
	if (st == TSR_OK)
		CHECK(memcmp(base + off, ref, n) == 0);
	else
		CHECK(strstr(tsr_errmsg(), rel) && strstr(tsr_errmsg(), "is not aligned to"));
	*nbytes_ret = n;
	free(base);
	tsr_free(ref);
	tsr_array_free(a);
	return st;
}

int main(void)
{
	struct tsr_context *ctx = NULL;
	CHECK_EQ_INT(tsr_context_create(NULL, &ctx), TSR_OK);
	size_t n;
	static const char *const wide[] = {"fits/c_rice_i16_tiles.fits", "fits/c_gzip2_f64_lossless.fits",
					   "fits/c_rice_f32_sd1.fits", "fits/c_rice_u16_bzero.fits",
					   "zarr2/blosc_zstd_bitshuffle_i64.zarr"};
	for (size_t i = 0; i < sizeof(wide) / sizeof(*wide); i++) {
		CHECK_EQ_INT(read_at(ctx, wide[i], 0, &n), TSR_OK);
		CHECK_EQ_INT(read_at(ctx, wide[i], 1, &n), TSR_E_INVALID_ARG);
	}
	CHECK_EQ_INT(read_at(ctx, "fits/c_rice_u8_rows.fits", 1, &n), TSR_OK);
	CHECK_EQ_INT(read_at(ctx, "zarr2/blosc_lz4_bitshuffle_bool.zarr", 3, &n), TSR_OK);

	/* an empty selection: nothing to store, NULL data taken */
	const char *corpus = getenv("TSR_CORPUS");
	char path[1100];
	snprintf(path, sizeof(path), "%s/fits/c_rice_i16_tiles.fits", corpus ? corpus : "../../shared/corpus");
	struct tsr_array *a = NULL;
	CHECK_EQ_INT(tsr_open(ctx, path, NULL, &a), TSR_OK);
	struct tsr_selection sel;
	CHECK_EQ_INT(tsr_selection_parse("0:0", &sel), TSR_OK);
	struct tsr_buffer none = {NULL, 0, TSR_MEM_HOST, NULL};
	CHECK_EQ_INT(tsr_read(a, &sel, &none, NULL, NULL), TSR_OK);
	tsr_array_free(a);
	tsr_context_free(ctx);
	CHECK_DONE();
}
