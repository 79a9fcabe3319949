/* chunk.h - the plain-data description of a chunk: where its bytes are, how they decode, and
 * how stored values become output values. Format drivers fill it; engines run it. */
#ifndef TSR_CHUNK_H
#define TSR_CHUNK_H

#include <stdint.h>

#include "internal.h"

/* The codec that turns a chunk's stored bytes into stored elements. */
enum tsr_codec_id {
	TSR_CODEC_NONE = 0,   /* bytes are the elements */
	TSR_CODEC_GZIP,       /* RFC 1952 (libdeflate) */
	TSR_CODEC_ZLIB,       /* RFC 1950 */
	TSR_CODEC_DEFLATE,    /* RFC 1951 */
	TSR_CODEC_RICE,       /* FITS RICE_1 */
	TSR_CODEC_HCOMPRESS,  /* FITS HCOMPRESS_1, through CFITSIO */
	TSR_CODEC_PLIO,       /* FITS PLIO_1, through CFITSIO */
	TSR_CODEC_FILL,       /* no bytes: every element is the fill value */
	/* Bytes-to-bytes codecs (Zarr, Blosc2), used as pre-steps. */
	TSR_CODEC_ZSTD,       /* zstd frames (libzstd) */
	TSR_CODEC_LZ4,        /* numcodecs LZ4: 4-byte little-endian size, then one raw LZ4 block */
	TSR_CODEC_BZ2,        /* bzip2 (libbz2) */
	TSR_CODEC_LZMA,       /* numcodecs LZMA: an .xz or .lzma stream (liblzma) */
	TSR_CODEC_BLOSC,      /* a blosc1/blosc2 chunk */
	TSR_CODEC_CRC32C,     /* Zarr v3 crc32c: 4 checksum bytes (little-endian) at the end */
	TSR_CODEC_CRC32,      /* numcodecs crc32: zlib's CRC-32, 4 bytes (LE) at the start or end */
	TSR_CODEC_ADLER32,    /* numcodecs adler32: zlib's Adler-32, the same places */
	TSR_CODEC_FLETCHER32, /* numcodecs fletcher32: HDF5's Fletcher-32, 4 bytes (LE) at the end */
	TSR_CODEC_LOOKUP3,    /* numcodecs jenkins_lookup3: hashlittle(initval), 4 bytes (LE) at the end */
	TSR_CODEC_BLOSC_B2ND, /* a blosc chunk whose decoded bytes follow ref->blocked (Blosc2) */
};

/* A bytes-to-bytes step run before the element codec. */
struct tsr_bytes_step {
	enum tsr_codec_id id;
	int at_end;           /* CRC32, ADLER32: the checksum follows the bytes (else precedes) */
	uint32_t initval;     /* LOOKUP3: the hash's initial value */
	int lzma_format;      /* LZMA: numcodecs' format, 1 .xz (its default), 2 .lzma, 0 either */
};
#define TSR_MAX_PRE 4

/* Whether id is a checksum step (4 bytes beside its input, which it passes on unchanged). */
static inline int tsr_codec_is_checksum(enum tsr_codec_id id)
{
	return id == TSR_CODEC_CRC32C || id == TSR_CODEC_CRC32 || id == TSR_CODEC_ADLER32 ||
	       id == TSR_CODEC_FLETCHER32 || id == TSR_CODEC_LOOKUP3;
}

/* numcodecs filters, undone after the bytes steps (Zarr v2 filters, v3 numcodecs.* codecs):
 * each reads the buffer as n elements of `in` (byte order in_be) and writes elements of `out`
 * (out_be), computing as numcodecs' decode does with NumPy. */
enum tsr_filter_id {
	TSR_FILTER_DELTA = 1,     /* Delta: out[i] = out[i-1] + (out)in[i], summed in out */
	TSR_FILTER_SCALE_OFFSET,  /* FixedScaleOffset: out = (out)(in / scale + offset), in float64
				     for integer in, else in in's float type */
	TSR_FILTER_ASTYPE,        /* AsType, Quantize: out = (out)in, as NumPy's astype casts */
	TSR_FILTER_SHUFFLE,       /* Shuffle: bytes in planes of `elementsize` */
	TSR_FILTER_PACKBITS,      /* PackBits: a count of padding bits, then bits MSB first */
};

struct tsr_filter {
	enum tsr_filter_id id;
	enum tsr_dtype in, out;
	uint8_t in_be, out_be;
	int elementsize;          /* SHUFFLE */
	double scale, offset;     /* SCALE_OFFSET */
};
#define TSR_MAX_FILTERS 6

/* nbytes meaning "the whole file" (Zarr chunk files). */
#define TSR_WHOLE_FILE UINT64_MAX

