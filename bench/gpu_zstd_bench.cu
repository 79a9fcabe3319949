/* gpu_zstd_bench.cu - the GPU zstd decoder alone, device to device, on the issue's three shapes of Zarr zstd chunks and a Blosc2 slot's streams, beside nVCOMP's batched zstd on the same frames. */
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_compressSequences and raw literals (sets f, g) */
#include <lz4.h>
#include <lz4hc.h>
#include <zstd.h>

#include "gpu_check.h"
#include "lz4_walk.h"
#include "blosc_filter_ref.h"
#include "lz_profiles.h"
#include "tsr_cuda.h"

/*
 * Usage: gpu_zstd_bench [--runs R] [--nvcomp LIB] [--sets abcdefghx] [--frames FILE] [--level L] [--count N]
 *                       [--checksum] [--phase-c auto|warps|cells]
 * Sets (libzstd level L, default 3 = zarr-python's and numcodecs' default):
 *   a  10 000 frames of 64 KiB of float32 data (a smooth field with noise in its low bits);
 *   b  64 chunks of 32 MiB: 256^3 uint16 chunks of a 1024^3 volume (a smooth field plus
 *      noise), one frame each (8 distinct chunks, repeated);
 *   c  4096 inner chunks of 64^3 uint16 (512 KiB) of the same volume's sharded variant
 *      (256 distinct, repeated);
 *   d  a Blosc2 slot's streams (not in the default sets): 4096 byte planes of 32 KiB, the 4
 *      planes of 1,024 byte-shuffled blocks of 4 x 8192 float32 (python-blosc2's default
 *      blocks of an 8192-wide array), each its own frame at level 9 (blosc's clevel 5,
 *      python-blosc2's default, is zstd's 2 x 5 - 1; --level sets it) (1,024 distinct,
 *      repeated); the field of bench/blosc2_data.py (gpu-profile-rows' and blosc2_bench's
 *      arrays): its two low planes are all literals;
 *   e  the same of bench/zarr_bench.py's f32_block field (bench/workloads.py's b2_zstd array,
 *      gpu-ab's row): every plane has sequences (parsed from that array's file: about 1,000,
 *      560, 700 and 720 a frame, the top plane up to 3,900);
 *   h  (not in the default sets) a Blosc2 slot's streams with bitshuffle (bench/workloads.py's
 *      b2_zstd_bit array): 2048 blocks of 4 x 8192 float32 of set e's field (128 KiB), each
 *      bitshuffled whole and its own frame at level 9 (one stream a block: blosc does not
 *      split bitshuffled blocks) (512 distinct, repeated);
 *   x  (with --frames FILE) the frames of FILE: records of a 32-bit little-endian decoded size
 *      (the same for all), a 32-bit frame size and the frame, as bench/blosc_frames.py takes
 *      them from a Blosc2 array's chunks (each frame decoded by libzstd for the check);
 *   f  (not in the default sets) the LZ4 streams of gpu_lz_bench's issue row (10 000 x 64 KiB
 *      of byte-shuffled float32, lz4 fast) as zstd frames: each stream's own LZ4 sequences
 *      (literal runs, matches, distances) and raw literals, written by ZSTD_compressSequences,
 *      so that the zstd phases' kernel times on them (scripts/gpu-zstd-variants, ZV_NCU=1) say
 *      what executing LZ4's sequences through phase c would cost beside the LZ4 kernels'
 *      time on the same streams (gpu_lz_bench); g: the same of lz4hc level 9.
 * Every copy has its own input and output place on the device. Each row: one checked run (every
 * output byte against its source), then the median of R runs (default 5) timed with CUDA
 * events around the launcher call (for tessera that includes its scan, its one wait and its
 * scratch allocation). GB/s: decoded bytes (10^9) per second. nvCOMP (dlopen, never linked)
 * decodes the same frames the same way. Table last.
 * --count N: N streams in each set instead (its distinct ones, fewer when N is smaller, repeated):
 * how a phase that runs a warp a frame fares as a batch's frames grow from a few to many.
 * --phase-c: how frames of several blocks execute (tsr_cuda_zstd_batch_c; default: the
 * launcher's choice, as the engine calls it).
 */

