/* inflate.c - DEFLATE, zlib and gzip streams through libdeflate. */
#include <libdeflate.h>

#include "codecs.h"


static const char *tsr_inflate_why(enum libdeflate_result r)
{
	switch (r) {
	case LIBDEFLATE_INSUFFICIENT_SPACE:
		/* (a stream cut short ends so too: libdeflate reads zeros past its end) */
		return "decodes to more bytes than expected, or is cut short";
	case LIBDEFLATE_SHORT_OUTPUT:
		return "decodes to fewer bytes than expected";
	default:
		return "bad or truncated data";
	}
}

static int tsr_all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

void tsr_inflate_free(void *state)
{
	libdeflate_free_decompressor(state);
}

int tsr_inflate(void **state, enum tsr_codec_id framing, void *dst, size_t dst_nbytes,
		const void *src, size_t src_nbytes, size_t *out_nbytes)
{
	const char *name = framing == TSR_CODEC_GZIP ? "gzip"
			   : framing == TSR_CODEC_ZLIB ? "zlib"
						       : "deflate";
	if (!*state)
		*state = libdeflate_alloc_decompressor();
	struct libdeflate_decompressor *tsr_dd = *state;
	if (!tsr_dd)
		return tsr_error(TSR_E_NOMEM, "%s: cannot allocate a decompressor", name);
	/* An empty source is no stream of any of the three framings; refused before any pointer
	 * arithmetic on it (a shard's empty inner chunk passes NULL: issue 21, D7). An empty
	 * destination may be NULL too: libdeflate gets a stand-in byte instead. */
	if (!src || !src_nbytes)
		return tsr_error(TSR_E_CORRUPT, "%s: empty stream (0 bytes)", name);
	unsigned char none;
	if (!dst)
		dst = &none, dst_nbytes = 0;
	const unsigned char *in = src;
	unsigned char *out = dst;
	size_t in_used = 0, out_done = 0;
	enum libdeflate_result r;
	switch (framing) {
	case TSR_CODEC_GZIP:
		/* gzip(1) allows several members back to back; zero padding after the last one
		 * is tolerated (FITS heaps and some writers leave it). */
		do {
			size_t in_n = 0, out_n = 0;
			r = libdeflate_gzip_decompress_ex(tsr_dd, in + in_used, src_nbytes - in_used,
							  out + out_done, dst_nbytes - out_done,
							  &in_n, &out_n);
			if (r != LIBDEFLATE_SUCCESS)
				return tsr_error(TSR_E_CORRUPT, "gzip: member at byte %zu: %s", in_used,
						 tsr_inflate_why(r));
			in_used += in_n;
			out_done += out_n;
		} while (in_used < src_nbytes && !tsr_all_zero(in + in_used, src_nbytes - in_used));
		break;
	case TSR_CODEC_ZLIB:
		r = libdeflate_zlib_decompress(tsr_dd, src, src_nbytes, dst, dst_nbytes, &out_done);
		break;
	default:
		r = libdeflate_deflate_decompress(tsr_dd, src, src_nbytes, dst, dst_nbytes, &out_done);
		break;
	}
	if (r != LIBDEFLATE_SUCCESS)
		return tsr_error(TSR_E_CORRUPT, "%s: %s", name, tsr_inflate_why(r));
	*out_nbytes = out_done;
	return TSR_OK;
}
