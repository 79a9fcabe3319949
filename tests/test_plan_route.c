/* test_plan_route.c - a plan described for a device holds every task complete, without I/O: its
 * route (decoder family, or the CPU and why; a fill; the wide-integer rule), its place values
 * (the value transform as the place kernel's kind, dither, scale, blank), its stream's size check
 * and its storage read (file interned: equal files are one pointer, so reads of neighbouring
 * tiles coalesce). A hand-made FITS-like array whose row tiles cycle through the kinds. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "io/storage.h"
#include "plan/plan.h"
#include "tiles_array.h"

enum { K_GZIP2_SCALED, K_GZIP1_FLOAT, K_DEQUANT, K_RAW, K_HCOMP, K_FILL, K_OTHER_FILE, K_N };

/* Tile `chunk` (one row of 64 pixels) of kind chunk % K_N; tiles lie back to back from 2880. */
static int tile_ref(const struct tsr_array *a, int64_t chunk, struct tsr_chunk_ref *ref)
{
	(void)a;
	memset(ref, 0, sizeof(*ref));
	ref->offset = 2880 + (uint64_t)chunk * 100;
	ref->nbytes = 100;
	ref->extent[0] = 1, ref->extent[1] = 64;
	ref->npix = 64;
	ref->codec_name = "GZIP_2";
	struct tsr_codec_step *c = &ref->codec;
	struct tsr_xform *x = &ref->xform;
	c->big_endian = 1;
	x->out = TSR_FLOAT32;
	switch (chunk % K_N) {
	case K_GZIP2_SCALED: /* int16 tiles scaled to float: CFITSIO takes any integer width */
		c->id = TSR_CODEC_GZIP, c->elem = TSR_INT16, c->byte_shuffle = 1;
		c->elem_from_size = 1;
		x->kind = TSR_XF_SCALE, x->scale = 0.5, x->zero = 100.0 + (double)chunk;
		x->has_blank = 1, x->blank = -32768;
		break;
	case K_GZIP1_FLOAT: /* float tiles: their width is fixed */
		c->id = TSR_CODEC_GZIP, c->elem = TSR_FLOAT32, c->elem_from_size = 1;
		x->kind = TSR_XF_COPY;
		break;
	case K_DEQUANT: /* quantized floats, SUBTRACTIVE_DITHER_2, a dither row per tile */
		c->id = TSR_CODEC_GZIP, c->elem = TSR_INT32, c->elem_from_size = 1;
		x->kind = TSR_XF_DEQUANT, x->dither = TSR_DITHER_2, x->dither_row = chunk + 7;
		x->scale = 0.25, x->zero = -3.0;
		break;
	case K_RAW: /* stored elements, placed as they are */
		c->id = TSR_CODEC_NONE, c->elem = TSR_FLOAT32;
		ref->nbytes = 256;
		ref->codec_name = "UNCOMPRESSED_DATA";
		break;
	case K_HCOMP: /* no GPU decoder */
		c->id = TSR_CODEC_HCOMPRESS, c->elem = TSR_INT32;
		x->kind = TSR_XF_SCALE, x->scale = 1.0;
		ref->codec_name = "HCOMPRESS_1";
		break;
	case K_FILL:
		tsr_chunk_set_fill(ref);
		x->kind = TSR_XF_COPY;
		break;
	case K_OTHER_FILE: /* a tile stored in a file of its own (as a Zarr chunk is) */
		snprintf(ref->path, sizeof(ref->path), "/data/tile%lld", (long long)(chunk / K_N));
		c->id = TSR_CODEC_GZIP, c->elem = TSR_FLOAT32;
		break;
	}
	return TSR_OK;
}

