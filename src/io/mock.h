/* mock.h - the mock-host storage backend: chunk bytes replayed from memory kept on the handle. */
#ifndef TSR_MOCK_H
#define TSR_MOCK_H

#include <stdint.h>

struct tsr_mock_cache;

/* One cached chunk: its ref as chunk_ref gave it, after the real fetch settled it (a whole-file
 * nbytes made exact, a missing chunk file turned into a fill chunk), and its stored bytes. */
struct tsr_mock_chunk {
	struct tsr_chunk_ref ref;
	unsigned char *bytes; /* ref.nbytes bytes + 64 zeroed bytes of slack, as a real fetch */
};

/* Makes sure every chunk the plan touches is in the array's cache, reading those that are not
 * with the real backend (one thread, under the cache's lock). After it returns TSR_OK, the
 * plan's chunks may be looked up from any thread without a lock. */
int tsr_mock_fill(struct tsr_array *array, const int64_t *chunks, int64_t n, int64_t stride);
/* A chunk that tsr_mock_fill put in the cache; NULL when it did not. */
const struct tsr_mock_chunk *tsr_mock_chunk(const struct tsr_array *array, int64_t chunk);
/* The mock-host backend's calls (storage.h), which mock-device shares. */
struct tsr_source;
int tsr_mock_chunk_ref(const struct tsr_array *array, int64_t chunk, int settle,
		       struct tsr_chunk_ref *ref);
const unsigned char *tsr_mock_lend(const struct tsr_array *array, int64_t chunk);
int tsr_mock_open(struct tsr_source *src, int64_t chunk, struct tsr_chunk_ref *ref);
int tsr_mock_open_path(struct tsr_source *src, const char *path);
int tsr_mock_read(struct tsr_source *src, int mem, void *dst, size_t at, size_t nbytes,
		  uint64_t offset);
void tsr_mock_release(struct tsr_source *src);
/* Frees the cache (NULL allowed); its array is being freed (backend_state.c). */
void tsr_mock_free(struct tsr_mock_cache *cache);

#endif
