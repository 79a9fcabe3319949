/* plan_bench.c - the host-side work a CUDA read does per task before anything reaches the GPU
 * (open, plan, describe and route, slot layout, stored reads, place descriptions and stream
 * arguments), timed without a device over a batch of files, in ns per task (tile).
 *
 * Usage: plan_bench [-r REPS] [-c] [-n] [-t THREADS] FILE...  (-n: the read's tasks left in the
 * plan's order, not put in file order first as the engine puts them; -t: tasks and places described on
 * THREADS threads, as the CUDA engine's planning helpers do,
 * tsr_plan_describe_on and tsr_cuda_describe_on; -c: decoder cpu, every task the CPU's; e.g. the
 * 32 RICE_1 int16 FITS of 4096 x 4096 that
 * `fits_write DIR 32 4096 4096 rice_i16` writes: 131,072 row tiles.) Each rep reads the files
 * as one batch read does: every file opened, planned and laid out into the staging ring's slots,
 * which the files share; best of REPS. Nothing is read from the files beyond their metadata.
 * A first, untimed rep prints a checksum of what the GPU would read of the slots (every place's
 * fields the place kernel reads, every stream's arguments): a host-side change that keeps it
 * keeps the slots as they were. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/array.h"
#include "core/internal.h"
#include "core/selection.h"
#include "engine/cuda_layout.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

enum { PH_OPEN, PH_PLAN, PH_LAYOUT, PH_SLOTS, PH_N };
static const char *const ph_name[PH_N] = {"open", "plan", "describe+route+stage",
					   "slots (fill, reads, places, streams)"};

/* The slot-side work of one file: its tasks laid into slots as tsr_cuda_run does, each slot's
 * reads coalesced by the feed's rule, every task's place described and every stream's arguments
 * made. Returns the pieces (so the work is not optimised away). */
struct ring {
	struct tsr_cuda_fill fill;
	struct tsr_cuda_place *places;
	uint64_t *io;
	struct tsr_cuda_check *checks;
	size_t nstreams;
	struct tsr_span *spans;
	int64_t *span_task;
	struct tsr_piece *pieces;
	size_t pieces_cap;
	size_t nplaces; /* in the slot */
	int64_t made;   /* places made in all */
	int sum; /* the checksum's rep (the first: not timed against the others) */
	struct tsr_pool *pool; /* the places' threads (-t), as the engine's planning helpers */
	int nthreads;
};

/* FNV-1a over what the GPU reads of the read's places and stream arguments: the fields the
 * place kernel reads (the per-axis ones up to ndim), the io words. Printed, so that a change to
 * the host side can be shown to leave the slots' contents as they were. */
static uint64_t sum_h = 0xcbf29ce484222325ull;
static void sum_bytes(const void *p, size_t n)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++)
		sum_h = (sum_h ^ c[i]) * 0x100000001b3ull;
}
#define SUM(x) sum_bytes(&(x), sizeof(x))

static void sum_place(const struct tsr_cuda_place *pl)
{
	SUM(pl->out), SUM(pl->src_offset), SUM(pl->in_type), SUM(pl->out_type), SUM(pl->in_be);
	SUM(pl->kind), SUM(pl->scale), SUM(pl->zero), SUM(pl->offset), SUM(pl->has_blank);
	SUM(pl->ndim), SUM(pl->blank), SUM(pl->dither), SUM(pl->dither_row), SUM(pl->src_dec);
	SUM(pl->planes), SUM(pl->stream), SUM(pl->alt_width), SUM(pl->plane_block);
	SUM(pl->out_first), SUM(pl->units), SUM(pl->nunits), SUM(pl->blocked), SUM(pl->src_npix);
	for (int i = 0; i < pl->ndim; i++) {
		SUM(pl->extent[i]), SUM(pl->first[i]), SUM(pl->step[i]), SUM(pl->count[i]);
		SUM(pl->out_stride[i]);
		if (pl->blocked)
			SUM(pl->block[i]), SUM(pl->padded[i]);
	}
}

