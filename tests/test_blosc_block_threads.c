/* test_blosc_block_threads.c - one large blosc chunk read by many threads at once, its blocks
 * split into block tasks: a b2nd chunk whose blocks are runs of it, one whose blocks are boxes,
 * and a big-endian Zarr v2 blosc chunk. Whole reads with 1, 2 and 16 threads and random
 * sections from 16 threads sharing one handle must equal the data written; a corrupt block's
 * message names the file, the chunk and the block. CI runs it under ThreadSanitizer too. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "tessera.h"
#include "test_blosc2_frame.h"
#include "write_file.h"

#define NTHREADS 16

struct shared {
	struct tsr_array *a;
	const int32_t *want; /* C order over shape: values as the read returns them */
	int64_t shape[2];
	int iters;
};

struct worker {
	struct shared *sh;
	uint64_t seed;
	int bad;
	char why[256];
};

static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A random slice of [0, n): whole, large or small, steps 1, 2, -1 or -3. Fills idx. */
static void random_slice(uint64_t *seed, int64_t n, struct tsr_sel_item *it, int64_t *idx,
			 int64_t *count)
{
	memset(it, 0, sizeof(*it));
	it->kind = TSR_SEL_SLICE;
	int64_t step = (int64_t[]){1, 1, 2, -1, -3}[rnd(seed) % 5];
	int64_t len = rnd(seed) % 3 ? n : 1 + (int64_t)(rnd(seed) % 40); /* mostly large: splits */
	int64_t a = step > 0 ? (int64_t)(rnd(seed) % (uint64_t)(n / 4 + 1))
			     : n - 1 - (int64_t)(rnd(seed) % (uint64_t)(n / 4 + 1));
	it->step = step;
	it->has_step = it->has_start = 1;
	it->start = a;
	*count = 0;
	int64_t b = a + len * step;
	if (b >= 0) {
		it->stop = b;
		it->has_stop = 1;
	}
	for (int64_t i = a; (step > 0 ? i < b && i < n : i > b && i >= 0); i += step)
		idx[(*count)++] = i;
}

static void *reader(void *arg)
{
	struct worker *w = arg;
	struct shared *sh = w->sh;
	size_t cap = (size_t)(sh->shape[0] * sh->shape[1]);
	int32_t *got = malloc(cap * 4);
	int64_t *idx0 = malloc((size_t)sh->shape[0] * 8), *idx1 = malloc((size_t)sh->shape[1] * 8);
	for (int it = 0; it < sh->iters && !w->bad; it++) {
		struct tsr_selection sel = {.nitems = 2};
		int64_t n0, n1;
		random_slice(&w->seed, sh->shape[0], &sel.items[0], idx0, &n0);
		random_slice(&w->seed, sh->shape[1], &sel.items[1], idx1, &n1);
		int whole = it % 4 == 0;
		if (whole) {
			n0 = sh->shape[0];
			n1 = sh->shape[1];
			for (int64_t i = 0; i < n0; i++)
				idx0[i] = i;
			for (int64_t i = 0; i < n1; i++)
				idx1[i] = i;
		}
		struct tsr_read_options ro = {.struct_size = sizeof(ro),
					      .nthreads = (int[]){0, 2, 16, 1}[it % 4]};
		struct tsr_buffer dst = {got, (size_t)(n0 * n1) * 4, TSR_MEM_HOST, NULL};
		if (tsr_read(sh->a, whole ? NULL : &sel, &dst, &ro, NULL) != TSR_OK) {
			snprintf(w->why, sizeof(w->why), "read %d failed: %s", it, tsr_errmsg());
			w->bad = 1;
			break;
		}
		for (int64_t i = 0; i < n0 && !w->bad; i++)
			for (int64_t j = 0; j < n1; j++)
				if (got[i * n1 + j] != sh->want[idx0[i] * sh->shape[1] + idx1[j]]) {
					snprintf(w->why, sizeof(w->why),
						 "read %d (%s, %lld x %lld) differs at (%lld, %lld)", it,
						 whole ? "whole" : "section", (long long)n0,
						 (long long)n1, (long long)idx0[i], (long long)idx1[j]);
					w->bad = 1;
					break;
				}
	}
	free(got);
	free(idx0);
	free(idx1);
	return NULL;
}