struct tsr_codec_step {
	enum tsr_codec_id id;
	enum tsr_dtype elem;  /* stored element type the codec yields */
	int big_endian;       /* decoded elements are big-endian */
	int byte_shuffle;     /* decoded bytes are in byte planes, MSB plane first (FITS GZIP_2) */
	int rice_blocksize;   /* RICE_1 */
	int rice_bytepix;     /* RICE_1: 1, 2 or 4 */
	int hcomp_smooth;     /* HCOMPRESS_1 */
	int64_t tile_nx, tile_ny; /* HCOMPRESS_1: the 2-D tile's width and height */
	/* FITS GZIP tiles: the element width is decided by the decoded size (as CFITSIO does);
	 * elem is the expected type, and a decoded size of npix * other width is also accepted
	 * when elem_from_size is set. */
	int elem_from_size;
	/* Blosc2 plain super-chunks (no dtype): elements are big-endian when the chunk header's
	 * BIGENDIAN flag says the writer was */
	int be_from_chunk;
};

/* How stored elements become the values a read returns. */
enum tsr_xform_kind {
	TSR_XF_COPY = 0,      /* same values, converted to out type (identical width/kind) */
	TSR_XF_OFFSET,        /* integer out = in + offset, exactly (FITS unsigned via BZERO) */
	TSR_XF_SCALE,         /* float out = in * scale + zero, computed in double */
	TSR_XF_DEQUANT,       /* FITS quantized floats: dithered or linear */
};

enum tsr_dither {
	TSR_DITHER_NONE = 0,
	TSR_DITHER_1,         /* SUBTRACTIVE_DITHER_1 */
	TSR_DITHER_2,         /* SUBTRACTIVE_DITHER_2: -2147483646 means exactly 0.0 */
};

struct tsr_xform {
	enum tsr_xform_kind kind;
	enum tsr_dtype out;   /* output dtype */
	double scale, zero;   /* SCALE: BSCALE/BZERO; DEQUANT: ZSCALE/ZZERO of the tile */
	uint64_t offset;      /* OFFSET: added modulo 2^64 (BZERO 2^63 does not fit int64) */
	int has_blank;        /* stored value `blank` is null: NaN in float outputs */
	int64_t blank;
	int has_fill;         /* FILL codec: every output value is `fill` (out dtype bytes) */
	uint8_t fill[16];
	const uint8_t *fill_wide; /* the fill of a dtype wider than 16 bytes (the driver's, living
				     as long as the array); NULL: `fill` */
	enum tsr_dither dither;
	int64_t dither_row;   /* 1-based tile row + ZDITHER0 - 1 */
	int nan_to_null;      /* float in: CFITSIO-style null checking (unused for now) */
};

/* The layout of a decoded Blosc2 b2nd chunk (TSR_CODEC_BLOSC_B2ND): the chunk is padded to a
 * whole number of blocks per axis, blocks lie in C order over that block grid, and each block
 * is C order inside. A plain super-chunk is the 1-D case with one block per chunk (the chunk
 * header's own block size then only sets how finely it decodes). */
#define TSR_BLOCKED_MAX_DIM 16 /* b2nd's B2ND_MAX_DIM; blosc chunks keep sizes within int32 */
struct tsr_blocked {
	int32_t padded[TSR_BLOCKED_MAX_DIM]; /* chunk shape rounded up to whole blocks */
	int32_t block[TSR_BLOCKED_MAX_DIM];  /* block shape */
};

/* One chunk of an array, as plain data. */
struct tsr_chunk_ref {
	char path[1024];      /* file holding the bytes; "" = the array's own file */
	int missing_is_fill;  /* a missing path reads as the fill value (Zarr) */
	uint64_t offset;      /* of the stored bytes in the file */
	uint64_t nbytes;      /* stored bytes (TSR_WHOLE_FILE: to the end); 0 with TSR_CODEC_FILL */
	int npre;             /* bytes-to-bytes steps, in decode order, before `codec` */
	struct tsr_bytes_step pre[TSR_MAX_PRE];
	int ndim;             /* set by the engine */
	int64_t extent[TSR_MAX_DIM]; /* the chunk's shape in the array (edge chunks may be smaller) */
	int64_t npix;         /* product of extent */
	struct tsr_codec_step codec;
	struct tsr_xform xform;
	const char *codec_name; /* for receipts and messages */
	/* numcodecs filters, in decode order: run on the bytes steps' output, before the value
	 * transform (which then sees the array's dtype) */
	int nfilter;
	struct tsr_filter filter[TSR_MAX_FILTERS];
	/* After the value transform: */
	int has_perm;         /* the chunk is stored with permuted axes: stored axis j is chunk */
	int8_t perm[TSR_MAX_DIM]; /* axis perm[j] (Zarr order F, v3 transpose) */
	struct tsr_blocked blocked; /* TSR_CODEC_BLOSC_B2ND */
};

/* Makes ref a chunk of fill values: no bytes to read, no steps (a chunk file or shard entry
 * that does not exist, where the format says it reads as fill). */
static inline void tsr_chunk_set_fill(struct tsr_chunk_ref *ref)
{
	ref->codec.id = TSR_CODEC_FILL;
	ref->npre = 0;
	ref->nbytes = 0;
	ref->offset = 0;
}

#endif /* TSR_CHUNK_H */
