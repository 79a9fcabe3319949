/* mock.c - the mock-host storage backend: a handle's chunk bytes, read once, replayed from memory. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/array.h"
#include "../core/internal.h"
#include "backend_state.h"
#include "io.h"
#include "mock.h"
#include "storage.h"

/* Chunks per page of the chunk index: pages are allocated as chunks are cached, so an array
 * of millions of chunks read in one small section costs a few pointers, not a full table. */
#define TSR_MOCK_PAGE 4096

struct tsr_mock_cache {
	pthread_mutex_t lock;           /* guards filling; lookups after a fill take no lock */
	int64_t nchunks, npages;
	struct tsr_mock_chunk ***pages; /* npages slots: TSR_MOCK_PAGE chunk pointers, or NULL */
};

/* A handle's first mock-host read creates its cache; two such reads may race, so creation
 * takes one lock shared by all handles (held for a calloc, once per handle). */
static pthread_mutex_t tsr_mock_create_lock = PTHREAD_MUTEX_INITIALIZER;

static struct tsr_mock_cache *tsr_mock_get(struct tsr_array *a)
{
	struct tsr_io_state *s = tsr_io_state(a);
	if (!s)
		return NULL;
	pthread_mutex_lock(&tsr_mock_create_lock);
	struct tsr_mock_cache *c = s->mock;
	if (!c && (c = calloc(1, sizeof(*c)))) {
		c->nchunks = a->desc.nchunks;
		c->npages = (c->nchunks + TSR_MOCK_PAGE - 1) / TSR_MOCK_PAGE;
		c->pages = calloc(c->npages > 0 ? (size_t)c->npages : 1, sizeof(*c->pages));
		if (c->pages) {
			pthread_mutex_init(&c->lock, NULL);
			s->mock = c;
		} else {
			free(c);
			c = NULL;
		}
	}
	pthread_mutex_unlock(&tsr_mock_create_lock);
	return c;
}

static void tsr_mock_chunk_free(struct tsr_mock_chunk *mc)
{
	if (mc) {
		free(mc->bytes);
		free(mc);
	}
}

/* Reads one chunk with the posix backend, as the CPU engine's whole-chunk fetch does. */
static int tsr_mock_load(struct tsr_array *a, int64_t chunk, struct tsr_source *src,
			 struct tsr_mock_chunk **mc_ret)
{
	struct tsr_mock_chunk *mc = calloc(1, sizeof(*mc));
	if (!mc)
		return tsr_error(TSR_E_NOMEM, "out of memory");
	int st = tsr_storage_posix.chunk_ref(a, chunk, 0, &mc->ref);
	size_t cap = 0; /* a buffer of its own, sized to the chunk */
	const unsigned char *bytes;
	if (!st && mc->ref.nbytes > 0)
		st = tsr_storage_fetch(src, chunk, &mc->ref, &mc->bytes, &cap, &bytes);
	if (st) {
		tsr_mock_chunk_free(mc);
		/* name the chunk, as a failed real read does */
		char prefix[1400], label[320];
		tsr_array_chunk_name(a, chunk, prefix, sizeof(prefix), label, sizeof(label));
		tsr_error_prefix("%s %s", prefix, label);
		return st;
	}
	*mc_ret = mc;
	return TSR_OK;
}

int tsr_mock_fill(struct tsr_array *a, const int64_t *chunks, int64_t n, int64_t stride)
{
	struct tsr_mock_cache *c = tsr_mock_get(a);
	if (!c)
		return tsr_error(TSR_E_NOMEM, "%s: out of memory for the mock-host cache", a->path);
	struct tsr_source src;
	tsr_source_init(&src, &tsr_storage_posix, a);
	int st = TSR_OK;
	pthread_mutex_lock(&c->lock);
	for (int64_t t = 0; t < n && !st; t++) {
		int64_t chunk = chunks[t * stride];
		if (chunk < 0 || chunk >= c->nchunks) {
			st = tsr_error(TSR_E_INTERNAL, "%s: chunk %lld outside the mock-host cache of "
				       "%lld chunks", a->path, (long long)chunk, (long long)c->nchunks);
			break;
		}
		struct tsr_mock_chunk **page = c->pages[chunk / TSR_MOCK_PAGE];
		if (!page) {
			page = calloc(TSR_MOCK_PAGE, sizeof(*page));
			if (!page) {
				st = tsr_error(TSR_E_NOMEM, "%s: out of memory for the mock-host cache",
					       a->path);
				break;
			}
			c->pages[chunk / TSR_MOCK_PAGE] = page;
		}
		if (!page[chunk % TSR_MOCK_PAGE])
			st = tsr_mock_load(a, chunk, &src, &page[chunk % TSR_MOCK_PAGE]);
	}
	pthread_mutex_unlock(&c->lock);
	tsr_source_close(&src);
	return st;
}

