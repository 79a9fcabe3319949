/* test_plan_describe_tiles.c - quantized FITS tiles, each with its own ZSCALE, ZZERO and dither row, are described as the driver gives them, byte for byte, on one thread and on several, routed and not; yet tiles that differ only in those values (and in their stored bytes) share one description id, so a batch of 4,096-tile files keeps a few descriptions a file, not one a tile. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "core/internal.h"
#include "io/storage.h"
#include "plan/plan.h"
#include "tiles_array.h"

#define ROWS 3000 /* row tiles of 1 x 64 */
#define ODD 1234  /* a tile CFITSIO could not quantize: stored GZIP_1, no scale */

static int tile_ref(const struct tsr_array *a, int64_t chunk, struct tsr_chunk_ref *ref)
{
	(void)a;
	memset(ref, 0, sizeof(*ref));
	ref->offset = 2880 * 4 + (uint64_t)chunk * 90;
	ref->nbytes = 60 + (uint64_t)(chunk % 29);
	ref->codec.id = chunk == ODD ? TSR_CODEC_GZIP : TSR_CODEC_RICE;
	ref->codec.elem = TSR_INT32;
	ref->codec.rice_bytepix = 4, ref->codec.rice_blocksize = 32;
	ref->extent[0] = 1, ref->extent[1] = 64;
	ref->npix = 64;
	ref->xform.out = TSR_FLOAT32;
	if (chunk != ODD) {
		ref->xform.kind = TSR_XF_DEQUANT;
		ref->xform.dither = TSR_DITHER_1;
		ref->xform.scale = 0.001 * (double)(chunk % 97 + 1) + 1e-9 * (double)chunk;
		ref->xform.zero = -3.5 + 0.25 * (double)chunk;
		ref->xform.dither_row = chunk + 17;
	}
	return TSR_OK;
}

/* Describes the whole image and checks each tile against the driver; returns the number of
 * distinct description ids. */
static int check_tiles(const struct tsr_array *a, struct tsr_pool *pool, int nthreads,
		       const struct tsr_route_device *dev)
{
	struct tsr_selection sel;
	struct tsr_norm_sel ns;
	struct tsr_plan plan;
	CHECK_EQ_INT(tsr_selection_parse("", &sel), TSR_OK);
	CHECK_EQ_INT(tsr_selection_normalize(&sel, 2, a->desc.shape, &ns), TSR_OK);
	CHECK_EQ_INT(tsr_plan_build(&a->desc, &ns, &plan), TSR_OK);
	struct tsr_plan_descs *ds = NULL;
	CHECK_EQ_INT(tsr_plan_describe_on(&plan, a, &tsr_storage_posix, 0, dev, pool, nthreads, &ds),
		     TSR_OK);
	int bad = 0, ids = 0;
	uint32_t last = UINT32_MAX;
	for (int64_t t = 0; t < plan.ntasks && ds; t++) {
		struct tsr_chunk_ref want, got;
		memset(&got, 0x5A, sizeof(got));
		int64_t chunk = tsr_task_chunk(&plan, t);
		CHECK_EQ_INT(a->ops->chunk_ref(a, chunk, &want), TSR_OK);
		want.ndim = 2;
		tsr_task_desc(ds, t, &got);
		/* everything after the path, byte for byte: its own scale, zero and dither row */
		int same = !memcmp((char *)&got + sizeof(got.path), (char *)&want + sizeof(want.path),
				   sizeof(got) - sizeof(got.path));
		const struct tsr_task_info *ti = tsr_task_info(ds, t);
		if (dev && chunk != ODD) /* the place kernel's values carry them too */
			same &= ti->route.how == TSR_ROUTE_STREAM &&
				ti->values.kind == TSR_VALUES_DEQUANT &&
				tsr_task_info(ds, t)->values.scale == want.xform.scale &&
				tsr_task_info(ds, t)->values.zero == want.xform.zero &&
				tsr_task_info(ds, t)->values.dither_row == want.xform.dither_row;
		if (!same && bad++ < 3)
			fprintf(stderr, "tile %lld differs from the driver's\n", (long long)chunk);
		uint32_t id = tsr_task_desc_id(ds, t);
		ids += id != last;
		last = id;
	}
	CHECK_EQ_INT(bad, 0);
	tsr_plan_descs_free(ds);
	tsr_plan_free(&plan);
	return ids;
}

int main(void)
{
	struct tsr_driver_ops ops = {.name = "tiles", .chunk_ref = tile_ref};
	struct tsr_array a;
	tiles_array(&a, &ops, ROWS, 64);
	struct tsr_pool *pool = NULL;
	CHECK_EQ_INT(tsr_pool_create(3, &pool), TSR_OK);
	const struct tsr_route_device gpu = {.gpu = 1, .families = ~0u};
	/* runs of ids: the tiles before the odd one, it, the tiles after (one thread); each
	 * further thread's run may start one more */
	CHECK_EQ_INT(check_tiles(&a, NULL, 1, NULL), 3);
	CHECK_EQ_INT(check_tiles(&a, NULL, 1, &gpu), 3);
	int many = check_tiles(&a, pool, 3, &gpu);
	CHECK(many >= 3 && many <= 5);
	tsr_pool_free(pool);
	CHECK_DONE();
}
