/* shard_ref.h - a test driver's description of chunk `chunk` of a 2-D sharded Zarr-like store (chunks of 4 x 5 in shard files of 2 x 4 chunks, multiples of 7 never written: fill), zstd-coded, for the plan description tests. */
#ifndef TSR_TEST_SHARD_REF_H
#define TSR_TEST_SHARD_REF_H

#include <stdio.h>
#include <string.h>

#include "io/storage.h"

static inline void shard_ref(const struct tsr_array *a, int64_t chunk, struct tsr_chunk_ref *ref)
{
	memset(ref, 0, sizeof(*ref));
	int64_t cy = chunk / a->desc.grid[1], cx = chunk % a->desc.grid[1];
	snprintf(ref->path, sizeof(ref->path), "/data/store.zarr/arr/c/%lld/%lld",
		 (long long)(cy / 2), (long long)(cx / 4));
	ref->missing_is_fill = 1;
	ref->offset = (uint64_t)((cy % 2) * 4 + cx % 4) * 1000;
	ref->nbytes = 900 + (uint64_t)chunk;
	ref->codec.id = TSR_CODEC_ZSTD;
	ref->extent[0] = 4, ref->extent[1] = 5;
	ref->npix = 20;
	ref->codec_name = "zstd";
	if (chunk % 7 == 0)
		tsr_chunk_set_fill(ref);
}

#endif
