/* blosc_streams.c - the streams of a blosc chunk listed for decoders elsewhere (the CUDA
 * engine's inflate kernel): which chunks such a decoder can take, and where each stream goes. */
#include <string.h>

#include "../core/internal.h"
#include "blosc.h"

/* The bytes filter k (a shuffle) groups by: its meta, else the typesize. */
static size_t tsr_blosc_shuffle_by(const struct tsr_blosc_info *in, int k)
{
	return in->filters_meta[k] ? in->filters_meta[k] : (size_t)in->typesize;
}

/*
 * The CUDA engine's path for blosc chunks takes zlib streams with byte shuffle by the element
 * size (or no filter): each block's streams inflate into the chunk's decode buffer at the
 * block's place, and its place kernel reads each block's byte planes. Everything else a blosc
 * chunk may hold (other codecs, bit shuffle, delta, dictionaries, special chunks, chunks stored
 * whole) is left to tsr_blosc_decode: what a chunk holds is known only from its header.
 */
int tsr_blosc_streams_ok(const void *chunk_, size_t nbytes, size_t elem_nbytes, int64_t nelem,
			 int *codec_ret)
{
	const unsigned char *chunk = chunk_;
	struct tsr_blosc_info in;
	size_t w = elem_nbytes;
	*codec_ret = -1;
	if (tsr_blosc_info(chunk, nbytes, &in) != TSR_OK)
		return 0; /* the full decode says what is wrong */
	*codec_ret = in.codec;
	if (in.codec != TSR_BLOSC_ZLIB || in.memcpyed || in.special || in.use_dict ||
	    in.nbytes != (int64_t)w * nelem || in.nblocks == 0 || w == 0)
		return 0;
	int shuffles = 0;
	for (int k = 0; k < TSR_BLOSC_MAX_FILTERS; k++) {
		if (in.filters[k] == TSR_BLOSC_NOFILTER || in.filters[k] == TSR_BLOSC_TRUNC_PREC ||
		    in.filters[k] == TSR_BLOSC_INT_TRUNC)
			continue; /* (the truncations are lossy on write: nothing to undo) */
		if (in.filters[k] != TSR_BLOSC_SHUFFLE || shuffles++)
			return 0;
		if (tsr_blosc_shuffle_by(&in, k) != w && tsr_blosc_shuffle_by(&in, k) != 1)
			return 0; /* planes of another width than the element's (1: no-op) */
	}
	/* whole elements in every block, so each block's planes hold whole elements */
	return in.blocksize % (int64_t)w == 0;
}

/* Whether the chunk's (accepted) header shuffles bytes: a shuffle by more than one byte. */
static int tsr_blosc_shuffled(const struct tsr_blosc_info *in)
{
	for (int k = 0; k < TSR_BLOSC_MAX_FILTERS; k++)
		if (in->filters[k] == TSR_BLOSC_SHUFFLE && tsr_blosc_shuffle_by(in, k) > 1)
			return 1;
	return 0;
}

int tsr_blosc_streams(const void *chunk, size_t nbytes, size_t elem_nbytes,
		      struct tsr_blosc_stream *spans, size_t cap, size_t *n_ret,
		      int64_t *plane_block_ret)
{
	struct tsr_blosc_info in;
	int st = tsr_blosc_info(chunk, nbytes, &in);
	if (st)
		return st;
	size_t n = 0;
	*plane_block_ret = tsr_blosc_shuffled(&in) ? in.blocksize / (int64_t)elem_nbytes : 0;
	for (int64_t b = 0; b < in.nblocks; b++) {
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
