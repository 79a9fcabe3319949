/* test_rice_gpu_emu.c - the GPU RICE_1 kernel's per-tile decoder, run on the CPU, against tessera's CPU decoder and CFITSIO. */
#define TSR_RICE_EMU 1
#include "cuda/rice_core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_rng.h"
#include "codecs/codecs.h"

/*
 * The same source the kernel runs (src/cuda/rice_core.h), built as C, so that CI (no GPU)
 * checks the decoding logic: every block kind, widths 1/2/4, block sizes 16/32, streams and
 * outputs at every alignment (the word-load and byte-load paths of the bit reader, the
 * gathered and the single-pixel stores), truncated and corrupted streams. Streams sit at the
 * end of exactly sized buffers, so a read past a stream is an AddressSanitizer error.
 */

/* CFITSIO's Rice coder (ricecomp.c), exported by libcfitsio but declared only in fitsio2.h. */
int fits_rcomp(int a[], int nx, unsigned char *c, int clen, int nblock);
int fits_rcomp_short(short a[], int nx, unsigned char *c, int clen, int nblock);
int fits_rcomp_byte(signed char a[], int nx, unsigned char *c, int clen, int nblock);


enum { P_CONST, P_RAMP, P_NOISE1, P_NOISE30, P_NOISE3000, P_UNIFORM, P_SPIKES, P_RUNS, P_N };

/* Pixel i of a pattern, representable in w bytes (signed for 2 and 4, unsigned for 1). */
static int64_t pixel(int pat, size_t i, unsigned w)
{
	int64_t lo = w == 1 ? 0 : w == 2 ? INT16_MIN : INT32_MIN;
	int64_t hi = w == 1 ? 255 : w == 2 ? INT16_MAX : INT32_MAX;
	int64_t x;
	switch (pat) {
	case P_CONST: x = w == 1 ? 201 : -777; break;
	case P_RAMP: x = (int64_t)(i * 3 % 200); break;
	case P_NOISE1: x = 100 + (int64_t)llround(gauss()); break;
	case P_NOISE30: x = 1000 + (int64_t)llround(30 * gauss()); break;
	case P_NOISE3000: x = (int64_t)llround(3000 * gauss()); break;
	case P_UNIFORM: x = lo + (int64_t)(rng() % (uint64_t)(hi - lo + 1)); break;
	case P_SPIKES: x = rng() % 97 == 0 ? hi : 10; break;
	default: x = (int64_t)((i / 50) % 3) * 40; break;
	}
	return x < lo ? lo : x > hi ? hi : x;
}

/* Rice-compresses n pixels of pattern pat with CFITSIO; returns the stream's size. */
static int encode(int pat, size_t n, unsigned w, int bs, unsigned char *z, int zcap)
{
	if (w == 1) {
		signed char *a = malloc(n);
		for (size_t i = 0; i < n; i++)
			a[i] = (signed char)(uint8_t)pixel(pat, i, w);
		int r = fits_rcomp_byte(a, (int)n, z, zcap, bs);
		free(a);
		return r;
	}
	if (w == 2) {
		short *a = malloc(n * sizeof *a);
		for (size_t i = 0; i < n; i++)
			a[i] = (short)pixel(pat, i, w);
		int r = fits_rcomp_short(a, (int)n, z, zcap, bs);
		free(a);
		return r;
	}
	int *a = malloc(n * sizeof *a);
	for (size_t i = 0; i < n; i++)
		a[i] = (int)pixel(pat, i, w);
	int r = fits_rcomp(a, (int)n, z, zcap, bs);
	free(a);
	return r;
}

#define GUARD 16

/* Emulated decode of z[0, zn) placed at the end of an exactly sized buffer, output at
 * misalignment mo inside a guarded buffer; returns the status, *guard_ok if no write past. */
static int emu(const unsigned char *z, size_t zn, unsigned mi, unsigned char *out, unsigned mo,
	       size_t npix, unsigned w, int bs, int *guard_ok)
{
	unsigned char *in = malloc(zn + mi + 1);
	memcpy(in + mi, z, zn);
	unsigned char *o = out + mo;
	memset(out, 0xa5, mo + npix * w + GUARD);
	int st = tsr_rice_tile(in + mi, zn, o, npix, w, (size_t)bs);
	*guard_ok = 1;
	for (size_t k = 0; k < mo; k++)
		*guard_ok &= out[k] == 0xa5;
	for (size_t k = 0; k < GUARD; k++)
		*guard_ok &= o[npix * w + k] == 0xa5;
	free(in);
	return st;
}

