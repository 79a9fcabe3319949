/* tsr_cuda.h - C launchers of tessera's own CUDA kernels (no CUDA types: streams are void *). */
#ifndef TSR_CUDA_H
#define TSR_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The one mapping of a CUDA error (a cudaError_t, as int) to a tessera status, used by every
 * launcher below and by the CUDA engine: cudaSuccess -> TSR_OK; no device, an insufficient
 * driver, an invalid device or no kernel image for the device -> TSR_E_NO_DEVICE;
 * cudaErrorMemoryAllocation -> TSR_E_NOMEM; any other error -> `other` (the caller's
 * documented code: TSR_E_INTERNAL for the launchers, TSR_E_IO for the engine). A failure also
 * clears the runtime's last error (unless it is sticky) and is kept for this thread until
 * tsr_cuda_status_take_error() takes it (0: none since), so that a message can name it with
 * tsr_cuda_error_string() (cudaGetErrorString) after a launcher returned a bare status.
 */
int tsr_cuda_status(int cuda_error, int other);
int tsr_cuda_status_take_error(void);
const char *tsr_cuda_error_string(int cuda_error);

/* (tsr_cuda_device_count is tessera.h's, defined once in src/engine/cuda_device.c; programs
 * that link the kernels alone ask the CUDA runtime.) */

/*
 * Batched DEFLATE (RFC 1951) decoder, with zlib (RFC 1950) or gzip (RFC 1952) framing.
 *
 * One launch decodes nstreams independent streams, one warp per stream (streams are handed
 * out to warps as they finish, so a batch may mix sizes). Stored, fixed-Huffman and
 * dynamic-Huffman blocks, any length and distance DEFLATE allows, streams of any size.
 * Output is byte for byte libdeflate's (and zlib's) for every valid stream, and a stream is
 * accepted when libdeflate (1.16 or later) accepts it: as libdeflate, the unused length symbols
 * 286/287 read as 258 and distance symbols 30/31 as 29, and an empty code or one code of length 1
 * is allowed; a code-length repeat past the last length is an error (as in zlib and libdeflate
 * 1.16+; 1.14 accepted it). A gzip header CRC (FHCRC) is checked here, not by libdeflate.
 *
 * Framing (the low byte of `framing`):
 *   TSR_CUDA_DEFLATE  raw DEFLATE; decoding stops after the final block (trailing input is
 *                     ignored, as libdeflate_deflate_decompress does).
 *   TSR_CUDA_ZLIB     2-byte header (CM 8, window <= 32 KiB, FCHECK; FDICT is rejected), then
 *                     the 4-byte big-endian Adler-32 of the output.
 *   TSR_CUDA_GZIP     10-byte header with optional FEXTRA, FNAME, FCOMMENT, FHCRC, then CRC-32
 *                     and ISIZE. Several members one after another decode into one output (as
 *                     gzip(1) and tessera's CPU path do); input after the last member that does
 *                     not start with the gzip magic is ignored.
 * Flag TSR_CUDA_INFLATE_NO_CHECKSUM (or-ed in): skip the Adler-32 / CRC-32 / header-CRC checks.
 * Without it, checksums ARE verified on the GPU (one extra read of each stream's output by its
 * warp). The gzip ISIZE field and the presence of every trailer byte are checked always.
 *
 * All arrays are in device memory, nstreams long:
 *   d_in[i], d_in_nbytes[i]    compressed stream i (any alignment; never read past its end)
 *   d_out[i], d_out_cap[i]     its output buffer and capacity (never written past cap)
 *   d_out_nbytes[i]            set to the decoded size; on failure, the bytes written so far
 *                              (always <= cap). May be NULL.
 *   d_status[i]                set to TSR_CUDA_INFLATE_OK or a TSR_CUDA_INFLATE_E_* code below.
 *                              May be NULL.
 * d_scratch: device memory of at least tsr_cuda_inflate_scratch_nbytes() bytes, not used by
 * another launch in flight. cuda_stream: a cudaStream_t (NULL: the legacy default stream).
 * The call only enqueues work: results are there once the stream has reached that point.
 *
 * Returns TSR_OK (0); TSR_E_INVALID_ARG (-1) for NULL arrays, a bad framing or too little
 * scratch; TSR_E_NO_DEVICE (-11) when no CUDA device can run it; TSR_E_NOMEM (-2) when CUDA is
 * out of memory; TSR_E_INTERNAL (-12) for any other CUDA error at launch (tsr_cuda_status).
 * Per-stream problems never fail the call: they land in d_status.
 * Thread-safe (no global state besides a per-device launch-size cache).
 */
