/* codecs.h - the CPU codecs: pure functions of bytes and parameters. */
#ifndef TSR_CODECS_H
#define TSR_CODECS_H

#include <stddef.h>
#include <stdint.h>

#include "../core/chunk.h"

struct tsr_scratch;

/* DEFLATE family through libdeflate. framing: TSR_CODEC_GZIP, _ZLIB or _DEFLATE. Decodes into
 * dst (capacity dst_nbytes) and returns the decoded size in *out_nbytes. A gzip stream may hold
 * several members (as gzip(1) allows). *state holds the caller's decompressor (NULL at first;
 * one per thread; release with tsr_inflate_free). */
int tsr_inflate(void **state, enum tsr_codec_id framing, void *dst, size_t dst_nbytes,
		const void *src, size_t src_nbytes, size_t *out_nbytes);
void tsr_inflate_free(void *state);

/* FITS RICE_1: decodes exactly npix pixels of bytepix (1, 2 or 4) bytes each into dst, as
 * native-endian integers (uint8 / int16 / int32 bit patterns). blocksize is BLOCKSIZE (pixels per
 * block, normally 32). Never reads past src + src_nbytes; corrupt input is TSR_E_CORRUPT. */
int tsr_rice_decode(void *dst, size_t npix, const void *src, size_t src_nbytes, int bytepix,
		    int blocksize);
/* The same with the inner loop chosen: 0 portable, 1 with LZCNT (TSR_E_UNSUPPORTED where the
 * CPU lacks it), -1 the best this CPU runs (what tsr_rice_decode does). For tests. */
int tsr_rice_decode_variant(void *dst, size_t npix, const void *src, size_t src_nbytes,
			    int bytepix, int blocksize, int variant);

/* The 10000 FITS dither random numbers (CFITSIO's fits_init_randoms, bit for bit). */
const float *tsr_dither_randoms(void);

/* FITS dequantization of n stored integers q (native int32) into out (TSR_FLOAT32 or
 * TSR_FLOAT64), bit-identical to CFITSIO's unquantize_i4r4/i4r8:
 *   dither NONE:  out = q * zscale + zzero
 *   dither 1/2:   out = ((double)q - R[k] + 0.5) * zscale + zzero, k walking the table from
 *                 the tile's seed (dither_row = 1-based tile row + ZDITHER0 - 1)
 *   DITHER_2:     q == -2147483646 gives exactly 0.0 (only when zero_test is set)
 *   has_blank:    q == blank gives NaN; the walk advances on every pixel. */
void tsr_dequantize(void *out, enum tsr_dtype out_type, const int32_t *q, size_t n, double zscale,
		    double zzero, enum tsr_dither dither, int64_t dither_row, int has_blank,
		    int64_t blank, int zero_test);

/* FITS HCOMPRESS_1 and PLIO_1 tiles, decoded by CFITSIO's own tile decoders (the fallback
 * reader). out: npix native int32 values (HCOMPRESS of 8/16-bit images too). */
int tsr_hcompress_decode_cfitsio(int32_t *out, size_t npix, int64_t nx, int64_t ny,
				 const void *src, size_t src_nbytes, int smooth, int bytepix);
int tsr_plio_decode_cfitsio(int32_t *out, size_t npix, const void *src, size_t src_nbytes);


/* Byte-swaps n elements of w bytes in place; or from src into dst. */
void tsr_bswap_inplace(void *p, size_t n, int w);
void tsr_bswap_copy(void *dst, const void *src, size_t n, int w);

/* Turns n stored elements (in, of in_type, big-endian when in_be) into output values per xf.
 * in may be modified (swapped in place). DEQUANT needs int32-wide in (narrower is widened in
 * tmp, which must then hold n int32). */
int tsr_values_apply(void *out, const struct tsr_xform *xf, void *in, enum tsr_dtype in_type,
		     int in_be, size_t n, int32_t *tmp);

/* Converts n native integers between types; a value that does not fit is TSR_E_CORRUPT
 * (codecs that always yield int32, like HCOMPRESS_1 and PLIO_1, feeding 8/16-bit images). */
int tsr_int_convert(void *dst, enum tsr_dtype dst_type, const void *src, enum tsr_dtype src_type,
		    size_t n);

/* NumPy's astype between numeric dtypes (bool, integers, float16/32/64; tsr_cast_ok), n values
 * of native byte order. */
int tsr_cast_ok(enum tsr_dtype t);
void tsr_cast(void *dst, enum tsr_dtype to, const void *src, enum tsr_dtype from, size_t n);
/* numcodecs FixedScaleOffset's decode: (src / scale + offset) in NumPy's precision, cast to `to`. */
void tsr_scale_offset(void *dst, enum tsr_dtype to, const void *src, enum tsr_dtype from,
		      size_t n, double scale, double offset);
/* Undoes ref's numcodecs filters (ref->filter, in decode order) on src[0, n): the result is *out
 * (a scratch slot, or src when there is nothing to do) of *out_n bytes. src is only read. */
