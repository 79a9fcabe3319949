/* emu_zstd_prefetch.c - the zstd sequences' bit reader's prefetches (tsr_zs_hrc_ahead, zstd_core.h, run on the CPU): each is of an aligned word wholly inside the stream and TSR_ZS_PF_WORDS + 4 words or more below the window that asked, for streams of every alignment and of 1 to 1,200 bytes, and a long stream's reader asks for every line of it below its first. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

/* the stream under test, the window's byte when a prefetch is asked, and what was seen */
static const uint8_t *in_lo, *in_hi, *in_now;
static unsigned long long asked, outside, unaligned, near;
static unsigned char line_seen[64];
static void note_prefetch(const uint8_t *p);
#define TSR_ZS_NOTE_PREFETCH(p) note_prefetch(p)
#define TSR_ZSTD_EMU 1
#include "cuda/zstd_core.h"

static unsigned lead_now;

static void note_prefetch(const uint8_t *p)
{
	asked++;
	if (p < in_lo || p + 4 > in_hi)
		outside++;
	else if ((size_t)(p - in_lo + lead_now) % 4 != 0)
		unaligned++;
	else
		line_seen[(size_t)(p - in_lo) / 128] = 1; /* (n < 64 lines) */
	if (in_now - p < 4 * (TSR_ZS_PF_WORDS + 4))
		near++;
}

int main(void)
{
	static uint8_t buf[4096 + 8];
	check_fill(buf, sizeof buf, 4242);
	uint64_t s = 4243; /* the steps' generator */
	unsigned long long windows = 0, lines_missed = 0;
	for (unsigned lead = 0; lead < 4; lead++)
		for (uint64_t n = 1; n <= 1200; n += (n < 40 ? 1 : 7)) {
			uint8_t *p = buf + 4 + lead;
			uint8_t keep = p[n - 1];
			p[n - 1] |= 0x80; /* the end mark */
			struct tsr_zs_hr h;
			struct tsr_zs_hrc c;
			CHECK(tsr_zs_hr_init(&h, p, n) == 0);
			in_lo = p;
			in_hi = p + n;
			lead_now = lead;
			memset(line_seen, 0, sizeof line_seen);
			(void)tsr_zs_hrc_fill(&h, &c);
			/* steps down of 1 to 64 bits, as the sequences take them, to the stream's start */
			while (h.pos > 0) {
				s = s * 6364136223846793005ull + 1442695040888963407ull;
				h.pos -= 1 + (int32_t)((s >> 33) % 64);
				in_now = p + (h.pos > 0 ? h.pos / 8 : 0);
				(void)tsr_zs_hrc_window(&h, &c);
				windows++;
			}
			/* every 128-byte line of the stream (from its start) that ends 160 bytes or more
			 * below its top was asked for (the reader asks for the word TSR_ZS_PF_WORDS + 4
			 * words below its window's, at most 36, and a window moves at most two words) */
			for (uint64_t line = 0; 128 * (line + 1) + 160 <= n; line++)
				lines_missed += !line_seen[line];
			p[n - 1] = keep;
		}
	printf("%llu windows, %llu prefetches: %llu outside the stream, %llu unaligned, %llu under "
	       "%d bytes below the window, %llu lines never asked for\n",
	       windows, asked, outside, unaligned, near, 4 * (TSR_ZS_PF_WORDS + 4), lines_missed);
	CHECK(windows > 10000 && asked > 10000);
	CHECK(outside == 0 && unaligned == 0 && near == 0);
	CHECK(lines_missed == 0);
	CHECK_DONE();
}
