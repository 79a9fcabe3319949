/* gpu_engine_bench.c - uncompressed FITS batches into GPU memory through the CUDA engine:
 * N files of M MiB (float32, BITPIX -32), warm page cache, GB/s of output; and the same into
 * host memory with the CPU engine for reference. Then an uncompressed 2 GiB Zarr v2 array
 * (float32, 16 MiB chunks) the same two ways, and the place kernel alone: the FITS files and the
 * Zarr array read from mock-device storage (chunks replayed from device memory: no I/O, no
 * copy), GB/s of output written by the place kernel. Usage: gpu_engine_bench [DIR] [N] [MiB]. */
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

/* An uncompressed Zarr v2 store: float32 rows x cols in chunks of crows x ccols. */
static int write_zarr(const char *dir, long rows, long cols, long crows, long ccols)
{
	char path[4400];
	if (strlen(dir) > 4096)
		return -1;
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/.zarray", dir);
	struct stat st;
	if (stat(path, &st) == 0)
		return 0;
	size_t n = (size_t)crows * (size_t)ccols;
	float *buf = malloc(n * 4);
	if (!buf)
		return -1;
	unsigned s = 7;
	for (long i = 0; i < rows / crows; i++)
		for (long j = 0; j < cols / ccols; j++) {
			for (size_t k = 0; k < n; k++) {
				s = s * 1664525u + 1013904223u;
				buf[k] = (float)(s >> 8) / 16777216.0f;
			}
			snprintf(path, sizeof(path), "%s/%ld.%ld", dir, i, j);
			FILE *f = fopen(path, "wb");
			if (!f || fwrite(buf, 4, n, f) != n || fclose(f)) {
				free(buf);
				return -1;
			}
		}
	free(buf);
	snprintf(path, sizeof(path), "%s/.zarray", dir);
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "{\"zarr_format\": 2, \"shape\": [%ld, %ld], \"chunks\": [%ld, %ld], "
		   "\"dtype\": \"<f4\", \"compressor\": null, \"fill_value\": 0.0, "
		   "\"order\": \"C\", \"filters\": null}\n", rows, cols, crows, ccols);
	return fclose(f);
}

/* Best seconds of k reads of a into buf (after one untimed read, which fills mock caches). */
static double best_read(struct tsr_array *a, const struct tsr_buffer *buf, int storage, int k,
			struct tsr_receipt *r)
{
	struct tsr_read_options ro = {.struct_size = sizeof(ro), .storage = storage};
	double best = 1e30;
	for (int it = -1; it < k; it++) {
		double t0 = now();
		if (tsr_read(a, NULL, buf, &ro, r)) {
			fprintf(stderr, "read: %s\n", tsr_errmsg());
			return -1;
		}
		double t = now() - t0;
		if (it >= 0 && t < best)
			best = t;
	}
	return best;
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

	/* The place kernel alone: every file's handle kept open and read from mock-device storage
	 * one after another (each read waits for its kernel), output checked. */
	struct tsr_array **arr = calloc((size_t)nfiles, sizeof(*arr));
	double mock_fits = 1e30;
	for (int i = 0; i < nfiles; i++)
		if (tsr_open(ctx, paths[i], NULL, &arr[i])) {
			fprintf(stderr, "%s\n", tsr_errmsg());
			return 1;
		}
	for (int it = -1; it < 5; it++) {
		double t0 = now();
		for (int i = 0; i < nfiles; i++) {
			struct tsr_buffer one = {(char *)dev + (size_t)i * per, per, TSR_MEM_CUDA, NULL};
			struct tsr_read_options ro = {.struct_size = sizeof(ro),
						      .storage = TSR_STORAGE_MOCK_DEVICE};
			if (tsr_read(arr[i], NULL, &one, &ro, &r)) {
				fprintf(stderr, "mock-device: %s\n", tsr_errmsg());
				return 1;
			}
		}
		double t = now() - t0;
		if (it >= 0 && t < mock_fits)
			mock_fits = t;
	}
	memset(back, 0, total);
	if (tsr_cuda_memcpy_to_host(back, dev, total) || memcmp(back, host, total)) {
		fprintf(stderr, "MISMATCH between the mock-device and CPU reads\n");
		return 1;
	}
	printf("mock-device receipt: backend %s, decoder: %s\n", r.backend, r.decoder);
	for (int i = 0; i < nfiles; i++)
		tsr_array_free(arr[i]);
	free(arr);

	/* An uncompressed 2 GiB Zarr v2 array: CPU engine, CUDA engine, mock-device. */
	char zdir[4096 + 16];
	snprintf(zdir, sizeof(zdir), "%s/u2g.zarr", dir);
	long zr = 16384, zc = 32768;
	size_t ztotal = (size_t)zr * zc * 4;
	double z_cpu = -1, z_gpu = -1, z_mock = -1;
	struct tsr_array *za = NULL;
	void *zhost = malloc(ztotal), *zdev = NULL, *zback = malloc(ztotal);
	if (write_zarr(zdir, zr, zc, 1024, 4096) || tsr_open(ctx, zdir, NULL, &za) ||
	    !zhost || !zback || tsr_cuda_malloc(ztotal, &zdev)) {
		fprintf(stderr, "zarr: %s\n", tsr_errmsg());
		return 1;
	}
	struct tsr_buffer zh = {zhost, ztotal, TSR_MEM_HOST, NULL};
	struct tsr_buffer zd = {zdev, ztotal, TSR_MEM_CUDA, NULL};
	z_cpu = best_read(za, &zh, TSR_STORAGE_REAL, 3, &r);
	z_gpu = best_read(za, &zd, TSR_STORAGE_REAL, 5, &r);
	if (z_cpu < 0 || z_gpu < 0 || tsr_cuda_memcpy_to_host(zback, zdev, ztotal) ||
	    memcmp(zback, zhost, ztotal)) {
		fprintf(stderr, "zarr: MISMATCH or failure: %s\n", tsr_errmsg());
		return 1;
	}
	z_mock = best_read(za, &zd, TSR_STORAGE_MOCK_DEVICE, 5, &r);
	memset(zback, 0, ztotal);
	if (z_mock < 0 || tsr_cuda_memcpy_to_host(zback, zdev, ztotal) ||
	    memcmp(zback, zhost, ztotal)) {
		fprintf(stderr, "zarr mock-device: MISMATCH or failure: %s\n", tsr_errmsg());
		return 1;
	}
	tsr_array_free(za);

	printf("| batch | engine | GB/s |\n|---|---|---:|\n");
	printf("| %d x %ld MiB FITS f32 | cpu -> host | %.2f |\n", nfiles, mib, total / best_cpu / 1e9);
	printf("| %d x %ld MiB FITS f32 | cuda -> device | %.2f |\n", nfiles, mib, total / best_gpu / 1e9);
	printf("| %d x %ld MiB FITS f32 | mock-device (place kernel, %d reads) | %.1f |\n", nfiles,
	       mib, nfiles, total / mock_fits / 1e9);
	printf("| Zarr v2 2 GiB f32, 16 MiB chunks | cpu -> host | %.2f |\n", ztotal / z_cpu / 1e9);
	printf("| Zarr v2 2 GiB f32, 16 MiB chunks | cuda -> device | %.2f |\n", ztotal / z_gpu / 1e9);
	printf("| Zarr v2 2 GiB f32, 16 MiB chunks | mock-device (place kernel, 1 read) | %.1f |\n",
	       ztotal / z_mock / 1e9);
	free(zhost);
	free(zback);
	tsr_cuda_free(zdev);
	tsr_cuda_free(dev);
	tsr_context_free(ctx);
	return 0;
}
