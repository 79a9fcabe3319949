/* emu_zstd_lanes_rounds.c - emu_zstd_lanes.c with phase c's in-turn matches by rounds (TSR_ZS_XROUNDS): 32 CPU threads as a warp's lanes, each running its own round's match, to the one-lane emulation's bytes and statuses. */
#define TSR_ZS_XROUNDS 1
#include "emu_zstd_lanes.c"
