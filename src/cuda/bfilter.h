/* bfilter.h - the blosc filter pass's plain-data chunk description and its C launcher. */
#ifndef TSR_CUDA_BFILTER_H
#define TSR_CUDA_BFILTER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One blosc chunk whose streams have been decoded into the decode buffer, block b at dec + b x
 * blocksize: the pass undoes its filters block by block (one thread block of the GPU a chunk
 * block), in the order given, with the chunk's staging room as the second buffer (where the
 * result may stay: tsr_cuda_bfilter_in_stage); or, for a special chunk, fills it with its
 * pattern. Filter ids and metas are the blosc pipeline's
 * (src/codecs/blosc.h, tsr_blosc_pipeline), so the engine copies them without reading them.
 */
#define TSR_CUDA_BF_MAX 6
#define TSR_CUDA_BF_PAT 16
#define TSR_CUDA_BF_SEL 4
#define TSR_CUDA_BF_PAT_INLINE UINT64_MAX

struct tsr_cuda_bfilter {
	uint64_t dec;           /* bytes into the decode buffer: the chunk's decoded bytes */
	uint64_t scratch;       /* bytes into the staging buffer: nbytes of room the pass may use
				   (its compressed bytes, done with once its streams decoded) */
	uint64_t nbytes;        /* the chunk's decoded size */
	uint64_t blocksize;     /* bytes a block (the last one holding the rest) */
	uint64_t first;         /* the launch's number of the chunk's block 0 (the chunks' block
				   counts summed before it) */
	uint64_t pat_src;       /* fill: bytes into the staging buffer of the pattern, or
				   TSR_CUDA_BF_PAT_INLINE: in pat[] */
	uint32_t nblocks;       /* the launch's blocks of the chunk: every block, or the chosen */
	uint16_t plen;          /* > 0: a fill of this period (no filters) */
	uint8_t typesize, version, nfilt;
	uint8_t nsel;           /* > 0: a section's chunk, only some of its blocks decoded: the
				   launch's block k is chosen block k (sel_*, as struct
				   tsr_blosc_blocks of src/codecs/blosc.h), after block 0 when */
	uint8_t with0;          /* DELTA blocks need it though the section does not */
	uint32_t sel_n[TSR_CUDA_BF_SEL], sel_stride[TSR_CUDA_BF_SEL];
	int64_t sel_base;
	uint8_t filt[TSR_CUDA_BF_MAX], meta[TSR_CUDA_BF_MAX];
	uint8_t pat[TSR_CUDA_BF_PAT];
};

struct tsr_blosc_pipeline;
/* The pass's description of a chunk (tsr_bf_describe, bfilter_core.h); 0: it needs no pass. */
int tsr_cuda_bfilter_describe(const struct tsr_blosc_pipeline *p, uint64_t dec, uint64_t stage,
			      uint64_t first, struct tsr_cuda_bfilter *c);

/* Whether the pass leaves the chunk's bytes in its staging room (at `scratch`) rather than at
 * `dec` in the decode buffer. */
int tsr_cuda_bfilter_in_stage(const struct tsr_cuda_bfilter *c);

/* How many launches of the pass a chunk needs (1, or 2 when blocks depend on its block 0). */
int tsr_cuda_bfilter_passes(const struct tsr_cuda_bfilter *c);

/*
 * Runs the pass over n chunks (d_chunks: device array) whose blocks number nblocks in all, on
 * stream; passes: the most any chunk needs. d_dec: the decode buffer; d_stage: the staging
 * buffer. Returns 0 or a CUDA error code.
 */
int tsr_cuda_bfilter_launch(void *d_dec, void *d_stage, const struct tsr_cuda_bfilter *d_chunks,
			    size_t n, uint64_t nblocks, int passes, void *stream);

#ifdef __cplusplus
}
#endif
#endif
