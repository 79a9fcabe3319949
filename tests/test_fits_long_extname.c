/* test_fits_long_extname.c - an EXTNAME longer than a card (CONTINUE cards, as astropy and
 * CFITSIO's long strings write it) is listed whole, named whole by the array, and opened by
 * its whole name; a name past TSR_HDU_NAME_MAX is refused as an argument. */
#include <fitsio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "tessera.h"

static char path[256];

/* HDU 1 named a (long), HDU 2 named b (long, differing from a only at its end); HDU k holds
 * int16 values i * k. */
static int write_file(const char *a, const char *b)
{
	fitsfile *f;
	int st = 0;
	long dims[1] = {6};
	int16_t v[6];
	remove(path);
	fits_create_file(&f, path, &st);
	for (int k = 0; k < 3; k++) {
		for (int i = 0; i < 6; i++)
			v[i] = (int16_t)(i * k);
		fits_create_img(f, SHORT_IMG, 1, dims, &st);
		fits_write_img(f, TSHORT, 1, 6, v, &st);
		if (k)
			fits_write_key_longstr(f, "EXTNAME", (char *)(k == 1 ? a : b), "", &st);
	}
	fits_close_file(f, &st);
	return st;
}

/* The HDU that name opens (its value 1 checked against its index), or the status. */
static int pick(struct tsr_context *ctx, const char *name, char *got, size_t cap)
{
	struct tsr_open_options o = {.struct_size = sizeof(o), .hdu = -1, .hdu_name = name};
	struct tsr_array *arr = NULL;
	int st = tsr_open(ctx, path, &o, &arr);
	if (st)
		return st;
	struct tsr_array_info in = {.struct_size = sizeof(in)};
	tsr_array_info(arr, &in);
	snprintf(got, cap, "%s", in.name);
	int16_t v[6];
	struct tsr_buffer buf = {.data = v, .nbytes = sizeof(v)};
	CHECK_EQ_INT(tsr_read(arr, NULL, &buf, NULL, NULL), TSR_OK);
	CHECK_EQ_INT(v[1], in.index);
	tsr_array_free(arr);
	return in.index;
}

int main(void)
{
	snprintf(path, sizeof(path), "/tmp/tsr_long_extname_%d.fits", (int)getpid());
	static char a[301], b[301], lower[301], got[TSR_HDU_NAME_MAX + 1];
	for (int i = 0; i < 300; i++)
		a[i] = b[i] = (char)('A' + i % 26);
	b[299] = '9'; /* the two differ past the first card's 68 characters */
	if (write_file(a, b)) {
		fprintf(stderr, "cannot write %s\n", path);
		return 1;
	}
	struct tsr_context *ctx;
	struct tsr_context_options co = {sizeof(co), 2};
	CHECK_EQ_INT(tsr_context_create(&co, &ctx), TSR_OK);

	struct tsr_listing *l = NULL;
	CHECK_EQ_INT(tsr_list(path, &l), TSR_OK);
	CHECK_EQ_INT(tsr_listing_count(l), 3);
	struct tsr_entry e = {.struct_size = sizeof(e)};
	CHECK_EQ_INT(tsr_listing_entry(l, 1, &e), TSR_OK);
	CHECK(strcmp(e.name, a) == 0);
	CHECK_EQ_INT(tsr_listing_entry(l, 2, &e), TSR_OK);
	CHECK(strcmp(e.name, b) == 0);
	tsr_listing_free(l);

	CHECK_EQ_INT(pick(ctx, a, got, sizeof(got)), 1);
	CHECK(strcmp(got, a) == 0);
	CHECK_EQ_INT(pick(ctx, b, got, sizeof(got)), 2);
	CHECK(strcmp(got, b) == 0);
	for (int i = 0; i < 300; i++)
		lower[i] = (char)(a[i] | 0x20); /* case does not count, as for short names */
	CHECK_EQ_INT(pick(ctx, lower, got, sizeof(got)), 1);
	a[200] = '\0'; /* a name's first part names nothing */
	CHECK_EQ_INT(pick(ctx, a, got, sizeof(got)), TSR_E_NOT_FOUND);

	static char toolong[TSR_HDU_NAME_MAX + 2];
	memset(toolong, 'A', TSR_HDU_NAME_MAX + 1);
	CHECK_EQ_INT(pick(ctx, toolong, got, sizeof(got)), TSR_E_INVALID_ARG);
	CHECK(strstr(tsr_errmsg(), path) != NULL);

	tsr_context_free(ctx);
	remove(path);
	CHECK_DONE();
}
