/* blosc.h - the Blosc1/Blosc2 chunk container on the CPU: chunk and block decoding, filters. */
#ifndef TSR_BLOSC_H
#define TSR_BLOSC_H

#include <stddef.h>
#include <stdint.h>

/*
 * A blosc chunk is self-describing: its 16-byte header (Blosc1, versions 1-2) or 32-byte extended
 * header (Blosc2, versions 3-6, flags bits 0x01 and 0x04 both set) gives the decoded size, the
 * block size, the codec and the filters. Zarr v2 `blosc`, Zarr v3 `blosc` and every chunk of a
 * Blosc2 frame (including its offsets index) use this container.
 *
 * All functions are pure functions of their arguments: no globals, no I/O, no printing. They
 * never read outside src[0, src_nbytes) nor write outside dst[0, dst_nbytes); a chunk that does
 * not fit its own header is TSR_E_CORRUPT, a codec/filter/feature we do not decode is
 * TSR_E_UNSUPPORTED (snappy, user codecs and filters, lazy chunks, VL-block chunks), and the
 * thread's message (tsr_errmsg) says which block and stream failed. Bytes after the chunk's
 * cbytes are ignored, so a caller may pass a larger buffer.
 *
 * Thread safety: all functions may run concurrently; a struct tsr_blosc_scratch must be used by
 * one thread at a time.
 */

#define TSR_BLOSC_MAX_FILTERS 6
#define TSR_BLOSC_MIN_HEADER 16
#define TSR_BLOSC_EXT_HEADER 32

/* Codec format codes: flags >> 5 of the header (not the API compcodes: LZ4HC is stored as LZ4). */
enum tsr_blosc_codec {
	TSR_BLOSC_BLOSCLZ = 0,
	TSR_BLOSC_LZ4 = 1,     /* lz4 and lz4hc: raw LZ4 blocks */
	TSR_BLOSC_SNAPPY = 2,  /* not decoded */
	TSR_BLOSC_ZLIB = 3,    /* RFC 1950 streams */
	TSR_BLOSC_ZSTD = 4,    /* zstd frames */
	TSR_BLOSC_UDCODEC = 6, /* Blosc2 registered/user codec, id in info.udcodec: not decoded */
};

/* Filter ids of the Blosc2 pipeline (Blosc1 flags map onto them). */
enum tsr_blosc_filter {
	TSR_BLOSC_NOFILTER = 0,
	TSR_BLOSC_SHUFFLE = 1,        /* meta != 0: element size to group by instead of typesize */
	TSR_BLOSC_BITSHUFFLE = 2,
	TSR_BLOSC_DELTA = 3,          /* XOR against block 0 of the chunk */
	TSR_BLOSC_TRUNC_PREC = 4,     /* lossy on write, nothing to undo */
	TSR_BLOSC_BYTEDELTA_V1 = 34,  /* legacy bytedelta (restarts its sum at the SIMD tail) */
	TSR_BLOSC_BYTEDELTA = 35,     /* meta: stream count (0 = typesize) */
	TSR_BLOSC_INT_TRUNC = 36,     /* lossy on write, nothing to undo */
};

/* Blosc2 special chunks: no data after the header (VALUE: one element). */
enum tsr_blosc_special {
	TSR_BLOSC_SPECIAL_NONE = 0,
	TSR_BLOSC_SPECIAL_ZERO = 1,
	TSR_BLOSC_SPECIAL_NAN = 2,    /* float32 or float64 quiet NaN by typesize */
	TSR_BLOSC_SPECIAL_VALUE = 3,  /* every element equals the value stored after the header */
	TSR_BLOSC_SPECIAL_UNINIT = 4, /* contents undefined; decoded as zeros */
};

