/* emu_lz4_fast.c - the LZ4 kernel's fast path (lz4_core.h, TSR_LZ4_FAST) against the same decoder without it: equal statuses, sizes and bytes on good, damaged and random blocks (emu_lz4_batch.c: the same with its batches of short sequences). */
#define TSR_LZ_EMU 1

/* the decoder without the fast path, under other names */
#define TSR_LZ4_FAST 0
#define TSR_LZ4_BATCHED 0
#define tsr_lz4_block tsr_lz4_block_plain
#define tsr_lz4_stream tsr_lz4_stream_plain
#include "lz4_core.h"
#undef tsr_lz4_block
#undef tsr_lz4_stream
#undef TSR_LZ4_CORE_H
#undef TSR_LZ4_FAST
#undef TSR_LZ4_BATCHED

/* the decoder the kernels build, counting the sequences its fast path takes (and, with
 * EMU_BATCHED, as emu_lz4_batch.c builds it, those its batches take and their later rounds) */
#ifndef EMU_BATCHED
#define EMU_BATCHED 0
#endif
static unsigned long long fast_seen;
#if EMU_BATCHED
static unsigned long long batch_seen, rounds_seen;
#endif
#undef TSR_LZ4_FAST_SEEN
#define TSR_LZ4_FAST_SEEN() (fast_seen++)
#undef TSR_LZ4_BATCH_SEEN
#define TSR_LZ4_BATCH_SEEN(k) (batch_seen += (k))
#undef TSR_LZ4_ROUND_SEEN
#define TSR_LZ4_ROUND_SEEN() (rounds_seen++)
#define TSR_LZ4_FAST 1
#define TSR_LZ4_BATCHED EMU_BATCHED
#ifdef EMU_PPARSE
#define TSR_LZ4_PPARSE EMU_PPARSE
#endif
#include "lz4_core.h"

#include <lz4.h>
#include <lz4hc.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "lz_profiles.h"

#define GUARD 64

static struct tsr_lz_smem smem;
static size_t compared, failed_both;

/* Both decoders on the same input (copied to exactly zn bytes at a misalignment, so that the
 * window starts where the kernel's would): the same status, size and output, guard included. */
static void both(const unsigned char *z, size_t zn, unsigned mis, size_t cap, int variant,
		 const char *what)
{
	unsigned char *mem = (unsigned char *)check_malloc(zn + mis);
	unsigned char *a = (unsigned char *)check_malloc(cap + GUARD);
	unsigned char *b = (unsigned char *)check_malloc(cap + GUARD);
	memcpy(mem + mis, z, zn);
	memset(a, 0xa5, cap + GUARD);
	memset(b, 0xa5, cap + GUARD);
	uint64_t ga = 0, gb = 0;
	int sa = tsr_lz4_stream(&smem, mem + mis, zn, a, cap, variant, &ga);
	int sb = tsr_lz4_stream_plain(&smem, mem + mis, zn, b, cap, variant, &gb);
	compared++;
	failed_both += sa != TSR_CUDA_LZ_OK;
	if (sa != sb || ga != gb || memcmp(a, b, cap + GUARD)) {
		fprintf(stderr, "%s (%zu bytes at misalignment %u, cap %zu, variant %d): fast path "
			"status %d, %llu bytes; without it status %d, %llu bytes%s\n", what, zn, mis,
			cap, variant, sa, (unsigned long long)ga, sb, (unsigned long long)gb,
			sa == sb && ga == gb ? " (bytes differ)" : "");
		check_failures++;
	}
	free(mem), free(a), free(b);
}

/* A block at several capacities and misalignments, raw and size-prefixed. */
static void block(const unsigned char *z, size_t zn, size_t size, const char *what)
{
	const size_t caps[] = {size, size + 64, size ? size - 1 : 0, size / 2, 0};
	for (size_t c = 0; c < sizeof(caps) / sizeof(*caps); c++)
		both(z, zn, (unsigned)(c % 4), caps[c], TSR_CUDA_LZ4_RAW, what);
	unsigned char *p = (unsigned char *)check_malloc(zn + 4);
	p[0] = (unsigned char)size, p[1] = (unsigned char)(size >> 8);
	p[2] = (unsigned char)(size >> 16), p[3] = (unsigned char)(size >> 24);
	memcpy(p + 4, z, zn);
	both(p, zn + 4, 1, size + 16, TSR_CUDA_LZ4_SIZED, what);
	free(p);
}

