/* emu_blosclz.c - the GPU BloscLZ kernel's decoding code (blosclz_core.h), run on the CPU as a one-lane warp, against the CPU decoder (src/codecs/blosclz.c) on streams libblosc made, on streams of every instruction kind, and on corrupt ones. */
#define TSR_LZ_EMU 1
#include "blosclz_core.h"

#include <stdio.h>
#include <stdlib.h>
#ifdef TSR_HAVE_LIBBLOSC
#include <blosc.h>
#endif

#include "check.h"
#include "codecs/blosc.h"
#include "core/internal.h"
#include "lz_blosclz_writer.h"
#include "lz_profiles.h"

/*
 * Streams come from two makers: c-blosc's own BloscLZ compressor (Debian's libblosc, every
 * clevel, the profiles of lz_profiles.h, shuffled and not), split into streams by
 * tsr_blosc_block_streams; and a writer here that emits random instruction lists over every
 * kind (literal runs of 1..32, short and long lengths, near and far distances, distances 1..64
 * that overlap their output) with the bytes they must decode to. Each stream decodes with the
 * emulator at every misalignment and must equal the CPU decoder's output and status; truncated
 * and damaged copies must get the CPU decoder's verdict (accepted: the same bytes) and never
 * touch the guard after the output.
 */

static struct tsr_lz_smem smem;
#define GUARD 64

static size_t streams_ok, bytes_ok, corrupt_runs, corrupt_refused;

/* The emulator and the CPU decoder on one stream (input exactly zn bytes at misalignment mis):
 * same status (ok or not) and, when ok, the same bytes. Returns the emulator's status. */
static int compare(const unsigned char *z, size_t zn, unsigned mis, size_t cap,
		   const unsigned char *want, size_t want_n, const char *what)
{
	unsigned char *mem = (unsigned char *)check_malloc(zn + mis);
	unsigned char *out = (unsigned char *)check_malloc(cap + GUARD);
	unsigned char *ref = (unsigned char *)check_malloc(cap + 1);
	memcpy(mem + mis, z, zn);
	memset(out, 0xa5, cap + GUARD);
	uint64_t got;
	int st = tsr_blosclz_stream(&smem, mem + mis, zn, out, cap, &got);
	size_t rn = 0;
	int rst = tsr_blosclz_decode(ref, cap, z, zn, &rn);
	int guard_ok = 1;
	for (size_t i = cap; i < cap + GUARD; i++)
		guard_ok &= out[i] == 0xa5;
	CHECK(guard_ok);
	CHECK(got <= cap);
	if ((st == TSR_CUDA_LZ_OK) != (rst == TSR_OK) ||
	    (st == TSR_CUDA_LZ_OK && (got != rn || memcmp(out, ref, rn))) ||
	    (want && (st != TSR_CUDA_LZ_OK || got != want_n || memcmp(out, want, want_n)))) {
		fprintf(stderr, "FAIL %s (%zu bytes, cap %zu, misalignment %u): emulator status %d "
			"(%s), %llu bytes; CPU status %d, %zu bytes\n", what, zn, cap, mis, st,
			tsr_lz_status_text(st), (unsigned long long)got, rst, rn);
		check_failures++;
	}
	free(mem), free(out), free(ref);
	return st;
}

static void corrupt(const unsigned char *z, size_t zn, size_t size, uint64_t seed, const char *what)
{
	unsigned char *bad = (unsigned char *)check_malloc(zn + 1);
	uint64_t s = seed | 1;
	for (int t = 0; t < 16; t++) {
		size_t bn = zn;
		memcpy(bad, z, zn);
		if (t < 6) {
			bn = zn ? (size_t)(lzp_rand(&s) % zn) : 0;
		} else {
			int flips = 1 + (int)(lzp_rand(&s) % 3);
			for (int k = 0; k < flips && zn; k++)
				bad[lzp_rand(&s) % zn] ^= (unsigned char)(1u << (lzp_rand(&s) % 8));
		}
		int st = compare(bad, bn, (unsigned)(t % 4), size + (t & 1) * 16, NULL, 0, what);
		corrupt_runs++;
		corrupt_refused += st != TSR_CUDA_LZ_OK;
	}
	free(bad);
}

