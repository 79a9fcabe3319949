/* blosc2.h - the Blosc2 driver's internal pieces: frame header, trailer, b2nd metalayer, dtypes. */
#ifndef TSR_BLOSC2_DRIVER_H
#define TSR_BLOSC2_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#include "../../core/array.h"

/* The fixed part of a frame header runs to the metalayer section (FRAME_HEADER_MINLEN). */
#define TSR_B2_HEADER_MINLEN 87
#define TSR_B2_MAX_METALAYERS 16
/* b2nd arrays have at most this many dimensions (B2ND_MAX_DIM since 2025; 8 before). */
#define TSR_B2ND_MAX_DIM 16

/* What a frame header says (msgpack; see README_CFRAME_FORMAT.rst). */
struct tsr_b2_header {
	int64_t header_len, frame_len;
	int64_t nbytes, cbytes;       /* data, decoded and stored (chunks section) */
	int32_t typesize, blocksize, chunksize; /* chunksize 0: variable-size chunks */
	int general_flags;            /* bits 0-3 format version, 4-5 offset width, 6 variable
				       * chunks, 7 VL-block chunks */
	int frame_type;               /* 0 contiguous, 1 sparse (directory) */
	int codec_flags;              /* low nibble: API compcode (5 zstd), high: clevel */
	int has_vlmeta;
	int nfilters;
	uint8_t filters[6], filters_meta[6];
	int udcodec;
	int nmeta;                    /* fixed-size metalayers: name and offset of its bin32 */
	char meta_name[TSR_B2_MAX_METALAYERS][32];
	int64_t meta_off[TSR_B2_MAX_METALAYERS];
};

/* Unpacks the msgpack object at buf[0, n) after checking it (bounded depth and lengths);
 * *used gets its size; the caller destroys u. TSR_E_FORMAT names `what`. */
struct msgpack_unpacked;
int tsr_mp_unpack(const uint8_t *buf, size_t n, struct msgpack_unpacked *u, size_t *used,
		  const char *what);

/* Parses header bytes [0, n) (n = header_len). TSR_E_FORMAT with the reason on bad input. */
int tsr_b2_header_parse(const uint8_t *buf, size_t n, struct tsr_b2_header *h);

/* Checks the trailer msgpack in [0, n) and counts its variable-length metalayers. */
int tsr_b2_trailer_parse(const uint8_t *buf, size_t n, int *nvlmeta_ret);

/* The b2nd metalayer (or its predecessor "caterva", which has no dtype). */
struct tsr_b2nd_meta {
	int version, ndim;
	int64_t shape[TSR_B2ND_MAX_DIM];
	int64_t chunkshape[TSR_B2ND_MAX_DIM], blockshape[TSR_B2ND_MAX_DIM];
	int has_dtype, dtype_format;  /* format 0: a NumPy dtype string */
	char dtype[4096];             /* truncated if longer (then never a valid dtype) */
};

int tsr_b2nd_meta_parse(const uint8_t *p, size_t n, struct tsr_b2nd_meta *m);

/* A NumPy dtype string ("<f8", "|u1", ">i2", "|b1") as a tessera dtype and its byte order;
 * TSR_E_UNSUPPORTED for others (structured, strings, datetimes). */
int tsr_b2_dtype_parse(const char *s, enum tsr_dtype *dtype_ret, int *big_endian_ret);
/* The dtypes beyond numbers, as python-blosc2 writes them: "|S5", "<U3", "|V4", "<M8[ns]",
 * structured "[('a', '<i4'), ('b', 'S3', (2,))]": a raw dtype of the element's size (its bytes
 * as stored), or datetime64/timedelta64 (swapped to native); *descr_ret (allocated) is the
 * NumPy descr to report. */
int tsr_b2_dtype_ext(const char *s, enum tsr_dtype *dtype_ret, int *big_endian_ret,
		     char **descr_ret);

#endif
