/* emu_lz4_recs_split.c - emu_lz4_recs.c with records of at most 7 bytes of literals or match, so that every kind of split (long runs, long matches, failing sequences' literals) runs. */
#define TSR_L4R_SPLIT 7u
#include "emu_lz4_recs.c"
