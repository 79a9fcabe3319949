/* test_route_rice.c - the codec route sends RICE_1 tiles to the GPU's rice family with the variant its launcher decodes, and the rest to the CPU with a reason. */
#include <string.h>

#include "check.h"
#include "codecs/route.h"
#include "cuda/tsr_cuda.h"

/* A RICE tile of npix pixels stored as `elem`, read as `out` (copy). */
static struct tsr_chunk_ref rice_tile(int bytepix, int blocksize, enum tsr_dtype elem)
{
	struct tsr_chunk_ref r;
	memset(&r, 0, sizeof r);
	r.nbytes = 1000;
	r.npix = 4096;
	r.codec.id = TSR_CODEC_RICE;
	r.codec.elem = elem;
	r.codec.rice_bytepix = bytepix;
	r.codec.rice_blocksize = blocksize;
	r.xform.kind = TSR_XF_COPY;
	r.xform.out = elem;
	r.codec_name = "RICE_1";
	return r;
}

int main(void)
{
	struct tsr_route_device gpu = {.gpu = 1, .families = ~0u};
	struct tsr_route rt;
	static const int bp[] = {1, 2, 4};
	static const enum tsr_dtype el[] = {TSR_UINT8, TSR_INT16, TSR_INT32};
	for (int i = 0; i < 3; i++)
		for (int bs = 16; bs <= 32; bs += 16) {
			struct tsr_chunk_ref r = rice_tile(bp[i], bs, el[i]);
			tsr_route_chunk(&r, &gpu, &rt);
			CHECK_EQ_INT(rt.how, TSR_ROUTE_STREAM);
			CHECK_EQ_INT(rt.kind / TSR_VARIANTS, TSR_FAM_RICE);
			/* the variant the route names is the one the launcher decodes */
			int v = rt.kind % TSR_VARIANTS;
			CHECK_EQ_INT(v, tsr_cuda_rice_variant(bp[i], bs));
			CHECK_EQ_INT((int)tsr_cuda_rice_width(v), bp[i]);
			CHECK_EQ_INT((int)tsr_cuda_rice_blocksize(v), bs);
		}
	/* quantized floats: int32 tiles dequantized by the place kernel */
	struct tsr_chunk_ref q = rice_tile(4, 32, TSR_INT32);
	q.xform.kind = TSR_XF_DEQUANT;
	q.xform.out = TSR_FLOAT32;
	q.xform.dither = TSR_DITHER_1;
	tsr_route_chunk(&q, &gpu, &rt);
	CHECK_EQ_INT(rt.how, TSR_ROUTE_STREAM);
	/* BYTEPIX narrower than the image's integers: the CPU widens them */
	struct tsr_chunk_ref n = rice_tile(2, 32, TSR_INT32);
	tsr_route_chunk(&n, &gpu, &rt);
	CHECK_EQ_INT(rt.how, TSR_ROUTE_CPU);
	CHECK_EQ_INT(rt.why, TSR_WHY_STEPS);
	/* a block size outside the convention's two */
	struct tsr_chunk_ref b = rice_tile(2, 8, TSR_INT16);
	tsr_route_chunk(&b, &gpu, &rt);
	CHECK_EQ_INT(rt.how, TSR_ROUTE_CPU);
	CHECK_EQ_INT(rt.why, TSR_WHY_STEPS);
	/* a device without the rice family, and decoder cpu */
	struct tsr_route_device norice = {.gpu = 1, .families = ~(1u << TSR_FAM_RICE)};
	struct tsr_chunk_ref r = rice_tile(2, 32, TSR_INT16);
	tsr_route_chunk(&r, &norice, &rt);
	CHECK_EQ_INT(rt.how, TSR_ROUTE_CPU);
	CHECK_EQ_INT(rt.why, TSR_WHY_CODEC);
	struct tsr_route_device forced = {.gpu = 1, .force_cpu = 1, .families = ~0u};
	tsr_route_chunk(&r, &forced, &rt);
	CHECK_EQ_INT(rt.how, TSR_ROUTE_CPU);
	CHECK_EQ_INT(rt.why, TSR_WHY_FORCED);
	CHECK_DONE();
}