/* Whole reads with 1, 2 and 16 threads, then 16 threads at once on one handle. */
static void check_array(struct tsr_context *ctx, const char *path, const int32_t *want,
			int64_t rows, int64_t cols, int iters)
{
	struct shared sh = {.want = want, .shape = {rows, cols}, .iters = iters};
	if (tsr_open(ctx, path, NULL, &sh.a) != TSR_OK) {
		fprintf(stderr, "%s: %s\n", path, tsr_errmsg());
		CHECK(0);
		return;
	}
	size_t nbytes = (size_t)(rows * cols) * 4;
	int32_t *got = malloc(nbytes);
	for (int k = 0; k < 3; k++) {
		int nt = (int[]){1, 2, 16}[k];
		struct tsr_read_options ro = {.struct_size = sizeof(ro), .nthreads = nt};
		struct tsr_buffer dst = {got, nbytes, TSR_MEM_HOST, NULL};
		struct tsr_receipt r = {.struct_size = sizeof(r)};
		memset(got, 0xA5, nbytes);
		int st = tsr_read(sh.a, NULL, &dst, &ro, &r);
		if (st)
			fprintf(stderr, "%s, %d threads: %s\n", path, nt, tsr_errmsg());
		CHECK_EQ_INT(st, TSR_OK);
		CHECK(memcmp(got, want, nbytes) == 0);
		/* one chunk: more than one thread at work means its blocks were split */
		CHECK(nt == 1 ? r.nthreads == 1 : r.nthreads >= 2);
	}
	free(got);
	pthread_t th[NTHREADS];
	struct worker w[NTHREADS];
	for (int i = 0; i < NTHREADS; i++) {
		w[i] = (struct worker){&sh, 99991u + 7919u * (uint64_t)i, 0, ""};
		CHECK_EQ_INT(pthread_create(&th[i], NULL, reader, &w[i]), 0);
	}
	for (int i = 0; i < NTHREADS; i++) {
		pthread_join(th[i], NULL);
		if (w[i].bad)
			fprintf(stderr, "%s, thread %d (seed %llu): %s\n", path, i,
				(unsigned long long)(99991u + 7919u * (uint64_t)i), w[i].why);
		CHECK(!w[i].bad);
	}
	tsr_array_free(sh.a);
}

