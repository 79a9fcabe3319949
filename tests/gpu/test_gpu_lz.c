/* test_gpu_lz.c - the GPU LZ4 and BloscLZ kernels against liblz4, the greedy BloscLZ writer's inputs and, on corrupt streams, their own code run on the CPU. */
#include <cuda_runtime.h>
#include <lz4.h>
#include <lz4hc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_check.h"

#define TSR_LZ_EMU 1
#include "blosclz_core.h"
#include "lz4_core.h"
#include "lz_blosclz_writer.h"
#include "lz_profiles.h"

/*
 * Default: blocks liblz4 made (fast and HC; every profile and size; distances 1..64 that
 * overlap their output), numcodecs' size-prefixed blocks, and BloscLZ streams, each family in
 * one batch; every output must equal its input and every guard after an output stay intact.
 * --corrupt: truncated and damaged copies, each input in an allocation of its own size (for
 * compute-sanitizer memcheck: no read outside a stream), must give the status, size and bytes
 * the same code gives on the CPU (lz4_core.h / blosclz_core.h built as C). Prints "skipped: no
 * CUDA device" and passes where there is no GPU.
 */

#define GUARD 64

struct item {
	unsigned char *z, *raw; /* stream; what it must decode to (NULL: compare with the CPU) */
	size_t zn, n, cap;
	int fam, variant;       /* 0: lz4, 1: blosclz */
};

static struct item *items;
static size_t nitems, items_cap;

static void add(unsigned char *z, size_t zn, unsigned char *raw, size_t n, size_t cap, int fam,
		int variant)
{
	if (nitems == items_cap) {
		items_cap = items_cap ? 2 * items_cap : 256;
		items = (struct item *)realloc(items, items_cap * sizeof(*items));
		if (!items)
			exit(2);
	}
	items[nitems++] = (struct item){z, raw, zn, n, cap, fam, variant};
}

static unsigned char *dup(const unsigned char *p, size_t n)
{
	unsigned char *q = (unsigned char *)tu_xmalloc(n);
	memcpy(q, p, n);
	return q;
}

static void make_lz4(const unsigned char *src, size_t n, int hc, int level, int sized)
{
	int bound = LZ4_compressBound((int)n);
	unsigned char *z = (unsigned char *)tu_xmalloc((size_t)bound + 4);
	int zn = hc ? LZ4_compress_HC((const char *)src, (char *)z + 4, (int)n, bound, level)
		    : LZ4_compress_fast((const char *)src, (char *)z + 4, (int)n, bound, level);
	if (sized) {
		for (int k = 0; k < 4; k++)
			z[k] = (unsigned char)(n >> (8 * k));
		add(z, (size_t)zn + 4, dup(src, n), n, n + 16, 0, TSR_CUDA_LZ4_SIZED);
	} else {
		memmove(z, z + 4, (size_t)zn);
		add(z, (size_t)zn, dup(src, n), n, n, 0, TSR_CUDA_LZ4_RAW);
	}
}

static void make_blosclz(const unsigned char *src, size_t n)
{
	unsigned char *z = (unsigned char *)tu_xmalloc(n + n / 32 + 16);
	size_t zn = lzw_blosclz(src, n, z);
	add(z, zn, dup(src, n), n, n, 1, 0);
}

/* Corrupt copies of the items so far (truncated, bits flipped), judged against the CPU. */
static void make_corrupt(void)
{
	size_t good = nitems;
	uint64_t s = 77;
	for (size_t i = 0; i < good; i++) {
		const struct item *it = &items[i];
		if (it->n > 70000)
			continue;
		for (int t = 0; t < 6; t++) {
			unsigned char *bad = dup(it->z, it->zn + 1);
			size_t bn = it->zn;
			if (t < 2) {
				bn = it->zn ? (size_t)(lzp_rand(&s) % it->zn) : 0;
			} else {
				for (int k = 0; k < 1 + t % 3 && it->zn; k++)
					bad[lzp_rand(&s) % it->zn] ^= (unsigned char)(1u << (lzp_rand(&s) % 8));
			}
			add(bad, bn, NULL, it->n, it->cap, it->fam, it->variant);
		}
	}
	/* drop the good ones */
	memmove(items, items + good, (nitems - good) * sizeof(*items));
	nitems -= good;
}

/* Whether item i goes into a batch of family fam and variant v, of stored streams alone
 * (stored: those a batch's share would send to the few-streams kernel on their own). */
static int takes(size_t i, int fam, int v, int stored)
{
	return items[i].fam == fam && items[i].variant == v &&
	       (!stored || tsr_lz_share_take(items[i].zn, items[i].cap) == TSR_LZ_TAKE_FEW);
}

