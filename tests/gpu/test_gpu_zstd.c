/* test_gpu_zstd.c - the GPU zstd decoder against libzstd on batches of frames libzstd made, and, on corrupt frames, against its own code run on the CPU. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "gpu_check.h"
#include "lz_profiles.h"
#include "zstd_host.h"

/*
 * Default: one batch of frames libzstd made (every lz_profiles.h profile; sizes from 1 byte to
 * 6 MiB, so frames of one to 48 blocks; levels -5..19; with and without checksum and content
 * size; small windows; several frames and skippable frames in one stream), each stream at an
 * odd place of one device buffer; every output must equal its input, every guard after an
 * output stay intact, every status be ok. A second launch with too small capacities must say
 * so for each stream. --corrupt: truncated and damaged single-frame copies, each input in an
 * allocation of exactly its size and each output in one of exactly its capacity (for
 * compute-sanitizer memcheck: nothing outside a stream is read or written), must give the
 * status, size and bytes the same code gives on the CPU (zstd_host.h). Both run with each way
 * of executing frames of several blocks (a warp a frame, by cells) named, and the valid batch
 * also as the launcher picks. Prints "skipped: no CUDA device" and passes where there is no GPU.
 */

#define GUARD 64

struct item {
	uint8_t *z, *raw;
	size_t zn, n, cap;
};
static struct item *items;
static size_t nitems, items_cap;
static int failures;

static void add(uint8_t *z, size_t zn, uint8_t *raw, size_t n, size_t cap)
{
	if (nitems == items_cap) {
		items_cap = items_cap ? 2 * items_cap : 256;
		items = (struct item *)realloc(items, items_cap * sizeof *items);
		if (!items)
			exit(2);
	}
	items[nitems++] = (struct item){z, raw, zn, n, cap};
}

static size_t compress(ZSTD_CCtx *cc, uint8_t *dst, size_t cap, const uint8_t *src, size_t n,
		       int level, int checksum, int wlog, int no_size)
{
	ZSTD_CCtx_reset(cc, ZSTD_reset_session_and_parameters);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, level);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, checksum);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, !no_size);
	if (wlog)
		ZSTD_CCtx_setParameter(cc, ZSTD_c_windowLog, wlog);
	size_t r;
	if (!no_size) {
		r = ZSTD_compress2(cc, dst, cap, src, n);
	} else { /* streamed: the frame has no content size */
		ZSTD_outBuffer ob = {dst, cap, 0};
		ZSTD_inBuffer ib = {src, n, 0};
		do
			r = ZSTD_compressStream2(cc, &ob, &ib, ZSTD_e_end);
		while (!ZSTD_isError(r) && r != 0);
		r = ZSTD_isError(r) ? r : ob.pos;
	}
	if (ZSTD_isError(r)) {
		fprintf(stderr, "libzstd: %s\n", ZSTD_getErrorName(r));
		exit(2);
	}
	return r;
}

static void make_valid(void)
{
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	static const size_t sizes[] = {1, 100, 5000, 65536, 131072, 131073, 1u << 20, 6u << 20};
	static const int levels[] = {-5, -1, 1, 3, 6, 9, 19};
	int combo = 0;
	for (int p = 0; p < LZP_N; p++)
		for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
			for (size_t li = 0; li < sizeof levels / sizeof levels[0]; li++) {
				size_t n = sizes[si];
				int level = levels[li];
				if (n > (1u << 20) && level > 3)
					continue;
				if (n == (1u << 20) && level > 9)
					continue;
				combo++;
				uint8_t *raw = (uint8_t *)tu_xmalloc(n);
				lzp_fill(p, raw, n, (uint64_t)(combo % 64 + 1));
				size_t zc = ZSTD_compressBound(n);
				uint8_t *z = (uint8_t *)tu_xmalloc(zc);
				size_t zn = compress(cc, z, zc, raw, n, level, combo % 2,
						     combo % 5 == 2 ? 12 + combo % 6 : 0, combo % 3 == 1);
				add(z, zn, raw, n, n);
			}
	/* three frames and two skippable frames in one stream */
	size_t n1 = 300000, n2 = 4000, n3 = 90000, n = n1 + n2 + n3;
	uint8_t *raw = (uint8_t *)tu_xmalloc(n);
	lzp_fill(LZP_TEXT, raw, n1, 3);
	lzp_fill(LZP_FLOATS, raw + n1, n2, 4);
	lzp_fill(LZP_SPARSE, raw + n1 + n2, n3, 5);
	size_t zc = ZSTD_compressBound(n) + 100;
	uint8_t *z = (uint8_t *)tu_xmalloc(zc);
	size_t at = compress(cc, z, zc, raw, n1, 3, 1, 0, 0);
	static const uint8_t skip[] = {0x5e, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 9, 9, 9};
	memcpy(z + at, skip, sizeof skip);
	at += sizeof skip;
	at += compress(cc, z + at, zc - at, raw + n1, n2, 19, 0, 0, 1);
	memcpy(z + at, skip, sizeof skip);
	at += sizeof skip;
	at += compress(cc, z + at, zc - at, raw + n1 + n2, n3, -1, 1, 0, 0);
	add(z, at, raw, n, n);
	ZSTD_freeCCtx(cc);
}

