/* bops.h - a blosc slot's uncoded streams (stored as is, or runs of one byte) as plain-data copy and set operations, and their C launcher. */
#ifndef TSR_CUDA_BOPS_H
#define TSR_CUDA_BOPS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A blosc stream that is not coded (stored as is, or a run of one byte), copied or set in the
 * slot's decode buffer on the device before the kernels run. */
struct tsr_cuda_bop {
	uint64_t src;           /* bytes into the slot's device staging (copies) */
	uint64_t dst;           /* bytes into its decode buffer */
	uint64_t n;
	int value;              /* -1: copy; else the byte to set */
};

/* The largest operation the engine makes (a longer stream becomes several): one thread block
 * runs an operation, bytes a thread at a time, which a whole memcpyed chunk of tens of MiB on
 * one block would make the slot's slowest kernel. */
#define TSR_BOP_MAX ((uint64_t)64 << 10)

/* Runs ops[0..n) (device memory) on stream in one launch: a slot of python-blosc2's 8 KiB
 * blocks holds tens of thousands of them, one cudaMemcpyAsync each took ~4 us of the host's
 * time. Returns 0 or a cudaError_t. */
int tsr_cuda_bops_launch(const struct tsr_cuda_bop *ops, size_t n, uint8_t *dec,
			 const uint8_t *stage, void *stream);

#ifdef __cplusplus
}
#endif

#endif
