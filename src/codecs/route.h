/* route.h - which decoder family runs a chunk on a device, or why the CPU decodes it. */
#ifndef TSR_ROUTE_H
#define TSR_ROUTE_H

#include <stddef.h>
#include <stdint.h>

#include "../core/chunk.h"

/*
 * A chunk read into device memory goes one of four ways (enum tsr_route_how). The route names
 * the decoder family of its streams (enum tsr_family: one kernel file in src/cuda/ and one
 * launcher each) and the family's variant (inflate: its framing; lz4: the numcodecs size
 * prefix; zstd: 0), so that an engine can lay out and launch a chunk's streams without knowing codecs.
 * Chunks the GPU does not decode get the reason that goes into the receipt (enum tsr_route_why).
 */
enum tsr_route_how {
	TSR_ROUTE_CPU = 0,      /* decoded on the CPU: its final values are copied */
	TSR_ROUTE_RAW,          /* stored elements; the place kernel transforms them */
	TSR_ROUTE_STREAM,       /* one compressed stream, then plain elements */
	TSR_ROUTE_BLOSC,        /* a blosc chunk: its streams by the family its header names */
};

/* GPU decoder families. */
enum tsr_family {
	TSR_FAM_INFLATE = 0,    /* DEFLATE with its framing (src/cuda/inflate.cu) */
	TSR_FAM_LZ4,            /* raw LZ4 blocks (src/cuda/lz4.cu) */
	TSR_FAM_BLOSCLZ,        /* BloscLZ streams (src/cuda/blosclz.cu) */
	TSR_FAM_RICE,           /* FITS RICE_1 tiles (src/cuda/rice.cu) */
	TSR_FAM_ZSTD,           /* Zstandard frames (src/cuda/zstd.cu) */
	TSR_FAM_N
};

/* Variants of a family (a stream's kind is family * TSR_VARIANTS + variant). */
enum {
	TSR_VAR_DEFLATE = 0, TSR_VAR_ZLIB = 1, TSR_VAR_GZIP = 2, /* inflate: as TSR_CUDA_* */
	TSR_VAR_LZ4_RAW = 0, TSR_VAR_LZ4_SIZED = 1,              /* lz4: numcodecs' 4-byte size */
	/* rice: 2 x (BYTEPIX 1, 2, 4 -> 0, 1, 2) + (block size 16), as tsr_cuda_rice_variant */
	TSR_VARIANTS = 8
};

/* Why a chunk is decoded on the CPU (the receipt names the first reason first). */
enum tsr_route_why {
	TSR_WHY_FORCED = 0,     /* read option decoder = cpu */
	TSR_WHY_FEW,            /* decoder auto: too few, large streams for one warp a stream */
	TSR_WHY_STEPS,          /* steps or filters the GPU path does not do */
	TSR_WHY_CODEC,          /* no GPU decoder for the codec yet */
	TSR_WHY_HOST,           /* blosc: its header is read on the host, which this storage skips */
	TSR_WHY_DICT,           /* blosc: its streams need the chunk's dictionary (no family takes
				   one yet) */
	TSR_WHY_LONG,           /* zstd: 4 GiB or more decoded (the GPU decoder's frame positions
				   are 32-bit) */
	TSR_WHY_N
};

struct tsr_route {
	int how;                /* enum tsr_route_how (int while the CUDA engine compares it
				   with its enum tsr_cuda_how aliases, cuda_layout.h) */
	int kind;               /* STREAM: family * TSR_VARIANTS + variant; BLOSC: -1 until the
				   header is read */
	enum tsr_route_why why; /* CPU: the first reason */
	int big_endian;         /* the decoded elements are big-endian (BLOSC: as the chunk's
				   header says where the format leaves it to the chunk) */
	int fill;               /* no stored bytes: every value is the fill (made on the CPU) */
	int alt_width;          /* STREAM: integers of another width are legal, decided by the
				   decoded size (scaled FITS GZIP tiles: CFITSIO's rule); the decode
				   room is for the widest (8 bytes) */
};

/* Where the route runs: the host alone, or a device that can decode these families. */
struct tsr_route_device {
	int gpu;                /* 0: the CPU engine (every chunk TSR_ROUTE_CPU) */
	int force_cpu;          /* read option decoder = cpu */
	int whole_files;        /* chunks stored to the end of a file can be staged */
	int blosc;              /* blosc chunks can be staged and their headers read first */
	unsigned families;      /* bit f: the device has a launcher of family f */
};

/* Routes one chunk (its ref settled: sizes known). */
void tsr_route_chunk(const struct tsr_chunk_ref *r, const struct tsr_route_device *dev,
		     struct tsr_route *rt);

/* What of a chunk's stored size its route depends on (the route's size rules ask only this):
 * chunks whose descriptions differ only in offset, nbytes and the xform's scale, zero and
 * dither_row (a FITS image's tiles) route alike, with alike stream checks, where it is equal
 * (their route values differ in those three). */
enum tsr_route_size {
	TSR_SIZE_NONE = 0,      /* no stored bytes */
	TSR_SIZE_WHOLE_FILE,    /* to the end of its file, not settled */
	TSR_SIZE_ELEMENTS,      /* exactly its elements' bytes as stored */
	TSR_SIZE_OTHER,         /* any other size (compressed) */
};
enum tsr_route_size tsr_route_size_class(const struct tsr_chunk_ref *r);

/* What the place kernel does with a chunk's elements on the device, mapped once from the
 * chunk's value transform, so that an engine copies it without naming a transform: kinds as
 * src/cuda/place.h's TSR_CUDA_COPY .. DEQUANT (mirroring enum tsr_xform_kind). A chunk the CPU
 * decodes arrives as final values (kind copy, in_type the output's). */
