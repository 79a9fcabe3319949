/* fuzz.c - the blosc chunk container (blosc1/blosc2, every codec and filter) on arbitrary
 * bytes: whole-chunk decode, a block-range decode, and the stream list the CUDA engine takes
 * (every stream must lie inside the chunk and its decoded bytes). */
#include <stdlib.h>

#include "../guard.h"
#include "codecs/blosc.h"
#include "codecs/route.h"

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
			int64_t pb = 0;
			struct tsr_route rt;
			tsr_route_blosc(g.data, n, w, info.nbytes / (int64_t)w, ~0u, &rt, &codec);
			if (rt.how != TSR_ROUTE_BLOSC ||
			    tsr_blosc_streams(g.data, n, w, sp, 4096, &ns, &pb) != 0)
				continue;
			for (size_t k = 0; k < ns; k++) {
				uint64_t in = sp[k].kind == TSR_BLOSC_STREAM_CODED ? sp[k].csize
					      : sp[k].kind == TSR_BLOSC_STREAM_COPY ? sp[k].n : 0;
				if (sp[k].dst + sp[k].n > (uint64_t)info.nbytes || sp[k].src + in > n)
					__builtin_trap();
			}
			if (pb < 0 || (pb && (uint64_t)pb * w > (uint64_t)info.blocksize))
				__builtin_trap();
		}
	}
	tsr_unguard(&g);
	return 0;
}
