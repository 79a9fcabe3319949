/* test_batch_arg_messages.c - a batch read's argument errors say which: a NULL entry of paths by its index (a batch said "tsr_open: NULL context or path"; a stream's open copied it with strdup and crashed), and a buffer too small for the batch names the first file and both sizes (it named no file). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tessera.h"

int main(void)
{
	const char *corpus = getenv("TSR_CORPUS");
	char path[1100];
	snprintf(path, sizeof(path), "%s/fits/u_f32_primary.fits", corpus ? corpus : "../../shared/corpus");
	struct tsr_context *ctx = NULL;
	CHECK_EQ_INT(tsr_context_create(NULL, &ctx), TSR_OK);
	size_t one = 256 * 256 * 4;
	unsigned char *buf = malloc(3 * one);

	const char *with_null[] = {path, path, NULL};
	struct tsr_buffer dst = {buf, 3 * one, TSR_MEM_HOST, NULL};
	CHECK_EQ_INT(tsr_read_batch(ctx, with_null, 3, NULL, NULL, &dst, NULL, NULL),
		     TSR_E_INVALID_ARG);
	CHECK(strstr(tsr_errmsg(), "paths[2] is NULL") != NULL);

	struct tsr_stream *stream = NULL;
	CHECK_EQ_INT(tsr_stream_open(ctx, with_null, 3, NULL, NULL, NULL, &stream), TSR_E_INVALID_ARG);
	CHECK(strstr(tsr_errmsg(), "paths[2] is NULL") != NULL && stream == NULL);

	const char *three[] = {path, path, path};
	struct tsr_buffer small = {buf, 3 * one - 1, TSR_MEM_HOST, NULL};
	CHECK_EQ_INT(tsr_read_batch(ctx, three, 3, NULL, NULL, &small, NULL, NULL), TSR_E_TOO_SMALL);
	char want[64];
	snprintf(want, sizeof(want), "needs %zu bytes, the buffer has %zu", 3 * one, 3 * one - 1);
	CHECK(strstr(tsr_errmsg(), "u_f32_primary.fits") && strstr(tsr_errmsg(), want));
	CHECK_EQ_INT(tsr_read_batch(ctx, three, 3, NULL, NULL, &dst, NULL, NULL), TSR_OK);

	free(buf);
	tsr_context_free(ctx);
	CHECK_DONE();
}
