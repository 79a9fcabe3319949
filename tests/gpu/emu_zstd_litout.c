/* emu_zstd_litout.c - a block with no sequences whose place in the output phase a knows (every block before it raw, RLE or with no sequences) has its literals decoded by phase b straight there (tsr_zs_lits_out, zstd_core.h; phase c then copies nothing): streams of float frames, several frames, several blocks, a skippable frame first, frames with sequences before and after, capacity to the byte, and phase c by cells (which never takes it), each decoded as the launcher decodes and compared with libzstd, with the blocks taken in place counted against phase a's records. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "check.h"
#include "lz_profiles.h"
#include "zstd_host.h"

#define GUARD 64

/* Blocks of z[0..zn) that phase b should decode in place, from phase a's records: those with
 * no sequences while every block before them has its size in its headers (raw and RLE blocks,
 * compressed ones with no sequences), within the capacity. */
static unsigned long long expect_in_place(const uint8_t *z, size_t zn, size_t cap)
{
	struct tsr_zs_count c;
	if (tsr_zs_scan(z, zn, NULL, 0, NULL, 0, &c) != TSR_CUDA_ZSTD_OK || c.nblocks == 0)
		return 0;
	struct tsr_zs_frame *fr = check_malloc((c.nframes + 1) * sizeof *fr);
	struct tsr_zs_block *bl = check_malloc((c.nblocks + 1) * sizeof *bl);
	tsr_zs_scan(z, zn, fr, c.nframes, bl, c.nblocks, &c);
	unsigned long long n = 0;
	uint64_t before = 0; /* the output before block i, while known */
	for (uint32_t i = 0; i < c.nblocks; i++) {
		if (bl[i].type != 2) {
			before += bl[i].out_size;
			continue;
		}
		if (bl[i].nseq != 0)
			break;
		n += before + bl[i].nlit <= cap;
		before += bl[i].nlit;
	}
	free(fr);
	free(bl);
	return n;
}

static unsigned long long in_place_total, beyond_first, after_sized, streams;

/* Decodes z (a copy of exactly zn bytes) with capacity to the byte, warps or cells, and
 * checks libzstd's bytes, the guard, and the blocks taken in place. */
static void check_stream(const uint8_t *z, size_t zn, const uint8_t *want, size_t wn, int cells)
{
	uint8_t *in = check_malloc(zn), *out = check_malloc(wn + GUARD);
	memcpy(in, z, zn);
	memset(out, 0xA5, wn + GUARD);
	unsigned long long before = tsr_zs_host_lits_out;
	size_t got = 0;
	int st = cells ? tsr_zstd_host_decode_cells(in, zn, out, wn, &got)
		       : tsr_zstd_host_decode(in, zn, out, wn, &got);
	unsigned long long took = tsr_zs_host_lits_out - before;
	CHECK(st == TSR_CUDA_ZSTD_OK);
	CHECK(got == wn && memcmp(out, want, wn) == 0);
	int guard_ok = 1;
	for (size_t i = wn; i < wn + GUARD; i++)
		guard_ok &= out[i] == 0xA5;
	CHECK(guard_ok);
	unsigned long long want_took = cells ? 0 : expect_in_place(z, zn, wn);
	if (took != want_took)
		fprintf(stderr, "stream %llu (%s): %llu blocks in place, %llu expected\n", streams,
			cells ? "cells" : "warps", took, want_took);
	CHECK(took == want_took);
	in_place_total += took;
	beyond_first += took > 1 ? took - 1 : 0;
	streams++;
	free(in);
	free(out);
}

int main(void)
{
	const size_t each = 64 << 10, big = 300 << 10;
	uint8_t *src = check_malloc(3 * big), *z = check_malloc(4 * ZSTD_compressBound(3 * big));
	size_t cap = 4 * ZSTD_compressBound(3 * big);
	for (unsigned k = 0; k < 40; k++) {
		int profile = k % 4 == 3 ? LZP_PERIOD : LZP_FLOATS;
		/* one frame of one block; the same with a second frame behind it (its block is not
		 * the stream's first); one frame of three blocks; a skippable frame first */
		lzp_fill(profile, src, each, k + 1);
		lzp_fill(profile, src + each, each, k + 101);
		size_t n1 = ZSTD_compress(z, cap, src, each, 3);
		CHECK(!ZSTD_isError(n1));
		for (int cells = 0; cells < 2; cells++)
			check_stream(z, n1, src, each, cells);
		size_t n2 = ZSTD_compress(z + n1, cap - n1, src + each, each, 3);
		CHECK(!ZSTD_isError(n2));
		for (int cells = 0; cells < 2; cells++)
			check_stream(z, n1 + n2, src, 2 * each, cells);
		lzp_fill(profile, src, big, k + 201);
		size_t n3 = ZSTD_compress(z, cap, src, big, 1 + (int)(k % 5));
		CHECK(!ZSTD_isError(n3));
		for (int cells = 0; cells < 2; cells++)
			check_stream(z, n3, src, big, cells);
		static const uint8_t skip[12] = {0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 1, 2, 3, 4};
		memmove(z + sizeof skip, z, n3);
		memcpy(z, skip, sizeof skip);
		check_stream(z, n3 + sizeof skip, src, big, 0);
		/* a frame with sequences between two without: the blocks after it are not known */
		lzp_fill(LZP_FLOATS, src, big, k + 301);
		lzp_fill(LZP_TEXT, src + big, each, k + 302);
		lzp_fill(LZP_FLOATS, src + big + each, big, k + 303);
		size_t m1 = ZSTD_compress(z, cap, src, big, 3);
		size_t m2 = ZSTD_compress(z + m1, cap - m1, src + big, each, 3);
		size_t m3 = ZSTD_compress(z + m1 + m2, cap - m1 - m2, src + big + each, big, 3);
		CHECK(!ZSTD_isError(m1) && !ZSTD_isError(m2) && !ZSTD_isError(m3));
		for (int cells = 0; cells < 2; cells++)
			check_stream(z, m1 + m2 + m3, src, 2 * big + each, cells);
		/* a raw block (random bytes) and an RLE one (zeros) before float blocks, one frame */
		const size_t blk = 128 << 10;
		lzp_fill(LZP_RANDOM, src, blk, k + 401);
		memset(src + blk, 0, blk);
		lzp_fill(LZP_FLOATS, src + 2 * blk, 2 * blk, k + 402);
		size_t r1 = ZSTD_compress(z, cap, src, 4 * blk, 3);
		CHECK(!ZSTD_isError(r1));
		unsigned long long before = in_place_total;
		check_stream(z, r1, src, 4 * blk, 0);
		after_sized += in_place_total - before;
	}
	printf("%llu streams, %llu blocks decoded in place (%llu of them not a stream's first, %llu "
	       "after raw and RLE blocks)\n",
	       streams, in_place_total, beyond_first, after_sized);
	/* (float frames' blocks are literals only, but for a few with sequences; blocks other than
	 * a stream's first among them) */
	CHECK(in_place_total >= streams / 4 && beyond_first > 100 && after_sized > 40);
	free(src);
	free(z);
	CHECK_DONE();
}
