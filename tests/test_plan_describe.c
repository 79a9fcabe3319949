/* test_plan_describe.c - a plan's settled chunk descriptions, without I/O: a hand-made array
 * whose driver describes a sharded Zarr-like store (inner chunks in shard files, some chunks
 * missing and so fill) and a FITS-like file (every tile in the array's own file). Each task's
 * description is the driver's, ndim set, path included; each distinct path is kept once (one
 * per shard touched; one for the whole FITS file); a driver failure names the chunk. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "io/storage.h"
#include "plan/plan.h"
#include "shard_ref.h"

static int64_t fail_chunk = -1;
static int driver_calls;

/* A 2-D array of 6 x 8 chunks of 4 x 5; shards of 2 x 4 chunks, each its own file; the chunks
 * whose number is a multiple of 7 were never written (fill). */
static int shard_chunk_ref(const struct tsr_array *a, int64_t chunk, struct tsr_chunk_ref *ref)
{
	driver_calls++;
	if (chunk == fail_chunk)
		return tsr_error(TSR_E_FORMAT, "shard index: bad entry");
	shard_ref(a, chunk, ref);
	return TSR_OK;
}

/* FITS tiles: every tile in the array's own file (""), one tile a row of 8 x 40 pixels. */
static int fits_chunk_ref(const struct tsr_array *a, int64_t chunk, struct tsr_chunk_ref *ref)
{
	(void)a;
	driver_calls++;
	memset(ref, 0, sizeof(*ref));
	ref->offset = 2880 * 3 + (uint64_t)chunk * 300;
	ref->nbytes = 280 + (uint64_t)(chunk % 5);
	ref->codec.id = TSR_CODEC_GZIP;
	ref->extent[0] = 1, ref->extent[1] = 40;
	ref->npix = 40;
	return TSR_OK;
}

static void make_array(struct tsr_array *a, struct tsr_driver_ops *ops, int64_t ny, int64_t nx,
		       int64_t cy, int64_t cx)
{
	memset(a, 0, sizeof(*a));
	a->path = "test.array";
	a->ops = ops;
	a->desc.ndim = 2;
	a->desc.shape[0] = ny, a->desc.shape[1] = nx;
	a->desc.chunk_shape[0] = cy, a->desc.chunk_shape[1] = cx;
	a->desc.grid[0] = (ny + cy - 1) / cy, a->desc.grid[1] = (nx + cx - 1) / cx;
	a->desc.nchunks = a->desc.grid[0] * a->desc.grid[1];
	a->desc.unit_noun = "array";
	a->desc.chunk_noun = "chunk";
}

/* Plans spec over a, describes it and checks every task against the driver; returns the
 * number of distinct paths. */
static size_t check_described(const struct tsr_array *a, const char *spec)
{
	struct tsr_selection sel;
	struct tsr_norm_sel ns;
	struct tsr_plan plan;
	CHECK_EQ_INT(tsr_selection_parse(spec, &sel), TSR_OK);
	CHECK_EQ_INT(tsr_selection_normalize(&sel, 2, a->desc.shape, &ns), TSR_OK);
	CHECK_EQ_INT(tsr_plan_build(&a->desc, &ns, &plan), TSR_OK);
	struct tsr_plan_descs *ds = NULL;
	driver_calls = 0;
	CHECK_EQ_INT(tsr_plan_describe(&plan, a, &tsr_storage_posix, 0, NULL, &ds), TSR_OK);
	CHECK_EQ_INT(driver_calls, plan.ntasks); /* once per task */
	/* the distinct paths, counted here */
	char seen[64][1024];
	size_t nseen = 0;
	for (int64_t t = 0; t < plan.ntasks && ds; t++) {
		struct tsr_chunk_ref want, got;
		memset(&got, 0x5A, sizeof(got));
		CHECK_EQ_INT(a->ops->chunk_ref(a, tsr_task_chunk(&plan, t), &want), TSR_OK);
		want.ndim = 2;
		tsr_task_desc(ds, t, &got);
		CHECK(strcmp(got.path, want.path) == 0);
		CHECK(strcmp(tsr_task_desc_path(ds, t), want.path) == 0);
		/* everything after the path, byte for byte */
		CHECK(memcmp((char *)&got + sizeof(got.path), (char *)&want + sizeof(want.path),
			     sizeof(got) - sizeof(got.path)) == 0);
		CHECK_EQ_INT(got.ndim, 2);
		CHECK_EQ_INT(got.codec.id, want.codec.id);
		size_t k = 0;
		while (k < nseen && strcmp(seen[k], want.path))
			k++;
		if (k == nseen && nseen < 64)
			snprintf(seen[nseen++], sizeof(seen[0]), "%s", want.path);
	}
	size_t np = tsr_plan_descs_npaths(ds);
	CHECK_EQ_INT(np, nseen);
	tsr_plan_descs_free(ds);
	tsr_plan_free(&plan);
	return np;
}

