/* mock_device.c - the mock-device storage backend: chunk bytes cached in device memory, replayed with no I/O and no copy. */
#include <stdlib.h>
#include <string.h>

#include "../core/array.h"
#include "../core/internal.h"
#include "backend_state.h"
#include "mock.h"
#include "mock_device.h"
#include "storage.h"

#ifdef TSR_WITH_CUDA
#include <cuda_runtime.h>

#include "../cuda/tsr_cuda.h"

/* Device memory comes in arenas of at least this size, bump-allocated: thousands of small
 * chunks cost a few cudaMalloc calls, not one each. */
#define TSR_MOCK_DEV_ARENA ((size_t)256 << 20)
/* Chunks per page of the index, allocated as pages fill (as the mock-host cache does). */
#define TSR_MOCK_DEV_PAGE 4096

struct tsr_mock_dev_entry {
	uint64_t addr;          /* 0: not cached */
	uint64_t nbytes;
};

struct tsr_mock_dev_arena {
	struct tsr_mock_dev_arena *next;
	unsigned char *base;
	size_t used, cap;
};

struct tsr_mock_dev {
	int device;             /* the CUDA device its memory is on */
	int64_t nchunks, npages;
	struct tsr_mock_dev_entry **pages[TSR_MOCK_DEV_KINDS]; /* npages slots each */
	struct tsr_mock_dev_arena *arenas;                     /* newest first */
};

uint64_t tsr_mock_dev_find(const struct tsr_array *a, int64_t chunk, int kind,
			   uint64_t *nbytes_ret)
{
	const struct tsr_io_state *s = tsr_io_state_find(a);
	const struct tsr_mock_dev *c = s ? s->mock_dev : NULL;
	if (!c || chunk < 0 || chunk >= c->nchunks || kind < 0 || kind >= TSR_MOCK_DEV_KINDS)
		return 0;
	int dev = -1;
	if (cudaGetDevice(&dev) != cudaSuccess || dev != c->device)
		return 0; /* another device's memory: tsr_mock_dev_put says so */
	const struct tsr_mock_dev_entry *pg = c->pages[kind][chunk / TSR_MOCK_DEV_PAGE];
	if (!pg || !pg[chunk % TSR_MOCK_DEV_PAGE].addr)
		return 0;
	*nbytes_ret = pg[chunk % TSR_MOCK_DEV_PAGE].nbytes;
	return pg[chunk % TSR_MOCK_DEV_PAGE].addr;
}

static struct tsr_mock_dev *tsr_mock_dev_get(struct tsr_array *a)
{
	struct tsr_io_state *s = tsr_io_state(a);
	if (!s)
		return NULL;
	struct tsr_mock_dev *c = s->mock_dev;
	if (c)
		return c;
	if (!(c = calloc(1, sizeof(*c))))
		return NULL;
	if (cudaGetDevice(&c->device) != cudaSuccess)
		c->device = -1;
	c->nchunks = a->desc.nchunks;
	c->npages = (c->nchunks + TSR_MOCK_DEV_PAGE - 1) / TSR_MOCK_DEV_PAGE;
	for (int k = 0; k < TSR_MOCK_DEV_KINDS; k++) {
		c->pages[k] = calloc(c->npages > 0 ? (size_t)c->npages : 1, sizeof(*c->pages[k]));
		if (!c->pages[k]) {
			tsr_mock_dev_free(c);
			return NULL;
		}
	}
	s->mock_dev = c;
	return c;
}

/* Device room for n bytes, 16-byte aligned (the place kernel's rows start aligned). */
static int tsr_mock_dev_alloc(struct tsr_mock_dev *c, size_t n, unsigned char **p_ret)
{
	struct tsr_mock_dev_arena *ar = c->arenas;
	size_t at = ar ? (ar->used + 15) & ~(size_t)15 : 0;
	if (!ar || at + n > ar->cap) {
		size_t cap = n > TSR_MOCK_DEV_ARENA ? n : TSR_MOCK_DEV_ARENA;
		struct tsr_mock_dev_arena *fresh = calloc(1, sizeof(*fresh));
		if (!fresh)
			return tsr_error(TSR_E_NOMEM, "out of memory");
		cudaError_t e = cudaMalloc((void **)&fresh->base, cap);
		if (e) {
			free(fresh);
			return tsr_error(tsr_cuda_status(e, TSR_E_IO),
					 "mock-device storage: cudaMalloc of %zu bytes: %s", cap,
					 cudaGetErrorString(e));
		}
		fresh->cap = cap;
		fresh->next = c->arenas;
		c->arenas = ar = fresh;
		at = 0;
	}
	*p_ret = ar->base + at;
	ar->used = at + n;
	return TSR_OK;
}

