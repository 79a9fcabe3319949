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

static void note_read(const uint8_t *p, size_t n)
{
	loads++;
	if (p == (const uint8_t *)tsr_zs_noword && n == 4)
		return;
	if (p < in_lo || p + n > in_hi)
		outside++;
}

#endif
