/* test_api_argument_edges.c - arguments at their edges: an hdu or level below -1 is refused
 * (they opened as -1), TSR_OPEN_OPTIONS_INIT holds the defaults NULL options have (a struct
 * zeroed but for its size opens HDU 0 instead), a context of more than 1024 threads is refused
 * (it started threads until the system refused one), and tsr_cuda_pointer_device checks its
 * output pointer first in every build. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tessera.h"

int main(void)
{
	const char *corpus = getenv("TSR_CORPUS");
	char fz[1024];
	snprintf(fz, sizeof(fz), "%s/fits/fp_rice_i16.fits.fz", corpus ? corpus : ".");
	struct tsr_context *ctx = NULL;
	CHECK_EQ_INT(tsr_context_create(NULL, &ctx), TSR_OK);
	struct tsr_array *a = NULL;
	struct tsr_array_info info = {.struct_size = sizeof(info)};

	/* the defaults, as NULL gives them: the .fz file's image, HDU 1 */
	struct tsr_open_options o = TSR_OPEN_OPTIONS_INIT;
	CHECK_EQ_INT(tsr_open(ctx, fz, &o, &a), TSR_OK);
	CHECK_EQ_INT(tsr_array_info(a, &info), TSR_OK);
	CHECK_EQ_INT(info.index, 1);
	tsr_array_free(a);
	o.raw = 1;
	CHECK_EQ_INT(tsr_open(ctx, fz, &o, &a), TSR_OK);
	tsr_array_free(a);
	/* zeroed but for its size: HDU 0, the primary, which has no image */
	struct tsr_open_options z = {.struct_size = sizeof(z)};
	CHECK_EQ_INT(tsr_open(ctx, fz, &z, &a), TSR_E_NOT_FOUND);

	o = (struct tsr_open_options)TSR_OPEN_OPTIONS_INIT;
	o.hdu = -2;
	CHECK_EQ_INT(tsr_open(ctx, fz, &o, &a), TSR_E_INVALID_ARG);
	CHECK(strstr(tsr_errmsg(), "hdu -2 is below -1") != NULL);
	o.hdu = -1;
	o.level = -7;
	CHECK_EQ_INT(tsr_open(ctx, fz, &o, &a), TSR_E_INVALID_ARG);
	CHECK(strstr(tsr_errmsg(), "level -7 is below -1") != NULL);
	tsr_context_free(ctx);

	struct tsr_context_options co = {.struct_size = sizeof(co), .nthreads = 1025};
	CHECK_EQ_INT(tsr_context_create(&co, &ctx), TSR_E_INVALID_ARG);
	CHECK(strstr(tsr_errmsg(), "1025 > 1024") != NULL);

	CHECK_EQ_INT(tsr_cuda_pointer_device(NULL, NULL), TSR_E_INVALID_ARG);
	CHECK_DONE();
}
