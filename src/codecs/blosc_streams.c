/* blosc_streams.c - the streams of a blosc chunk listed for decoders elsewhere (the GPU's
 * decoder families): where each stream goes, and what else the chunk's decoding takes (byte
 * planes, filters, fills). Which chunks they take: route.c. */
#include <string.h>

#include "../core/internal.h"
#include "blosc.h"

void tsr_blosc_pipeline(const struct tsr_blosc_info *in, size_t elem_nbytes,
			struct tsr_blosc_pipeline *p)
{
	memset(p, 0, sizeof(*p));
	p->nbytes = in->nbytes;
	p->blocksize = in->blocksize;
	p->nblocks = in->nblocks;
	p->typesize = in->typesize;
	p->version = in->version;
	p->fill_at = -1;
	if (in->special) {
		static const uint8_t nan32[4] = {0x00, 0x00, 0xc0, 0x7f};
		static const uint8_t nan64[8] = {0, 0, 0, 0, 0, 0, 0xf8, 0x7f};
		p->fill_len = 1; /* zeros, and uninitialised (decoded as zeros, as on the CPU) */
		if (in->special == TSR_BLOSC_SPECIAL_NAN) {
			p->fill_len = in->typesize;
			memcpy(p->fill, in->typesize == 4 ? nan32 : nan64, (size_t)in->typesize);
		} else if (in->special == TSR_BLOSC_SPECIAL_VALUE) {
			p->fill_len = (int)in->value_nbytes;
			p->fill_at = in->header_nbytes;
		}
		return;
	}
	if (in->memcpyed)
		return;
	p->nfilt = in->nundo;
	memcpy(p->filt, in->undo, sizeof(p->filt));
	memcpy(p->meta, in->undo_meta, sizeof(p->meta));
	/* A lone byte shuffle by the element size whose blocks hold whole elements: the place
	 * kernel reads each block's planes itself, with no pass of its own. */
	size_t by = p->nfilt == 1 && p->filt[0] == TSR_BLOSC_SHUFFLE
			    ? (p->meta[0] ? p->meta[0] : (size_t)in->typesize)
			    : 0;
	if (by && by == elem_nbytes && in->blocksize % (int64_t)elem_nbytes == 0) {
		p->plane_block = in->blocksize / (int64_t)elem_nbytes;
		p->nfilt = 0;
	}
}

/* Listed block i of the chunk: every block, or the chosen ones (block 0 first when they need
 * it). */
static int64_t listed_block(const struct tsr_blosc_blocks *sel, int64_t i)
{
	return !sel ? i : sel->with0 ? (i ? tsr_blosc_blocks_at(sel, i - 1) : 0)
				     : tsr_blosc_blocks_at(sel, i);
}

/* Blocks whose streams' chains are followed side by side (streams_ahead). */
#define TSR_BLOSC_AHEAD 64

/*
 * Why a walk ahead: a block's streams are a chain of loads (each stream's size says where the
 * next one's is), usually a page apart, and the listing below takes one block at a time. Beside
 * the CUDA feed, whose readers copy the read's bytes through the host's memory at the same
 * time, each load of a chain waited a loaded memory latency: 2,048 blocks of four streams
 * (python-blosc2's zstd with shuffle) took the read's thread 3.0-3.9 ms on the H100 host,
 * 2,048 of one stream (bitshuffle) 0.35-0.6 ms. This walk follows the chains of listed blocks
 * [i0, i1) side by side, a stream of each at a time, and prefetches each next size, so that their
 * loads overlap; the checked walk then finds them in the cache. It checks nothing (a chain that
 * leaves the chunk stops) and changes nothing but what the cache holds.
 */
static void streams_ahead(const struct tsr_blosc_info *in, const uint8_t *src,
			  const struct tsr_blosc_blocks *sel, int64_t i0, int64_t i1)
{
	int64_t at[TSR_BLOSC_AHEAD];
	const int64_t end = in->cbytes, n = i1 - i0;
	for (int64_t k = 0; k < n; k++) {
		/* (the block table lies inside the chunk: tsr_blosc_info) */
		int64_t b = listed_block(sel, i0 + k);
		at[k] = b >= 0 && b < in->nblocks ? (int32_t)tsr_le32(src + in->header_nbytes + 4 * b) : -1;
		if (at[k] >= 0 && at[k] < end)
			__builtin_prefetch(src + at[k]);
	}
	const int nstreams = in->split ? in->typesize : 1;
	for (int j = 1; j < nstreams; j++)
		for (int64_t k = 0; k < n; k++) {
			if (at[k] < 0 || end - at[k] < 4) {
				at[k] = -1;
				continue;
			}
			int32_t cs = (int32_t)tsr_le32(src + at[k]);
			at[k] += 4 + (cs < 0 ? 1 : (int64_t)cs);
			if (at[k] < end)
				__builtin_prefetch(src + at[k]);
		}
}

int tsr_blosc_streams(const void *chunk, size_t nbytes, size_t elem_nbytes,
		      const struct tsr_blosc_blocks *blocks, struct tsr_blosc_stream *spans,
		      size_t cap, size_t *n_ret, struct tsr_blosc_pipeline *pipe_ret)
{
	struct tsr_blosc_info in;
	int st = tsr_blosc_info(chunk, nbytes, &in);
	if (st)
		return st;
	size_t n = 0;
	tsr_blosc_pipeline(&in, elem_nbytes, pipe_ret);
	if (in.special) {
		*n_ret = 0;
		return TSR_OK;
	}
	if (in.memcpyed) {
		/* (parse checked the bytes are there) */
		if (cap < 1)
			return TSR_E_TOO_SMALL;
		spans[0] = (struct tsr_blosc_stream){.src = (uint64_t)in.header_nbytes,
						     .dst = 0, .n = (uint64_t)in.nbytes,
						     .kind = TSR_BLOSC_STREAM_COPY};
		*n_ret = in.nbytes > 0;
		return TSR_OK;
	}
	/* every block, or the chosen ones (block 0 first when they need it) */
	const struct tsr_blosc_blocks *sel = blocks && blocks->naxes > 0 ? blocks : NULL;
	int64_t nlist = in.nblocks;
	if (sel) {
		if (sel->count < 0 || sel->count + (sel->with0 != 0) > in.nblocks ||
		    (sel->count && (tsr_blosc_blocks_at(sel, 0) < 0 ||
				    tsr_blosc_blocks_at(sel, sel->count - 1) >= in.nblocks)))
			return tsr_error(TSR_E_INTERNAL, "blosc: %lld chosen blocks outside the "
					 "chunk's %lld", (long long)sel->count, (long long)in.nblocks);
		pipe_ret->blocks = *sel;
		nlist = sel->count + (sel->with0 != 0);
	}
	for (int64_t i = 0; i < nlist; i++) {
		if (i % TSR_BLOSC_AHEAD == 0)
			streams_ahead(&in, chunk, sel, i,
				      nlist - i < TSR_BLOSC_AHEAD ? nlist : i + TSR_BLOSC_AHEAD);
		int64_t b = listed_block(sel, i);
		struct tsr_blosc_stream block[TSR_BLOSC_MAX_STREAMS];
		int nb;
		if ((st = tsr_blosc_block_streams(&in, chunk, b, block, &nb)))
			return st;
		if ((size_t)nb > cap - n)
			return TSR_E_TOO_SMALL; /* (no message: the caller decodes on the CPU) */
		for (int j = 0; j < nb; j++) {
			spans[n] = block[j];
			spans[n++].dst += (uint64_t)(b * in.blocksize);
		}
	}
	*n_ret = n;
	return TSR_OK;
}
