/* cuda_device.c - CUDA devices: which one a read runs on, whose memory a pointer is, and the public CUDA helpers. */
#include <stdatomic.h>
#include <stdio.h>

#include "engine.h"

#ifdef TSR_WITH_CUDA
#include <cuda_runtime.h>

#include "cuda_engine.h"

/* The devices there, or a status naming why none is (the one definition of the count: the
 * kernels' own tests ask the runtime themselves). */
int tsr_cuda_device_count(int *n_ret)
{
	if (!n_ret)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_cuda_device_count: n_ret is NULL");
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess)
		(void)cudaGetLastError();
	*n_ret = e == cudaSuccess ? n : 0;
	if (e != cudaSuccess || n == 0)
		return tsr_error(TSR_E_NO_DEVICE, "no CUDA device (%s)",
				 e ? cudaGetErrorString(e) : "0 devices");
	return TSR_OK;
}

/* The device count, asked of the runtime until it first sees devices, then kept (the devices
 * of a process do not change): every read checks its ordinal. */
static int tsr_cuda_count(int *n_ret)
{
	static atomic_int known;
	int n = atomic_load_explicit(&known, memory_order_relaxed);
	if (n > 0) {
		*n_ret = n;
		return TSR_OK;
	}
	int st = tsr_cuda_device_count(n_ret);
	if (st == TSR_OK)
		atomic_store_explicit(&known, *n_ret, memory_order_relaxed);
	return st;
}

/* TSR_E_NO_DEVICE unless ordinal `device` exists, naming it and the count. */
static int tsr_cuda_check_ordinal(int device, const char *path)
{
	int n = 0;
	int st = tsr_cuda_count(&n);
	if (device >= 0 && device < n)
		return TSR_OK;
	char why[256] = "";
	if (st)
		snprintf(why, sizeof(why), " (%s)", tsr_errmsg());
	return tsr_error(TSR_E_NO_DEVICE, "%s%sCUDA device %d does not exist: %d CUDA device%s here%s",
			 path ? path : "", path ? ": " : "", device, n, n == 1 ? "" : "s", why);
}

int tsr_cuda_pointer_device(const void *ptr, int *device_ret)
{
	if (!device_ret)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_cuda_pointer_device: device_ret is NULL");
	*device_ret = -1;
	int n = 0;
	int st = tsr_cuda_count(&n);
	if (st)
		return st;
	struct cudaPointerAttributes at;
	cudaError_t e = cudaPointerGetAttributes(&at, ptr);
	if (e != cudaSuccess) {
		/* (older runtimes: host memory CUDA never saw is an error, not "unregistered") */
		(void)cudaGetLastError();
		return TSR_OK;
	}
	if (at.type == cudaMemoryTypeDevice)
		*device_ret = at.device;
	return TSR_OK;
}

int tsr_cuda_enter(int *device_ret, const void *out, const char *path, int *prev_ret)
{
	*prev_ret = -1;
	int device = *device_ret, st;
	if (device < 0) {
		/* none named: the destination's device, else the calling thread's current one */
		int n = 0, owner = -1;
		if ((st = tsr_cuda_count(&n)))
			return st;
		if (out && (st = tsr_cuda_pointer_device(out, &owner)))
			return st;
		if (owner < 0 && cudaGetDevice(&owner) != cudaSuccess)
			owner = 0;
		*device_ret = device = owner;
	}
	if ((st = tsr_cuda_check_ordinal(device, path)))
		return st;
	if (out) {
		/* The kernels write the destination from the read's device: memory of another one
		 * would need peer access the caller never asked for. */
		int owner = -1;
		if ((st = tsr_cuda_pointer_device(out, &owner)))
			return st;
		if (owner >= 0 && owner != device)
			return tsr_error(TSR_E_INVALID_ARG, "%s: the destination is device memory of "
					 "CUDA device %d, but the read runs on CUDA device %d (set the "
					 "read's device to %d, or name none)", path ? path : "read",
					 owner, device, owner);
	}
	int prev = -1;
	if (cudaGetDevice(&prev) != cudaSuccess)
		prev = -1;
	if (prev != device) {
		cudaError_t e = cudaSetDevice(device);
		if (e)
			return tsr_cuda_fail(e, "cudaSetDevice");
		*prev_ret = prev;
	}
	return TSR_OK;
}

void tsr_cuda_leave(int prev)
{
	if (prev >= 0)
		cudaSetDevice(prev);
}

int tsr_cuda_malloc(size_t nbytes, void **ptr_ret)
{
	if (!ptr_ret)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_cuda_malloc: ptr_ret is NULL");
	*ptr_ret = NULL;
	cudaError_t e = cudaMalloc(ptr_ret, nbytes ? nbytes : 1);
	return e ? tsr_cuda_fail(e, "cudaMalloc") : TSR_OK;
}

int tsr_cuda_malloc_on(int device, size_t nbytes, void **ptr_ret)
{
	if (!ptr_ret)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_cuda_malloc_on: ptr_ret is NULL");
	*ptr_ret = NULL;
	int prev = -1;
	if (device < 0)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_cuda_malloc_on: CUDA device %d < 0", device);
	int st = tsr_cuda_enter(&device, NULL, NULL, &prev);
	if (st)
		return st;
	st = tsr_cuda_malloc(nbytes, ptr_ret);
	tsr_cuda_leave(prev);
	return st;
}

