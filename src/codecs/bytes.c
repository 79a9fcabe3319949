/* bytes.c - the bytes-to-bytes codecs of Zarr and Blosc2 chunks: zstd, lz4, bz2, gzip/zlib,
 * blosc, crc32c. */
#include <bzlib.h>
#include <lz4.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "blosc.h"
#include "codecs.h"

/* Grows scratch slot i to n bytes (keeping 64 bytes of slack). */
static void *tsr_slot(struct tsr_scratch *s, int i, size_t n)
{
	if (s->cap[i] < n) {
		free(s->buf[i]);
		s->buf[i] = malloc(n + 64);
		s->cap[i] = s->buf[i] ? n : 0;
	}
	return s->buf[i];
}

/* Scratch slot i of n bytes, or the caller's destination when it has room for them. */
static void *tsr_dst(struct tsr_scratch *s, int i, size_t n, void *into, size_t expect)
{
	return into && n == expect ? into : tsr_slot(s, i, n);
}

int tsr_bytes_decode(const struct tsr_bytes_step *step, const void *src, size_t n,
		     struct tsr_scratch *s, int slot, size_t expect, void *into, void **out,
		     size_t *out_n)
{
	const unsigned char *in = src;
	void *dst;
	size_t got = 0;
	int st;
	switch (step->id) {
	case TSR_CODEC_CRC32C: {
		if (n < 4)
			return tsr_error(TSR_E_CORRUPT, "crc32c: chunk of %zu bytes has no checksum", n);
		uint32_t want = tsr_le32(in + n - 4), have = tsr_crc32c(in, n - 4);
		if (want != have)
			return tsr_error(TSR_E_CORRUPT, "crc32c mismatch: stored %08x, computed %08x",
					 want, have);
		*out = (void *)src;
		*out_n = n - 4;
		return TSR_OK;
	}
	case TSR_CODEC_ZSTD: {
		unsigned long long size = ZSTD_getFrameContentSize(src, n);
		if (size == ZSTD_CONTENTSIZE_ERROR)
			return tsr_error(TSR_E_CORRUPT, "zstd: not a zstd frame");
		size_t cap = size != ZSTD_CONTENTSIZE_UNKNOWN ? (size_t)size : expect;
		if (size == ZSTD_CONTENTSIZE_UNKNOWN && !expect)
			return tsr_error(TSR_E_UNSUPPORTED,
					 "zstd: frame without a content size where the size is unknown");
		if (expect && cap != expect)
			return tsr_error(TSR_E_CORRUPT, "zstd: frame holds %zu bytes, expected %zu", cap,
					 expect);
		if (!s->zstd && !(s->zstd = ZSTD_createDCtx()))
			return tsr_error(TSR_E_NOMEM, "zstd: out of memory");
		if (!(dst = tsr_dst(s, slot, cap, into, expect)))
			return tsr_error(TSR_E_NOMEM, "out of memory");
		got = ZSTD_decompressDCtx(s->zstd, dst, cap, src, n);
		if (ZSTD_isError(got))
			return tsr_error(TSR_E_CORRUPT, "zstd: %s", ZSTD_getErrorName(got));
		break;
	}
	case TSR_CODEC_LZ4: {
		if (n < 4)
			return tsr_error(TSR_E_CORRUPT, "lz4: chunk of %zu bytes", n);
		size_t size = tsr_le32(in);
		if (expect && size != expect)
			return tsr_error(TSR_E_CORRUPT, "lz4: holds %zu bytes, expected %zu", size, expect);
		if (size > (size_t)LZ4_MAX_INPUT_SIZE || n - 4 > (size_t)LZ4_MAX_INPUT_SIZE)
			return tsr_error(TSR_E_UNSUPPORTED, "lz4: block of %zu bytes", size);
		if (!(dst = tsr_dst(s, slot, size, into, expect)))
			return tsr_error(TSR_E_NOMEM, "out of memory");
		int r = LZ4_decompress_safe((const char *)in + 4, dst, (int)(n - 4), (int)size);
		if (r < 0 || (size_t)r != size)
			return tsr_error(TSR_E_CORRUPT, "lz4: corrupt block");
		got = size;
		break;
	}
	case TSR_CODEC_BZ2: {
		if (!expect)
			return tsr_error(TSR_E_UNSUPPORTED, "bz2: decoded size unknown");
		if (!(dst = tsr_dst(s, slot, expect, into, expect)))
			return tsr_error(TSR_E_NOMEM, "out of memory");
		unsigned int len = (unsigned int)expect;
		if (expect > UINT32_MAX || n > UINT32_MAX)
			return tsr_error(TSR_E_UNSUPPORTED, "bz2: chunk over 4 GiB");
		int r = BZ2_bzBuffToBuffDecompress(dst, &len, (char *)src, (unsigned int)n, 0, 0);
		if (r != BZ_OK)
			return tsr_error(TSR_E_CORRUPT, "bz2: %s",
					 r == BZ_OUTBUFF_FULL ? "decodes to more bytes than expected"
							      : "corrupt or truncated stream");
		got = len;
		break;
	}
	case TSR_CODEC_GZIP:
	case TSR_CODEC_ZLIB:
	case TSR_CODEC_DEFLATE: {
		size_t cap = expect ? expect : n * 8 + 1024;
		for (;;) {
			if (!(dst = tsr_dst(s, slot, cap, into, expect)))
				return tsr_error(TSR_E_NOMEM, "out of memory");
			st = tsr_inflate(&s->inflater, step->id, dst, cap, src, n, &got);
			/* Unknown size: grow and retry on "more bytes than expected". */
			if (st == TSR_OK || expect || cap > ((size_t)1 << 34) ||
			    !strstr(tsr_errmsg(), "more bytes"))
				break;
			cap *= 4;
		}
		if (st)
			return st;
		break;
	}
	case TSR_CODEC_BLOSC: {
		struct tsr_blosc_info info;
		if ((st = tsr_blosc_info(src, n, &info)))
			return st;
		if (expect && (size_t)info.nbytes != expect)
			return tsr_error(TSR_E_CORRUPT, "blosc: chunk holds %lld bytes, expected %zu",
					 (long long)info.nbytes, expect);
		if (!s->blosc && tsr_blosc_scratch_create((struct tsr_blosc_scratch **)&s->blosc))
			return tsr_error(TSR_E_NOMEM, "blosc: out of memory");
		if (!(dst = tsr_dst(s, slot, (size_t)info.nbytes, into, expect)))
			return tsr_error(TSR_E_NOMEM, "out of memory");
		if ((st = tsr_blosc_decode(dst, (size_t)info.nbytes, src, n, s->blosc, &got)))
			return st;
		break;
	}
	default:
		return tsr_error(TSR_E_UNSUPPORTED, "codec %d is not a bytes codec", (int)step->id);
	}
	*out = dst;
	*out_n = got;
	return TSR_OK;
}
