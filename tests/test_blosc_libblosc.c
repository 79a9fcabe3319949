/* test_blosc_libblosc.c - our blosc decoder against Debian's c-blosc 1.x: chunks that libblosc
 * compresses here (every codec it has x no/byte/bit shuffle x typesizes x sizes x block sizes
 * x data patterns) decode with tsr_blosc_decode to the input, whole and block by block; and a
 * truncated chunk fails cleanly. */
#include <blosc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "codecs/blosc.h"
#include "core/internal.h"

static uint64_t rng_state = 0x243F6A8885A308D3ULL;

static uint64_t rnd(void)
{
	/* xorshift64*: deterministic, so a failure reproduces */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

enum pattern { RANDOM, RUNS, SMOOTH, NPATTERNS };

/* Data a compressor finds hard (random), easy (runs) or typical (slowly varying elements). */
static void fill(uint8_t *p, size_t n, size_t typesize, enum pattern pat)
{
	for (size_t i = 0; i < n; i++) {
		switch (pat) {
		case RANDOM: p[i] = (uint8_t)rnd(); break;
		case RUNS: p[i] = (uint8_t)((i / 37) * 13); break;
		default: {
			size_t e = i / typesize, b = i % typesize;
			uint64_t v = e * 3 + (rnd() & 3);
			p[i] = b < 8 ? (uint8_t)(v >> (8 * b)) : 0;
			break;
		}
		}
	}
}

static int cases, block_checks, truncations;

static void one(const char *codec, int shuffle, size_t typesize, size_t nbytes, size_t blocksize,
		enum pattern pat, int clevel, struct tsr_blosc_scratch *scratch)
{
	uint8_t *src = malloc(nbytes + 1), *comp = malloc(nbytes + BLOSC_MAX_OVERHEAD + 64);
	uint8_t *out = malloc(nbytes + 1), *blk = NULL;
	fill(src, nbytes, typesize, pat);
	int cb = blosc_compress_ctx(clevel, shuffle, typesize, nbytes, src, comp,
				    nbytes + BLOSC_MAX_OVERHEAD, codec, blocksize, 1);
	char what[160];
	snprintf(what, sizeof(what), "%s shuffle %d typesize %zu nbytes %zu blocksize %zu pattern %d "
		 "clevel %d", codec, shuffle, typesize, nbytes, blocksize, (int)pat, clevel);
	if (cb <= 0) {
		fprintf(stderr, "libblosc could not compress: %s (%d)\n", what, cb);
		check_failures++;
		goto done;
	}
	cases++;
	size_t got = 0;
	memset(out, 0xEE, nbytes + 1);
	int st = tsr_blosc_decode(out, nbytes, comp, (size_t)cb, scratch, &got);
	if (st || got != nbytes || memcmp(out, src, nbytes) != 0) {
		fprintf(stderr, "decode differs: %s: status %d (%s), %zu bytes\n", what, st,
			tsr_errmsg(), got);
		check_failures++;
		goto done;
	}
	/* libblosc itself agrees (a sanity check of the test). */
	if (blosc_decompress_ctx(comp, out, nbytes, 1) != (int)nbytes || memcmp(out, src, nbytes)) {
		fprintf(stderr, "libblosc round trip failed: %s\n", what);
		check_failures++;
	}
	struct tsr_blosc_info info;
	if ((st = tsr_blosc_info(comp, (size_t)cb, &info))) {
		fprintf(stderr, "info failed: %s: %s\n", what, tsr_errmsg());
		check_failures++;
		goto done;
	}
	/* Every block alone, into its place. */
	blk = malloc((size_t)info.blocksize + 1);
	for (int64_t b = 0; b < info.nblocks; b++) {
		size_t len = b + 1 == info.nblocks ? (size_t)info.last_block_nbytes : (size_t)info.blocksize;
		st = tsr_blosc_decode_blocks(blk, len, comp, (size_t)cb, b, 1, scratch);
		block_checks++;
		if (st || memcmp(blk, src + (size_t)b * (size_t)info.blocksize, len) != 0) {
			fprintf(stderr, "block %lld of %lld differs: %s: status %d (%s)\n", (long long)b,
				(long long)info.nblocks, what, st, tsr_errmsg());
			check_failures++;
			break;
		}
	}
	/* Cut short: an error, never a read past the end (ASan watches). */
	if (cb > 16 && (rnd() & 3) == 0) {
		size_t cut = 16 + (size_t)(rnd() % (uint64_t)(cb - 16));
		uint8_t *t = malloc(cut);
		memcpy(t, comp, cut);
		truncations++;
		if (tsr_blosc_decode(out, nbytes, t, cut, scratch, &got) == TSR_OK) {
			fprintf(stderr, "a chunk cut to %zu of %d bytes decoded: %s\n", cut, cb, what);
			check_failures++;
		}
		free(t);
	}
done:
	free(src);
	free(comp);
	free(out);
	free(blk);
}

int main(void)
{
	/* The codecs this libblosc was built with (Debian's has no snappy). */
	const char *all[] = {"blosclz", "lz4", "lz4hc", "zlib", "zstd"};
	const char *codecs[5];
	int ncodecs = 0;
	char *list = (char *)blosc_list_compressors();
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (strstr(list, all[i]))
			codecs[ncodecs++] = all[i];
	CHECK(ncodecs >= 4);
	const size_t typesizes[] = {1, 2, 3, 4, 8, 16, 33};
	const size_t sizes[] = {0, 1, 100, 1003, 4096, 65536 + 13, 262144};
	const size_t blocksizes[] = {0, 512, 8192};
	struct tsr_blosc_scratch *scratch;
	CHECK(tsr_blosc_scratch_create(&scratch) == TSR_OK);
	int n = 0;
	for (int c = 0; c < ncodecs; c++)
		for (int sh = 0; sh <= 2; sh++)
			for (size_t t = 0; t < sizeof(typesizes) / sizeof(typesizes[0]); t++)
				for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
					for (size_t b = 0; b < sizeof(blocksizes) / sizeof(blocksizes[0]); b++) {
						/* Big chunks with one pattern only, to keep the test quick. */
						int npat = sizes[s] > 70000 ? 1 : NPATTERNS;
						for (int p = 0; p < npat; p++, n++)
							one(codecs[c], sh, typesizes[t], sizes[s],
							    blocksizes[b],
							    (enum pattern)((p + n) % NPATTERNS), 1 + n % 9,
							    scratch);
					}
	/* clevel 0 (stored raw) and the largest typesize. */
	one("lz4", BLOSC_SHUFFLE, 4, 10000, 0, SMOOTH, 0, scratch);
	one("zstd", BLOSC_BITSHUFFLE, 255, 255 * 300, 0, SMOOTH, 5, scratch);
	one("blosclz", BLOSC_SHUFFLE, 255, 255 * 300 + 7, 0, RUNS, 9, scratch);
	tsr_blosc_scratch_free(scratch);
	printf("libblosc %s: %d chunks, %d blocks decoded alone, %d truncations refused\n",
	       BLOSC_VERSION_STRING, cases, block_checks, truncations);
	CHECK_DONE();
}
