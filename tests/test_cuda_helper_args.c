/* test_cuda_helper_args.c - the public CUDA helpers refuse NULL result pointers (TSR_E_INVALID_ARG, a message naming the call) with or without a GPU or CUDA build. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "tessera.h"

static int names(const char *call)
{
	if (strstr(tsr_errmsg(), call))
		return 1;
	fprintf(stderr, "message lacks '%s': %s\n", call, tsr_errmsg());
	return 0;
}

int main(void)
{
	CHECK_EQ_INT(tsr_cuda_device_count(NULL), TSR_E_INVALID_ARG);
	CHECK(names("tsr_cuda_device_count"));
	CHECK_EQ_INT(tsr_cuda_malloc(16, NULL), TSR_E_INVALID_ARG);
	CHECK(names("tsr_cuda_malloc"));
	CHECK_EQ_INT(tsr_cuda_malloc_on(0, 16, NULL), TSR_E_INVALID_ARG);
	CHECK(names("tsr_cuda_malloc_on"));

	/* With a result pointer the calls still answer: a count (or no device) and, without a
	 * device, a NULL pointer. */
	int n = -1;
	int st = tsr_cuda_device_count(&n);
	CHECK(st == TSR_OK ? n > 0 : st == TSR_E_NO_DEVICE && n == 0);
	void *p = (void *)&n;
	st = tsr_cuda_malloc(16, &p);
	if (st == TSR_OK)
		tsr_cuda_free(p);
	else
		CHECK(p == NULL);
	CHECK_DONE();
}
