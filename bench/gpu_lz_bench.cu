/* gpu_lz_bench.cu - the GPU LZ4 and BloscLZ kernels alone, device to device, on many 64 KiB float streams, beside nvCOMP's batched LZ4 on the same LZ4 streams. */
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <lz4.h>
#include <lz4hc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_check.h"
#include "lz_blosclz_writer.h"
#include "lz_profiles.h"
#include "tsr_cuda.h"
extern "C" {
#include "codecs/blosc.h"
}

/*
 * Usage: gpu_lz_bench [--streams N] [--kib K] [--runs R] [--nvcomp LIB] [--kernel auto|many|few|share]
 * N streams (default 10000) of K KiB (64) of float32 data: a smooth field with noise in its low
 * bits, as is (floats) and byte-shuffled as blosc stores it (shuffled), and the top byte plane of
 * a Zarr v2 array's float field (what blosc codes of it: fill_profile); LZ4 fast and HC 9, and
 * BloscLZ (a greedy writer: tests/gpu/lz_blosclz_writer.h). 500 distinct streams repeat to N,
 * each copy in its own place on the device (N x K KiB of output, far past the L2). Each row:
 * one checked run (every byte against the input), then the median of R runs timed with CUDA
 * events; GB/s are decoded bytes (10^9) per second. nvCOMP (loaded with dlopen, never linked)
 * decodes the same LZ4 streams the same way. --kernel forces our many-streams or few-streams
 * kernel (tsr_cuda_lz_force; auto: the batch's size picks). Table last.
 * --mix: rows of streams part coded, part incompressible (PROFILE_MIX) instead.
 * --frames FILE --codec lz4|blosclz: one row instead, FILE's streams (bench/blosc_frames.py's
 * records: a 32-bit little-endian decoded size, the same for all, a 32-bit stream size and the
 * stream: a Blosc2 slot's coded streams), each checked against liblz4 or the library's CPU
 * BloscLZ decoder.
 */

#define UNIQUE 500

typedef struct {
	int backend;
	char reserved[60];
} nvc_opts;
typedef int (*nvc_temp_fn)(size_t, size_t, nvc_opts, size_t *, size_t, cudaStream_t);
typedef int (*nvc_decomp_fn)(const void *const *, const size_t *, const size_t *, size_t *, size_t,
			     void *, size_t, void *const *, nvc_opts, int *, cudaStream_t);

struct set {
	size_t n, each, in_total;
	unsigned char *d_in, *d_out;
	void **d_inp, **d_outp;
	size_t *d_inn, *d_cap, *d_got;
	int *d_st;
	unsigned char *ref; /* uniq x each, the inputs */
	size_t uniq;
	double ratio;
};

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The bench's own profile beside lz_profiles.h's: the stream blosc codes of a Zarr v2 float32
 * array written with lz4 and byte shuffle (bench/zarr_bench.py's field, 100 sin(row / 37)
 * cos(col / 53) plus unit normal noise, rounded to 1/100, rows of 1024): a block's top byte plane
 * (sign and exponent), the one of its four planes LZ4 compresses (blosc stores the other three
 * as they are). Such streams are what a Zarr v2 blosc-lz4 slot's kernel decodes. */
#define PROFILE_ZARR_PLANE LZP_N
/* (the row of --frames' streams) */
#define PROFILE_FRAMES (LZP_N + 1)
/* --mix's rows: streams of 4 KiB pieces, each byte-shuffled floats (as a blosc block lays them)
 * with the chance PROFILE_MIX + k says (k quarters) and floats as they are (incompressible to
 * LZ4) else, so that a batch's stored share runs between the two profiles': where the share
 * that picks a large LZ4 batch's kernel (lz_core.h, tsr_lz_share_take) should lie is read off
 * these rows. */
#define PROFILE_MIX (LZP_N + 2)
#define MIX_PIECE 4096

