/* test_chain_caps.c - every bytes step's output is fixed or capped by the chunk's metadata, and a
 * stream or header claiming more is refused before it is allocated (issue 21). */
#include <bzlib.h>
#include <libdeflate.h>
#include <lz4.h>
#include <stdlib.h>
#include <zstd.h>

#include "check.h"
#include "codecs/codecs.h"

/* n + n/8 + 64 KiB: the bound the chain gives a compressor's input. */
#define BOUND(n) ((size_t)(n) + (size_t)(n) / 8 + 65536)

static struct tsr_chunk_ref int32_chunk(size_t npix)
{
	struct tsr_chunk_ref ref = {0};
	ref.ndim = 1;
	ref.extent[0] = (int64_t)npix;
	ref.npix = (int64_t)npix;
	ref.codec.id = TSR_CODEC_NONE;
	ref.codec.elem = TSR_INT32;
	ref.xform.kind = TSR_XF_COPY;
	ref.xform.out = TSR_INT32;
	ref.codec_name = "test";
	return ref;
}

static int decode(enum tsr_codec_id id, const void *src, size_t n, size_t expect, size_t cap,
		  size_t *got)
{
	struct tsr_bytes_step step = {.id = id};
	struct tsr_scratch s = {0};
	void *out;
	int st = tsr_bytes_decode(&step, src, n, &s, 3, expect, cap, NULL, &out, got);
	tsr_scratch_free(&s);
	return st;
}

