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

/* Reads one chunk with the real backend, as the CPU engine's whole-chunk fetch does. */
static int tsr_mock_load(struct tsr_array *a, int64_t chunk, struct tsr_fd_cache *fdc,
			 struct tsr_mock_chunk **mc_ret)
{
	struct tsr_mock_chunk *mc = calloc(1, sizeof(*mc));
	if (!mc)
		return tsr_error(TSR_E_NOMEM, "out of memory");
	int st = a->ops->chunk_ref(a, chunk, &mc->ref);
	mc->ref.ndim = a->desc.ndim;
	size_t cap = 0; /* a buffer of its own, sized to the chunk */
	if (!st && mc->ref.nbytes > 0)
		st = tsr_io_fetch_cached(a, &mc->ref, &mc->bytes, &cap, fdc);
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

int tsr_mock_fill(struct tsr_array *a, const struct tsr_plan *plan)
{
	struct tsr_mock_cache *c = tsr_mock_get(a);
	if (!c)
		return tsr_error(TSR_E_NOMEM, "%s: out of memory for the mock-host cache", a->path);
	struct tsr_fd_cache fdc = {.fd = -1};
	int st = TSR_OK;
	pthread_mutex_lock(&c->lock);
	for (int64_t t = 0; t < plan->ntasks && !st; t++) {
		int64_t chunk = tsr_task_chunk(plan, t);
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
			st = tsr_mock_load(a, chunk, &fdc, &page[chunk % TSR_MOCK_PAGE]);
	}
	pthread_mutex_unlock(&c->lock);
	tsr_fd_cache_close(&fdc);
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
