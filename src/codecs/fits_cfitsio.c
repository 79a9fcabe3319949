/* fits_cfitsio.c - HCOMPRESS_1 and PLIO_1 tiles through CFITSIO's decoders, guarded. */

/*
 * CFITSIO's tile decoders trust their input: fits_hdecompress reads the stream with no
 * length at all, and pl_l2pi reads as many words as the line list's header claims. They
 * also keep state in static variables (hcompress's bit reader; pl_l2pi's locals in the
 * f2c translation), so concurrent calls would corrupt each other in a non-reentrant build.
 *
 * Worse, a reentrant CFITSIO (Debian's 4.2.0) deadlocks on a bad HCOMPRESS stream:
 * fits_hdecompress holds its global Fitsio_Lock around decode(), and decode's error paths
 * (bad magic, bad bit-plane format code, missing end-of-planes code) call ffpmsg(), which
 * takes the same non-recursive lock again. So no stream that would fail may reach it.
 *
 * Hence, here:
 *   - HCOMPRESS: the header is checked against the tile, then hc_scan() walks the whole bit
 *     stream exactly as CFITSIO's decoder will (format codes, quadtree codes, end code, one
 *     sign bit per non-zero coefficient) without building values. It proves the stream
 *     decodes without an error path and gives its exact length, so a truncated stream is
 *     reported, also when only its sign bits are cut;
 *   - PLIO: the line-list header is checked against the words present;
 *   - the input is copied into a private buffer with zero padding (64 KiB beyond the
 *     checked length for HCOMPRESS, one word for PLIO), so the decoders stay inside our
 *     memory even where a check were too lenient;
 *   - each decoder runs under its own mutex.
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

/* ---- HCOMPRESS_1 stream scan ---- */

/* MSB-first bit reader over the bytes after the header; reads past the end give zeros and
 * are caught by comparing the final position with the length. */
struct hc_reader {
	const uint8_t *s;
	size_t nbytes;
	uint64_t pos; /* in bits */
};

static inline unsigned hc_peek(const struct hc_reader *r, unsigned n) /* 1 <= n <= 8 */
{
	uint64_t byte = r->pos >> 3;
	unsigned off = (unsigned)(r->pos & 7), w;
	if (byte + 1 < r->nbytes) {
		w = (unsigned)r->s[byte] << 8 | r->s[byte + 1];
	} else {
		w = byte < r->nbytes ? (unsigned)r->s[byte] << 8 : 0;
	}
	return (w >> (16 - off - n)) & ((1u << n) - 1);
}

static inline unsigned hc_bits(struct hc_reader *r, unsigned n)
{
	unsigned v = hc_peek(r, n);
	r->pos += n;
	return v;
}

/* CFITSIO's fixed Huffman code for the 16 quadtree nybble values (input_huffman):
 * 3 bits 000..011 -> 1, 2, 4, 8; 4 bits 1000..1100 -> 3, 5, 10, 12, 15;
 * 5 bits 11010..11110 -> 6, 7, 9, 11, 13; 6 bits 111110 -> 0, 111111 -> 14. */
static inline unsigned hc_huffman(struct hc_reader *r)
{
	static const uint8_t four[5] = {3, 5, 10, 12, 15};
	static const uint8_t five[5] = {6, 7, 9, 11, 13};
	unsigned p = hc_peek(r, 6);
	if (p < 32) {
		r->pos += 3;
		return 1u << (p >> 3);
	}
	if (p < 52) {
		r->pos += 4;
		return four[(p >> 2) - 8];
	}
	if (p < 62) {
		r->pos += 5;
		return five[(p >> 1) - 26];
	}
	r->pos += 6;
	return p == 62 ? 0 : 14;
}

/*
 * Walks one nqx x nqy quadrant's bit planes as qtree_decode reads them and returns through
 * *nonzero how many of its coefficients received any bit (each gets a sign bit later).
 * A plane ends as one nybble per 2x2 block (8 = top left, 4 = top right, 2 = bottom left,
 * 1 = bottom right); OR-ing them over the planes into acc[] and counting the bits of
 * pixels inside the quadrant gives the count. cur, prev, acc: scratch buffers of at least
 * ceil(nqx/2) * ceil(nqy/2) bytes. Returns 0, -1 on a bad format code, -2 if the level sizes
 * went astray (cannot happen; guards the scratch buffers).
 */
