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
		int64_t b = !sel ? i : sel->with0 ? (i ? tsr_blosc_blocks_at(sel, i - 1) : 0)
					       : tsr_blosc_blocks_at(sel, i);
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
