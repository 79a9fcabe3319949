/* gpu_devices_bench.c - reads split over 1, 2, ... GPUs (warm page cache): a batch of GZIP_2
 * float32 FITS files (tsr_read_batch_devices) and one large uncompressed Zarr v2 array
 * (tsr_read_devices), aggregate decoded GB/s per device count, each checked bit for bit against
 * the one-GPU read; with the CPU engine's host read of the same data (the host's own ceiling:
 * page cache bandwidth and cores).
 * Usage: gpu_devices_bench [DIR] [NFITS] [FITS_MIB] [ZARR_GIB] [MAXDEV]
 * (defaults /tmp/tsr_devices_bench 64 64 4 all). */
#include <fitsio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tessera.h"

#define COLS 4096L
#define ITERS 3
#define MAXDEV 16

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* A sky-like float image on a 1/8 grid: GZIP_2 (lossless) compresses it about 2.6 times, as
 * bench/gpu_fits_gzip_bench.c writes it (one-row tiles, CFITSIO's default). */
static int write_fits(const char *path, long rows, unsigned seed)
{
	float *img = malloc((size_t)rows * COLS * sizeof(float));
	if (!img)
		return -1;
	unsigned s = seed * 2654435761u + 12345;
	for (long y = 0; y < rows; y++)
		for (long x = 0; x < COLS; x++) {
			s = s * 1664525u + 1013904223u;
			double u1 = ((s >> 8) + 0.5) / 16777216.0;
			s = s * 1664525u + 1013904223u;
			double u2 = ((s >> 8) + 0.5) / 16777216.0;
			double g = sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
			double dx = (double)(x % 512 - 256), dy = (double)((y + seed * 37) % 384 - 192);
			double v = 1000 + 300 * exp(-(dx * dx + dy * dy) / 5000.0) + 20 * g;
			img[y * COLS + x] = (float)(floor(v * 8 + 0.5) / 8);
		}
	char name[4200];
	snprintf(name, sizeof(name), "!%s", path);
	int st = 0;
	fitsfile *f = NULL;
	long naxes[2] = {COLS, rows}, tile[2] = {COLS, 1};
	fits_create_file(&f, name, &st);
	fits_set_compression_type(f, GZIP_2, &st);
	fits_set_quantize_level(f, 0.0, &st);
	fits_set_tile_dim(f, 2, tile, &st);
	fits_create_img(f, FLOAT_IMG, 2, naxes, &st);
	fits_write_img(f, TFLOAT, 1, rows * COLS, img, &st);
	fits_close_file(f, &st);
	free(img);
	return st;
}

/* Writes the missing files, one process per core (CFITSIO compresses on one thread). */
static int write_all(char **paths, int n, long rows)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int nproc = ncpu > 0 ? (int)ncpu : 4, bad = 0;
	for (int k = 0; k < nproc; k++) {
		pid_t pid = fork();
		if (pid == 0) {
			int rc = 0;
			for (int i = k; i < n; i += nproc) {
				struct stat st;
				if (stat(paths[i], &st) != 0)
					rc |= write_fits(paths[i], rows, (unsigned)i) != 0;
			}
			_exit(rc);
		}
		if (pid < 0)
			return -1;
	}
	for (int k = 0; k < nproc; k++) {
		int ws = 0;
		if (wait(&ws) < 0 || !WIFEXITED(ws) || WEXITSTATUS(ws))
			bad = 1;
	}
	return bad ? -1 : 0;
}

/* An uncompressed Zarr v2 store: float32 rows x cols in chunks of crows x cols (16 MiB). */
static int write_zarr(const char *dir, long rows, long cols, long crows)
{
	char path[4400];
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/.zarray", dir);
	struct stat st;
	if (stat(path, &st) == 0)
		return 0;
	size_t n = (size_t)crows * (size_t)cols;
	float *buf = malloc(n * 4);
	if (!buf)
		return -1;
	unsigned s = 7;
	for (long i = 0; i < rows / crows; i++) {
		for (size_t k = 0; k < n; k++) {
			s = s * 1664525u + 1013904223u;
			buf[k] = (float)(s >> 8) / 16777216.0f;
		}
		snprintf(path, sizeof(path), "%s/%ld.0", dir, i);
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
		   "\"order\": \"C\", \"filters\": null}\n", rows, cols, crows, cols);
	return fclose(f);
}