const struct tsr_mock_chunk *tsr_mock_chunk(const struct tsr_array *a, int64_t chunk)
{
	const struct tsr_io_state *s = tsr_io_state_find(a);
	const struct tsr_mock_cache *c = s ? s->mock : NULL;
	if (!c || chunk < 0 || chunk >= c->nchunks || !c->pages[chunk / TSR_MOCK_PAGE])
		return NULL;
	return c->pages[chunk / TSR_MOCK_PAGE][chunk % TSR_MOCK_PAGE];
}

void tsr_mock_free(struct tsr_mock_cache *c)
{
	if (!c)
		return;
	for (int64_t p = 0; p < c->npages; p++) {
		if (!c->pages[p])
			continue;
		for (int i = 0; i < TSR_MOCK_PAGE; i++)
			tsr_mock_chunk_free(c->pages[p][i]);
		free(c->pages[p]);
	}
	free(c->pages);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* ---- the backend (storage.h): chunks replayed from the handle's host cache ---- */

static int tsr_mock_prepare(struct tsr_array *a, const int64_t *chunks, int64_t n,
			    int64_t stride)
{
	return tsr_mock_fill(a, chunks, n, stride);
}

int tsr_mock_chunk_ref(const struct tsr_array *a, int64_t chunk, int settle,
		       struct tsr_chunk_ref *ref)
{
	(void)settle; /* (the fill's real fetch settled it) */
	const struct tsr_mock_chunk *mc = tsr_mock_chunk(a, chunk);
	if (!mc)
		return tsr_error(TSR_E_INTERNAL, "%s: mock storage: chunk not cached", a->path);
	*ref = mc->ref;
	ref->ndim = a->desc.ndim;
	return TSR_OK;
}

const unsigned char *tsr_mock_lend(const struct tsr_array *a, int64_t chunk)
{
	const struct tsr_mock_chunk *mc = tsr_mock_chunk(a, chunk);
	return mc ? mc->bytes : NULL;
}

int tsr_mock_open(struct tsr_source *src, int64_t chunk, struct tsr_chunk_ref *ref)
{
	(void)ref;
	const struct tsr_mock_chunk *mc = tsr_mock_chunk(src->array, chunk);
	if (!mc)
		return tsr_error(TSR_E_INTERNAL, "%s: mock storage: chunk not cached",
				 src->array->path);
	src->mem = mc->bytes;
	src->mem_nbytes = mc->ref.nbytes;
	src->base = 0;
	return TSR_OK;
}

int tsr_mock_open_path(struct tsr_source *src, const char *path)
{
	(void)src;
	return tsr_error(TSR_E_UNSUPPORTED, "%s: mock storage replays chunks, not files", path);
}

int tsr_mock_read(struct tsr_source *src, int mem, void *dst, size_t at, size_t nbytes,
		  uint64_t offset)
{
	if (mem != TSR_MEM_HOST && mem != TSR_MEM_HOST_PINNED)
		return tsr_error(TSR_E_INTERNAL, "mock-host storage reads into host memory only");
	if (!src->mem || offset > src->mem_nbytes || nbytes > src->mem_nbytes - offset)
		/* (as a file that ends early reads) */
		return tsr_error(TSR_E_IO, "chunk ends after %llu bytes, needed %zu bytes at "
				 "offset %llu", (unsigned long long)src->mem_nbytes, nbytes,
				 (unsigned long long)offset);
	if (nbytes)
		memcpy((unsigned char *)dst + at, src->mem + offset, nbytes);
	return TSR_OK;
}

void tsr_mock_release(struct tsr_source *src)
{
	src->mem = NULL;
	src->mem_nbytes = 0;
}

const struct tsr_backend tsr_storage_mock_host = {
	.name = "mock-host",
	.mems = TSR_MEMBIT(TSR_MEM_HOST) | TSR_MEMBIT(TSR_MEM_HOST_PINNED),
	.prepare = tsr_mock_prepare,
	.chunk_ref = tsr_mock_chunk_ref,
	.open = tsr_mock_open,
	.open_path = tsr_mock_open_path,
	.read = tsr_mock_read,
	.release = tsr_mock_release,
	.close = tsr_mock_release,
	.lend = tsr_mock_lend,
};
