/* emu_lz4_batch.c - the LZ4 kernel's batches of short sequences (lz4_core.h, TSR_LZ4_BATCHED), 32 a batch as the few-streams kernel's warps run them, parsed one after another (TSR_LZ4_PPARSE 0; emu_lz4_pparse.c: in parallel), against the sequential decoder (emu_lz4_fast.c's blocks). */
#define EMU_BATCHED 1
#define EMU_PPARSE 0
#include "emu_lz4_fast.c"
