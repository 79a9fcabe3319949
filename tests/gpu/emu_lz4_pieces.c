/* emu_lz4_pieces.c - the LZ4 emulator test (emu_lz4.c) with long literal runs read as words (as emu_lz4_wide.c) in pieces of 37 bytes, so that the few-streams kernel's loop over a run's 1 GiB pieces runs across piece ends at every alignment. */
#define TSR_LZ_WIDE 1
#define TSR_LZ_PIECE 37u
#include "emu_lz4.c"