static const char *profile_name(int p)
{
	static const char *const mix[] = {"mix-0", "mix-25", "mix-50", "mix-75", "mix-100"};
	return p == PROFILE_ZARR_PLANE ? "zarr-f32-top-plane"
	       : p == PROFILE_FRAMES   ? "frames"
	       : p >= PROFILE_MIX      ? mix[p - PROFILE_MIX]
				       : lzp_name[p];
}

/* Fills buf (n bytes) with profile p (seed: which part of the field, or lzp_fill's arg). */
static void fill_profile(int p, unsigned char *buf, size_t n, uint64_t seed)
{
	if (p >= PROFILE_MIX) {
		uint64_t s = seed * 0x9e3779b97f4a7c15ull + 99;
		for (size_t o = 0; o < n; o += MIX_PIECE) {
			size_t k = n - o < MIX_PIECE ? n - o : MIX_PIECE;
			int coded = lzp_rand(&s) % 4 < (uint64_t)(p - PROFILE_MIX);
			lzp_fill(coded ? LZP_FLOATS_SHUFFLED : LZP_FLOATS, buf + o, k,
				 seed * 64 + o / MIX_PIECE);
		}
		return;
	}
	if (p != PROFILE_ZARR_PLANE) {
		lzp_fill(p, buf, n, seed);
		return;
	}
	uint64_t s = seed * 0x9e3779b97f4a7c15ull + 777;
	for (size_t i = 0; i < n; i++) {
		size_t e = (size_t)seed * n + i; /* the element's place in the field */
		double row = (double)(e / 1024), col = (double)(e % 1024);
		double g = lzp_gauss(&s);
		float v = (float)(100.0 * sin(row / 37.0) * cos(col / 53.0) + g);
		v = (float)(round((double)v * 100.0) / 100.0);
		unsigned char b[4];
		memcpy(b, &v, 4);
		buf[i] = b[3];
	}
}

