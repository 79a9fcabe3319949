/* emu_lz4.c - the GPU LZ4 kernel's decoding code (lz4_core.h), run on the CPU as a one-lane warp, against liblz4 on blocks liblz4 made (fast and HC levels) and on corrupt ones. */
#define TSR_LZ_EMU 1
#include "lz4_core.h"

#include <lz4.h>
#include <lz4hc.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "lz4_walk.h"
#include "lz_profiles.h"

/*
 * The same source the kernel runs, built as C with a warp of one lane (CI has no GPU): every
 * profile at many sizes, compressed by LZ4_compress_fast (accelerations 1 and 8) and
 * LZ4_compress_HC (levels 1, 4, 9, 12), decoded at every input misalignment into a poisoned
 * buffer with a guard; numcodecs' size-prefixed variant; then truncated and damaged blocks:
 * whatever liblz4 accepts decodes to its bytes, the rest fails; the guard is never touched
 * (and, under ASan, no byte outside the input is read: inputs are exactly their size).
 */

static struct tsr_lz_smem smem;
#define GUARD 64

/* Decodes z (copied to exactly zn bytes at a misalignment) into a poisoned buffer. */
static int emu(const unsigned char *z, size_t zn, unsigned mis, unsigned char *out, size_t cap,
	       int variant, uint64_t *got, int *guard_ok)
{
	unsigned char *mem = (unsigned char *)check_malloc(zn + mis);
	memcpy(mem + mis, z, zn);
	memset(out, 0xa5, cap + GUARD);
	int st = tsr_lz4_stream(&smem, mem + mis, zn, out, cap, variant, got);
	*guard_ok = 1;
	for (size_t i = cap; i < cap + GUARD; i++)
		*guard_ok &= out[i] == 0xa5;
	free(mem);
	return st;
}

static size_t blocks_ok, bytes_ok, corrupt_runs, corrupt_refused, lenient, zero_distance;

/* Damaged copies of a good block: truncated, bytes changed, all judged against liblz4. */
static void corrupt(const unsigned char *z, size_t zn, size_t size, uint64_t seed)
{
	unsigned char *bad = (unsigned char *)check_malloc(zn + 1);
	unsigned char *out = (unsigned char *)check_malloc(size + GUARD + 16);
	unsigned char *ref = (unsigned char *)check_malloc(size + 16);
	uint64_t s = seed | 1;
	for (int t = 0; t < 24; t++) {
		size_t bn = zn;
		memcpy(bad, z, zn);
		if (t < 8) {
			bn = zn ? (size_t)(lzp_rand(&s) % zn) : 0; /* truncated */
		} else {
			int flips = 1 + (int)(lzp_rand(&s) % 3);
			for (int k = 0; k < flips && zn; k++)
				bad[lzp_rand(&s) % zn] ^= (unsigned char)(1u << (lzp_rand(&s) % 8));
		}
		for (size_t cap = size; cap <= size + 16; cap += 16) {
			uint64_t got;
			int guard_ok;
			int st = emu(bad, bn, (unsigned)(t % 4), out, cap, TSR_CUDA_LZ4_RAW, &got, &guard_ok);
			int r = LZ4_decompress_safe((const char *)bad, (char *)ref, (int)bn, (int)cap);
			corrupt_runs++;
			CHECK(guard_ok);
			CHECK(got <= cap);
			if (r >= 0 && st == TSR_CUDA_LZ_E_DISTANCE &&
			    lz4_zero_distance_at(bad, bn) == (long long)got) {
				zero_distance++;
			} else if (r >= 0) {
				/* liblz4 accepts it: the same bytes */
				if (st != TSR_CUDA_LZ_OK || got != (uint64_t)r || memcmp(out, ref, (size_t)r)) {
					fprintf(stderr, "corrupt block (try %d, %zu bytes, cap %zu): liblz4 "
						"%d bytes, emulator status %d (%s), %llu bytes\n", t, bn, cap,
						r, st, tsr_lz_status_text(st), (unsigned long long)got);
					check_failures++;
				}
			} else if (st == TSR_CUDA_LZ_OK) {
				lenient++; /* breaks only LZ4's end-of-block parsing rules */
			} else {
				corrupt_refused++;
			}
		}
	}
	free(bad), free(out), free(ref);
}

