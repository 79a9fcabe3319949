/* fuzz.c - the blosc chunk container (blosc1/blosc2, every codec and filter) on arbitrary
 * bytes: whole-chunk decode, a block-range decode, the stream list the CUDA engine takes
 * (every stream must lie inside the chunk and its decoded bytes), and the GPU filter pass's
 * steps (bfilter_core.h) over the buffers the engine gives them. */
#include <stdlib.h>

#include "../guard.h"
#include "codecs/blosc.h"
#include "codecs/route.h"
#define TSR_BF_EMU 1
#include "cuda/bfilter_core.h"

/* The GPU filter pass, emulated with 3 threads a block, over a chunk's buffers sized as the
 * CUDA engine sizes them: ASan sees any step that strays. */
static void pass(const struct tsr_blosc_pipeline *p, const uint8_t *chunk, size_t n)
{
	struct tsr_cuda_bfilter d;
	if (p->nbytes > (1 << 20) || !tsr_bf_describe(p, 0, 0, 0, &d))
		return;
	size_t dn = (size_t)p->nbytes, sn = n > dn ? n : dn;
	uint8_t *dec = calloc(dn, 1), *stage = malloc(sn);
	uint64_t agg[3];
	memcpy(stage, chunk, n);
	for (int ps = 0; ps < tsr_bf_passes(&d); ps++)
		for (uint64_t b = 0; b < d.nblocks; b++) {
			struct tsr_bf_view v = {.a = dec + b * d.blocksize, .b = stage + b * d.blocksize,
						.a0 = dec, .n = tsr_bf_block_n(&d, b),
						.at = b * d.blocksize, .block = b};
			v.pat = d.pat_src == TSR_CUDA_BF_PAT_INLINE ? d.pat : stage + d.pat_src;
			for (unsigned s = 0; s < tsr_bf_nsteps(&d, b, ps); s++)
				for (unsigned t = 0; t < 3; t++)
					tsr_bf_step(&d, &v, ps, s, t, 3, agg);
		}
	free(dec);
	free(stage);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct tsr_guarded g;
	if (tsr_guard(&g, data, n))
		return 0;
	struct tsr_blosc_info info;
	if (tsr_blosc_info(g.data, n, &info) == 0 && info.nbytes <= (1 << 24)) {
		size_t cap = (size_t)info.nbytes;
		void *out = malloc(cap ? cap : 1);
		size_t got;
		tsr_blosc_decode(out, cap, g.data, n, NULL, &got);
		if (info.nblocks > 1)
			tsr_blosc_decode_blocks(out, cap, g.data, n, info.nblocks - 1, 1, NULL);
		free(out);
		static struct tsr_blosc_stream sp[4096];
		for (size_t w = 1; w <= 8; w *= 2) {
			int codec;
			size_t ns = 0;
			struct tsr_blosc_pipeline pipe;
			struct tsr_route rt;
			tsr_route_blosc(g.data, n, w, info.nbytes / (int64_t)w, ~0u, &rt, &codec);
			if (rt.how != TSR_ROUTE_BLOSC ||
			    tsr_blosc_streams(g.data, n, w, NULL, sp, 4096, &ns, &pipe) != 0)
				continue;
			for (size_t k = 0; k < ns; k++) {
				uint64_t in = sp[k].kind == TSR_BLOSC_STREAM_CODED ? sp[k].csize
					      : sp[k].kind == TSR_BLOSC_STREAM_COPY ? sp[k].n : 0;
				if (sp[k].dst + sp[k].n > (uint64_t)info.nbytes || sp[k].src + in > n)
					__builtin_trap();
			}
			int64_t pb = pipe.plane_block;
			if (pb < 0 || (pb && (uint64_t)pb * w > (uint64_t)info.blocksize) ||
			    pipe.nbytes != info.nbytes || pipe.fill_len > 65535 ||
			    (pipe.fill_at >= 0 && pipe.fill_at + pipe.fill_len > (int64_t)n))
				__builtin_trap();
			pass(&pipe, g.data, n);
		}
	}
	tsr_unguard(&g);
	return 0;
}
