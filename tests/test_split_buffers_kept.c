/* test_split_buffers_kept.c - a context keeps split chunks' buffers from read to read: reads that alternate between arrays of one chunk (the same shape, other values; then a larger chunk) each equal their own data, into a reused buffer and a fresh one. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "tessera.h"
#include "test_blosc2_frame.h"

#define NARRAYS 3

/* Reads a whole (and rows [lo, hi)) and compares with want (rows x cols int32). */
static void check_read(struct tsr_array *a, const int32_t *want, int64_t rows, int64_t cols,
		       const char *name, int round)
{
	size_t nbytes = (size_t)(rows * cols) * 4;
	int32_t *got = malloc(nbytes);
	memset(got, 0xA5, nbytes);
	struct tsr_buffer dst = {got, nbytes, TSR_MEM_HOST, NULL};
	struct tsr_receipt r = {.struct_size = sizeof(r)};
	CHECK_EQ_INT(tsr_read(a, NULL, &dst, NULL, &r), TSR_OK);
	if (memcmp(got, want, nbytes)) {
		fprintf(stderr, "%s, round %d: the whole read differs\n", name, round);
		check_failures++;
	}
	/* one chunk read by more than one thread: its blocks were split */
	CHECK(r.nthreads >= 2);
	/* most rows (a task needing more than half its chunk splits), and a fresh buffer */
	struct tsr_selection sel;
	char spec[64];
	snprintf(spec, sizeof(spec), "%lld:%lld", (long long)(rows / 8), (long long)(rows - 3));
	CHECK_EQ_INT(tsr_selection_parse(spec, &sel), TSR_OK);
	void *part = NULL;
	size_t pn = 0;
	int nd;
	int64_t shape[TSR_MAX_DIM];
	CHECK_EQ_INT(tsr_read_alloc(a, &sel, NULL, &part, &pn, &nd, shape, NULL), TSR_OK);
	size_t off = (size_t)(rows / 8 * cols) * 4;
	if (pn != (size_t)((rows - 3 - rows / 8) * cols) * 4 || !part ||
	    memcmp(part, (const char *)want + off, pn)) {
		fprintf(stderr, "%s, round %d: rows %s differ\n", name, round, spec);
		check_failures++;
	}
	tsr_free(part);
	free(got);
}

int main(void)
{
	char dir[] = "/tmp/tsr_splitkept_XXXXXX", path[NARRAYS][512];
	CHECK(mkdtemp(dir) != NULL);
	struct tsr_context_options co = {sizeof(co), 4};
	struct tsr_context *ctx;
	CHECK_EQ_INT(tsr_context_create(&co, &ctx), TSR_OK);
	/* two arrays of one shape, values (and so stored sizes and block offsets) unlike, and one
	 * of twice the rows: each one chunk of whole-row blocks, a few shares' worth */
	const int64_t C = 480, rows[NARRAYS] = {640, 640, 1280};
	int32_t *data[NARRAYS];
	struct tsr_array *arr[NARRAYS];
	for (int k = 0; k < NARRAYS; k++) {
		snprintf(path[k], sizeof(path[k]), "%s/a%d.b2nd", dir, k);
		data[k] = b2w_rows_i32(path[k], rows[k], C, k);
		CHECK(data[k] != NULL);
		arr[k] = NULL;
		if (data[k])
			CHECK_EQ_INT(tsr_open(ctx, path[k], NULL, &arr[k]), TSR_OK);
	}
	/* the order: A B A (the same size), C (larger), A (a kept buffer larger than it needs) */
	static const int order[] = {0, 1, 0, 1, 2, 0, 2, 1};
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		int k = order[i];
		if (arr[k])
			check_read(arr[k], data[k], rows[k], C, path[k], (int)i);
	}
	for (int k = 0; k < NARRAYS; k++) {
		tsr_array_free(arr[k]);
		unlink(path[k]);
		free(data[k]);
	}
	tsr_context_free(ctx);
	rmdir(dir);
	CHECK_DONE();
}