enum { TSR_VALUES_COPY = 0, TSR_VALUES_OFFSET, TSR_VALUES_SCALE, TSR_VALUES_DEQUANT };
struct tsr_route_values {
	int32_t in_type, out_type; /* enum tsr_dtype: stored (decoded) elements, output */
	uint8_t in_be;          /* stored elements are big-endian */
	uint8_t kind;           /* TSR_VALUES_* */
	uint8_t dither;         /* DEQUANT: 0 none (linear), 1 SUBTRACTIVE_DITHER_1, 2 _2 */
	uint8_t has_blank;
	uint8_t planes;         /* decoded bytes lie in byte planes (FITS GZIP_2) */
	int64_t dither_row, blank;
	double scale, zero;
	uint64_t offset;
};
void tsr_route_values(const struct tsr_chunk_ref *r, const struct tsr_route *rt,
		      struct tsr_route_values *v);

/*
 * Routes a staged blosc chunk by its header: TSR_ROUTE_BLOSC with the family of its streams,
 * or TSR_ROUTE_CPU with the reason (a codec with no GPU family, dictionaries, a header the CPU
 * refuses). Every filter and chunk kind the CPU decodes is taken (tsr_blosc_pipeline says
 * how). *codec_ret: the header's codec (enum tsr_blosc_codec), or -1 when the header is
 * unreadable.
 */
void tsr_route_blosc(const void *chunk, size_t nbytes, size_t elem_nbytes, int64_t nelem,
		     unsigned families, struct tsr_route *rt, int *codec_ret);

/*
 * tsr_route_blosc for a staged chunk that tsr_route_chunk sent TSR_ROUTE_BLOSC (Zarr blosc,
 * Blosc2 frames and b2nd arrays): its decoded size is the ref's (a b2nd chunk's padded to
 * whole blocks), rt->big_endian its elements' byte order (a plain super-chunk's from the
 * chunk header), and a b2nd chunk laid out in blocks (tsr_route_blocked) must have the
 * layout's blocks. Chunks the place kernel would get wrong (a NaN chunk of big-endian
 * elements: c-blosc2 writes the native NaN) go to the CPU.
 */
void tsr_route_blosc_ref(const void *chunk, const struct tsr_chunk_ref *r, unsigned families,
			 struct tsr_route *rt, int *codec_ret);

/*
 * The blocks of a staged chunk that tsr_route_blosc_ref sent TSR_ROUTE_BLOSC which a task
 * needs, its chunk-local bounds [lo, hi) (tsr_task_bounds): for a b2nd chunk those the CPU
 * decodes for the same box (tsr_b2nd_blocks, src/codecs/b2nd_blocks.h), so a section's task
 * decodes and filters only them; every block (sel zeroed) otherwise. The engine passes sel on
 * to tsr_blosc_streams as it is.
 */
struct tsr_blosc_blocks;
void tsr_route_blosc_blocks(const void *chunk, const struct tsr_chunk_ref *r, const int64_t *lo,
			    const int64_t *hi, struct tsr_blosc_blocks *sel);

/* Elements of the chunk as decoded: a b2nd chunk's padded shape, else npix. */
int64_t tsr_route_decoded_npix(const struct tsr_chunk_ref *r);

/* Whether a decoded chunk lies block by block (a b2nd chunk whose blocks are not whole rows:
 * the place kernel reads it in blocked mode, with ref->blocked's block and padded shapes). */
int tsr_route_blocked(const struct tsr_chunk_ref *r);

/* How many times longer one warp takes to decode a stream of this kind than a CPU core does
 * (for decoder auto: a few large streams go to the CPU). */
unsigned tsr_route_warp_factor(int kind);

/* Of a stream of this kind that decodes to n bytes, the bytes one warp decodes in turn: all of
 * them, except a zstd frame's, whose blocks (128 KiB of output at most) the GPU decodes side
 * by side while a read has few frames. */
uint64_t tsr_route_serial_bytes(int kind, uint64_t n);

/* Receipt names: "blosc/lz4" for a blosc codec (enum tsr_blosc_codec); a family's kernel
 * ("inflate"); a reason's text. Never NULL. */
const char *tsr_route_blosc_name(int codec);
const char *tsr_route_family_name(int family);
const char *tsr_route_why_text(int why);

/* A stream of kind `kind` whose decoder reported `status` (0: ok, else the family's code,
 * named by status_name) and `got` bytes. The size rules of the CPU chain: TSR_OK when got is
 * npix x width, or, with elem_from_size (FITS GZIP tiles of scaled integers), another integer
 * width the transform takes; else a status with the reason in why. */
struct tsr_route_check {
	uint64_t npix;
	uint32_t width;         /* expected element bytes */
	int16_t elem, out;      /* enum tsr_dtype: stored, output */
	uint8_t kind;           /* the stream's kind */
	uint8_t elem_from_size;
	uint8_t xform;          /* enum tsr_xform_kind */
};
/* The check of a STREAM chunk's one stream (routed rt), and of a stream of n plain bytes of
 * kind (a blosc chunk's). */
void tsr_route_stream_check(const struct tsr_chunk_ref *r, const struct tsr_route *rt,
			    struct tsr_route_check *c);
void tsr_route_bytes_check(uint64_t n, int kind, struct tsr_route_check *c);
int tsr_route_verdict(const struct tsr_route_check *c, int status, const char *status_name,
		      uint64_t got, const char *name, char *why, size_t cap);

#endif /* TSR_ROUTE_H */
