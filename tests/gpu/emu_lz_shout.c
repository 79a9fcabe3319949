/* emu_lz_shout.c - the few-streams LZ kernels' decode through a group's buffer (TSR_LZ_SHOUT_RUN, lz_core.h), run on the CPU: LZ4 and BloscLZ streams, valid and damaged, against each decoded straight into its output, byte for byte. */
#define TSR_LZ_EMU 1
#define TSR_LZ_WIDE 1 /* (as the few-streams kernels) */
#define TSR_LZ_SHOUT 4096u
#include "blosclz_core.h"
#include "lz4_core.h"

#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "lz_blosclz_writer.h"
#include "lz_profiles.h"

/*
 * A stream whose capacity fits the buffer (here 4 KiB; the kernels' 32 KiB) is decoded there
 * and copied to its output, and one that fails there is decoded again into its output. So the
 * way through the buffer must give what the stream decoded straight into its output gives:
 * its status, its size, and every byte of a poisoned output and the guard after it (a failing
 * stream's bytes too: the GPU test compares them with this code's). Streams of sizes around
 * the buffer's, capacities below, at and above it, outputs at 16 alignments (the copy's
 * 16-byte path and its byte path), and truncated and damaged copies.
 */

static struct tsr_lz_smem smem;
#define GUARD 64
#define ALIGNS 16

static size_t runs, through_buffer, again, not_fitting, failing;

/* One decode (fam 0: LZ4 raw, 1: LZ4 with numcodecs' size, 2: BloscLZ) into o. */
#define DEC_ONE(o)                                                                           \
	(fam == 2 ? tsr_blosclz_stream(&smem, z, zn, (o), cap, &got)                         \
		  : tsr_lz4_stream(&smem, z, zn, (o), cap, fam, &got))

/* The stream z (zn bytes) of capacity cap both ways, at every output alignment. */
static void both(int fam, const unsigned char *z, size_t zn, size_t cap, const char *what)
{
	unsigned char *a = (unsigned char *)check_malloc(cap + GUARD + ALIGNS);
	unsigned char *b = (unsigned char *)check_malloc(cap + GUARD + ALIGNS);
	for (unsigned al = 0; al < ALIGNS; al++) {
		uint64_t got = 0, got_b;
		int st, st_b;
		memset(a, 0xa5, cap + GUARD + ALIGNS);
		memset(b, 0xa5, cap + GUARD + ALIGNS);
		st_b = DEC_ONE(b + al);
		got_b = got;
		got = 0;
		memset(tsr_lz_shout_emu, 0x5a, TSR_LZ_SHOUT); /* (no stream's bytes kept there) */
		TSR_LZ_SHOUT_RUN(st, got, cap, TSR_LZ_SHOUT, a + al, DEC_ONE);
		runs++;
		if (cap > TSR_LZ_SHOUT)
			not_fitting++;
		else if (st == TSR_CUDA_LZ_OK)
			through_buffer++;
		else
			again++;
		failing += st != TSR_CUDA_LZ_OK;
		if (st != st_b || got != got_b || memcmp(a, b, cap + GUARD + ALIGNS)) {
			if (check_failures++ < 10)
				fprintf(stderr, "FAIL %s (fam %d, %zu bytes in, cap %zu, align %u): "
					"buffer status %d, %llu bytes; straight %d, %llu bytes\n",
					what, fam, zn, cap, al, st, (unsigned long long)got, st_b,
					(unsigned long long)got_b);
		}
	}
	free(a), free(b);
}

/* The stream, truncated and damaged copies of it, at capacities around its size. */
static void all(int fam, const unsigned char *z, size_t zn, size_t n, uint64_t seed,
		const char *what)
{
	const size_t caps[] = {n, n + 1, n + 17, TSR_LZ_SHOUT, TSR_LZ_SHOUT + 1};
	for (size_t c = 0; c < sizeof caps / sizeof *caps; c++)
		if (caps[c] >= n || c >= 3)
			both(fam, z, zn, caps[c], what);
	unsigned char *bad = (unsigned char *)check_malloc(zn + 1);
	uint64_t s = seed | 1;
	for (int t = 0; t < 6 && zn; t++) {
		size_t bn = zn;
		memcpy(bad, z, zn);
		if (t < 2) {
			bn = (size_t)(lzp_rand(&s) % zn); /* truncated */
		} else {
			for (int k = 0; k < 1 + t % 3; k++)
				bad[lzp_rand(&s) % zn] ^= (unsigned char)(1u << (lzp_rand(&s) % 8));
		}
		both(fam, bad, bn, n, what);
	}
	free(bad);
}

int main(void)
{
	static const size_t sizes[] = {1, 100, 2000, 4095, 4096, 4097, 6000};
	const size_t maxn = 6000;
	unsigned char *src = (unsigned char *)check_malloc(maxn);
	unsigned char *z = (unsigned char *)check_malloc((size_t)LZ4_compressBound((int)maxn) + 4);
	unsigned char *zb = (unsigned char *)check_malloc(maxn + maxn / 32 + 16);
	char what[64];
	for (int p = 0; p < LZP_N; p++)
		for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
			size_t n = sizes[si];
			lzp_fill(p, src, n, p == LZP_PERIOD ? 5 : si);
			snprintf(what, sizeof what, "%s, %zu bytes", lzp_name[p], n);
			int zn = LZ4_compress_default((const char *)src, (char *)z + 4, (int)n,
						      LZ4_compressBound((int)n));
			CHECK(zn > 0);
			all(0, z + 4, (size_t)zn, n, n * 7 + (size_t)p, what);
			z[0] = (unsigned char)n, z[1] = (unsigned char)(n >> 8), z[2] = 0, z[3] = 0;
			all(1, z, (size_t)zn + 4, n, n * 11 + (size_t)p, what);
			size_t bn = lzw_blosclz(src, n, zb);
			all(2, zb, bn, n, n * 13 + (size_t)p, what);
		}
	free(src), free(z), free(zb);
	printf("lz shout emulator: %zu decodes alike both ways: %zu through the buffer, %zu failed "
	       "there and decoded again, %zu not fitting it; %zu failing\n",
	       runs, through_buffer, again, not_fitting, failing);
	CHECK(through_buffer > 1000 && again > 100 && not_fitting > 100);
	CHECK_DONE();
}
