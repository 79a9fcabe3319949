/* emu_zstd_rounds.c - emu_zstd.c with phase c's in-turn matches by rounds (TSR_ZS_XROUNDS, zstd_exec_core.h), a round's matches run the highest first, so that one reading another of its round reads bytes not yet written: libzstd's bytes and statuses, and rounds of several matches counted. */
#include <stdint.h>
#include <stdio.h>

static unsigned long long rounds_all, rounds_many, rounds_matches;
#define TSR_ZS_XROUNDS 1
#define TSR_ZS_ROUND_SEEN(ready)                                                          \
	(rounds_all++, rounds_matches += (unsigned)__builtin_popcount(ready),             \
	 rounds_many += __builtin_popcount(ready) > 1)

static void rounds_done(void);
#define EMU_ZSTD_DONE rounds_done
#include "emu_zstd.c"

static void rounds_done(void)
{
	printf("in-turn matches by rounds: %llu rounds, %llu of several matches, %llu matches\n",
	       rounds_all, rounds_many, rounds_matches);
	CHECK(rounds_many > 1000 && rounds_matches > rounds_all);
}
