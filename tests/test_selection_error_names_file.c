/* test_selection_error_names_file.c - a selection that does not fit the array fails naming the
 * file and HDU in every call that reads or splits it: tsr_read_batch, tsr_stream_next and
 * tsr_read_slabs said only "index 100000 is out of bounds ...", where tsr_read named the file.
 * tsr_selection_shape's message stays NumPy's own words (the Python module's IndexError). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tessera.h"

static void names(const char *call, int st, const char *path)
{
	char want[1200];
	snprintf(want, sizeof(want), "%s: HDU 0: index 100000 is out of bounds", path);
	if (st != TSR_E_RANGE || !strstr(tsr_errmsg(), want))
		fprintf(stderr, "%s: status %d, message \"%s\"\n", call, st, tsr_errmsg());
	CHECK(st == TSR_E_RANGE && strstr(tsr_errmsg(), want));
}

int main(void)
{
	const char *corpus = getenv("TSR_CORPUS");
	char path[1100];
	snprintf(path, sizeof(path), "%s/fits/u_f32_primary.fits", corpus ? corpus : "../../shared/corpus");
	struct tsr_context *ctx = NULL;
	CHECK_EQ_INT(tsr_context_create(NULL, &ctx), TSR_OK);
	struct tsr_selection sel;
	CHECK_EQ_INT(tsr_selection_parse("100000", &sel), TSR_OK);
	static char buf[1 << 20];
	struct tsr_buffer dst = {buf, sizeof(buf), TSR_MEM_HOST, NULL};
	const char *two[] = {path, path};

	names("tsr_read_batch", tsr_read_batch(ctx, two, 2, NULL, &sel, &dst, NULL, NULL), path);
	struct tsr_stream *s = NULL;
	size_t nf = 9;
	CHECK_EQ_INT(tsr_stream_open(ctx, two, 2, NULL, &sel, NULL, &s), TSR_OK);
	names("tsr_stream_next", tsr_stream_next(s, &dst, NULL, &nf, NULL), path);
	tsr_stream_free(s);

	struct tsr_array *a = NULL;
	CHECK_EQ_INT(tsr_open(ctx, path, NULL, &a), TSR_OK);
	int nd;
	int64_t shape[TSR_MAX_DIM], first[2], count[2];
	names("tsr_read", tsr_read(a, &sel, &dst, NULL, NULL), path);
	CHECK_EQ_INT(tsr_selection_shape(a, &sel, &nd, shape), TSR_E_RANGE);
	CHECK(!strcmp(tsr_errmsg(), "index 100000 is out of bounds for axis 0 with size 256"));
	names("tsr_read_slabs", tsr_read_slabs(a, &sel, 2, &nd, first, count), path);
	tsr_array_free(a);
	tsr_context_free(ctx);
	CHECK_DONE();
}