int main(void)
{
	size_t e[TSR_MAX_PRE], c[TSR_MAX_PRE];

	/* The last step yields the elements exactly; a compressor before it at most its bound;
	 * a checksum adds its 4 bytes to whatever follows it (decode order: gzip, blosc, crc32c,
	 * zstd). */
	struct tsr_chunk_ref ref = int32_chunk(100);
	ref.npre = 4;
	ref.pre[0].id = TSR_CODEC_GZIP;
	ref.pre[1].id = TSR_CODEC_BLOSC;
	ref.pre[2].id = TSR_CODEC_CRC32C;
	ref.pre[3].id = TSR_CODEC_ZSTD;
	tsr_chunk_pre_limits(&ref, e, c);
	CHECK_EQ_INT(e[3], 400);
	CHECK_EQ_INT(e[2], 0);
	CHECK_EQ_INT(c[2], BOUND(400));
	CHECK_EQ_INT(e[1], 0);
	CHECK_EQ_INT(c[1], BOUND(400) + 4);
	CHECK_EQ_INT(e[0], 0);
	CHECK_EQ_INT(c[0], BOUND(BOUND(400) + 4));

	/* A compressor before a checksum: its output is the checksummed bytes, 4 more. */
	ref.npre = 2;
	ref.pre[0].id = TSR_CODEC_BLOSC;
	ref.pre[1].id = TSR_CODEC_CRC32C;
	tsr_chunk_pre_limits(&ref, e, c);
	CHECK_EQ_INT(e[1], 400);
	CHECK_EQ_INT(e[0], 404);

	/* Filters: the last step yields their input, run backwards from the elements. int16
	 * stored as int32 (AsType) halves it; PackBits of 100 bools is a count byte and 13. */
	ref.npre = 1;
	ref.pre[0].id = TSR_CODEC_BLOSC;
	ref.nfilter = 1;
	ref.filter[0].id = TSR_FILTER_ASTYPE;
	ref.filter[0].in = TSR_INT16;
	ref.filter[0].out = TSR_INT32;
	tsr_chunk_pre_limits(&ref, e, c);
	CHECK_EQ_INT(e[0], 200);
	struct tsr_chunk_ref bits = int32_chunk(100);
	bits.codec.elem = bits.xform.out = TSR_BOOL;
	bits.npre = 1;
	bits.pre[0].id = TSR_CODEC_ZSTD;
	bits.nfilter = 1;
	bits.filter[0].id = TSR_FILTER_PACKBITS;
	tsr_chunk_pre_limits(&bits, e, c);
	CHECK_EQ_INT(e[0], 14);

	/* 1 MiB of zeros, compressed by each codec, decoded under a cap of 100000 bytes: refused,
	 * and under 2 MiB: decoded whole. */
	size_t big = (size_t)1 << 20, got = 0, n;
	unsigned char *zeros = calloc(1, big), *comp = malloc(2 * big);
	CHECK(zeros && comp);

	n = ZSTD_compress(comp, 2 * big, zeros, big, 1); /* says its content size */
	CHECK(!ZSTD_isError(n));
	CHECK_EQ_INT(decode(TSR_CODEC_ZSTD, comp, n, 0, 100000, &got), TSR_E_CORRUPT);
	CHECK(strstr(tsr_errmsg(), "zstd: claims 1048576 decoded bytes, more than the 100000"));
	CHECK_EQ_INT(decode(TSR_CODEC_ZSTD, comp, n, 0, 2 * big, &got), TSR_OK);
	CHECK_EQ_INT(got, big);

	/* a zstd frame without its content size decodes into the cap */
	ZSTD_CCtx *zc = ZSTD_createCCtx();
	CHECK(zc);
	ZSTD_CCtx_setParameter(zc, ZSTD_c_contentSizeFlag, 0);
	ZSTD_outBuffer zo = {comp, 2 * big, 0};
	ZSTD_inBuffer zi = {zeros, big, 0};
	CHECK_EQ_INT(ZSTD_compressStream2(zc, &zo, &zi, ZSTD_e_end), 0);
	ZSTD_freeCCtx(zc);
	CHECK_EQ_INT(ZSTD_getFrameContentSize(comp, zo.pos), ZSTD_CONTENTSIZE_UNKNOWN);
	CHECK_EQ_INT(decode(TSR_CODEC_ZSTD, comp, zo.pos, 0, 100000, &got), TSR_E_CORRUPT);
	CHECK_EQ_INT(decode(TSR_CODEC_ZSTD, comp, zo.pos, 0, 2 * big, &got), TSR_OK);
	CHECK_EQ_INT(got, big);

	/* numcodecs LZ4: a 4-byte size, then the block */
	comp[0] = 0, comp[1] = 0, comp[2] = 0x10, comp[3] = 0;
	int ln = LZ4_compress_default((const char *)zeros, (char *)comp + 4, (int)big,
				      (int)(2 * big - 4));
	CHECK(ln > 0);
	CHECK_EQ_INT(decode(TSR_CODEC_LZ4, comp, (size_t)ln + 4, 0, 100000, &got), TSR_E_CORRUPT);
	CHECK(strstr(tsr_errmsg(), "lz4: claims 1048576 decoded bytes"));
	CHECK_EQ_INT(decode(TSR_CODEC_LZ4, comp, (size_t)ln + 4, 0, 2 * big, &got), TSR_OK);
	CHECK_EQ_INT(got, big);

	/* gzip keeps no trustworthy size: the output grows up to the cap, not past it */
	struct libdeflate_compressor *dc = libdeflate_alloc_compressor(6);
	CHECK(dc);
	n = libdeflate_gzip_compress(dc, zeros, big, comp, 2 * big);
	libdeflate_free_compressor(dc);
	CHECK(n > 0);
	CHECK_EQ_INT(decode(TSR_CODEC_GZIP, comp, n, 0, 100000, &got), TSR_E_CORRUPT);
	CHECK(strstr(tsr_errmsg(), "gzip: decodes to more than the 100000 bytes"));
	CHECK_EQ_INT(decode(TSR_CODEC_GZIP, comp, n, 0, 2 * big, &got), TSR_OK);
	CHECK_EQ_INT(got, big);

	/* bz2 keeps no size at all: it decodes into the cap */
	unsigned int bn = (unsigned int)(2 * big);
	CHECK_EQ_INT(BZ2_bzBuffToBuffCompress((char *)comp, &bn, (char *)zeros, (unsigned int)big,
					      9, 0, 0), BZ_OK);
	CHECK_EQ_INT(decode(TSR_CODEC_BZ2, comp, bn, 0, 100000, &got), TSR_E_CORRUPT);
	CHECK(strstr(tsr_errmsg(), "bz2: decodes to more bytes than"));
	CHECK_EQ_INT(decode(TSR_CODEC_BZ2, comp, bn, 0, 2 * big, &got), TSR_OK);
	CHECK_EQ_INT(got, big);

	/* a blosc header claiming 2^31 - 1 bytes against a cap of 100000: refused before either
	 * its output or its block buffers are allocated */
	unsigned char hdr[64] = {2, 1, 0x01, 4};
	int32_t claim[3] = {INT32_MAX, INT32_MAX, (int32_t)sizeof(hdr)};
	memcpy(hdr + 4, claim, sizeof(claim));
	CHECK_EQ_INT(decode(TSR_CODEC_BLOSC, hdr, sizeof(hdr), 0, 100000, &got), TSR_E_CORRUPT);
	CHECK(strstr(tsr_errmsg(), "blosc: claims 2147483647 decoded bytes, more than the 100000"));

	free(zeros);
	free(comp);
	CHECK_DONE();
}
