/* test_cuda_fill_file_order.c - a CUDA read puts its tasks in file order where their files repeat (tsr_cuda_file_order), then fills its slots in turn (tsr_cuda_fill_slot): a sharded store's inner chunks, planned in C order across the array, lie each shard's together and by offset, so that a slot holds whole shards and the feed reads each shard's run in it in one read; every task is laid once, in the slot's bounds, and stores of one chunk a file keep the plan's order. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "write_file.h"
#include "cuda_layout_read.h"
#include "io/storage.h"

/* The store: uint16 [8, 48] in shards [4, 16] of inner chunks [2, 4], so 2 x 4 inner chunks a
 * shard, 2 x 3 shards; the plan's rows cross three shards, two inner rows a shard. */
#define ROWS 8
#define COLS 48
#define SR 4
#define SC 16
#define IR 2
#define IC 4
#define NSHARDS ((ROWS / SR) * (COLS / SC))
#define NINNER ((SR / IR) * (SC / IC))

/* Writes the store at dir with inner codecs codecs (JSON); inner chunks hold stand-in bytes of
 * size(k) (layout reads only the shard indexes), in C order in their shard, the index last. */
static int make_sharded(const char *dir, const char *codecs, size_t (*size)(int))
{
	char path[512], meta[1024];
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/c", dir);
	mkdir(path, 0755);
	snprintf(meta, sizeof(meta),
		 "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[%d,%d],"
		 "\"data_type\":\"uint16\",\"chunk_grid\":{\"name\":\"regular\",\"configuration\":"
		 "{\"chunk_shape\":[%d,%d]}},\"chunk_key_encoding\":{\"name\":\"default\"},"
		 "\"fill_value\":0,\"codecs\":[{\"name\":\"sharding_indexed\",\"configuration\":"
		 "{\"chunk_shape\":[%d,%d],\"codecs\":%s,\"index_codecs\":[{\"name\":\"bytes\","
		 "\"configuration\":{\"endian\":\"little\"}}]}}]}",
		 ROWS, COLS, SR, SC, IR, IC, codecs);
	snprintf(path, sizeof(path), "%s/zarr.json", dir);
	if (write_file(path, meta, strlen(meta)))
		return -1;
	for (int r = 0; r < ROWS / SR; r++) {
		snprintf(path, sizeof(path), "%s/c/%d", dir, r);
		mkdir(path, 0755);
		for (int c = 0; c < COLS / SC; c++) {
			unsigned char buf[NINNER * 64 + NINNER * 16];
			uint64_t at = 0, index[2 * NINNER];
			for (int k = 0; k < NINNER; k++) {
				size_t n = size(k + NINNER * (r * (COLS / SC) + c));
				memset(buf + at, 0x5a, n);
				index[2 * k] = at;
				index[2 * k + 1] = n;
				at += n;
			}
			memcpy(buf + at, index, sizeof(index)); /* (little-endian hosts) */
			snprintf(path, sizeof(path), "%s/c/%d/%d", dir, r, c);
			if (write_file(path, buf, (size_t)at + sizeof(index)))
				return -1;
		}
	}
	return 0;
}

