/* emu_zstd_stage.c - the zstd sequences' bit reader by stages (tsr_zs_hrs, zstd_core.h, run on the CPU): every window and every lone window below it (a long step's) equals the uncached reader's, for steps down of 0 to 200 bits from streams of every alignment and length, near both ends, with the warp's other threads' restages emulated (a vote true at random); a lone window leaves the stage as it was; and no load reads a byte outside the stream but the zero word. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the other threads' need to restage, emulated: true at about one window in other_rate (set a
 * stream: often in some, so restages come mostly from others, rarely in the rest, so a stage of
 * 64 words is mostly left by the thread's own windows) */
static uint64_t vote_s = 99;
static unsigned other_rate = 20;
static unsigned long long own_votes, other_votes;
static int vote(int own)
{
	vote_s = vote_s * 6364136223846793005ull + 1442695040888963407ull;
	int other = (vote_s >> 33) % other_rate == 0;
	own_votes += (unsigned)own;
	other_votes += (unsigned)(!own && other);
	return own || other;
}
#define TSR_ZS_ANY_ACTIVE(p) vote(!!(p))

#include "check.h"
#include "zstd_note_read.h"

int main(void)
{
	static uint8_t buf[4096 + 8];
	check_fill(buf, sizeof buf, 777);
	/* the stage on the heap at its exact size, so that a word read past it is ASan's */
	uint32_t *st = check_malloc(TSR_ZS_STAGE_WORDS * sizeof *st);
	uint32_t *was = check_malloc(TSR_ZS_STAGE_WORDS * sizeof *was);
	uint64_t s = 778; /* the steps' generator */
	unsigned long long windows = 0, peeks = 0, long_steps = 0, bad = 0, moved = 0;
	for (unsigned lead = 0; lead < 4; lead++)
		for (uint64_t n = 1; n <= 1500; n += (n < 40 ? 1 : 7)) {
			uint8_t *p = buf + 4 + lead;
			other_rate = n % 2 ? 20 : 500;
			uint8_t keep = note_stream(p, n);
			struct tsr_zs_hr h, g;
			struct tsr_zs_hrs c;
			CHECK(tsr_zs_hr_init(&h, p, n) == 0);
			g = h;
			if (tsr_zs_hrs_fill(&h, &c, st) != tsr_zs_hr_window64(&g))
				bad++;
			while (h.pos > -64) {
				int32_t step = note_step(&s);
				long_steps += step > 64;
				h.pos -= step;
				g.pos = h.pos;
				uint64_t v = tsr_zs_hrs_window(&h, &c);
				windows++;
				if (v != tsr_zs_hr_window64(&g) && bad++ < 5)
					fprintf(stderr, "lead %u n %llu pos %d: window differs\n", lead,
						(unsigned long long)n, (int)h.pos);
				/* a long step's lone window, 1 to 63 bits below (the stage kept) */
				if ((s >> 40) % 3 == 0) {
					struct tsr_zs_hr l = h;
					l.pos -= 1 + (int32_t)((s >> 20) % 63);
					g.pos = l.pos;
					memcpy(was, st, TSR_ZS_STAGE_WORDS * sizeof *st);
					int32_t b = c.b;
					v = tsr_zs_hrs_peek(&l, &c);
					peeks++;
					if (v != tsr_zs_hr_window64(&g) && bad++ < 5)
						fprintf(stderr, "lead %u n %llu pos %d: lone window differs\n",
							lead, (unsigned long long)n, (int)l.pos);
					moved += c.b != b || memcmp(was, st, TSR_ZS_STAGE_WORDS * sizeof *st) != 0;
				}
			}
			p[n - 1] = keep;
		}
	printf("%llu windows (%llu after steps of more than 64 bits), %llu lone windows: %llu differ, "
	       "%llu stages moved by one; restages asked %llu by the thread, %llu by another; %llu "
	       "loads, %llu outside the stream\n",
	       windows, long_steps, peeks, bad, moved, own_votes, other_votes, loads, outside);
	CHECK(windows > 10000 && long_steps > 100 && peeks > 3000);
	CHECK(own_votes > 1000 && other_votes > 1000);
	CHECK(bad == 0 && moved == 0);
	CHECK(loads > 100000 && outside == 0);
	free(st);
	free(was);
	CHECK_DONE();
}