static void good(const unsigned char *z, size_t zn, const unsigned char *want, size_t n,
		 const char *what, int do_corrupt, uint64_t seed)
{
	for (unsigned mis = 0; mis < 4; mis++)
		compare(z, zn, mis, mis & 1 ? n + 40 : n, want, n, what);
	streams_ok++;
	bytes_ok += n;
	if (do_corrupt)
		corrupt(z, zn, n, seed, what);
}

/* ---- a writer of BloscLZ instructions (the format as src/codecs/blosclz.c reads it) ---- */
struct writer {
	unsigned char *z, *out;
	size_t zn, n;
	uint64_t s;
};

static void put_literals(struct writer *w, size_t len, int first)
{
	/* runs of 1..32: the control byte is len - 1 (the first one's top bits are ignored) */
	unsigned char c = (unsigned char)(len - 1);
	if (first)
		c |= (unsigned char)((lzp_rand(&w->s) % 8) << 5);
	w->z[w->zn++] = c;
	for (size_t k = 0; k < len; k++) {
		unsigned char b = (unsigned char)(lzp_rand(&w->s) >> 56);
		w->z[w->zn++] = b;
		w->out[w->n++] = b;
	}
}

static void put_match(struct writer *w, size_t len, size_t dist)
{
	/* len >= 3; near distances 1..8191, far 8192..73727 */
	size_t l = len - 2, d = dist - 1;
	unsigned hi = l < 7 ? (unsigned)l : 7;
	int far = dist >= 8192;
	unsigned char ctrl = (unsigned char)(hi << 5 | (far ? 31 : (unsigned)(d >> 8)));
	w->z[w->zn++] = ctrl;
	if (hi == 7) {
		size_t rest = l - 7;
		while (rest >= 255) {
			w->z[w->zn++] = 255;
			rest -= 255;
		}
		w->z[w->zn++] = (unsigned char)rest;
	}
	if (far) {
		size_t f = dist - 8192;
		w->z[w->zn++] = 255;
		w->z[w->zn++] = (unsigned char)(f >> 8);
		w->z[w->zn++] = (unsigned char)f;
	} else {
		w->z[w->zn++] = (unsigned char)(d & 255);
	}
	for (size_t k = 0; k < len; k++, w->n++)
		w->out[w->n] = w->out[w->n - dist];
}

static void written(uint64_t seed, size_t target)
{
	struct writer w = {(unsigned char *)check_malloc(2 * target + 4096),
			   (unsigned char *)check_malloc(target + 80000), 0, 0, seed * 7919 + 1};
	put_literals(&w, 1 + lzp_rand(&w.s) % 32, 1);
	while (w.n < target) {
		uint64_t r = lzp_rand(&w.s) % 10;
		if (r < 3) {
			put_literals(&w, 1 + lzp_rand(&w.s) % 32, 0);
			continue;
		}
		size_t dist = r < 6   ? 1 + lzp_rand(&w.s) % 64
			      : r < 9 ? 1 + lzp_rand(&w.s) % 8191
				      : 8192 + lzp_rand(&w.s) % 65536;
		if (dist > w.n)
			dist = 1 + lzp_rand(&w.s) % w.n;
		size_t len = lzp_rand(&w.s) % 4 ? 3 + lzp_rand(&w.s) % 10
						: 3 + lzp_rand(&w.s) % (lzp_rand(&w.s) % 2 ? 600 : 70000);
		put_match(&w, len, dist);
	}
	char what[64];
	snprintf(what, sizeof what, "written stream %llu", (unsigned long long)seed);
	good(w.z, w.zn, w.out, w.n, what, seed % 4 == 0 && w.zn < 100000, seed);
	free(w.z), free(w.out);
}

