/* fuzz.c - LZ4 blocks on arbitrary bytes: the GPU kernel's decoder (src/cuda/lz4_core.h, emulated) against liblz4's LZ4_decompress_safe (the CPU path's), and LZ4 through records (lz4_recs_core.h and zstd's phase c, emulated, records split at 7 bytes) against that decoder. First two bytes: the output capacity. */
#include <lz4.h>
#include <stdlib.h>
#include <string.h>

#include "../guard.h"
#define TSR_LZ_EMU 1
#define TSR_ZSTD_EMU 1
#define TSR_ZS_REC_LSRC 1
#define TSR_L4R_SPLIT 7u
#include "cuda/lz4_core.h"
#include "cuda/lz4_recs_core.h"
#include "cuda/zstd_exec_core.h"
#include "../../gpu/lz4_walk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	static struct tsr_lz_smem m;
	if (n < 2)
		return 0;
	size_t cap = (size_t)data[0] << 8 | data[1];
	struct tsr_guarded g;
	if (tsr_guard(&g, data + 2, n - 2))
		return 0;
	unsigned char *ref = malloc(cap + 1), *out = malloc(cap + 1);
	int r = LZ4_decompress_safe((const char *)g.data, (char *)ref, (int)(n - 2), (int)cap);
	uint64_t got;
	int st = tsr_lz4_stream(&m, g.data, n - 2, out, cap, TSR_CUDA_LZ4_RAW, &got);
	if (got > cap)
		abort();
	if (r >= 0 && !(st == TSR_CUDA_LZ_E_DISTANCE &&
			lz4_zero_distance_at(g.data, n - 2) == (long long)got) &&
	    (st != TSR_CUDA_LZ_OK || got != (uint64_t)r || memcmp(out, ref, (size_t)r)))
		abort(); /* liblz4 accepts a block the kernel decodes otherwise */
	/* (the kernel may accept a block liblz4 refuses only for LZ4's end-of-block rules) */
	/* through records: the kernel's status, size and bytes */
	uint64_t bound = tsr_l4r_bound(n - 2), rgot;
	struct tsr_l4r_sink k = {malloc(bound * sizeof(struct tsr_zs_seq)), bound, 0, 0, 0};
	unsigned char *rout = malloc(cap + 1);
	int rst = tsr_l4r_stream(&m, g.data, n - 2, rout, cap, TSR_CUDA_LZ4_RAW, &k, &rgot);
	if (k.full || rst != st || rgot != got)
		abort();
	if (k.nrec) {
		static struct tsr_zs_xs x;
		struct tsr_zs_frame f = {0};
		struct tsr_zs_block b = {0};
		f.window = 0xffffffffu;
		f.nblocks = 1;
		b.type = 2;
		b.nseq = k.nrec;
		b.nlit = k.nlit;
		b.out_size = (uint32_t)rgot;
		if (tsr_zs_frame_exec(&x, g.data, &f, &b, g.data, k.rec, rout) != TSR_CUDA_ZSTD_OK)
			abort();
	}
	if (memcmp(rout, out, (size_t)got))
		abort();
	free(k.rec);
	free(rout);
	free(ref);
	free(out);
	tsr_unguard(&g);
	return 0;
}
