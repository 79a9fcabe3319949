/* test_read_slabs.c - tsr_read_slabs: an array read's slabs for several devices cut at chunk boundaries and tile the result. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tessera.h"

/* zstd_i32_3d.zarr: shape (12, 80, 90), chunks (5, 32, 40). */
static const int64_t k_chunk[3] = {5, 32, 40};

struct slab_case {
	const char *spec;
	int item;       /* the selection item of the first axis it keeps */
	int axis;       /* that array axis */
	int out_axis;   /* its axis in the result */
};

static const struct slab_case k_cases[] = {
	{"", -1, 0, 0},                 /* everything: cut along axis 0 */
	{"1:12", 0, 0, 0},
	{"::-1", 0, 0, 0},
	{"10:0:-3", 0, 0, 0},
	{"3, 10:70:3", 1, 1, 0},        /* axis 0 indexed away: cut along axis 1 */
	{"None, 2:11, 5", 1, 0, 1},     /* a None axis in front */
	{"..., 4:80:7, 1:3", -1, 0, 0},
	{"4:5", 0, 0, 0},               /* one row: one slab has it */
	{"7:7", 0, 0, 0},               /* no rows */
};

/* The array index of result row k along the case's axis. */
static int64_t index_of(int64_t start, int64_t step, int64_t k)
{
	return start + k * step;
}

int main(void)
{
	const char *corpus = getenv("TSR_CORPUS");
	char path[4096];
	snprintf(path, sizeof(path), "%s/zarr2/zstd_i32_3d.zarr", corpus ? corpus : "corpus");
	struct tsr_context *ctx = NULL;
	struct tsr_context_options co = {.struct_size = sizeof(co), .nthreads = 2};
	CHECK_EQ_INT(tsr_context_create(&co, &ctx), TSR_OK);
	struct tsr_array *a = NULL;
	if (tsr_open(ctx, path, NULL, &a) != TSR_OK) {
		fprintf(stderr, "cannot open %s: %s\n", path, tsr_errmsg());
		return 1;
	}
	for (size_t ci = 0; ci < sizeof(k_cases) / sizeof(k_cases[0]); ci++) {
		const struct slab_case *c = &k_cases[ci];
		struct tsr_selection sel;
		CHECK_EQ_INT(tsr_selection_parse(c->spec, &sel), TSR_OK);
		int ndim;
		int64_t shape[TSR_MAX_DIM];
		CHECK_EQ_INT(tsr_selection_shape(a, &sel, &ndim, shape), TSR_OK);
		void *whole = NULL;
		size_t whole_n = 0;
		int wd;
		int64_t ws[TSR_MAX_DIM];
		CHECK_EQ_INT(tsr_read_alloc(a, &sel, NULL, &whole, &whole_n, &wd, ws, NULL), TSR_OK);
		/* the item's start and step as NumPy would normalise them (the cases name them) */
		int64_t rows = shape[c->out_axis], start = 0, step = 1;
		if (c->item >= 0) {
			const struct tsr_sel_item *it = &sel.items[c->item];
			step = it->has_step ? it->step : 1;
			start = it->has_start ? it->start : step > 0 ? 0 : 11;
		}
		for (int parts = 1; parts <= 4; parts++) {
			int axis = -9;
			int64_t first[4], count[4];
			CHECK_EQ_INT(tsr_read_slabs(a, &sel, parts, &axis, first, count), TSR_OK);
			CHECK_EQ_INT(axis, c->out_axis);
			/* slabs follow each other and cover the rows */
			int64_t next = 0;
			for (int j = 0; j < parts; j++) {
				CHECK_EQ_INT(first[j], next);
				CHECK(count[j] >= 0);
				next = first[j] + count[j];
			}
			CHECK_EQ_INT(next, rows);
			/* every cut lies between two chunks: the rows on its sides are in different
			 * chunks, so no chunk is decoded by two devices */
			for (int j = 1; j < parts; j++) {
				int64_t k = first[j];
				if (k <= 0 || k >= rows)
					continue;
				int64_t cb = k_chunk[c->axis];
				CHECK(index_of(start, step, k) / cb != index_of(start, step, k - 1) / cb);
			}
			/* the slabs, read one by one on the host, put side by side are the read */
			size_t got = 0;
			size_t row_bytes = rows ? whole_n / (size_t)rows : 0;
			unsigned char *cat = malloc(whole_n ? whole_n : 1);
			for (int j = 0; j < parts && cat; j++) {
				if (!count[j])
					continue;
				struct tsr_selection s2 = sel;
				if (c->item < 0) {
					/* the whole axis: an explicit slice item in its place */
					struct tsr_sel_item full = {.kind = TSR_SEL_SLICE};
					if (ci == 0) {
						s2.nitems = 1;
						s2.items[0] = full;
					} else {
						/* "..., a, b": the ellipsis stands for axis 0 */
						s2.items[0] = full;
						memmove(&s2.items[1], &sel.items[0],
							(size_t)sel.nitems * sizeof(sel.items[0]));
						s2.nitems = sel.nitems + 1;
					}
				}
				int item = c->item >= 0 ? c->item : 0;
				struct tsr_sel_item *it = &s2.items[item];
				int64_t a0 = start + first[j] * step, a1 = start + (first[j] + count[j]) * step;
				it->kind = TSR_SEL_SLICE;
				it->start = a0, it->has_start = 1;
				it->step = step, it->has_step = 1;
				it->stop = a1, it->has_stop = a1 >= 0;
				void *part = NULL;
				size_t pn = 0;
				int pd;
				int64_t ps[TSR_MAX_DIM];
				CHECK_EQ_INT(tsr_read_alloc(a, &s2, NULL, &part, &pn, &pd, ps, NULL), TSR_OK);
				CHECK_EQ_INT(pn, (size_t)count[j] * row_bytes);
				if (part && got + pn <= whole_n)
					memcpy(cat + got, part, pn);
				got += pn;
				tsr_free(part);
			}
			CHECK_EQ_INT(got, whole_n);
			if (cat && got == whole_n && memcmp(cat, whole, whole_n) != 0) {
				fprintf(stderr, "case '%s', %d parts: the slabs differ from the read\n",
					c->spec, parts);
				check_failures++;
			}
			free(cat);
		}
		tsr_free(whole);
	}
	/* the chunk counts of the slabs of the whole of axis 0 (3 chunks): as even as can be */
	int axis;
	int64_t first[4], count[4];
	CHECK_EQ_INT(tsr_read_slabs(a, NULL, 2, &axis, first, count), TSR_OK);
	CHECK_EQ_INT(count[0], 5);
	CHECK_EQ_INT(count[1], 7);
	CHECK_EQ_INT(tsr_read_slabs(a, NULL, 3, &axis, first, count), TSR_OK);
	CHECK(count[0] == 5 && count[1] == 5 && count[2] == 2);
	/* a result with no axis to cut: slab 0 has it all */
	struct tsr_selection pt;
	CHECK_EQ_INT(tsr_selection_parse("3, 4, 5", &pt), TSR_OK);
	CHECK_EQ_INT(tsr_read_slabs(a, &pt, 2, &axis, first, count), TSR_OK);
	CHECK_EQ_INT(axis, -1);
	CHECK(count[0] == 1 && count[1] == 0);
	CHECK_EQ_INT(tsr_read_slabs(a, NULL, 0, &axis, first, count), TSR_E_INVALID_ARG);
	tsr_array_free(a);
	tsr_context_free(ctx);
	CHECK_DONE();
}
