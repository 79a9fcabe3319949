/* test_options_inside_field.c - an options struct_size that is no older struct's size (it ends inside a field, as part of a pointer) is TSR_E_INVALID_ARG before anything is read, where the library copied the pointer's first bytes and followed it; every older struct's size still reads. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tessera.h"

static int stop_never(void *arg)
{
	(void)arg;
	return 0;
}

/* Whether size n of a struct whose pointer field lies at [at, at + sizeof(void *)) ends inside
 * it. */
static int inside(size_t n, size_t at)
{
	return n > at && n < at + sizeof(void *);
}

/* Whether n is the size of a struct that ends after one of its fields (ends[0 .. k)), with or
 * without the padding sizeof adds up to a size_t: an older struct's size. */
static int a_struct_size(size_t n, const size_t *ends, size_t k)
{
	for (size_t i = 0; i < k; i++)
		if (n == ends[i] || n == (ends[i] + sizeof(size_t) - 1) / sizeof(size_t) * sizeof(size_t))
			return 1;
	return 0;
}

#define END(s, f) (offsetof(struct s, f) + sizeof(((struct s *)0)->f))

int main(void)
{
	const char *corpus = getenv("TSR_CORPUS");
	char path[1100];
	snprintf(path, sizeof(path), "%s/fits/u_multi_hdu.fits", corpus ? corpus : "../../shared/corpus");
	struct tsr_context *ctx = NULL;
	CHECK_EQ_INT(tsr_context_create(NULL, &ctx), TSR_OK);
	int refused = 0, opened = 0;

	/* open options: every size from the first published one to the whole struct; a pointer
	 * field (array, hdu_name, dtype) set to an address that faults if followed */
	const size_t ptrs[] = {offsetof(struct tsr_open_options, array),
			       offsetof(struct tsr_open_options, hdu_name),
			       offsetof(struct tsr_open_options, dtype)};
	for (size_t n = offsetof(struct tsr_open_options, array); n <= sizeof(struct tsr_open_options);
	     n++) {
		struct tsr_open_options oo;
		memset(&oo, 0, sizeof(oo));
		oo.hdu = -1, oo.level = -1;
		oo.array = "", oo.hdu_name = "", oo.dtype = "";
		oo.struct_size = n;
		int in = 0;
		for (size_t i = 0; i < 3; i++)
			in |= inside(n, ptrs[i]);
		const size_t ends[] = {END(tsr_open_options, raw), END(tsr_open_options, array),
				       END(tsr_open_options, level), END(tsr_open_options, hdu_name),
				       END(tsr_open_options, hdu_ver), END(tsr_open_options, dtype)};
		struct tsr_array *a = NULL;
		int st = tsr_open(ctx, path, &oo, &a);
		if (in || !a_struct_size(n, ends, 6)) {
			CHECK_EQ_INT(st, TSR_E_INVALID_ARG);
			CHECK(strstr(tsr_errmsg(), "ends inside a field") != NULL);
			CHECK(a == NULL);
			refused += in;
		} else {
			CHECK_EQ_INT(st, TSR_OK);
			opened++;
		}
		tsr_array_free(a);
	}
	CHECK(refused == 3 * (int)(sizeof(void *) - 1));
	CHECK(opened > 0);

	/* read options: sizes inside devices, stop and stop_arg, with stop set */
	struct tsr_array *a = NULL;
	CHECK_EQ_INT(tsr_open(ctx, path, NULL, &a), TSR_OK);
	struct tsr_array_info in = {.struct_size = sizeof(in)};
	CHECK_EQ_INT(tsr_array_info(a, &in), TSR_OK);
	const size_t rptrs[] = {offsetof(struct tsr_read_options, devices),
				offsetof(struct tsr_read_options, stop),
				offsetof(struct tsr_read_options, stop_arg)};
	int rrefused = 0;
	for (size_t n = offsetof(struct tsr_read_options, nthreads) + sizeof(int);
	     n <= sizeof(struct tsr_read_options); n++) {
		struct tsr_read_options ro;
		memset(&ro, 0, sizeof(ro));
		ro.stop = stop_never;
		ro.struct_size = n;
		void *data = NULL;
		size_t nbytes = 0;
		int ndim = 0;
		int64_t shape[TSR_MAX_DIM];
		int st = tsr_read_alloc(a, NULL, &ro, &data, &nbytes, &ndim, shape, NULL);
		int inf = 0;
		for (size_t i = 0; i < 3; i++)
			inf |= inside(n, rptrs[i]);
		const size_t ends[] = {END(tsr_read_options, nthreads), END(tsr_read_options, decoder),
				       END(tsr_read_options, storage), END(tsr_read_options, devices),
				       END(tsr_read_options, ndevices), END(tsr_read_options, stop),
				       END(tsr_read_options, stop_arg)};
		if (inf || !a_struct_size(n, ends, 7)) {
			CHECK_EQ_INT(st, TSR_E_INVALID_ARG);
			CHECK(strstr(tsr_errmsg(), "ends inside a field") != NULL);
			rrefused += inf;
		} else {
			CHECK_EQ_INT(st, TSR_OK);
		}
		tsr_free(data);
	}
	CHECK(rrefused == 3 * (int)(sizeof(void *) - 1));
	tsr_array_free(a);
	tsr_context_free(ctx);
	CHECK_DONE();
}