enum {
	TSR_CUDA_DEFLATE = 0,
	TSR_CUDA_ZLIB = 1,
	TSR_CUDA_GZIP = 2,
	TSR_CUDA_INFLATE_NO_CHECKSUM = 0x100
};

/* Per-stream status codes (d_status). */
enum {
	TSR_CUDA_INFLATE_OK = 0,
	TSR_CUDA_INFLATE_E_TRUNCATED = 1,     /* input ended before the stream did */
	TSR_CUDA_INFLATE_E_HEADER = 2,        /* bad zlib/gzip header (magic, method, flags, FCHECK) */
	TSR_CUDA_INFLATE_E_BLOCK_TYPE = 3,    /* block type 3 */
	TSR_CUDA_INFLATE_E_STORED_LEN = 4,    /* stored block LEN != ~NLEN */
	TSR_CUDA_INFLATE_E_CODE_LENGTHS = 5,  /* over-subscribed or incomplete code, repeat with no
						 previous length, lengths overrun, no end-of-block code */
	TSR_CUDA_INFLATE_E_SYMBOL = 6,        /* bits that are no code (the codes accepted leave
						 none; kept as a guard) */
	TSR_CUDA_INFLATE_E_DISTANCE = 7,      /* distance reaches before the start of the output */
	TSR_CUDA_INFLATE_E_OVERFLOW = 8,      /* output larger than d_out_cap[i] */
	TSR_CUDA_INFLATE_E_CHECKSUM = 9,      /* Adler-32, CRC-32, header CRC or ISIZE mismatch */
	TSR_CUDA_INFLATE_E_ARGUMENT = 10      /* NULL input or output pointer with a nonzero size */
};

/* Name of a per-stream status code ("truncated input", ...); never NULL. */
const char *tsr_cuda_inflate_status_name(int status);

/* Scratch bytes tsr_cuda_inflate_batch() needs for nstreams streams (a work counter). */
int tsr_cuda_inflate_scratch_nbytes(size_t nstreams, size_t *nbytes_ret);

int tsr_cuda_inflate_batch(const void *const *d_in, const size_t *d_in_nbytes,
			   void *const *d_out, const size_t *d_out_cap, size_t *d_out_nbytes,
			   int *d_status, size_t nstreams, int framing, void *d_scratch,
			   size_t scratch_nbytes, void *cuda_stream);

/*
 * Batched FITS RICE_1 decoder (the tile compression convention; CFITSIO's ricecomp.c is the
 * reference encoder): one thread per tile (why: src/cuda/rice_core.h).
 *
 * d_tiles: ntiles struct tsr_rice_tile records (src/cuda/rice_core.h: input and output device
 * addresses, input bytes, pixels, BYTEPIX 1/2/4, block size) in device memory. Each tile's
 * output is npix native-endian pixels of BYTEPIX bytes, byte for byte tessera's CPU decoder
 * (tsr_rice_decode) and CFITSIO; its input is never read outside [in, in + in_nbytes).
 * d_status[i] gets TSR_CUDA_RICE_OK (0) or a nonzero code (tsr_cuda_rice_status_name).
 * The call only enqueues the work on cuda_stream (a cudaStream_t; NULL: the legacy stream).
 * Returns TSR_OK; TSR_E_INVALID_ARG for NULL arrays; TSR_E_NO_DEVICE when no device can run
 * it; TSR_E_NOMEM when CUDA is out of memory; TSR_E_INTERNAL for another CUDA error at launch
 * (tsr_cuda_status). A bad tile never fails the call.
 */
int tsr_cuda_rice_batch(const void *d_tiles, int *d_status, size_t ntiles, void *cuda_stream);

/*
 * The same decoder in the form every decoder family's launcher takes (the stream arrays of
 * tsr_cuda_inflate_batch; no scratch): stream i decodes d_out_cap[i] / BYTEPIX pixels, and
 * d_out_nbytes[i] is that many bytes when it succeeds, else 0. One BYTEPIX and block size a
 * launch, named by the variant: tsr_cuda_rice_variant(bytepix, blocksize) is a variant for
 * BYTEPIX 1/2/4 and block sizes 16/32 (the FITS convention's two), else -1.
 */
