/* test_raw_chunk_box.c - boxes of large uncompressed Zarr chunks read only the span from the box's
 * first element to its last (the receipt's bytes_read), and every box equals the values written;
 * here under ASan too, so the span's bounds are checked where Python's tests cannot. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "tessera.h"

#define R 700
#define C 600 /* one chunk of 512 x 512 int32 (1 MiB) and edge chunks */

static int32_t vals[R][C];

static void write_store(const char *dir)
{
	char meta[512];
	snprintf(meta, sizeof(meta),
		 "{\"zarr_format\": 2, \"shape\": [%d, %d], \"chunks\": [512, 512], \"dtype\": "
		 "\"<i4\", \"compressor\": null, \"fill_value\": 0, \"order\": \"C\", "
		 "\"filters\": null}", R, C);
	check_put_file(dir, ".zarray", meta);
	static int32_t chunk[512][512];
	for (int ci = 0; ci < 2; ci++) {
		for (int cj = 0; cj < 2; cj++) {
			memset(chunk, 0, sizeof(chunk));
			for (int i = 0; i < 512 && ci * 512 + i < R; i++)
				for (int j = 0; j < 512 && cj * 512 + j < C; j++)
					chunk[i][j] = vals[ci * 512 + i][cj * 512 + j];
			char p[256];
			snprintf(p, sizeof(p), "%s/%d.%d", dir, ci, cj);
			FILE *f = fopen(p, "wb");
			CHECK(f != NULL);
			if (f) {
				fwrite(chunk, 1, sizeof(chunk), f);
				fclose(f);
			}
		}
	}
}

/* Reads rows [r0, r1) and columns [c0, c1); checks the values; returns bytes_read. */
static uint64_t box(struct tsr_array *a, int r0, int r1, int c0, int c1)
{
	char spec[64];
	snprintf(spec, sizeof(spec), "%d:%d,%d:%d", r0, r1, c0, c1);
	struct tsr_selection sel;
	CHECK_EQ_INT(tsr_selection_parse(spec, &sel), TSR_OK);
	static int32_t got[R * C];
	struct tsr_buffer b = {.data = got, .nbytes = sizeof(got)};
	struct tsr_receipt r = {.struct_size = sizeof(r)};
	CHECK_EQ_INT(tsr_read(a, &sel, &b, NULL, &r), TSR_OK);
	int bad = 0;
	for (int i = r0; i < r1; i++)
		for (int j = c0; j < c1; j++)
			bad += got[(i - r0) * (c1 - c0) + (j - c0)] != vals[i][j];
	if (bad)
		fprintf(stderr, "%s: %d values differ\n", spec, bad);
	CHECK_EQ_INT(bad, 0);
	return r.bytes_read;
}

int main(void)
{
	char dir[64];
	snprintf(dir, sizeof(dir), "/tmp/tsr_rawbox_%d.zarr", (int)getpid());
	for (int i = 0; i < R; i++)
		for (int j = 0; j < C; j++)
			vals[i][j] = i * 1000 + j;
	write_store(dir);
	struct tsr_context *ctx;
	struct tsr_context_options co = {sizeof(co), 1};
	CHECK_EQ_INT(tsr_context_create(&co, &ctx), TSR_OK);
	struct tsr_array *a = NULL;
	CHECK_EQ_INT(tsr_open(ctx, dir, NULL, &a), TSR_OK);
	if (a) {
		CHECK_EQ_INT(box(a, 7, 8, 9, 10), 4);             /* one element: its 4 bytes */
		CHECK_EQ_INT(box(a, 511, 512, 511, 512), 4);      /* the chunk's last element */
		CHECK_EQ_INT(box(a, 0, 1, 0, 512), 512 * 4);      /* its first row */
		CHECK_EQ_INT(box(a, 100, 103, 10, 20), (2 * 512 + 10) * 4); /* rows 100-102's span */
		CHECK_EQ_INT(box(a, 0, 512, 3, 4), 512 * 512 * 4); /* a column: the chunk whole */
		box(a, 500, 520, 505, 530);                       /* across four chunks */
		box(a, 0, R, 0, C);                               /* everything */
		tsr_array_free(a);
	}
	tsr_context_free(ctx);
	char p[256];
	for (int ci = 0; ci < 2; ci++)
		for (int cj = 0; cj < 2; cj++) {
			snprintf(p, sizeof(p), "%s/%d.%d", dir, ci, cj);
			remove(p);
		}
	snprintf(p, sizeof(p), "%s/.zarray", dir);
	remove(p);
	rmdir(dir);
	CHECK_DONE();
}