int tsr_filters_decode(const struct tsr_chunk_ref *ref, void *src, size_t n,
		       struct tsr_scratch *s, void **out, size_t *out_n);

/* CRC-32C of n bytes. */
uint32_t tsr_crc32c(const void *data, size_t n);
/* HDF5's Fletcher-32 of n bytes (numcodecs' Fletcher32). */
uint32_t tsr_fletcher32(const void *data, size_t n);
/* Jenkins' lookup3 hashlittle of n bytes from initval (numcodecs' JenkinsLookup3). */
uint32_t tsr_lookup3(const void *data, size_t n, uint32_t initval);

/* Runs one bytes-to-bytes step on src[0, n): the result is *out (scratch slot `slot` or
 * slot + 1, whichever src does not lie in, or src itself for checksums) of *out_n bytes. expect > 0 is the size the result must have; else cap
 * is the most it may have: a stream or header claiming more is TSR_E_CORRUPT before anything
 * is allocated (tsr_chunk_pre_limits gives both from the chunk's metadata). into (may be NULL):
 * decode there (expect bytes, no slack) instead of the scratch slot when the result has that
 * size: a last step whose bytes are already the chunk's values lands in place, with no copy
 * after it. */
int tsr_bytes_decode(const struct tsr_bytes_step *step, const void *src, size_t n,
		     struct tsr_scratch *s, int slot, size_t expect, size_t cap, void *into,
		     void **out, size_t *out_n);

/* What each of ref's bytes steps may yield, from the chunk's metadata alone (its element count,
 * element codec, filters and the steps after it): expect[i] > 0 is the exact size of step i's
 * output where the chain fixes it, else cap[i] bounds it (no compressor tessera reads makes
 * more than n + n/8 + 64 KiB bytes of n). No header of the chunk can raise either. */
void tsr_chunk_pre_limits(const struct tsr_chunk_ref *ref, size_t expect[TSR_MAX_PRE],
			  size_t cap[TSR_MAX_PRE]);
/* Whether stored bytes can be the chunk: an uncompressed chunk with no bytes step holds exactly
 * its elements (or its filters' input for them), so another size is TSR_E_CORRUPT (naming
 * both) before a caller allocates the whole chunk it claims; TSR_OK for any other chunk. */
int tsr_chunk_check_stored(const struct tsr_chunk_ref *ref, uint64_t stored);

/* Buffers a thread reuses from chunk to chunk. */
#define TSR_SCRATCH_SLOTS 9
struct tsr_scratch {
	void *buf[TSR_SCRATCH_SLOTS]; /* 0-2: element codec, planes, conversions; 3-4: pre-steps;
				       * 5: permutation; 6-8: numcodecs filters */
	size_t cap[TSR_SCRATCH_SLOTS];
	void *inflater; /* libdeflate decompressor */
	void *zstd;     /* ZSTD_DCtx */
	void *blosc;    /* struct tsr_blosc_scratch */
	void *b2memo;   /* struct tsr_b2nd_memo: the last one-block read's block (b2nd_memo.h) */
};
void tsr_scratch_free(struct tsr_scratch *s);

/* Decodes one chunk's stored bytes (src) into npix output values at out (C order over the
 * chunk's extent, dtype ref->xform.out). src is only read: mock caches share it between threads
 * (only ref->pre steps' scratch outputs are modified in place). npix_needed > 0 says only the
 * first npix_needed values are wanted (codecs that can stop early then do; the rest of out is
 * left undefined). *decoded_nbytes_ret receives how many bytes the codec produced. */
int tsr_chunk_decode(const struct tsr_chunk_ref *ref, void *src, size_t src_nbytes, void *out,
		     size_t npix_needed, struct tsr_scratch *scratch, uint64_t *decoded_nbytes_ret);

/* The part of a chunk a task needs: chunk-local indices [lo[d], hi[d]) on each axis. */
struct tsr_chunk_box {
	int64_t lo[TSR_MAX_DIM], hi[TSR_MAX_DIM];
};

/* Whether the last step's bytes are the chunk's elements as the output holds them (no element
 * codec, no value change, no axis order or byte planes to undo; byte order aside). */
int tsr_values_as_stored(const struct tsr_chunk_ref *ref);

/* Can the chunk's codec decode just a box of it? (b2nd blocks, fill values, uncompressed
 * values as stored: yes) */
int tsr_chunk_decodes_box(const struct tsr_chunk_ref *ref);

/* tsr_chunk_decode of a box only, for codecs where tsr_chunk_decodes_box says so: out receives
 * the box in C order over its shape (hi - lo per axis), and the codec decodes only the pieces
 * under it (b2nd: the blocks it touches). box NULL is tsr_chunk_decode. */