enum { TSR_CUDA_RICE_VARIANTS = 6 };
static inline int tsr_cuda_rice_variant(int bytepix, int blocksize)
{
	int w = bytepix == 1 ? 0 : bytepix == 2 ? 1 : bytepix == 4 ? 2 : -1;
	return w < 0 || (blocksize != 16 && blocksize != 32) ? -1 : w * 2 + (blocksize == 16);
}
static inline unsigned tsr_cuda_rice_width(int variant)
{
	return 1u << (variant / 2);
}
static inline unsigned tsr_cuda_rice_blocksize(int variant)
{
	return variant % 2 ? 16u : 32u;
}
int tsr_cuda_rice_streams(const void *const *d_in, const size_t *d_in_nbytes, void *const *d_out,
			  const size_t *d_out_cap, size_t *d_out_nbytes, int *d_status,
			  size_t nstreams, int variant, void *d_scratch, size_t scratch_nbytes,
			  void *cuda_stream);

/* Name of a per-tile RICE status ("compressed stream ends early", ...); never NULL. */
const char *tsr_cuda_rice_status_name(int status);

/*
 * Batched LZ4 (raw blocks) and BloscLZ decoders: a group of lanes per stream (below: which
 * kernel), streams handed out to groups as they finish. Arguments, results and errors as tsr_cuda_inflate_batch's (device
 * arrays nstreams long; scratch of tsr_cuda_lz_scratch_nbytes(); the call only enqueues work;
 * per-stream problems land in d_status, never fail the call). Every read stays inside
 * [d_in[i], d_in[i] + d_in_nbytes[i]) and every write inside [d_out[i], d_out[i] + d_out_cap[i]).
 *
 * tsr_cuda_lz4_batch variant: TSR_CUDA_LZ4_RAW, one LZ4 block (blosc's lz4 and lz4hc streams);
 * output byte for byte liblz4's LZ4_decompress_safe with capacity d_out_cap[i], for every block
 * it accepts but those with a match of distance 0 (refused here). TSR_CUDA_LZ4_SIZED:
 * numcodecs' LZ4 (Zarr v2 "lz4"): 4 bytes little-endian of the decoded size, then one block
 * that must decode to exactly that size (<= d_out_cap[i]).
 * tsr_cuda_blosclz_batch (variant 0): BloscLZ streams, accepted and decoded exactly as
 * src/codecs/blosclz.c does.
 * Both take streams of at most 2 GiB - 1 in and out (offsets are 32-bit): a longer input is
 * refused (TSR_CUDA_LZ_E_LONG), a larger capacity taken as 2 GiB - 1 (liblz4's sizes are ints;
 * a blosc chunk is smaller).
 */
enum { TSR_CUDA_LZ4_RAW = 0, TSR_CUDA_LZ4_SIZED = 1 };

/* Per-stream status codes of the LZ decoders (d_status). */
enum {
	TSR_CUDA_LZ_OK = 0,
	TSR_CUDA_LZ_E_TRUNCATED = 1,  /* input ended inside a sequence (or an empty LZ4 block) */
	TSR_CUDA_LZ_E_DISTANCE = 2,   /* match distance 0 or before the start of the output */
	TSR_CUDA_LZ_E_OVERFLOW = 3,   /* output larger than the capacity (or the size prefix) */
	TSR_CUDA_LZ_E_SIZE = 4,       /* SIZED: decodes to another size than its prefix says */
	TSR_CUDA_LZ_E_ARGUMENT = 5,   /* NULL input or output pointer with a nonzero size */
	TSR_CUDA_LZ_E_LONG = 6        /* input past 2 GiB - 1 (liblz4's sizes are ints, too) */
};

/* Name of an LZ status code ("truncated input", ...); never NULL. */
const char *tsr_cuda_lz_status_name(int status);

/* Scratch bytes the LZ decoders need for nstreams streams (a work counter). */
int tsr_cuda_lz_scratch_nbytes(size_t nstreams, size_t *nbytes_ret);

int tsr_cuda_lz4_batch(const void *const *d_in, const size_t *d_in_nbytes, void *const *d_out,
		       const size_t *d_out_cap, size_t *d_out_nbytes, int *d_status,
		       size_t nstreams, int variant, void *d_scratch, size_t scratch_nbytes,
		       void *cuda_stream);

