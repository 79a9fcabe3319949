/* test_gpu_rice.c - GPU RICE_1 batches against the source pixels and tessera's CPU decoder: every width, block size and profile, then corrupt tiles. */
#include <cuda_runtime_api.h>

#include "tsr_cuda.h"
#include "rice_tiles.h"

/*
 * Usage: test_gpu_rice [--corrupt]. Without a CUDA device it prints "skipped: no CUDA device"
 * and passes. --corrupt runs only the corrupt batch, small enough for compute-sanitizer.
 * Streams sit at odd offsets; outputs are poisoned with 0xa5 and each is followed by 8 guard
 * bytes that must stay untouched.
 */

/* Decodes the set on the GPU in one launch; status per tile and the whole output come back. */
static void gpu_decode(const struct rt_set *s, const unsigned char *z, int *st, unsigned char *out)
{
	unsigned char *dz, *dout;
	struct tsr_rice_tile *t = (struct tsr_rice_tile *)tu_xmalloc(s->n * sizeof *t), *dt;
	int *dst;
	CK(cudaMalloc((void **)&dz, s->z_nbytes + 1));
	CK(cudaMalloc((void **)&dout, s->raw_nbytes));
	CK(cudaMalloc((void **)&dt, s->n * sizeof *t));
	CK(cudaMalloc((void **)&dst, s->n * sizeof(int)));
	CK(cudaMemcpy(dz, z, s->z_nbytes, cudaMemcpyHostToDevice));
	CK(cudaMemset(dout, 0xa5, s->raw_nbytes));
	for (size_t i = 0; i < s->n; i++) {
		t[i].in = (uint64_t)(uintptr_t)(dz + s->zoff[i]);
		t[i].in_nbytes = s->zn[i];
		t[i].out = (uint64_t)(uintptr_t)(dout + s->roff[i]);
		t[i].npix = s->npix[i];
		t[i].bytepix = s->w[i];
		t[i].blocksize = s->bs[i];
	}
	CK(cudaMemcpy(dt, t, s->n * sizeof *t, cudaMemcpyHostToDevice));
	if (tsr_cuda_rice_batch(dt, dst, s->n, NULL) != 0) {
		fprintf(stderr, "tsr_cuda_rice_batch failed\n");
		exit(1);
	}
	CK(cudaDeviceSynchronize());
	CK(cudaMemcpy(st, dst, s->n * sizeof(int), cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(out, dout, s->raw_nbytes, cudaMemcpyDeviceToHost));
	cudaFree(dz);
	cudaFree(dout);
	cudaFree(dt);
	cudaFree(dst);
	free(t);
}

/* The family launcher (tsr_cuda_rice_streams): the tiles of each variant in one launch, the
 * stream arrays in device memory; returns the tiles whose output or size is wrong. */
static size_t gpu_streams_check(const struct rt_set *s)
{
	size_t bad = 0, n = s->n;
	unsigned char *dz, *dout;
	CK(cudaMalloc((void **)&dz, s->z_nbytes + 1));
	CK(cudaMalloc((void **)&dout, s->raw_nbytes));
	CK(cudaMemcpy(dz, s->z, s->z_nbytes, cudaMemcpyHostToDevice));
	const void **in = (const void **)tu_xmalloc(n * sizeof(void *));
	void **out = (void **)tu_xmalloc(n * sizeof(void *));
	size_t *inn = (size_t *)tu_xmalloc(n * sizeof(size_t)), *cap = (size_t *)tu_xmalloc(n * sizeof(size_t));
	size_t *got = (size_t *)tu_xmalloc(n * sizeof(size_t)), *idx = (size_t *)tu_xmalloc(n * sizeof(size_t));
	int *st = (int *)tu_xmalloc(n * sizeof(int));
	void *d_arr;
	CK(cudaMalloc(&d_arr, n * (3 * sizeof(void *) + 3 * sizeof(size_t) + sizeof(int))));
	unsigned char *h = (unsigned char *)tu_xmalloc(s->raw_nbytes);
	for (int v = 0; v < TSR_CUDA_RICE_VARIANTS; v++) {
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			if (tsr_cuda_rice_variant((int)s->w[i], (int)s->bs[i]) == v) {
				idx[m] = i;
				in[m] = dz + s->zoff[i];
				inn[m] = s->zn[i];
				out[m] = dout + s->roff[i];
				cap[m] = s->npix[i] * s->w[i];
				m++;
			}
		if (!m)
			continue;
		const void **d_in = (const void **)d_arr;
		void **d_out = (void **)(d_in + n);
		size_t *d_inn = (size_t *)(d_out + n), *d_cap = d_inn + n, *d_got = d_cap + n;
		int *d_st = (int *)(d_got + n);
		CK(cudaMemcpy(d_in, in, m * sizeof(void *), cudaMemcpyHostToDevice));
		CK(cudaMemcpy(d_out, out, m * sizeof(void *), cudaMemcpyHostToDevice));
		CK(cudaMemcpy(d_inn, inn, m * sizeof(size_t), cudaMemcpyHostToDevice));
		CK(cudaMemcpy(d_cap, cap, m * sizeof(size_t), cudaMemcpyHostToDevice));
		if (tsr_cuda_rice_streams(d_in, d_inn, d_out, d_cap, d_got, d_st, m, v, NULL, 0, NULL)) {
			fprintf(stderr, "tsr_cuda_rice_streams failed\n");
			exit(1);
		}
		CK(cudaDeviceSynchronize());
		CK(cudaMemcpy(got, d_got, m * sizeof(size_t), cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(st, d_st, m * sizeof(int), cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(h, dout, s->raw_nbytes, cudaMemcpyDeviceToHost));
		for (size_t k = 0; k < m; k++) {
			size_t i = idx[k];
			bad += st[k] != TSR_CUDA_RICE_OK || got[k] != cap[k] ||
			       memcmp(h + s->roff[i], s->raw + s->roff[i], cap[k]);
		}
	}
	cudaFree(dz);
	cudaFree(dout);
	cudaFree(d_arr);
	free(in);
	free(out);
	free(inn);
	free(cap);
	free(got);
	free(idx);
	free(st);
	free(h);
	return bad;
}

static int guard_clean(const struct rt_set *s, const unsigned char *out, size_t i)
{
	const unsigned char *g = out + s->roff[i] + s->npix[i] * s->w[i];
	size_t end = s->roff[i] + (s->npix[i] * s->w[i] + 7) / 8 * 8 + 8;
	for (; g < out + end; g++)
		if (*g != 0xa5)
			return 0;
	return 1;
}

static void set_params(struct rt_set *s, size_t i, struct tu_rng *r, size_t max_pix)
{
	static const double sig[] = {0, 1, 30, 3000, 1e6, -1};
	s->w[i] = (unsigned[]){1, 2, 4}[i % 3];
	s->bs[i] = (i / 3) % 2 ? 16 : 32;
	s->npix[i] = 1 + tu_next(r) % max_pix;
	s->sigma[i] = sig[(i / 6) % 6];
}

int main(int argc, char **argv)
{
	int corrupt_only = argc > 1 && !strcmp(argv[1], "--corrupt");
	int ndev = 0;
	if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
		printf("skipped: no CUDA device\n");
		return 0;
	}
	int fail = 0;
	struct tu_rng r = tu_seed(42);
	if (!corrupt_only) {
		struct rt_set s;
		rt_alloc(&s, 6000);
		for (size_t i = 0; i < s.n; i++)
			set_params(&s, i, &r, i % 50 == 0 ? 70000 : 5000);
		rt_build(&s);
		int *st = (int *)tu_xmalloc(s.n * sizeof(int));
		unsigned char *out = (unsigned char *)tu_xmalloc(s.raw_nbytes);
		gpu_decode(&s, s.z, st, out);
		size_t bad = 0;
		for (size_t i = 0; i < s.n; i++)
			if (st[i] != TSR_CUDA_RICE_OK ||
			    memcmp(out + s.roff[i], s.raw + s.roff[i], s.npix[i] * s.w[i]) ||
			    !guard_clean(&s, out, i)) {
				if (bad++ < 5)
					fprintf(stderr, "FAIL tile %zu (w %u bs %u npix %zu): %s\n", i,
						s.w[i], s.bs[i], s.npix[i], tsr_cuda_rice_status_name(st[i]));
			}
		printf("valid batch: %zu tiles, %zu MB decoded, %zu wrong\n", s.n, s.raw_nbytes >> 20,
		       bad);
		size_t bad2 = gpu_streams_check(&s);
		printf("family launcher (one launch per width and block size): %zu wrong\n", bad2);
		fail |= bad != 0 || bad2 != 0;
		free(st);
		free(out);
		rt_free(&s);
	}
	/* corrupt batch: truncations and flipped bits; the GPU fails a tile exactly when the CPU
	 * decoder does, agrees with it otherwise, and never writes past a tile's output */
	struct rt_set c;
	rt_alloc(&c, 600);
	for (size_t i = 0; i < c.n; i++)
		set_params(&c, i, &r, 3000);
	rt_build(&c);
	unsigned char *z = (unsigned char *)tu_xmalloc(c.z_nbytes + 1);
	memcpy(z, c.z, c.z_nbytes);
	for (size_t i = 0; i < c.n; i++) {
		if (i % 3 == 0)
			c.zn[i] = c.zn[i] * (tu_next(&r) % 100) / 100;
		else if (c.zn[i] > 0)
			z[c.zoff[i] + tu_next(&r) % c.zn[i]] ^= (unsigned char)(1u << (tu_next(&r) % 8));
	}
	int *st = (int *)tu_xmalloc(c.n * sizeof(int));
	unsigned char *out = (unsigned char *)tu_xmalloc(c.raw_nbytes);
	unsigned char *ref = (unsigned char *)tu_xmalloc(c.raw_nbytes);
	gpu_decode(&c, z, st, out);
	size_t bad = 0, failed = 0;
	for (size_t i = 0; i < c.n; i++) {
		int cpu = tsr_rice_decode(ref + c.roff[i], c.npix[i], z + c.zoff[i], c.zn[i],
					  (int)c.w[i], (int)c.bs[i]);
		failed += cpu != 0;
		if ((cpu == 0) != (st[i] == TSR_CUDA_RICE_OK) || !guard_clean(&c, out, i) ||
		    (cpu == 0 && memcmp(out + c.roff[i], ref + c.roff[i], c.npix[i] * c.w[i]))) {
			if (bad++ < 5)
				fprintf(stderr, "FAIL corrupt tile %zu: cpu %d gpu %s\n", i, cpu,
					tsr_cuda_rice_status_name(st[i]));
		}
	}
	printf("corrupt batch: %zu tiles, %zu failing, %zu disagreements\n", c.n, failed, bad);
	fail |= bad != 0 || failed == 0;
	free(z);
	free(st);
	free(out);
	free(ref);
	rt_free(&c);
	printf(fail ? "FAILED\n" : "ok\n");
	return fail;
}
