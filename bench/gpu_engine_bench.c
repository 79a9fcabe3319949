/* gpu_engine_bench.c - uncompressed FITS batches into GPU memory through the CUDA engine:
 * N files of M MiB (float32, BITPIX -32), warm page cache, GB/s of output; and the same into
 * host memory with the CPU engine for reference. Usage: gpu_engine_bench [DIR] [N] [MiB]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "tessera.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* A minimal FITS primary HDU: float32 image of rows x cols. */
static int write_fits(const char *path, long rows, long cols, unsigned seed)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	char hdr[2880];
	memset(hdr, ' ', sizeof(hdr));
	const char *cards[] = {"SIMPLE  =                    T", "BITPIX  =                  -32",
			       "NAXIS   =                    2", NULL, NULL, "END"};
	char c3[81], c4[81];
	snprintf(c3, sizeof(c3), "NAXIS1  = %20ld", cols);
	snprintf(c4, sizeof(c4), "NAXIS2  = %20ld", rows);
	cards[3] = c3;
	cards[4] = c4;
	for (int i = 0; i < 6; i++)
		memcpy(hdr + 80 * i, cards[i], strlen(cards[i]));
	fwrite(hdr, 1, sizeof(hdr), f);
	size_t n = (size_t)rows * (size_t)cols;
	unsigned char *buf = malloc(n * 4);
	unsigned s = seed * 2654435761u + 1;
	for (size_t i = 0; i < n; i++) {
		s = s * 1664525u + 1013904223u;
		float v = (float)(s >> 8) / 16777216.0f * 1000.0f;
		unsigned char *b = (unsigned char *)&v;
		buf[4 * i] = b[3], buf[4 * i + 1] = b[2], buf[4 * i + 2] = b[1], buf[4 * i + 3] = b[0];
	}
	fwrite(buf, 1, n * 4, f);
	size_t pad = (2880 - (n * 4) % 2880) % 2880;
	memset(buf, 0, pad);
	fwrite(buf, 1, pad, f);
	free(buf);
	return fclose(f);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "/tmp/tsr_gpu_bench";
	int nfiles = argc > 2 ? atoi(argv[2]) : 64;
	long mib = argc > 3 ? atol(argv[3]) : 64;
	long cols = 4096, rows = mib * 1024 * 1024 / 4 / cols;
	mkdir(dir, 0755);
	char **paths = calloc((size_t)nfiles, sizeof(char *));
	for (int i = 0; i < nfiles; i++) {
		paths[i] = malloc(4096);
		snprintf(paths[i], 4096, "%s/img%03d.fits", dir, i);
		struct stat st;
		if (stat(paths[i], &st) != 0 && write_fits(paths[i], rows, cols, (unsigned)i)) {
			fprintf(stderr, "cannot write %s\n", paths[i]);
			return 1;
		}
	}
	size_t per = (size_t)rows * cols * 4, total = per * (size_t)nfiles;
	struct tsr_context *ctx;
	struct tsr_context_options co = {sizeof(co), 0};
	if (tsr_context_create(&co, &ctx))
		return 1;
	/* Warm the page cache and check the CPU path. */
	void *host = malloc(total);
	struct tsr_buffer hb = {host, total, TSR_MEM_HOST, NULL};
	struct tsr_receipt r = {.struct_size = sizeof(r)};
	double best_cpu = 1e30, best_gpu = 1e30;
	for (int it = 0; it < 3; it++) {
		double t0 = now();
		if (tsr_read_batch(ctx, (const char *const *)paths, (size_t)nfiles, NULL, NULL, &hb, NULL, &r)) {
			fprintf(stderr, "cpu: %s\n", tsr_errmsg());
			return 1;
		}
		double t = now() - t0;
		if (t < best_cpu)
			best_cpu = t;
	}
	void *dev = NULL;
	int ndev = 0;
	if (tsr_cuda_device_count(&ndev) || tsr_cuda_malloc(total, &dev)) {
		printf("skipped: no CUDA device (%s)\n", tsr_errmsg());
		printf("| batch | engine | GB/s |\n|---|---|---:|\n| %d x %ld MiB FITS f32 | cpu -> host | %.2f |\n",
		       nfiles, mib, total / best_cpu / 1e9);
		return 0;
	}
	struct tsr_buffer db = {dev, total, TSR_MEM_CUDA, NULL};
	for (int it = 0; it < 5; it++) {
		double t0 = now();
		if (tsr_read_batch(ctx, (const char *const *)paths, (size_t)nfiles, NULL, NULL, &db, NULL, &r)) {
			fprintf(stderr, "cuda: %s\n", tsr_errmsg());
			return 1;
		}
		double t = now() - t0;
		if (t < best_gpu)
			best_gpu = t;
	}
	/* Check: the device copy equals the host read. */
	void *back = malloc(total);
	if (tsr_cuda_memcpy_to_host(back, dev, total) || memcmp(back, host, total)) {
		fprintf(stderr, "MISMATCH between the GPU and CPU reads\n");
		return 1;
	}
	printf("receipt: engine %s, fetch %.3f s, decode %.3f s, place+copy submit %.3f s (summed)\n",
	       r.engine, r.t_fetch, r.t_decode, r.t_place);
	printf("| batch | engine | GB/s |\n|---|---|---:|\n");
	printf("| %d x %ld MiB FITS f32 | cpu -> host | %.2f |\n", nfiles, mib, total / best_cpu / 1e9);
	printf("| %d x %ld MiB FITS f32 | cuda -> device | %.2f |\n", nfiles, mib, total / best_gpu / 1e9);
	tsr_cuda_free(dev);
	tsr_context_free(ctx);
	return 0;
}
