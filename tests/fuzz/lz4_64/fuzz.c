/* fuzz.c - the lz4 target (tests/fuzz/lz4/fuzz.c) with the lane decoder's pieces of up to 64 bytes (TSR_L4_PIECE), the build the H200 compares with 32. */
#define TSR_L4_PIECE 64u
#include "../lz4/fuzz.c"