int main(void)
{
	struct tsr_driver_ops ops = {.name = "tiles", .chunk_ref = tile_ref};
	struct tsr_array a;
	tiles_array(&a, &ops, 5 * K_N, 64);
	snprintf(a.desc.codec, sizeof(a.desc.codec), "GZIP_2");

	struct tsr_norm_sel ns;
	struct tsr_plan plan;
	CHECK_EQ_INT(tsr_selection_normalize(NULL, 2, a.desc.shape, &ns), TSR_OK);
	CHECK_EQ_INT(tsr_plan_build(&a.desc, &ns, &plan), TSR_OK);
	const struct tsr_route_device gpu = {.gpu = 1, .blosc = 1,
					     .families = (1u << TSR_FAM_N) - 1};
	struct tsr_plan_descs *ds = NULL;
	CHECK_EQ_INT(tsr_plan_describe(&plan, &a, &tsr_storage_posix, 0, &gpu, &ds), TSR_OK);
	if (!ds)
		CHECK_DONE();
	const char *own = NULL;
	for (int64_t t = 0; t < plan.ntasks; t++) {
		const struct tsr_task_info *ti = tsr_task_info(ds, t);
		const struct tsr_route *rt = &ti->route;
		const struct tsr_route_values *v = &ti->values;
		int64_t chunk = tsr_task_chunk(&plan, t);
		struct tsr_chunk_ref r;
		tsr_task_desc(ds, t, &r);
		/* the storage read is the description's, its file interned */
		CHECK_EQ_INT(ti->offset, r.offset);
		CHECK_EQ_INT(ti->nbytes, r.nbytes);
		CHECK_EQ_INT(ti->npix, 64);
		CHECK(strcmp(ti->path, r.path) == 0);
		CHECK(ti->path == tsr_task_desc_path(ds, t));
		if (!r.path[0]) {
			if (!own)
				own = ti->path;
			CHECK(ti->path == own); /* one pointer for the array's file */
		}
		CHECK_EQ_INT(tsr_task_extent(ds, t)[1], 64);
		switch (chunk % K_N) {
		case K_GZIP2_SCALED:
			CHECK_EQ_INT(rt->how, TSR_ROUTE_STREAM);
			CHECK_EQ_INT(rt->kind, TSR_FAM_INFLATE * TSR_VARIANTS + TSR_VAR_GZIP);
			CHECK_EQ_INT(rt->alt_width, 1);
			CHECK_EQ_INT(v->kind, TSR_VALUES_SCALE);
			CHECK(v->scale == 0.5 && v->zero == 100.0 + (double)chunk);
			CHECK_EQ_INT(v->has_blank, 1);
			CHECK_EQ_INT(v->blank, -32768);
			CHECK_EQ_INT(v->planes, 1);
			CHECK_EQ_INT(v->in_be, 1);
			CHECK_EQ_INT(v->in_type, TSR_INT16);
			CHECK_EQ_INT(v->out_type, TSR_FLOAT32);
			CHECK_EQ_INT(ti->check.npix, 64);
			CHECK_EQ_INT(ti->check.width, 2);
			CHECK_EQ_INT(ti->check.elem_from_size, 1);
			CHECK_EQ_INT(ti->check.xform, TSR_XF_SCALE);
			CHECK_EQ_INT(ti->check.kind, rt->kind);
			break;
		case K_GZIP1_FLOAT:
			CHECK_EQ_INT(rt->how, TSR_ROUTE_STREAM);
			CHECK_EQ_INT(rt->alt_width, 0); /* floats keep their width */
			CHECK_EQ_INT(v->kind, TSR_VALUES_COPY);
			CHECK_EQ_INT(v->planes, 0);
			CHECK_EQ_INT(ti->check.width, 4);
			break;
		case K_DEQUANT:
			CHECK_EQ_INT(rt->how, TSR_ROUTE_STREAM);
			CHECK_EQ_INT(rt->alt_width, 1);
			CHECK_EQ_INT(v->kind, TSR_VALUES_DEQUANT);
			CHECK_EQ_INT(v->dither, 2);
			CHECK_EQ_INT(v->dither_row, chunk + 7);
			CHECK(v->scale == 0.25 && v->zero == -3.0);
			break;
		case K_RAW:
			CHECK_EQ_INT(rt->how, TSR_ROUTE_RAW);
			CHECK_EQ_INT(v->kind, TSR_VALUES_COPY);
			CHECK_EQ_INT(v->in_type, TSR_FLOAT32);
			CHECK_EQ_INT(ti->nbytes, 256);
			break;
		case K_HCOMP:
			CHECK_EQ_INT(rt->how, TSR_ROUTE_CPU);
			CHECK_EQ_INT(rt->why, TSR_WHY_CODEC);
			CHECK_EQ_INT(rt->fill, 0);
			/* values come final from the CPU */
			CHECK_EQ_INT(v->kind, TSR_VALUES_COPY);
			CHECK_EQ_INT(v->in_type, TSR_FLOAT32);
			break;
		case K_FILL:
			CHECK_EQ_INT(rt->how, TSR_ROUTE_CPU);
			CHECK_EQ_INT(rt->fill, 1);
			CHECK_EQ_INT(ti->nbytes, 0);
			break;
		case K_OTHER_FILE:
			CHECK_EQ_INT(rt->how, TSR_ROUTE_STREAM);
			CHECK(ti->path != own && ti->path[0] == '/');
			break;
		}
	}
	/* 5 tile files and the array's own */
	CHECK_EQ_INT(tsr_plan_descs_npaths(ds), 6);
	/* the first two tiles, back to back in the file and in the destination: one read */
	{
		struct tsr_span sp[2] = {tsr_task_span(tsr_task_info(ds, 0), 0),
					 tsr_task_span(tsr_task_info(ds, 1), 100)};
		const struct tsr_coalesce_rule rule = {.start_max = 1000, .join_max = 1000,
						       .run_max = 1000, .piece = 1000};
		struct tsr_piece *pc = NULL;
		int64_t npc = 0;
		size_t cap = 0;
		CHECK_EQ_INT(tsr_coalesce(sp, 2, &rule, &pc, &npc, &cap), TSR_OK);
		CHECK_EQ_INT(npc, 1);
		if (npc == 1)
			CHECK(pc[0].nspans == 2 && pc[0].offset == 2880 && pc[0].nbytes == 200);
		free(pc);
	}
	tsr_plan_descs_free(ds);
	/* the CPU engine's route (no GPU): every chunk the CPU's, for the reason it was forced */
	const struct tsr_route_device cpu = {0};
	CHECK_EQ_INT(tsr_plan_describe(&plan, &a, &tsr_storage_posix, 0, &cpu, &ds), TSR_OK);
	for (int64_t t = 0; ds && t < plan.ntasks; t++) {
		CHECK_EQ_INT(tsr_task_info(ds, t)->route.how, TSR_ROUTE_CPU);
		CHECK_EQ_INT(tsr_task_info(ds, t)->route.why, TSR_WHY_FORCED);
	}
	tsr_plan_descs_free(ds);
	/* decoder cpu on a GPU: streams forced to the CPU, stored elements still placed */
	const struct tsr_route_device forced = {.gpu = 1, .force_cpu = 1,
						.families = (1u << TSR_FAM_N) - 1};
	CHECK_EQ_INT(tsr_plan_describe(&plan, &a, &tsr_storage_posix, 0, &forced, &ds), TSR_OK);
	for (int64_t t = 0; ds && t < plan.ntasks; t++) {
		int k = (int)(tsr_task_chunk(&plan, t) % K_N);
		const struct tsr_route *rt = &tsr_task_info(ds, t)->route;
		if (k == K_GZIP2_SCALED || k == K_DEQUANT) {
			CHECK_EQ_INT(rt->how, TSR_ROUTE_CPU);
			CHECK_EQ_INT(rt->why, TSR_WHY_FORCED);
		}
		if (k == K_RAW)
			CHECK_EQ_INT(rt->how, TSR_ROUTE_RAW);
	}
	tsr_plan_descs_free(ds);
	tsr_plan_free(&plan);
	tsr_norm_sel_free(&ns);
	CHECK_DONE();
}
