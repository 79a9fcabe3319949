/* test_gpu_inflate.c - GPU DEFLATE/zlib/gzip batches against libdeflate: valid streams of every profile, size and level, then corrupt ones. */
#include <cuda_runtime_api.h>

#include "tsr_cuda.h"
#include "gpu_corrupt.h"

/*
 * Usage: test_gpu_inflate [--corrupt]. Without a CUDA device it prints "skipped: no CUDA
 * device" and passes. --corrupt runs only the corrupt and edge batches, few enough streams for
 * compute-sanitizer. Every batch goes in one launch per framing; streams sit at odd input
 * offsets and in outputs poisoned with 0xa5 and followed by a guard: a decode must not touch
 * any byte past what it reports.
 */

#define GUARD 64

static size_t round_up(size_t x, size_t a)
{
	return (x + a - 1) / a * a;
}

struct batch {
	size_t n;
	const unsigned char **z; /* host streams */
	size_t *zn, *cap;
	int *null_in, *null_out;  /* pass NULL pointers (edge cases) */
	/* results */
	int *st;
	size_t *got;
	unsigned char **out;      /* host copy of each output region: cap + GUARD bytes */
	int *clean;               /* nothing written in [got, cap + GUARD) */
	double ms;
};

static void batch_alloc(struct batch *b, size_t n)
{
	memset(b, 0, sizeof *b);
	b->n = n;
	b->z = (const unsigned char **)calloc(n + 1, sizeof *b->z);
	b->zn = (size_t *)calloc(n + 1, sizeof(size_t));
	b->cap = (size_t *)calloc(n + 1, sizeof(size_t));
	b->null_in = (int *)calloc(n + 1, sizeof(int));
	b->null_out = (int *)calloc(n + 1, sizeof(int));
	b->st = (int *)calloc(n + 1, sizeof(int));
	b->got = (size_t *)calloc(n + 1, sizeof(size_t));
	b->out = (unsigned char **)calloc(n + 1, sizeof *b->out);
	b->clean = (int *)calloc(n + 1, sizeof(int));
}

static void batch_free(struct batch *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->out[i]);
	free(b->z);
	free(b->zn);
	free(b->cap);
	free(b->null_in);
	free(b->null_out);
	free(b->st);
	free(b->got);
	free(b->out);
	free(b->clean);
}

