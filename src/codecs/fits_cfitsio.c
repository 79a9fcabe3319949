/* fits_cfitsio.c - HCOMPRESS_1 and PLIO_1 tiles through CFITSIO's decoders, guarded. */

/*
 * CFITSIO's tile decoders trust their input: fits_hdecompress reads the stream with no
 * length at all, and pl_l2pi reads as many words as the line list's header claims. They
 * also keep state in static variables (hcompress's bit reader; pl_l2pi's locals in the
 * f2c translation), so concurrent calls corrupt each other unless CFITSIO was built
 * reentrant - and even then its lock is private. Hence, here:
 *   - the headers are parsed and checked against the tile first (size, dimensions, bit
 *     plane counts, line-list length);
 *   - the input is copied into a private buffer long enough for the most a decoder can read
 *     for that header, plus 64 KiB, so a corrupt stream stays inside our memory;
 *   - each decoder runs under its own mutex.
 * HCOMPRESS streams are padded with 0xFF bytes: a stream cut short anywhere before the end
 * of its bit planes then makes the decoder read a non-zero end-of-planes nybble, which it
 * reports. A cut inside the trailing sign bits cannot be seen (the decoder does not say how
 * far it read), so such a tile decodes to wrong signs without error, as in CFITSIO.
 */
#include <fitsio.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "codecs.h"

/* CFITSIO's pliocomp.c; declared only in its private fitsio2.h. (fits_hdecompress and
 * fits_hdecompress64 are declared by fitsio.h, which lets the compiler check them.) */
int pl_l2pi(short *ll_src, int xs, int *px_dst, int npix);

_Static_assert(sizeof(int) == sizeof(int32_t), "CFITSIO's int tile buffers are int32");
_Static_assert(sizeof(short) == sizeof(int16_t), "PLIO line lists are 16-bit words");

#define HC_HEADER 25                 /* magic 2, nx 4, ny 4, scale 4, sumall 8, planes 3 */
#define HC_PAD (64 * 1024)
#define HC_MAX_PIX ((int64_t)1 << 28) /* CFITSIO indexes tiles with int */

static pthread_mutex_t hc_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t plio_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * The most bits qtree_decode can read for one nqx x nqy quadrant of `planes` bit planes:
 * per plane a 4-bit format code, then either the plane written directly (one nybble per 2x2
 * block) or quadtree codes of at most 6 bits, one per node of the levels down to the
 * ceil(nqx/2) x ceil(nqy/2) one (their sizes sum to below 4/3 of the last level's plus the
 * edges; 2ab + 2(a+b) + 64 bounds it).
 */
static uint64_t hc_quadrant_bits(int64_t nqx, int64_t nqy, int planes)
{
	uint64_t a = (uint64_t)(nqx + 1) / 2, b = (uint64_t)(nqy + 1) / 2;
	uint64_t nodes = 2 * a * b + 2 * (a + b) + 64;
	return (uint64_t)planes * (4 + 6 * nodes);
}

