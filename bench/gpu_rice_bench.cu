/* gpu_rice_bench.cu - batched GPU RICE_1 decoding throughput (device to device) against tessera's CPU decoder on one thread. */
#include <cuda_runtime.h>

#include "tsr_cuda.h"
#include "rice_tiles.h"

/*
 * Usage: gpu_rice_bench [--images N] [--side S] [--bytepix 2|4] [--sigma X] [--runs R]
 * Defaults: 32 images of 4096 x 4096 int16, one tile per row (CFITSIO's and fpack's default
 * tiling), Gaussian noise of sigma 30 around 1000, block size 32: 131 072 tiles, 1 GiB decoded.
 * Tiles are compressed by CFITSIO on all cores, copied to the device once, then decoded device
 * to device: GB/s are decoded bytes (10^9) per second from CUDA events around one launch,
 * median of --runs after a warm-up; every output is checked against the source pixels. The
 * CPU line is tsr_rice_decode on one thread over the first 256 tiles.
 */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	size_t images = 32, side = 4096;
	unsigned bytepix = 2;
	double sigma = 30;
	int runs = 5;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--images")) images = strtoull(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--side")) side = strtoull(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--bytepix")) bytepix = (unsigned)atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--sigma")) sigma = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--runs")) runs = atoi(argv[i + 1]);
	}
	int ndev = 0;
	if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
		printf("skipped: no CUDA device\n");
		return 0;
	}
	struct rt_set s;
	rt_alloc(&s, images * side);
	for (size_t i = 0; i < s.n; i++) {
		s.w[i] = bytepix;
		s.bs[i] = 32;
		s.npix[i] = side;
		s.sigma[i] = sigma;
	}
	double t0 = tu_now();
	rt_build(&s);
	size_t decoded = 0;
	for (size_t i = 0; i < s.n; i++)
		decoded += s.npix[i] * s.w[i];
	printf("%zu tiles of %zu x %u bytes, %.1f MB compressed (ratio %.2f), built in %.1f s\n", s.n,
	       side, bytepix, s.z_nbytes / 1e6, (double)decoded / (double)s.z_nbytes, tu_now() - t0);

	unsigned char *dz, *dout;
	struct tsr_rice_tile *t = (struct tsr_rice_tile *)tu_xmalloc(s.n * sizeof *t), *dt;
	int *dst;
	CK(cudaMalloc((void **)&dz, s.z_nbytes + 1));
	CK(cudaMalloc((void **)&dout, s.raw_nbytes));
	CK(cudaMalloc((void **)&dt, s.n * sizeof *t));
	CK(cudaMalloc((void **)&dst, s.n * sizeof(int)));
	CK(cudaMemcpy(dz, s.z, s.z_nbytes, cudaMemcpyHostToDevice));
	for (size_t i = 0; i < s.n; i++) {
		t[i].in = (uint64_t)(uintptr_t)(dz + s.zoff[i]);
		t[i].in_nbytes = s.zn[i];
		t[i].out = (uint64_t)(uintptr_t)(dout + s.roff[i]);
		t[i].npix = s.npix[i];
		t[i].bytepix = s.w[i];
		t[i].blocksize = s.bs[i];
	}
	CK(cudaMemcpy(dt, t, s.n * sizeof *t, cudaMemcpyHostToDevice));
	cudaEvent_t a, b;
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	double *ms = (double *)tu_xmalloc((size_t)(runs + 1) * sizeof(double));
	for (int r = -1; r < runs; r++) {
		CK(cudaEventRecord(a, 0));
		if (tsr_cuda_rice_batch(dt, dst, s.n, NULL) != 0) {
			fprintf(stderr, "launch failed\n");
			return 1;
		}
		CK(cudaEventRecord(b, 0));
		CK(cudaEventSynchronize(b));
		float f;
		CK(cudaEventElapsedTime(&f, a, b));
		if (r >= 0)
			ms[r] = f;
	}
	qsort(ms, (size_t)runs, sizeof(double), cmp_double);
	double med = ms[runs / 2];
	int *st = (int *)tu_xmalloc(s.n * sizeof(int));
	unsigned char *out = (unsigned char *)tu_xmalloc(s.raw_nbytes);
	CK(cudaMemcpy(st, dst, s.n * sizeof(int), cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(out, dout, s.raw_nbytes, cudaMemcpyDeviceToHost));
	size_t bad = 0;
	for (size_t i = 0; i < s.n; i++)
		bad += st[i] != 0 || memcmp(out + s.roff[i], s.raw + s.roff[i], s.npix[i] * s.w[i]);
	/* the CPU decoder on one thread, over the first tiles */
	size_t ncpu = s.n < 256 ? s.n : 256, cpu_bytes = 0;
	double c0 = tu_now();
	for (int rep = 0; rep < 4; rep++)
		for (size_t i = 0; i < ncpu; i++) {
			tsr_rice_decode(out + s.roff[i], s.npix[i], s.z + s.zoff[i], s.zn[i],
					(int)s.w[i], (int)s.bs[i]);
			cpu_bytes += s.npix[i] * s.w[i];
		}
	double cpu_s = tu_now() - c0;
	printf("| decoder | GB/s decoded | tiles wrong |\n| --- | ---: | ---: |\n");
	printf("| tessera GPU RICE_1 (median of %d, %.3f ms) | %.1f | %zu |\n", runs, med,
	       (double)decoded / (med * 1e6), bad);
	printf("| tessera CPU RICE_1, 1 thread | %.2f | - |\n", (double)cpu_bytes / cpu_s / 1e9);
	cudaFree(dz);
	cudaFree(dout);
	cudaFree(dt);
	cudaFree(dst);
	free(t);
	free(st);
	free(out);
	free(ms);
	rt_free(&s);
	return bad != 0;
}
