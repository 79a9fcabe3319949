/* cuda_fetch.c - filling a CUDA staging slot: the pool's workers read stored bytes through the
 * read's storage backend (into pinned memory, or straight to the device) or decode chunks on the
 * CPU; the device-keeping backend's fill. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../codecs/codecs.h"
#include "../io/storage.h"
#include "engine.h"

#ifdef TSR_WITH_CUDA
#include "cuda_engine.h"

/* Maps in the pages of a chunk's mapping here, on the describing threads, so that the slot's
 * own thread lists its streams (a few bytes a block, anywhere in it) without a fault each: a
 * byte of every 16 KiB read (each fault maps the pages around it too; bench/gpu_host_read_bench's
 * map-touch: 334 GB/s of chunk bytes on one thread). */
static void tsr_cuda_map_touch(const struct tsr_map *m, size_t nbytes)
{
	const volatile unsigned char *p = m->bytes;
	unsigned acc = 0;
	for (size_t at = 0; at < nbytes; at += 16384)
		acc += p[at];
	(void)acc;
}

/* Pool worker: fetch (and decode where needed) the batch's chunks into the pinned slot. */
void tsr_cuda_worker(void *arg, int w)
{
	(void)w;
	struct tsr_cuda_job *job = arg;
	struct tsr_scratch scratch = {0};
	/* stored reads into the slot (its device memory where the backend reads it), and whole
	 * chunks into host memory for the CPU to decode */
	struct tsr_source store, host;
	tsr_source_init(&store, job->be, job->array);
	tsr_source_init(&host, job->be->host ? job->be->host : job->be, job->array);
	const int lends = job->be->lend != NULL;
	const int mem = job->to_dev ? TSR_MEM_CUDA : TSR_MEM_HOST_PINNED;
	unsigned char *slot = job->to_dev ? job->dev : job->host;
	unsigned char *fetch = NULL;
	size_t cap = 0;
	double tf = 0, td = 0;
	uint64_t br = 0, bd = 0;
	int64_t i = 0, end = 0;
	if (job->to_dev)
		cudaSetDevice(job->device); /* (the reads land in the read's device memory) */
	for (int64_t k; (k = atomic_fetch_add(&job->next_piece, 1)) < job->npieces;) {
		if (atomic_load(&job->err.failed))
			break;
		const struct tsr_piece *pc = &job->pieces[k];
		struct tsr_cuda_task *ct = &job->tasks[pc->span];
		struct tsr_chunk_ref ref; /* sizes are settled already: nothing changes */
		tsr_task_desc(job->descs, ct->t, &ref);
		int64_t chunk = tsr_task_chunk(job->plan, ct->t);
		double t0 = tsr_now();
		int st = store.be->open(&store, chunk, &ref);
		if (st == TSR_OK) {
			st = store.be->read(&store, mem, slot, (size_t)pc->dst, (size_t)pc->nbytes,
					    pc->offset - ct->ti->offset);
			store.be->release(&store);
		}
		tf += tsr_now() - t0;
		br += pc->nbytes;
		if (st) {
			tsr_job_fail(&job->err, job->array, chunk, st);
			break;
		}
	}
	/* Shares of CPU tasks split like the CPU engine's (split.h): their blocks decoded by all
	 * threads into the chunk's values in the slot, the image the place kernel reads. */
	struct tsr_worker_stats ss = {0};
	unsigned char *vals = NULL;
	size_t vcap = 0;
	const struct tsr_split_worker sw = {&scratch, &vals, &vcap};
	for (int64_t k; !job->pieces_only && (k = atomic_fetch_add(&job->next_share, 1)) < job->nshares;) {
		if (atomic_load(&job->err.failed))
			break;
		const int64_t *e = &job->shares[3 * k];
		struct tsr_cuda_task *ct = &job->tasks[e[0]];
		struct tsr_split *sp = job->splits[e[0]];
		struct tsr_split_sink sink;
		tsr_split_sink_whole(sp->ndim, sp->extent, job->host + ct->slot_offset,
				     ct->ti->out_nbytes, &sink);
		if (tsr_split_share(sp, job->array, tsr_task_chunk(job->plan, ct->t), e[1], e[2], &sink,
				    &host, job->spare, &sw, &ss, &job->err))
			break;
	}
	free(vals);
	tf += ss.t_fetch;
	td += ss.t_decode + ss.t_place;
	br += ss.bytes_read;
	bd += ss.bytes_decoded;
	while (!job->pieces_only) {
		if (i >= end) {
			i = atomic_fetch_add(&job->next, job->group);
			end = i + job->group < job->ntasks ? i + job->group : job->ntasks;
		}
		if (i >= job->ntasks || atomic_load(&job->err.failed))
			break;
		struct tsr_cuda_task *ct = &job->tasks[i++];
		if (job->splits && job->splits[i - 1])
			continue; /* (its shares decode it) */
		/* (stored bytes the pieces above, or the feed, read) */
		if (ct->how != TSR_HOW_CPU && ct->how != TSR_HOW_BLOSC && !lends)
			continue;
		if (job->host_only && ct->how != TSR_HOW_CPU && ct->how != TSR_HOW_BLOSC)
			continue;
		int64_t chunk = tsr_task_chunk(job->plan, ct->t);
		unsigned char *dst = job->host + ct->slot_offset;
		double t0 = tsr_now();
		int st = TSR_OK;
		/* The chunk's stored bytes: lent by a backend that holds them (no I/O), read by the
		 * pieces into the slot already (blosc chunks), or read. */
		struct tsr_chunk_ref ref;
		tsr_task_desc(job->descs, ct->t, &ref);
		const unsigned char *src = NULL;
		const int in_slot = job->blosc_in_slot && ct->how == TSR_HOW_BLOSC;
		const int mapped = job->blosc_mapped && ct->how == TSR_HOW_BLOSC && ref.nbytes > 0;
		if (in_slot) {
			src = dst;
		} else if (mapped) {
			/* (the feed reads its bytes: its headers are read from a mapping) */
			st = tsr_storage_map(&host, chunk, &ref, &ct->map);
			src = ct->map.bytes;
		} else if (ref.nbytes > 0) {
			st = tsr_storage_fetch(&host, chunk, &ref, &fetch, &cap, &src);
		}
		br += ct->ti->route.fill || in_slot || mapped ? 0 : ref.nbytes;
		double t1 = tsr_now();
		tf += t1 - t0;
		if (st == TSR_OK && ct->how == TSR_HOW_BLOSC) {
			/* its header says whether the GPU decodes it */
			struct tsr_route rt;
			tsr_route_blosc_ref(src, &ref, tsr_cuda_family_mask(), &rt, &ct->blosc_codec);
			ct->big_endian = rt.big_endian;
			ct->how = rt.how;
			ct->kind = rt.kind;
			ct->why = rt.why;
			if (rt.how == TSR_HOW_BLOSC) {
				/* a section decodes only the blocks its box touches */
				int64_t lo[TSR_MAX_DIM], hi[TSR_MAX_DIM];
				tsr_task_bounds(job->plan, ct->t, lo, hi);
				tsr_route_blosc_blocks(src, &ref, lo, hi, &ct->blocks);
				if (!in_slot && !mapped)
					memcpy(dst, src, (size_t)ref.nbytes);
				if (mapped)
					tsr_cuda_map_touch(&ct->map, (size_t)ref.nbytes);
			} else if (mapped) {
				/* the CPU decodes it, past its end too (decoders' slack): from a
				 * copy of its bytes, not read again */
				st = tsr_storage_copy(&fetch, &cap, ct->map.bytes, ref.nbytes);
				src = fetch;
				tsr_storage_unmap(&ct->map);
			} else if (in_slot && ref.nbytes > 0) {
				/* the CPU decodes it into the slot, where its stored bytes lie: from a
				 * copy of them */
				st = tsr_storage_copy(&fetch, &cap, dst, ref.nbytes);
				src = fetch;
			}
		}
		if (st == TSR_OK && ct->how != TSR_HOW_CPU && ct->how != TSR_HOW_BLOSC) {
			if (ref.nbytes) /* lent: the stored bytes */
				memcpy(dst, src, (size_t)ref.nbytes);
		} else if (st == TSR_OK && ct->how == TSR_HOW_CPU && tsr_stop_asked(job->stop)) {
			/* (a stop ranks first, named by the file: the slot loop stops on it) */
			tsr_job_fail(&job->err, job->array, -1, TSR_E_STOPPED);
			break;
		} else if (st == TSR_OK && ct->how == TSR_HOW_CPU) {
			uint64_t dn = 0;
			ref.codec.big_endian = ct->big_endian; /* (a blosc header's) */
			st = tsr_chunk_decode(&ref, (void *)src, ref.nbytes, dst, 0, &scratch, &dn);
			bd += dn;
			td += tsr_now() - t1;
		}
		if (st) {
			tsr_job_fail(&job->err, job->array, chunk, st);
			break;
		}
	}
	tsr_source_close(&store);
	tsr_source_close(&host);
	tsr_scratch_free(&scratch);
	free(fetch);
	pthread_mutex_lock(&job->lock);
	job->t_fetch += tf;
	job->t_decode += td;
	job->bytes_read += br;
	job->bytes_decoded += bd;
	pthread_mutex_unlock(&job->lock);
}

