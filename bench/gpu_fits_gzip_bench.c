/* gpu_fits_gzip_bench.c - a batch of GZIP_2 lossless float32 FITS files in warm page cache read
 * into GPU memory (GPU inflate decoder; --decoder cpu) and into host memory (CPU engine): GB/s
 * of decoded output. Usage: gpu_fits_gzip_bench [DIR] [N] [MiB] [TILE_ROWS]. */
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

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* A sky-like float image: background, smooth sources, Gaussian noise, on a 1/8 grid (as
 * calibrated counts often are), so that GZIP_2 compresses it about 2.6 times, like real
 * float images (lossless: quantize level 0). */
static int write_fits(const char *path, long rows, long tile_rows, unsigned seed)
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
	long naxes[2] = {COLS, rows}, tile[2] = {COLS, tile_rows};
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
static int write_all(char **paths, int n, long rows, long tile_rows)
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
					rc |= write_fits(paths[i], rows, tile_rows, (unsigned)i) != 0;
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

/* Best of `iters` batch reads into dst; the last read's receipt in *r. */
static double best_read(struct tsr_context *ctx, char **paths, int n, const struct tsr_buffer *dst,
			const struct tsr_read_options *ro, int iters, struct tsr_receipt *r)
{
	double best = 1e30;
	for (int it = 0; it < iters; it++) {
		double t0 = now();
		if (tsr_read_batch(ctx, (const char *const *)paths, (size_t)n, NULL, NULL, dst, ro, r)) {
			fprintf(stderr, "read: %s\n", tsr_errmsg());
			return -1;
		}
		double t = now() - t0;
		if (t < best)
			best = t;
	}
	return best;
}

/* One more batch read into fresh device memory, compared with the CPU engine's values. The
 * buffer stays allocated (to the end of the program), so the next fresh one is other memory. */
static int verify(struct tsr_context *ctx, char **paths, int n, size_t total,
		  const struct tsr_read_options *ro, const void *host, void *back, const char *what)
{
	void *fresh = NULL;
	struct tsr_receipt r = {.struct_size = sizeof(r)};
	if (tsr_cuda_malloc(total, &fresh)) {
		fprintf(stderr, "cudaMalloc: %s\n", tsr_errmsg());
		return -1;
	}
	struct tsr_buffer b = {fresh, total, TSR_MEM_CUDA, NULL};
	if (best_read(ctx, paths, n, &b, ro, 1, &r) < 0)
		return -1;
	if (tsr_cuda_memcpy_to_host(back, fresh, total) || memcmp(back, host, total)) {
		fprintf(stderr, "MISMATCH: %s read != CPU engine read\n", what);
		return -1;
	}
	return 0;
}

/* A batch of four files whose third has a damaged tile (bytes in the middle of the heap
 * flipped: the gzip CRC-32 fails if nothing else does) must fail naming that file, though its
 * tiles share staging slots with the other files'; the context reads on afterwards. */
