/* shard.c - sharding_indexed: finds an inner chunk's byte range in its shard from the shard's
 * index, reading each index once (only the index, never the shard, unless codecs cover the
 * whole shard: then it is decoded once into a memory file) and caching it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../codecs/codecs.h"
#include "../../core/file.h"
#include "zarr.h"

#define TSR_ZARR_PAGE 1024   /* slots per page, pages per directory */
#define TSR_ZARR_EMPTY UINT64_MAX
/* Arrays of more shards than this are refused (the top level would pass 8 MiB). */
#define TSR_ZARR_MAX_SLOTS ((int64_t)1 << 40)

int tsr_zarr_cache_init(struct tsr_zarr_cache *c, int64_t nslots)
{
	const int64_t per_dir = (int64_t)TSR_ZARR_PAGE * TSR_ZARR_PAGE;
	if (nslots < 0 || nslots > TSR_ZARR_MAX_SLOTS)
		return tsr_error(TSR_E_UNSUPPORTED, "%lld shards: more than the %lld tessera indexes",
				 (long long)nslots, (long long)TSR_ZARR_MAX_SLOTS);
	c->ndirs = (nslots + per_dir - 1) / per_dir;
	c->dirs = calloc(c->ndirs ? (size_t)c->ndirs : 1, sizeof(*c->dirs));
	if (!c->dirs)
		return tsr_error(TSR_E_NOMEM, "out of memory for %lld shard slots", (long long)nslots);
	for (int64_t d = 0; d < c->ndirs; d++)
		atomic_init(&c->dirs[d], NULL);
	return TSR_OK;
}

static void tsr_zarr_index_free(void *p)
{
	struct tsr_zarr_index *ix = p;
	if (ix && ix->memfd >= 0)
		tsr_file_close(ix->memfd);
	free(ix);
}

void tsr_zarr_cache_free(struct tsr_zarr_cache *c)
{
	if (!c->dirs)
		return;
	for (int64_t d = 0; d < c->ndirs; d++) {
		_Atomic(void *) *dir = atomic_load(&c->dirs[d]);
		for (int p = 0; dir && p < TSR_ZARR_PAGE; p++) {
			_Atomic(void *) *page = atomic_load(&dir[p]);
			for (int i = 0; page && i < TSR_ZARR_PAGE; i++)
				tsr_zarr_index_free(atomic_load(&page[i]));
			free(page);
		}
		free(dir);
	}
	free(c->dirs);
	c->dirs = NULL;
}

/* Publishes p in slot unless another thread got there first (p is dropped then, by drop);
 * returns the one that stays. */
static void *tsr_zarr_publish(_Atomic(void *) *slot, void *p, void (*drop)(void *))
{
	void *expect = NULL;
	if (atomic_compare_exchange_strong_explicit(slot, &expect, p, memory_order_acq_rel,
						    memory_order_acquire))
		return p;
	drop(p);
	return expect;
}

/* The table *pp points to (TSR_ZARR_PAGE null slots), allocated and published on first use. */
static _Atomic(void *) *tsr_zarr_level(_Atomic(void *) *pp)
{
	_Atomic(void *) *t = atomic_load_explicit(pp, memory_order_acquire);
	if (t)
		return t;
	_Atomic(void *) *mine = malloc(TSR_ZARR_PAGE * sizeof(*mine));
	if (!mine)
		return NULL;
	for (int i = 0; i < TSR_ZARR_PAGE; i++)
		atomic_init(&mine[i], NULL);
	return tsr_zarr_publish(pp, (void *)mine, free);
}

/* The slot of blob `id`, its directory and page allocated (and published) on first use. */
static _Atomic(void *) *tsr_zarr_slot(struct tsr_zarr_cache *c, int64_t id)
{
	_Atomic(void *) *dir = tsr_zarr_level(&c->dirs[id / TSR_ZARR_PAGE / TSR_ZARR_PAGE]);
	_Atomic(void *) *page = dir ? tsr_zarr_level(&dir[(id / TSR_ZARR_PAGE) % TSR_ZARR_PAGE])
				    : NULL;
	return page ? &page[id % TSR_ZARR_PAGE] : NULL;
}