static int hc_scan_quadrant(struct hc_reader *r, int64_t nqx, int64_t nqy, int planes,
			    uint8_t *cur, uint8_t *prev, uint8_t *acc, uint64_t *nonzero)
{
	const int64_t a = (nqx + 1) / 2, b = (nqy + 1) / 2, nqmax = nqx > nqy ? nqx : nqy;
	const uint64_t limit = 8 * (uint64_t)r->nbytes;
	int log2n = 0;
	uint64_t count = 0;

	*nonzero = 0;
	if (planes == 0)
		return 0;
	/* qtree_decode's log2n: log2(max(nqx, nqy)) rounded up. */
	while (((int64_t)1 << log2n) < nqmax)
		log2n++;
	memset(acc, 0, (size_t)(a * b));
	for (int bit = planes - 1; bit >= 0; bit--) {
		unsigned code = hc_bits(r, 4);
		if (r->pos > limit)
			return 0; /* ran out: the caller reports the length */
		if (code == 0) {
			/* plane written directly, one nybble per 2x2 block */
			for (int64_t k = 0; k < a * b; k++)
				acc[k] |= (uint8_t)hc_bits(r, 4);
		} else if (code == 0xF) {
			/* quadtree: one code at the top, then each level doubles; a cell's 4
			 * bits say which of its 4 children are non-zero, and each of those
			 * reads a code, from the last cell to the first */
			int64_t nx = 1, ny = 1, nfx = nqx, nfy = nqy, c = (int64_t)1 << log2n;
			cur[0] = (uint8_t)hc_huffman(r);
			for (int k = 1; k < log2n; k++) {
				uint8_t *t = prev;
				prev = cur;
				cur = t;
				c >>= 1;
				nx <<= 1;
				ny <<= 1;
				if (nfx <= c)
					nx -= 1;
				else
					nfx -= c;
				if (nfy <= c)
					ny -= 1;
				else
					nfy -= c;
				/* each level halves (rounding up) into the one before it, ending
				 * at ceil(nqx/2) x ceil(nqy/2) */
				if (nx > a || ny > b)
					return -2;
				for (int64_t i = 0; i < nx; i++) {
					const uint8_t *pr = prev + (i / 2) * ((ny + 1) / 2);
					const unsigned sh = (i & 1) ? 1 : 3; /* even column's bit */
					uint8_t *cr = cur + i * ny;
					for (int64_t j = 0; j < ny; j++)
						cr[j] = (uint8_t)((pr[j >> 1] >> (sh - (unsigned)(j & 1))) & 1);
				}
				for (int64_t idx = nx * ny - 1; idx >= 0; idx--)
					if (cur[idx])
						cur[idx] = (uint8_t)hc_huffman(r);
				if (r->pos > limit)
					return 0;
			}
			for (int64_t k = 0; k < a * b; k++)
				acc[k] |= cur[k];
		} else {
			return -1;
		}
	}
	/* Count set bits of pixels inside the quadrant (edge blocks lose a row or column). */
	for (int64_t i = 0; i < a; i++) {
		unsigned rowmask = 2 * i + 1 < nqx ? 0xF : 0xC;
		for (int64_t j = 0; j < b; j++) {
			unsigned m = 2 * j + 1 < nqy ? rowmask : rowmask & 0xA;
			count += (uint64_t)__builtin_popcount(acc[i * b + j] & m);
		}
	}
	*nonzero = count;
	return 0;
}

/*
 * Checks that a rows x cols stream decodes without any of CFITSIO's error paths and
 * returns its length in bytes through *len. The bit planes start at byte 25 with an empty
 * bit buffer; after the end-of-planes nybble the decoder drops the rest of the byte and
 * reads one sign bit per non-zero coefficient from the next byte on.
 */