typedef struct {
	int backend;
	char reserved[60];
} nvc_opts;
typedef int (*nvc_temp_fn)(size_t, size_t, nvc_opts, size_t *, size_t, cudaStream_t);
typedef int (*nvc_decomp_fn)(const void *const *, const size_t *, const size_t *, size_t *, size_t,
			     void *, size_t, void *const *, nvc_opts, int *, cudaStream_t);

struct set {
	char name[128];
	size_t n, uniq, each;       /* streams, distinct ones, decoded bytes each */
	unsigned char **src, **z;   /* uniq sources and frames */
	size_t *zn;
	unsigned char *d_in, *d_out;
	void **d_inp, **d_outp;
	size_t *d_inn, *d_cap, *d_got;
	int *d_st;
	size_t in_total;
};

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Block u of an 8192-wide float32 field: 4 rows (32,768 values). Set d: rows 32u to 32u + 3 of
 * bench/blosc2_data.py's field (a smooth field plus normal noise of 0.01); sets e and h: rows 4u
 * to 4u + 3 of bench/zarr_bench.py's f32_block (100 sin(y/37) cos(x/53) plus normal noise of 1,
 * rounded to 1/100). */
static void blosc2_block(float *v, size_t u, char which, uint64_t *s)
{
	const size_t w = 8192, rows = 4, n = rows * w;
	for (size_t i = 0; i < n; i++) {
		double noise = lzp_gauss(s);
		if (which == 'd') {
			double y = (double)(u * 32 + i / w), x = (double)(i % w);
			v[i] = (float)(sin(y / 300.0) * cos(x / 200.0) * 1000.0 + noise * 0.01);
		} else {
			float y = (float)(u * rows + i / w), x = (float)(i % w);
			v[i] = 100.0f * sinf(y / 37.0f) * cosf(x / 53.0f) + (float)noise;
			v[i] = rintf(v[i] * 100.0f) / 100.0f;
		}
	}
}

/* That block as blosc leaves it: its 4 byte planes one after another (shuffle; sets d and e),
 * or its 32 bit planes (bitshuffle; set h). */
static void blosc2_filtered(unsigned char *out, size_t u, char which, uint64_t *s)
{
	const size_t n = 4 * 8192;
	float *v = (float *)tu_xmalloc(4 * n);
	blosc2_block(v, u, which == 'h' ? 'e' : which, s);
	if (which == 'h')
		bitshuffle_ref(out, (const uint8_t *)v, 4 * n, 4, n);
	else
		shuffle_ref(out, (const uint8_t *)v, 4 * n, 4);
	free(v);
}

/* a 1024^3 uint16 volume: a smooth field plus a little noise, sampled in a block */
static void volume_block(uint16_t *out, size_t edge, size_t x0, size_t y0, size_t z0, uint64_t *s)
{
	for (size_t z = 0; z < edge; z++)
		for (size_t y = 0; y < edge; y++)
			for (size_t x = 0; x < edge; x++) {
				double v = 2000.0 + 800.0 * sin((double)(x0 + x) * 0.02) *
							     cos((double)(y0 + y) * 0.015) +
					   3.0 * (double)(z0 + z) + (double)(lzp_rand(s) >> 60);
				out[(z * edge + y) * edge + x] = (uint16_t)v;
			}
}

/* Frame of src[0..n): the sequences of its LZ4 block (fast, or HC level 9), their literals
 * raw, one zstd block (n <= 128 KiB), ZSTD_compressSequences's frame into *zn. */
