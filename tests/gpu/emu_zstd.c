/* emu_zstd.c - the GPU zstd decoder's code (zstd_core.h, zstd_exec_core.h), its three phases run on the CPU, against libzstd on frames libzstd made (levels -5..19, every frame option, many block kinds) and on corrupt ones; phase c by cells too (zstd_cells_core.h), to the same statuses and bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define ZSTD_STATIC_LINKING_ONLY /* experimental parameters only (ZSTD_c_literalCompressionMode) */
#include <zstd.h>

#include "check.h"
#include "lz_profiles.h"
#include "zstd_host.h"

/*
 * Every lz_profiles.h profile at sizes 0 to 3 MiB, compressed by libzstd at levels -5..19
 * with the frame options Zarr writers use and a few that force many blocks (small windows),
 * raw literals, long-distance matching, no content size (streaming), checksums; frames
 * concatenated with skippable frames between them; a frame that names a dictionary. Each is
 * decoded exactly as the launcher decodes (phase a, every block, layout, frames) into a buffer
 * with a guard, and must be libzstd's bytes. Then truncated and damaged frames: the decoder
 * fails or gives libzstd's bytes, never writes past the capacity (guard), and under ASan never
 * reads outside the input (inputs are exactly their size). The block, literal and sequence
 * modes the frames used are counted from phase a's records, and every one must occur.
 */

#define GUARD 64

/* modes seen: block types, literal types, 4-stream literals, and per table (LL, OF, ML) the
 * sequence compression modes (predefined, RLE, FSE, repeat) */
static long seen_block[3], seen_lit[4], seen_4streams, seen_mode[3][4], seen_frames;

static void count_modes(const uint8_t *z, size_t zn)
{
	struct tsr_zs_count c;
	if (tsr_zs_scan(z, zn, NULL, 0, NULL, 0, &c) != TSR_CUDA_ZSTD_OK)
		return;
	struct tsr_zs_frame *fr = check_malloc((c.nframes + 1) * sizeof *fr);
	struct tsr_zs_block *bl = check_malloc((c.nblocks + 1) * sizeof *bl);
	tsr_zs_scan(z, zn, fr, c.nframes, bl, c.nblocks, &c);
	seen_frames += c.nframes;
	for (uint32_t i = 0; i < c.nblocks; i++) {
		seen_block[bl[i].type]++;
		if (bl[i].type != 2)
			continue;
		seen_lit[bl[i].lit_type]++;
		seen_4streams += bl[i].lit_streams == 4;
		const uint8_t *p = z + bl[i].in_at + bl[i].lit_hdr + bl[i].lit_csize;
		uint32_t nseq;
		int modes;
		unsigned h;
		if (tsr_zs_seq_header(p, bl[i].in_size - bl[i].lit_hdr - bl[i].lit_csize, &nseq, &modes,
				      &h) == 0 && modes >= 0)
			for (int k = 0; k < 3; k++)
				seen_mode[k][modes >> (6 - 2 * k) & 3]++;
	}
	free(fr);
	free(bl);
}

static long ndecoded, ncorrupt_refused, ncorrupt_same;

/* Decodes z[0..zn) (a copy of exactly zn bytes) with capacity cap; compares with libzstd.
 * must_ok: libzstd made it, so both must decode it to want[0..wn). */
