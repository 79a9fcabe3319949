/* cuda_fetch.c - filling a CUDA staging slot: the pool's workers read stored bytes (pread, or
 * cuFile straight to the device) or decode chunks on the CPU; the mock-device cache's fill. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../codecs/codecs.h"
#include "../io/cufile.h"
#include "../io/io.h"
#include "../io/mock.h"
#include "../io/mock_device.h"
#include "engine.h"

#ifdef TSR_WITH_CUDA
#include "cuda_engine.h"

/* Reads a chunk's stored bytes into dst (its own file kept open in fc for the next chunk of
 * the same file: inner chunks of a shard). */
static int tsr_cuda_read_stored(const struct tsr_array *a, const struct tsr_chunk_ref *r,
				void *dst, struct tsr_fd_cache *fc)
{
	struct tsr_chunk_ref ref = *r; /* sizes are settled already: nothing changes in it */
	int fd, owned, st = tsr_io_chunk_fd(a, &ref, fc, &fd, &owned);
	if (st == TSR_OK)
		st = tsr_io_pread(fd, dst, (size_t)r->nbytes, r->offset);
	if (owned)
		tsr_io_close(fd);
	return st;
}

/* Reads a chunk's stored bytes (or a piece: ref already narrowed) to dst_offset in the slot:
 * into pinned memory with pread, or straight into device memory with cuFile. */
static int tsr_cuda_read_to_slot(const struct tsr_cuda_job *job, const struct tsr_chunk_ref *r,
				 size_t dst_offset, struct tsr_fd_cache *fc,
				 struct tsr_cufile_file *cf)
{
	if (!job->cufile)
		return tsr_cuda_read_stored(job->array, r, job->host + dst_offset, fc);
	const char *path = r->path[0] ? r->path : job->array->path;
	if (cf->fd < 0 || strcmp(cf->path, path) != 0) {
		tsr_cufile_close(cf);
		int st = tsr_cufile_open(path, cf);
		if (st)
			return st;
	}
	return tsr_cufile_read(cf, job->dev, dst_offset, (size_t)r->nbytes, r->offset);
}

