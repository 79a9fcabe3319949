/* blosc_streams.c - the streams of a blosc chunk listed for decoders elsewhere (the GPU's
 * decoder families): where each stream goes. Which chunks they take: route.c. */
#include "../core/internal.h"
#include "blosc.h"

/* The bytes filter k (a shuffle) groups by: its meta, else the typesize. */
static size_t tsr_blosc_shuffle_by(const struct tsr_blosc_info *in, int k)
{
	return in->filters_meta[k] ? in->filters_meta[k] : (size_t)in->typesize;
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
