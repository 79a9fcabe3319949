/* bytes.c - the bytes-to-bytes codecs of Zarr and Blosc2 chunks: zstd, lz4, bz2, gzip/zlib,
 * blosc, crc32c. */
#include <bzlib.h>
#include <libdeflate.h>
#include <lz4.h>
#include <lzma.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "blosc.h"
#include "codecs.h"

/* Grows scratch slot i to n bytes (keeping 64 bytes of slack). */
static void *tsr_slot(struct tsr_scratch *s, int i, size_t n)
{
	if (n > SIZE_MAX - 64)
		return NULL;
	if (s->cap[i] < n) {
		free(s->buf[i]);
		s->buf[i] = malloc(n + 64);
		s->cap[i] = s->buf[i] ? n : 0;
	}
	return s->buf[i];
}

/* Of scratch slots `slot` and slot + 1, the one src does not lie in: a checksum step passes
 * its input on, so steps that took the two in turn (3, 4, 3, ...) had the step after a
 * checksum decode over its own input, and free it where the slot grew (gzip, crc32c, zstd read
 * as corrupt, a chunk's steps and a whole shard's alike). */
static int tsr_free_slot(const struct tsr_scratch *s, int slot, const void *src)
{
	const uintptr_t p = (uintptr_t)src, b = (uintptr_t)s->buf[slot];
	return s->buf[slot] && p >= b && p - b <= s->cap[slot] + 64 ? slot + 1 : slot;
}

/* Scratch slot i of n bytes, or the caller's destination when it has room for them. */
static void *tsr_dst(struct tsr_scratch *s, int i, size_t n, void *into, size_t expect)
{
	return into && n == expect ? into : tsr_slot(s, i, n);
}

/* The most an LZMA step's decoder may allocate beyond the chunk's bytes. */
#define TSR_LZMA_MEM (128u << 20)

/* A claim of more decoded bytes than the chunk's metadata allows (see tsr_chunk_pre_limits). */
static int tsr_over_cap(const char *codec, unsigned long long claim, size_t cap)
{
	return tsr_error(TSR_E_CORRUPT, "%s: claims %llu decoded bytes, more than the %zu this "
			 "chunk's shape, dtype and codecs allow", codec, claim, cap);
}

/* A numcodecs checksum step's name, as its messages give it. */
static const char *tsr_checksum_name(enum tsr_codec_id id)
{
	return id == TSR_CODEC_CRC32	  ? "crc32"
	       : id == TSR_CODEC_ADLER32  ? "adler32"
	       : id == TSR_CODEC_FLETCHER32 ? "fletcher32"
					  : "jenkins_lookup3";
}