/* What a chunk's header says, after validation against the bytes given. */
struct tsr_blosc_info {
	int version;          /* 1-2 Blosc1, 3-6 Blosc2 */
	int versionlz;        /* codec format version byte */
	int flags;            /* header byte 2 */
	int typesize;         /* header byte 3, 1..255 */
	int64_t nbytes;       /* decoded size */
	int64_t blocksize;    /* bytes per block (clamped to nbytes); last block may be shorter */
	int64_t cbytes;       /* the whole chunk, header included */
	int64_t nblocks;      /* ceil(nbytes / blocksize); 0 when nbytes is 0 */
	int64_t last_block_nbytes; /* size of the last block */
	int header_nbytes;    /* 16 or 32 */
	int codec;            /* enum tsr_blosc_codec */
	int udcodec;          /* Blosc2 user codec id (codec == TSR_BLOSC_UDCODEC) */
	int codec_meta;
	uint8_t filters[TSR_BLOSC_MAX_FILTERS];      /* applied 0..5 on write, undone 5..0 */
	uint8_t filters_meta[TSR_BLOSC_MAX_FILTERS];
	int blosc2_flags;     /* extended header byte 31 (0 for Blosc1) */
	int memcpyed;         /* data stored raw after the header, no block table */
	int special;          /* enum tsr_blosc_special */
	int split;            /* full blocks are stored as typesize streams */
	int use_dict;         /* a zstd/lz4 dictionary follows the block table */
	int64_t dict_offset, dict_nbytes;
	int nundo;            /* filters decoding undoes, in that order (no-ops left out) */
	uint8_t undo[TSR_BLOSC_MAX_FILTERS], undo_meta[TSR_BLOSC_MAX_FILTERS];
	int64_t value_nbytes; /* special chunks: bytes of the repeated element */
};

/* Per-thread reusable state: temporary block buffers and codec contexts. Optional everywhere
 * (NULL allocates and frees per call); reuse it to decode many chunks fast. */
struct tsr_blosc_scratch;
int tsr_blosc_scratch_create(struct tsr_blosc_scratch **scratch_ret);
void tsr_blosc_scratch_free(struct tsr_blosc_scratch *scratch);

/* Parses and checks the header (and block table bounds) of the chunk in src. */
int tsr_blosc_info(const void *src, size_t src_nbytes, struct tsr_blosc_info *info_ret);

/* Decodes the whole chunk into dst (needs info.nbytes bytes: TSR_E_TOO_SMALL otherwise);
 * *out_nbytes_ret (may be NULL) gets info.nbytes. */
int tsr_blosc_decode(void *dst, size_t dst_nbytes, const void *src, size_t src_nbytes,
		     struct tsr_blosc_scratch *scratch, size_t *out_nbytes_ret);

/* Decodes blocks [first, first + count) only: block first + k lands at dst + k * blocksize,
 * the chunk's last block being last_block_nbytes long; dst_nbytes must cover the blocks asked
 * for. A caller decoding block i straight into its place in a chunk-sized buffer passes
 * dst = buf + i * blocksize and count 1. With the DELTA filter every block needs block 0: it is
 * decoded too (into the scratch when first > 0). A range outside [0, nblocks] is TSR_E_RANGE. */
int tsr_blosc_decode_blocks(void *dst, size_t dst_nbytes, const void *src, size_t src_nbytes,
			    int64_t first, int64_t count, struct tsr_blosc_scratch *scratch);

/* A chunk parsed once (header, filters, digested dictionary) whose blocks many threads then
 * decode at once: the chunk is only read, and each thread brings its own scratch. src must
 * outlive it. */
struct tsr_blosc_chunk;
int tsr_blosc_chunk_open(const void *src, size_t src_nbytes, struct tsr_blosc_chunk **chunk_ret);
void tsr_blosc_chunk_free(struct tsr_blosc_chunk *chunk);
const struct tsr_blosc_info *tsr_blosc_chunk_info(const struct tsr_blosc_chunk *chunk);
/* Whether every block refers to block 0 (the DELTA filter). */
int tsr_blosc_chunk_has_delta(const struct tsr_blosc_chunk *chunk);
/* Decodes block b into dst (blocksize bytes, the last block last_block_nbytes); special and
 * memcpyed chunks give the block's share of their bytes. end > 0: the block's streams must lie
 * before this byte of the chunk (where the next block starts), so that a decode reads nothing
 * of the chunk past its own block (bytes another thread may still be reading in). ref0: the
 * decoded block 0, which blocks b > 0 of a DELTA chunk need (NULL otherwise). A bad block's
 * message names it. */
