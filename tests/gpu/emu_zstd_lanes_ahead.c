/* emu_zstd_lanes_ahead.c - the zstd lanes emulator (emu_zstd_lanes.c: 32 CPU threads as a warp's lanes, against libzstd and the one-lane emulation) with the short copies' loads ahead of their stores (TSR_ZS_COPY_AHEAD 8). */
#define TSR_ZS_COPY_AHEAD 8u
#include "emu_zstd_lanes.c"
