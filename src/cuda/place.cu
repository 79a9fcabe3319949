/* place.cu - the fused place kernel: FITS GZIP_2 byte planes, byte order, BZERO offsets,
 * BSCALE/BZERO scaling with BLANK, dequantization with dithering, and the scatter of each
 * chunk's selected box into the output, one launch a batch. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "place.h"
#include "place_core.h"

/* enum tsr_dtype values (tessera.h), repeated so this file needs no C header. */
enum { D_BOOL = 1, D_I8, D_I16, D_I32, D_I64, D_U8, D_U16, D_U32, D_U64, D_F16, D_F32, D_F64,
       D_C64, D_C128 };

__device__ static int tsr_width(int t)
{
	switch (t) {
	case D_BOOL: case D_I8: case D_U8: return 1;
	case D_I16: case D_U16: case D_F16: return 2;
	case D_I32: case D_U32: case D_F32: return 4;
	case D_C128: return 16;
	default: return 8;
	}
}

/* Swaps the low w bytes of x when big-endian. */
__device__ static uint64_t tsr_swap_bits(uint64_t x, int w, int be)
{
	if (!be)
		return x;
	switch (w) {
	case 2: return __byte_perm((uint32_t)x, 0, 0x3201) & 0xffff;
	case 4: return __byte_perm((uint32_t)x, 0, 0x0123);
	case 8: {
		uint32_t lo = (uint32_t)x, hi = (uint32_t)(x >> 32);
		return ((uint64_t)__byte_perm(lo, 0, 0x0123) << 32) | __byte_perm(hi, 0, 0x0123);
	}
	default: return x;
	}
}

/* Loads w bytes as an unsigned integer, swapping when big-endian. */
__device__ static uint64_t tsr_load_bits(const unsigned char *p, int w, int be)
{
	uint64_t v = 0;
	switch (w) {
	case 1: v = p[0]; break;
	case 2: { uint16_t x; memcpy(&x, p, 2); v = x; break; }
	case 4: { uint32_t x; memcpy(&x, p, 4); v = x; break; }
	default: { uint64_t x; memcpy(&x, p, 8); v = x; break; }
	}
	return tsr_swap_bits(v, w, be);
}

/* Element e of a chunk stored as byte planes (plane b holds byte b of every element, in the
 * stored byte order), as src/codecs/planes.c lays them out again on the CPU. Neighbouring
 * threads read neighbouring bytes of each plane. */
__device__ static uint64_t tsr_load_planes(const unsigned char *base, int64_t e, int64_t npix,
					   int w, int be, int64_t block)
{
	int64_t at, n;
	tsr_pc_planes(e, npix, w, block, &at, &n);
	uint64_t x = 0;
	for (int b = 0; b < w; b++)
		x |= (uint64_t)base[at + b * n] << (8 * b);
	return tsr_swap_bits(x, w, be);
}

__device__ static void tsr_store_bits(unsigned char *p, int w, uint64_t v)
{
	switch (w) {
	case 1: p[0] = (unsigned char)v; break;
	case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
	case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
	default: memcpy(p, &v, 8); break;
	}
}

/* The stored value as a double, for scaling (exact for every integer type up to 2^53, as on
 * the CPU, which converts each integer type straight to the output float type). */
__device__ static void tsr_scale_store(unsigned char *dst, const struct tsr_cuda_place *pl,
				       int in_type, uint64_t bits)
{
	int64_t iv = 0;
	double dv = 0.0;
	float fv = 0.0f;
	int is_int = 1;
	switch (in_type) {
	case D_U8: iv = (uint8_t)bits; break;
	case D_I8: iv = (int8_t)bits; break;
	case D_I16: iv = (int16_t)bits; break;
	case D_I32: iv = (int32_t)bits; break;
	case D_I64: iv = (int64_t)bits; break;
	case D_F32: { uint32_t b = (uint32_t)bits; memcpy(&fv, &b, 4); dv = fv; is_int = 0; break; }
	default: memcpy(&dv, &bits, 8); is_int = 0; break;
	}
	int blank = pl->has_blank && is_int && iv == pl->blank;
	if (pl->out_type == D_F32) {
		/* One float rounding per operation, as NumPy does in float32. */
		float v = is_int ? (float)iv : (in_type == D_F32 ? fv : (float)dv);
		if (pl->scale != 1.0)
			v = __fmul_rn(v, (float)pl->scale);
		if (pl->zero != 0.0)
			v = __fadd_rn(v, (float)pl->zero);
		if (blank)
			v = __int_as_float(0x7fc00000);
		memcpy(dst, &v, 4);
	} else {
		double v = is_int ? (double)iv : dv;
		if (pl->scale != 1.0)
			v = __dmul_rn(v, pl->scale);
		if (pl->zero != 0.0)
			v = __dadd_rn(v, pl->zero);
		if (blank)
			v = __longlong_as_double(0x7ff8000000000000LL);
		memcpy(dst, &v, 8);
	}
}

