/* test_selection_index.c - advanced selections (tsr_index): result shapes and errors as NumPy
 * gives them (answers taken from NumPy 1.24 and 2.4), the points a key selects, the builder
 * API's argument checks, and the planner: one task per chunk the points touch, each point in
 * exactly one task and inside its chunk. test_selection_advanced.py compares values. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "plan/plan.h"
#include "core/selection.h"

struct shape_case {
	int mode;
	int ndim;
	int64_t shape[4];
	const char *spec;
	int status;
	int out_ndim;
	int64_t out_shape[4];
};

static const struct shape_case cases[] = {
	/* advanced items separated by a slice, an ellipsis or None go to the front */
	{0, 4, {2, 3, 4, 5}, "[0],...,[0]", 0, 3, {1, 3, 4}},
	{0, 4, {2, 3, 4, 5}, "[0],:,:,[0]", 0, 3, {1, 3, 4}},
	{0, 4, {2, 3, 4, 5}, ":,[0],None,[0]", 0, 4, {1, 2, 1, 5}},
	{0, 4, {2, 3, 4, 5}, ":,[0],...,[0]", 0, 3, {1, 2, 4}},
	{0, 3, {3, 4, 5}, ":,[0],...,[0]", 0, 2, {1, 3}},
	{0, 4, {2, 3, 4, 5}, "0,:,[1,2]", 0, 3, {2, 3, 5}},
	{0, 4, {2, 3, 4, 5}, ":,0,:,[1,2]", 0, 3, {2, 2, 4}},
	/* adjacent ones (integers among them) stay in place */
	{0, 4, {2, 3, 4, 5}, ":,[0],[0],...", 0, 3, {2, 1, 5}},
	{0, 4, {2, 3, 4, 5}, ":,0,[1,2]", 0, 3, {2, 2, 5}},
	{0, 3, {3, 4, 5}, "...,[0,1]", 0, 3, {3, 4, 2}},
	{0, 3, {3, 4, 5}, "[0,1],...", 0, 3, {2, 4, 5}},
	{0, 3, {3, 4, 5}, ":,[[0,1]],...,[0]", 0, 3, {1, 2, 3}},
	{0, 3, {3, 4, 5}, "[[0],[1]],:,[2,3,4]", 0, 3, {2, 3, 4}},
	{0, 2, {3, 4}, "[[True,False,True,False],[True,False,True,False],[True,False,True,False]]",
	 0, 1, {6}},
	{0, 2, {3, 4}, "[True,False,True],1:3", 0, 2, {2, 2}},
	{0, 2, {3, 4}, "[],:", 0, 2, {0, 4}},
	{0, 2, {3, 4}, "[-3,-1],[-4]", 0, 1, {2}},
	{0, 2, {3, 4}, "[],[10]", 0, 1, {0}}, /* an empty broadcast uses no index */
	{0, 2, {3, 4}, "[False,False,False],[9]", 0, 1, {0}},
	/* NumPy's IndexErrors (an integer is checked even where the broadcast is empty) */
	{0, 2, {3, 4}, "[],10", TSR_E_RANGE, 0, {0}},
	{0, 2, {3, 4}, "[5],[0,1,2]", TSR_E_RANGE, 0, {0}},
	{0, 2, {3, 4}, "[-4]", TSR_E_RANGE, 0, {0}},
	{0, 2, {3, 4}, "[0,1],[0,1,2]", TSR_E_SELECTION, 0, {0}},
	{0, 2, {3, 4}, "[True,False]", TSR_E_SELECTION, 0, {0}},
	{0, 2, {3, 4}, "[0],[0],[0]", TSR_E_SELECTION, 0, {0}},
	{0, 2, {3, 4}, "[0],...,...", TSR_E_SELECTION, 0, {0}},
	/* orthogonal: each list along its own axis */
	{1, 2, {3, 4}, "[2,0],[1,1,3]", 0, 2, {2, 3}},
	{1, 2, {3, 4}, "[True,False,True],1", 0, 1, {2}},
	{1, 3, {3, 4, 5}, "[0,2],...,[4,0,1]", 0, 3, {2, 4, 3}},
	{1, 2, {3, 4}, "[[0,1]],:", TSR_E_SELECTION, 0, {0}},
	{1, 2, {3, 4}, "[0,3],:", TSR_E_RANGE, 0, {0}},
};

static void test_shapes(void)
{
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct shape_case *k = &cases[c];
		struct tsr_index *ix = NULL;
		struct tsr_norm_sel ns;
		int st = tsr_index_parse(k->spec, k->mode, &ix);
		if (st == TSR_OK)
			st = tsr_index_normalize(ix, k->ndim, k->shape, &ns);
		if (st != k->status)
			fprintf(stderr, "case %zu \"%s\": %s\n", c, k->spec, tsr_errmsg());
		CHECK_EQ_INT(st, k->status);
		if (st == TSR_OK && k->status == TSR_OK) {
			CHECK_EQ_INT(ns.out_ndim, k->out_ndim);
			int64_t n = 1;
			for (int d = 0; d < k->out_ndim && d < ns.out_ndim; d++) {
				CHECK_EQ_INT(ns.out_shape[d], k->out_shape[d]);
				n *= k->out_shape[d];
			}
			CHECK_EQ_INT(ns.out_count, n);
			tsr_norm_sel_free(&ns);
		}
		tsr_index_free(ix);
	}
}

