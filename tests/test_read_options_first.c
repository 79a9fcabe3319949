/* test_read_options_first.c - a read checks its options before its selection, as the header
 * says every call does: with a bad tsr_read_options.struct_size and a selection out of range,
 * tsr_read, tsr_read_alloc, tsr_read_index and tsr_read_index_alloc said TSR_E_RANGE (the
 * selection's), and tsr_listing_open gave an entry past the last before a bad open options
 * struct_size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tessera.h"

static void bad_options(const char *call, int st)
{
	if (st != TSR_E_INVALID_ARG || !strstr(tsr_errmsg(), "struct_size"))
		fprintf(stderr, "%s: status %d, \"%s\"\n", call, st, tsr_errmsg());
	CHECK(st == TSR_E_INVALID_ARG && strstr(tsr_errmsg(), "struct_size"));
}

int main(void)
{
	const char *corpus = getenv("TSR_CORPUS");
	char path[1100];
	snprintf(path, sizeof(path), "%s/fits/c_rice_i16_tiles.fits", corpus ? corpus : "../../shared/corpus");
	struct tsr_context *ctx = NULL;
	CHECK_EQ_INT(tsr_context_create(NULL, &ctx), TSR_OK);
	struct tsr_array *a = NULL;
	CHECK_EQ_INT(tsr_open(ctx, path, NULL, &a), TSR_OK);
	struct tsr_selection sel;
	CHECK_EQ_INT(tsr_selection_parse("999999", &sel), TSR_OK);
	struct tsr_index *ix = NULL;
	CHECK_EQ_INT(tsr_index_parse("[999999]", 0, &ix), TSR_OK);
	struct tsr_read_options bad = {.struct_size = 3};
	char buf[64];
	struct tsr_buffer dst = {buf, sizeof(buf), TSR_MEM_HOST, NULL};
	void *data;
	size_t nb;
	int nd;
	int64_t shape[TSR_MAX_DIM];
	bad_options("tsr_read", tsr_read(a, &sel, &dst, &bad, NULL));
	bad_options("tsr_read_alloc", tsr_read_alloc(a, &sel, &bad, &data, &nb, &nd, shape, NULL));
	bad_options("tsr_read_index", tsr_read_index(a, ix, &dst, &bad, NULL));
	bad_options("tsr_read_index_alloc",
		    tsr_read_index_alloc(a, ix, &bad, &data, &nb, &nd, shape, NULL));
	/* with good options the selection's own error stands */
	CHECK_EQ_INT(tsr_read(a, &sel, &dst, NULL, NULL), TSR_E_RANGE);

	struct tsr_listing *l = NULL;
	CHECK_EQ_INT(tsr_list(path, &l), TSR_OK);
	struct tsr_open_options obad = {.struct_size = 3};
	struct tsr_array *b = NULL;
	bad_options("tsr_listing_open", tsr_listing_open(ctx, l, 999, &obad, &b));
	CHECK(b == NULL);
	CHECK_EQ_INT(tsr_listing_open(ctx, l, 999, NULL, &b), TSR_E_RANGE);
	tsr_listing_free(l);
	tsr_index_free(ix);
	tsr_array_free(a);
	tsr_context_free(ctx);
	CHECK_DONE();
}