/* CFITSIO's dither table (fits_init_randoms), copied from the host's, where it is computed
 * once and checked (tests/test_dither.c). */
__device__ float tsr_dq_rand[TSR_CUDA_N_RANDOM];

/* The first table index after seeding with i: (int)(R[i] * 500), a float product in C. */
__device__ static int tsr_dq_start(int i)
{
	return (int)__fmul_rn(tsr_dq_rand[i], 500.0f);
}

/*
 * Pixel e (in the tile's stored order) of a quantized tile, as src/codecs/dequantize.c
 * computes it, bit for bit: ((double)q - (double)R[k] + 0.5) * zscale + zzero in double,
 * each operation rounded on its own (no fused multiply-add: CFITSIO has none), the float cast
 * last. The dither index k starts at (int)(R[seed] * 500) and counts up one a pixel; at 10000
 * the seed moves on and k restarts. A thread finds its pixel's k by skipping whole runs
 * (9501..10000 pixels each): one or two steps for tiles of common sizes. Nulls (q == ZBLANK)
 * are NaN; with SUBTRACTIVE_DITHER_2, int32 q == -2147483646 is exactly 0.0.
 */
__device__ static void tsr_dequant_store(unsigned char *dst, const struct tsr_cuda_place *pl,
					 int in_type, uint64_t bits, int64_t e)
{
	int64_t q = in_type == D_U8 ? (int64_t)(uint8_t)bits
		    : in_type == D_I16 ? (int64_t)(int16_t)bits : (int64_t)(int32_t)bits;
	double v;
	if (pl->has_blank && q == pl->blank) {
		v = __longlong_as_double(0x7ff8000000000000LL);
	} else if (pl->dither == 0) {
		v = __dadd_rn(__dmul_rn((double)q, pl->scale), pl->zero);
	} else if (pl->dither == 2 && in_type == D_I32 && q == -2147483646) {
		v = 0.0;
	} else {
		int64_t s0 = (pl->dither_row - 1) % TSR_CUDA_N_RANDOM;
		int seed = (int)(s0 < 0 ? s0 + TSR_CUDA_N_RANDOM : s0);
		int k = tsr_dq_start(seed);
		int64_t p = e;
		while (p >= TSR_CUDA_N_RANDOM - k) {
			p -= TSR_CUDA_N_RANDOM - k;
			seed = seed + 1 == TSR_CUDA_N_RANDOM ? 0 : seed + 1;
			k = tsr_dq_start(seed);
		}
		double r = (double)tsr_dq_rand[k + (int)p];
		v = __dadd_rn(__dmul_rn(__dadd_rn(__dsub_rn((double)q, r), 0.5), pl->scale), pl->zero);
	}
	if (pl->out_type == D_F32) {
		float f = pl->has_blank && q == pl->blank ? __int_as_float(0x7fc00000)
							  : __double2float_rn(v);
		memcpy(dst, &f, 4);
	} else {
		memcpy(dst, &v, 8);
	}
}

/* 16 bytes of w-byte elements (w = 1, 2, 4, 8): byte order restored, then the BZERO offset
 * added to each element with wrap-around, as tsr_store_bits(bits + offset) does one at a time. */
__device__ static uint4 tsr_vec_transform(uint4 v, int w, int be, int add, uint64_t off)
{
	uint32_t x[4] = {v.x, v.y, v.z, v.w};
	if (be) {
		for (int k = 0; k < 4; k++)
			x[k] = w == 2 ? __byte_perm(x[k], 0, 0x2301)
			       : w >= 4 ? __byte_perm(x[k], 0, 0x0123) : x[k];
		if (w == 8) {
			uint32_t t = x[0]; x[0] = x[1]; x[1] = t;
			t = x[2]; x[2] = x[3]; x[3] = t;
		}
	}
	if (add) {
		if (w == 1) {
			uint32_t o = (uint32_t)(off & 0xff) * 0x01010101u;
			for (int k = 0; k < 4; k++)
				x[k] = __vadd4(x[k], o);
		} else if (w == 2) {
			uint32_t o = (uint32_t)(off & 0xffff) * 0x00010001u;
			for (int k = 0; k < 4; k++)
				x[k] = __vadd2(x[k], o);
		} else if (w == 4) {
			for (int k = 0; k < 4; k++)
				x[k] += (uint32_t)off;
		} else {
			for (int k = 0; k < 4; k += 2) {
				uint64_t e = ((uint64_t)x[k + 1] << 32 | x[k]) + off;
				x[k] = (uint32_t)e;
				x[k + 1] = (uint32_t)(e >> 32);
			}
		}
	}
	return make_uint4(x[0], x[1], x[2], x[3]);
}