int main(void)
{
	const char *ie = getenv("TSR_THREAD_ITERS");
	/* each read here is a whole chunk's worth: a quarter of the harness's iterations */
	int iters = ie ? (atoi(ie) + 3) / 4 : 12;
	char dir[] = "/tmp/tsr_blkthr_XXXXXX", path[512];
	CHECK(mkdtemp(dir) != NULL);
	struct tsr_context_options co = {sizeof(co), NTHREADS};
	struct tsr_context *ctx;
	CHECK_EQ_INT(tsr_context_create(&co, &ctx), TSR_OK);

	/* 640 x 480 int32 (1.2 MiB: a few shares of TSR_CPU_PART_NBYTES), compressible but varied */
	const int64_t R = 640, C = 480;
	int32_t *data = malloc((size_t)(R * C) * 4);
	for (int64_t i = 0; i < R * C; i++)
		data[i] = (int32_t)((i / 7) % 1000 + (int64_t)((i * 2654435761u) >> 28));

	/* b2nd, one chunk, blocks of whole rows: blocks are runs of the chunk (and of the array) */
	struct b2w_array rows = {.ndim = 2, .shape = {R, C}, .chunks = {R, C}, .blocks = {16, C},
				 .typesize = 4, .dtype = "<i4", .data = data};
	snprintf(path, sizeof(path), "%s/rows.b2nd", dir);
	CHECK_EQ_INT(b2w_write(path, &rows), 0);
	check_array(ctx, path, data, R, C, iters);

	/* b2nd, one chunk, blocks that are boxes (edge blocks padded on both axes) */
	struct b2w_array boxes = {.ndim = 2, .shape = {R, C}, .chunks = {R, C}, .blocks = {40, 70},
				  .typesize = 4, .dtype = "<i4", .data = data};
	snprintf(path, sizeof(path), "%s/boxes.b2nd", dir);
	CHECK_EQ_INT(b2w_write(path, &boxes), 0);
	check_array(ctx, path, data, R, C, iters);

	/* Zarr v2, one big-endian blosc chunk of 30 KiB blocks (the last one short) */
	snprintf(path, sizeof(path), "%s/be.zarr", dir);
	CHECK_EQ_INT(mkdir(path, 0755), 0);
	char meta[512], file[600];
	snprintf(meta, sizeof(meta),
		 "{\"zarr_format\": 2, \"shape\": [%lld, %lld], \"chunks\": [%lld, %lld], "
		 "\"dtype\": \">i4\", \"compressor\": {\"id\": \"blosc\", \"cname\": \"lz4\", "
		 "\"clevel\": 5, \"shuffle\": 0, \"blocksize\": 0}, \"fill_value\": 0, "
		 "\"filters\": null, \"order\": \"C\"}",
		 (long long)R, (long long)C, (long long)R, (long long)C);
	snprintf(file, sizeof(file), "%s/.zarray", path);
	CHECK_EQ_INT(write_file(file, meta, strlen(meta)), 0);
	size_t n = (size_t)(R * C) * 4, bs = 30 << 10;
	uint8_t *be = malloc(n), *chunk = malloc(2 * n + 65536);
	for (size_t i = 0; i < n; i += 4)
		for (int k = 0; k < 4; k++)
			be[i + (size_t)k] = ((const uint8_t *)data)[i + 3 - (size_t)k];
	size_t cn = b2w_chunk(chunk, be, n, bs, 4, 0);
	snprintf(file, sizeof(file), "%s/0.0", path);
	CHECK_EQ_INT(write_file(file, chunk, cn), 0);
	check_array(ctx, path, data, R, C, iters);

	/* A corrupt block (its stream says it runs past the chunk): the message names the
	 * file, the chunk and the block, whatever thread decoded it. */
	int64_t bad = 17;
	uint32_t bstart = (uint32_t)chunk[32 + 4 * bad] | (uint32_t)chunk[33 + 4 * bad] << 8 |
			  (uint32_t)chunk[34 + 4 * bad] << 16 | (uint32_t)chunk[35 + 4 * bad] << 24;
	b2w_le32(chunk + bstart, 0x7ffffff0u);
	CHECK_EQ_INT(write_file(file, chunk, cn), 0);
	struct tsr_array *a;
	CHECK_EQ_INT(tsr_open(ctx, path, NULL, &a), TSR_OK);
	int32_t *got = malloc(n);
	for (int k = 0; k < 2; k++) {
		struct tsr_read_options ro = {.struct_size = sizeof(ro), .nthreads = k ? 16 : 2};
		struct tsr_buffer dst = {got, n, TSR_MEM_HOST, NULL};
		CHECK_EQ_INT(tsr_read(a, NULL, &dst, &ro, NULL), TSR_E_CORRUPT);
		const char *msg = tsr_errmsg();
		if (!strstr(msg, "be.zarr") || !strstr(msg, "chunk") || !strstr(msg, "block 17"))
			fprintf(stderr, "message lacks file, chunk or block: %s\n", msg);
		CHECK(strstr(msg, "be.zarr") && strstr(msg, "chunk") && strstr(msg, "block 17"));
	}
	tsr_array_free(a);
	free(got);
	free(be);
	free(chunk);
	free(data);
	tsr_context_free(ctx);
	snprintf(file, sizeof(file), "rm -rf '%s'", dir);
	CHECK(system(file) == 0);
	CHECK_DONE();
}