void tsr_cuda_fill_run(struct tsr_pool *pool, int nthreads, struct tsr_cuda_job *job)
{
	if (job->blosc_in_slot && job->npieces) {
		job->pieces_only = 1;
		tsr_pool_run(pool, nthreads, tsr_cuda_worker, job);
		job->pieces_only = 0;
		if (atomic_load(&job->err.failed))
			return;
	}
	tsr_pool_run(pool, nthreads, tsr_cuda_worker, job);
}

void tsr_cuda_shares(struct tsr_cuda_job *job, int nthreads)
{
	int64_t n = job->ntasks, *ns = NULL;
	job->splits = NULL;
	job->shares = NULL;
	job->nshares = 0;
	atomic_store(&job->next_share, 0);
	if (!n || !(ns = malloc((size_t)n * sizeof(*ns))))
		return;
	int64_t total = tsr_cuda_split_shares(job->descs, job->tasks, n, nthreads, ns);
	if (total == n) { /* none splits */
		free(ns);
		return;
	}
	job->splits = calloc((size_t)n, sizeof(*job->splits));
	job->shares = malloc((size_t)total * 3 * sizeof(*job->shares));
	int ok = job->splits && job->shares;
	for (int64_t i = 0; i < n && ok; i++) {
		if (ns[i] < 2)
			continue;
		struct tsr_chunk_ref ref;
		struct tsr_chunk_box box;
		tsr_cuda_task_whole(job->descs, &job->tasks[i], &ref, &box);
		if (!(job->splits[i] = tsr_split_new(&ref, &box, ns[i]))) {
			ok = 0;
			break;
		}
		for (int64_t p = 0; p < ns[i]; p++) {
			int64_t *e = &job->shares[3 * job->nshares++];
			e[0] = i;
			e[1] = p;
			e[2] = ns[i];
		}
	}
	free(ns);
	if (!ok)
		tsr_cuda_shares_free(job); /* (each decodes whole) */
}

