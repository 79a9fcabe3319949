/* test_stream.c - streamed reads: batches equal tsr_read_batch's, the last batch is short, the
 * stream ends with 0 files, a file of another shape is an error naming it, options work. */
#include <stdlib.h>

#include "check.h"
#include "tessera.h"

static char corpus[1024];

static const char *cpath(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", corpus, name);
	return buf;
}

int main(void)
{
	const char *env = getenv("TSR_CORPUS");
	snprintf(corpus, sizeof(corpus), "%s", env ? env : "../../shared/corpus");
	char p0[2048], p1[2048], p2[2048], odd[2048];
	cpath(p0, sizeof(p0), "fits/c_rice_i16_tiles.fits");
	cpath(p1, sizeof(p1), "fits/u_i16_primary.fits"); /* the same shape and dtype */
	cpath(p2, sizeof(p2), "fits/fp_rice_i16.fits.fz");
	cpath(odd, sizeof(odd), "fits/u_f32_primary.fits");
	const char *paths[] = {p0, p1, p2, p0, p1};
	struct tsr_context *ctx;
	CHECK_EQ_INT(tsr_context_create(NULL, &ctx), TSR_OK);

	/* The whole batch at once, for reference. */
	size_t per = 200 * 300 * 2;
	unsigned char *all = malloc(5 * per), *got = malloc(2 * per);
	struct tsr_buffer dst = {all, 5 * per, TSR_MEM_HOST, NULL};
	CHECK_EQ_INT(tsr_read_batch(ctx, paths, 5, NULL, NULL, &dst, NULL, NULL), TSR_OK);

	struct tsr_stream_options so = {sizeof(so), 2, 3};
	struct tsr_stream *s = NULL;
	CHECK_EQ_INT(tsr_stream_open(ctx, paths, 5, NULL, NULL, &so, &s), TSR_OK);
	size_t at = 0, n = 0;
	struct tsr_buffer gb = {got, 2 * per, TSR_MEM_HOST, NULL};
	int batches = 0;
	for (;;) {
		struct tsr_receipt r = {.struct_size = sizeof(r)};
		CHECK_EQ_INT(tsr_stream_next(s, &gb, NULL, &n, &r), TSR_OK);
		if (n == 0)
			break;
		batches++;
		CHECK(n == 2 || (n == 1 && at == 4));
		CHECK(memcmp(got, all + at * per, n * per) == 0);
		CHECK_EQ_INT(r.bytes_out, n * per);
		at += n;
	}
	CHECK_EQ_INT(at, 5);
	CHECK_EQ_INT(batches, 3);
	CHECK_EQ_INT(tsr_stream_next(s, &gb, NULL, &n, NULL), TSR_OK); /* still done */
	CHECK_EQ_INT(n, 0);
	tsr_stream_free(s);

	/* A section, one file a batch, default read-ahead. */
	struct tsr_selection sel;
	CHECK_EQ_INT(tsr_selection_parse("10:20,::-50", &sel), TSR_OK);
	CHECK_EQ_INT(tsr_stream_open(ctx, paths, 3, NULL, &sel, NULL, &s), TSR_OK);
	for (int i = 0; i < 3; i++) {
		CHECK_EQ_INT(tsr_stream_next(s, &gb, NULL, &n, NULL), TSR_OK);
		CHECK_EQ_INT(n, 1);
		const int16_t *w = (const int16_t *)(all + (size_t)i * per), *g = (const int16_t *)got;
		for (int r = 0; r < 10; r++)
			for (int c = 0; c < 6; c++)
				CHECK_EQ_INT(g[r * 6 + c], w[(10 + r) * 300 + 299 - 50 * c]);
	}
	tsr_stream_free(s);

	/* A file whose shape differs from the first: an error naming it, in a later batch too. */
	const char *mixed[] = {p0, p1, odd};
	CHECK_EQ_INT(tsr_stream_open(ctx, mixed, 3, NULL, NULL, &so, &s), TSR_OK);
	CHECK_EQ_INT(tsr_stream_next(s, &gb, NULL, &n, NULL), TSR_OK);
	CHECK_EQ_INT(n, 2);
	CHECK_EQ_INT(tsr_stream_next(s, &gb, NULL, &n, NULL), TSR_E_FORMAT);
	CHECK(strstr(tsr_errmsg(), "u_f32_primary.fits") != NULL);
	tsr_stream_free(s);

	/* Bad arguments; NULL frees. */
	struct tsr_stream_options bad = {sizeof(bad), -1, 0};
	CHECK_EQ_INT(tsr_stream_open(ctx, paths, 1, NULL, NULL, &bad, &s), TSR_E_INVALID_ARG);
	CHECK(s == NULL);
	CHECK_EQ_INT(tsr_stream_open(ctx, paths, 1, NULL, NULL, NULL, NULL), TSR_E_INVALID_ARG);
	tsr_stream_free(NULL);

	free(all);
	free(got);
	tsr_context_free(ctx);
	CHECK_DONE();
}
