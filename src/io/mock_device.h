/* mock_device.h - the mock-device storage backend: what the GPU reads of a chunk, kept in device memory on the handle. */
#ifndef TSR_MOCK_DEVICE_H
#define TSR_MOCK_DEVICE_H

#include <stddef.h>
#include <stdint.h>

struct tsr_array;
struct tsr_mock_dev;

/* What the cache holds of a chunk: the stored bytes the GPU decodes or places itself, or the
 * values the CPU decoded (chunks whose codec has no GPU kernel). */
enum { TSR_MOCK_DEV_STORED = 0, TSR_MOCK_DEV_VALUES = 1, TSR_MOCK_DEV_KINDS = 2 };

/* The device address of a cached chunk's bytes (and their count), or 0 when not cached. */
uint64_t tsr_mock_dev_find(const struct tsr_array *array, int64_t chunk, int kind,
			   uint64_t *nbytes_ret);
/* Copies nbytes of host memory into the array's device cache as chunk's `kind` bytes (once;
 * the first copy stays); returns the device address in *addr_ret. The caller serialises calls
 * on one array (the CUDA engine holds its context's GPU lock). */
int tsr_mock_dev_put(struct tsr_array *array, int64_t chunk, int kind, const void *host,
		     size_t nbytes, uint64_t *addr_ret);
/* Frees the cache (NULL allowed); its array is being freed (backend_state.c). */
void tsr_mock_dev_free(struct tsr_mock_dev *cache);

#endif
