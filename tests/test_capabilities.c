/* test_capabilities.c - tsr_capabilities: the GPU decoder families this build has, its devices and cuFile, and the struct_size contract. */
#include <string.h>

#include "check.h"
#include "tessera.h"

int main(void)
{
	struct tsr_capabilities c;
	memset(&c, 0x5a, sizeof c);
	c.struct_size = sizeof c;
	CHECK_EQ_INT(tsr_capabilities(&c), TSR_OK);
	CHECK(c.cuda_devices >= 0);
	CHECK(c.cufile_usable == 0 || c.cufile_usable == 1);
	CHECK(memchr(c.gpu_decoders, 0, sizeof c.gpu_decoders) != NULL);
	CHECK(memchr(c.cufile_why, 0, sizeof c.cufile_why) != NULL);
#ifdef TSR_WITH_CUDA
	/* every family a kernel file registers, in the route's order */
	CHECK_EQ_INT(c.cuda_built, 1);
	CHECK(strcmp(c.gpu_decoders, "inflate,lz4,blosclz,rice,zstd") == 0);
	int n = -1;
	tsr_cuda_device_count(&n);
	CHECK_EQ_INT(c.cuda_devices, n);
#else
	CHECK_EQ_INT(c.cuda_built, 0);
	CHECK(c.gpu_decoders[0] == 0);
	CHECK_EQ_INT(c.cuda_devices, 0);
#endif
	/* NULL, and a struct_size below the first published one */
	CHECK_EQ_INT(tsr_capabilities(NULL), TSR_E_INVALID_ARG);
	struct tsr_capabilities small = {.struct_size = sizeof(size_t)};
	CHECK_EQ_INT(tsr_capabilities(&small), TSR_E_INVALID_ARG);
	CHECK(strstr(tsr_errmsg(), "struct_size") != NULL);
	CHECK_DONE();
}
