/* test_route_zstd.c - the codec route sends Zarr zstd chunks (v2 numcodecs Zstd, v3 zstd, sharded inner chunks: one zstd bytes step) below 4 GiB decoded to the GPU's zstd family, and the rest to the CPU with a reason. */
#include <string.h>

#include "check.h"
#include "codecs/route.h"

/* A Zarr chunk whose bytes are one zstd stream of npix elements of `elem` (what the v2 and v3
 * metadata readers and a shard's inner chunks give: a zstd pre-step, no element codec). */
static struct tsr_chunk_ref zstd_chunk(enum tsr_dtype elem)
{
	struct tsr_chunk_ref r;
	memset(&r, 0, sizeof r);
	r.nbytes = 5000;
	r.npix = 4096;
	r.npre = 1;
	r.pre[0].id = TSR_CODEC_ZSTD;
	r.codec.id = TSR_CODEC_NONE;
	r.codec.elem = elem;
	r.xform.kind = TSR_XF_COPY;
	r.xform.out = elem;
	r.codec_name = "zstd";
	return r;
}

int main(void)
{
	struct tsr_route_device gpu = {.gpu = 1, .families = ~0u};
	struct tsr_route rt;
	static const enum tsr_dtype el[] = {TSR_UINT8, TSR_INT16, TSR_UINT16, TSR_FLOAT32,
					    TSR_FLOAT64, TSR_INT64};
	for (size_t i = 0; i < sizeof el / sizeof el[0]; i++) {
		struct tsr_chunk_ref r = zstd_chunk(el[i]);
		tsr_route_chunk(&r, &gpu, &rt);
		CHECK_EQ_INT(rt.how, TSR_ROUTE_STREAM);
		CHECK_EQ_INT(rt.kind / TSR_VARIANTS, TSR_FAM_ZSTD);
		CHECK_EQ_INT(rt.kind % TSR_VARIANTS, 0);
	}
	CHECK(strcmp(tsr_route_family_name(TSR_FAM_ZSTD), "zstd") == 0);
	/* big-endian elements: the place kernel swaps them, as for the other families */
	struct tsr_chunk_ref be = zstd_chunk(TSR_FLOAT32);
	be.codec.big_endian = 1;
	struct tsr_route rbe, rgz;
	tsr_route_chunk(&be, &gpu, &rbe);
	struct tsr_chunk_ref gz = be;
	gz.pre[0].id = TSR_CODEC_GZIP;
	tsr_route_chunk(&gz, &gpu, &rgz);
	CHECK_EQ_INT(rbe.how, rgz.how); /* zstd goes where gzip goes */
	/* zstd then another bytes step (e.g. a crc32c): the CPU */
	struct tsr_chunk_ref two = zstd_chunk(TSR_INT16);
	two.npre = 2;
	two.pre[1].id = TSR_CODEC_CRC32C;
	tsr_route_chunk(&two, &gpu, &rt);
	CHECK_EQ_INT(rt.how, TSR_ROUTE_CPU);
	/* a numcodecs filter after zstd: the CPU, steps */
	struct tsr_chunk_ref f = zstd_chunk(TSR_INT16);
	f.nfilter = 1;
	tsr_route_chunk(&f, &gpu, &rt);
	CHECK_EQ_INT(rt.how, TSR_ROUTE_CPU);
	CHECK_EQ_INT(rt.why, TSR_WHY_STEPS);
	/* a device without the zstd family, decoder cpu, and the CPU engine */
	struct tsr_route_device nozstd = {.gpu = 1, .families = ~(1u << TSR_FAM_ZSTD)};
	struct tsr_chunk_ref r = zstd_chunk(TSR_INT16);
	tsr_route_chunk(&r, &nozstd, &rt);
	CHECK_EQ_INT(rt.how, TSR_ROUTE_CPU);
	CHECK_EQ_INT(rt.why, TSR_WHY_CODEC);
	struct tsr_route_device forced = {.gpu = 1, .force_cpu = 1, .families = ~0u};
	tsr_route_chunk(&r, &forced, &rt);
	CHECK_EQ_INT(rt.how, TSR_ROUTE_CPU);
	CHECK_EQ_INT(rt.why, TSR_WHY_FORCED);
	struct tsr_route_device cpu = {.gpu = 0};
	tsr_route_chunk(&r, &cpu, &rt);
	CHECK_EQ_INT(rt.how, TSR_ROUTE_CPU);
	/* chunks stored to the end of a file (size unknown until read): the CPU */
	struct tsr_chunk_ref w = zstd_chunk(TSR_INT16);
	w.nbytes = TSR_WHOLE_FILE;
	tsr_route_chunk(&w, &gpu, &rt);
	CHECK_EQ_INT(rt.how, TSR_ROUTE_CPU);
	/* 4 GiB or more decoded: the CPU, with its reason (the GPU's frame positions are 32-bit);
	 * one element less: the GPU. Other families are not bound so. */
	static const struct {
		enum tsr_dtype elem;
		int64_t npix;
		int gpu;
	} big[] = {{TSR_UINT8, 0xffffffffll, 1},          {TSR_UINT8, 0x100000000ll, 0},
		   {TSR_UINT16, 0x7fffffffll, 1},         {TSR_UINT16, 0x80000000ll, 0},
		   {TSR_FLOAT64, 0x1fffffffll, 1},        {TSR_FLOAT64, 0x20000000ll, 0},
		   {TSR_FLOAT32, 0x100000000ll * 4, 0}};
	for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
		struct tsr_chunk_ref b = zstd_chunk(big[i].elem);
		b.npix = big[i].npix;
		tsr_route_chunk(&b, &gpu, &rt);
		CHECK_EQ_INT(rt.how, big[i].gpu ? TSR_ROUTE_STREAM : TSR_ROUTE_CPU);
		if (!big[i].gpu) {
			CHECK_EQ_INT(rt.why, TSR_WHY_LONG);
			CHECK(strstr(tsr_route_why_text(rt.why), "4 GiB") != NULL);
		}
		b.pre[0].id = TSR_CODEC_GZIP;
		tsr_route_chunk(&b, &gpu, &rt);
		CHECK_EQ_INT(rt.how, TSR_ROUTE_STREAM);
	}
	CHECK_DONE();
}
