/* lz_zarr_plane.h - the benchmarks' LZ stream profile beside tests/gpu/lz_profiles.h's: the top byte plane of a Zarr v2 float32 field, what a Zarr v2 blosc-lz4 slot's LZ4 kernel decodes (gpu_lz_bench.cu). */
#ifndef TSR_LZ_ZARR_PLANE_H
#define TSR_LZ_ZARR_PLANE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lz_profiles.h"

/* The stream blosc codes of a Zarr v2 float32 array written with lz4 and byte shuffle
 * (bench/zarr_bench.py's field, 100 sin(row / 37) cos(col / 53) plus unit normal noise, rounded
 * to 1/100, rows of 1024): a block's top byte plane (sign and exponent), the one of its four
 * planes LZ4 compresses (blosc stores the other three as they are). seed: which part of the
 * field (n bytes from element seed x n on). */
static inline void lz_zarr_plane(unsigned char *buf, size_t n, uint64_t seed)
{
	uint64_t s = seed * 0x9e3779b97f4a7c15ull + 777;
	for (size_t i = 0; i < n; i++) {
		size_t e = (size_t)seed * n + i; /* the element's place in the field */
		double row = (double)(e / 1024), col = (double)(e % 1024);
		double g = lzp_gauss(&s);
		float v = (float)(100.0 * sin(row / 37.0) * cos(col / 53.0) + g);
		v = (float)(round((double)v * 100.0) / 100.0);
		unsigned char b[4];
		memcpy(b, &v, 4);
		buf[i] = b[3];
	}
}

#endif
