/* test_read_dst_checks.c - a read's destination and options checked before reading: a NULL data pointer is named as such (it was reported as a buffer of its nbytes that is too small), a memory kind that is none of enum tsr_mem and a negative nthreads are TSR_E_INVALID_ARG (both read as if valid). */
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
	struct tsr_array *a = NULL;
	CHECK_EQ_INT(tsr_context_create(NULL, &ctx), TSR_OK);
	CHECK_EQ_INT(tsr_open(ctx, path, NULL, &a), TSR_OK);
	struct tsr_array_info in = {.struct_size = sizeof(in)};
	CHECK_EQ_INT(tsr_array_info(a, &in), TSR_OK);
	size_t need = (size_t)(in.shape[0] * in.shape[1]) * 4;
	float *buf = malloc(need);

	struct tsr_buffer nul = {NULL, need, TSR_MEM_HOST, NULL};
	CHECK_EQ_INT(tsr_read(a, NULL, &nul, NULL, NULL), TSR_E_TOO_SMALL);
	CHECK(strstr(tsr_errmsg(), "data is NULL") && strstr(tsr_errmsg(), "u_f32_primary.fits"));

	struct tsr_buffer odd = {buf, need, (enum tsr_mem)7, NULL};
	CHECK_EQ_INT(tsr_read(a, NULL, &odd, NULL, NULL), TSR_E_INVALID_ARG);
	CHECK(strstr(tsr_errmsg(), "destination memory 7") != NULL);

	struct tsr_buffer ok = {buf, need, TSR_MEM_HOST, NULL};
	struct tsr_read_options ro = {.struct_size = sizeof(ro), .nthreads = -1};
	CHECK_EQ_INT(tsr_read(a, NULL, &ok, &ro, NULL), TSR_E_INVALID_ARG);
	CHECK(strstr(tsr_errmsg(), "nthreads -1") != NULL);
	ro.nthreads = 0;
	CHECK_EQ_INT(tsr_read(a, NULL, &ok, &ro, NULL), TSR_OK);

	free(buf);
	tsr_array_free(a);
	tsr_context_free(ctx);
	CHECK_DONE();
}