static unsigned char *lz4_as_zstd(ZSTD_CCtx *cc, const unsigned char *src, size_t n, int hc,
				  size_t *zn)
{
	int bound = LZ4_compressBound((int)n);
	unsigned char *b = (unsigned char *)tu_xmalloc((size_t)bound);
	int bn = hc ? LZ4_compress_HC((const char *)src, (char *)b, (int)n, bound, 9)
		    : LZ4_compress_default((const char *)src, (char *)b, (int)n, bound);
	if (bn <= 0 || n > ((size_t)128 << 10)) {
		fprintf(stderr, "lz4: %d\n", bn);
		exit(2);
	}
	ZSTD_Sequence *q = (ZSTD_Sequence *)tu_xmalloc((n / 4 + 2) * sizeof *q);
	size_t nq = 0, ip = 0, op = 0, lit, dist, ml;
	int k;
	while ((k = lz4_walk_seq(b, (size_t)bn, &ip, &lit, &dist, &ml)) >= 0) {
		/* (the last literals: the block's delimiter, a sequence of no match) */
		q[nq].offset = k ? (unsigned)dist : 0, q[nq].litLength = (unsigned)lit;
		q[nq].matchLength = k ? (unsigned)ml : 0, q[nq++].rep = 0;
		op += lit + (k ? ml : 0);
		if (!k)
			break;
	}
	if (op != n) {
		fprintf(stderr, "lz4 parse: %zu of %zu bytes\n", op, n);
		exit(2);
	}
	ZSTD_CCtx_reset(cc, ZSTD_reset_session_and_parameters);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, 3);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_blockDelimiters, ZSTD_sf_explicitBlockDelimiters);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_validateSequences, 1);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_literalCompressionMode, ZSTD_ps_disable);
	size_t cap = ZSTD_compressBound(n);
	unsigned char *z = (unsigned char *)tu_xmalloc(cap);
	*zn = ZSTD_compressSequences(cc, z, cap, q, nq, src, n);
	if (ZSTD_isError(*zn)) {
		fprintf(stderr, "ZSTD_compressSequences: %s\n", ZSTD_getErrorName(*zn));
		exit(2);
	}
	/* (libzstd's own decode of the frame is the source: the sequences were whole) */
	size_t dn = ZSTD_decompress(b, (size_t)bound, z, *zn);
	if (ZSTD_isError(dn) || dn != n || memcmp(b, src, n)) {
		fprintf(stderr, "lz4_as_zstd: the frame does not decode to its source\n");
		exit(2);
	}
	free(q);
	free(b);
	return z;
}

/* --checksum: every frame with its XXH64 checksum (the zstd CLI's default; libzstd's and the
 * Zarr codecs' is none) */
static int with_checksum;

/* --frames FILE: set x's frames */
static const char *frames_path;

/* Set x: the frames of frames_path (the usage above), each decoded by libzstd for the check. */
static void frames_set(struct set *t)
{
	FILE *f = fopen(frames_path, "rb");
	if (!f) {
		fprintf(stderr, "gpu_zstd_bench: cannot open %s\n", frames_path);
		exit(2);
	}
	size_t cap = 0;
	uint32_t hd[2];
	while (fread(hd, 4, 2, f) == 2) {
		if (t->uniq == cap) {
			cap = cap ? 2 * cap : 1024;
			t->src = (unsigned char **)realloc(t->src, cap * sizeof(void *));
			t->z = (unsigned char **)realloc(t->z, cap * sizeof(void *));
			t->zn = (size_t *)realloc(t->zn, cap * sizeof(size_t));
			if (!t->src || !t->z || !t->zn) {
				fprintf(stderr, "gpu_zstd_bench: out of memory\n");
				exit(2);
			}
		}
		if (t->uniq && hd[0] != t->each) {
			fprintf(stderr, "gpu_zstd_bench: %s: frames of %u and %zu bytes\n", frames_path,
				hd[0], t->each);
			exit(2);
		}
		t->each = hd[0];
		unsigned char *z = (unsigned char *)tu_xmalloc(hd[1]), *d = (unsigned char *)tu_xmalloc(hd[0]);
		size_t dn = fread(z, 1, hd[1], f) == hd[1] ? ZSTD_decompress(d, hd[0], z, hd[1]) : 0;
		if (ZSTD_isError(dn) || dn != hd[0]) {
			fprintf(stderr, "gpu_zstd_bench: %s: frame %zu does not decode\n", frames_path,
				t->uniq);
			exit(2);
		}
		t->z[t->uniq] = z, t->zn[t->uniq] = hd[1], t->src[t->uniq++] = d;
	}
	fclose(f);
	if (!t->uniq) {
		fprintf(stderr, "gpu_zstd_bench: %s: no frames\n", frames_path);
		exit(2);
	}
	t->n = t->uniq;
}

