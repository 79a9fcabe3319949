/* b2w_arrays.h - a test's one-chunk int32 b2nd arrays (b2w_rows_i32) written to a fresh folder and opened in a context, then closed and removed. */
#ifndef TSR_B2W_ARRAYS_H
#define TSR_B2W_ARRAYS_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "tessera.h"
#include "test_blosc2_frame.h"

#define B2W_ARRAYS_MAX 4

struct b2w_arrays {
	int n;
	char dir[64], path[B2W_ARRAYS_MAX][512];
	int32_t *data[B2W_ARRAYS_MAX]; /* array k's values, rows[k] x cols */
	struct tsr_array *arr[B2W_ARRAYS_MAX];
};

/* n (at most B2W_ARRAYS_MAX) arrays of rows[k] x cols, array k's values b2w_rows_i32's k, in a
 * new folder /tmp/tsr_TAG_XXXXXX, each opened in ctx (NULL where it could not be). */
static inline void b2w_arrays_open(struct b2w_arrays *s, struct tsr_context *ctx, const char *tag,
				   int n, const int64_t *rows, int64_t cols)
{
	memset(s, 0, sizeof(*s));
	s->n = n;
	snprintf(s->dir, sizeof(s->dir), "/tmp/tsr_%s_XXXXXX", tag);
	CHECK(mkdtemp(s->dir) != NULL);
	for (int k = 0; k < n; k++) {
		snprintf(s->path[k], sizeof(s->path[k]), "%s/a%d.b2nd", s->dir, k);
		s->data[k] = b2w_rows_i32(s->path[k], rows[k], cols, k);
		CHECK(s->data[k] != NULL);
		if (s->data[k])
			CHECK_EQ_INT(tsr_open(ctx, s->path[k], NULL, &s->arr[k]), TSR_OK);
	}
}

/* The arrays closed, their files and folder removed. */
static inline void b2w_arrays_close(struct b2w_arrays *s)
{
	for (int k = 0; k < s->n; k++) {
		tsr_array_free(s->arr[k]);
		unlink(s->path[k]);
		free(s->data[k]);
	}
	rmdir(s->dir);
}

#endif
