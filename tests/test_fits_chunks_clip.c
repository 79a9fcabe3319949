/* test_fits_chunks_clip.c - an uncompressed FITS image reports a chunk shape no larger than its
 * shape on any axis: its blocks of whole rows (about 1 MiB each) are at most as tall as the
 * image (a 3 x 5 image had chunks of 104857 x 5), at least 1 row, and the reads are the same.
 *
 * One file of image HDUs: small, one row, exactly one block (1 MiB of 2048-byte rows), larger
 * than a block, a cube, one axis. (An image with an axis of 0 has no data: FITS HDUs without
 * data are not opened as arrays.) */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fits_cards.h"
#include "tessera.h"

/* The value image_big writes at element i. */
static int16_t big_value(int64_t i)
{
	return (int16_t)((i * 7 + 3) & 0x7fff);
}

/* An int16 IMAGE extension of ndim axes of shape (C order: slowest first), values big_value. */
static void image_big(FILE *f, int ndim, const int64_t *shape)
{
	char c[81];
	int n = 0;
	card(f, "XTENSION= 'IMAGE   '"), n++;
	card(f, "BITPIX  =                   16"), n++;
	snprintf(c, sizeof(c), "NAXIS   = %20d", ndim);
	card(f, c), n++;
	int64_t count = 1;
	for (int k = 1; k <= ndim; k++, n++) {
		snprintf(c, sizeof(c), "NAXIS%d  = %20lld", k, (long long)shape[ndim - k]);
		card(f, c);
		count *= shape[ndim - k];
	}
	card(f, "PCOUNT  =                    0"), n++;
	card(f, "GCOUNT  =                    1"), n++;
	end_header(f, n);
	int64_t nbytes = 2 * count;
	for (int64_t i = 0; i < count; i++) {
		int16_t v = big_value(i);
		fputc((v >> 8) & 0xff, f);
		fputc(v & 0xff, f);
	}
	for (; nbytes % 2880; nbytes++)
		fputc(0, f);
}

struct clip_case {
	int hdu, ndim;
	int64_t shape[3], chunks[3], nchunks;
	int rows_first; /* > 0: image_rows' values from first (one less: 0), else big_value */
};

static void check_case(struct tsr_context *ctx, const char *path, const struct clip_case *k)
{
	struct tsr_open_options oo = {.struct_size = sizeof(oo), .hdu = k->hdu, .level = -1};
	struct tsr_array *a = NULL;
	int st = tsr_open(ctx, path, &oo, &a);
	CHECK_EQ_INT(st, TSR_OK);
	if (st) {
		fprintf(stderr, "HDU %d: %s\n", k->hdu, tsr_errmsg());
		return;
	}
	struct tsr_array_info in = {.struct_size = sizeof(in)};
	CHECK_EQ_INT(tsr_array_info(a, &in), TSR_OK);
	CHECK_EQ_INT(in.ndim, k->ndim);
	for (int d = 0; d < k->ndim; d++) {
		CHECK_EQ_INT(in.shape[d], k->shape[d]);
		CHECK_EQ_INT(in.chunk_shape[d], k->chunks[d]);
		CHECK(in.chunk_shape[d] <= in.shape[d]);
	}
	CHECK_EQ_INT(in.nchunks, k->nchunks);
	void *data = NULL;
	size_t nbytes = 0;
	int nd = 0;
	int64_t shape[TSR_MAX_DIM];
	CHECK_EQ_INT(tsr_read_alloc(a, NULL, NULL, &data, &nbytes, &nd, shape, NULL), TSR_OK);
	int64_t count = 1;
	for (int d = 0; d < k->ndim; d++)
		count *= k->shape[d];
	CHECK_EQ_INT(nbytes, 2 * count);
	const int16_t *v = data;
	int64_t bad = 0;
	for (int64_t i = 0; v && i < count; i++) {
		int16_t want = k->rows_first ? (int16_t)(i < 15 ? k->rows_first - 1 + i : 0)
					     : big_value(i);
		bad += v[i] != want;
	}
	if (bad)
		fprintf(stderr, "HDU %d: %lld values differ\n", k->hdu, (long long)bad);
	CHECK_EQ_INT(bad, 0);
	tsr_free(data);
	tsr_array_free(a);
}

int main(void)
{
	char dir[] = "/tmp/tsr_fits_clip_XXXXXX", path[256];
	if (!mkdtemp(dir))
		return 2;
	snprintf(path, sizeof(path), "%s/images.fits", dir);
	FILE *f = fits_start(path);
	if (!f)
		return 2;
	static const int64_t unit[] = {512, 1024}, more[] = {1000, 1024}, cube[] = {5, 64, 80},
			     line[] = {10};
	image(f, "SMALL", 1);            /* HDU 1: 3 x 5 */
	image_rows(f, "ONE", 101, 1);    /* HDU 2: 1 x 5 */
	image_big(f, 2, unit);           /* HDU 3: 512 rows of 2048 bytes: one block exactly */
	image_big(f, 2, more);           /* HDU 4: two blocks, the second of 488 rows */
	image_big(f, 3, cube);           /* HDU 5 */
	image_big(f, 1, line);           /* HDU 6 */
	CHECK_EQ_INT(fclose(f), 0);

	struct tsr_context *ctx;
	struct tsr_context_options co = {sizeof(co), 2};
	CHECK_EQ_INT(tsr_context_create(&co, &ctx), TSR_OK);
	static const struct clip_case cases[] = {
		{1, 2, {3, 5}, {3, 5}, 1, 2},
		{2, 2, {1, 5}, {1, 5}, 1, 102},
		{3, 2, {512, 1024}, {512, 1024}, 1, 0},
		{4, 2, {1000, 1024}, {512, 1024}, 2, 0},
		{5, 3, {5, 64, 80}, {5, 64, 80}, 1, 0},
		{6, 1, {10}, {10}, 1, 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_case(ctx, path, &cases[i]);

	/* a section across the larger image's two blocks reads as before */
	struct tsr_open_options oo = {.struct_size = sizeof(oo), .hdu = 4, .level = -1};
	struct tsr_array *a = NULL;
	CHECK_EQ_INT(tsr_open(ctx, path, &oo, &a), TSR_OK);
	struct tsr_selection sel;
	CHECK_EQ_INT(tsr_selection_parse("500:530,1000:", &sel), TSR_OK);
	void *data = NULL;
	size_t nbytes = 0;
	int nd = 0;
	int64_t shape[TSR_MAX_DIM];
	if (a && tsr_read_alloc(a, &sel, NULL, &data, &nbytes, &nd, shape, NULL) == TSR_OK) {
		CHECK_EQ_INT(nbytes, 2 * 30 * 24);
		const int16_t *v = data;
		int64_t bad = 0;
		for (int r = 0; r < 30; r++)
			for (int c = 0; c < 24; c++)
				bad += v[r * 24 + c] != big_value((500 + r) * 1024 + 1000 + c);
		CHECK_EQ_INT(bad, 0);
	} else {
		CHECK(0);
	}
	tsr_free(data);
	tsr_array_free(a);

	tsr_context_free(ctx);
	unlink(path);
	rmdir(dir);
	CHECK_DONE();
}
