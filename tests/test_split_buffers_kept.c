/* test_split_buffers_kept.c - a context keeps split chunks' buffers from read to read: reads that alternate between arrays of one chunk (the same shape, other values; then a larger chunk) each equal their own data, into a reused buffer and a fresh one. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "b2w_arrays.h"
#include "tessera.h"

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
	struct tsr_context_options co = {sizeof(co), 4};
	struct tsr_context *ctx;
	CHECK_EQ_INT(tsr_context_create(&co, &ctx), TSR_OK);
	/* two arrays of one shape, values (and so stored sizes and block offsets) unlike, and one
	 * of twice the rows: each one chunk of whole-row blocks, a few shares' worth */
	const int64_t C = 480, rows[NARRAYS] = {640, 640, 1280};
	struct b2w_arrays A;
	b2w_arrays_open(&A, ctx, "splitkept", NARRAYS, rows, C);
	/* the order: A B A (the same size), C (larger), A (a kept buffer larger than it needs) */
	static const int order[] = {0, 1, 0, 1, 2, 0, 2, 1};
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		int k = order[i];
		if (A.arr[k])
			check_read(A.arr[k], A.data[k], rows[k], C, A.path[k], (int)i);
	}
	b2w_arrays_close(&A);
	tsr_context_free(ctx);
	CHECK_DONE();
}