int tsr_hcompress_decode_cfitsio(int32_t *out, size_t npix, int64_t nx, int64_t ny,
				 const void *src, size_t src_nbytes, int smooth, int bytepix)
{
	const uint8_t *s = src;
	int64_t rows, cols, qdim[4][2];
	int planes[3], qplanes[4], hnx = 0, hny = 0, scale = 0, status = 0, maxplanes;
	uint64_t bits = 0;
	size_t need, bufsize;
	unsigned char *buf;

	if (bytepix != 1 && bytepix != 2 && bytepix != 4)
		return tsr_error(TSR_E_INVALID_ARG, "HCOMPRESS_1: %d-byte pixels (must be 1, 2 or 4)",
				 bytepix);
	if (nx < 1 || ny < 1 || nx > HC_MAX_PIX || ny > HC_MAX_PIX || nx * ny != (int64_t)npix)
		return tsr_error(TSR_E_INVALID_ARG,
				 "HCOMPRESS_1: tile %lldx%lld does not hold %zu pixels", (long long)nx,
				 (long long)ny, npix);
	if (nx * ny > HC_MAX_PIX)
		return tsr_error(TSR_E_UNSUPPORTED, "HCOMPRESS_1: tile of %zu pixels is too large",
				 npix);
	if (!out || !src)
		return tsr_error(TSR_E_INVALID_ARG, "HCOMPRESS_1: NULL buffer");
	if (src_nbytes < HC_HEADER)
		return tsr_error(TSR_E_CORRUPT, "HCOMPRESS_1: %zu bytes, shorter than the %d-byte header",
				 src_nbytes, HC_HEADER);
	if (s[0] != 0xDD || s[1] != 0x99)
		return tsr_error(TSR_E_CORRUPT, "HCOMPRESS_1: bad magic 0x%02X%02X (want 0xDD99)",
				 s[0], s[1]);

	/* The stream gives the slow dimension first: CFITSIO compresses a tile as
	 * fits_hcompress(data, tilenx, tileny), whose header holds tileny then tilenx; the
	 * decoders return the fast one through their 4th argument, the slow one the 5th. */
	rows = (int32_t)tsr_be32(s + 2);
	cols = (int32_t)tsr_be32(s + 6);
	if (rows != ny || cols != nx)
		return tsr_error(TSR_E_CORRUPT,
				 "HCOMPRESS_1: stream is %lldx%lld pixels, tile is %lldx%lld",
				 (long long)cols, (long long)rows, (long long)nx, (long long)ny);

	/* Quadrants as dodecode splits them: [rows][cols], plane counts 0, 1, 1, 2. */
	for (int q = 0; q < 3; q++)
		planes[q] = s[22 + q];
	qdim[0][0] = (rows + 1) / 2, qdim[0][1] = (cols + 1) / 2, qplanes[0] = planes[0];
	qdim[1][0] = (rows + 1) / 2, qdim[1][1] = cols / 2, qplanes[1] = planes[1];
	qdim[2][0] = rows / 2, qdim[2][1] = (cols + 1) / 2, qplanes[2] = planes[1];
	qdim[3][0] = rows / 2, qdim[3][1] = cols / 2, qplanes[3] = planes[2];
	/* The 32-bit decoder builds planes with 1 << bit in an int, the 64-bit one in long long. */
	maxplanes = bytepix == 4 ? 64 : 32;
	for (int q = 0; q < 4; q++) {
		if (qplanes[q] > maxplanes)
			return tsr_error(TSR_E_CORRUPT,
					 "HCOMPRESS_1: quadrant %d claims %d bit planes (at most %d)", q,
					 qplanes[q], maxplanes);
		/* An empty quadrant with bit planes makes qtree_decode expand codes into a
		 * zero-sized scratch buffer; CFITSIO never writes such tiles (its tiles are at
		 * least 4 pixels on a side) but a corrupt one must not reach it. */
		if ((qdim[q][0] == 0 || qdim[q][1] == 0) && qplanes[q] > 0)
			return tsr_error(TSR_E_UNSUPPORTED,
					 "HCOMPRESS_1: %lldx%lld tile has an empty quadrant with %d bit "
					 "planes, which CFITSIO's decoder cannot handle",
					 (long long)nx, (long long)ny, qplanes[q]);
		bits += hc_quadrant_bits(qdim[q][0], qdim[q][1], qplanes[q]);
	}
	bits += 4 + (uint64_t)npix; /* end-of-planes nybble, one sign bit per pixel at most */

	need = HC_HEADER + (size_t)(bits / 8) + 16;
	bufsize = (src_nbytes > need ? src_nbytes : need) + HC_PAD;
	buf = malloc(bufsize);
	if (!buf)
		return tsr_error(TSR_E_NOMEM, "HCOMPRESS_1: out of memory (%zu bytes)", bufsize);
	memcpy(buf, src, src_nbytes);
	memset(buf + src_nbytes, 0xFF, bufsize - src_nbytes);

	if (bytepix == 4) {
		/* As CFITSIO does for ZBITPIX 32 and quantized floats: decode through 64-bit
		 * integers; fits_hdecompress64 packs the result back into the first npix ints of
		 * its array before returning. */
		long long *wide = malloc(npix * sizeof(*wide));
		if (!wide) {
			free(buf);
			return tsr_error(TSR_E_NOMEM, "HCOMPRESS_1: out of memory (%zu pixels)", npix);
		}
		pthread_mutex_lock(&hc_lock);
		fits_hdecompress64(buf, smooth, wide, &hnx, &hny, &scale, &status);
		pthread_mutex_unlock(&hc_lock);
		if (status == 0)
			memcpy(out, wide, npix * sizeof(int32_t));
		free(wide);
	} else {
		pthread_mutex_lock(&hc_lock);
		fits_hdecompress(buf, smooth, out, &hnx, &hny, &scale, &status);
		pthread_mutex_unlock(&hc_lock);
	}
	free(buf);
	if (status != 0)
		return tsr_error(TSR_E_CORRUPT, "HCOMPRESS_1: CFITSIO's decoder failed (status %d)",
				 status);
	if (hny != rows || hnx != cols)
		return tsr_error(TSR_E_INTERNAL, "HCOMPRESS_1: decoder returned %dx%d, expected %lldx%lld",
				 hnx, hny, (long long)cols, (long long)rows);
	return TSR_OK;
}

