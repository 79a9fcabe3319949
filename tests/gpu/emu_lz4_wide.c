/* emu_lz4_wide.c - the LZ4 emulator test (emu_lz4.c) with long literal runs read as aligned words, as the few-streams kernel (lz4_few.cu) reads them. */
#define TSR_LZ_WIDE 1
#include "emu_lz4.c"