int main(void)
{
	static const size_t sizes[] = {1, 2, 7, 15, 16, 17, 31, 32, 33, 100, 1000, 4096};
	static const unsigned widths[] = {1, 2, 4};
	static const int blocks[] = {16, 32};
	size_t cases = 0, corrupt = 0, agree_fail = 0;
	for (int pat = 0; pat < P_N; pat++)
		for (unsigned wi = 0; wi < 3; wi++)
			for (unsigned bi = 0; bi < 2; bi++)
				for (unsigned si = 0; si < sizeof sizes / sizeof *sizes; si++) {
					unsigned w = widths[wi];
					int bs = blocks[bi];
					size_t n = sizes[si];
					int zcap = (int)(n * w * 2 + 64);
					unsigned char *z = malloc((size_t)zcap);
					int zn = encode(pat, n, w, bs, z, zcap);
					CHECK(zn > 0);
					unsigned char *ref = malloc(n * w), *out = malloc(n * w + 8 + GUARD);
					CHECK(tsr_rice_decode(ref, n, z, (size_t)zn, (int)w, bs) == TSR_OK);
					/* every input and output alignment */
					for (unsigned mi = 0; mi < 4; mi++)
						for (unsigned mo = 0; mo < 8; mo += 3) {
							int g;
							int st = emu(z, (size_t)zn, mi, out, mo, n, w, bs, &g);
							if (st != TSR_CUDA_RICE_OK || !g ||
							    memcmp(out + mo, ref, n * w)) {
								fprintf(stderr,
									"FAIL pattern %d w %u bs %d n %zu "
									"in+%u out+%u: status %d guard %d\n",
									pat, w, bs, n, mi, mo, st, g);
								CHECK(0);
							}
							cases++;
						}
					/* truncated and corrupted streams: the emulated kernel fails exactly
					 * when the CPU decoder fails, and agrees with it when both succeed */
					for (int k = 0; k < 12; k++) {
						size_t cn = k < 4 ? (size_t)zn * (size_t)k / 4 : (size_t)zn;
						unsigned char *c = malloc((size_t)zn + 1);
						memcpy(c, z, (size_t)zn);
						if (k >= 4)
							c[rng() % (size_t)zn] ^= (unsigned char)(1u << (rng() % 8));
						if (k >= 8)
							c[rng() % (size_t)zn] = (unsigned char)rng();
						int g;
						int cpu = tsr_rice_decode(ref, n, c, cn, (int)w, bs);
						int st = emu(c, cn, (unsigned)k % 4, out, 0, n, w, bs, &g);
						CHECK(g);
						if ((cpu == TSR_OK) != (st == TSR_CUDA_RICE_OK) ||
						    (cpu == TSR_OK && memcmp(out, ref, n * w))) {
							fprintf(stderr,
								"FAIL corrupt %d pattern %d w %u bs %d n %zu: cpu %d "
								"emu %d\n",
								k, pat, w, bs, n, cpu, st);
							CHECK(0);
						}
						agree_fail += cpu != TSR_OK;
						corrupt++;
						free(c);
					}
					free(z);
					free(ref);
					free(out);
				}
	/* arguments the kernel refuses */
	unsigned char one[4] = {1, 2, 3, 4}, o[16];
	CHECK(tsr_rice_tile(one, 4, o, 2, 3, 32) == TSR_CUDA_RICE_E_ARGUMENT);
	CHECK(tsr_rice_tile(one, 4, o, 2, 2, 0) == TSR_CUDA_RICE_E_ARGUMENT);
	CHECK(tsr_rice_tile(one, 1, o, 2, 2, 32) == TSR_CUDA_RICE_E_ARGUMENT);
	CHECK(tsr_rice_tile(one, 4, o, 0, 2, 32) == TSR_CUDA_RICE_OK);
	/* a 4-byte block code of 31 (split 30 > 25): refused, as the CPU decoder refuses it */
	unsigned char split[8] = {0, 0, 0, 5, 0xf8, 0, 0, 0};
	CHECK(tsr_rice_tile(split, 8, o, 2, 4, 32) == TSR_CUDA_RICE_E_SPLIT);
	CHECK(tsr_rice_decode(o, 2, split, 8, 4, 32) != TSR_OK);
	/* block code 1 (split 0) then only zero bits: one endless unary run, refused as truncated */
	unsigned char *zeros = calloc(1, 4096);
	zeros[2] = 0x10;
	CHECK(tsr_rice_tile(zeros, 4096, o, 3, 2, 32) == TSR_CUDA_RICE_E_TRUNCATED);
	CHECK(tsr_rice_decode(o, 3, zeros, 4096, 2, 32) != TSR_OK);
	free(zeros);
	CHECK(agree_fail > 0); /* the corruptions did reach failing streams */
	printf("ok: %zu decodes equal to the CPU decoder, %zu corrupted streams agree (%zu fail)\n",
	       cases, corrupt, agree_fail);
	return check_failures ? 1 : 0;
}
