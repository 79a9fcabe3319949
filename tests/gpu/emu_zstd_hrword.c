/* emu_zstd_hrword.c - the backward bit stream's words (tsr_zs_hr_word and tsr_zs_hr_word_flat, zstd_core.h, run on the CPU): each word, from both, from 3 below the first to 3 above the last holds the stream's bytes at its place, bytes outside the stream as zero, for streams of every alignment and of 1 to 300 bytes, and no load reads a byte outside the stream but the zero word. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "zstd_note_read.h"

int main(void)
{
	static uint8_t buf[512];
	uint64_t s = 777;
	for (size_t i = 0; i < sizeof buf; i++) {
		s = s * 6364136223846793005ull + 1442695040888963407ull;
		buf[i] = (uint8_t)(s >> 56) | 1u; /* (no byte zero: the last is the end mark) */
	}
	unsigned long long words = 0, bad = 0;
	for (unsigned lead = 0; lead < 4; lead++)
		for (uint64_t n = 1; n <= 300; n++) {
			const uint8_t *p = buf + 8 + lead;
			struct tsr_zs_hr h = {0};
			CHECK(tsr_zs_hr_init(&h, p, n) == 0);
			in_lo = p;
			in_hi = p + n;
			int32_t last = (int32_t)((lead + n - 1) / 4);
			CHECK(h.last == last);
			for (int32_t i = -3; i <= last + 3; i++) {
				/* the word's bytes: stream byte 4i - lead + k, or zero outside */
				uint32_t want = 0;
				for (int k = 0; k < 4; k++) {
					int64_t at = 4 * (int64_t)i + k - lead;
					if (at >= 0 && (uint64_t)at < n)
						want |= (uint32_t)p[at] << (8 * k);
				}
				words += 2;
				if (tsr_zs_hr_word(&h, i) != want && bad++ < 5)
					fprintf(stderr, "lead %u n %llu word %d differs\n", lead,
						(unsigned long long)n, (int)i);
				if (tsr_zs_hr_word_flat(&h, i) != want && bad++ < 5)
					fprintf(stderr, "lead %u n %llu word %d differs (flat)\n",
						lead, (unsigned long long)n, (int)i);
			}
		}
	printf("%llu words read (%llu loads, %llu outside the stream), %llu differ\n", words, loads,
	       outside, bad);
	CHECK(words > 10000 && loads >= words / 2);
	CHECK(bad == 0);
	CHECK(outside == 0);
	CHECK_DONE();
}