static int64_t lay_out(const struct tsr_plan *plan, const struct tsr_plan_descs *ds,
		       struct tsr_cuda_task *tasks, struct ring *r)
{
	int64_t t0 = 0, npieces_all = 0;
	while (t0 < plan->ntasks) {
		int64_t t1 = tsr_cuda_fill_slot(tasks, plan->ntasks, t0, &r->fill);
		if (t1 == t0) { /* full: the ring's next slot */
			r->fill.used = r->fill.dec_used = r->fill.ntasks = 0;
			r->nplaces = 0;
			r->nstreams = 0;
			continue;
		}
		int64_t n = t1 - t0, npieces = 0;
		int64_t ns = tsr_cuda_spans(tasks + t0, n, 1, r->spans, r->span_task);
		if (tsr_cuda_feed_pieces(r->spans, ns, r->nthreads, &r->pieces, &npieces,
					 &r->pieces_cap)) {
			fprintf(stderr, "plan_bench: %s\n", tsr_errmsg());
			exit(1);
		}
		npieces_all += npieces;
		/* the slot's streams in task order; their arguments made with the places, as the
		 * engine makes them for a slot with no blosc chunk */
		size_t k0 = r->nstreams;
		for (int64_t i = t0; i < t1; i++) {
			struct tsr_cuda_task *ct = &tasks[i];
			if (ct->how == TSR_HOW_STREAM) {
				ct->stream = (int)r->nstreams++;
				ct->name = 0;
			}
		}
		const struct tsr_cuda_stream_out so = {.io = r->io, .cap = TSR_SLOT_STREAMS,
						       .checks = r->checks};
		struct tsr_cuda_described made;
		tsr_cuda_describe_on(plan, ds, tasks + t0, n, 0, 0, NULL, &r->places[r->nplaces],
				     &so, r->pool, r->nthreads, &made);
		for (size_t k = k0; k < r->nstreams && r->sum; k++)
			for (int j = 0; j < 4; j++)
				SUM(r->io[(size_t)j * TSR_SLOT_STREAMS + k]);
		/* each task's place (a run's tasks one by one: the checksum of a slot of a
		 * place a task is the same) */
		for (size_t i = 0; i < made.nplaces && r->sum; i++) {
			const struct tsr_cuda_place *pl = &r->places[r->nplaces + i];
			for (int k = 0; k < pl->run; k++) {
				struct tsr_cuda_place one;
				tsr_cuda_place_task(pl, k, &one);
				sum_place(&one);
			}
		}
		r->nplaces += made.nplaces;
		r->made += made.nplaces;
		t0 = t1;
	}
	return npieces_all;
}

