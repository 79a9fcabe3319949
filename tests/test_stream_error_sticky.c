/* test_stream_error_sticky.c - an error ends a stream, as the header says: after a file's
 * error or a stop (TSR_E_STOPPED) every later tsr_stream_next returned TSR_OK and read the
 * same file again (a stop) or failed on it again; now each returns the first error and its
 * message with *nfiles_ret 0. The call's own argument errors end nothing: a NULL buffer, and a
 * buffer too small (TSR_E_TOO_SMALL), after which a larger one reads the same batch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tessera.h"

static int stop_now(void *arg)
{
	(void)arg;
	return 1;
}

int main(void)
{
	const char *corpus = getenv("TSR_CORPUS");
	char path[1100];
	snprintf(path, sizeof(path), "%s/fits/u_f32_primary.fits", corpus ? corpus : "../../shared/corpus");
	struct tsr_context *ctx = NULL;
	CHECK_EQ_INT(tsr_context_create(NULL, &ctx), TSR_OK);
	const char *two[] = {path, path};
	static char buf[256 * 256 * 4];
	struct tsr_buffer small = {buf, 10, TSR_MEM_HOST, NULL}, big = {buf, sizeof(buf), TSR_MEM_HOST, NULL};
	size_t nf = 9;
	char first[1024];

	struct tsr_stream *s = NULL;
	CHECK_EQ_INT(tsr_stream_open(ctx, two, 2, NULL, NULL, NULL, &s), TSR_OK);
	CHECK_EQ_INT(tsr_stream_next(s, NULL, NULL, &nf, NULL), TSR_E_INVALID_ARG);
	CHECK_EQ_INT(tsr_stream_next(s, &small, NULL, &nf, NULL), TSR_E_TOO_SMALL);
	CHECK_EQ_INT(tsr_stream_next(s, &big, NULL, &nf, NULL), TSR_OK);
	CHECK(nf == 1);
	tsr_stream_free(s);

	/* a file's error: the second file is not FITS */
	const char *bad[] = {path, corpus ? corpus : "../../shared/corpus"};
	CHECK_EQ_INT(tsr_stream_open(ctx, bad, 2, NULL, NULL, NULL, &s), TSR_OK);
	CHECK_EQ_INT(tsr_stream_next(s, &big, NULL, &nf, NULL), TSR_OK);
	int st = tsr_stream_next(s, &big, NULL, &nf, NULL);
	CHECK(st < 0);
	snprintf(first, sizeof(first), "%s", tsr_errmsg());
	for (int i = 0; i < 3; i++) {
		nf = 9;
		CHECK_EQ_INT(tsr_stream_next(s, &big, NULL, &nf, NULL), st);
		CHECK(nf == 0 && !strcmp(tsr_errmsg(), first));
	}
	tsr_stream_free(s);

	struct tsr_read_options stop = {.struct_size = sizeof(stop), .stop = stop_now};
	CHECK_EQ_INT(tsr_stream_open(ctx, two, 2, NULL, NULL, NULL, &s), TSR_OK);
	CHECK_EQ_INT(tsr_stream_next(s, &big, &stop, &nf, NULL), TSR_E_STOPPED);
	nf = 9;
	CHECK_EQ_INT(tsr_stream_next(s, &big, NULL, &nf, NULL), TSR_E_STOPPED);
	CHECK(nf == 0);
	tsr_stream_free(s);

	/* without an error the stream reads both files, then ends */
	CHECK_EQ_INT(tsr_stream_open(ctx, two, 2, NULL, NULL, NULL, &s), TSR_OK);
	size_t total = 0;
	do {
		CHECK_EQ_INT(tsr_stream_next(s, &big, NULL, &nf, NULL), TSR_OK);
		total += nf;
	} while (nf);
	CHECK(total == 2);
	tsr_stream_free(s);
	tsr_context_free(ctx);
	CHECK_DONE();
}
