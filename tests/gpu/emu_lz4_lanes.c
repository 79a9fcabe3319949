/* emu_lz4_lanes.c - the lane-a-stream LZ4 kernel's code (lz4_lane_core.h) on the CPU: emu_lz4.c's blocks and checks, and on each the status, size and bytes of lz4_core.h's decoder, at every input and output alignment of a word. */
#define TSR_LZ_EMU 1
#include "lz4_core.h"
#include "lz4_lane_core.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"

/*
 * emu_lz4.c runs as it is with this file's decoder in place of lz4_core.h's: lz4_lane_core.h on
 * a copy of the input at input alignment a (0 to 7, in an allocation of exactly its end, so
 * ASan sees a read past the stream) into output at alignment b (0 to 7, with poisoned margins
 * on both sides), the pair moving on each call; lz4_core.h's decoder on the same block. The two
 * must give the same status, size and bytes, and lanes must leave every byte outside
 * [out, out + got) untouched, margins and the capacity's unwritten tail alike. First, the
 * lane decoder's own parts (lanes_own_checks).
 */

#define LANES_MARGIN 16

static struct tsr_lz_smem lanes_smem;
static unsigned lanes_calls;
static size_t lanes_compared;

/* The lane decoder's own parts: tsr_l4_mod's reciprocal against %, over every x and d it is
 * given; a literal length whose 255s sum past 2^32 (15 + 255 x 16,843,009 + 6 = 2^32 + 20),
 * refused as truncated as lz4_core.h refuses it, not wrapped to 20 literals. */
static void lanes_own_checks(void)
{
	for (uint32_t d = 1; d < 8; d++)
		for (uint32_t x = 0; x < 64; x++)
			if (tsr_l4_mod(x, d) != x % d) {
				fprintf(stderr, "tsr_l4_mod(%u, %u) = %u\n", x, d, tsr_l4_mod(x, d));
				check_failures++;
			}
	const size_t k = 16843009, n = 1 + k + 1 + 64;
	uint8_t *z = (uint8_t *)check_malloc(n), out[64];
	z[0] = 0xf0;
	memset(z + 1, 0xff, k);
	z[1 + k] = 6;
	memset(z + 2 + k, 'a', 64);
	uint64_t got;
	CHECK_EQ_INT(tsr_l4_stream(z, n, out, sizeof out, TSR_CUDA_LZ4_RAW, &got),
		     TSR_CUDA_LZ_E_TRUNCATED);
	CHECK_EQ_INT(tsr_lz4_stream(&lanes_smem, z, n, out, sizeof out, TSR_CUDA_LZ4_RAW, &got),
		     TSR_CUDA_LZ_E_TRUNCATED);
	free(z);
}

static int lanes_decode(const uint8_t *in, uint64_t n, uint8_t *out, uint64_t cap, int variant,
			uint64_t *got)
{
	if (!lanes_calls)
		lanes_own_checks();
	const unsigned a = lanes_calls % 8, b = (lanes_calls / 8 + lanes_calls) % 8;
	lanes_calls++;
	/* (exactly up to the stream's end, so that ASan sees a byte read past it; 1 byte for an
	 * empty stream at alignment 0, never read) */
	uint8_t *in_mem = (uint8_t *)check_malloc((size_t)n + a ? (size_t)n + a : 1);
	memcpy(in_mem + a, in, (size_t)n);
	uint8_t *buf = (uint8_t *)check_malloc((size_t)cap + 2 * LANES_MARGIN + 8);
	memset(buf, 0x5a, (size_t)cap + 2 * LANES_MARGIN + 8);
	uint8_t *o = buf + LANES_MARGIN + b;
	int st = tsr_l4_stream(in_mem + a, n, o, cap, variant, got);
	uint8_t *ref = (uint8_t *)check_malloc((size_t)cap + 1);
	uint64_t ref_got;
	int ref_st = tsr_lz4_stream(&lanes_smem, in_mem + a, n, ref, cap, variant, &ref_got);
	int untouched = 1;
	for (uint8_t *q = buf; q < buf + cap + 2 * LANES_MARGIN + 8; q++)
		if ((q < o || q >= o + *got) && *q != 0x5a)
			untouched = 0;
	if (st != ref_st || *got != ref_got || memcmp(o, ref, (size_t)ref_got) || !untouched) {
		fprintf(stderr, "lanes differ (%llu input bytes at alignment %u, capacity %llu at %u): "
			"status %d against %d, %llu bytes against %llu, %s\n", (unsigned long long)n, a,
			(unsigned long long)cap, b, st, ref_st, (unsigned long long)*got,
			(unsigned long long)ref_got, untouched ? "outside untouched" : "wrote outside");
		check_failures++;
	}
	lanes_compared++;
	memcpy(out, o, (size_t)*got);
	free(ref), free(buf), free(in_mem);
	return st;
}

#define EMU_LZ4_DECODE(in, n, out, cap, variant, got) lanes_decode(in, n, out, cap, variant, got)
#define EMU_LZ4_NAME "lz4 lanes emulator (each against lz4_core.h's)"
#include "emu_lz4.c"