int tsr_cuda_blosclz_batch(const void *const *d_in, const size_t *d_in_nbytes,
			   void *const *d_out, const size_t *d_out_cap, size_t *d_out_nbytes,
			   int *d_status, size_t nstreams, int variant, void *d_scratch,
			   size_t scratch_nbytes, void *cuda_stream);

/*
 * Which LZ kernel a batch runs. TSR_CUDA_LZ_AUTO (the default): a batch of at most 16 streams a
 * multiprocessor runs the few-streams kernel (a warp a stream, two a block, long LZ4 literal
 * runs copied as vectors); a larger one the many-streams kernel (16 lanes a stream, 16 a block),
 * but for LZ4 by its stored share (TSR_CUDA_LZ_SHARE): a batch stored in at least 9/10 of its
 * capacity, mostly literals, the few-streams kernel (lz_core.h, tsr_lz_share_take).
 * TSR_CUDA_LZ_MANY, TSR_CUDA_LZ_FEW and TSR_CUDA_LZ_SHARE force one at any size (SHARE: LZ4's;
 * BloscLZ's then as AUTO), for tests and benchmarks; process-wide.
 */
enum { TSR_CUDA_LZ_AUTO = 0, TSR_CUDA_LZ_MANY = 1, TSR_CUDA_LZ_FEW = 2, TSR_CUDA_LZ_SHARE = 3 };
void tsr_cuda_lz_force(int mode);

/* The few-streams kernels' launches (tsr_cuda_lz4_batch and tsr_cuda_blosclz_batch pick them),
 * arguments as theirs, then take (NULL, or where the batch's share kernel wrote which kernel
 * decodes it) and mine (this kernel's answer: lz_core.h's TSR_LZ_TAKE_FEW). */
int tsr_cuda_lz4_few_batch(const void *const *d_in, const size_t *d_in_nbytes,
			   void *const *d_out, const size_t *d_out_cap, size_t *d_out_nbytes,
			   int *d_status, size_t nstreams, int variant, void *d_scratch,
			   size_t scratch_nbytes, void *cuda_stream, const int *take, int mine);
int tsr_cuda_blosclz_few_batch(const void *const *d_in, const size_t *d_in_nbytes,
			       void *const *d_out, const size_t *d_out_cap, size_t *d_out_nbytes,
			       int *d_status, size_t nstreams, int variant, void *d_scratch,
			       size_t scratch_nbytes, void *cuda_stream, const int *take, int mine);

/*
 * Batched Zstandard (RFC 8878) decoder: any number of frames and skippable frames one after
 * another in each stream (their outputs follow each other, as libzstd's ZSTD_decompress).
 * Arguments, results and errors as tsr_cuda_inflate_batch's (device arrays nstreams long; the
 * call only enqueues work on cuda_stream except for one wait, below; per-stream problems land
 * in d_status with a TSR_CUDA_ZSTD_* code and never fail the call). Every read stays inside
 * [d_in[i], d_in[i] + d_in_nbytes[i]) and every write inside [d_out[i], d_out[i] + d_out_cap[i]).
 * Output is byte for byte libzstd's; frames that need a dictionary get
 * TSR_CUDA_ZSTD_E_DICTIONARY (the CPU decodes them), and frames of 4 GiB or more of output
 * TSR_CUDA_ZSTD_E_LONG (the CPU too). variant: 0.
 * Scratch: the per-block literal and sequence buffers depend on the streams' headers, which are in
 * device memory, so the launcher scans them first (one kernel), waits for the stream to read the
 * totals, then takes its scratch from the stream-ordered allocator (tsr_cuda_scratch_alloc, freed
 * in order after the last kernel); d_scratch is not used (the families' fixed scratch is far too
 * small): 40 bytes a frame, 80 a block, the streams' literal bytes (at most their capacities) and
 * 12 bytes a sequence (at most a third of the capacities); by cells, 80 bytes more a block and one
 * a frame. The block decoders' tables live in shared memory (4,872 bytes a warp for the literals,
 * 2,828 a thread for the sequences), not in scratch. Frames of several blocks executed by cells
 * (tsr_cuda_zstd_batch_c) take a second allocation of 4 bytes an output byte of their streams (up
 * to 16 GiB); without it they run a warp a frame.
 */