int tsr_blosc_chunk_block(const struct tsr_blosc_chunk *chunk, int64_t b, int64_t end, void *dst,
			  const void *ref0, struct tsr_blosc_scratch *scratch);

/* BloscLZ: decodes one stream into dst[0, dst_nbytes) and returns its decoded size in
 * *out_nbytes_ret; TSR_E_CORRUPT when the stream reaches outside src or dst. */
int tsr_blosclz_decode(void *dst, size_t dst_nbytes, const void *src, size_t src_nbytes,
		       size_t *out_nbytes_ret);

/* ---- a chunk's streams for other decoders (blosc_streams.c) ---- */

enum { TSR_BLOSC_STREAM_CODED = 0, TSR_BLOSC_STREAM_COPY, TSR_BLOSC_STREAM_SET };
/* One stream of a chunk: where its bytes are in the chunk and what they decode to. */
struct tsr_blosc_stream {
	uint64_t src, csize;    /* CODED: csize bytes at src, compressed by the chunk's codec;
				   COPY: n bytes at src, as they are */
	uint64_t dst, n;        /* its place and size in the decoded block (tsr_blosc_block_streams)
				   or chunk (tsr_blosc_streams) */
	int kind, value;        /* SET: n bytes of value */
};
/* A block has at most typesize streams. */
#define TSR_BLOSC_MAX_STREAMS 255

/* The streams of block b of a chunk whose header tsr_blosc_info checked (into streams[0..255)),
 * their count in *n_ret; a block table entry or stream that reaches outside the chunk is
 * TSR_E_CORRUPT. The one walk of a block's streams: tsr_blosc_decode follows it too. */
int tsr_blosc_block_streams(const struct tsr_blosc_info *in, const void *chunk, int64_t b,
			    struct tsr_blosc_stream *streams, int *n_ret);

/* A choice of a chunk's blocks, those a section needs (tsr_b2nd_blocks, b2nd_blocks.h): a box
 * of its block grid as naxes axes, outermost first, of n[d] blocks stride[d] block numbers
 * apart, from block base, so chosen block k (0 <= k < count) is tsr_blosc_blocks_at's, in
 * increasing order. with0: block 0 is decoded first though not chosen (every block of a DELTA
 * chunk needs it). naxes 0 (all zeros): every block. */
#define TSR_BLOSC_SEL_AXES 4
struct tsr_blosc_blocks {
	int64_t base, count;
	int32_t n[TSR_BLOSC_SEL_AXES], stride[TSR_BLOSC_SEL_AXES];
	int32_t naxes, with0;
};

/* Chosen block k of a choice with naxes > 0. */
static inline int64_t tsr_blosc_blocks_at(const struct tsr_blosc_blocks *s, int64_t k)
{
	int64_t b = s->base;
	for (int d = s->naxes - 1; d >= 0; d--) {
		b += k % s->n[d] * s->stride[d];
		k /= s->n[d];
	}
	return b;
}

/* What a device does to a chunk's bytes besides decoding its streams (the streams land at
 * their places first): read byte planes, undo filters block by block, or fill the chunk. */
struct tsr_blosc_pipeline {
	int64_t plane_block;    /* > 0: the one filter is a byte shuffle by the element size,
				   which the place kernel reads as planes of this many elements
				   a block (the last block holding the rest); nfilt is then 0 */
	int64_t nbytes, blocksize, nblocks;
	int typesize, version;
	int nfilt;              /* filters to undo on each block, in this order (as undo[]) */
	uint8_t filt[TSR_BLOSC_MAX_FILTERS], meta[TSR_BLOSC_MAX_FILTERS];
	int fill_len;           /* > 0: a special chunk, no streams: every byte k of the chunk is
				   byte k % fill_len of the pattern */
	int64_t fill_at;        /* the pattern: fill_len bytes at this chunk offset, or (-1) */
	uint8_t fill[16];       /* these (fill_len <= 16) */
	struct tsr_blosc_blocks blocks; /* the blocks whose streams were listed (tsr_blosc_streams);
				   the others are left undecoded */
};

