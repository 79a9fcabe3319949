/* test_gpu_trim.c - tsr_context_trim gives a context's device memory back between CUDA reads (its staging ring, the feed's bounce buffers, the decoders' scratch), and the read after it equals the first: a b2nd array of LZ4 chunks read into device memory, the device's free memory after the trim at least a slot's 16 MiB above what it was before it. */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tessera.h"
#include "../check.h"
#include "../test_blosc2_frame.h"

/* A failure with the library's message: what failed, and why. */
static void fail(const char *what)
{
	fprintf(stderr, "FAIL: %s: %s\n", what, tsr_errmsg());
	check_failures++;
}

enum { ROWS = 2048, COLS = 4096 };

/* Reads a into dev and compares with want (nbytes); names the read (what) on failure. */
static void device_read(struct tsr_array *a, void *dev, const void *want, size_t nbytes,
			const char *what)
{
	struct tsr_buffer dst = {dev, nbytes, TSR_MEM_CUDA, NULL};
	if (tsr_read(a, NULL, &dst, NULL, NULL) != TSR_OK) {
		fail(what);
		return;
	}
	void *got = check_malloc(nbytes);
	if (tsr_cuda_memcpy_to_host(got, dev, nbytes) != TSR_OK)
		fail(what);
	else if (memcmp(got, want, nbytes)) {
		fprintf(stderr, "FAIL: %s: the device's bytes differ from the host read\n", what);
		check_failures++;
	}
	free(got);
}

static size_t device_free(void)
{
	size_t fr = 0, total = 0;
	cudaDeviceSynchronize();
	CHECK(cudaMemGetInfo(&fr, &total) == cudaSuccess);
	return fr;
}

int main(void)
{
	int ndev = 0;
	if (tsr_cuda_device_count(&ndev) != TSR_OK || ndev < 1) {
		printf("test_gpu_trim: no CUDA device, skipped\n");
		return 0;
	}
	const size_t nbytes = (size_t)ROWS * COLS * 4;
	int32_t *data = check_malloc(nbytes), *host = check_malloc(nbytes);
	for (size_t i = 0; i < (size_t)ROWS * COLS; i++) /* compressible, not constant */
		data[i] = (int32_t)((i / 13) % 5000 + ((i * 2654435761u) >> 29));
	char path[64];
	snprintf(path, sizeof(path), "/tmp/tsr_gpu_trim_%d.b2nd", (int)getpid());
	struct b2w_array b = {.ndim = 2, .shape = {ROWS, COLS}, .chunks = {256, COLS},
			      .blocks = {16, COLS}, .typesize = 4, .dtype = "<i4", .data = data};
	if (b2w_write(path, &b)) {
		fprintf(stderr, "FAIL: writing %s\n", path);
		return 1;
	}
	struct tsr_context *ctx = NULL;
	struct tsr_array *a = NULL;
	void *dev = NULL;
	if (tsr_context_create(NULL, &ctx) || tsr_open(ctx, path, NULL, &a) ||
	    tsr_cuda_malloc(nbytes, &dev)) {
		fail("setup");
		return 1;
	}
	struct tsr_buffer hb = {host, nbytes, TSR_MEM_HOST, NULL};
	CHECK_EQ_INT(tsr_read(a, NULL, &hb, NULL, NULL), TSR_OK);
	CHECK(memcmp(host, data, nbytes) == 0);
	device_read(a, dev, host, nbytes, "the first device read");
	size_t before = device_free();
	CHECK_EQ_INT(tsr_context_trim(ctx), TSR_OK);
	size_t after = device_free();
	/* a slot's device staging alone is at least 16 MiB (its sizes go in 16 MiB steps) */
	if (after < before + ((size_t)16 << 20)) {
		fprintf(stderr, "FAIL: free device memory %zu -> %zu MiB after the trim: less than "
			"a slot's 16 MiB given back\n", before >> 20, after >> 20);
		check_failures++;
	}
	device_read(a, dev, host, nbytes, "the device read after the trim");
	device_read(a, dev, host, nbytes, "the second device read after the trim");
	CHECK_EQ_INT(tsr_context_trim(ctx), TSR_OK);
	printf("test_gpu_trim: free device memory %zu -> %zu MiB across the trim\n", before >> 20,
	       after >> 20);
	tsr_cuda_free(dev);
	tsr_array_free(a);
	tsr_context_free(ctx);
	unlink(path);
	free(data);
	free(host);
	CHECK_DONE();
}