/* One launch over the whole batch. */
static void batch_run(struct batch *b, unsigned framing)
{
	size_t n = b->n, i, in_total = 0, out_total = 0;
	size_t *in_off = (size_t *)tu_xmalloc(n * sizeof(size_t));
	size_t *out_off = (size_t *)tu_xmalloc(n * sizeof(size_t));
	for (i = 0; i < n; i++) {
		in_off[i] = round_up(in_total, 16) + i % 4; /* every input alignment */
		in_total = in_off[i] + b->zn[i];
		out_off[i] = round_up(out_total, 256) + i % 3;
		out_total = out_off[i] + b->cap[i] + GUARD;
	}
	unsigned char *h_in = (unsigned char *)tu_xmalloc(in_total + 1);
	for (i = 0; i < n; i++)
		if (b->zn[i])
			memcpy(h_in + in_off[i], b->z[i], b->zn[i]);

	unsigned char *d_in, *d_out;
	void **h_in_ptr = (void **)tu_xmalloc(n * sizeof(void *));
	void **h_out_ptr = (void **)tu_xmalloc(n * sizeof(void *));
	void **d_in_ptr, **d_out_ptr;
	size_t *d_zn, *d_cap, *d_got, scratch_n;
	int *d_st;
	void *d_scratch;
	cudaStream_t stream;
	cudaEvent_t e0, e1;

	CK(cudaMalloc((void **)&d_in, in_total + 1));
	CK(cudaMalloc((void **)&d_out, out_total + 1));
	CK(cudaMemcpy(d_in, h_in, in_total + 1, cudaMemcpyHostToDevice));
	CK(cudaMemset(d_out, 0xa5, out_total + 1));
	for (i = 0; i < n; i++) {
		h_in_ptr[i] = b->null_in[i] ? NULL : d_in + in_off[i];
		h_out_ptr[i] = b->null_out[i] ? NULL : d_out + out_off[i];
	}
	CK(cudaMalloc((void **)&d_in_ptr, n * sizeof(void *)));
	CK(cudaMalloc((void **)&d_out_ptr, n * sizeof(void *)));
	CK(cudaMalloc((void **)&d_zn, n * sizeof(size_t)));
	CK(cudaMalloc((void **)&d_cap, n * sizeof(size_t)));
	CK(cudaMalloc((void **)&d_got, n * sizeof(size_t)));
	CK(cudaMalloc((void **)&d_st, n * sizeof(int)));
	CK(cudaMemcpy(d_in_ptr, h_in_ptr, n * sizeof(void *), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d_out_ptr, h_out_ptr, n * sizeof(void *), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d_zn, b->zn, n * sizeof(size_t), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d_cap, b->cap, n * sizeof(size_t), cudaMemcpyHostToDevice));
	CK(cudaMemset(d_got, 0xff, n * sizeof(size_t)));
	CK(cudaMemset(d_st, 0xff, n * sizeof(int)));
	tsr_cuda_inflate_scratch_nbytes(n, &scratch_n);
	CK(cudaMalloc(&d_scratch, scratch_n));
	CK(cudaStreamCreate(&stream));
	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));

	CK(cudaEventRecord(e0, stream));
	int rc = tsr_cuda_inflate_batch((const void *const *)d_in_ptr, d_zn, d_out_ptr, d_cap, d_got,
					d_st, n, (int)framing, d_scratch, scratch_n, stream);
	CK(cudaEventRecord(e1, stream));
	if (rc) {
		fprintf(stderr, "tsr_cuda_inflate_batch: %d\n", rc);
		exit(1);
	}
	CK(cudaStreamSynchronize(stream));
	CK(cudaGetLastError());
	float ms;
	CK(cudaEventElapsedTime(&ms, e0, e1));
	b->ms = ms;

	unsigned char *h_out = (unsigned char *)tu_xmalloc(out_total + 1);
	CK(cudaMemcpy(h_out, d_out, out_total + 1, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(b->got, d_got, n * sizeof(size_t), cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(b->st, d_st, n * sizeof(int), cudaMemcpyDeviceToHost));
	for (i = 0; i < n; i++) {
		size_t len = b->cap[i] + GUARD, k;
		b->out[i] = (unsigned char *)tu_xmalloc(len);
		memcpy(b->out[i], h_out + out_off[i], len);
		b->clean[i] = b->got[i] <= b->cap[i];
		for (k = b->clean[i] ? b->got[i] : len; k < len; k++)
			if (b->out[i][k] != 0xa5) {
				b->clean[i] = 0;
				break;
			}
	}
	free(h_out);
	free(h_in);
	free(h_in_ptr);
	free(h_out_ptr);
	free(in_off);
	free(out_off);
	cudaFree(d_in);
	cudaFree(d_out);
	cudaFree(d_in_ptr);
	cudaFree(d_out_ptr);
	cudaFree(d_zn);
	cudaFree(d_cap);
	cudaFree(d_got);
	cudaFree(d_st);
	cudaFree(d_scratch);
	cudaEventDestroy(e0);
	cudaEventDestroy(e1);
	cudaStreamDestroy(stream);
}

/* Valid streams, one batch per framing (and again without checksums for zlib/gzip). */
static int test_valid(struct tu_case *cs, size_t ncases)
{
	int failures = 0;
	char name[160];
	for (unsigned pass = 0; pass < 5; pass++) {
		unsigned fr = pass < 3 ? pass : pass - 2;
		unsigned flags = pass < 3 ? 0 : TSR_CUDA_INFLATE_NO_CHECKSUM;
		struct batch b;
		size_t n = 0, i, bytes = 0, zbytes = 0;
		for (i = 0; i < ncases; i++)
			n += cs[i].framing == (int)fr;
		batch_alloc(&b, n);
		size_t *idx = (size_t *)tu_xmalloc(n * sizeof(size_t));
		for (i = 0, n = 0; i < ncases; i++)
			if (cs[i].framing == (int)fr) {
				idx[n] = i;
				b.z[n] = cs[i].z;
				b.zn[n] = cs[i].zn;
				b.cap[n] = cs[i].cap;
				n++;
			}
		batch_run(&b, fr | flags);
		int bad = 0;
		for (i = 0; i < n; i++) {
			const struct tu_case *c = &cs[idx[i]];
			bytes += c->size;
			zbytes += c->zn;
			if (b.st[i] != TSR_CUDA_INFLATE_OK || b.got[i] != c->size ||
			    memcmp(b.out[i], c->raw, c->size) || !b.clean[i]) {
				tu_case_name(c, name, sizeof name);
				if (bad < 20)
					fprintf(stderr, "FAIL %s: status %d (%s), %zu of %zu bytes%s\n",
						name, b.st[i], tsr_cuda_inflate_status_name(b.st[i]),
						b.got[i], c->size,
						b.clean[i] ? "" : ", wrote past its output");
				bad++;
			}
		}
		printf("valid %-4s%s: %5zu streams, %7.1f MB -> %6.1f MB decoded, %d failed "
		       "(%.2f ms)\n",
		       tu_framing_name[fr], flags ? " (no checksum)" : "              ", n,
		       zbytes / 1e6, bytes / 1e6, bad, b.ms);
		failures += bad;
		free(idx);
		batch_free(&b);
	}
	return failures;
}

static int test_corrupt(struct tu_case *cs, size_t ncases, size_t stride)
{
	struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
	size_t nbad, i;
	int failures = 0, hcrc = 0, nrej = 0;
	struct tu_bad *bad = tu_make_bad(cs, ncases, stride, &nbad);
	for (unsigned fr = 0; fr < 3; fr++) {
		struct batch b;
		size_t n = 0;
		for (i = 0; i < nbad; i++)
			n += bad[i].framing == (int)fr;
		batch_alloc(&b, n);
		size_t *idx = (size_t *)tu_xmalloc(n * sizeof(size_t));
		for (i = 0, n = 0; i < nbad; i++)
			if (bad[i].framing == (int)fr) {
				idx[n] = i;
				b.z[n] = bad[i].z;
				b.zn[n] = bad[i].zn;
				b.cap[n] = bad[i].cap;
				n++;
			}
		batch_run(&b, fr);
		for (i = 0; i < n; i++) {
			const struct tu_bad *x = &bad[idx[i]];
			nrej += b.st[i] != TSR_CUDA_INFLATE_OK;
			if (!b.clean[i]) {
				fprintf(stderr, "%s: wrote past what it reports\n", x->what);
				failures++;
			}
			failures += tu_judge_bad(d, x, b.st[i], b.out[i], b.got[i], &hcrc);
		}
		free(idx);
		batch_free(&b);
	}
	printf("corrupt: %zu streams, %d rejected (as libdeflate, and %d where only zlib or the "
	       "gzip header CRC libdeflate skips reject too), %d wrong\n",
	       nbad, nrej, hcrc, failures);
	tu_free_bad(bad, nbad);
	libdeflate_free_decompressor(d);
	return failures;
}

/* NULL pointers, empty outputs, argument checks. */
static int test_edges(void)
{
	static const unsigned char empty_raw[2] = {0x03, 0x00}; /* fixed block, end-of-block */
	static const unsigned char abc_raw[5] = {0x4b, 0x4c, 0x4a, 0x06, 0x00}; /* "abc" */
	struct batch b;
	int failures = 0;
	batch_alloc(&b, 5);
	b.null_in[0] = 1;               /* NULL, 0 bytes: truncated */
	b.null_in[1] = 1;
	b.zn[1] = 5;                    /* NULL, 5 bytes: argument */
	b.z[1] = abc_raw;
	b.z[2] = empty_raw;             /* empty output into NULL, cap 0: ok */
	b.zn[2] = 2;
	b.null_out[2] = 1;
	b.z[3] = abc_raw;               /* "abc" into cap 0: overflow */
	b.zn[3] = 5;
	b.null_out[3] = 1;
	b.z[4] = abc_raw;               /* "abc" into cap 3: ok */
	b.zn[4] = 5;
	b.cap[4] = 3;
	batch_run(&b, TSR_CUDA_DEFLATE);
	static const int want[5] = {TSR_CUDA_INFLATE_E_TRUNCATED, TSR_CUDA_INFLATE_E_ARGUMENT,
				    TSR_CUDA_INFLATE_OK, TSR_CUDA_INFLATE_E_OVERFLOW,
				    TSR_CUDA_INFLATE_OK};
	for (int i = 0; i < 5; i++)
		if (b.st[i] != want[i] || b.got[i] > b.cap[i]) {
			fprintf(stderr, "edge %d: status %d (%s), %zu bytes; expected %d\n", i, b.st[i],
				tsr_cuda_inflate_status_name(b.st[i]), b.got[i], want[i]);
			failures++;
		}
	if (memcmp(b.out[4], "abc", 3)) {
		fprintf(stderr, "edge 4: wrong bytes\n");
		failures++;
	}
	batch_free(&b);

	/* argument checks, and an empty batch */
	size_t sn;
	void *scratch;
	tsr_cuda_inflate_scratch_nbytes(1, &sn);
	CK(cudaMalloc(&scratch, sn));
	void **p;
	CK(cudaMalloc((void **)&p, 64));
	if (tsr_cuda_inflate_batch((const void *const *)p, (const size_t *)p, p, (const size_t *)p,
				   NULL, NULL, 0, 0, NULL, 0, NULL) != 0 ||
	    tsr_cuda_inflate_batch((const void *const *)p, (const size_t *)p, p, (const size_t *)p,
				   NULL, NULL, 1, 0, scratch, sn - 1, NULL) != -1 ||
	    tsr_cuda_inflate_batch((const void *const *)p, (const size_t *)p, p, (const size_t *)p,
				   NULL, NULL, 1, 3, scratch, sn, NULL) != -1 ||
	    tsr_cuda_inflate_batch(NULL, (const size_t *)p, p, (const size_t *)p, NULL, NULL, 1, 0,
				   scratch, sn, NULL) != -1) {
		fprintf(stderr, "argument checks failed\n");
		failures++;
	}
	cudaFree(p);
	cudaFree(scratch);
	printf("edges: %d wrong\n", failures);
	return failures;
}

int main(int argc, char **argv)
{
	int ndev = 0, corrupt_only = argc > 1 && !strcmp(argv[1], "--corrupt");
	if (cudaGetDeviceCount(&ndev) != cudaSuccess)
		ndev = 0;
	if (ndev == 0) {
		printf("skipped: no CUDA device\n");
		return 0;
	}
	struct cudaDeviceProp prop;
	CK(cudaGetDeviceProperties(&prop, 0));
	printf("device: %s, %d SMs\n", prop.name, prop.multiProcessorCount);

	double t0 = tu_now();
	size_t ncases;
	struct tu_case *cs = tu_make_cases(!corrupt_only, &ncases);
	tu_build_all(cs, ncases);
	printf("%zu cases compressed on the CPU in %.1f s\n", ncases, tu_now() - t0);

	int failures = test_corrupt(cs, ncases, corrupt_only ? 20 : 3);
	failures += test_edges();
	if (!corrupt_only)
		failures += test_valid(cs, ncases); /* after the corrupt batches: nothing sticks */
	tu_free_cases(cs, ncases);
	if (failures) {
		printf("FAILED: %d\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
