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

int tsr_blosc_streams(const void *chunk_, size_t nbytes, size_t elem_nbytes,
		      struct tsr_blosc_stream *spans, size_t cap, size_t *n_ret,
		      int64_t *plane_block_ret)
{
	const unsigned char *chunk = chunk_;
	struct tsr_blosc_info in;
	int st = tsr_blosc_info(chunk, nbytes, &in);
	if (st)
		return st;
	size_t n = 0;
	*plane_block_ret = tsr_blosc_shuffled(&in) ? in.blocksize / (int64_t)elem_nbytes : 0;
	int64_t data_start = in.header_nbytes + 4 * in.nblocks;
	for (int64_t b = 0; b < in.nblocks; b++) {
		int64_t bsize = b == in.nblocks - 1 ? in.last_block_nbytes : in.blocksize;
		int64_t p = (int32_t)tsr_le32(chunk + in.header_nbytes + 4 * b);
		if (p < data_start || p >= in.cbytes)
			return tsr_error(TSR_E_CORRUPT, "blosc: block %lld starts at byte %lld, outside "
					 "the data", (long long)b, (long long)p);
		int leftover = b == in.nblocks - 1 && in.nbytes % in.blocksize != 0;
		int nstreams = in.split && !leftover ? in.typesize : 1;
		if (bsize % nstreams)
			return tsr_error(TSR_E_CORRUPT, "blosc: block %lld of %lld bytes does not "
					 "split into %d streams", (long long)b, (long long)bsize,
					 nstreams);
		int64_t each = bsize / nstreams;
		for (int j = 0; j < nstreams; j++) {
			if (in.cbytes - p < 4)
				return tsr_error(TSR_E_CORRUPT, "blosc: block %lld stream %d: size "
						 "field past the end of the chunk", (long long)b, j);
			int32_t cs = (int32_t)tsr_le32(chunk + p);
			p += 4;
			if (n == cap)
				return TSR_E_TOO_SMALL; /* (no message: the caller decodes on the CPU) */
			struct tsr_blosc_stream *sp = &spans[n++];
			sp->dst = (uint64_t)(b * in.blocksize + j * each);
			sp->n = (uint64_t)each;
			sp->src = (uint64_t)p;
			sp->csize = 0;
			sp->value = 0;
			if (cs == 0) {
				sp->kind = TSR_BLOSC_STREAM_SET; /* a stream of zeros */
			} else if (cs < 0) {
				if (p >= in.cbytes || !(chunk[p] & 0x01) || cs < -255)
					return tsr_error(TSR_E_CORRUPT, "blosc: block %lld stream %d: "
							 "bad run token", (long long)b, j);
				sp->kind = TSR_BLOSC_STREAM_SET;
				sp->value = -cs;
				p++;
			} else {
				if (cs > in.cbytes - p)
					return tsr_error(TSR_E_CORRUPT, "blosc: block %lld stream %d: %d "
							 "bytes run past the end of the chunk",
							 (long long)b, j, cs);
				sp->kind = cs == each ? TSR_BLOSC_STREAM_COPY : TSR_BLOSC_STREAM_ZLIB;
				sp->csize = (uint64_t)cs;
				p += cs;
			}
		}
	}
	*n_ret = n;
	return TSR_OK;
}