struct result {
	double best;     /* seconds */
	int ok;          /* the values equal the one-GPU read's */
};

/* A split over devices 0..nd-1: per-device buffers (sized by share or slab), ITERS timed reads
 * after a warm one, the values copied back into host (total bytes). */
static int run_split(struct tsr_context *ctx, char **paths, int nfits, struct tsr_array *za,
		     int nd, size_t per, size_t total, unsigned char *host, double *best)
{
	int devs[MAXDEV];
	void *mem[MAXDEV] = {0};
	struct tsr_buffer dsts[MAXDEV];
	size_t sizes[MAXDEV];
	int64_t first[MAXDEV], count[MAXDEV];
	int axis = 0, st = 0;
	if (za && tsr_read_slabs(za, NULL, nd, &axis, first, count))
		return -1;
	size_t row = za ? total / (size_t)(first[nd - 1] + count[nd - 1]) : 0;
	for (int j = 0; j < nd; j++) {
		devs[j] = j;
		size_t f, k;
		if (!za) {
			tsr_device_share((size_t)nfits, nd, j, &f, &k);
			sizes[j] = k * per;
		} else {
			sizes[j] = (size_t)count[j] * row;
		}
		if (tsr_cuda_malloc_on(j, sizes[j], &mem[j])) {
			fprintf(stderr, "cudaMalloc on %d: %s\n", j, tsr_errmsg());
			st = -1;
			goto out;
		}
		dsts[j] = (struct tsr_buffer){mem[j], sizes[j], TSR_MEM_CUDA, NULL};
	}
	struct tsr_read_options ro = {.struct_size = sizeof(ro), .devices = devs, .ndevices = nd};
	*best = 1e30;
	for (int it = 0; it <= ITERS; it++) {
		double t0 = now();
		st = za ? tsr_read_devices(za, NULL, dsts, &ro, NULL)
			: tsr_read_batch_devices(ctx, (const char *const *)paths, (size_t)nfits, NULL,
						 NULL, dsts, &ro, NULL);
		double t = now() - t0;
		if (st) {
			fprintf(stderr, "read on %d GPUs: %s\n", nd, tsr_errmsg());
			goto out;
		}
		if (it > 0 && t < *best) /* (read 0 warms the page cache and the rings) */
			*best = t;
	}
	size_t at = 0;
	for (int j = 0; j < nd && !st; j++) {
		st = tsr_cuda_memcpy_to_host(host + at, mem[j], sizes[j]);
		at += sizes[j];
	}
out:
	for (int j = 0; j < nd; j++)
		tsr_cuda_free(mem[j]);
	return st;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "/tmp/tsr_devices_bench";
	int nfits = argc > 2 ? atoi(argv[2]) : 64;
	long mib = argc > 3 ? atol(argv[3]) : 64;
	long gib = argc > 4 ? atol(argv[4]) : 4;
	int maxdev = argc > 5 ? atoi(argv[5]) : MAXDEV;
	int ndev = 0;
	if (tsr_cuda_device_count(&ndev) || ndev < 1) {
		printf("skipped: no CUDA device (%s)\n", tsr_errmsg());
		return 0;
	}
	if (ndev > maxdev)
		ndev = maxdev;
	if (ndev > MAXDEV)
		ndev = MAXDEV;
	mkdir(dir, 0755);
	long rows = mib * (1L << 20) / (COLS * 4);
	char **paths = calloc((size_t)nfits, sizeof(char *));
	for (int i = 0; i < nfits; i++) {
		paths[i] = malloc(4200);
		snprintf(paths[i], 4200, "%s/g%03d_%ldx%ld.fits", dir, i, rows, COLS);
	}
	char zdir[4200];
	const long zcols = 16384, zrows = gib * (1L << 30) / (zcols * 4), zcrows = 256;
	snprintf(zdir, sizeof(zdir), "%s/raw_%ldg.zarr", dir, gib);
	double tw = now();
	if (write_all(paths, nfits, rows) || write_zarr(zdir, zrows, zcols, zcrows)) {
		fprintf(stderr, "cannot write the data under %s\n", dir);
		return 1;
	}
	printf("data ready in %.1f s: %d GZIP_2 float32 FITS of %ld x %ld (%ld MiB), Zarr v2 raw "
	       "float32 %ld x %ld (%ld GiB, %ld-row chunks)\n", now() - tw, nfits, rows, COLS, mib,
	       zrows, zcols, gib, zcrows);
	struct tsr_context *ctx = NULL;
	struct tsr_array *za = NULL;
	if (tsr_context_create(NULL, &ctx) || tsr_open(ctx, zdir, NULL, &za)) {
		fprintf(stderr, "%s\n", tsr_errmsg());
		return 1;
	}
	const size_t per = (size_t)rows * COLS * 4, ftotal = per * (size_t)nfits;
	const size_t ztotal = (size_t)zrows * zcols * 4;
	unsigned char *ref = malloc(ftotal > ztotal ? ftotal : ztotal);
	unsigned char *got = malloc(ftotal > ztotal ? ftotal : ztotal);
	if (!ref || !got) {
		fprintf(stderr, "out of host memory\n");
		return 1;
	}
	printf("\n| workload | GPUs | GB/s (decoded, best of %d) | vs 1 GPU | equal to 1 GPU |\n"
	       "|---|---|---|---|---|\n", ITERS);
	int fail = 0;
	for (int w = 0; w < 2; w++) {
		const size_t total = w ? ztotal : ftotal;
		double one = 0;
		for (int nd = 1; nd <= ndev; nd++) {
			double best = 0;
			unsigned char *into = nd == 1 ? ref : got;
			if (run_split(ctx, paths, nfits, w ? za : NULL, nd, per, total, into, &best)) {
				fail = 1;
				continue;
			}
			double gbs = (double)total / best / 1e9;
			if (nd == 1)
				one = gbs;
			int same = nd == 1 || memcmp(ref, got, total) == 0;
			fail |= !same;
			printf("| %s | %d | %.1f | %.2fx | %s |\n",
			       w ? "zarr2 raw f32 (tsr_read_devices)" : "FITS GZIP_2 f32 batch "
								      "(tsr_read_batch_devices)",
			       nd, gbs, one > 0 ? gbs / one : 0, nd == 1 ? "(reference)" : same ? "yes" : "NO");
		}
		/* The host's ceiling: the CPU engine reading the same data into host memory on all
		 * cores (page cache, then decode for the FITS batch; copies alone for raw Zarr). */
		struct tsr_buffer hb = {got, total, TSR_MEM_HOST, NULL};
		double best = 1e30;
		for (int it = 0; it <= ITERS; it++) {
			double t0 = now();
			int st = w ? tsr_read(za, NULL, &hb, NULL, NULL)
				   : tsr_read_batch(ctx, (const char *const *)paths, (size_t)nfits,
						    NULL, NULL, &hb, NULL, NULL);
			if (st) {
				fprintf(stderr, "host read: %s\n", tsr_errmsg());
				fail = 1;
				break;
			}
			double t = now() - t0;
			if (it > 0 && t < best)
				best = t;
		}
		int same = memcmp(ref, got, total) == 0;
		fail |= !same;
		printf("| %s | host, %d threads | %.1f | - | %s |\n",
		       w ? "zarr2 raw f32 (CPU engine)" : "FITS GZIP_2 f32 batch (CPU engine)",
		       tsr_context_nthreads(ctx), (double)total / best / 1e9, same ? "yes" : "NO");
	}
	tsr_array_free(za);
	tsr_context_free(ctx);
	for (int i = 0; i < nfits; i++)
		free(paths[i]);
	free(paths);
	free(ref);
	free(got);
	return fail;
}