void tsr_cuda_shares_free(struct tsr_cuda_job *job)
{
	for (int64_t i = 0; job->splits && i < job->ntasks; i++)
		tsr_split_free(job->splits[i]);
	free(job->splits);
	free(job->shares);
	job->splits = NULL;
	job->shares = NULL;
	job->nshares = 0;
	atomic_store(&job->next_share, 0);
}

/* Lists the reads of the job's stored bytes (a backend that reads storage; one that lends
 * chunks has none): its raw and GPU-decoded tasks, coalesced and split by the slot's rule. */
int tsr_cuda_pieces(struct tsr_cuda_job *job)
{
	job->npieces = 0;
	job->blosc_in_slot = 0;
	atomic_store(&job->next_piece, 0);
	if (job->be->lend || !job->ntasks)
		return TSR_OK;
	struct tsr_span *spans = malloc((size_t)job->ntasks * sizeof(*spans));
	int64_t *task = malloc((size_t)job->ntasks * sizeof(*task)), n = 0;
	int st = spans && task ? TSR_OK : tsr_error(TSR_E_NOMEM, "out of memory");
	/* (CPU tasks: the CPU needs them whole, in host memory. BLOSC tasks' stored bytes are read
	 * into the slot in pieces by all threads, as raw ones are: a whole 64 MiB chunk a thread,
	 * through a bounce buffer, kept 2 of 16 threads reading a b2nd array's slots; their headers
	 * are read from the slot once every piece has landed: tsr_cuda_fill_run) */
	if (st == TSR_OK)
		n = tsr_cuda_spans(job->tasks, job->ntasks, 1, spans, task);
	for (int64_t k = 0; k < n && st == TSR_OK && !job->blosc_in_slot; k++)
		job->blosc_in_slot = job->tasks[task[k]].how == TSR_HOW_BLOSC;
	if (st == TSR_OK)
		st = tsr_coalesce(spans, n, &tsr_cuda_slot_rule, &job->pieces, &job->npieces,
				  &job->pieces_cap);
	for (int64_t k = 0; k < job->npieces && st == TSR_OK; k++)
		job->pieces[k].span = task[job->pieces[k].span];
	if (st)
		job->npieces = 0;
	free(spans);
	free(task);
	return st;
}