/* The points, their order and the output stride of a vectorised key. */
static void test_points(void)
{
	struct tsr_index *ix;
	struct tsr_norm_sel ns;
	int64_t shape[3] = {3, 4, 5};
	CHECK_EQ_INT(tsr_index_parse("[[2,0]], :, [1,-1]", TSR_INDEX_NUMPY, &ix), TSR_OK);
	CHECK_EQ_INT(tsr_index_normalize(ix, 3, shape, &ns), TSR_OK);
	CHECK_EQ_INT(ns.ngroups, 1);
	CHECK_EQ_INT(ns.out_ndim, 3); /* (1, 2) broadcast, at the front, then axis 1 */
	CHECK_EQ_INT(ns.out_shape[0], 1);
	CHECK_EQ_INT(ns.out_shape[1], 2);
	CHECK_EQ_INT(ns.out_shape[2], 4);
	const struct tsr_sel_group *g = &ns.groups[0];
	CHECK_EQ_INT(g->naxes, 2);
	CHECK_EQ_INT(g->axes[0], 0);
	CHECK_EQ_INT(g->axes[1], 2);
	CHECK_EQ_INT(g->npts, 2);
	CHECK(g->coords[0] == 2 && g->coords[1] == 1 && g->coords[2] == 0 && g->coords[3] == 4);
	CHECK_EQ_INT(g->out_stride, 4);
	CHECK_EQ_INT(ns.axis_stride[1], 1);
	CHECK_EQ_INT(ns.group_of[0], 1);
	CHECK_EQ_INT(ns.group_of[1], 0);
	tsr_norm_sel_free(&ns);
	tsr_index_free(ix);

	/* the builder: a 0-d array is an advanced integer; masks name their points in C order */
	CHECK_EQ_INT(tsr_index_create(TSR_INDEX_NUMPY, &ix), TSR_OK);
	int64_t v = -1, mshape[2] = {3, 4};
	unsigned char mask[12] = {0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1};
	CHECK_EQ_INT(tsr_index_add_array(ix, 0, NULL, &v), TSR_OK);
	CHECK_EQ_INT(tsr_index_add_mask(ix, 2, mshape, mask), TSR_OK);
	CHECK_EQ_INT(tsr_index_normalize(ix, 3, (int64_t[]){2, 3, 4}, &ns), TSR_OK);
	CHECK_EQ_INT(ns.out_ndim, 1);
	CHECK_EQ_INT(ns.out_shape[0], 3);
	g = &ns.groups[0];
	CHECK_EQ_INT(g->naxes, 3);
	const int64_t want[9] = {1, 0, 1, 1, 2, 0, 1, 2, 3};
	for (int i = 0; i < 9; i++)
		CHECK_EQ_INT(g->coords[i], want[i]);
	tsr_norm_sel_free(&ns);
	tsr_index_free(ix);
}

static void test_api_errors(void)
{
	struct tsr_index *ix = NULL;
	CHECK_EQ_INT(tsr_index_create(7, &ix), TSR_E_INVALID_ARG);
	CHECK(ix == NULL);
	CHECK_EQ_INT(tsr_index_create(TSR_INDEX_ORTHOGONAL, &ix), TSR_OK);
	int64_t shape[1] = {3};
	CHECK_EQ_INT(tsr_index_add_mask(ix, 0, shape, (const unsigned char *)"a"), TSR_E_INVALID_ARG);
	CHECK_EQ_INT(tsr_index_add_array(ix, 1, (int64_t[]){-1}, NULL), TSR_E_INVALID_ARG);
	CHECK_EQ_INT(tsr_index_add_array(ix, 1, shape, NULL), TSR_E_INVALID_ARG);
	struct tsr_sel_item arr = {.kind = TSR_SEL_ARRAY};
	CHECK_EQ_INT(tsr_index_add_item(ix, &arr), TSR_E_INVALID_ARG);
	struct tsr_sel_item none = {.kind = TSR_SEL_NEWAXIS};
	for (int i = 0; i < 2 * TSR_MAX_DIM; i++)
		CHECK_EQ_INT(tsr_index_add_item(ix, &none), TSR_OK);
	CHECK_EQ_INT(tsr_index_add_item(ix, &none), TSR_E_SELECTION);
	tsr_index_free(ix);
	tsr_index_free(NULL);
	/* parse errors */
	const char *bad[] = {"[1,[2]]", "[[1],2]", "[[1,2],[3]]", "[1,True]", "[1,", "[1 2]",
			     "[99999999999999999999]", "[1],,2", "[1]x"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ix = NULL;
		int st = tsr_index_parse(bad[i], TSR_INDEX_NUMPY, &ix);
		if (st != TSR_E_SELECTION)
			fprintf(stderr, "\"%s\": %d %s\n", bad[i], st, tsr_errmsg());
		CHECK_EQ_INT(st, TSR_E_SELECTION);
		CHECK(ix == NULL);
	}
	/* arrays are not for the basic selection */
	struct tsr_selection sel = {1, {{.kind = TSR_SEL_ARRAY}}};
	struct tsr_norm_sel ns;
	CHECK_EQ_INT(tsr_selection_normalize(&sel, 1, shape, &ns), TSR_E_INVALID_ARG);
}

