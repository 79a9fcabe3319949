/* ahead.c - a CUDA batch read's look-ahead: the next file opened, planned, described and laid out on a thread of its own while this one's chunks go to the GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "engine.h"

/* One file as the look-ahead leaves it for its read. */
struct tsr_ahead_file {
	struct tsr_array *array;
	struct tsr_norm_sel ns;
	struct tsr_read_prep prep; /* (zeroed until made: tsr_read_prep_free takes it so) */
	int open_st;            /* opening it and normalising the selection */
	int plan_st;            /* the read's steps before its engine (tsr_read_prepare), and
				   describing its tasks: the read's own failure */
	double t_plan;          /* seconds the planning and describing took */
	char msg[1024];         /* the failure's message (messages are per thread) */
};

struct tsr_ahead {
	struct tsr_context *ctx;
	const char *const *paths;
	size_t npaths;
	const struct tsr_open_options *oo;
	const struct tsr_selection *sel;
	const struct tsr_read_options *opts;
	struct tsr_pool *thread; /* its background thread: worker 1 of a pool of 2 */
	struct tsr_pool *aid;    /* the threads that describe (the thread above one of them; made
				    on first need, by that thread) */
	int naid;
	int nread;               /* a file of many tasks: its read's threads (its feed's readers) */
	struct tsr_ahead_file file[2]; /* file i in file[i % 2] */
	struct tsr_cuda_laid *laid[2]; /* file i's tasks laid out in laid[i % 2] (kept) */
	size_t making;           /* the file the thread makes (npaths: none) */
};

/* Opens, plans and describes file ah->making into its place (on the background thread). */
static void tsr_ahead_make(void *arg, int worker)
{
	(void)worker;
	struct tsr_ahead *ah = arg;
	size_t i = ah->making;
	struct tsr_ahead_file *f = &ah->file[i % 2];
	memset(f, 0, sizeof(*f));
	int st = tsr_open(ah->ctx, ah->paths[i], ah->oo, &f->array);
	/* (the selection's failure as the batch's tsr_selection_shape gives it) */
	if (st == TSR_OK)
		st = tsr_array_sel_norm(f->array, ah->sel, &f->ns);
	f->open_st = st;
	if (st) {
		snprintf(f->msg, sizeof(f->msg), "%s", tsr_errmsg());
		return;
	}
	double t0 = tsr_now();
	st = tsr_read_prepare(f->array, &f->ns, 1, ah->opts, &f->prep);
	/* A file of many tasks is described on helpers (tsr_plan_describe_on splits from 1,024),
	 * here and in its read, beside its feed's readers: its read then takes its share of the
	 * batch's threads (tsr_ahead_start). A smaller file's read keeps them all for its reads. */
	const int many = st == TSR_OK && f->prep.plan.ntasks >= 1024;
	if (many)
		f->prep.nthreads = ah->nread;
	/* the describing threads made on first need, so that a batch of small files starts one
	 * thread, not nine */
	if (many && !ah->aid && ah->naid > 1 && tsr_pool_create(ah->naid, &ah->aid) != TSR_OK)
		ah->aid = NULL; /* (none to be had: this thread describes alone) */
	/* (the mock backends describe from their cache, which the read's own fetch fills: their
	 * tasks are described in their turn, by the engine) */
	if (st == TSR_OK && !f->prep.store.be->prepare) {
		st = tsr_cuda_describe_ahead(f->array, &f->prep.plan, &f->prep.store,
					     f->prep.decoder, f->prep.nthreads, ah->aid, ah->naid,
					     &f->prep.descs, &ah->laid[i % 2]);
		f->prep.laid = ah->laid[i % 2];
	}
	f->t_plan = tsr_now() - t0;
	f->plan_st = st;
	if (st)
		snprintf(f->msg, sizeof(f->msg), "%s", tsr_errmsg());
}

static void tsr_ahead_file_free(struct tsr_ahead_file *f)
{
	tsr_read_prep_free(&f->prep);
	tsr_norm_sel_free(&f->ns);
	tsr_array_free(f->array);
	memset(f, 0, sizeof(*f));
}

