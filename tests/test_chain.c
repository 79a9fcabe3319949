/* test_chain.c - the generic codec chain: crc32c, bytes steps, delta and axis permutation. */
#include <lz4.h>
#include <zstd.h>

#include "check.h"
#include "codecs/codecs.h"

int main(void)
{
	/* The CRC-32C check value. */
	CHECK_EQ_INT(tsr_crc32c("123456789", 9), 0xE3069283u);
	CHECK_EQ_INT(tsr_crc32c("", 0), 0);

	/* A 3x4 int32 chunk stored Fortran-order (axes reversed), zstd-compressed, then crc32c. */
	int32_t want[12], stored[12];
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 4; j++)
			want[i * 4 + j] = i * 100 + j;
	for (int j = 0; j < 4; j++)
		for (int i = 0; i < 3; i++)
			stored[j * 3 + i] = want[i * 4 + j];
	unsigned char comp[512];
	size_t cn = ZSTD_compress(comp, sizeof(comp) - 4, stored, sizeof(stored), 3);
	CHECK(!ZSTD_isError(cn));
	uint32_t crc = tsr_crc32c(comp, cn);
	for (int k = 0; k < 4; k++)
		comp[cn + (size_t)k] = (unsigned char)(crc >> (8 * k));

	struct tsr_chunk_ref ref = {0};
	ref.ndim = 2;
	ref.extent[0] = 3;
	ref.extent[1] = 4;
	ref.npix = 12;
	ref.npre = 2;
	ref.pre[0].id = TSR_CODEC_CRC32C;
	ref.pre[1].id = TSR_CODEC_ZSTD;
	ref.codec.id = TSR_CODEC_NONE;
	ref.codec.elem = TSR_INT32;
	ref.xform.kind = TSR_XF_COPY;
	ref.xform.out = TSR_INT32;
	ref.has_perm = 1;
	ref.perm[0] = 1;
	ref.perm[1] = 0;
	ref.codec_name = "test";
	struct tsr_scratch s = {0};
	int32_t got[12];
	uint64_t dn = 0;
	unsigned char buf[512];
	memcpy(buf, comp, cn + 4);
	CHECK_EQ_INT(tsr_chunk_decode(&ref, buf, cn + 4, got, 0, &s, &dn), TSR_OK);
	CHECK(memcmp(got, want, sizeof(want)) == 0);

	/* A flipped checksum byte is caught. */
	memcpy(buf, comp, cn + 4);
	buf[cn] ^= 1;
	CHECK_EQ_INT(tsr_chunk_decode(&ref, buf, cn + 4, got, 0, &s, &dn), TSR_E_CORRUPT);
	CHECK(strstr(tsr_errmsg(), "crc32c") != NULL);

	/* numcodecs LZ4 (size prefix) of delta-encoded int16, big-endian storage. */
	int16_t vals[100], enc[100];
	for (int i = 0; i < 100; i++)
		vals[i] = (int16_t)(i * i - 300);
	for (int i = 0; i < 100; i++) {
		uint16_t d = (uint16_t)(i ? vals[i] - vals[i - 1] : vals[0]);
		enc[i] = (int16_t)__builtin_bswap16(d);
	}
	char lz[1024];
	lz[0] = (char)200;
	lz[1] = lz[2] = lz[3] = 0;
	int ln = LZ4_compress_default((const char *)enc, lz + 4, 200, (int)sizeof(lz) - 4);
	CHECK(ln > 0);
	struct tsr_chunk_ref r2 = {0};
	r2.ndim = 1;
	r2.extent[0] = 100;
	r2.npix = 100;
	r2.npre = 1;
	r2.pre[0].id = TSR_CODEC_LZ4;
	r2.codec.id = TSR_CODEC_NONE;
	r2.codec.elem = TSR_INT16;
	r2.codec.big_endian = 1;
	r2.xform.out = TSR_INT16;
	r2.nfilter = 1;
	r2.filter[0].id = TSR_FILTER_DELTA;
	r2.filter[0].in = r2.filter[0].out = TSR_INT16;
	r2.filter[0].in_be = r2.filter[0].out_be = 1;
	r2.codec_name = "test";
	int16_t out[100];
	CHECK_EQ_INT(tsr_chunk_decode(&r2, lz, (size_t)ln + 4, out, 0, &s, &dn), TSR_OK);
	CHECK(memcmp(out, vals, sizeof(vals)) == 0);
	/* A truncated block fails cleanly. */
	CHECK_EQ_INT(tsr_chunk_decode(&r2, lz, (size_t)ln, out, 0, &s, &dn), TSR_E_CORRUPT);

	tsr_scratch_free(&s);
	CHECK_DONE();
}
