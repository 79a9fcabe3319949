/* test_gpu_slot_reads.c - the CUDA engine's slot fill reads stored bytes through the storage backend (no GPU needed): every task's bytes land at its slot offset, coalesced and split by the one rule, from several worker threads at once. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../check.h"
#include "engine/cuda_engine.h"
#include "tessera.h"

#define NTASKS 300
#define HEAP ((size_t)24 << 20)

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n ? rng % n : 0;
}

static void put_file(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	CHECK(f != NULL);
	if (f) {
		CHECK(fwrite(data, 1, n, f) == n);
		fclose(f);
	}
}

/* The tasks' descriptions, served by a posix backend whose driver is this table (chunk c:
 * refs[c]), so that the plan describes them as a read's does. */
static struct tsr_chunk_ref *refs;
static int table_chunk_ref(const struct tsr_array *a, int64_t chunk, int settle,
			   struct tsr_chunk_ref *ref)
{
	(void)a, (void)settle;
	*ref = refs[chunk];
	return TSR_OK;
}

static void *run_worker(void *job)
{
	tsr_cuda_worker(job, 0);
	return NULL;
}

int main(void)
{
	char dir[] = "/tmp/tsr_slot_reads_XXXXXX", path[256], heap[256];
	CHECK(mkdtemp(dir) != NULL);
	/* an array for the job to name chunks by (its chunks are not what is read) */
	const char *meta = "{\"zarr_format\":2,\"shape\":[8],\"chunks\":[2],\"dtype\":\"<u1\","
			   "\"compressor\":null,\"fill_value\":0,\"order\":\"C\",\"filters\":null}";
	snprintf(path, sizeof(path), "%s/.zarray", dir);
	put_file(path, meta, strlen(meta));
	/* the stored bytes: one file of tiles (a FITS heap), read by the tasks' refs */
	unsigned char *bytes = malloc(HEAP);
	for (size_t i = 0; i < HEAP; i++)
		bytes[i] = (unsigned char)(rnd(256));
	snprintf(heap, sizeof(heap), "%s/heap", dir);
	put_file(heap, bytes, HEAP);

	struct tsr_context *ctx = NULL;
	struct tsr_array *a = NULL;
	CHECK_EQ_INT(tsr_context_create(NULL, &ctx), TSR_OK);
	CHECK_EQ_INT(tsr_open(ctx, dir, NULL, &a), TSR_OK);
	if (!a)
		CHECK_DONE();
	struct tsr_backend table_be = tsr_storage_posix;
	table_be.chunk_ref = table_chunk_ref;
	refs = calloc(NTASKS, sizeof(*refs));

	for (int round = 0; round < 6; round++) {
		/* tasks: runs of small tiles back to back in the file and the slot, gaps, large
		 * chunks (read in pieces), tasks the CPU decodes in between (their values staged,
		 * nothing read here: they have no stored bytes, a missing chunk's fill) */
		struct tsr_cuda_task *tasks = calloc(NTASKS, sizeof(*tasks));
		int64_t ptasks[NTASKS * 3];
		struct tsr_plan plan = {.ndim = 1, .ntasks = NTASKS, .stride = 3, .tasks = ptasks};
		uint64_t off = rnd(1000), slot = 0, want_read = 0;
		for (int t = 0; t < NTASKS; t++) {
			struct tsr_cuda_task *ct = &tasks[t];
			ptasks[3 * t] = t;
			ptasks[3 * t + 1] = 0;
			ptasks[3 * t + 2] = 1;
			ct->t = t;
			int cpu = rnd(10) == 0;
			uint64_t n = rnd(6) == 0 ? 1 + rnd((uint64_t)2 << 20) : rnd(70000);
			if (off + n > HEAP)
				off = rnd(1000);
			if (rnd(4) == 0)
				off += rnd(300);
			if (rnd(4) == 0)
				slot += 16;
			struct tsr_chunk_ref *ref = &refs[t];
			memset(ref, 0, sizeof(*ref));
			ref->ndim = 1;
			snprintf(ref->path, sizeof(ref->path), "%s", heap);
			ct->how = cpu ? TSR_HOW_CPU : rnd(2) ? TSR_HOW_RAW : TSR_HOW_STREAM;
			ref->codec.id = cpu ? TSR_CODEC_FILL : TSR_CODEC_NONE;
			if (cpu) { /* 8 int32 values of 0x01020304, made by the worker */
				ref->npix = 8;
				ref->xform.out = TSR_INT32;
				ref->xform.has_fill = 1;
				memcpy(ref->xform.fill, "\x04\x03\x02\x01", 4);
			}
			ref->offset = off;
			ref->nbytes = cpu ? 0 : n;
			ct->slot_offset = (size_t)slot;
			ct->staged = cpu ? 32 : (size_t)n;
			if (!cpu) {
				off += n;
				want_read += n;
			}
			slot += ct->staged;
		}
		struct tsr_plan_descs *ds = NULL;
		CHECK_EQ_INT(tsr_plan_describe(&plan, a, &table_be, 0, NULL, &ds), TSR_OK);
		if (!ds)
			CHECK_DONE();
		for (int t = 0; t < NTASKS; t++)
			tasks[t].ti = tsr_task_info(ds, t);
		unsigned char *host = malloc(slot + 1);
		memset(host, 0xa5, slot + 1);
		struct tsr_cuda_job job;
		memset(&job, 0, sizeof(job));
		pthread_mutex_init(&job.lock, NULL);
		tsr_job_error_init(&job.err);
		job.array = a;
		job.plan = &plan;
		job.descs = ds;
		job.tasks = tasks;
		job.ntasks = NTASKS;
		job.host = host;
		job.group = 1 + (int64_t)rnd(8);
		job.be = &table_be;
		atomic_init(&job.next, 0);
		CHECK_EQ_INT(tsr_cuda_pieces(&job), TSR_OK);
		/* the pieces: only the tasks whose stored bytes the GPU gets, each in the rule's
		 * sizes */
		uint64_t sum = 0;
		for (int64_t k = 0; k < job.npieces; k++) {
			const struct tsr_piece *pc = &job.pieces[k];
			CHECK(pc->span >= 0 && pc->span < NTASKS);
			CHECK(tasks[pc->span].how != TSR_HOW_CPU);
			CHECK(pc->nbytes <= ((uint64_t)4 << 20));
			CHECK(pc->nspans == 1 || pc->nbytes <= ((uint64_t)4 << 20));
			CHECK(pc->nspans > 1 || pc->nbytes <= TSR_PIECE_NBYTES);
			sum += pc->nbytes;
		}
		CHECK_EQ_INT(sum, want_read);
		/* several workers at once, as the pool runs them */
		int nw = 1 + round % 4;
		pthread_t th[4];
		for (int w = 0; w < nw; w++)
			pthread_create(&th[w], NULL, run_worker, &job);
		for (int w = 0; w < nw; w++)
			pthread_join(th[w], NULL);
		CHECK_EQ_INT(tsr_job_error_take(&job.err), TSR_OK);
		CHECK_EQ_INT(job.bytes_read, want_read);
		/* every task's stored bytes at its slot offset, the CPU tasks' values at theirs,
		 * and nothing past the slot */
		for (int t = 0; t < NTASKS; t++) {
			const struct tsr_cuda_task *ct = &tasks[t];
			if (ct->how == TSR_HOW_CPU) {
				/* decoded on the CPU: a fill chunk's values */
				for (int i = 0; i < 32; i++)
					CHECK_EQ_INT(host[ct->slot_offset + (size_t)i], 4 - i % 4);
				continue;
			}
			if (memcmp(host + ct->slot_offset, bytes + ct->ti->offset,
				   (size_t)ct->ti->nbytes) != 0) {
				fprintf(stderr, "round %d task %d: bytes differ\n", round, t);
				check_failures++;
				break;
			}
		}
		CHECK_EQ_INT(host[slot], 0xa5);
		/* a backend that lends whole chunks has no reads to list */
		job.be = &tsr_storage_mock_host;
		CHECK_EQ_INT(tsr_cuda_pieces(&job), TSR_OK);
		CHECK_EQ_INT(job.npieces, 0);
		free(job.pieces);
		tsr_job_error_destroy(&job.err);
		pthread_mutex_destroy(&job.lock);
		free(host);
		free(tasks);
		tsr_plan_descs_free(ds);
	}
	/* a read that fails names the file and the chunk */
	{
		struct tsr_cuda_task ct;
		memset(&ct, 0, sizeof(ct));
		int64_t pt[3] = {2, 0, 1};
		struct tsr_plan plan = {.ndim = 1, .ntasks = 1, .stride = 3, .tasks = pt};
		memset(&refs[2], 0, sizeof(refs[2]));
		refs[2].ndim = 1;
		snprintf(refs[2].path, sizeof(refs[2].path), "%s", heap);
		ct.how = TSR_HOW_RAW;
		refs[2].offset = HEAP - 10;
		refs[2].nbytes = 20; /* past the file's end */
		struct tsr_plan_descs *ds = NULL;
		CHECK_EQ_INT(tsr_plan_describe(&plan, a, &table_be, 0, NULL, &ds), TSR_OK);
		if (!ds)
			CHECK_DONE();
		ct.ti = tsr_task_info(ds, 0);
		unsigned char host[64];
		struct tsr_cuda_job job;
		memset(&job, 0, sizeof(job));
		pthread_mutex_init(&job.lock, NULL);
		tsr_job_error_init(&job.err);
		job.array = a;
		job.plan = &plan;
		job.descs = ds;
		job.tasks = &ct;
		job.ntasks = 1;
		job.host = host;
		job.group = 1;
		job.be = &table_be;
		CHECK_EQ_INT(tsr_cuda_pieces(&job), TSR_OK);
		tsr_cuda_worker(&job, 0);
		CHECK_EQ_INT(tsr_job_error_take(&job.err), TSR_E_IO);
		CHECK(strstr(tsr_errmsg(), dir) != NULL);
		CHECK(strstr(tsr_errmsg(), "chunk 2") != NULL || strstr(tsr_errmsg(), "2:") != NULL);
		printf("failed read: %s\n", tsr_errmsg());
		free(job.pieces);
		tsr_job_error_destroy(&job.err);
		pthread_mutex_destroy(&job.lock);
		tsr_plan_descs_free(ds);
	}
	free(refs);
	tsr_array_free(a);
	tsr_context_free(ctx);
	free(bytes);
	unlink(heap);
	unlink(path);
	rmdir(dir);
	CHECK_DONE();
}