int tsr_mock_dev_put(struct tsr_array *a, int64_t chunk, int kind, const void *host,
		     size_t nbytes, uint64_t *addr_ret)
{
	uint64_t have;
	if ((*addr_ret = tsr_mock_dev_find(a, chunk, kind, &have)))
		return TSR_OK;
	struct tsr_mock_dev *c = tsr_mock_dev_get(a);
	if (!c)
		return tsr_error(TSR_E_NOMEM, "out of memory");
	int cur = -1;
	cudaGetDevice(&cur);
	if (cur != c->device)
		return tsr_error(TSR_E_UNSUPPORTED, "mock-device storage: the handle's device cache is "
				 "on CUDA device %d, this read runs on device %d (open the array again "
				 "to replay on another device)", c->device, cur);
	if (chunk < 0 || chunk >= c->nchunks || kind < 0 || kind >= TSR_MOCK_DEV_KINDS)
		return tsr_error(TSR_E_INTERNAL, "mock-device storage: chunk %lld out of range",
				 (long long)chunk);
	struct tsr_mock_dev_entry **pg = &c->pages[kind][chunk / TSR_MOCK_DEV_PAGE];
	if (!*pg && !(*pg = calloc(TSR_MOCK_DEV_PAGE, sizeof(**pg))))
		return tsr_error(TSR_E_NOMEM, "out of memory");
	unsigned char *dev = NULL;
	/* An empty chunk still gets an address: 0 means "not cached". */
	int st = tsr_mock_dev_alloc(c, nbytes ? nbytes : 16, &dev);
	if (st)
		return st;
	cudaError_t e = nbytes ? cudaMemcpy(dev, host, nbytes, cudaMemcpyHostToDevice) : cudaSuccess;
	if (e)
		return tsr_error(tsr_cuda_status(e, TSR_E_IO),
				 "mock-device storage: copy to the device: %s", cudaGetErrorString(e));
	(*pg)[chunk % TSR_MOCK_DEV_PAGE].addr = (uint64_t)(uintptr_t)dev;
	(*pg)[chunk % TSR_MOCK_DEV_PAGE].nbytes = nbytes;
	*addr_ret = (uint64_t)(uintptr_t)dev;
	return TSR_OK;
}

void tsr_mock_dev_free(struct tsr_mock_dev *c)
{
	if (!c)
		return;
	for (int k = 0; k < TSR_MOCK_DEV_KINDS; k++) {
		for (int64_t i = 0; c->pages[k] && i < c->npages; i++)
			free(c->pages[k][i]);
		free(c->pages[k]);
	}
	int prev = -1;
	if (c->arenas && cudaGetDevice(&prev) == cudaSuccess && prev != c->device && c->device >= 0)
		cudaSetDevice(c->device); /* (freed from their own device) */
	else
		prev = -1;
	while (c->arenas) {
		struct tsr_mock_dev_arena *next = c->arenas->next;
		cudaFree(c->arenas->base);
		free(c->arenas);
		c->arenas = next;
	}
	if (prev >= 0)
		cudaSetDevice(prev);
	free(c);
}

#else /* no CUDA: nothing is ever cached (the CUDA engine, the only caller, is absent) */

uint64_t tsr_mock_dev_find(const struct tsr_array *a, int64_t chunk, int kind,
			   uint64_t *nbytes_ret)
{
	(void)a, (void)chunk, (void)kind, (void)nbytes_ret;
	return 0;
}

int tsr_mock_dev_put(struct tsr_array *a, int64_t chunk, int kind, const void *host,
		     size_t nbytes, uint64_t *addr_ret)
{
	(void)a, (void)chunk, (void)kind, (void)host, (void)nbytes;
	*addr_ret = 0;
	return tsr_error(TSR_E_UNSUPPORTED, "mock-device storage: built without CUDA");
}

void tsr_mock_dev_free(struct tsr_mock_dev *c)
{
	(void)c;
}
#endif

/* ---- the backend (storage.h): the host cache's chunks, and what the GPU needs of them kept in
 * device memory ---- */

_Static_assert((int)TSR_KEEP_STORED == (int)TSR_MOCK_DEV_STORED &&
	       (int)TSR_KEEP_VALUES == (int)TSR_MOCK_DEV_VALUES,
	       "one numbering of what the device cache keeps");

static int tsr_mock_dev_prepare(struct tsr_array *a, const int64_t *chunks, int64_t n,
				int64_t stride)
{
	/* (device copies are made as the engine keeps them) */
	return tsr_mock_fill(a, chunks, n, stride);
}

const struct tsr_backend tsr_storage_mock_device = {
	.name = "mock-device",
	.mems = TSR_MEMBIT(TSR_MEM_HOST) | TSR_MEMBIT(TSR_MEM_HOST_PINNED),
	.prepare = tsr_mock_dev_prepare,
	.chunk_ref = tsr_mock_chunk_ref,
	.open = tsr_mock_open,
	.open_path = tsr_mock_open_path,
	.read = tsr_mock_read,
	.release = tsr_mock_release,
	.close = tsr_mock_release,
	.lend = tsr_mock_lend,
	.kept = tsr_mock_dev_find,
	.keep = tsr_mock_dev_put,
};