int main(int argc, char **argv)
{
	int reps = 5, a0 = 1, nthreads = 1, file_order = 1;
	int decoder = TSR_DECODER_AUTO;
	for (;;) {
		if (argc > a0 + 1 && !strcmp(argv[a0], "-t")) {
			nthreads = atoi(argv[a0 + 1]);
			a0 += 2;
		} else if (argc > a0 + 1 && !strcmp(argv[a0], "-r")) {
			reps = atoi(argv[a0 + 1]);
			a0 += 2;
		} else if (argc > a0 && !strcmp(argv[a0], "-c")) {
			decoder = TSR_DECODER_CPU;
			a0++;
		} else if (argc > a0 && !strcmp(argv[a0], "-n")) {
			file_order = 0;
			a0++;
		} else {
			break;
		}
	}
	if (a0 >= argc || reps < 1 || nthreads < 1) {
		fprintf(stderr, "usage: plan_bench [-r REPS] [-c] [-n] [-t THREADS] FILE...\n");
		return 2;
	}
	int nfiles = argc - a0;
	struct tsr_context *ctx = NULL;
	if (tsr_context_create(NULL, &ctx)) {
		fprintf(stderr, "plan_bench: %s\n", tsr_errmsg());
		return 1;
	}
	struct tsr_pool *pool = NULL;
	if (nthreads > 1 && tsr_pool_create(nthreads, &pool)) {
		fprintf(stderr, "plan_bench: %s\n", tsr_errmsg());
		return 1;
	}
	struct ring r = {.pool = pool, .nthreads = nthreads};
	r.places = malloc(TSR_SLOT_PLACES * sizeof(*r.places));
	r.io = malloc(4 * TSR_SLOT_STREAMS * sizeof(*r.io));
	r.checks = malloc(TSR_SLOT_STREAMS * sizeof(*r.checks));
	struct tsr_cuda_task *tasks = NULL;
	size_t tasks_cap = 0;
	double best[PH_N], best_total = 1e30;
	int64_t ntiles = 0, npieces = 0;
	const struct tsr_route_device rdev = {
		.gpu = 1, .force_cpu = decoder == TSR_DECODER_CPU, .blosc = 1,
		.families = (1u << TSR_FAM_N) - 1};
	for (int rep = -1; rep < reps; rep++) { /* rep -1: the checksum's, not timed */
		r.sum = rep < 0;
		double ph[PH_N] = {0};
		ntiles = npieces = 0;
		r.fill = (struct tsr_cuda_fill){.nbytes = TSR_SLOT_NBYTES, .dec_nbytes = TSR_DEC_NBYTES};
		r.nstreams = r.nplaces = 0;
		r.made = 0;
		for (int f = 0; f < nfiles; f++) {
			struct tsr_array *a = NULL;
			struct tsr_norm_sel ns;
			struct tsr_plan plan;
			struct tsr_cuda_layout L;
			double t0 = now();
			if (tsr_open(ctx, argv[a0 + f], NULL, &a)) {
				fprintf(stderr, "plan_bench: %s\n", tsr_errmsg());
				return 1;
			}
			double t1 = now();
			if (tsr_selection_normalize(NULL, a->desc.ndim, a->desc.shape, &ns) ||
			    tsr_plan_build(&a->desc, &ns, &plan)) {
				fprintf(stderr, "plan_bench: %s\n", tsr_errmsg());
				return 1;
			}
			double t2 = now();
			if ((size_t)plan.ntasks > tasks_cap) { /* (the engine keeps its own too) */
				free(tasks);
				tasks_cap = (size_t)plan.ntasks;
				tasks = malloc(tasks_cap * sizeof(*tasks));
				free(r.spans);
				free(r.span_task);
				r.spans = malloc(tasks_cap * sizeof(*r.spans));
				r.span_task = malloc(tasks_cap * sizeof(*r.span_task));
			}
			int batch = TSR_BATCH_MEMBER | (f + 1 < nfiles ? TSR_BATCH_DEFER : 0);
			struct tsr_plan_descs *ds = NULL;
			if (tsr_plan_describe_on(&plan, a, &tsr_storage_posix, 1, &rdev, pool,
						 nthreads, &ds)) {
				fprintf(stderr, "plan_bench: %s\n", tsr_errmsg());
				return 1;
			}
			tsr_cuda_layout(a, &plan, ds, decoder, batch, 16, tasks, &L);
			if (file_order && tsr_plan_descs_npaths(ds) < (size_t)plan.ntasks)
				tsr_cuda_file_order(tasks, plan.ntasks); /* (as tsr_cuda_run_on) */
			double t3 = now();
			npieces += lay_out(&plan, ds, tasks, &r);
			double t4 = now();
			ph[PH_OPEN] += t1 - t0;
			ph[PH_PLAN] += t2 - t1;
			ph[PH_LAYOUT] += t3 - t2;
			ph[PH_SLOTS] += t4 - t3;
			ntiles += plan.ntasks;
			if (rep < 0 && f == 0)
				printf("%s: %lld tasks, %lld on the GPU (%s), %lld raw, %lld on the CPU\n",
				       argv[a0], (long long)plan.ntasks, (long long)L.n_stream,
				       L.n_stream ? L.gpu_name[TSR_FAM_RICE] ? "rice" : "other" : "-",
				       (long long)L.n_raw, (long long)(plan.ntasks - L.n_stream - L.n_raw));
			tsr_plan_descs_free(ds);
			tsr_plan_free(&plan);
			tsr_norm_sel_free(&ns);
			tsr_array_free(a);
		}
		double total = 0;
		for (int p = 0; p < PH_N; p++)
			total += ph[p];
		if (rep >= 0 && total < best_total) {
			best_total = total;
			memcpy(best, ph, sizeof(best));
		}
	}
	printf("%d files, %lld tasks, %lld reads; best of %d reps, ns per task:\n", nfiles,
	       (long long)ntiles, (long long)npieces, reps);
	for (int p = 0; p < PH_N; p++)
		printf("  %-40s %8.1f\n", ph_name[p], 1e9 * best[p] / (double)ntiles);
	printf("  %-40s %8.1f\n", "total", 1e9 * best_total / (double)ntiles);
	printf("  %-40s %8.1f\n", "total but open", 1e9 * (best_total - best[PH_OPEN]) / (double)ntiles);
	printf("places: %lld for the %lld tasks (a run of tasks is one)\n", (long long)r.made,
	       (long long)ntiles);
	printf("places and stream arguments: checksum %016llx\n", (unsigned long long)sum_h);
	free(tasks);
	free(r.places);
	free(r.io);
	free(r.checks);
	free(r.spans);
	free(r.span_task);
	free(r.pieces);
	if (pool)
		tsr_pool_free(pool);
	tsr_context_free(ctx);
	return 0;
}