#ifdef TSR_HAVE_LIBBLOSC
/* c-blosc's BloscLZ: a chunk per profile, clevel and shuffle; each coded stream compared. */
static size_t blosc_streams;

static void from_libblosc(void)
{
	const size_t n = 1 << 18;
	unsigned char *src = (unsigned char *)check_malloc(n);
	unsigned char *chunk = (unsigned char *)check_malloc(n + 64);
	for (int p = 0; p < LZP_N; p++)
		for (int clevel = 1; clevel <= 9; clevel += 2)
			for (int shuffle = 0; shuffle <= 1; shuffle++) {
				lzp_fill(p, src, n, p == LZP_PERIOD ? (uint64_t)(clevel * 7) : 3);
				int cn = blosc_compress_ctx(clevel, shuffle, 4, n, src, chunk, n + 64,
							    "blosclz", 32768, 1);
				struct tsr_blosc_info in;
				if (cn <= 0 || tsr_blosc_info(chunk, (size_t)cn, &in) != TSR_OK) {
					fprintf(stderr, "libblosc: no chunk for %s\n", lzp_name[p]);
					check_failures++;
					continue;
				}
				CHECK_EQ_INT(in.codec, TSR_BLOSC_BLOSCLZ);
				for (int64_t b = 0; b < in.nblocks && !in.memcpyed; b++) {
					struct tsr_blosc_stream sp[TSR_BLOSC_MAX_STREAMS];
					int ns;
					CHECK_EQ_INT(tsr_blosc_block_streams(&in, chunk, b, sp, &ns), TSR_OK);
					for (int k = 0; k < ns; k++) {
						if (sp[k].kind != TSR_BLOSC_STREAM_CODED)
							continue;
						char what[96];
						snprintf(what, sizeof what, "libblosc %s clevel %d shuffle %d "
							 "block %lld stream %d", lzp_name[p], clevel, shuffle,
							 (long long)b, k);
						good(chunk + sp[k].src, sp[k].csize, NULL, sp[k].n, what,
						     b == 0 && k == 0, (uint64_t)(p * 100 + clevel));
						blosc_streams++;
					}
				}
			}
	free(src), free(chunk);
}
#endif

/* The greedy writer's streams of every profile (the GPU test's and benchmark's streams). */
static void from_writer(void)
{
	const size_t n = 100000;
	unsigned char *src = (unsigned char *)check_malloc(n);
	unsigned char *z = (unsigned char *)check_malloc(n + n / 32 + 16);
	for (int p = 0; p < LZP_N; p++) {
		lzp_fill(p, src, n, p == LZP_PERIOD ? 5 : 1);
		size_t zn = lzw_blosclz(src, n, z);
		char what[64];
		snprintf(what, sizeof what, "greedy writer, %s", lzp_name[p]);
		good(z, zn, src, n, what, 0, 0);
	}
	free(src), free(z);
}

int main(void)
{
	from_writer();
	for (uint64_t seed = 0; seed < 200; seed++)
		written(seed, seed < 100 ? 64 + seed * 37 : 300000);
	/* the CPU decoder's corner cases: an empty stream decodes to nothing */
	CHECK_EQ_INT(compare((const unsigned char *)"", 0, 0, 16, NULL, 0, "empty"), TSR_CUDA_LZ_OK);
#ifdef TSR_HAVE_LIBBLOSC
	from_libblosc();
	printf("blosclz emulator: %zu streams from libblosc, ", blosc_streams);
	CHECK(blosc_streams > 50);
#else
	printf("blosclz emulator: libblosc not found, written streams only; ");
#endif
	printf("%zu streams (%zu bytes) equal to the CPU decoder's; %zu corrupt decodes, %zu "
	       "refused as the CPU refused them, the rest equal\n", streams_ok, bytes_ok,
	       corrupt_runs, corrupt_refused);
	CHECK(streams_ok > 200 && corrupt_refused > 50);
	CHECK_DONE();
}
