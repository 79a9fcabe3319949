/* zstd_note_read.h - for a test of the zstd core's loads: zstd_core.h built for the CPU with each load it makes noted (TSR_ZS_NOTE_READ): how many, and how many read a byte outside the stream under test [in_lo, in_hi), the zero word aside. */
#ifndef TSR_ZSTD_NOTE_READ_H
#define TSR_ZSTD_NOTE_READ_H

#include <stdint.h>
#include <stdio.h>

/* the stream under test, and the loads outside it */
static const uint8_t *in_lo, *in_hi;
static unsigned long long loads, outside;
static void note_read(const uint8_t *p, size_t n);
#define TSR_ZS_NOTE_READ(p, n) note_read((p), (n))
#define TSR_ZSTD_EMU 1
#include "cuda/zstd_core.h"

/* p[0..n) (n >= 1) as the stream under test: its bounds noted, its last byte given the end
 * mark; returns the byte it was, for the caller to put back. */
static inline uint8_t note_stream(uint8_t *p, uint64_t n)
{
	in_lo = p;
	in_hi = p + n;
	uint8_t keep = p[n - 1];
	p[n - 1] |= 0x80;
	return keep;
}

/* A reader's next step down, in bits, from generator *s: mostly one a window holds (0 to 64),
 * one in eight up to 200 (a fill, or a long step's lone window). */
static inline int32_t note_step(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (int32_t)((*s >> 33) % ((*s >> 60) < 2 ? 201 : 65));
}

static void note_read(const uint8_t *p, size_t n)
{
	loads++;
	if (p == (const uint8_t *)tsr_zs_noword && n == 4)
		return;
	if (p < in_lo || p + n > in_hi)
		outside++;
}

#endif