static void check_one(const uint8_t *z, size_t zn, size_t cap, const uint8_t *want, size_t wn,
		      int must_ok, const char *what)
{
	uint8_t *in = check_malloc(zn);
	memcpy(in, z, zn);
	uint8_t *out = check_malloc(cap + GUARD), *ref = check_malloc(cap + 1);
	memset(out, 0xA5, cap + GUARD);
	size_t got = 0, cgot = 0;
	int st = tsr_zstd_host_decode(in, zn, out, cap, &got);
	size_t r = ZSTD_decompress(ref, cap, in, zn);
	/* phase c by cells (blocks in parallel): the same status and bytes */
	uint8_t *cout = check_malloc(cap + GUARD);
	memset(cout, 0xA5, cap + GUARD);
	int cst = tsr_zstd_host_decode_cells(in, zn, cout, cap, &cgot);
	if (cst != st || cgot != got || memcmp(cout, out, got) ||
	    memcmp(cout + cap, out + cap, GUARD)) {
		fprintf(stderr, "%s: by cells status %d, %zu bytes; by frames %d, %zu bytes\n", what,
			cst, cgot, st, got);
		check_failures++;
	}
	free(cout);
	for (size_t i = cap; i < cap + GUARD; i++)
		if (out[i] != 0xA5) {
			fprintf(stderr, "%s: write past the capacity\n", what);
			check_failures++;
			break;
		}
	if (must_ok) {
		if (st != TSR_CUDA_ZSTD_OK || got != wn || memcmp(out, want, wn)) {
			fprintf(stderr, "%s: status %d, %zu bytes, expected %zu\n", what, st, got, wn);
			check_failures++;
		}
		CHECK(!ZSTD_isError(r) && r == wn);
		ndecoded++;
	} else if (st == TSR_CUDA_ZSTD_OK) {
		/* accepted damage must be something libzstd accepts too, to the same bytes */
		if (ZSTD_isError(r) || r != got || memcmp(out, ref, got)) {
			fprintf(stderr, "%s: decoder accepts (%zu bytes) what libzstd %s\n", what, got,
				ZSTD_isError(r) ? ZSTD_getErrorName(r) : "decodes otherwise");
			check_failures++;
		}
		ncorrupt_same++;
	} else {
		CHECK(got == 0);
		ncorrupt_refused++;
	}
	free(in);
	free(out);
	free(ref);
}

/* Compresses src with the given parameters; streaming (no content size) when stream != 0. */
static size_t compress(ZSTD_CCtx *cc, uint8_t *dst, size_t cap, const uint8_t *src, size_t n,
		       int level, int checksum, int wlog, int ldm, int rawlit, int stream)
{
	ZSTD_CCtx_reset(cc, ZSTD_reset_session_and_parameters);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, level);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, checksum);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, !stream);
	if (wlog)
		ZSTD_CCtx_setParameter(cc, ZSTD_c_windowLog, wlog);
	if (ldm)
		ZSTD_CCtx_setParameter(cc, ZSTD_c_enableLongDistanceMatching, 1);
	if (rawlit)
		ZSTD_CCtx_setParameter(cc, ZSTD_c_literalCompressionMode, rawlit);
	if (!stream) {
		size_t r = ZSTD_compress2(cc, dst, cap, src, n);
		if (ZSTD_isError(r)) {
			fprintf(stderr, "ZSTD_compress2: %s\n", ZSTD_getErrorName(r));
			exit(2);
		}
		return r;
	}
	ZSTD_outBuffer ob = {dst, cap, 0};
	ZSTD_inBuffer ib = {src, 0, 0};
	/* fed in pieces, so the frame has no content size */
	for (size_t at = 0;; ) {
		size_t piece = n - at < 70000 ? n - at : 70000;
		ib.src = src + at;
		ib.size = piece;
		ib.pos = 0;
		at += piece;
		size_t r;
		do
			r = ZSTD_compressStream2(cc, &ob, &ib, at == n ? ZSTD_e_end : ZSTD_e_continue);
		while (!ZSTD_isError(r) && (at == n ? r != 0 : ib.pos < ib.size));
		if (ZSTD_isError(r)) {
			fprintf(stderr, "ZSTD_compressStream2: %s\n", ZSTD_getErrorName(r));
			exit(2);
		}
		if (at == n)
			break;
	}
	return ob.pos;
}

static uint64_t seed = 0x1234567;

/* Damages z in several ways (truncations, bit flips, byte changes) and checks each. */
static void corrupt(const uint8_t *z, size_t zn, const uint8_t *src, size_t n, const char *what)
{
	uint8_t *d = check_malloc(zn);
	size_t cap = n + 16;
	for (int t = 0; t < 6 && zn > 1; t++) {
		size_t cut = (size_t)(lzp_rand(&seed) % zn);
		check_one(z, cut, cap, NULL, 0, 0, what);
	}
	for (int t = 0; t < 12 && zn > 0; t++) {
		memcpy(d, z, zn);
		int flips = 1 + (int)(lzp_rand(&seed) % 3);
		for (int k = 0; k < flips; k++) {
			/* bias to headers: the first 64 bytes */
			size_t at = (size_t)(lzp_rand(&seed) % (t & 1 && zn > 64 ? 64 : zn));
			if (t % 3 == 2)
				d[at] = (uint8_t)lzp_rand(&seed);
			else
				d[at] ^= (uint8_t)(1u << (lzp_rand(&seed) % 8));
		}
		check_one(d, zn, cap, NULL, 0, 0, what);
	}
	/* too small an output */
	if (n > 0)
		check_one(z, zn, n - 1, NULL, 0, 0, what);
	(void)src;
	free(d);
}

