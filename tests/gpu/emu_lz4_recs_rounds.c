/* emu_lz4_recs_rounds.c - emu_lz4_recs.c with phase c's in-turn matches by rounds (TSR_ZS_XROUNDS), LZ4's short-distance matches among them. */
#define TSR_ZS_XROUNDS 1
#include "emu_lz4_recs.c"