int tsr_chunk_decode_box(const struct tsr_chunk_ref *ref, void *src, size_t src_nbytes, void *out,
			 size_t npix_needed, const struct tsr_chunk_box *box,
			 struct tsr_scratch *scratch, uint64_t *decoded_nbytes_ret);

/* Can the chunk's codec give single elements' values (an advanced selection's points) without
 * a pass over the whole chunk after it decodes? (uncompressed and DEFLATE-family chunks, FITS
 * byte planes too, without dequantization, filters or axis order) */
int tsr_chunk_gathers(const struct tsr_chunk_ref *ref);
/* Decodes the chunk's stored bytes and writes the values of its elements elems[0..n) (C-order
 * indices into the chunk's extent) to out, packed: value i is element elems[i]'s, in dtype
 * ref->xform.out. Only for chunks tsr_chunk_gathers accepts. */
int tsr_chunk_decode_gather(const struct tsr_chunk_ref *ref, void *src, size_t src_nbytes,
			    const int64_t *elems, size_t n, void *out, struct tsr_scratch *scratch,
			    uint64_t *decoded_nbytes_ret);

/* Reads nbytes at `offset` (from the start of the chunk's stored bytes) into dst. */
typedef int (*tsr_chunk_read_fn)(void *arg, void *dst, size_t nbytes, uint64_t offset);

/* A chunk whose values are the output of its last bytes step, a zstd frame, as they stand:
 * the values come out piece by piece, in C order, into the caller's small buffer. The whole
 * chunk then never sits decoded in memory, only zstd's window does; and a read that needs only
 * a prefix of the chunk stops decoding there. The frame comes from memory, or from a read
 * function a piece at a time, so the stored bytes need not sit in memory whole either. */
struct tsr_chunk_stream {
	void *zstd;                /* the scratch's ZSTD_DCtx */
	const unsigned char *src;  /* the frame (memory), or the piece of it in inbuf (read) */
	size_t src_nbytes, src_pos;
	tsr_chunk_read_fn read;    /* NULL: src is the whole frame */
	void *arg;
	unsigned char *inbuf;
	size_t inbuf_cap;
	uint64_t file_nbytes, file_pos; /* the frame's size; what has been read of it */
	size_t w;                  /* element size */
	int bswap;                 /* > 0: big-endian values, swapped in units of this size */
	int ended;                 /* zstd said the frame is over */
	uint64_t left;             /* value bytes still to come */
};

/* Can ref's chain stream (a last zstd step whose bytes are the output values as they stand)?
 * From a read function too (the zstd step alone)? */
int tsr_chunk_streams(const struct tsr_chunk_ref *ref);
int tsr_chunk_streams_read(const struct tsr_chunk_ref *ref);

/* Starts streaming the chunk's stored bytes src (only read; they must outlive the stream): runs
 * the steps before the last, and checks the frame. Returns 1 when streaming, 0 when this frame
 * cannot stream (no content size, several frames: decode it whole), or an error status. */
int tsr_chunk_stream_begin(struct tsr_chunk_stream *cs, const struct tsr_chunk_ref *ref,
			   void *src, size_t src_nbytes, struct tsr_scratch *scratch);

/* The same for stored bytes of src_nbytes that read() brings, inbuf_cap bytes at a time, into
 * inbuf (the caller's; at least 64 bytes). Returns 0 when the frame's header does not say the
 * chunk's size. */
int tsr_chunk_stream_begin_read(struct tsr_chunk_stream *cs, const struct tsr_chunk_ref *ref,
				tsr_chunk_read_fn read, void *arg, uint64_t src_nbytes,
				unsigned char *inbuf, size_t inbuf_cap, struct tsr_scratch *scratch);

/* The next nbytes of the chunk's values (a whole number of elements) into dst. */
int tsr_chunk_stream_read(struct tsr_chunk_stream *cs, void *dst, size_t nbytes);

/* Checks that the frame ends with the values (call once all are read; a stream left early
 * needs no end). Returns 1 when stored bytes follow the frame (read streams only): decode the
 * chunk whole, whose decoder gives the verdict on them. */
int tsr_chunk_stream_end(struct tsr_chunk_stream *cs);


/* Fetches only the stored bytes that decoding `box` of the chunk needs, when the chunk's codec
 * can say which (b2nd blocks: header, block table, dictionary and the blocks under the box,
 * packed as a smaller chunk that tsr_chunk_decode_box takes with the same box; an uncompressed
 * chunk: the span from the box's first element to its last). ref->nbytes is
 * the chunk's full stored size. On TSR_OK, *nbytes_ret is the size now in *buf (grown as
 * needed, with 64 zeroed bytes of slack), or 0 when the whole chunk should be fetched instead. */
int tsr_chunk_fetch_part(const struct tsr_chunk_ref *ref, const struct tsr_chunk_box *box,
			 tsr_chunk_read_fn read, void *arg, unsigned char **buf, size_t *cap,
			 uint64_t *nbytes_ret);

#endif /* TSR_CODECS_H */