static int hc_scan(const uint8_t *s, size_t nbytes, const int64_t qdim[4][2],
		   const int qplanes[4], size_t *len)
{
	struct hc_reader r = {s + HC_HEADER, nbytes - HC_HEADER, 0};
	const uint64_t limit = 8 * (uint64_t)r.nbytes;
	/* quadrant 0 is the largest */
	const size_t blocks = (size_t)(((qdim[0][0] + 1) / 2) * ((qdim[0][1] + 1) / 2));
	uint8_t *scratch = malloc(3 * blocks + 3);
	uint64_t nsign = 0, plane_bytes;
	int rc = TSR_OK;

	if (!scratch)
		return tsr_error(TSR_E_NOMEM, "HCOMPRESS_1: out of memory");
	for (int q = 0; q < 4 && r.pos <= limit; q++) {
		uint64_t nz = 0;
		int qrc = hc_scan_quadrant(&r, qdim[q][0], qdim[q][1], qplanes[q], scratch,
					   scratch + blocks + 1, scratch + 2 * blocks + 2, &nz);
		if (qrc == -1) {
			rc = tsr_error(TSR_E_CORRUPT,
				       "HCOMPRESS_1: bad bit-plane format code in quadrant %d", q);
			goto out;
		}
		if (qrc < 0) {
			rc = tsr_error(TSR_E_INTERNAL, "HCOMPRESS_1: quadtree level sizes out of step");
			goto out;
		}
		nsign += nz;
	}
	if (r.pos <= limit) {
		unsigned end = hc_bits(&r, 4);
		if (r.pos <= limit && end != 0) {
			rc = tsr_error(TSR_E_CORRUPT,
				       "HCOMPRESS_1: bit planes not followed by the end code");
			goto out;
		}
	}
	plane_bytes = (r.pos + 7) / 8;
	if (r.pos > limit || plane_bytes + (nsign + 7) / 8 > r.nbytes) {
		uint64_t want = HC_HEADER + plane_bytes + (r.pos > limit ? 0 : (nsign + 7) / 8);
		rc = tsr_error(TSR_E_CORRUPT,
			       "HCOMPRESS_1: stream of %zu bytes is truncated (needs %s%llu)", nbytes,
			       r.pos > limit ? "more than " : "", (unsigned long long)want);
		goto out;
	}
	*len = HC_HEADER + (size_t)plane_bytes + (size_t)((nsign + 7) / 8);
out:
	free(scratch);
	return rc;
}

int tsr_hcompress_decode_cfitsio(int32_t *out, size_t npix, int64_t nx, int64_t ny,
				 const void *src, size_t src_nbytes, int smooth, int bytepix)
{
	const uint8_t *s = src;
	int64_t rows, cols, qdim[4][2];
	int planes[3], qplanes[4], hnx = 0, hny = 0, scale = 0, status = 0, maxplanes, rc;
	size_t len = 0, bufsize;
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

	/* Quadrants as dodecode splits the [rows][cols] array; plane counts 0, 1, 1, 2. */
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
		 * zero-sized scratch buffer (a heap overflow). Only tiles one pixel wide have
		 * empty quadrants, and HCOMPRESS is written with 2-D tiles. */
		if ((qdim[q][0] == 0 || qdim[q][1] == 0) && qplanes[q] > 0)
			return tsr_error(TSR_E_UNSUPPORTED,
					 "HCOMPRESS_1: %lldx%lld tile has an empty quadrant with %d bit "
					 "planes, which CFITSIO's decoder cannot handle",
					 (long long)nx, (long long)ny, qplanes[q]);
	}
	rc = hc_scan(s, src_nbytes, (const int64_t(*)[2])qdim, qplanes, &len);
	if (rc != TSR_OK)
		return rc;

	bufsize = len + HC_PAD;
	buf = calloc(bufsize, 1);
	if (!buf)
		return tsr_error(TSR_E_NOMEM, "HCOMPRESS_1: out of memory (%zu bytes)", bufsize);
	memcpy(buf, src, len);

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

/* ---- PLIO_1 ---- */

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