static const char *const phase_names[] = {"auto", "warps", "cells"};

/* The launcher the engine calls (phase c its own choice), or phase c named. */
static int batch(const void *const *d_in, const size_t *d_inn, void *const *d_out,
		 const size_t *d_cap, size_t *d_got, int *d_st, size_t n, int phase_c)
{
	if (phase_c == TSR_CUDA_ZSTD_C_AUTO)
		return tsr_cuda_zstd_batch(d_in, d_inn, d_out, d_cap, d_got, d_st, n, 0, NULL, 0,
					   NULL);
	return tsr_cuda_zstd_batch_c(d_in, d_inn, d_out, d_cap, d_got, d_st, n, phase_c, NULL);
}

/* The valid batch: packed inputs at odd offsets, outputs with guards; returns failures. */
static void run_valid(size_t cap_less, int phase_c)
{
	size_t n = nitems, in_total = 0, out_total = 0;
	size_t *in_off = (size_t *)tu_xmalloc(n * sizeof(size_t)), *out_off = (size_t *)tu_xmalloc(n * sizeof(size_t));
	for (size_t i = 0; i < n; i++) {
		in_off[i] = in_total + 1;
		in_total += items[i].zn + 3;
		out_off[i] = out_total;
		out_total += items[i].cap + GUARD;
	}
	uint8_t *h_in = (uint8_t *)tu_xmalloc(in_total), *h_out = (uint8_t *)tu_xmalloc(out_total);
	for (size_t i = 0; i < n; i++)
		memcpy(h_in + in_off[i], items[i].z, items[i].zn);
	uint8_t *d_in, *d_out;
	CK(cudaMalloc((void **)&d_in, in_total));
	CK(cudaMalloc((void **)&d_out, out_total));
	CK(cudaMemcpy(d_in, h_in, in_total, cudaMemcpyHostToDevice));
	CK(cudaMemset(d_out, 0xA5, out_total));
	void **inp = (void **)tu_xmalloc(n * sizeof(void *)), **outp = (void **)tu_xmalloc(n * sizeof(void *));
	size_t *inn = (size_t *)tu_xmalloc(n * sizeof(size_t)), *cap = (size_t *)tu_xmalloc(n * sizeof(size_t));
	for (size_t i = 0; i < n; i++) {
		inp[i] = d_in + in_off[i];
		outp[i] = d_out + out_off[i];
		inn[i] = items[i].zn;
		cap[i] = items[i].cap - (items[i].cap ? cap_less : 0);
	}
	void **d_inp, **d_outp;
	size_t *d_inn, *d_cap, *d_got;
	int *d_st;
	CK(cudaMalloc((void **)&d_inp, n * sizeof(void *)));
	CK(cudaMalloc((void **)&d_outp, n * sizeof(void *)));
	CK(cudaMalloc((void **)&d_inn, n * sizeof(size_t)));
	CK(cudaMalloc((void **)&d_cap, n * sizeof(size_t)));
	CK(cudaMalloc((void **)&d_got, n * sizeof(size_t)));
	CK(cudaMalloc((void **)&d_st, n * sizeof(int)));
	CK(cudaMemcpy(d_inp, inp, n * sizeof(void *), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d_outp, outp, n * sizeof(void *), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d_inn, inn, n * sizeof(size_t), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d_cap, cap, n * sizeof(size_t), cudaMemcpyHostToDevice));
	int rc = batch((const void *const *)d_inp, d_inn, d_outp, d_cap, d_got, d_st, n, phase_c);
	if (rc != 0) {
		fprintf(stderr, "tsr_cuda_zstd_batch: %d\n", rc);
		exit(1);
	}
	CK(cudaDeviceSynchronize());
	size_t *got = (size_t *)tu_xmalloc(n * sizeof(size_t));
	int *st = (int *)tu_xmalloc(n * sizeof(int));
	CK(cudaMemcpy(got, d_got, n * sizeof(size_t), cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(st, d_st, n * sizeof(int), cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(h_out, d_out, out_total, cudaMemcpyDeviceToHost));
	size_t bad = 0, bytes = 0;
	for (size_t i = 0; i < n; i++) {
		const uint8_t *o = h_out + out_off[i];
		int guard_ok = 1;
		for (size_t k = cap[i]; k < items[i].cap + GUARD; k++)
			guard_ok &= o[k] == 0xA5;
		int ok = cap_less ? (st[i] == TSR_CUDA_ZSTD_E_OVERFLOW && got[i] == 0)
				  : (st[i] == 0 && got[i] == items[i].n &&
				     !memcmp(o, items[i].raw, items[i].n));
		if (!ok || !guard_ok) {
			if (bad++ < 10)
				fprintf(stderr, "stream %zu (%zu -> %zu bytes, cap %zu): status %d (%s), %zu "
					"bytes%s%s\n", i, items[i].zn, items[i].n, cap[i], st[i],
					tsr_cuda_zstd_status_name(st[i]), got[i],
					ok ? "" : ", wrong result", guard_ok ? "" : ", guard overwritten");
		}
		bytes += items[i].n;
	}
	printf("%s, phase c %s: %zu streams, %zu bytes decoded: %zu wrong\n",
	       cap_less ? "capacity one byte short" : "valid batch", phase_names[phase_c], n, bytes,
	       bad);
	failures += (int)bad;
	CK(cudaFree(d_in));
	CK(cudaFree(d_out));
	CK(cudaFree(d_inp));
	CK(cudaFree(d_outp));
	CK(cudaFree(d_inn));
	CK(cudaFree(d_cap));
	CK(cudaFree(d_got));
	CK(cudaFree(d_st));
	free(in_off);
	free(out_off);
	free(h_in);
	free(h_out);
	free(inp);
	free(outp);
	free(inn);
	free(cap);
	free(got);
	free(st);
}

/* Damaged single-frame copies of small valid items, each in its own exact allocations. */
static void run_corrupt(int phase_c)
{
	uint64_t seed = 99;
	size_t cap_b = 4096, nb = 0;
	struct item *b = (struct item *)tu_xmalloc(cap_b * sizeof *b);
	for (size_t i = 0; i + 1 < nitems && nb + 8 < cap_b; i += 3) {
		const struct item *it = &items[i];
		if (it->n > 300000)
			continue;
		for (int v = 0; v < 6; v++) {
			uint8_t *z = (uint8_t *)tu_xmalloc(it->zn);
			memcpy(z, it->z, it->zn);
			size_t zn = it->zn, cap = it->cap;
			if (v == 0)
				zn = (size_t)(lzp_rand(&seed) % it->zn);
			else if (v == 5)
				cap = cap ? cap - 1 : 0;
			else
				for (int k = 0; k < v; k++) {
					size_t at = (size_t)(lzp_rand(&seed) % (v & 1 && zn > 40 ? 40 : zn));
					z[at] ^= (uint8_t)(1u << (lzp_rand(&seed) % 8));
				}
			b[nb++] = (struct item){z, NULL, zn, 0, cap};
		}
	}
	size_t n = nb;
	void **inp = (void **)tu_xmalloc(n * sizeof(void *)), **outp = (void **)tu_xmalloc(n * sizeof(void *));
	size_t *inn = (size_t *)tu_xmalloc(n * sizeof(size_t)), *cap = (size_t *)tu_xmalloc(n * sizeof(size_t));
	for (size_t i = 0; i < n; i++) {
		CK(cudaMalloc(&inp[i], b[i].zn ? b[i].zn : 1));
		CK(cudaMalloc(&outp[i], b[i].cap ? b[i].cap : 1));
		if (b[i].zn)
			CK(cudaMemcpy(inp[i], b[i].z, b[i].zn, cudaMemcpyHostToDevice));
		inn[i] = b[i].zn;
		cap[i] = b[i].cap;
	}
	void **d_inp, **d_outp;
	size_t *d_inn, *d_cap, *d_got;
	int *d_st;
	CK(cudaMalloc((void **)&d_inp, n * sizeof(void *)));
	CK(cudaMalloc((void **)&d_outp, n * sizeof(void *)));
	CK(cudaMalloc((void **)&d_inn, n * sizeof(size_t)));
	CK(cudaMalloc((void **)&d_cap, n * sizeof(size_t)));
	CK(cudaMalloc((void **)&d_got, n * sizeof(size_t)));
	CK(cudaMalloc((void **)&d_st, n * sizeof(int)));
	CK(cudaMemcpy(d_inp, inp, n * sizeof(void *), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d_outp, outp, n * sizeof(void *), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d_inn, inn, n * sizeof(size_t), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d_cap, cap, n * sizeof(size_t), cudaMemcpyHostToDevice));
	int rc = batch((const void *const *)d_inp, d_inn, d_outp, d_cap, d_got, d_st, n, phase_c);
	if (rc != 0) {
		fprintf(stderr, "tsr_cuda_zstd_batch: %d\n", rc);
		exit(1);
	}
	CK(cudaDeviceSynchronize());
	size_t *got = (size_t *)tu_xmalloc(n * sizeof(size_t));
	int *st = (int *)tu_xmalloc(n * sizeof(int));
	CK(cudaMemcpy(got, d_got, n * sizeof(size_t), cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(st, d_st, n * sizeof(int), cudaMemcpyDeviceToHost));
	size_t bad = 0, refused = 0;
	for (size_t i = 0; i < n; i++) {
		uint8_t *o = (uint8_t *)tu_xmalloc(b[i].cap), *e = (uint8_t *)tu_xmalloc(b[i].cap);
		size_t eg = 0;
		int est = tsr_zstd_host_decode(b[i].z, b[i].zn, e, b[i].cap, &eg);
		if (b[i].cap)
			CK(cudaMemcpy(o, outp[i], b[i].cap, cudaMemcpyDeviceToHost));
		refused += st[i] != 0;
		if (st[i] != est || got[i] != eg || (est == 0 && memcmp(o, e, eg))) {
			if (bad++ < 10)
				fprintf(stderr, "corrupt %zu: GPU status %d, %zu bytes; CPU %d, %zu bytes\n",
					i, st[i], got[i], est, eg);
		}
		free(o);
		free(e);
		CK(cudaFree(inp[i]));
		CK(cudaFree(outp[i]));
		free(b[i].z);
	}
	printf("corrupt batch, phase c %s: %zu streams (%zu refused): %zu differ from the CPU "
	       "emulation\n", phase_names[phase_c], n, refused, bad);
	failures += (int)bad;
	CK(cudaFree(d_inp));
	CK(cudaFree(d_outp));
	CK(cudaFree(d_inn));
	CK(cudaFree(d_cap));
	CK(cudaFree(d_got));
	CK(cudaFree(d_st));
	free(b);
	free(inp);
	free(outp);
	free(inn);
	free(cap);
	free(got);
	free(st);
}

int main(int argc, char **argv)
{
	int corrupt = argc > 1 && !strcmp(argv[1], "--corrupt");
	int ndev = 0;
	if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
		printf("skipped: no CUDA device\n");
		return 0;
	}
	make_valid();
	/* each way of phase c (zstd.cu): its frames of several blocks by cells or a warp a frame */
	for (int c = TSR_CUDA_ZSTD_C_AUTO; c <= TSR_CUDA_ZSTD_C_CELLS; c++) {
		if (corrupt && c == TSR_CUDA_ZSTD_C_AUTO)
			continue; /* (one of the other two) */
		if (corrupt) {
			run_corrupt(c);
		} else {
			run_valid(0, c);
			run_valid(1, c);
		}
	}
	for (size_t i = 0; i < nitems; i++) {
		free(items[i].z);
		free(items[i].raw);
	}
	free(items);
	if (failures)
		fprintf(stderr, "%d failure(s)\n", failures);
	return failures != 0;
}