int tsr_bytes_decode(const struct tsr_bytes_step *step, const void *src, size_t n,
		     struct tsr_scratch *s, int slot, size_t expect, size_t cap, void *into,
		     void **out, size_t *out_n)
{
	const unsigned char *in = src;
	void *dst;
	size_t got = 0;
	/* Nothing is allocated past what the chunk's metadata allows, whatever a header says. */
	size_t lim = expect ? expect : cap;
	int st;
	slot = tsr_free_slot(s, slot, src);
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
	case TSR_CODEC_CRC32:
	case TSR_CODEC_ADLER32:
	case TSR_CODEC_FLETCHER32:
	case TSR_CODEC_LOOKUP3: {
		/* numcodecs' checksum filters: 4 little-endian bytes before the payload (crc32's
		 * and adler32's default, 'start') or after it */
		const char *name = tsr_checksum_name(step->id);
		if (n < 4)
			return tsr_error(TSR_E_CORRUPT, "%s: chunk of %zu bytes has no checksum", name, n);
		const unsigned char *pay = step->at_end ? in : in + 4;
		uint32_t want = tsr_le32(step->at_end ? in + n - 4 : in);
		uint32_t have = step->id == TSR_CODEC_CRC32	 ? libdeflate_crc32(0, pay, n - 4)
				: step->id == TSR_CODEC_ADLER32	 ? libdeflate_adler32(1, pay, n - 4)
				: step->id == TSR_CODEC_FLETCHER32 ? tsr_fletcher32(pay, n - 4)
								   : tsr_lookup3(pay, n - 4, step->initval);
		if (want != have)
			return tsr_error(TSR_E_CORRUPT, "%s mismatch: stored %08x, computed %08x", name,
					 want, have);
		*out = (void *)pay;
		*out_n = n - 4;
		return TSR_OK;
	}
	case TSR_CODEC_ZSTD: {
		unsigned long long size = ZSTD_getFrameContentSize(src, n);
		if (size == ZSTD_CONTENTSIZE_ERROR)
			return tsr_error(TSR_E_CORRUPT, "zstd: not a zstd frame");
		/* no content size: decode into the most the chunk allows */
		size_t room = size != ZSTD_CONTENTSIZE_UNKNOWN && size <= lim ? (size_t)size : lim;
		if (size != ZSTD_CONTENTSIZE_UNKNOWN && expect && size != expect)
			return tsr_error(TSR_E_CORRUPT, "zstd: frame holds %llu bytes, expected %zu", size,
					 expect);
		if (size != ZSTD_CONTENTSIZE_UNKNOWN && size > lim)
			return tsr_over_cap("zstd", size, lim);
		if (!s->zstd && !(s->zstd = ZSTD_createDCtx()))
			return tsr_error(TSR_E_NOMEM, "zstd: out of memory");
		if (!(dst = tsr_dst(s, slot, room, into, expect)))
			return tsr_error(TSR_E_NOMEM, "out of memory for %zu bytes", room);
		got = ZSTD_decompressDCtx(s->zstd, dst, room, src, n);
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
		if (size > lim)
			return tsr_over_cap("lz4", size, lim);
		if (size > (size_t)LZ4_MAX_INPUT_SIZE || n - 4 > (size_t)LZ4_MAX_INPUT_SIZE)
			return tsr_error(TSR_E_UNSUPPORTED, "lz4: block of %zu bytes", size);
		if (!(dst = tsr_dst(s, slot, size, into, expect)))
			return tsr_error(TSR_E_NOMEM, "out of memory for %zu bytes", size);
		int r = LZ4_decompress_safe((const char *)in + 4, dst, (int)(n - 4), (int)size);
		if (r < 0 || (size_t)r != size)
			return tsr_error(TSR_E_CORRUPT, "lz4: corrupt block");
		got = size;
		break;
	}
	case TSR_CODEC_BZ2: {
		/* bz2 keeps no decoded size: the stream decodes into the most the chunk allows */
		if (lim > UINT32_MAX || n > UINT32_MAX)
			return tsr_error(TSR_E_UNSUPPORTED, "bz2: chunk over 4 GiB");
		if (!(dst = tsr_dst(s, slot, lim, into, expect)))
			return tsr_error(TSR_E_NOMEM, "out of memory for %zu bytes", lim);
		unsigned int len = (unsigned int)lim;
		int r = BZ2_bzBuffToBuffDecompress(dst, &len, (char *)src, (unsigned int)n, 0, 0);
		if (r != BZ_OK)
			return tsr_error(TSR_E_CORRUPT, "bz2: %s", r != BZ_OUTBUFF_FULL
					 ? "corrupt or truncated stream" : expect
					 ? "decodes to more bytes than expected, or is cut short "
					   "(no end of stream after them)"
					 : "decodes to more bytes than this chunk's shape, dtype and "
					   "codecs allow, or is cut short (no end of stream after them)");
		got = len;
		break;
	}
	case TSR_CODEC_LZMA: {
		/* .xz and .lzma streams may hold no decoded size: decode into the most the chunk
		 * allows. The decoder's memory (its dictionary, as the stream's header sizes it) is
		 * capped: xz's largest preset needs 65 MiB. */
		if (!(dst = tsr_dst(s, slot, lim, into, expect)))
			return tsr_error(TSR_E_NOMEM, "out of memory for %zu bytes", lim);
		lzma_stream z = LZMA_STREAM_INIT;
		uint64_t mem = (uint64_t)TSR_LZMA_MEM + lim;
		lzma_ret r = step->lzma_format == 2   ? lzma_alone_decoder(&z, mem)
			     : step->lzma_format == 0 ? lzma_auto_decoder(&z, mem, LZMA_CONCATENATED)
						      : lzma_stream_decoder(&z, mem, LZMA_CONCATENATED);
		if (r != LZMA_OK)
			return tsr_error(TSR_E_NOMEM, "lzma: out of memory");
		z.next_in = src;
		z.avail_in = n;
		z.next_out = dst;
		z.avail_out = lim;
		r = lzma_code(&z, LZMA_FINISH);
		got = lim - z.avail_out;
		int over = 0;
		if (r == LZMA_OK && !z.avail_out) {
			/* the room is full: one more byte tells a longer stream from one whose end
			 * (its index and footer) is still to be read */
			unsigned char extra;
			z.next_out = &extra;
			z.avail_out = 1;
			r = lzma_code(&z, LZMA_FINISH);
			over = !z.avail_out;
		}
		lzma_end(&z);
		if (over)
			return tsr_error(TSR_E_CORRUPT, "lzma: decodes to more bytes than %s", expect
					 ? "expected" : "this chunk's shape, dtype and codecs allow");
		if (r == LZMA_MEMLIMIT_ERROR)
			return tsr_error(TSR_E_UNSUPPORTED, "lzma: the stream needs more than %llu bytes "
					 "of decoder memory", (unsigned long long)mem);
		if (r != LZMA_STREAM_END)
			return tsr_error(TSR_E_CORRUPT, "lzma: %s", r == LZMA_FORMAT_ERROR
					 ? "not an .xz or .lzma stream" : "corrupt or truncated stream");
		break;
	}
	case TSR_CODEC_GZIP:
	case TSR_CODEC_ZLIB:
	case TSR_CODEC_DEFLATE: {
		/* Unknown size: start near the input's and grow (on "more bytes than expected")
		 * up to the most the chunk allows. */
		size_t guess = n < (SIZE_MAX - 1024) / 8 ? n * 8 + 1024 : SIZE_MAX;
		size_t room = expect || guess > lim ? lim : guess;
		for (;;) {
			if (!(dst = tsr_dst(s, slot, room, into, expect)))
				return tsr_error(TSR_E_NOMEM, "out of memory for %zu bytes", room);
			st = tsr_inflate(&s->inflater, step->id, dst, room, src, n, &got);
			if (st == TSR_OK || expect || !strstr(tsr_errmsg(), "more bytes"))
				break;
			if (room == lim)
				return tsr_error(TSR_E_CORRUPT, "%s: decodes to more than the %zu bytes "
						 "this chunk's shape, dtype and codecs allow",
						 step->id == TSR_CODEC_GZIP ? "gzip" : step->id ==
						 TSR_CODEC_ZLIB ? "zlib" : "deflate", lim);
			room = room > lim / 4 ? lim : room * 4;
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
		/* the header's size also sizes the block buffers: it is checked before either */
		if ((uint64_t)info.nbytes > lim)
			return tsr_over_cap("blosc", (unsigned long long)info.nbytes, lim);
		if (!s->blosc && tsr_blosc_scratch_create((struct tsr_blosc_scratch **)&s->blosc))
			return tsr_error(TSR_E_NOMEM, "blosc: out of memory");
		if (!(dst = tsr_dst(s, slot, (size_t)info.nbytes, into, expect)))
			return tsr_error(TSR_E_NOMEM, "out of memory for %lld bytes",
					 (long long)info.nbytes);
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
