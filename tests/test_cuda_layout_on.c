/* test_cuda_layout_on.c - a batch member's layout made on several threads (tsr_cuda_layout_on)
 * is the layout one thread makes (tsr_cuda_layout): every task's route and sizes byte for byte,
 * and every count, size and codec name of the read's, whatever the thread count and part
 * boundaries, for streams, raw chunks, chunks the CPU decodes and missing (fill) chunks mixed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "write_file.h"
#include "cuda_layout_read.h"
#include "core/internal.h"
#include "engine/cuda_layout.h"

#define NCHUNKS 5003 /* (parts of uneven length on 2, 3 and 4 threads: 7 asked make 4) */

static int same_layout(const struct tsr_cuda_layout *x, const struct tsr_cuda_layout *y)
{
	int same = x->n_stream == y->n_stream && x->n_raw == y->n_raw &&
		   x->n_dequant == y->n_dequant && x->n_blosc == y->n_blosc &&
		   x->n_host == y->n_host && x->biggest == y->biggest &&
		   x->dec_biggest == y->dec_biggest && x->dec_total == y->dec_total &&
		   x->staged_total == y->staged_total && x->gpu_decoded == y->gpu_decoded &&
		   x->n_cpu_whole == y->n_cpu_whole && x->cpu_whole_biggest == y->cpu_whole_biggest &&
		   x->nthreads == y->nthreads;
	for (int w = 0; w < TSR_WHY_N; w++)
		same &= x->n_cpu[w] == y->n_cpu[w] && x->cpu_name[w] == y->cpu_name[w];
	for (int f = 0; f < TSR_FAM_N; f++)
		same &= x->n_gpu[f] == y->n_gpu[f] && x->gpu_name[f] == y->gpu_name[f];
	return same;
}

/* Lays out dir's whole read as a batch member on one thread and on 2, 3, 4 and 7; returns the
 * tasks compared. */
static int64_t check_store(struct tsr_context *ctx, const char *dir, int decoder,
			   struct tsr_pool *pool)
{
	struct layout_read lr;
	if (layout_read(ctx, dir, 16, decoder, &lr)) {
		layout_read_free(&lr);
		return 0;
	}
	int64_t n = lr.plan.ntasks;
	size_t nb = (size_t)n * sizeof(struct tsr_cuda_task);
	struct tsr_cuda_task *one = malloc(nb), *many = malloc(nb);
	CHECK(one && many);
	struct tsr_cuda_layout L1, Ln;
	for (int k = 0; one && many && k < 4; k++) {
		const int naid[] = {2, 3, 4, 7};
		memset(one, 0xa5, nb), memset(many, 0xa5, nb);
		memset(&L1, 0x5a, sizeof(L1)), memset(&Ln, 0x5a, sizeof(Ln));
		tsr_cuda_layout(lr.a, &lr.plan, lr.ds, decoder, TSR_BATCH_MEMBER, 16, one, &L1);
		tsr_cuda_layout_on(lr.a, &lr.plan, lr.ds, 16, pool, naid[k], many, &Ln);
		if (memcmp(one, many, nb) || !same_layout(&L1, &Ln)) {
			fprintf(stderr, "%s: laid out otherwise on %d threads\n", dir, naid[k]);
			check_failures++;
		}
	}
	free(one);
	free(many);
	layout_read_free(&lr);
	return n;
}

int main(void)
{
	char dir[4][256], path[300];
	const char *comp[] = {"{\"id\":\"zstd\",\"level\":1}", "null", "{\"id\":\"blosc\"}",
			      "{\"id\":\"gzip\",\"level\":1}"};
	struct tsr_context *ctx = NULL;
	struct tsr_pool *pool = NULL;
	CHECK_EQ_INT(tsr_context_create(NULL, &ctx), TSR_OK);
	CHECK_EQ_INT(tsr_pool_create(7, &pool), TSR_OK);
	int64_t tasks = 0;
	for (int s = 0; s < 4; s++) {
		snprintf(dir[s], sizeof(dir[s]), "/tmp/tsr_layout_on_%d_%d", (int)getpid(), s);
		CHECK_EQ_INT(make_u16_store_with(dir[s], NCHUNKS, 256, comp[s]), 0);
		/* missing chunks read as fill: every 7th, a run across a part's end, and the last
		 * ones (a last part with no chunk of a route keeps the first part's name) */
		for (int c = 0; c < NCHUNKS; c++)
			if (c % 7 == 3 || (c >= 1240 && c < 1270) || c >= 3700) {
				snprintf(path, sizeof(path), "%s/%d", dir[s], c);
				unlink(path);
			}
		tasks += check_store(ctx, dir[s], TSR_DECODER_GPU, pool);
		tasks += check_store(ctx, dir[s], TSR_DECODER_CPU, pool);
		tasks += check_store(ctx, dir[s], TSR_DECODER_AUTO, pool);
	}
	for (int s = 0; s < 4; s++)
		remove_store(dir[s], NCHUNKS);
	tsr_pool_free(pool);
	tsr_context_free(ctx);
	CHECK_EQ_INT(tasks, 12 * NCHUNKS);
	CHECK_DONE();
}