enum {
	TSR_CUDA_ZSTD_OK = 0,
	TSR_CUDA_ZSTD_E_TRUNCATED = 1,  /* input ends inside a frame (or is empty) */
	TSR_CUDA_ZSTD_E_MAGIC = 2,      /* not a zstd or skippable frame (legacy formats too) */
	TSR_CUDA_ZSTD_E_HEADER = 3,     /* reserved frame header bit, window above 2 GiB */
	TSR_CUDA_ZSTD_E_DICTIONARY = 4, /* the frame needs a dictionary */
	TSR_CUDA_ZSTD_E_BLOCK = 5,      /* reserved block type, block above its size limit */
	TSR_CUDA_ZSTD_E_LITERALS = 6,   /* bad literals section or Huffman code */
	TSR_CUDA_ZSTD_E_SEQUENCES = 7,  /* bad sequences section or FSE table or bit stream */
	TSR_CUDA_ZSTD_E_OFFSET = 8,     /* a match reaches before the frame or past its window */
	TSR_CUDA_ZSTD_E_OVERFLOW = 9,   /* output larger than d_out_cap[i] */
	TSR_CUDA_ZSTD_E_SIZE = 10,      /* decoded size is not the frame's content size */
	TSR_CUDA_ZSTD_E_CHECKSUM = 11,  /* XXH64 content checksum mismatch */
	TSR_CUDA_ZSTD_E_ARGUMENT = 12,  /* NULL input or output pointer with a nonzero size */
	TSR_CUDA_ZSTD_E_MEMORY = 13,    /* the launcher could not get scratch for this stream */
	TSR_CUDA_ZSTD_E_LONG = 14       /* a frame of 4 GiB or more of output (phase c's
					   positions are 32-bit; the route sends larger chunks to
					   the CPU) */
};

/*
 * Stream-ordered device scratch for the launchers (the zstd one sizes its scratch by the
 * batch): from a pool a device that keeps freed memory for the next batch instead of
 * returning it to the driver at each synchronisation. Returns a cudaError_t value (0: done);
 * free with cudaFreeAsync. tsr_cuda_scratch_trim returns the device pool's unused memory to
 * the driver (the engine does when a context lets go of the device).
 */
int tsr_cuda_scratch_alloc(void **ptr, size_t nbytes, void *cuda_stream);
void tsr_cuda_scratch_trim(int device);

/* Name of a zstd status code ("checksum mismatch", ...); never NULL. */
const char *tsr_cuda_zstd_status_name(int status);

int tsr_cuda_zstd_batch(const void *const *d_in, const size_t *d_in_nbytes, void *const *d_out,
			const size_t *d_out_cap, size_t *d_out_nbytes, int *d_status,
			size_t nstreams, int variant, void *d_scratch, size_t scratch_nbytes,
			void *cuda_stream);

/*
 * How a batch executes the sequences of its frames of several blocks (phase c, zstd.cu):
 * TSR_CUDA_ZSTD_C_AUTO (what tsr_cuda_zstd_batch does) picks by cells while a warp a frame
 * would leave the GPU short of warps; WARPS runs every frame a warp; CELLS runs every frame of
 * several blocks by cells (all its blocks at once, then a thread a byte) when the cells can be
 * had. The output is the same either way; tests and benchmarks name one to check and time both.
 */
enum { TSR_CUDA_ZSTD_C_AUTO = 0, TSR_CUDA_ZSTD_C_WARPS = 1, TSR_CUDA_ZSTD_C_CELLS = 2 };

/* tsr_cuda_zstd_batch with phase c chosen (phase_c: a TSR_CUDA_ZSTD_C_* value). */
int tsr_cuda_zstd_batch_c(const void *const *d_in, const size_t *d_in_nbytes, void *const *d_out,
			  const size_t *d_out_cap, size_t *d_out_nbytes, int *d_status,
			  size_t nstreams, int phase_c, void *cuda_stream);

/*
 * Copies n bytes of a pinned host buffer (cudaHostAlloc) to device memory by a kernel's loads,
 * on stream: a slot's small tables reach the device without waiting behind the copy engine's
 * queue (the feed's reads of the next slot, tens of MiB, are queued there: on an H100 a
 * cudaMemcpyAsync of a b2nd slot's tables waited 1.4 ms behind them). The buffer must stay as
 * it is until the stream has run the kernel. Returns 0 or a cudaError_t (a buffer that is not
 * pinned: cudaHostGetDevicePointer's error, and nothing is launched).
 */
int tsr_cuda_upload(void *d_dst, const void *h_src, size_t n, void *stream);

#ifdef __cplusplus
}
#endif
#endif