static void make_set(struct set *t, char which, int level, size_t count)
{
	unsigned char *planes = NULL; /* sets d and e: a block's 4 planes, made a block at a time */
	memset(t, 0, sizeof *t);
	size_t edge = 0;
	char what[64];
	if (which == 'x') {
		frames_set(t);
		snprintf(what, sizeof what, "%zu-byte frames of %s", t->each, frames_path);
	} else if (which == 'a') {
		snprintf(what, sizeof what, "64 KiB float32");
		t->n = 10000, t->uniq = 500, t->each = 64 << 10;
	} else if (which == 'b') {
		snprintf(what, sizeof what, "32 MiB uint16 (256^3)");
		t->n = 64, t->uniq = 8, t->each = (size_t)32 << 20, edge = 256;
	} else if (which == 'c') {
		snprintf(what, sizeof what, "512 KiB uint16 (64^3)");
		t->n = 4096, t->uniq = 256, t->each = 512 << 10, edge = 64;
	} else if (which == 'f' || which == 'g') {
		snprintf(what, sizeof what, "64 KiB shuffled float32, %s sequences",
			 which == 'f' ? "lz4" : "lz4hc-9");
		t->n = 10000, t->uniq = 500, t->each = 64 << 10;
	} else if (which == 'h') {
		snprintf(what, sizeof what, "128 KiB bitshuffled float32 (b2_zstd_bit, level %d)",
			 level);
		t->n = 2048, t->uniq = 512, t->each = 128 << 10;
	} else {
		snprintf(what, sizeof what, "32 KiB planes of float32 (Blosc2%s, level %d)",
			 which == 'd' ? "" : " b2_zstd", level);
		t->n = 4096, t->uniq = 1024, t->each = 32 << 10;
		planes = (unsigned char *)tu_xmalloc(4 * t->each);
	}
	if (count) {
		t->n = count;
		t->uniq = t->uniq < count ? t->uniq : count;
	}
	snprintf(t->name, sizeof t->name, "%zu x %s%s", t->n, what,
		 with_checksum ? ", checksummed" : "");
	if (which != 'x') {
		t->src = (unsigned char **)tu_xmalloc(t->uniq * sizeof(void *));
		t->z = (unsigned char **)tu_xmalloc(t->uniq * sizeof(void *));
		t->zn = (size_t *)tu_xmalloc(t->uniq * sizeof(size_t));
	}
	uint64_t s = 42;
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	for (size_t u = 0; u < t->uniq && which != 'x'; u++) {
		t->src[u] = (unsigned char *)tu_xmalloc(t->each);
		if (which == 'a')
			lzp_fill(LZP_FLOATS, t->src[u], t->each, u + 1);
		else if (which == 'f' || which == 'g') {
			/* (gpu_lz_bench's streams: the same profile and seeds) */
			lzp_fill(LZP_FLOATS_SHUFFLED, t->src[u], t->each, u + 1);
			t->z[u] = lz4_as_zstd(cc, t->src[u], t->each, which == 'g', &t->zn[u]);
			continue;
		}
		else if (which == 'h')
			blosc2_filtered(t->src[u], u, 'h', &s);
		else if (which == 'd' || which == 'e') {
			if (u % 4 == 0)
				blosc2_filtered(planes, u / 4, which, &s);
			memcpy(t->src[u], planes + (u % 4) * t->each, t->each);
		} else
			volume_block((uint16_t *)t->src[u], edge, (u % 4) * edge, (u / 4 % 4) * edge,
				     u / 16 * edge, &s);
		size_t cap = ZSTD_compressBound(t->each);
		t->z[u] = (unsigned char *)tu_xmalloc(cap);
		/* (without the checksum, the same bytes as ZSTD_compressCCtx at that level: libzstd
		 * 1.5.4, levels -5 to 19, 32 KiB to 1 MiB) */
		ZSTD_CCtx_reset(cc, ZSTD_reset_session_and_parameters);
		ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, level);
		ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, with_checksum);
		t->zn[u] = ZSTD_compress2(cc, t->z[u], cap, t->src[u], t->each);
		if (ZSTD_isError(t->zn[u])) {
			fprintf(stderr, "libzstd: %s\n", ZSTD_getErrorName(t->zn[u]));
			exit(2);
		}
	}
	ZSTD_freeCCtx(cc);
	free(planes);
	size_t *off = (size_t *)tu_xmalloc(t->n * sizeof(size_t));
	for (size_t i = 0; i < t->n; i++) {
		off[i] = t->in_total;
		t->in_total += (t->zn[i % t->uniq] + 255) & ~(size_t)255;
	}
	CK(cudaMalloc((void **)&t->d_in, t->in_total));
	CK(cudaMalloc((void **)&t->d_out, t->n * t->each));
	void **inp = (void **)tu_xmalloc(t->n * sizeof(void *)), **outp = (void **)tu_xmalloc(t->n * sizeof(void *));
	size_t *inn = (size_t *)tu_xmalloc(t->n * sizeof(size_t)), *cap = (size_t *)tu_xmalloc(t->n * sizeof(size_t));
	for (size_t i = 0; i < t->n; i++) {
		size_t u = i % t->uniq;
		CK(cudaMemcpy(t->d_in + off[i], t->z[u], t->zn[u], cudaMemcpyHostToDevice));
		inp[i] = t->d_in + off[i];
		outp[i] = t->d_out + i * t->each;
		inn[i] = t->zn[u];
		cap[i] = t->each;
	}
	CK(cudaMalloc((void **)&t->d_inp, t->n * sizeof(void *)));
	CK(cudaMalloc((void **)&t->d_outp, t->n * sizeof(void *)));
	CK(cudaMalloc((void **)&t->d_inn, t->n * sizeof(size_t)));
	CK(cudaMalloc((void **)&t->d_cap, t->n * sizeof(size_t)));
	CK(cudaMalloc((void **)&t->d_got, t->n * sizeof(size_t)));
	CK(cudaMalloc((void **)&t->d_st, t->n * sizeof(int)));
	CK(cudaMemcpy(t->d_inp, inp, t->n * sizeof(void *), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(t->d_outp, outp, t->n * sizeof(void *), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(t->d_inn, inn, t->n * sizeof(size_t), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(t->d_cap, cap, t->n * sizeof(size_t), cudaMemcpyHostToDevice));
	free(off);
	free(inp);
	free(outp);
	free(inn);
	free(cap);
}

static void free_set(struct set *t)
{
	for (size_t u = 0; u < t->uniq; u++) {
		free(t->src[u]);
		free(t->z[u]);
	}
	free(t->src);
	free(t->z);
	free(t->zn);
	CK(cudaFree(t->d_in));
	CK(cudaFree(t->d_out));
	CK(cudaFree(t->d_inp));
	CK(cudaFree(t->d_outp));
	CK(cudaFree(t->d_inn));
	CK(cudaFree(t->d_cap));
	CK(cudaFree(t->d_got));
	CK(cudaFree(t->d_st));
}

/* Streams of the last run that failed or differ from their source. */
static size_t wrong(const struct set *t)
{
	size_t bad = 0;
	size_t *got = (size_t *)tu_xmalloc(t->n * sizeof(size_t));
	int *st = (int *)tu_xmalloc(t->n * sizeof(int));
	unsigned char *o = (unsigned char *)tu_xmalloc(t->each);
	CK(cudaMemcpy(got, t->d_got, t->n * sizeof(size_t), cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(st, t->d_st, t->n * sizeof(int), cudaMemcpyDeviceToHost));
	for (size_t i = 0; i < t->n; i++) {
		CK(cudaMemcpy(o, t->d_out + i * t->each, t->each, cudaMemcpyDeviceToHost));
		if (st[i] || got[i] != t->each || memcmp(o, t->src[i % t->uniq], t->each)) {
			if (!bad++)
				fprintf(stderr, "stream %zu: status %d, %zu bytes\n", i, st[i], got[i]);
		}
	}
	free(got);
	free(st);
	free(o);
	return bad;
}

static nvc_temp_fn nvc_t;
static nvc_decomp_fn nvc_d;
static int phase_c = TSR_CUDA_ZSTD_C_AUTO;

/* One run in ms: tessera (who 0) or nvCOMP (1). */
static double run(struct set *t, int who, void *temp, size_t temp_n, cudaStream_t cs,
		  cudaEvent_t e0, cudaEvent_t e1)
{
	CK(cudaMemsetAsync(t->d_st, 0x7f, t->n * sizeof(int), cs));
	CK(cudaEventRecord(e0, cs));
	if (who == 0) {
		int rc = tsr_cuda_zstd_batch_c((const void *const *)t->d_inp, t->d_inn, t->d_outp,
					       t->d_cap, t->d_got, t->d_st, t->n, phase_c, cs);
		if (rc) {
			fprintf(stderr, "tsr_cuda_zstd_batch: %d\n", rc);
			exit(1);
		}
	} else {
		nvc_opts o;
		memset(&o, 0, sizeof o);
		int rc = nvc_d((const void *const *)t->d_inp, t->d_inn, t->d_cap, t->d_got, t->n, temp,
			       temp_n, t->d_outp, o, t->d_st, cs);
		if (rc) {
			fprintf(stderr, "nvcompBatchedZstdDecompressAsync: %d\n", rc);
			exit(1);
		}
	}
	CK(cudaEventRecord(e1, cs));
	CK(cudaEventSynchronize(e1));
	CK(cudaGetLastError());
	float ms = 0;
	CK(cudaEventElapsedTime(&ms, e0, e1));
	return ms;
}

int main(int argc, char **argv)
{
	int runs = 5, level = 3, level_given = 0;
	const char *nvlib = NULL, *sets = "abc";
	size_t count = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--runs") && i + 1 < argc)
			runs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--nvcomp") && i + 1 < argc)
			nvlib = argv[++i];
		else if (!strcmp(argv[i], "--sets") && i + 1 < argc)
			sets = argv[++i];
		else if (!strcmp(argv[i], "--level") && i + 1 < argc)
			level = atoi(argv[++i]), level_given = 1;
		else if (!strcmp(argv[i], "--frames") && i + 1 < argc)
			frames_path = argv[++i];
		else if (!strcmp(argv[i], "--checksum"))
			with_checksum = 1;
		else if (!strcmp(argv[i], "--count") && i + 1 < argc)
			count = (size_t)strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--phase-c") && i + 1 < argc &&
			 (!strcmp(argv[i + 1], "auto") || !strcmp(argv[i + 1], "warps") ||
			  !strcmp(argv[i + 1], "cells"))) {
			const char *v = argv[++i];
			phase_c = !strcmp(v, "warps")   ? TSR_CUDA_ZSTD_C_WARPS
				  : !strcmp(v, "cells") ? TSR_CUDA_ZSTD_C_CELLS
							: TSR_CUDA_ZSTD_C_AUTO;
		} else {
			fprintf(stderr, "usage: gpu_zstd_bench [--runs R] [--nvcomp LIB] [--sets abcdefghx] [--frames FILE] "
					"[--level L] [--count N] [--checksum] [--phase-c auto|warps|cells]\n");
			return 2;
		}
	}
	if (runs < 1)
		runs = 1;
	int ndev = 0;
	if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
		printf("gpu_zstd_bench: skipped: no CUDA device\n");
		return 0;
	}
	if (nvlib) {
		void *h = dlopen(nvlib, RTLD_NOW | RTLD_LOCAL);
		if (h) {
			nvc_d = (nvc_decomp_fn)dlsym(h, "nvcompBatchedZstdDecompressAsync");
			nvc_t = (nvc_temp_fn)dlsym(h, "nvcompBatchedZstdDecompressGetTempSize");
		}
		if (!nvc_d || !nvc_t)
			fprintf(stderr, "nvCOMP: %s\n", h ? "missing zstd entry points" : dlerror());
	}
	cudaStream_t cs;
	cudaEvent_t e0, e1;
	CK(cudaStreamCreate(&cs));
	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	char table[4096];
	size_t tl = 0;
	tl += (size_t)snprintf(table + tl, sizeof table - tl,
			       "| set (zstd level %d) | ratio | tessera GB/s | nvCOMP GB/s | tessera / nvCOMP |\n"
			       "|---|---|---|---|---|\n", level);
	int fail = 0;
	double *ms = (double *)tu_xmalloc((size_t)runs * sizeof(double));
	for (const char *c = sets; *c; c++) {
		struct set t;
		make_set(&t, *c, (*c == 'd' || *c == 'e' || *c == 'h') && !level_given ? 9 : level, count);
		double bytes = (double)t.n * (double)t.each, zbytes = 0;
		for (size_t i = 0; i < t.n; i++)
			zbytes += (double)t.zn[i % t.uniq];
		double gbs[2] = {0, 0};
		for (int who = 0; who < 2; who++) {
			void *temp = NULL;
			size_t temp_n = 0;
			if (who == 1) {
				if (!nvc_d)
					continue;
				nvc_opts o;
				memset(&o, 0, sizeof o);
				if (nvc_t(t.n, t.each, o, &temp_n, (size_t)bytes, cs) ||
				    (temp_n && cudaMalloc(&temp, temp_n) != cudaSuccess)) {
					fprintf(stderr, "nvCOMP temp failed\n");
					continue;
				}
			}
			CK(cudaMemset(t.d_out, 0, t.n * t.each));
			run(&t, who, temp, temp_n, cs, e0, e1);
			size_t bad = wrong(&t);
			if (bad) {
				fprintf(stderr, "%s: %s: %zu streams wrong\n", t.name,
					who ? "nvCOMP" : "tessera", bad);
				fail = 1;
			}
			for (int r = 0; r < runs; r++)
				ms[r] = run(&t, who, temp, temp_n, cs, e0, e1);
			qsort(ms, (size_t)runs, sizeof(double), cmp_d);
			gbs[who] = bad ? 0 : bytes / (ms[runs / 2] * 1e6);
			printf("gpu_zstd_bench: %s: %s median %.3f ms (min %.3f) = %.1f GB/s%s\n", t.name,
			       who ? "nvCOMP" : "tessera", ms[runs / 2], ms[0], gbs[who],
			       bad ? " (WRONG)" : "");
			fflush(stdout);
			if (temp)
				CK(cudaFree(temp));
		}
		if (gbs[1] > 0)
			tl += (size_t)snprintf(table + tl, sizeof table - tl,
					       "| %s | %.2f | %.1f | %.1f | %.2f |\n", t.name,
					       bytes / zbytes, gbs[0], gbs[1], gbs[0] / gbs[1]);
		else
			tl += (size_t)snprintf(table + tl, sizeof table - tl,
					       "| %s | %.2f | %.1f | - | - |\n", t.name,
					       bytes / zbytes, gbs[0]);
		free_set(&t);
	}
	printf("\n%s", table);
	free(ms);
	return fail;
}
