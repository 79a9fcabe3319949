/* scratch.cu - the launchers' stream-ordered scratch: a pool a device that keeps its memory between batches until the engine trims it. */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdint.h>

#include "tsr_cuda.h"

/*
 * Why a pool of our own: the device's default pool returns its free memory to the driver at
 * every synchronisation (release threshold 0), and the zstd launcher synchronises once a batch
 * (it reads the frames' counts back), so each batch mapped its scratch anew (hundreds of MiB).
 * On the H200 an 800^3 uint16 Zarr v3 store of 200^3 zstd chunks read into the device at 32.5 to
 * 35.9 GB/s from the default pool and 45.1 to 47.0 from this one (scripts/gpu-zstd-rows, two
 * rounds). Changing the default pool's threshold instead would change the application's
 * allocator under it.
 */
#define TSR_SCRATCH_DEVICES 64

static cudaMemPool_t tsr_scratch_pools[TSR_SCRATCH_DEVICES];
static pthread_mutex_t tsr_scratch_lock = PTHREAD_MUTEX_INITIALIZER;

/* The current device's pool (made on first use), or NULL where it cannot be had. */
static cudaMemPool_t tsr_scratch_pool(int dev)
{
	if (dev < 0 || dev >= TSR_SCRATCH_DEVICES)
		return NULL;
	pthread_mutex_lock(&tsr_scratch_lock);
	cudaMemPool_t mp = tsr_scratch_pools[dev];
	if (!mp) {
		cudaMemPoolProps pr = {};
		pr.allocType = cudaMemAllocationTypePinned;
		pr.location.type = cudaMemLocationTypeDevice;
		pr.location.id = dev;
		uint64_t keep = UINT64_MAX;
		if (cudaMemPoolCreate(&mp, &pr) != cudaSuccess) {
			(void)cudaGetLastError();
			mp = NULL;
		} else if (cudaMemPoolSetAttribute(mp, cudaMemPoolAttrReleaseThreshold, &keep) !=
			   cudaSuccess) {
			(void)cudaGetLastError();
			cudaMemPoolDestroy(mp);
			mp = NULL;
		}
		tsr_scratch_pools[dev] = mp;
	}
	pthread_mutex_unlock(&tsr_scratch_lock);
	return mp;
}

extern "C" int tsr_cuda_scratch_alloc(void **ptr, size_t nbytes, void *cuda_stream)
{
	int dev = -1;
	cudaError_t e = cudaGetDevice(&dev);
	if (e != cudaSuccess)
		return (int)e;
	cudaMemPool_t mp = tsr_scratch_pool(dev);
	cudaStream_t cs = (cudaStream_t)cuda_stream;
	/* (without a pool of its own the device's default one still serves, only slower) */
	return (int)(mp ? cudaMallocFromPoolAsync(ptr, nbytes, mp, cs)
			: cudaMallocAsync(ptr, nbytes, cs));
}

extern "C" void tsr_cuda_scratch_trim(int device)
{
	if (device < 0 || device >= TSR_SCRATCH_DEVICES)
		return;
	pthread_mutex_lock(&tsr_scratch_lock);
	cudaMemPool_t mp = tsr_scratch_pools[device];
	pthread_mutex_unlock(&tsr_scratch_lock);
	if (mp)
		cudaMemPoolTrimTo(mp, 0);
}
