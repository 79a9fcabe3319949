/* test_device_refusal.c - CUDA device ordinals that do not exist, and device lists that are no lists, refused with messages naming them. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tessera.h"

static int has(const char *text)
{
	if (strstr(tsr_errmsg(), text))
		return 1;
	fprintf(stderr, "message lacks '%s': %s\n", text, tsr_errmsg());
	return 0;
}

int main(void)
{
	const char *corpus = getenv("TSR_CORPUS");
	char path[4096], want[64];
	snprintf(path, sizeof(path), "%s/zarr2/zstd_i32_3d.zarr", corpus ? corpus : "corpus");
	struct tsr_context *ctx = NULL;
	struct tsr_context_options co = {.struct_size = sizeof(co), .nthreads = 2};
	CHECK_EQ_INT(tsr_context_create(&co, &ctx), TSR_OK);
	struct tsr_array *a = NULL;
	if (tsr_open(ctx, path, NULL, &a) != TSR_OK) {
		fprintf(stderr, "cannot open %s: %s\n", path, tsr_errmsg());
		return 1;
	}
	/* The first ordinal that is not there: 0 on a machine without a GPU (or a build without
	 * CUDA), the device count on one with GPUs. */
	int ndev = 0;
	int cst = tsr_cuda_device_count(&ndev);
	CHECK(cst == TSR_OK ? ndev > 0 : ndev == 0);
	const int missing = ndev, negative = -2;
	int pair[2] = {missing, missing + 1};
	/* a destination the refused reads must never touch: host memory, named device memory */
	static unsigned char never[12 * 80 * 90 * 4];
	struct tsr_buffer dst = {never, sizeof(never), TSR_MEM_CUDA, NULL};
	struct tsr_read_options ro = {.struct_size = sizeof(ro), .devices = &missing, .ndevices = 1};
	snprintf(want, sizeof(want), "CUDA device %d", missing);

	/* one read on an ordinal that is not there */
	CHECK_EQ_INT(tsr_read(a, NULL, &dst, &ro, NULL), TSR_E_NO_DEVICE);
	CHECK(has(want));
	CHECK(has(path));
	const char *b1[1] = {path};
	CHECK_EQ_INT(tsr_read_batch(ctx, b1, 1, NULL, NULL, &dst, &ro, NULL), TSR_E_NO_DEVICE);
	CHECK(has(want));
	/* the count is named too, where there is a CUDA engine to count with */
	char count_text[64];
	snprintf(count_text, sizeof(count_text), "%d CUDA device", ndev);
	CHECK_EQ_INT(tsr_read_batch_devices(ctx, b1, 1, NULL, NULL, &dst, &ro, NULL),
		     TSR_E_NO_DEVICE);
	CHECK(has(want));
	CHECK(has(count_text));
	struct tsr_buffer dsts[2] = {dst, dst};
	struct tsr_read_options rp = ro;
	rp.devices = pair;
	rp.ndevices = 2;
	const char *b2[2] = {path, path};
	CHECK_EQ_INT(tsr_read_batch_devices(ctx, b2, 2, NULL, NULL, dsts, &rp, NULL),
		     TSR_E_NO_DEVICE);
	CHECK(has(want));
	CHECK_EQ_INT(tsr_read_devices(a, NULL, dsts, &rp, NULL), TSR_E_NO_DEVICE);
	CHECK(has(want));
	void *p = (void *)1;
	CHECK_EQ_INT(tsr_cuda_malloc_on(missing, 64, &p), TSR_E_NO_DEVICE);
	CHECK(p == NULL);
	CHECK(has(want));

	/* lists that are no lists: a negative ordinal, a count without a list, several devices
	 * for a call that reads on one */
	ro.devices = &negative;
	CHECK_EQ_INT(tsr_read(a, NULL, &dst, &ro, NULL), TSR_E_INVALID_ARG);
	CHECK(has("-2"));
	/* a caller built before the devices fields (its struct_size ends before them): what lies
	 * there is not read, so the -2 is not refused; the read goes on to find no device.
	 * (Where there is a GPU, that read would run: tests/gpu/test_gpu_devices.c has it.) */
	if (cst != TSR_OK) {
		ro.struct_size = offsetof(struct tsr_read_options, devices);
		CHECK_EQ_INT(tsr_read(a, NULL, &dst, &ro, NULL), TSR_E_NO_DEVICE);
		CHECK(!strstr(tsr_errmsg(), "-2"));
		ro.struct_size = sizeof(ro);
	}
	const int neg_pair[2] = {0, -1};
	rp.devices = neg_pair;
	CHECK_EQ_INT(tsr_read_batch_devices(ctx, b2, 2, NULL, NULL, dsts, &rp, NULL),
		     TSR_E_INVALID_ARG);
	CHECK(has("-1"));
	rp.devices = NULL;
	CHECK_EQ_INT(tsr_read_devices(a, NULL, dsts, &rp, NULL), TSR_E_INVALID_ARG);
	CHECK_EQ_INT(tsr_read(a, NULL, &dst, &rp, NULL), TSR_E_INVALID_ARG);
	rp.devices = pair;
	CHECK_EQ_INT(tsr_read(a, NULL, &dst, &rp, NULL), TSR_E_INVALID_ARG);
	CHECK(has("one CUDA device"));

	/* host reads ignore the devices (they run on the CPU), and give the same values */
	void *v0 = NULL, *v1 = NULL;
	size_t n0 = 0, n1 = 0;
	int d0, d1;
	int64_t s0[TSR_MAX_DIM], s1[TSR_MAX_DIM];
	ro.devices = &missing;
	CHECK_EQ_INT(tsr_read_alloc(a, NULL, NULL, &v0, &n0, &d0, s0, NULL), TSR_OK);
	CHECK_EQ_INT(tsr_read_alloc(a, NULL, &ro, &v1, &n1, &d1, s1, NULL), TSR_OK);
	CHECK(n0 == n1 && n0 && memcmp(v0, v1, n0) == 0);
	tsr_free(v0);
	tsr_free(v1);
	CHECK(memchr(never, 1, sizeof(never)) == NULL); /* no refused read wrote */
	tsr_array_free(a);
	tsr_context_free(ctx);
	CHECK_DONE();
}