int main(void)
{
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	static const size_t sizes[] = {0, 1, 7, 100, 1000, 4096, 65536, 131072, 131073, 300000,
				       1u << 20, 3u << 20};
	const size_t nsizes = sizeof sizes / sizeof sizes[0];
	size_t maxn = 3u << 20;
	uint8_t *src = check_malloc(maxn), *z = check_malloc(ZSTD_compressBound(maxn) + 64);
	char what[160];
	int combo = 0;
	for (int p = 0; p < LZP_N; p++)
		for (size_t si = 0; si < nsizes; si++) {
			size_t n = sizes[si];
			lzp_fill(p, src, n, (uint64_t)((p * 31 + si) % 64 + 1)); /* (a period <= 64) */
			/* levels: all of -5..19 over the sizes up to 128 KiB; the large ones take a
			 * few levels each (the high levels are slow under ASan) */
			for (int level = -5; level <= 19; level++) {
				if (level == 0)
					continue;
				int big = n > 131073;
				if (big && !(level == 1 || level == 3 || level == -3 ||
					     (level == 9 && n <= (1u << 20)) ||
					     (level == 19 && n <= 300000)))
					continue;
				combo++;
				int checksum = combo % 2, stream = combo % 3 == 1;
				int wlog = combo % 7 == 3 ? 10 + (int)(combo % 5) : 0;
				int ldm = big && combo % 4 == 0;
				int rawlit = combo % 11 == 5 ? ZSTD_ps_disable : 0;
				size_t zn = compress(cc, z, ZSTD_compressBound(n) + 64, src, n, level,
						     checksum, wlog, ldm, rawlit, stream);
				snprintf(what, sizeof what,
					 "%s n=%zu level=%d checksum=%d stream=%d wlog=%d ldm=%d raw=%d",
					 lzp_name[p], n, level, checksum, stream, wlog, ldm, rawlit);
				count_modes(z, zn);
				check_one(z, zn, n, src, n, 1, what);
				if (n <= 300000 && combo % 3 == 0)
					corrupt(z, zn, src, n, what);
			}
		}

	/* frames concatenated, with skippable frames between and after them: one output */
	{
		size_t n1 = 200000, n2 = 5000, n3 = 70000;
		uint8_t *s = check_malloc(n1 + n2 + n3);
		lzp_fill(LZP_TEXT, s, n1, 1);
		lzp_fill(LZP_FLOATS, s + n1, n2, 2);
		lzp_fill(LZP_PERIOD, s + n1 + n2, n3, 7);
		size_t cap = ZSTD_compressBound(n1 + n2 + n3) + 200;
		uint8_t *c = check_malloc(cap);
		size_t at = compress(cc, c, cap, s, n1, 3, 1, 0, 0, 0, 0);
		static const uint8_t skip[] = {0x53, 0x2a, 0x4d, 0x18, 5, 0, 0, 0, 1, 2, 3, 4, 5};
		memcpy(c + at, skip, sizeof skip);
		at += sizeof skip;
		at += compress(cc, c + at, cap - at, s + n1, n2, 19, 0, 0, 0, 1, 0);
		at += compress(cc, c + at, cap - at, s + n1 + n2, n3, -2, 1, 0, 0, 0, 1);
		static const uint8_t skip0[] = {0x50, 0x2a, 0x4d, 0x18, 0, 0, 0, 0};
		memcpy(c + at, skip0, sizeof skip0);
		at += sizeof skip0;
		count_modes(c, at);
		check_one(c, at, n1 + n2 + n3, s, n1 + n2 + n3, 1, "three frames and skippables");
		corrupt(c, at, s, n1 + n2 + n3, "three frames");
		/* a skippable frame alone decodes to nothing */
		check_one(skip, sizeof skip, 16, s, 0, 1, "skippable frame alone");
		/* a skippable frame that claims more bytes than there are */
		static const uint8_t skipbad[] = {0x50, 0x2a, 0x4d, 0x18, 9, 0, 0, 0, 1};
		size_t got;
		uint8_t o[16];
		CHECK_EQ_INT(tsr_zstd_host_decode(skipbad, sizeof skipbad, o, 16, &got),
			     TSR_CUDA_ZSTD_E_TRUNCATED);
		free(s);
		free(c);
	}

	/* dictionaries: a frame naming dictionary 7 is refused with its own status; the same
	 * frame with a dictionary ID field of 0 decodes (libzstd: no dictionary) */
	{
		uint8_t f[] = {0x28, 0xb5, 0x2f, 0xfd, 0x21, 7, 3, 0x19, 0, 0, 'a', 'b', 'c'};
		uint8_t o[8];
		size_t got = 9;
		CHECK_EQ_INT(tsr_zstd_host_decode(f, sizeof f, o, sizeof o, &got),
			     TSR_CUDA_ZSTD_E_DICTIONARY);
		CHECK(got == 0);
		CHECK(ZSTD_isError(ZSTD_decompress(o, sizeof o, f, sizeof f)));
		f[5] = 0;
		check_one(f, sizeof f, 8, (const uint8_t *)"abc", 3, 1, "dictionary ID 0");
		/* a legacy (v0.7) magic and a reserved header bit */
		uint8_t g[sizeof f];
		memcpy(g, f, sizeof f);
		g[0] = 0x27;
		CHECK_EQ_INT(tsr_zstd_host_decode(g, sizeof g, o, sizeof o, &got), TSR_CUDA_ZSTD_E_MAGIC);
		memcpy(g, f, sizeof f);
		g[4] |= 8;
		CHECK_EQ_INT(tsr_zstd_host_decode(g, sizeof g, o, sizeof o, &got), TSR_CUDA_ZSTD_E_HEADER);
		CHECK_EQ_INT(tsr_zstd_host_decode(f, 0, o, sizeof o, &got), TSR_CUDA_ZSTD_E_TRUNCATED);
	}

	printf("decoded %ld frames' streams; corrupt: %ld refused, %ld accepted as libzstd does\n",
	       ndecoded, ncorrupt_refused, ncorrupt_same);
	printf("by cells, the same statuses and bytes: %llu bytes from earlier blocks' positions, "
	       "chains of up to %llu hops\n", tsr_zs_host_pointers, tsr_zs_host_max_hops);
	printf("blocks raw/rle/compressed %ld/%ld/%ld; literals raw/rle/huffman/treeless "
	       "%ld/%ld/%ld/%ld (4 streams %ld)\n", seen_block[0], seen_block[1], seen_block[2],
	       seen_lit[0], seen_lit[1], seen_lit[2], seen_lit[3], seen_4streams);
	for (int k = 0; k < 3; k++)
		printf("%s modes predefined/rle/fse/repeat %ld/%ld/%ld/%ld\n",
		       k == 0 ? "LL" : k == 1 ? "OF" : "ML", seen_mode[k][0], seen_mode[k][1],
		       seen_mode[k][2], seen_mode[k][3]);
	for (int k = 0; k < 3; k++)
		CHECK(seen_block[k] > 0);
	for (int k = 0; k < 4; k++)
		CHECK(seen_lit[k] > 0);
	CHECK(seen_4streams > 0);
	for (int k = 0; k < 3; k++)
		for (int m = 0; m < 4; m++)
			if (seen_mode[k][m] == 0) {
				fprintf(stderr, "table %d mode %d never used\n", k, m);
				check_failures++;
			}
	CHECK(ncorrupt_refused > 100);
	/* the cells' cross-block pointers and chains of them were exercised */
	CHECK(tsr_zs_host_pointers > 1000 && tsr_zs_host_max_hops > 1);
	ZSTD_freeCCtx(cc);
	free(src);
	free(z);
	CHECK_DONE();
}
