/* test_route_cpu_codecs.c - chunks whose only step is a codec no GPU family decodes (LZMA, bz2)
 * or a checksum (Fletcher-32, lookup3, crc32, adler32) go to the CPU saying the codec, never to
 * the raw copy (which would place their stored bytes as values). */
#include <string.h>

#include "check.h"
#include "codecs/route.h"

int main(void)
{
	struct tsr_route_device gpu = {.gpu = 1, .families = ~0u};
	static const enum tsr_codec_id ids[] = {TSR_CODEC_LZMA,	     TSR_CODEC_BZ2,
						TSR_CODEC_FLETCHER32, TSR_CODEC_LOOKUP3,
						TSR_CODEC_CRC32,      TSR_CODEC_ADLER32};
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
		struct tsr_chunk_ref r;
		memset(&r, 0, sizeof r);
		r.nbytes = 5000;
		r.npix = 4096;
		r.npre = 1;
		r.pre[0].id = ids[i];
		r.codec.id = TSR_CODEC_NONE;
		r.codec.elem = TSR_FLOAT32;
		r.xform.kind = TSR_XF_COPY;
		r.xform.out = TSR_FLOAT32;
		r.codec_name = "test";
		struct tsr_route rt;
		tsr_route_chunk(&r, &gpu, &rt);
		CHECK_EQ_INT(rt.how, TSR_ROUTE_CPU);
		CHECK_EQ_INT(rt.why, TSR_WHY_CODEC);
	}
	CHECK_DONE();
}