/* The stored element type of task k of place pl (npix elements a task), or 0 when it is left
 * alone: its stream failed, or decoded to a size no rule accepts (the host reports it before the
 * read returns). */
__device__ static int tsr_task_type(const struct tsr_cuda_place *pl, int64_t npix, int64_t k,
				    const int *status, const size_t *sizes)
{
	int in_type = pl->in_type;
	if (pl->stream < 0)
		return in_type;
	int64_t st = pl->stream + k;
	if (status[st] != 0)
		return 0;
	uint64_t got = sizes[st];
	if (got != (uint64_t)npix * tsr_width(in_type)) {
		uint64_t ew = npix ? got / (uint64_t)npix : 0;
		if (!pl->alt_width || ew * (uint64_t)npix != got ||
		    !(ew == 1 || ew == 2 || ew == 4 || ew == 8) ||
		    (pl->kind == TSR_CUDA_DEQUANT && ew == 8))
			return 0;
		in_type = ew == 1 ? D_U8 : ew == 2 ? D_I16 : ew == 4 ? D_I32 : D_I64;
	}
	return in_type;
}

/* blockIdx.x: the place (a chunk task, or a run of them); blockIdx.y strides over its rows (a
 * run's tasks' rows one task after another), a CTA taking several short rows at once
 * (tsr_pc_share_of); a row's threads walk it.
 * General: places may gather or read blocked sources; without, every place is a box of a
 * C-order source, and those paths are compiled out (sm_90: 64 registers, 4 CTAs an SM; with
 * them 92, which the bound holds to 80, so 3 CTAs an SM, not 2, with 36 bytes of spill stores
 * of the row loop's state). */