static int corrupt_check(struct tsr_context *ctx, const char *dir, char **paths, int n,
			 size_t per, void *dev, const struct tsr_read_options *ro)
{
	if (n < 4)
		return 0;
	char bad[4200];
	snprintf(bad, sizeof(bad), "%s/corrupt_tile.fits", dir);
	FILE *in = fopen(paths[2], "rb"), *out = fopen(bad, "wb");
	struct stat st;
	int made = in && out && stat(paths[2], &st) == 0;
	long at = made ? (long)(st.st_size / 2) : 0, pos = 0;
	static unsigned char buf[1 << 16];
	size_t got;
	while (made && (got = fread(buf, 1, sizeof(buf), in)) > 0) {
		for (long i = at > pos ? at - pos : 0; i < (long)got && i < at + 64 - pos; i++)
			buf[i] ^= 0x5a;
		made = fwrite(buf, 1, got, out) == got;
		pos += (long)got;
	}
	if (in)
		fclose(in);
	if (out && fclose(out))
		made = 0;
	if (!made) {
		fprintf(stderr, "cannot make %s\n", bad);
		return -1;
	}
	const char *batch[4] = {paths[0], paths[1], bad, paths[3]};
	struct tsr_buffer b = {dev, 4 * per, TSR_MEM_CUDA, NULL};
	struct tsr_receipt r = {.struct_size = sizeof(r)};
	int rc = tsr_read_batch(ctx, batch, 4, NULL, NULL, &b, ro, &r);
	const char *msg = rc ? tsr_errmsg() : "";
	int ok = rc != 0 && strstr(msg, bad) != NULL;
	printf("check: a damaged tile in a batch's third file: %s (%s)\n", ok ? "fails naming it" :
	       "NOT DETECTED AS EXPECTED", rc ? msg : "read succeeded");
	unlink(bad);
	return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "/tmp/tsr_gzip_bench";
	int nfiles = argc > 2 ? atoi(argv[2]) : 32;
	long mib = argc > 3 ? atol(argv[3]) : 64;
	long tile_rows = argc > 4 ? atol(argv[4]) : 1; /* CFITSIO's default: one row a tile */
	long rows = mib * 1024 * 1024 / 4 / COLS;
	if (nfiles < 1 || rows < 1 || tile_rows < 1) {
		fprintf(stderr, "usage: gpu_fits_gzip_bench [DIR] [N] [MiB] [TILE_ROWS]\n");
		return 2;
	}
	mkdir(dir, 0755);
	char **paths = calloc((size_t)nfiles, sizeof(char *));
	for (int i = 0; i < nfiles; i++) {
		paths[i] = malloc(4096);
		snprintf(paths[i], 4096, "%s/gz2_f32_%ldMiB_t%ld_%03d.fits", dir, mib, tile_rows, i);
	}
	double tw = now();
	if (write_all(paths, nfiles, rows, tile_rows)) {
		fprintf(stderr, "cannot write the files in %s\n", dir);
		return 1;
	}
	tw = now() - tw;
	uint64_t stored = 0;
	for (int i = 0; i < nfiles; i++) {
		struct stat st;
		if (stat(paths[i], &st) == 0)
			stored += (uint64_t)st.st_size;
	}
	size_t per = (size_t)rows * COLS * 4, total = per * (size_t)nfiles;
	printf("%d files x %ld MiB float32, GZIP_2 lossless, tiles of %ld x %ld: %.2f GB stored, "
	       "ratio %.2f (written in %.1f s)\n", nfiles, mib, tile_rows, COLS, stored / 1e9,
	       (double)total / (double)stored, tw);
	struct tsr_context *ctx;
	struct tsr_context_options co = {sizeof(co), 0};
	if (tsr_context_create(&co, &ctx))
		return 1;
	struct tsr_receipt r = {.struct_size = sizeof(r)};
	/* CPU engine into host memory (the first read warms the page cache). */
	void *host = malloc(total), *back = malloc(total);
	if (!host || !back)
		return 1;
	struct tsr_buffer hb = {host, total, TSR_MEM_HOST, NULL};
	double t_cpu = best_read(ctx, paths, nfiles, &hb, NULL, 4, &r);
	if (t_cpu < 0)
		return 1;
	int nthreads = r.nthreads;
	char label[64];
	snprintf(label, sizeof(label), "GZIP_2 f32, %ld-row tiles", tile_rows);
	void *dev = NULL;
	int ndev = 0;
	if (tsr_cuda_device_count(&ndev) || tsr_cuda_malloc(total, &dev)) {
		printf("skipped: no CUDA device (%s)\n", tsr_errmsg());
		printf("| batch | path | GB/s decoded |\n|---|---|---:|\n");
		printf("| %d x %ld MiB %s | cpu engine -> host (%d threads) | %.2f |\n", nfiles, mib,
		       label, nthreads, total / t_cpu / 1e9);
		return 0;
	}
	struct tsr_buffer db = {dev, total, TSR_MEM_CUDA, NULL};
	struct tsr_read_options gpu = {.struct_size = sizeof(gpu), .decoder = TSR_DECODER_AUTO};
	struct tsr_read_options cpu = {.struct_size = sizeof(cpu), .decoder = TSR_DECODER_CPU};
	struct tsr_receipt rg = {.struct_size = sizeof(rg)}, rc = {.struct_size = sizeof(rc)};
	double t_gpu = best_read(ctx, paths, nfiles, &db, &gpu, 6, &rg);
	if (t_gpu < 0)
		return 1;
	if (corrupt_check(ctx, dir, paths, nfiles, per, dev, &gpu))
		return 1;
	/* Checked in memory that never held the result: a chunk left unplaced by the last read
	 * cannot hide behind an earlier read's values. */
	if (verify(ctx, paths, nfiles, total, &gpu, host, back, "GPU decoder"))
		return 1;
	double t_cpudec = best_read(ctx, paths, nfiles, &db, &cpu, 3, &rc);
	if (t_cpudec < 0)
		return 1;
	if (verify(ctx, paths, nfiles, total, &cpu, host, back, "--decoder cpu"))
		return 1;
	printf("receipt (GPU decoder): %s; fetch %.3f s, decode %.3f s (CPU), submit %.3f s "
	       "(summed over threads)\n", rg.decoder, rg.t_fetch, rg.t_decode, rg.t_place);
	printf("receipt (--decoder cpu): %s; fallback: %s\n", rc.decoder, rc.fallback);
	printf("| batch | path | GB/s decoded | GB/s stored |\n|---|---|---:|---:|\n");
	printf("| %d x %ld MiB %s | cuda -> device, GPU inflate | %.2f | %.2f |\n", nfiles, mib,
	       label, total / t_gpu / 1e9, stored / t_gpu / 1e9);
	printf("| %d x %ld MiB %s | cuda -> device, --decoder cpu | %.2f | %.2f |\n", nfiles, mib,
	       label, total / t_cpudec / 1e9, stored / t_cpudec / 1e9);
	printf("| %d x %ld MiB %s | cpu engine -> host (%d threads) | %.2f | %.2f |\n", nfiles, mib,
	       label, nthreads, total / t_cpu / 1e9, stored / t_cpu / 1e9);
	tsr_cuda_free(dev);
	free(host);
	free(back);
	tsr_context_free(ctx);
	for (int i = 0; i < nfiles; i++)
		free(paths[i]);
	free(paths);
	return 0;
}