/* The pipeline of a chunk whose header tsr_blosc_info read, its elements elem_nbytes wide. */
void tsr_blosc_pipeline(const struct tsr_blosc_info *in, size_t elem_nbytes,
			struct tsr_blosc_pipeline *p);

/* Lists the streams of a chunk tsr_route_blosc (route.h) accepted (at most cap: more is
 * TSR_E_TOO_SMALL, with no message; a memcpyed chunk is one stored stream, a special chunk
 * none), and in *pipe_ret what else its decoding takes (tsr_blosc_pipeline). blocks (NULL:
 * every block): only those blocks' streams, block 0's first when with0 (memcpyed and special
 * chunks are whole whatever it says). A stream that reaches outside the chunk is
 * TSR_E_CORRUPT. */
int tsr_blosc_streams(const void *chunk, size_t nbytes, size_t elem_nbytes,
		      const struct tsr_blosc_blocks *blocks, struct tsr_blosc_stream *streams,
		      size_t cap, size_t *n_ret, struct tsr_blosc_pipeline *pipe_ret);

/* ---- filters (shuffle.c); all out-of-place, dst and src must not overlap unless stated ---- */

/* Byte unshuffle of nbytes: src holds typesize planes of n = nbytes / typesize bytes;
 * dst[i * typesize + j] = src[j * n + i]; the nbytes % typesize tail is copied. */
void tsr_blosc_unshuffle(void *dst, const void *src, size_t nbytes, size_t typesize);

/* Bit unshuffle (bitshuffle's bit transpose): for n8 elements src holds 8 * typesize rows of
 * n8 / 8 bytes, row j * 8 + b holding bit b of byte j of each element, LSB first. Blosc2
 * chunks (version >= 3) use n8 = n - n % 8 and copy the rest; Blosc1 chunks (version <= 2)
 * transpose only when n % 8 == 0 and copy the block as is otherwise. tmp: nbytes of scratch
 * for the fast two-pass path (bit rows to byte planes, then unshuffle), or NULL. */
/* The widest vector path tsr_blosc_bitunshuffle may take, for its test: TSR_ISA_GFNI (the
 * default: AVX-512 VBMI and GFNI where the CPU has them), TSR_ISA_AVX2, TSR_ISA_SSE2, or
 * TSR_ISA_NONE (plain C). Not for use while reads run. */
enum { TSR_ISA_NONE, TSR_ISA_SSE2, TSR_ISA_AVX2, TSR_ISA_GFNI };
void tsr_bitshuffle_limit_isa(int isa);
void tsr_blosc_bitunshuffle(void *dst, const void *src, size_t nbytes, size_t typesize,
			    int version, void *tmp);

/* Blosc DELTA decode of one block: units of 1, 2, 4 or 8 bytes (typesize, or 8 when typesize
 * is a multiple of 8, else 1). ref == NULL: this is block 0, dst[k] = src[k] ^ dst[k-1];
 * otherwise dst[k] = src[k] ^ ref[k] (ref = decoded block 0, at least nbytes long). The tail
 * that is not a whole unit is copied. dst may equal src. */
void tsr_blosc_delta_decode(void *dst, const void *src, size_t nbytes, size_t typesize,
			    const void *ref);

/* Blosc2 BYTEDELTA decode: nstreams streams of nbytes / nstreams bytes, each a running sum
 * (mod 256) of its bytes; the tail is copied. legacy: filter 34, whose sum restarts at 0 after
 * the last whole 16-byte group of each stream. dst may equal src. */
void tsr_blosc_bytedelta_decode(void *dst, const void *src, size_t nbytes, size_t nstreams,
				int legacy);

#endif /* TSR_BLOSC_H */