template <bool General>
__global__ void __launch_bounds__(TSR_PC_THREADS, General ? 3 : 4)
	tsr_place_kernel(const unsigned char *src, const unsigned char *dec,
			 const struct tsr_cuda_place *places, const int *status,
			 const size_t *sizes)
{
	const struct tsr_cuda_place *pl = &places[blockIdx.x];
	unsigned char *out = (unsigned char *)(uintptr_t)pl->out;
	int nd = pl->ndim;
	int64_t cstride[TSR_CUDA_MAX_DIM];
	int64_t npix = 1;
	for (int d = nd - 1; d >= 0; d--) {
		cstride[d] = npix;
		npix *= pl->extent[d];
	}
	const int wo = tsr_width(pl->out_type);
	const int run = pl->run > 1 ? pl->run : 1;
	int64_t nmax, trows = tsr_pc_rows(pl, &nmax), rows = trows * run;
	/* short rows: several a CTA, each on a group of its threads (place.h) */
	const struct tsr_pc_share sh = tsr_pc_share_of(nmax, blockIdx.y, gridDim.y, threadIdx.x);
	/* the source's elements (a b2nd chunk's padded ones): its byte planes' sizes */
	const int64_t nsrc = pl->src_npix > 0 ? pl->src_npix : npix;
	/* The task of the thread's last row, its element type and its values: a thread's rows of
	 * one task share them. */
	int64_t kcur = -1;
	int in_type = 0;
	const unsigned char *base = NULL;
	for (int64_t r = sh.r0; r < rows; r += sh.rstep) {
		int64_t rr, k = tsr_pc_run_row(r, trows, run, &rr);
		if (k != kcur) {
			kcur = k;
			in_type = tsr_task_type(pl, npix, k, status, sizes);
			/* In integers: a mock-device batch has no staging buffer (src NULL) and its
			 * offsets are device addresses. */
			base = (const unsigned char *)((uintptr_t)(pl->src_dec ? dec : src) +
						       pl->src_offset + (uint64_t)(k * pl->run_src));
		}
		if (!in_type)
			continue;
		const int wi = tsr_width(in_type);
		/* Rows that are plain copies (a byte swap and an offset at most) may go 16 bytes
		 * at a time (boxes only: a gather's points have no stride). */
		const int vec = !pl->planes && wi == wo && in_type != D_C64 && in_type != D_C128 &&
				(pl->kind == TSR_CUDA_COPY || pl->kind == TSR_CUDA_OFFSET) &&
				(!General || (pl->nunits <= 0 && !pl->blocked));
		/* Row rr of task k: its chunk-local start and output start. */
		struct tsr_pc_row row;
		if (General)
			tsr_pc_row(pl, cstride, rr, &row);
		else
			tsr_pc_row_box(pl, cstride, rr, &row);
		row.d += k * pl->run_out;
		int64_t sidx = row.s, didx = row.d, sstep = row.sstep, dstep = row.dstep, n = row.n;
		int64_t j0 = 0;
		if (vec && sstep == 1 && dstep == 1) {
			/* A contiguous row copied with at most a byte swap and an offset: 16-byte
			 * loads and stores where source and output share their alignment (the
			 * common case: staged chunks and outputs start 16-byte aligned), after a
			 * scalar head that aligns the output. */
			uintptr_t sp = (uintptr_t)(base + sidx * wi), dp = (uintptr_t)(out + didx * wo);
			int64_t head, nvec;
			if (tsr_pc_vec_split(sp, dp, wi, n, &head, &nvec)) {
				const uint4 *vs = (const uint4 *)(sp + (uintptr_t)(head * wi));
				uint4 *vd = (uint4 *)(dp + (uintptr_t)(head * wi));
				for (int64_t k = sh.lane; k < nvec; k += sh.lanes)
					vd[k] = tsr_vec_transform(vs[k], wi, pl->in_be,
								  pl->kind == TSR_CUDA_OFFSET, pl->offset);
				/* the head, then the tail, go through the loop below */
				int64_t tail = head + nvec * 16 / wi;
				for (int64_t j = sh.lane; j < head; j += sh.lanes) {
					uint64_t bits = tsr_load_bits(base + (sidx + j) * wi, wi, pl->in_be);
					tsr_store_bits(out + (didx + j) * wo, wo,
						       pl->kind == TSR_CUDA_OFFSET ? bits + pl->offset : bits);
				}
				j0 = tail;
			}
		}
		for (int64_t j = j0 + sh.lane; j < n; j += sh.lanes) {
			int64_t e, o;
			if (General) {
				tsr_pc_at(&row, j, &e, &o);
			} else {
				e = row.s + j * row.sstep;
				o = row.d + j * row.dstep;
			}
			unsigned char *q = out + o * wo;
			uint64_t bits;
			if (pl->planes) {
				bits = tsr_load_planes(base, e, nsrc, wi, pl->in_be, pl->plane_block);
			} else {
				const unsigned char *p = base + e * wi;
				if (wi == 16) { /* complex128: each part alone */
					uint64_t a = tsr_load_bits(p, 8, pl->in_be), b = tsr_load_bits(p + 8, 8, pl->in_be);
					tsr_store_bits(q, 8, a);
					tsr_store_bits(q + 8, 8, b);
					continue;
				}
				if (in_type == D_C64) {
					uint64_t a = tsr_load_bits(p, 4, pl->in_be), b = tsr_load_bits(p + 4, 4, pl->in_be);
					tsr_store_bits(q, 4, a);
					tsr_store_bits(q + 4, 4, b);
					continue;
				}
				bits = tsr_load_bits(p, wi, pl->in_be);
			}
			if (pl->kind == TSR_CUDA_COPY)
				tsr_store_bits(q, wo, bits);
			else if (pl->kind == TSR_CUDA_OFFSET)
				tsr_store_bits(q, wo, bits + pl->offset);
			else if (pl->kind == TSR_CUDA_DEQUANT)
				tsr_dequant_store(q, pl, in_type, bits, e);
			else
				tsr_scale_store(q, pl, in_type, bits);
		}
	}
}

extern "C" int tsr_cuda_place_randoms(const float *randoms)
{
	return (int)cudaMemcpyToSymbol(tsr_dq_rand, randoms, sizeof(float) * TSR_CUDA_N_RANDOM);
}

extern "C" int tsr_cuda_place_launch(const void *d_src, const void *d_dec,
				     const struct tsr_cuda_place *d_places, size_t n,
				     int64_t max_rows, int general, const int *d_status,
				     const size_t *d_sizes, void *stream)
{
	if (n == 0)
		return 0;
	unsigned int gy = (unsigned int)(max_rows < 1 ? 1 : max_rows > 4096 ? 4096 : max_rows);
	dim3 grid((unsigned int)n, gy);
	if (general)
		tsr_place_kernel<true><<<grid, TSR_PC_THREADS, 0, (cudaStream_t)stream>>>(
			(const unsigned char *)d_src, (const unsigned char *)d_dec, d_places,
			d_status, d_sizes);
	else
		tsr_place_kernel<false><<<grid, TSR_PC_THREADS, 0, (cudaStream_t)stream>>>(
			(const unsigned char *)d_src, (const unsigned char *)d_dec, d_places,
			d_status, d_sizes);
	return (int)cudaGetLastError();
}