void tsr_cuda_free(void *ptr)
{
	if (!ptr)
		return;
	/* freed with its own device current (memory of another device than the caller's) */
	int owner = -1, prev = -1;
	if (tsr_cuda_pointer_device(ptr, &owner) == TSR_OK && owner >= 0)
		tsr_cuda_enter(&owner, NULL, NULL, &prev);
	cudaFree(ptr);
	tsr_cuda_leave(prev);
}

int tsr_cuda_memcpy_to_host(void *dst, const void *src, size_t nbytes)
{
	cudaError_t e = cudaMemcpy(dst, src, nbytes, cudaMemcpyDeviceToHost);
	return e ? tsr_cuda_fail(e, "copy to the host") : TSR_OK;
}

int tsr_cuda_free_nbytes(int device, size_t *nbytes_ret)
{
	*nbytes_ret = 0;
	int prev = -1;
	int st = tsr_cuda_enter(&device, NULL, NULL, &prev);
	if (st)
		return st;
	size_t total = 0;
	cudaError_t e = cudaMemGetInfo(nbytes_ret, &total);
	tsr_cuda_leave(prev);
	return e ? tsr_cuda_fail(e, "cudaMemGetInfo") : TSR_OK;
}

int tsr_cuda_copy_on_device(void *dst, const void *src, size_t nbytes, void *stream)
{
	cudaStream_t cs = (cudaStream_t)stream;
	cudaError_t e = cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDeviceToDevice, cs);
	if (e == cudaSuccess)
		e = cudaStreamSynchronize(cs);
	return e ? tsr_cuda_fail(e, "copy on the device") : TSR_OK;
}

#else /* no CUDA in this build */

#define TSR_NO_CUDA "this build of tessera has no CUDA engine"

int tsr_cuda_device_count(int *n_ret)
{
	if (!n_ret)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_cuda_device_count: n_ret is NULL");
	*n_ret = 0;
	return tsr_error(TSR_E_NO_DEVICE, TSR_NO_CUDA);
}

int tsr_cuda_pointer_device(const void *ptr, int *device_ret)
{
	(void)ptr;
	if (!device_ret) /* (the argument is checked first, as in a CUDA build) */
		return tsr_error(TSR_E_INVALID_ARG, "tsr_cuda_pointer_device: device_ret is NULL");
	*device_ret = -1;
	return tsr_error(TSR_E_NO_DEVICE, TSR_NO_CUDA);
}

int tsr_cuda_enter(int *device_ret, const void *out, const char *path, int *prev_ret)
{
	(void)out;
	*prev_ret = -1;
	if (*device_ret < 0)
		return tsr_error(TSR_E_NO_DEVICE, "%s%s" TSR_NO_CUDA, path ? path : "",
				 path ? ": " : "");
	return tsr_error(TSR_E_NO_DEVICE, "%s%sCUDA device %d: " TSR_NO_CUDA " (0 CUDA devices)",
			 path ? path : "", path ? ": " : "", *device_ret);
}

void tsr_cuda_leave(int prev)
{
	(void)prev;
}

void tsr_cuda_quiesce(struct tsr_context *ctx, int device)
{
	(void)ctx, (void)device;
}

void tsr_cuda_trim(struct tsr_context *ctx)
{
	(void)ctx;
}

int tsr_cuda_malloc(size_t nbytes, void **ptr_ret)
{
	(void)nbytes;
	if (!ptr_ret)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_cuda_malloc: ptr_ret is NULL");
	*ptr_ret = NULL;
	return tsr_error(TSR_E_NO_DEVICE, TSR_NO_CUDA);
}

int tsr_cuda_malloc_on(int device, size_t nbytes, void **ptr_ret)
{
	(void)nbytes;
	if (!ptr_ret)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_cuda_malloc_on: ptr_ret is NULL");
	*ptr_ret = NULL;
	return tsr_error(TSR_E_NO_DEVICE, "CUDA device %d: " TSR_NO_CUDA " (0 CUDA devices)",
			 device);
}

void tsr_cuda_free(void *ptr)
{
	(void)ptr;
}

int tsr_cuda_memcpy_to_host(void *dst, const void *src, size_t nbytes)
{
	(void)dst, (void)src, (void)nbytes;
	return tsr_error(TSR_E_NO_DEVICE, TSR_NO_CUDA);
}

int tsr_cuda_free_nbytes(int device, size_t *nbytes_ret)
{
	*nbytes_ret = 0;
	return tsr_error(TSR_E_NO_DEVICE, "CUDA device %d: " TSR_NO_CUDA " (0 CUDA devices)",
			 device);
}

int tsr_cuda_copy_on_device(void *dst, const void *src, size_t nbytes, void *stream)
{
	(void)dst, (void)src, (void)nbytes, (void)stream;
	return tsr_error(TSR_E_NO_DEVICE, TSR_NO_CUDA);
}
#endif
