/* test_plan_describe_next.c - a plan described with the backend's chunk_next (each tile that
 * follows the task before's described from it) is the plan described chunk by chunk, task for
 * task: description, path, extent, stored bytes, description id, and with a route device the
 * route, place values and stream check; on one thread and on three, for whole reads and strided
 * sections of every tiled HDU of the FITS corpus. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "core/array.h"
#include "core/internal.h"
#include "corpus_fits.h"
#include "io/storage.h"
#include "plan/plan.h"

static int same_route(const struct tsr_task_info *x, const struct tsr_task_info *y)
{
	const struct tsr_route *r = &x->route, *s = &y->route;
	const struct tsr_route_values *v = &x->values, *w = &y->values;
	const struct tsr_route_check *c = &x->check, *d = &y->check;
	return r->how == s->how && r->kind == s->kind && r->why == s->why &&
	       r->big_endian == s->big_endian && r->fill == s->fill && r->alt_width == s->alt_width &&
	       v->in_type == w->in_type && v->out_type == w->out_type && v->in_be == w->in_be &&
	       v->kind == w->kind && v->dither == w->dither && v->has_blank == w->has_blank &&
	       v->planes == w->planes && v->dither_row == w->dither_row && v->blank == w->blank &&
	       !memcmp(&v->scale, &w->scale, sizeof(v->scale)) &&
	       !memcmp(&v->zero, &w->zero, sizeof(v->zero)) && v->offset == w->offset &&
	       c->npix == d->npix && c->width == d->width && c->elem == d->elem &&
	       c->out == d->out && c->kind == d->kind && c->elem_from_size == d->elem_from_size &&
	       c->xform == d->xform;
}

/* Describes plan both ways and compares them task by task; returns the tasks compared. */
static long compare(const struct tsr_plan *plan, const struct tsr_array *a,
		    const struct tsr_backend *whole, const struct tsr_route_device *dev,
		    struct tsr_pool *pool, int nthreads, const char *name)
{
	struct tsr_plan_descs *x = NULL, *y = NULL;
	int sx = tsr_plan_describe_on(plan, a, &tsr_storage_posix, 1, dev, pool, nthreads, &x);
	int sy = tsr_plan_describe_on(plan, a, whole, 1, dev, pool, nthreads, &y);
	CHECK_EQ_INT(sx, sy);
	long n = 0;
	static struct tsr_chunk_ref rx, ry;
	for (int64_t t = 0; t < plan->ntasks && x && y; t++, n++) {
		const struct tsr_task_info *ix = tsr_task_info(x, t), *iy = tsr_task_info(y, t);
		tsr_task_desc(x, t, &rx);
		tsr_task_desc(y, t, &ry);
		size_t at = offsetof(struct tsr_chunk_ref, missing_is_fill);
		int same = !strcmp(rx.path, ry.path) &&
			   !memcmp((char *)&rx + at, (char *)&ry + at, sizeof(rx) - at) &&
			   !strcmp(ix->path, iy->path) && ix->offset == iy->offset &&
			   ix->nbytes == iy->nbytes && ix->npix == iy->npix &&
			   ix->dec_npix == iy->dec_npix && ix->codec_name == iy->codec_name &&
			   ix->elem_nbytes == iy->elem_nbytes && ix->out_nbytes == iy->out_nbytes &&
			   tsr_task_desc_id(x, t) == tsr_task_desc_id(y, t) &&
			   !memcmp(tsr_task_extent(x, t), tsr_task_extent(y, t),
				   (size_t)plan->ndim * sizeof(int64_t)) &&
			   (!dev || same_route(ix, iy));
		if (!same) {
			fprintf(stderr, "%s: task %lld (%d thread(s)%s) described otherwise\n", name,
				(long long)t, nthreads, dev ? ", routed" : "");
			check_failures++;
			break;
		}
	}
	tsr_plan_descs_free(x);
	tsr_plan_descs_free(y);
	return n;
}

struct walk {
	struct tsr_pool *pool;
	struct tsr_backend whole; /* every chunk described whole */
	long tasks, arrays;
};

static void each_array(struct tsr_array *a, const char *name, void *arg)
{
	struct walk *w = arg;
	const struct tsr_route_device gpu = {.gpu = 1, .blosc = 1, .families = ~0u};
	w->arrays += a->ops->chunk_next != NULL;
	/* the whole image; every other tile row (tasks whose chunks do not follow) */
	const char *sels[] = {"", "1::2"};
	for (int k = 0; k < 2; k++) {
		struct tsr_selection sel;
		struct tsr_norm_sel ns;
		struct tsr_plan plan;
		if (tsr_selection_parse(sels[k], &sel) ||
		    tsr_selection_normalize(&sel, a->desc.ndim, a->desc.shape, &ns))
			continue;
		if (!tsr_plan_build(&a->desc, &ns, &plan)) {
			w->tasks += compare(&plan, a, &w->whole, NULL, NULL, 1, name);
			w->tasks += compare(&plan, a, &w->whole, &gpu, NULL, 1, name);
			w->tasks += compare(&plan, a, &w->whole, &gpu, w->pool, 3, name);
			tsr_plan_free(&plan);
		}
		tsr_norm_sel_free(&ns);
	}
}

int main(void)
{
	struct tsr_context *ctx = NULL;
	struct walk w = {.whole = tsr_storage_posix};
	w.whole.chunk_next = NULL;
	CHECK(tsr_context_create(NULL, &ctx) == TSR_OK);
	CHECK(tsr_pool_create(3, &w.pool) == TSR_OK);
	CHECK(corpus_fits_each(ctx, 0, each_array, &w) == 0);
	tsr_pool_free(w.pool);
	tsr_context_free(ctx);
	printf("%ld tiled arrays, %ld tasks described both ways alike\n", w.arrays, w.tasks);
	CHECK(w.arrays > 20);
	CHECK(w.tasks > 10000);
	CHECK_DONE();
}