static void one(const unsigned char *src, size_t n, const char *what, int level, int hc, int do_corrupt)
{
	int bound = LZ4_compressBound((int)n);
	unsigned char *z = (unsigned char *)check_malloc((size_t)bound + 4);
	int zn = hc ? LZ4_compress_HC((const char *)src, (char *)z + 4, (int)n, bound, level)
		    : LZ4_compress_fast((const char *)src, (char *)z + 4, (int)n, bound, level);
	if (zn <= 0 && n > 0) {
		fprintf(stderr, "%s: liblz4 did not compress\n", what);
		check_failures++;
		free(z);
		return;
	}
	unsigned char *out = (unsigned char *)check_malloc(n + GUARD + 64);
	for (unsigned mis = 0; mis < 4; mis++) {
		uint64_t got;
		int guard_ok;
		/* exact capacity, and room to spare */
		size_t cap = mis & 1 ? n + 64 : n;
		int st = emu(z + 4, (size_t)zn, mis, out, cap, TSR_CUDA_LZ4_RAW, &got, &guard_ok);
		if (st != TSR_CUDA_LZ_OK || got != n || memcmp(out, src, n) || !guard_ok) {
			fprintf(stderr, "FAIL %s %s level %d, %zu bytes, misalignment %u: status %d (%s), "
				"%llu bytes, guard %s\n", what, hc ? "HC" : "fast", level, n, mis, st,
				tsr_lz_status_text(st), (unsigned long long)got,
				guard_ok ? "ok" : "hit");
			check_failures++;
		}
	}
	/* numcodecs' LZ4: the size, then the block */
	z[0] = (unsigned char)n, z[1] = (unsigned char)(n >> 8), z[2] = (unsigned char)(n >> 16);
	z[3] = (unsigned char)(n >> 24);
	uint64_t got;
	int guard_ok;
	int st = emu(z, (size_t)zn + 4, 1, out, n + 16, TSR_CUDA_LZ4_SIZED, &got, &guard_ok);
	CHECK(st == TSR_CUDA_LZ_OK && got == n && !memcmp(out, src, n) && guard_ok);
	if (n > 0) {
		/* a size that lies: more than the capacity, or more than the block holds */
		st = emu(z, (size_t)zn + 4, 0, out, n - 1, TSR_CUDA_LZ4_SIZED, &got, &guard_ok);
		CHECK(st == TSR_CUDA_LZ_E_OVERFLOW && guard_ok);
		z[0]++;
		if (z[0] == 0)
			z[1]++;
		st = emu(z, (size_t)zn + 4, 2, out, n + 16, TSR_CUDA_LZ4_SIZED, &got, &guard_ok);
		CHECK(st == TSR_CUDA_LZ_E_SIZE && guard_ok);
	}
	st = emu(z, 3, 0, out, n + 16, TSR_CUDA_LZ4_SIZED, &got, &guard_ok);
	CHECK(st == TSR_CUDA_LZ_E_TRUNCATED);
	blocks_ok++;
	bytes_ok += n;
	if (do_corrupt)
		corrupt(z + 4, (size_t)zn, n, (uint64_t)n * 31 + (uint64_t)level);
	free(out);
	free(z);
}

int main(void)
{
	static const size_t sizes[] = {0, 1, 5, 13, 31, 64, 100, 1000, 4096, 65536, 262144 + 7};
	static const struct { int level, hc; } lv[] = {{1, 0}, {8, 0}, {1, 1}, {4, 1}, {9, 1}, {12, 1}};
	char what[64];
	unsigned char *buf = (unsigned char *)check_malloc(262144 + 64);
	for (int p = 0; p < LZP_N; p++) {
		for (size_t si = 0; si < sizeof(sizes) / sizeof(*sizes); si++) {
			size_t n = sizes[si];
			lzp_fill(p, buf, n, p == LZP_PERIOD ? 3 : si);
			for (size_t l = 0; l < sizeof(lv) / sizeof(*lv); l++) {
				snprintf(what, sizeof what, "%s", lzp_name[p]);
				/* corrupt copies of the mid-sized blocks (the costly part) */
				one(buf, n, what, lv[l].level, lv[l].hc, n >= 100 && n <= 4096 && l % 2 == 0);
			}
		}
	}
	/* every match distance of 1..64 overlapping its own output, at fast and HC levels */
	for (uint64_t per = 1; per <= 64; per++) {
		lzp_fill(LZP_PERIOD, buf, 20000, per);
		snprintf(what, sizeof what, "period %llu", (unsigned long long)per);
		one(buf, 20000, what, 1, 0, per % 16 == 1);
		one(buf, 20000, what, 9, 1, 0);
	}
	/* hand-made blocks: an empty block is an error (as in liblz4), a lone zero token is an
	 * empty output, distance 0 and distances before the output are refused */
	{
		unsigned char out[64 + GUARD];
		uint64_t got;
		int guard_ok;
		const unsigned char zero_tok[] = {0x00};
		const unsigned char dist0[] = {0x10, 'a', 0x00, 0x00, 0x00};
		const unsigned char far[] = {0x10, 'a', 0x02, 0x00, 0x00};
		const unsigned char ok[] = {0x1f, 'a', 0x01, 0x00, 0x00}; /* 'a' then 19 more */
		CHECK_EQ_INT(emu(zero_tok, 0, 0, out, 64, 0, &got, &guard_ok), TSR_CUDA_LZ_E_TRUNCATED);
		CHECK_EQ_INT(emu(zero_tok, 1, 0, out, 64, 0, &got, &guard_ok), TSR_CUDA_LZ_OK);
		CHECK_EQ_INT(got, 0);
		CHECK_EQ_INT(emu(dist0, 5, 0, out, 64, 0, &got, &guard_ok), TSR_CUDA_LZ_E_DISTANCE);
		CHECK_EQ_INT(emu(far, 5, 0, out, 64, 0, &got, &guard_ok), TSR_CUDA_LZ_E_DISTANCE);
		CHECK_EQ_INT(emu(ok, 4, 0, out, 64, 0, &got, &guard_ok), TSR_CUDA_LZ_E_TRUNCATED);
		int st = emu(ok, 5, 3, out, 64, 0, &got, &guard_ok);
		CHECK(st == TSR_CUDA_LZ_E_TRUNCATED); /* a block must end after literals */
		CHECK_EQ_INT(emu(ok, 5, 0, out, 10, 0, &got, &guard_ok), TSR_CUDA_LZ_E_OVERFLOW);
		CHECK(guard_ok);
	}
	free(buf);
	printf("lz4 emulator: %zu blocks (%zu bytes) equal to the input; %zu corrupt decodes: %zu "
	       "refused, %zu accepted that liblz4 refuses for its end-of-block rules, %zu with a "
	       "distance-0 match refused that liblz4 accepts, the rest equal to liblz4's\n",
	       blocks_ok, bytes_ok, corrupt_runs, corrupt_refused, lenient, zero_distance);
	CHECK(blocks_ok > 500 && corrupt_refused > 100);
	CHECK_DONE();
}