int main(void)
{
	struct tsr_driver_ops shard_ops = {.name = "shard", .chunk_ref = shard_chunk_ref};
	struct tsr_array a;
	make_array(&a, &shard_ops, 24, 40, 4, 5);
	/* all 48 chunks: 3 x 2 shards; missing chunks described as fill */
	CHECK_EQ_INT(check_described(&a, ""), 6);
	/* rows 4..11 backwards, every third column from the end: chunks of shards (0..1, *) */
	CHECK_EQ_INT(check_described(&a, "11:3:-1,::-3"), 4);
	/* one chunk */
	CHECK_EQ_INT(check_described(&a, "-1,-1"), 1);
	/* a fill chunk keeps its path (a shard never written) but has no bytes */
	{
		struct tsr_selection sel;
		struct tsr_norm_sel ns;
		struct tsr_plan plan;
		struct tsr_plan_descs *ds;
		struct tsr_chunk_ref r;
		CHECK_EQ_INT(tsr_selection_parse("0:4,30:35", &sel), TSR_OK); /* chunk 6: fine */
		CHECK_EQ_INT(tsr_selection_normalize(&sel, 2, a.desc.shape, &ns), TSR_OK);
		CHECK_EQ_INT(tsr_plan_build(&a.desc, &ns, &plan), TSR_OK);
		CHECK_EQ_INT(tsr_plan_describe(&plan, &a, &tsr_storage_posix, 0, NULL, &ds), TSR_OK);
		tsr_task_desc(ds, 0, &r);
		CHECK(r.codec.id == TSR_CODEC_ZSTD && r.nbytes == 906);
		tsr_plan_descs_free(ds);
		tsr_plan_free(&plan);
		CHECK_EQ_INT(tsr_selection_parse("4:8,5:10", &sel), TSR_OK); /* chunk 9: no */
		CHECK_EQ_INT(tsr_selection_normalize(&sel, 2, a.desc.shape, &ns), TSR_OK);
		CHECK_EQ_INT(tsr_plan_build(&a.desc, &ns, &plan), TSR_OK);
		CHECK_EQ_INT(tsr_plan_describe(&plan, &a, &tsr_storage_posix, 0, NULL, &ds), TSR_OK);
		tsr_task_desc(ds, 0, &r);
		CHECK(r.codec.id == TSR_CODEC_ZSTD);
		tsr_plan_descs_free(ds);
		tsr_plan_free(&plan);
		CHECK_EQ_INT(tsr_selection_parse("4:8,30:35", &sel), TSR_OK); /* chunk 14: fill */
		CHECK_EQ_INT(tsr_selection_normalize(&sel, 2, a.desc.shape, &ns), TSR_OK);
		CHECK_EQ_INT(tsr_plan_build(&a.desc, &ns, &plan), TSR_OK);
		CHECK_EQ_INT(tsr_plan_describe(&plan, &a, &tsr_storage_posix, 0, NULL, &ds), TSR_OK);
		tsr_task_desc(ds, 0, &r);
		CHECK(r.codec.id == TSR_CODEC_FILL && r.nbytes == 0 && r.missing_is_fill);
		CHECK(strcmp(r.path, "/data/store.zarr/arr/c/0/1") == 0);
		tsr_plan_descs_free(ds);
		tsr_plan_free(&plan);
	}
	/* a chunk the driver cannot describe: the plan keeps nothing, the message names it */
	fail_chunk = 13;
	{
		struct tsr_norm_sel ns;
		struct tsr_plan plan;
		struct tsr_plan_descs *ds = (struct tsr_plan_descs *)&a; /* must become NULL */
		CHECK_EQ_INT(tsr_selection_normalize(NULL, 2, a.desc.shape, &ns), TSR_OK);
		CHECK_EQ_INT(tsr_plan_build(&a.desc, &ns, &plan), TSR_OK);
		CHECK_EQ_INT(tsr_plan_describe(&plan, &a, &tsr_storage_posix, 0, NULL, &ds), TSR_E_FORMAT);
		CHECK(ds == NULL);
		const char *msg = tsr_errmsg();
		CHECK(strstr(msg, "test.array: array 0: chunk 13") != NULL);
		CHECK(strstr(msg, "bad entry") != NULL);
		if (!strstr(msg, "chunk 13"))
			fprintf(stderr, "message: %s\n", msg);
		tsr_plan_free(&plan);
	}
	fail_chunk = -1;
	/* FITS tiles: 50 row tiles of one file, one path for all */
	struct tsr_driver_ops fits_ops = {.name = "fits", .chunk_ref = fits_chunk_ref};
	make_array(&a, &fits_ops, 50, 40, 1, 40);
	CHECK_EQ_INT(check_described(&a, ""), 1);
	CHECK_EQ_INT(check_described(&a, "-2::-3,5:9"), 1);
	CHECK_DONE();
}
