/* emu_zstd_hrc.c - the zstd sequences' bit reader with its five cached words (tsr_zs_hrc, zstd_core.h, run on the CPU): every window it gives equals the uncached reader's, for steps down of 0 to 200 bits from streams of every alignment and length, near both ends; and no load, of either, reads a byte outside the stream but the zero word. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "zstd_note_read.h"

int main(void)
{
	static uint8_t buf[4096 + 8];
	check_fill(buf, sizeof buf, 12345);
	uint64_t s = 12346; /* the steps' generator */
	unsigned long long windows = 0, fills = 0, bad = 0;
	for (unsigned lead = 0; lead < 4; lead++)
		for (uint64_t n = 1; n <= 1200; n += (n < 40 ? 1 : 7)) {
			uint8_t *p = buf + 4 + lead;
			uint8_t keep = note_stream(p, n);
			struct tsr_zs_hr h, g;
			struct tsr_zs_hrc c;
			CHECK(tsr_zs_hr_init(&h, p, n) == 0);
			g = h;
			uint64_t v = tsr_zs_hrc_fill(&h, &c);
			if (v != tsr_zs_hr_window64(&g))
				bad++;
			/* steps down from the top, past the start (bits before it read as zero) */
			while (h.pos > -64) {
				int32_t step = note_step(&s);
				fills += step > 64;
				h.pos -= step;
				g.pos = h.pos;
				v = tsr_zs_hrc_window(&h, &c);
				windows++;
				if (v != tsr_zs_hr_window64(&g)) {
					if (bad++ < 5)
						fprintf(stderr, "lead %u n %llu pos %d: window differs\n", lead,
							(unsigned long long)n, (int)h.pos);
				}
			}
			p[n - 1] = keep;
		}
	printf("%llu windows (%llu after steps of more than 64 bits), %llu differ; %llu loads, %llu "
	       "outside the stream\n", windows, fills, bad, loads, outside);
	CHECK(windows > 10000 && fills > 100);
	CHECK(bad == 0);
	CHECK(loads > 100000 && outside == 0);
	CHECK_DONE();
}