/* 2000 random points of a 100 x 90 array in 10 x 7 chunks: one task per chunk touched, each
 * point in one task and inside its chunk, the basic axis's k range whole. */
static void test_plan(void)
{
	struct tsr_desc desc;
	memset(&desc, 0, sizeof(desc));
	desc.ndim = 3;
	int64_t shape[3] = {100, 4, 90}, cs[3] = {10, 3, 7};
	for (int d = 0; d < 3; d++) {
		desc.shape[d] = shape[d];
		desc.chunk_shape[d] = cs[d];
		desc.grid[d] = (shape[d] + cs[d] - 1) / cs[d];
	}
	enum { N = 2000 };
	static int64_t ys[N], xs[N];
	unsigned seed = 12345;
	for (int i = 0; i < N; i++) {
		seed = seed * 1103515245u + 12345u;
		ys[i] = (seed >> 8) % 100;
		seed = seed * 1103515245u + 12345u;
		xs[i] = (int64_t)((seed >> 8) % 90) - 90; /* negative: from the end */
	}
	struct tsr_index *ix;
	CHECK_EQ_INT(tsr_index_create(TSR_INDEX_NUMPY, &ix), TSR_OK);
	CHECK_EQ_INT(tsr_index_add_array(ix, 1, (int64_t[]){N}, ys), TSR_OK);
	struct tsr_sel_item all = {.kind = TSR_SEL_SLICE};
	CHECK_EQ_INT(tsr_index_add_item(ix, &all), TSR_OK);
	CHECK_EQ_INT(tsr_index_add_array(ix, 1, (int64_t[]){N}, xs), TSR_OK);
	struct tsr_norm_sel ns;
	struct tsr_plan plan;
	CHECK_EQ_INT(tsr_index_normalize(ix, 3, shape, &ns), TSR_OK);
	CHECK_EQ_INT(tsr_plan_build(&desc, &ns, &plan), TSR_OK);
	/* chunks touched, counted here: (y chunk, x chunk) pairs times both chunks of axis 1 */
	static unsigned char touched[10][13];
	int distinct = 0;
	for (int i = 0; i < N; i++) {
		unsigned char *t = &touched[ys[i] / 10][(xs[i] + 90) / 7];
		distinct += !*t;
		*t = 1;
	}
	CHECK_EQ_INT(plan.ntasks, distinct * 2);
	static unsigned char seen[N];
	static unsigned char chunk_seen[10 * 2 * 13];
	for (int64_t t = 0; t < plan.ntasks; t++) {
		int64_t c = tsr_task_chunk(&plan, t);
		const int64_t *k0 = tsr_task_k0(&plan, t), *k1 = tsr_task_k1(&plan, t);
		CHECK(c >= 0 && c < 10 * 2 * 13 && !chunk_seen[c]);
		chunk_seen[c] = 1;
		int64_t cy = c / 26, c1 = c / 13 % 2, cx = c % 13;
		CHECK(k0[0] == k0[2] && k1[0] == k1[2] && k0[0] < k1[0]);
		CHECK_EQ_INT(k0[1], c1 * 3);
		CHECK_EQ_INT(k1[1], c1 ? 4 : 3);
		for (int64_t k = k0[0]; k < k1[0]; k++) {
			const int64_t *p = plan.groups[0].coords + 2 * k;
			CHECK(p[0] / 10 == cy && p[1] / 7 == cx);
			int64_t orig = plan.groups[0].dst[k] / 4; /* out (N, 4): stride 4 */
			CHECK(orig >= 0 && orig < N && p[0] == ys[orig] && p[1] == xs[orig] + 90);
			if (c1 == 0) {
				CHECK(!seen[orig]);
				seen[orig] = 1;
			}
		}
	}
	for (int i = 0; i < N; i++)
		CHECK(seen[i]);
	tsr_plan_free(&plan);
	tsr_norm_sel_free(&ns);
	tsr_index_free(ix);
}

int main(void)
{
	test_shapes();
	test_points();
	test_api_errors();
	test_plan();
	CHECK_DONE();
}