static void remove_sharded(const char *dir)
{
	char path[512];
	for (int r = 0; r < ROWS / SR; r++) {
		for (int c = 0; c < COLS / SC; c++) {
			snprintf(path, sizeof(path), "%s/c/%d/%d", dir, r, c);
			unlink(path);
		}
		snprintf(path, sizeof(path), "%s/c/%d", dir, r);
		rmdir(path);
	}
	snprintf(path, sizeof(path), "%s/c", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/zarr.json", dir);
	unlink(path);
	rmdir(dir);
}

/* zstd: odd sizes, so that streams lie unaligned; raw: the chunk's 16 bytes */
static size_t odd_size(int k) { return 9 + (size_t)(k * 7 % 13); }
static size_t raw_size(int k) { return (void)k, IR * IC * 2; }

/* Fills the read's slots of nbytes each as the CUDA engine does and checks each: its tasks laid
 * in its bounds without overlap, each file's tasks together and by offset, and the feed's reads
 * of its spans one a run of chunks back to back in a file. Returns the reads of all slots. */
static int64_t fill_and_check(struct layout_read *lr, size_t nbytes, int64_t *nslots)
{
	*nslots = 0;
	const int64_t n = lr->plan.ntasks;
	char *seen = calloc((size_t)n, 1);
	struct tsr_span *spans = malloc((size_t)n * sizeof(*spans));
	int64_t *task = malloc((size_t)n * sizeof(*task)), reads = 0;
	struct tsr_piece *pieces = NULL;
	size_t pcap = 0;
	int64_t t0 = 0;
	while (seen && spans && task && t0 < n) {
		struct tsr_cuda_fill f = {.nbytes = nbytes, .dec_nbytes = (size_t)1 << 30};
		int64_t t1 = tsr_cuda_fill_slot(lr->tasks, n, t0, &f);
		CHECK(t1 > t0);
		if (t1 <= t0)
			break;
		int64_t runs = 0;
		for (int64_t t = t0; t < t1; t++) {
			const struct tsr_cuda_task *ct = &lr->tasks[t];
			CHECK(ct->t >= 0 && ct->t < n && !seen[ct->t]);
			if (ct->t >= 0 && ct->t < n)
				seen[ct->t] = 1;
			CHECK(ct->slot_offset + ct->staged <= f.used && f.used <= nbytes);
			if (t == t0) {
				runs++;
				continue;
			}
			const struct tsr_cuda_task *pv = ct - 1;
			CHECK(ct->slot_offset >= pv->slot_offset + pv->staged);
			if (ct->ti->path != pv->ti->path) {
				/* a new file: none of the slot's earlier tasks is in it */
				for (int64_t u = t0; u < t; u++)
					CHECK(lr->tasks[u].ti->path != ct->ti->path);
				runs++;
				continue;
			}
			CHECK(ct->ti->offset >= pv->ti->offset + pv->ti->nbytes);
			runs += ct->ti->offset != pv->ti->offset + pv->ti->nbytes ||
				ct->slot_offset != pv->slot_offset + pv->staged;
		}
		int64_t k = tsr_cuda_spans(lr->tasks + t0, t1 - t0, 1, spans, task);
		int64_t np = 0;
		CHECK_EQ_INT(tsr_coalesce(spans, k, &tsr_cuda_feed_rule, &pieces, &np, &pcap), TSR_OK);
		CHECK(np == runs);
		reads += np;
		++*nslots;
		t0 = t1;
	}
	for (int64_t t = 0; seen && t < n; t++)
		CHECK(seen[t]);
	free(pieces);
	free(task);
	free(spans);
	free(seen);
	return reads;
}

int main(void)
{
	struct tsr_context *ctx = NULL;
	CHECK_EQ_INT(tsr_context_create(NULL, &ctx), TSR_OK);
	char dir[256];
	snprintf(dir, sizeof(dir), "/tmp/tsr-fill-order-%d.zarr", (int)getpid());
	static const char *zstd = "[{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}},"
				  "{\"name\":\"zstd\",\"configuration\":{\"level\":1}}]";
	static const char *raw = "[{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}}]";
	for (int variant = 0; variant < 2; variant++) {
		CHECK_EQ_INT(make_sharded(dir, variant ? raw : zstd, variant ? raw_size : odd_size), 0);
		/* one slot: each shard's chunks one read; slots of 160 bytes (about ten tasks):
		 * runs cut at the slots' bounds, each still one read */
		const size_t slot[2] = {(size_t)1 << 20, 160};
		/* the read in file order first, as the engine puts it: each shard's tasks
		 * together across the read, so that a slot's reads are the shards it holds, at
		 * most one a slot more than the shards */
		for (int k = 0; k < 2; k++) {
			struct layout_read lr;
			if (layout_read(ctx, dir, 4, TSR_DECODER_GPU, &lr) == 0) {
				const int64_t n = lr.plan.ntasks;
				CHECK_EQ_INT(tsr_cuda_file_order(lr.tasks, n), 1);
				int nfiles = 1;
				for (int64_t t = 1; t < n; t++) {
					const struct tsr_task_info *a = lr.tasks[t - 1].ti,
								   *b = lr.tasks[t].ti;
					if (a->path == b->path) {
						CHECK(b->offset > a->offset);
						continue;
					}
					nfiles++;
					for (int64_t u = 0; u < t; u++)
						CHECK(lr.tasks[u].ti->path != b->path);
				}
				CHECK_EQ_INT(nfiles, NSHARDS);
				CHECK_EQ_INT(tsr_cuda_file_order(lr.tasks, n), 0);
				int64_t nslots, reads = fill_and_check(&lr, slot[k], &nslots);
				CHECK(reads >= NSHARDS && reads <= NSHARDS + nslots - 1);
				if (k == 0)
					CHECK_EQ_INT(reads, NSHARDS);
			}
			layout_read_free(&lr);
		}
		remove_sharded(dir);
	}

	/* a store of one chunk a file (Zarr v2): the plan's order kept */
	CHECK_EQ_INT(make_u16_store(dir, 40, 1000, 1), 0);
	struct layout_read lr;
	if (layout_read(ctx, dir, 4, TSR_DECODER_GPU, &lr) == 0) {
		CHECK_EQ_INT(tsr_cuda_file_order(lr.tasks, lr.plan.ntasks), 0);
		int64_t nslots;
		CHECK_EQ_INT(fill_and_check(&lr, (size_t)1 << 20, &nslots), 40);
		for (int64_t t = 0; t < lr.plan.ntasks; t++)
			CHECK_EQ_INT(lr.tasks[t].t, t);
	}
	layout_read_free(&lr);
	remove_store(dir, 40);
	tsr_context_free(ctx);
	CHECK_DONE();
}
