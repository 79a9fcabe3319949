/* fuzz.c - the lz4 target (../lz4/fuzz.c) with long literal runs copied as the few-streams kernel copies them (TSR_LZ_WIDE: aligned 16-byte vectors read at the stream's ends word by word), so that every read the vectors make is checked against the guarded input's end. */
#define TSR_LZ_WIDE 1
#include "../lz4/fuzz.c"
