/* test_not_found.c - a path that does not exist is TSR_E_NOT_FOUND from every call that takes a path, with the path in the message. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "tessera.h"

int main(void)
{
	const char *path = "/nonexistent/tessera/no_such_store.zarr";
	struct tsr_context *ctx = NULL;
	CHECK_EQ_INT(tsr_context_create(NULL, &ctx), TSR_OK);
	struct tsr_array *a = NULL;
	CHECK_EQ_INT(tsr_open(ctx, path, NULL, &a), TSR_E_NOT_FOUND);
	CHECK(strstr(tsr_errmsg(), path) != NULL);
	struct tsr_listing *l = NULL;
	CHECK_EQ_INT(tsr_list(path, &l), TSR_E_NOT_FOUND);
	CHECK(strstr(tsr_errmsg(), path) != NULL);
	char **names = NULL;
	size_t count = 7;
	CHECK_EQ_INT(tsr_list_arrays(path, &names, &count), TSR_E_NOT_FOUND);
	CHECK(strstr(tsr_errmsg(), path) != NULL);
	CHECK(names == NULL && count == 0);
	tsr_context_free(ctx);
	CHECK_DONE();
}