/* Pool worker: fetch (and decode where needed) the batch's chunks into the pinned slot. */
void tsr_cuda_worker(void *arg, int w)
{
	(void)w;
	struct tsr_cuda_job *job = arg;
	struct tsr_scratch scratch = {0};
	struct tsr_fd_cache fc = {.fd = -1};
	struct tsr_cufile_file cf = {.fd = -1};
	unsigned char *fetch = NULL;
	size_t cap = 0;
	double tf = 0, td = 0;
	uint64_t br = 0, bd = 0;
	int64_t i = 0, end = 0;
	if (job->cufile)
		cudaSetDevice(job->device); /* cuFile reads into the read's device memory */
	for (int64_t k; (k = atomic_fetch_add(&job->next_piece, 1)) < job->npieces;) {
		if (atomic_load(&job->err.failed))
			break;
		const struct tsr_cuda_piece *pc = &job->pieces[k];
		struct tsr_cuda_task *ct = &job->tasks[pc->task];
		struct tsr_chunk_ref run = ct->ref;
		run.offset += pc->offset;
		run.nbytes = pc->nbytes;
		double t0 = tsr_now();
		int st = tsr_cuda_read_to_slot(job, &run, ct->slot_offset + pc->offset, &fc, &cf);
		tf += tsr_now() - t0;
		br += pc->nbytes;
		if (st) {
			tsr_job_fail(&job->err, job->array, tsr_task_chunk(job->plan, ct->t), st);
			break;
		}
	}
	for (;;) {
		if (i >= end) {
			/* Tasks are taken a group at a time, so that neighbours can share a read. */
			i = atomic_fetch_add(&job->next, job->group);
			end = i + job->group < job->ntasks ? i + job->group : job->ntasks;
		}
		if (i >= job->ntasks || atomic_load(&job->err.failed))
			break;
		struct tsr_cuda_task *ct = &job->tasks[i];
		if (ct->split ||
		    (job->host_only && ct->how != TSR_HOW_CPU && ct->how != TSR_HOW_BLOSC)) {
			i++;
			continue;
		}
		int64_t chunk = tsr_task_chunk(job->plan, ct->t);
		unsigned char *dst = job->host + ct->slot_offset;
		double t0 = tsr_now();
		int st = TSR_OK;
		if (ct->how != TSR_HOW_CPU && ct->how != TSR_HOW_BLOSC && !job->mock) {
			/* Stored bytes straight into pinned memory: no copy on the host. Chunks
			 * that lie back to back in the same file and in the slot (FITS tiles in
			 * the heap) are one read, of up to 4 MiB. */
			struct tsr_chunk_ref run = ct->ref;
			int64_t j = i + 1;
			while (j < end && job->tasks[j].how != TSR_HOW_CPU &&
			       job->tasks[j].how != TSR_HOW_BLOSC && !job->tasks[j].split &&
			       job->tasks[j].ref.offset == run.offset + run.nbytes &&
			       job->tasks[j].slot_offset == ct->slot_offset + run.nbytes &&
			       run.nbytes + job->tasks[j].ref.nbytes <= ((uint64_t)4 << 20) &&
			       !strcmp(job->tasks[j].ref.path, run.path)) {
				run.nbytes += job->tasks[j].ref.nbytes;
				j++;
			}
			st = tsr_cuda_read_to_slot(job, &run, ct->slot_offset, &fc, &cf);
			br += run.nbytes;
			tf += tsr_now() - t0;
			i = j;
		} else {
			/* The chunk's stored bytes: the handle's mock-host copy (no I/O), or fetched. */
			i++;
			const unsigned char *src = NULL;
			if (job->mock) {
				const struct tsr_mock_chunk *mc = tsr_mock_chunk(job->array, chunk);
				if (mc)
					src = mc->bytes;
				else
					st = tsr_error(TSR_E_INTERNAL, "mock-host storage: chunk not cached");
			} else if (ct->ref.nbytes > 0) {
				st = tsr_io_fetch(job->array, &ct->ref, &fetch, &cap);
				src = fetch;
			}
			br += ct->ref.codec.id == TSR_CODEC_FILL ? 0 : ct->ref.nbytes;
			double t1 = tsr_now();
			tf += t1 - t0;
			if (st == TSR_OK && ct->how == TSR_HOW_BLOSC) {
				/* its header says whether the GPU decodes it */
				struct tsr_route rt;
				tsr_route_blosc_ref(src, &ct->ref, tsr_cuda_family_mask(), &rt,
						    &ct->blosc_codec);
				ct->ref.codec.big_endian = rt.big_endian;
				ct->how = rt.how;
				ct->kind = rt.kind;
				ct->why = rt.why;
				if (rt.how == TSR_HOW_BLOSC)
					memcpy(dst, src, (size_t)ct->ref.nbytes);
			}
			if (st == TSR_OK && ct->how != TSR_HOW_CPU && ct->how != TSR_HOW_BLOSC) {
				if (ct->ref.nbytes) /* mock-host: the stored bytes */
					memcpy(dst, src, (size_t)ct->ref.nbytes);
			} else if (st == TSR_OK && ct->how == TSR_HOW_CPU) {
				uint64_t dn = 0;
				st = tsr_chunk_decode(&ct->ref, (void *)src, ct->ref.nbytes, dst, 0,
						      &scratch, &dn);
				bd += dn;
				td += tsr_now() - t1;
			}
		}
		if (st) {
			tsr_job_fail(&job->err, job->array, chunk, st);
			break;
		}
	}
	tsr_fd_cache_close(&fc);
	tsr_cufile_close(&cf);
	tsr_scratch_free(&scratch);
	free(fetch);
	pthread_mutex_lock(&job->lock);
	job->t_fetch += tf;
	job->t_decode += td;
	job->bytes_read += br;
	job->bytes_decoded += bd;
	pthread_mutex_unlock(&job->lock);
}