/* Decodes items [0, nitems) of family fam and variant v (stored: only stored ones) in one
 * launch; checks them. */
static int run(int fam, int v, int separate, int stored, size_t *checked)
{
	size_t n = 0;
	for (size_t i = 0; i < nitems; i++)
		n += takes(i, fam, v, stored);
	if (!n)
		return 0;
	void **hin = (void **)tu_xmalloc(n * sizeof(void *)), **hout = (void **)tu_xmalloc(n * sizeof(void *));
	size_t *hin_n = (size_t *)tu_xmalloc(n * 8), *hcap = (size_t *)tu_xmalloc(n * 8);
	size_t *hgot = (size_t *)tu_xmalloc(n * 8), *idx = (size_t *)tu_xmalloc(n * 8);
	int *hst = (int *)tu_xmalloc(n * sizeof(int));
	size_t k = 0, in_total = 0, out_total = 0;
	for (size_t i = 0; i < nitems; i++) {
		if (!takes(i, fam, v, stored))
			continue;
		idx[k++] = i;
		in_total += (items[i].zn + 15) & ~(size_t)15;
		out_total += (items[i].cap + GUARD + 15) & ~(size_t)15;
	}
	unsigned char *din = NULL, *dout = NULL;
	if (!separate)
		CK(cudaMalloc((void **)&din, in_total ? in_total : 1));
	CK(cudaMalloc((void **)&dout, out_total));
	CK(cudaMemset(dout, 0xa5, out_total));
	size_t io = 0, oo = 0;
	for (k = 0; k < n; k++) {
		const struct item *it = &items[idx[k]];
		if (separate) {
			/* exactly its size: memcheck sees any read past it */
			hin[k] = NULL;
			if (it->zn)
				CK(cudaMalloc(&hin[k], it->zn));
		} else {
			hin[k] = din + io;
			io += (it->zn + 15) & ~(size_t)15;
		}
		if (it->zn)
			CK(cudaMemcpy(hin[k], it->z, it->zn, cudaMemcpyHostToDevice));
		hin_n[k] = it->zn;
		hout[k] = dout + oo;
		hcap[k] = it->cap;
		oo += (it->cap + GUARD + 15) & ~(size_t)15;
	}
	void **dptr;
	size_t *dsz, *dgot;
	int *dst;
	void *scratch;
	CK(cudaMalloc((void **)&dptr, 2 * n * sizeof(void *)));
	CK(cudaMalloc((void **)&dsz, 2 * n * 8));
	CK(cudaMalloc((void **)&dgot, n * 8));
	CK(cudaMalloc((void **)&dst, n * sizeof(int)));
	CK(cudaMalloc(&scratch, 256));
	CK(cudaMemcpy(dptr, hin, n * sizeof(void *), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(dptr + n, hout, n * sizeof(void *), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(dsz, hin_n, n * 8, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(dsz + n, hcap, n * 8, cudaMemcpyHostToDevice));
	int st = fam == 0 ? tsr_cuda_lz4_batch((const void *const *)dptr, dsz, dptr + n, dsz + n,
					       dgot, dst, n, v, scratch, 256, NULL)
			  : tsr_cuda_blosclz_batch((const void *const *)dptr, dsz, dptr + n, dsz + n,
						   dgot, dst, n, v, scratch, 256, NULL);
	if (st) {
		fprintf(stderr, "launch failed: %d\n", st);
		exit(1);
	}
	CK(cudaDeviceSynchronize());
	CK(cudaMemcpy(hgot, dgot, n * 8, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(hst, dst, n * sizeof(int), cudaMemcpyDeviceToHost));
	unsigned char *hout_all = (unsigned char *)tu_xmalloc(out_total);
	CK(cudaMemcpy(hout_all, dout, out_total, cudaMemcpyDeviceToHost));
	int fails = 0;
	static struct tsr_lz_smem m;
	oo = 0;
	for (k = 0; k < n; k++) {
		const struct item *it = &items[idx[k]];
		const unsigned char *o = hout_all + oo;
		oo += (it->cap + GUARD + 15) & ~(size_t)15;
		int guard_ok = 1;
		for (size_t g = it->cap; g < it->cap + GUARD; g++)
			guard_ok &= o[g] == 0xa5;
		const unsigned char *want = it->raw;
		size_t want_n = it->n;
		int want_st = TSR_CUDA_LZ_OK;
		unsigned char *cpu = NULL;
		if (!want) { /* the same code on the CPU */
			cpu = (unsigned char *)tu_xmalloc(it->cap + 1);
			uint64_t g;
			want_st = fam == 0 ? tsr_lz4_stream(&m, it->z, it->zn, cpu, it->cap, v, &g)
					   : tsr_blosclz_stream(&m, it->z, it->zn, cpu, it->cap, &g);
			want = cpu;
			want_n = (size_t)g;
		}
		if (hst[k] != want_st || hgot[k] != want_n || memcmp(o, want, want_n) || !guard_ok) {
			if (fails++ < 10)
				fprintf(stderr, "FAIL %s stream %zu (%zu bytes): GPU status %d (%s), %zu "
					"bytes; expected %d, %zu bytes; guard %s\n",
					fam ? "blosclz" : v ? "lz4 sized" : "lz4", k, it->zn, hst[k],
					tsr_lz_status_text(hst[k]), hgot[k], want_st, want_n,
					guard_ok ? "ok" : "hit");
		}
		free(cpu);
		(*checked)++;
	}
	if (separate)
		for (k = 0; k < n; k++)
			cudaFree(hin[k]);
	cudaFree(din), cudaFree(dout), cudaFree(dptr), cudaFree(dsz), cudaFree(dgot), cudaFree(dst);
	cudaFree(scratch);
	free(hin), free(hout), free(hin_n), free(hcap), free(hgot), free(idx), free(hst), free(hout_all);
	return fails;
}

int main(int argc, char **argv)
{
	int corrupt = argc > 1 && !strcmp(argv[1], "--corrupt");
	int ndev = 0;
	if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
		printf("skipped: no CUDA device\n");
		return 0;
	}
	static const size_t sizes[] = {1, 7, 100, 4096, 65536, 262151};
	unsigned char *buf = (unsigned char *)tu_xmalloc(262151 + 64);
	for (int p = 0; p < LZP_N; p++)
		for (size_t si = 0; si < sizeof(sizes) / sizeof(*sizes); si++) {
			size_t n = sizes[si];
			lzp_fill(p, buf, n, p == LZP_PERIOD ? 1 + si * 5 : si);
			make_lz4(buf, n, 0, 1, 0);
			make_lz4(buf, n, 1, 9, 0);
			make_lz4(buf, n, 0, 1, 1);
			make_blosclz(buf, n);
		}
	for (uint64_t per = 1; per <= 64; per++) {
		lzp_fill(LZP_PERIOD, buf, 20000, per);
		make_lz4(buf, 20000, 0, 1, 0);
		make_lz4(buf, 20000, 1, 12, 0);
		make_blosclz(buf, 20000);
	}
	if (corrupt)
		make_corrupt();
	/* each batch through both kernels: the many-streams one, the few-streams one (a batch's
	 * own size would pick one of them), and the one the batch's stored share picks on the
	 * device, as AUTO runs a large LZ4 batch (the other launch returning at once: a wrong
	 * answer there leaves the batch undecoded) */
	static const int modes[] = {TSR_CUDA_LZ_MANY, TSR_CUDA_LZ_FEW, TSR_CUDA_LZ_SHARE};
	size_t checked = 0, stored = 0;
	int fails = 0;
	for (size_t mi = 0; mi < sizeof modes / sizeof modes[0]; mi++) {
		tsr_cuda_lz_force(modes[mi]);
		fails += run(0, TSR_CUDA_LZ4_RAW, corrupt, 0, &checked) +
			 run(0, TSR_CUDA_LZ4_SIZED, corrupt, 0, &checked) +
			 run(1, 0, corrupt, 0, &checked);
		if (modes[mi] == TSR_CUDA_LZ_SHARE) {
			/* the LZ4 batches of stored streams alone, which the share sends to the
			 * few-streams kernel (the whole ones above go to the many-streams one) */
			size_t before = checked;
			fails += run(0, TSR_CUDA_LZ4_RAW, corrupt, 1, &checked) +
				 run(0, TSR_CUDA_LZ4_SIZED, corrupt, 1, &checked);
			stored = checked - before;
		}
	}
	tsr_cuda_lz_force(TSR_CUDA_LZ_AUTO);
	if (stored == 0) {
		fprintf(stderr, "FAIL: no stored LZ4 stream for the share's few-streams batch\n");
		fails++;
	}
	printf("%s: %zu streams checked (each by both kernels and by the batch's share; %zu stored "
	       "ones alone by the share), %d failures\n",
	       corrupt ? "GPU LZ kernels, corrupt streams (vs the same code on the CPU)"
		       : "GPU LZ kernels (vs the inputs)", checked, stored, fails);
	return fails ? 1 : 0;
}