/*
 * A backend that keeps chunks in device memory (mock-device): makes sure the handle's device
 * cache holds what each task's chunk puts before the GPU (its stored bytes, or its values decoded
 * on the CPU), keeping there what is missing from the bytes it lends, and points the task at it
 * (slot_offset becomes a device address).
 */
int tsr_cuda_replay_fill(struct tsr_array *array, const struct tsr_backend *be,
			 const struct tsr_plan *plan, const struct tsr_plan_descs *ds,
			 struct tsr_cuda_task *tasks)
{
	struct tsr_scratch scratch = {0};
	unsigned char *vals = NULL;
	size_t vcap = 0;
	int st = TSR_OK;
	for (int64_t t = 0; t < plan->ntasks && st == TSR_OK; t++) {
		struct tsr_cuda_task *ct = &tasks[t];
		int64_t chunk = tsr_task_chunk(plan, t);
		int kind = ct->how == TSR_HOW_CPU ? TSR_KEEP_VALUES : TSR_KEEP_STORED;
		uint64_t addr, have;
		if (!(addr = be->kept(array, chunk, kind, &have))) {
			const unsigned char *bytes = be->lend(array, chunk);
			if (!bytes && ct->ti->nbytes) {
				st = tsr_error(TSR_E_INTERNAL, "mock storage: chunk not cached");
			} else if (kind == TSR_KEEP_STORED) {
				st = be->keep(array, chunk, kind, bytes, (size_t)ct->ti->nbytes,
					      &addr);
			} else {
				if (ct->staged > vcap) {
					free(vals);
					vcap = ct->staged;
					if (!(vals = malloc(vcap)))
						vcap = 0;
				}
				uint64_t dn = 0;
				struct tsr_chunk_ref ref;
				tsr_task_desc(ds, t, &ref);
				st = !vals && ct->staged ? tsr_error(TSR_E_NOMEM, "out of memory")
					: tsr_chunk_decode(&ref, (void *)bytes, ref.nbytes, vals, 0,
							   &scratch, &dn);
				if (st == TSR_OK)
					st = be->keep(array, chunk, kind, vals, ct->staged, &addr);
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

void tsr_cuda_unmap(struct tsr_cuda_task *tasks, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		if (tasks[i].map.base)
			tsr_storage_unmap(&tasks[i].map);
}

/* Notes [a, b) of the slot's host bytes as to copy, joined to the range before where it ends at a. */
static int tsr_cuda_range_add(struct tsr_cuda_slot *s, size_t a, size_t b)
{
	if (s->nranges && s->ranges[s->nranges - 1][1] == a) {
		s->ranges[s->nranges - 1][1] = b;
		return TSR_OK;
	}
	int st = tsr_grow((void **)&s->ranges, &s->ranges_cap, s->nranges + 1, sizeof(*s->ranges),
			  64);
	if (st)
		return st;
	s->ranges[s->nranges][0] = a;
	s->ranges[s->nranges][1] = b;
	s->nranges++;
	return TSR_OK;
}

/* on_dev: notes the host byte ranges of the job's CPU-decoded tasks, the only ones the slot
 * copies (cuFile put the stored bytes of the others on the device already). */
int tsr_cuda_host_ranges(const struct tsr_cuda_job *job, struct tsr_cuda_slot *s)
{
	for (int64_t i = 0; i < job->ntasks; i++) {
		const struct tsr_cuda_task *ct = &job->tasks[i];
		if ((ct->how != TSR_HOW_CPU && ct->how != TSR_HOW_BLOSC) || !ct->staged ||
		    (ct->how == TSR_HOW_BLOSC && job->blosc_mapped))
			continue; /* (blosc: its stored bytes, read on the host for its header,
				     unless the feed took them to the device) */
		int st = tsr_cuda_range_add(s, ct->slot_offset, ct->slot_offset + ct->staged);
		if (st)
			return st;
	}
	return TSR_OK;
}

int tsr_cuda_staged_ranges(const struct tsr_cuda_job *job, struct tsr_cuda_slot *s)
{
	for (int64_t i = 0; i < job->ntasks; i++) {
		const struct tsr_cuda_task *ct = &job->tasks[i];
		/* a blosc chunk the GPU decodes: its stored bytes; the rest of its staging is room
		 * for values the CPU did not make (the filter pass's second buffer, on the device) */
		size_t n = ct->how == TSR_HOW_BLOSC ? (size_t)ct->ti->nbytes : ct->staged;
		int st = n ? tsr_cuda_range_add(s, ct->slot_offset, ct->slot_offset + n) : TSR_OK;
		if (st)
			return st;
	}
	return TSR_OK;
}

#endif