/* Lists the pieces of the job's large stored chunks (real storage), marking those tasks split. */
int tsr_cuda_pieces(struct tsr_cuda_job *job)
{
	int64_t n = 0;
	for (int pass = 0; pass < 2; pass++) {
		n = 0;
		for (int64_t i = 0; i < job->ntasks; i++) {
			struct tsr_cuda_task *ct = &job->tasks[i];
			ct->split = 0;
			if (ct->how == TSR_HOW_CPU || ct->how == TSR_HOW_BLOSC || job->mock ||
			    ct->ref.nbytes <= TSR_PIECE_NBYTES)
				continue;
			ct->split = 1;
			for (uint64_t off = 0; off < ct->ref.nbytes; off += TSR_PIECE_NBYTES, n++)
				if (pass)
					job->pieces[n] = (struct tsr_cuda_piece){
						i, off, ct->ref.nbytes - off < TSR_PIECE_NBYTES
								? ct->ref.nbytes - off : TSR_PIECE_NBYTES};
		}
		if (!pass) {
			free(job->pieces);
			job->pieces = n ? malloc((size_t)n * sizeof(*job->pieces)) : NULL;
			if (n && !job->pieces)
				return tsr_error(TSR_E_NOMEM, "out of memory");
		}
	}
	job->npieces = n;
	atomic_store(&job->next_piece, 0);
	return TSR_OK;
}

/*
 * mock-device: makes sure the array's device cache holds what each task's chunk puts before the
 * GPU (its stored bytes, or its values decoded on the CPU), copying in what is missing from the
 * host mock cache, and points the task at it (slot_offset becomes a device address).
 */
int tsr_cuda_replay_fill(struct tsr_array *array, const struct tsr_plan *plan,
			 struct tsr_cuda_task *tasks)
{
	struct tsr_scratch scratch = {0};
	unsigned char *vals = NULL;
	size_t vcap = 0;
	int st = TSR_OK;
	for (int64_t t = 0; t < plan->ntasks && st == TSR_OK; t++) {
		struct tsr_cuda_task *ct = &tasks[t];
		int64_t chunk = tsr_task_chunk(plan, t);
		int kind = ct->how == TSR_HOW_CPU ? TSR_MOCK_DEV_VALUES : TSR_MOCK_DEV_STORED;
		uint64_t addr, have;
		if (!(addr = tsr_mock_dev_find(array, chunk, kind, &have))) {
			const struct tsr_mock_chunk *mc = tsr_mock_chunk(array, chunk);
			if (!mc) {
				st = tsr_error(TSR_E_INTERNAL, "mock storage: chunk not cached");
			} else if (kind == TSR_MOCK_DEV_STORED) {
				st = tsr_mock_dev_put(array, chunk, kind, mc->bytes,
						      (size_t)ct->ref.nbytes, &addr);
			} else {
				if (ct->staged > vcap) {
					free(vals);
					vcap = ct->staged;
					if (!(vals = malloc(vcap)))
						vcap = 0;
				}
				uint64_t dn = 0;
				st = !vals && ct->staged ? tsr_error(TSR_E_NOMEM, "out of memory")
					: tsr_chunk_decode(&ct->ref, mc->bytes, ct->ref.nbytes, vals,
							   0, &scratch, &dn);
				if (st == TSR_OK)
					st = tsr_mock_dev_put(array, chunk, kind, vals, ct->staged,
							      &addr);
			}
			if (st) {
				char prefix[1400], label[320];
				tsr_array_chunk_name(array, chunk, prefix, sizeof(prefix), label,
						    sizeof(label));
				tsr_error_prefix("%s %s", prefix, label);
			}
		}
		ct->slot_offset = (size_t)addr;
	}
	tsr_scratch_free(&scratch);
	free(vals);
	return st;
}

/* on_dev: notes the host byte ranges of the job's CPU-decoded tasks, the only ones the slot
 * copies (cuFile put the stored bytes of the others on the device already). */
int tsr_cuda_host_ranges(const struct tsr_cuda_job *job, struct tsr_cuda_slot *s)
{
	for (int64_t i = 0; i < job->ntasks; i++) {
		const struct tsr_cuda_task *ct = &job->tasks[i];
		if ((ct->how != TSR_HOW_CPU && ct->how != TSR_HOW_BLOSC) || !ct->staged)
			continue; /* (blosc: its stored bytes, read on the host for its header) */
		size_t a = ct->slot_offset, b = a + ct->staged;
		if (s->nranges && s->ranges[s->nranges - 1][1] == a) {
			s->ranges[s->nranges - 1][1] = b;
			continue;
		}
		int st = tsr_grow((void **)&s->ranges, &s->ranges_cap, s->nranges + 1,
				  sizeof(*s->ranges), 64);
		if (st)
			return st;
		s->ranges[s->nranges][0] = a;
		s->ranges[s->nranges][1] = b;
		s->nranges++;
	}
	return TSR_OK;
}

#endif