int tsr_plio_decode_cfitsio(int32_t *out, size_t npix, const void *src, size_t src_nbytes)
{
	const uint8_t *s = src;
	size_t nwords = src_nbytes / 2;
	int64_t len, first;
	short *ll;
	int got;

	if (npix == 0)
		return TSR_OK;
	if (!out || (!src && src_nbytes))
		return tsr_error(TSR_E_INVALID_ARG, "PLIO_1: NULL buffer");
	if (npix > INT_MAX)
		return tsr_error(TSR_E_UNSUPPORTED, "PLIO_1: tile of %zu pixels is too large", npix);
	if (src_nbytes % 2)
		return tsr_error(TSR_E_CORRUPT, "PLIO_1: %zu bytes is not a whole number of 16-bit words",
				 src_nbytes);
	if (nwords < 3)
		return tsr_error(TSR_E_CORRUPT, "PLIO_1: %zu words, too few for a line-list header",
				 nwords);

	/*
	 * pl_l2pi's two header layouts (0-based words): old, w[2] > 0: the list is w[2] words
	 * long, instructions from word 3; new (what CFITSIO writes), w[2] <= 0: the length is
	 * (w[4] << 15) + w[3] and instructions start at word w[1]. It reads the words from the
	 * first instruction to length - 1, plus word `length` after a trailing set-value opcode.
	 */
	if ((int16_t)tsr_be16(s + 4) > 0) {
		len = (int16_t)tsr_be16(s + 4);
		first = 3;
	} else {
		if (nwords < 5)
			return tsr_error(TSR_E_CORRUPT,
					 "PLIO_1: %zu words, too few for a line-list header", nwords);
		len = (int64_t)(int16_t)tsr_be16(s + 8) * 32768 + (int16_t)tsr_be16(s + 6);
		first = (int16_t)tsr_be16(s + 2);
	}
	/* A non-positive length makes pl_l2pi return without writing the tile at all. */
	if (len <= 0 || (uint64_t)len > nwords)
		return tsr_error(TSR_E_CORRUPT, "PLIO_1: line list claims %lld words, tile has %zu",
				 (long long)len, nwords);
	if (first < 0)
		return tsr_error(TSR_E_CORRUPT, "PLIO_1: line list starts at word %lld",
				 (long long)first);

	/* Native-endian copy of the words, plus a zero word for the one-word look-ahead. */
	ll = malloc((nwords + 1) * sizeof(*ll));
	if (!ll)
		return tsr_error(TSR_E_NOMEM, "PLIO_1: out of memory (%zu words)", nwords);
	for (size_t i = 0; i < nwords; i++)
		ll[i] = (short)(int16_t)tsr_be16(s + 2 * i);
	ll[nwords] = 0;

	pthread_mutex_lock(&plio_lock);
	got = pl_l2pi(ll, 1, out, (int)npix);
	pthread_mutex_unlock(&plio_lock);
	free(ll);
	if (got != (int)npix)
		return tsr_error(TSR_E_CORRUPT, "PLIO_1: decoder produced %d of %zu pixels", got, npix);
	return TSR_OK;
}