struct tsr_ahead *tsr_ahead_start(struct tsr_context *ctx, const char *const *paths,
				  size_t npaths, const struct tsr_open_options *oo,
				  const struct tsr_selection *sel, const struct tsr_read_options *opts,
				  int nthreads)
{
	if (!TSR_CUDA_AHEAD || tsr_aid_count(nthreads) < 2 || npaths < 2)
		return NULL;
	/* The batch's threads are the read's: for a file of many tasks TSR_AHEAD_READ_EIGHTHS of
	 * them read (the feed's; 3: 6 of 16), and half of those describe with each file's read and
	 * as many with the look-ahead (3 each of 16). With
	 * each file's read taking all of them (16 readers, 8 + 8 describing, on the H200's 16
	 * cores) 32 RICE_1 int16 files of 4096^2 went to the GPU at 27.5-29.9 GB/s; with 8 (8
	 * readers, 4 + 4) at 35.7-42.3, in the same runs; with 6, 43.3, and with 4, 35.5 (the feed
	 * then too slow: 7 ms waiting). */
	int nread = nthreads * TSR_AHEAD_READ_EIGHTHS / 8;
	nread = nread < 1 ? 1 : nread;
	struct tsr_ahead *ah = calloc(1, sizeof(*ah));
	if (!ah)
		return NULL;
	*ah = (struct tsr_ahead){.ctx = ctx, .paths = paths, .npaths = npaths, .oo = oo,
				 .sel = sel, .opts = opts, .naid = TSR_AHEAD_AID > 0 ? TSR_AHEAD_AID : tsr_aid_count(nread),
				 .nread = nread};
	if (tsr_pool_create(2, &ah->thread)) {
		free(ah); /* (no thread to be had: the batch reads file by file) */
		return NULL;
	}
	ah->making = 0;
	tsr_pool_start(ah->thread, 2, tsr_ahead_make, ah);
	return ah;
}

int tsr_ahead_take(struct tsr_ahead *ah, size_t i, struct tsr_ahead_file **file_ret,
		   struct tsr_array **array_ret, int *ndim_ret, int64_t shape_ret[TSR_MAX_DIM])
{
	/* files are taken in order: file i is the one the thread makes */
	tsr_pool_wait(ah->thread);
	ah->making = ah->npaths;
	struct tsr_ahead_file *f = &ah->file[i % 2];
	if (i + 1 < ah->npaths) {
		/* the slot of file i - 1, read by now */
		tsr_ahead_file_free(&ah->file[(i + 1) % 2]);
		ah->making = i + 1;
		tsr_pool_start(ah->thread, 2, tsr_ahead_make, ah);
	}
	*file_ret = f;
	*array_ret = f->array;
	if (f->open_st) {
		tsr_error_set_text(f->msg);
		return f->open_st;
	}
	*ndim_ret = f->ns.out_ndim;
	for (int d = 0; d < f->ns.out_ndim; d++)
		shape_ret[d] = f->ns.out_shape[d];
	return TSR_OK;
}

int tsr_ahead_read(struct tsr_ahead_file *f, const struct tsr_buffer *dst,
		   struct tsr_receipt *r, int batch)
{
	double t_start = tsr_now();
	struct tsr_array *a = f->array;
	tsr_receipt_init(a, r);
	/* tsr_read_norm's check, then its planning's failure, as the read in its turn gives them */
	int st = tsr_read_room(a, &f->ns, dst);
	if (st)
		return st;
	if (f->plan_st) {
		tsr_error_set_text(f->msg);
		return f->plan_st;
	}
	r->t_plan = f->t_plan;
	return tsr_read_execute(a, &f->ns, dst->data, dst->cuda_stream, 1, batch, &f->prep, r,
				t_start);
}

void tsr_ahead_free(struct tsr_ahead *ah)
{
	if (!ah)
		return;
	tsr_pool_wait(ah->thread);
	tsr_ahead_file_free(&ah->file[0]);
	tsr_ahead_file_free(&ah->file[1]);
	tsr_pool_free(ah->thread);
	tsr_cuda_laid_free(ah->laid[0]);
	tsr_cuda_laid_free(ah->laid[1]);
	if (ah->aid)
		tsr_pool_free(ah->aid);
	free(ah);
}
