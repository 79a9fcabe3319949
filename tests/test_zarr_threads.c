/* test_zarr_threads.c - 16 threads read random sections of one Zarr handle at once (v2 blosc
 * and zstd stores with missing chunks, v3 shards whose indexes the threads race to cache, a
 * crc32c chain, an array inside a group), then 16 threads open handles of their own on one
 * context; every result must equal the same section cut from a single-threaded whole read.
 * make test-tsan runs it under ThreadSanitizer. */
#include "thread_reads.h"

int main(void)
{
	struct tr_target t[] = {
		{.path = "zarr2/blosc_lz4_shuffle_i16.zarr", .label = "v2 blosc lz4 shuffle int16"},
		{.path = "zarr3/shard_end_zstd_f4.zarr", .label = "v3 shards zstd float32"},
		/* empty inner chunks and shards never written: fill values published by the cache */
		{.path = "zarr3/shard_sparse_i2.zarr", .label = "v3 sparse shards int16"},
		{.path = "zarr2/fill_missing_i32.zarr", .label = "v2 missing chunks int32"},
		{.path = "zarr3/crc32c_i4.zarr", .label = "v3 zstd + crc32c int32"},
		{.path = "zarr2/group_consolidated.zarr", .label = "v2 group array labels/ids"},
	};
	int n = (int)(sizeof(t) / sizeof(t[0]));
	for (int i = 0; i < n; i++)
		t[i].oo = (struct tsr_open_options){.struct_size = sizeof(t[i].oo), .hdu = -1};
	t[n - 1].oo.array = "labels/ids";
	if (tr_run_all(t, n))
		return 1;
	CHECK_DONE();
}