/* Damaged copies: truncated at every length near a few points, bits flipped, runs of bytes
 * overwritten with small tokens (literal counts under 15: the fast path's sequences). */
static void damaged(const unsigned char *z, size_t zn, size_t size, uint64_t seed)
{
	unsigned char *bad = (unsigned char *)check_malloc(zn + 1);
	uint64_t s = seed | 1;
	for (int t = 0; t < 48 && zn; t++) {
		size_t bn = zn;
		memcpy(bad, z, zn);
		if (t < 16) {
			bn = t < 4 ? zn - 1 - (size_t)t % zn : (size_t)(lzp_rand(&s) % zn);
		} else if (t < 32) {
			int flips = 1 + (int)(lzp_rand(&s) % 3);
			for (int k = 0; k < flips; k++)
				bad[lzp_rand(&s) % zn] ^= (unsigned char)(1u << (lzp_rand(&s) % 8));
		} else {
			size_t at = (size_t)(lzp_rand(&s) % zn), run = 1 + (size_t)(lzp_rand(&s) % 8);
			for (size_t k = at; k < at + run && k < zn; k++)
				bad[k] = (unsigned char)(lzp_rand(&s) & 0xef);
		}
		block(bad, bn, size, "damaged block");
	}
	free(bad);
}

int main(void)
{
	static const size_t sizes[] = {0, 1, 5, 13, 31, 64, 100, 1000, 4096, 65536, 100003};
	static const struct { int level, hc; } lv[] = {{1, 0}, {8, 0}, {4, 1}, {12, 1}};
	unsigned char *buf = (unsigned char *)check_malloc(100003 + 64);
	unsigned char *z = (unsigned char *)check_malloc((size_t)LZ4_compressBound(100003 + 64));
	for (int p = 0; p < LZP_N; p++) {
		for (size_t si = 0; si < sizeof(sizes) / sizeof(*sizes); si++) {
			size_t n = sizes[si];
			lzp_fill(p, buf, n, p == LZP_PERIOD ? 5 : si);
			for (size_t l = 0; l < sizeof(lv) / sizeof(*lv); l++) {
				int bound = LZ4_compressBound((int)n);
				int zn = lv[l].hc ? LZ4_compress_HC((const char *)buf, (char *)z,
								    (int)n, bound, lv[l].level)
						  : LZ4_compress_fast((const char *)buf, (char *)z,
								      (int)n, bound, lv[l].level);
				CHECK(zn > 0);
				if (zn <= 0)
					continue;
				block(z, (size_t)zn, n, lzp_name[p]);
				if (n >= 64 && n <= 4096)
					damaged(z, (size_t)zn, n, (uint64_t)n * 131 + (uint64_t)l * 7 + 1);
			}
		}
	}
	/* random blocks: tokens with few literals, so that most sequences try the fast path
	 * and its checks meet every end of the input and of the output */
	uint64_t s = 12345;
	for (int t = 0; t < 20000; t++) {
		size_t zn = (size_t)(lzp_rand(&s) % 200);
		for (size_t k = 0; k < zn; k++)
			buf[k] = (unsigned char)lzp_rand(&s);
		for (size_t k = 0; k < zn; k += 1 + (size_t)(lzp_rand(&s) % 6))
			buf[k] = (unsigned char)(buf[k] & 0x7f); /* under 8 literals */
		size_t cap = (size_t)(lzp_rand(&s) % 400);
		both(buf, zn, (unsigned)(t % 4), cap, TSR_CUDA_LZ4_RAW, "random block");
	}
	free(buf), free(z);
#if EMU_BATCHED
	printf("lz4 batches of %u: %zu decodes equal to the sequential decoder's (%zu failing), "
	       "%llu sequences in batches, %llu rounds of matches after a batch's first, %llu "
	       "sequences through the fast path\n", (unsigned)TSR_LZ4_BATCH, compared, failed_both,
	       batch_seen, rounds_seen, fast_seen);
	CHECK(compared > 10000 && failed_both > 1000 && batch_seen > 100000 && rounds_seen > 1000);
#else
	printf("lz4 fast path: %zu decodes equal with and without it (%zu failing), %llu "
	       "sequences through it\n", compared, failed_both, fast_seen);
	CHECK(compared > 10000 && failed_both > 1000 && fast_seen > 100000);
#endif
#ifdef EMU_EXTRA
	EMU_EXTRA(); /* (emu_lz4_pparse.c: its parse against the serial one) */
#endif
	CHECK_DONE();
}