/* The set's per-stream arrays on the device (s->n of each), from the host's. */
static void set_arrays(struct set *s, void **inp, const size_t *inn, void **outp,
		       const size_t *cap)
{
	size_t n = s->n;
	CK(cudaMalloc((void **)&s->d_inp, n * sizeof(void *)));
	CK(cudaMalloc((void **)&s->d_outp, n * sizeof(void *)));
	CK(cudaMalloc((void **)&s->d_inn, n * 8));
	CK(cudaMalloc((void **)&s->d_cap, n * 8));
	CK(cudaMalloc((void **)&s->d_got, n * 8));
	CK(cudaMalloc((void **)&s->d_st, n * sizeof(int)));
	CK(cudaMemcpy(s->d_inp, inp, n * sizeof(void *), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(s->d_outp, outp, n * sizeof(void *), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(s->d_inn, inn, n * 8, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(s->d_cap, cap, n * 8, cudaMemcpyHostToDevice));
}

/* codec 0: lz4 fast, 1: lz4 hc 9, 2: blosclz */
static void make_set(struct set *s, int codec, int profile, size_t n, size_t each)
{
	memset(s, 0, sizeof(*s));
	s->n = n, s->each = each, s->uniq = UNIQUE;
	s->ref = (unsigned char *)malloc(UNIQUE * each);
	size_t bound = (size_t)LZ4_compressBound((int)each) + each / 32 + 64;
	unsigned char *z = (unsigned char *)malloc(UNIQUE * bound);
	size_t zn[UNIQUE], zoff[UNIQUE], total = 0;
	for (size_t u = 0; u < UNIQUE; u++) {
		fill_profile(profile, s->ref + u * each, each, u + 1);
		unsigned char *dst = z + total;
		int r = codec == 0 ? LZ4_compress_default((const char *)s->ref + u * each, (char *)dst,
							  (int)each, (int)bound)
			: codec == 1 ? LZ4_compress_HC((const char *)s->ref + u * each, (char *)dst,
						       (int)each, (int)bound, 9)
				     : (int)lzw_blosclz(s->ref + u * each, each, dst);
		zn[u] = (size_t)r;
		zoff[u] = total;
		total += ((size_t)r + 15) & ~(size_t)15;
	}
	s->ratio = 0;
	for (size_t u = 0; u < UNIQUE; u++)
		s->ratio += (double)zn[u];
	s->ratio = (double)UNIQUE * (double)each / s->ratio;
	/* the N streams: copy k of unique stream k % UNIQUE, each with its own input and output */
	size_t reps = (n + UNIQUE - 1) / UNIQUE;
	s->in_total = total * reps;
	CK(cudaMalloc((void **)&s->d_in, s->in_total));
	CK(cudaMalloc((void **)&s->d_out, n * each));
	for (size_t r = 0; r < reps; r++)
		CK(cudaMemcpy(s->d_in + r * total, z, total, cudaMemcpyHostToDevice));
	void **inp = (void **)malloc(n * sizeof(void *)), **outp = (void **)malloc(n * sizeof(void *));
	size_t *inn = (size_t *)malloc(n * 8), *cap = (size_t *)malloc(n * 8);
	for (size_t k = 0; k < n; k++) {
		size_t u = k % UNIQUE, r = k / UNIQUE;
		inp[k] = s->d_in + r * total + zoff[u];
		inn[k] = zn[u];
		outp[k] = s->d_out + k * each;
		cap[k] = each;
	}
	set_arrays(s, inp, inn, outp, cap);
	free(inp), free(outp), free(inn), free(cap), free(z);
}

/* --frames FILE: the set of FILE's streams (codec 0: lz4, 2: blosclz), each decoded on the CPU
 * for the check (s->ref: their decoded bytes, s->n of them). */
static void frames_set(struct set *s, const char *path, int codec)
{
	memset(s, 0, sizeof(*s));
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "gpu_lz_bench: cannot open %s\n", path);
		exit(2);
	}
	size_t cap = 0, total = 0, zcap = 0, ztotal = 0;
	size_t *zn = NULL, *zoff = NULL;
	unsigned char *z = NULL;
	uint32_t hd[2];
	while (fread(hd, 4, 2, f) == 2) {
		if (s->n && hd[0] != s->each) {
			fprintf(stderr, "gpu_lz_bench: %s: streams of %u and %zu bytes\n", path, hd[0],
				s->each);
			exit(2);
		}
		s->each = hd[0];
		if (s->n == cap) {
			cap = cap ? 2 * cap : 1024;
			zn = (size_t *)realloc(zn, cap * sizeof(size_t));
			zoff = (size_t *)realloc(zoff, cap * sizeof(size_t));
			s->ref = (unsigned char *)realloc(s->ref, cap * s->each);
		}
		size_t need = ztotal + (((size_t)hd[1] + 15) & ~(size_t)15);
		if (need > zcap) {
			zcap = 2 * need;
			z = (unsigned char *)realloc(z, zcap);
		}
		if (!zn || !zoff || !s->ref || !z || fread(z + ztotal, 1, hd[1], f) != hd[1]) {
			fprintf(stderr, "gpu_lz_bench: %s: short or out of memory\n", path);
			exit(2);
		}
		unsigned char *d = s->ref + s->n * s->each;
		size_t dn = 0;
		if (codec == 0) {
			int r = LZ4_decompress_safe((const char *)z + ztotal, (char *)d, (int)hd[1],
						    (int)hd[0]);
			dn = r < 0 ? 0 : (size_t)r;
		} else if (tsr_blosclz_decode(d, hd[0], z + ztotal, hd[1], &dn) != 0) {
			dn = 0;
		}
		if (dn != hd[0]) {
			fprintf(stderr, "gpu_lz_bench: %s: stream %zu does not decode\n", path, s->n);
			exit(2);
		}
		zn[s->n] = hd[1], zoff[s->n] = ztotal;
		ztotal = need;
		total += hd[1];
		s->n++;
	}
	fclose(f);
	if (!s->n) {
		fprintf(stderr, "gpu_lz_bench: %s: no streams\n", path);
		exit(2);
	}
	size_t n = s->n;
	s->uniq = n;
	s->ratio = (double)n * (double)s->each / (double)total;
	s->in_total = ztotal;
	CK(cudaMalloc((void **)&s->d_in, ztotal));
	CK(cudaMalloc((void **)&s->d_out, n * s->each));
	CK(cudaMemcpy(s->d_in, z, ztotal, cudaMemcpyHostToDevice));
	void **inp = (void **)malloc(n * sizeof(void *)), **outp = (void **)malloc(n * sizeof(void *));
	size_t *cp = (size_t *)malloc(n * 8);
	for (size_t k = 0; k < n; k++) {
		inp[k] = s->d_in + zoff[k];
		outp[k] = s->d_out + k * s->each;
		cp[k] = s->each;
	}
	set_arrays(s, inp, zn, outp, cp);
	free(inp), free(outp), free(cp), free(zn), free(zoff), free(z);
}

static void free_set(struct set *s)
{
	cudaFree(s->d_in), cudaFree(s->d_out), cudaFree(s->d_inp), cudaFree(s->d_outp);
	cudaFree(s->d_inn), cudaFree(s->d_cap), cudaFree(s->d_got), cudaFree(s->d_st);
	free(s->ref);
}

/* Every stream's status, size and bytes. Returns the number wrong. */
static size_t check(const struct set *s)
{
	size_t n = s->n, wrong = 0;
	int *st = (int *)malloc(n * sizeof(int));
	size_t *got = (size_t *)malloc(n * 8);
	unsigned char *out = (unsigned char *)malloc(n * s->each);
	CK(cudaMemcpy(st, s->d_st, n * sizeof(int), cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(got, s->d_got, n * 8, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(out, s->d_out, n * s->each, cudaMemcpyDeviceToHost));
	for (size_t k = 0; k < n; k++)
		wrong += st[k] != 0 || got[k] != s->each ||
			 memcmp(out + k * s->each, s->ref + (k % s->uniq) * s->each, s->each);
	free(st), free(got), free(out);
	return wrong;
}

/* 0: tessera lz4, 1: tessera blosclz, 2: nvCOMP lz4. Median ms of runs (checked first). */
static double timed(struct set *s, int who, int runs, void *scratch, nvc_decomp_fn nvc,
		    void *nvc_temp, size_t nvc_temp_n, size_t *wrong)
{
	cudaEvent_t e0, e1;
	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	double *ms = (double *)malloc((size_t)runs * sizeof(double));
	for (int r = -1; r < runs; r++) {
		if (r < 0)
			CK(cudaMemset(s->d_out, 0xa5, s->n * s->each));
		CK(cudaEventRecord(e0, 0));
		int st = 0;
		nvc_opts o;
		memset(&o, 0, sizeof o);
		if (who == 0)
			st = tsr_cuda_lz4_batch((const void *const *)s->d_inp, s->d_inn, s->d_outp,
						s->d_cap, s->d_got, s->d_st, s->n, TSR_CUDA_LZ4_RAW,
						scratch, 256, NULL);
		else if (who == 1)
			st = tsr_cuda_blosclz_batch((const void *const *)s->d_inp, s->d_inn, s->d_outp,
						    s->d_cap, s->d_got, s->d_st, s->n, 0, scratch,
						    256, NULL);
		else
			st = nvc((const void *const *)s->d_inp, s->d_inn, s->d_cap, s->d_got, s->n,
				 nvc_temp, nvc_temp_n, s->d_outp, o, s->d_st, 0);
		if (st) {
			fprintf(stderr, "launch failed: %d\n", st);
			exit(1);
		}
		CK(cudaEventRecord(e1, 0));
		CK(cudaEventSynchronize(e1));
		float t;
		CK(cudaEventElapsedTime(&t, e0, e1));
		if (r < 0)
			*wrong = check(s);
		else
			ms[r] = t;
	}
	qsort(ms, (size_t)runs, sizeof(double), cmp_d);
	double m = ms[runs / 2];
	free(ms);
	cudaEventDestroy(e0), cudaEventDestroy(e1);
	return m;
}

int main(int argc, char **argv)
{
	size_t n = 10000, kib = 64;
	int runs = 20;
	const char *nvlib = NULL, *frames = NULL;
	int frames_codec = 0, max_rows = 0, mix = 0; /* (max_rows 0: every row) */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--streams") && i + 1 < argc)
			n = (size_t)atol(argv[++i]);
		else if (!strcmp(argv[i], "--kib") && i + 1 < argc)
			kib = (size_t)atol(argv[++i]);
		else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
			runs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--nvcomp") && i + 1 < argc)
			nvlib = argv[++i];
		else if (!strcmp(argv[i], "--kernel") && i + 1 < argc && !strcmp(argv[i + 1], "many"))
			++i, tsr_cuda_lz_force(TSR_CUDA_LZ_MANY);
		else if (!strcmp(argv[i], "--kernel") && i + 1 < argc && !strcmp(argv[i + 1], "few"))
			++i, tsr_cuda_lz_force(TSR_CUDA_LZ_FEW);
		else if (!strcmp(argv[i], "--kernel") && i + 1 < argc && !strcmp(argv[i + 1], "share"))
			++i, tsr_cuda_lz_force(TSR_CUDA_LZ_SHARE);
		else if (!strcmp(argv[i], "--kernel") && i + 1 < argc && !strcmp(argv[i + 1], "auto"))
			++i;
		else if (!strcmp(argv[i], "--frames") && i + 1 < argc)
			frames = argv[++i];
		else if (!strcmp(argv[i], "--mix"))
			mix = 1;
		else if (!strcmp(argv[i], "--rows") && i + 1 < argc)
			max_rows = atoi(argv[++i]); /* (the first rows alone: a profile of the first) */
		else if (!strcmp(argv[i], "--codec") && i + 1 < argc &&
			 (!strcmp(argv[i + 1], "lz4") || !strcmp(argv[i + 1], "blosclz")))
			frames_codec = strcmp(argv[++i], "lz4") ? 2 : 0;
		else {
			fprintf(stderr, "usage: gpu_lz_bench [--streams N] [--kib K] [--runs R] [--nvcomp LIB] "
				"[--kernel auto|many|few|share] [--frames FILE --codec lz4|blosclz] [--mix] [--rows N]\n");
			return 2;
		}
	}
	int ndev = 0;
	if (cudaGetDeviceCount(&ndev) != cudaSuccess || !ndev) {
		printf("gpu_lz_bench: skipped: no CUDA device\n");
		return 2;
	}
	nvc_decomp_fn nvc = NULL;
	nvc_temp_fn nvc_t = NULL;
	if (nvlib) {
		void *h = dlopen(nvlib, RTLD_NOW | RTLD_LOCAL);
		if (h) {
			nvc = (nvc_decomp_fn)dlsym(h, "nvcompBatchedLZ4DecompressAsync");
			nvc_t = (nvc_temp_fn)dlsym(h, "nvcompBatchedLZ4DecompressGetTempSize");
		}
		if (!nvc || !nvc_t) {
			fprintf(stderr, "gpu_lz_bench: nvCOMP LZ4 not usable (%s): its column left empty\n",
				h ? "symbols missing" : dlerror());
			nvc = NULL;
		}
	}
	void *scratch;
	CK(cudaMalloc(&scratch, 256));
	struct row {
		int codec, profile;
		const char *name;
	};
	static const struct row all_rows[] = {
		{0, LZP_FLOATS_SHUFFLED, "lz4"}, {0, LZP_FLOATS, "lz4"},
		{1, LZP_FLOATS_SHUFFLED, "lz4hc-9"}, {2, LZP_FLOATS_SHUFFLED, "blosclz"},
		{2, LZP_FLOATS, "blosclz"}, {0, PROFILE_ZARR_PLANE, "lz4"},
		{2, PROFILE_ZARR_PLANE, "blosclz"}};
	static const struct row frame_rows[] = {{0, PROFILE_FRAMES, "lz4"},
						{2, PROFILE_FRAMES, "blosclz"}};
	static const struct row mix_rows[] = {
		{0, PROFILE_MIX + 1, "lz4"}, {0, PROFILE_MIX + 2, "lz4"}, {0, PROFILE_MIX + 3, "lz4"},
		{2, PROFILE_MIX + 1, "blosclz"}, {2, PROFILE_MIX + 2, "blosclz"},
		{2, PROFILE_MIX + 3, "blosclz"}};
	const struct row *rows = frames ? &frame_rows[frames_codec ? 1 : 0] : mix ? mix_rows : all_rows;
	char table[4096];
	size_t tn = 0;
	int bad = 0;
	tn += (size_t)snprintf(table + tn, sizeof table - tn,
			       "| codec | data | streams x KiB | ratio | tessera GB/s | nvCOMP GB/s | tessera / nvCOMP |\n"
			       "|---|---|---|---|---|---|---|\n");
	size_t nrows = frames ? 1 : mix ? sizeof(mix_rows) / sizeof(*mix_rows)
				       : sizeof(all_rows) / sizeof(*all_rows);
	if (max_rows > 0 && (size_t)max_rows < nrows)
		nrows = (size_t)max_rows;
	for (size_t r = 0; r < nrows; r++) {
		struct set s;
		if (frames) {
			frames_set(&s, frames, rows[r].codec);
			n = s.n, kib = s.each >> 10;
		} else {
			make_set(&s, rows[r].codec, rows[r].profile, n, kib << 10);
		}
		size_t wrong = 0, nwrong = 0;
		double ms = timed(&s, rows[r].codec == 2, runs, scratch, NULL, NULL, 0, &wrong);
		double gbs = (double)n * (double)s.each / (ms * 1e6), ngbs = 0;
		printf("gpu_lz_bench: %s %s: tessera %.3f ms, %.1f GB/s, %zu wrong\n", rows[r].name,
		       profile_name(rows[r].profile), ms, gbs, wrong);
		fflush(stdout);
		bad |= wrong != 0;
		if (nvc && rows[r].codec != 2) {
			size_t tb = 0;
			nvc_opts o;
			memset(&o, 0, sizeof o);
			void *tmp = NULL;
			int rc = nvc_t(n, s.each, o, &tb, n * s.each, 0);
			if (rc == 0) {
				if (tb)
					CK(cudaMalloc(&tmp, tb));
				double nms = timed(&s, 2, runs, NULL, nvc, tmp, tb, &nwrong);
				ngbs = (double)n * (double)s.each / (nms * 1e6);
				printf("gpu_lz_bench: %s %s: nvCOMP %.3f ms, %.1f GB/s, %zu wrong\n",
				       rows[r].name, profile_name(rows[r].profile), nms, ngbs, nwrong);
				cudaFree(tmp);
			} else {
				printf("gpu_lz_bench: nvCOMP temp size failed: %d\n", rc);
			}
		}
		/* (a few streams' rows, such as one stream alone, in more digits) */
		tn += (size_t)snprintf(table + tn, sizeof table - tn, "| %s | %s | %zu x %zu | %.2f | %.*f | ",
				       rows[r].name, profile_name(rows[r].profile), n, kib, s.ratio,
				       gbs < 1 ? 4 : 1, gbs);
		if (ngbs > 0)
			tn += (size_t)snprintf(table + tn, sizeof table - tn, "%.1f%s | %.2f |\n", ngbs,
					       nwrong ? " (wrong)" : "", gbs / ngbs);
		else
			tn += (size_t)snprintf(table + tn, sizeof table - tn, "- | - |\n");
		free_set(&s);
	}
	printf("\ngpu_lz_bench: median of %d runs, device to device, decoded GB/s\n%s", runs, table);
	return bad;
}