/* Reads and decodes the index of the blob at [region_offset, +region_nbytes) of fd. */
static int tsr_zarr_index_read(int fd, const struct tsr_zarr_shard *s, uint64_t region_offset,
			       uint64_t region_nbytes, struct tsr_zarr_index **idx_ret)
{
	uint64_t in = s->index_nbytes;
	if (region_nbytes < in)
		return tsr_error(TSR_E_CORRUPT, "shard of %llu bytes is too small for its index of "
				 "%llu bytes", (unsigned long long)region_nbytes, (unsigned long long)in);
	struct tsr_zarr_index *idx = malloc(sizeof(*idx) + (size_t)in + 8);
	if (!idx)
		return tsr_error(TSR_E_NOMEM, "out of memory for a shard index of %llu bytes",
				 (unsigned long long)in);
	uint64_t at = region_offset + (s->index_at_start ? 0 : region_nbytes - in);
	unsigned char *raw = (unsigned char *)idx->entries;
	int st = tsr_file_pread(fd, raw, (size_t)in, at);
	if (st) {
		free(idx);
		tsr_error_prefix("shard index");
		return st;
	}
	if (s->index_crc32c) {
		uint32_t want = tsr_le32(raw + in - 4), have = tsr_crc32c(raw, (size_t)in - 4);
		if (want != have) {
			free(idx);
			return tsr_error(TSR_E_CORRUPT, "shard index: crc32c mismatch: stored %08x, "
					 "computed %08x", want, have);
		}
	}
	/* Entries in place: byte order of the index to native. */
	for (int64_t i = 0; i < 2 * s->ninner; i++) {
		const unsigned char *p = raw + 8 * i;
		uint64_t v = 0;
		if (s->index_big_endian)
			v = tsr_be64(p);
		else
			for (int b = 7; b >= 0; b--)
				v = (v << 8) | p[b];
		idx->entries[i] = v;
	}
	idx->missing = 0;
	idx->memfd = -1;
	idx->region_offset = region_offset;
	idx->region_nbytes = region_nbytes;
	*idx_ret = idx;
	return TSR_OK;
}

/* A shard whose bytes codecs cover it whole (s->nwhole): its region of fd read, decoded and
 * kept in a memory file, whose index is then read as a plain shard's. The decoded size is
 * bounded by what its index and inner chunks could take. */
static int tsr_zarr_whole_index(const struct tsr_zarr_meta *m, const struct tsr_zarr_shard *s,
				int fd, uint64_t off, uint64_t nbytes, struct tsr_zarr_index **ix_ret)
{
	uint64_t inner = tsr_dtype_size(m->dtype), cap;
	for (int d = 0; d < m->ndim; d++)
		inner = inner && s->inner[d] > 0 && (uint64_t)s->inner[d] <= UINT64_MAX / 2 / inner
				? inner * (uint64_t)s->inner[d]
				: UINT64_MAX / 4;
	/* (an inner chunk's codecs may grow it: twice its bytes and 64 KiB) */
	if (__builtin_mul_overflow((uint64_t)s->ninner, 2 * inner + 65536, &cap) ||
	    __builtin_add_overflow(cap, s->index_nbytes, &cap) || cap > SIZE_MAX / 2)
		cap = SIZE_MAX / 2;
	if (nbytes > SIZE_MAX)
		return tsr_error(TSR_E_UNSUPPORTED, "shard of %llu bytes", (unsigned long long)nbytes);
	unsigned char *raw = malloc(nbytes ? (size_t)nbytes : 1);
	if (!raw)
		return tsr_error(TSR_E_NOMEM, "out of memory for a shard of %llu bytes",
				 (unsigned long long)nbytes);
	struct tsr_scratch sc = {0};
	int st = tsr_file_pread(fd, raw, (size_t)nbytes, off), memfd = -1;
	const void *cur = raw;
	size_t n = (size_t)nbytes;
	for (int i = 0; !st && i < s->nwhole; i++) {
		void *out;
		size_t out_n;
		/* (the pre-steps' scratch slots, 3 and 4, in turn) */
		st = tsr_bytes_decode(&s->whole[i], cur, n, &sc, 3, 0, (size_t)cap, NULL,
				      &out, &out_n);
		cur = out;
		n = out_n;
	}
	if (!st)
		st = tsr_memfile(cur, n, &memfd);
	free(raw);
	tsr_scratch_free(&sc);
	if (!st && (st = tsr_zarr_index_read(memfd, s, 0, n, ix_ret)) == TSR_OK)
		(*ix_ret)->memfd = memfd;
	else if (memfd >= 0)
		tsr_file_close(memfd);
	if (st)
		tsr_error_prefix("whole shard");
	return st;
}

