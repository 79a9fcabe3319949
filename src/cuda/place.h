/* place.h - the fused place kernel's plain-data batch description and its C launcher. */
#ifndef TSR_CUDA_PLACE_H
#define TSR_CUDA_PLACE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The GPU place path handles arrays of up to this many axes (more: the CPU engine). */
#define TSR_CUDA_MAX_DIM 8

/* A gather's last unit is placed in rows of at most this many positions (place_core.h). */
#ifndef TSR_PC_SEG
#define TSR_PC_SEG 4096
#endif

/* The place kernel's threads a CTA. A CTA places rows of one task; rows of n elements take
 * tsr_pc_row_lanes(n) of its threads each (a power of two, 8 to TSR_PC_THREADS: about 8
 * elements a thread), so a CTA takes TSR_PC_THREADS / lanes rows at once. A CTA a row left
 * most of its 256 threads idle on the rows of 50 uint16 (100 bytes: 7 vectors of 16) of a Zarr
 * shard's 50^3 inner chunks: on the H200 each slot's place kernel (805 such chunks, 201 MB)
 * took 12.5 ms, the sharded row's bound. */
#define TSR_PC_THREADS 256
#ifdef __CUDACC__
#define TSR_PC_HD __host__ __device__
#else
#define TSR_PC_HD
#endif
static inline TSR_PC_HD int tsr_pc_row_lanes(int64_t n)
{
	int lanes = 8;
	while (lanes < TSR_PC_THREADS && (int64_t)lanes * 8 < n)
		lanes *= 2;
	return lanes;
}

/* The rows of at most n elements a CTA takes at once. */
static inline TSR_PC_HD int tsr_pc_row_per(int64_t n)
{
	return TSR_PC_THREADS / tsr_pc_row_lanes(n);
}

/* The CTAs rows of at most n elements need (fewer are correct too: a CTA strides over the
 * rows), to size the grid's y by (tsr_cuda_place_launch's max_rows). */
static inline TSR_PC_HD int64_t tsr_pc_ctas(int64_t rows, int64_t n)
{
	int64_t per = tsr_pc_row_per(n);
	return (rows + per - 1) / per;
}

/* Value transforms the kernel applies (mirrors enum tsr_xform_kind). */
enum { TSR_CUDA_COPY = 0, TSR_CUDA_OFFSET = 1, TSR_CUDA_SCALE = 2, TSR_CUDA_DEQUANT = 3 };

/* Entries of the FITS dither table (CFITSIO's N_RANDOM). */
#define TSR_CUDA_N_RANDOM 10000

/* One chunk task of a batch: where its values are (the batch's staging buffer, or its decode
 * buffer when the GPU inflated them), how they turn into output values, and which box of it
 * lands where in which output (a batch may hold chunks of several reads: a batch read's files
 * share staging slots). */
struct tsr_cuda_place {
	uint64_t out;           /* device address of the read's output (element 0) */
	uint64_t src_offset;    /* bytes into the buffer that src_dec picks */
	int32_t in_type;        /* enum tsr_dtype of the stored elements */
	int32_t out_type;       /* enum tsr_dtype of the output */
	int32_t in_be;          /* stored elements are big-endian */
	int32_t kind;           /* TSR_CUDA_COPY / OFFSET / SCALE / DEQUANT */
	double scale, zero;     /* SCALE: BSCALE/BZERO; DEQUANT: the tile's ZSCALE/ZZERO */
	uint64_t offset;
	int32_t has_blank, ndim;
	int64_t blank;
	int32_t dither;         /* DEQUANT: 0 none (linear), 1 SUBTRACTIVE_DITHER_1, 2 _2 */
	int32_t run;            /* the tasks this place stands for (1: one): task k's values at
				   src_offset + k x run_src bytes, its box at out_first + k x run_out
				   output elements, its stream (if any) stream + k; all else equal.
				   A file's row tiles are one place, not one a tile (the int16
				   RICE batch's host made 600 bytes a tile) */
	int64_t dither_row;     /* DEQUANT: 1-based tile row + ZDITHER0 - 1 (seeds the walk) */
	int32_t src_dec;        /* 1: read the decode buffer; 0: the staging buffer */
	int32_t planes;         /* byte b of element i is at byte b * npix + i: FITS GZIP_2's byte
				   planes (MSB plane first for big-endian elements) */
	int32_t stream;         /* >= 0: the inflate stream that decoded it: a failed stream is not
				   placed, and its decoded size picks the element width (below);
				   -1: none */
	int32_t alt_width;      /* a decoded size of npix x another width (1, 2, 4, 8) is integers
				   of that width (FITS GZIP tiles: CFITSIO decides the width by
				   the size; scaled integer tiles only) */
	int64_t plane_block;    /* planes: > 0: the planes restart every plane_block elements
				   (blosc shuffles each block alone; the last block holds the
				   rest); 0: one set of planes for the chunk */
	int64_t extent[TSR_CUDA_MAX_DIM];   /* chunk shape as stored (C order) */
	int64_t first[TSR_CUDA_MAX_DIM];    /* chunk-local index of position k0 */
	int64_t step[TSR_CUDA_MAX_DIM];     /* selection step */
	int64_t count[TSR_CUDA_MAX_DIM];    /* k1 - k0 */
	int64_t out_first;                  /* output element index of position k0 */
	int64_t run_src, run_out;           /* run > 1: one task's move (above) */
	int64_t out_stride[TSR_CUDA_MAX_DIM];
	/* Gather (a task of an advanced selection, tsr_gather_place): nunits > 0 units, unit u
	 * with count[u] positions, and their tables at device address units: per unit, count[u]
	 * chunk-local element offsets, then count[u] output element offsets; an element's offsets
	 * are the sums over the units (place_core.h). first, step, out_first and out_stride are
	 * then unused. nunits 0: the box above. */
	uint64_t units;
	int32_t nunits, pad1;
	/* Blocked source (a decoded Blosc2 b2nd chunk): blocks of shape `block` lie in C order
	 * over the block grid of `padded` (the chunk shape rounded up to whole blocks), each a
	 * C-order box, edge blocks padded to the full block. The element at chunk coordinate c is
	 * at block_index(c / block) x block elements + the C offset of c % block in a block
	 * (place_core.h). 0: C order over extent. */
	int32_t blocked, pad2;
	int64_t src_npix;                   /* elements of the source (planes' sizes); 0: npix */
	int64_t block[TSR_CUDA_MAX_DIM];
	int64_t padded[TSR_CUDA_MAX_DIM];
};

/* A place's task's rows, and the most elements a row has (place_core.h says what a row is);
 * the kernel's, and the host's to size the grid by. */
static inline TSR_PC_HD int64_t tsr_pc_rows(const struct tsr_cuda_place *pl, int64_t *n_ret)
{
	int m = pl->nunits > 0 ? pl->nunits : pl->ndim;
	int64_t rows = 1;
	for (int d = 0; d < m - 1; d++)
		rows *= pl->count[d];
	*n_ret = m ? pl->count[m - 1] : 1;
	if (pl->nunits > 0 && *n_ret > TSR_PC_SEG) {
		rows *= (*n_ret + TSR_PC_SEG - 1) / TSR_PC_SEG;
		*n_ret = TSR_PC_SEG;
	}
	return rows;
}

/*
 * Scatters a batch into each place's output (device memory) on stream. d_places: device array
 * of n places; d_src: the batch's staging buffer on the device (NULL: the src_offsets are
 * device addresses, as in mock-device batches); d_dec: its decode buffer (NULL when no place
 * has src_dec). d_status / d_sizes: the batch's inflate results, indexed by a place's `stream`
 * (NULL when no place has one). max_rows: the CTAs a place's rows need at most (tsr_pc_ctas of
 * its tasks' rows), to size the grid by: fewer are correct too (each CTA strides over the
 * rows), only slower. Returns 0 or a CUDA error code.
 */
/* Puts the FITS dither table (TSR_CUDA_N_RANDOM floats, src/codecs/dequantize.c) on the
 * current device, where DEQUANT places read it (the CUDA engine does it once per context).
 * Synchronous. Returns 0 or a CUDA error code. */
int tsr_cuda_place_randoms(const float *randoms);

/* Places n tasks; general: some place gathers (nunits > 0) or reads a blocked source, else
 * every place is a box of a C-order source and a kernel without those paths runs (fewer
 * registers: more resident blocks, and a slot of many short rows is many blocks). */
int tsr_cuda_place_launch(const void *d_src, const void *d_dec,
			  const struct tsr_cuda_place *d_places, size_t n, int64_t max_rows,
			  int general, const int *d_status, const size_t *d_sizes, void *stream);

#ifdef __cplusplus
}
#endif
#endif