int tsr_zarr_shard_ref(struct tsr_zarr *z, const int64_t *origin, struct tsr_chunk_ref *ref)
{
	const struct tsr_zarr_meta *m = &z->m;
	int nd = m->ndim, fd = -1, st = TSR_OK, memfd = -1;
	int64_t idx[TSR_MAX_DIM];
	for (int d = 0; d < nd; d++)
		idx[d] = origin[d] / m->chunk[d];
	if ((st = tsr_zarr_chunk_path(z, idx, ref)))
		return st;

	uint64_t off = 0, nbytes = 0, base = 0;
	for (int k = 0; k < m->nshard; k++) {
		const struct tsr_zarr_shard *s = &m->shard[k];
		int64_t blob = 0, j = 0;
		for (int d = 0; d < nd; d++) {
			blob = blob * s->grid[d] + origin[d] / s->outer[d];
			j = j * s->per[d] + (origin[d] % s->outer[d]) / s->inner[d];
		}
		_Atomic(void *) *slot = tsr_zarr_slot(&z->cache[k], blob);
		if (!slot) {
			st = tsr_error(TSR_E_NOMEM, "out of memory");
			goto done;
		}
		struct tsr_zarr_index *ix = atomic_load_explicit(slot, memory_order_acquire);
		if (!ix) {
			uint64_t size = 0;
			if (fd < 0) {
				if (z->zip)
					st = tsr_zarr_zip_shard(z, ref, &fd, &base, &size);
				else
					st = tsr_file_open(ref->path, &fd, &size);
				if (st == TSR_E_NOT_FOUND && k == 0) {
					/* A shard never written: all of it is the fill value. */
					ix = calloc(1, sizeof(*ix));
					if (!ix) {
						st = tsr_error(TSR_E_NOMEM, "out of memory");
						goto done;
					}
					ix->missing = 1;
					ix->memfd = -1;
					ix = tsr_zarr_publish(slot, ix, tsr_zarr_index_free);
					st = TSR_OK;
					goto fill;
				}
				if (st)
					goto done;
			}
			if (k == 0) {
				off = base;
				nbytes = size;
			}
			st = s->nwhole ? tsr_zarr_whole_index(m, s, fd, off, nbytes, &ix)
				       : tsr_zarr_index_read(fd, s, off, nbytes, &ix);
			if (st)
				goto done;
			ix = tsr_zarr_publish(slot, ix, tsr_zarr_index_free);
		}
		if (ix->missing)
			goto fill;
		memfd = ix->memfd;
		uint64_t eo = ix->entries[2 * j], en = ix->entries[2 * j + 1];
		if (eo == TSR_ZARR_EMPTY && en == TSR_ZARR_EMPTY)
			goto fill;
		if (eo > ix->region_nbytes || en > ix->region_nbytes - eo) {
			st = tsr_error(TSR_E_CORRUPT, "shard index: inner chunk %lld at offset %llu, %llu "
				       "bytes, lies outside its shard of %llu bytes", (long long)j,
				       (unsigned long long)eo, (unsigned long long)en,
				       (unsigned long long)ix->region_nbytes);
			goto done;
		}
		/* Offsets count from the start of the blob holding the index, even at "start". */
		off = ix->region_offset + eo;
		nbytes = en;
	}
	ref->offset = off;
	ref->nbytes = nbytes;
	ref->missing_is_fill = 0;
	if (memfd >= 0) /* the inner chunk lies in the decoded shard's memory file */
		snprintf(ref->path, sizeof(ref->path), "/proc/self/fd/%d", memfd);
	else if (z->zip)
		ref->path[0] = '\0'; /* the array's own file: the zip */
	goto done;
fill:
	tsr_chunk_set_fill(ref);
done:
	if (!z->zip)
		tsr_file_close(fd); /* a zip store's file is the array's, not ours */
	return st;
}
