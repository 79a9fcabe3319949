/* gpu_host_read_bench.cu - how fast the host's threads read a store's files out of the page cache, by where the bytes land (a slot's pinned staging, pageable memory, small pinned bounce buffers with or without their copy to the device), beside plain memcpy: what bounds the CUDA engine's fill of a blosc slot. */
#define _XOPEN_SOURCE 700
#include <cuda_runtime.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gpu_check.h"

/*
 * Usage: gpu_host_read_bench [--threads "1 8 16"] [--runs R] DIR
 * Every regular file under DIR (a Zarr store's chunk files), each opened, read whole with pread
 * and closed, the files taken in turn by T threads, as the engine's pool fills a slot. Modes:
 *   staging   into one pinned region holding every file at its own offset (a slot's staging)
 *   +copy     the same, then that region to the device in one copy (time of both)
 *   pageable  into one malloc'd region, touched first
 *   bounce    into 3 pinned buffers of 4 MiB a thread, reused (the feed), no copy
 *   bounce+h2d  the same, each piece copied to the device on the thread's own stream at once
 *   pieces+h2d  into the pinned region in pieces of 4 MiB, each copied to the device at once
 *   bounce+h2d+host  bounce+h2d, each piece also copied from its bounce buffer into the region
 *   map-touch  each file mapped and one byte of every 16 KiB read (a blosc header's walk over
 *            its blocks' streams), unmapped; nothing copied
 * (a thread's stream, events and bounce buffers are made before the runs.)
 *   memcpy    no files: T threads memcpy the region's size between two touched regions
 * GB/s of file bytes (10^9) a second, median of R runs after one warm-up run. Table last.
 */

#define BOUNCE (4u << 20)
#define NBOUNCE 3

struct file {
	char *path;
	size_t nbytes, at;
};

static struct file *files;
static size_t nfiles, fcap, total;

static int add(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)f;
	if (flag != FTW_F || !S_ISREG(st->st_mode) || st->st_size == 0 || strstr(p, "/."))
		return 0;
	if (nfiles == fcap) {
		fcap = fcap ? 2 * fcap : 1024;
		files = (struct file *)realloc(files, fcap * sizeof(*files));
	}
	files[nfiles++] = (struct file){strdup(p), (size_t)st->st_size, total};
	total += (size_t)st->st_size;
	return 0;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

enum { STAGING, STAGING_COPY, PAGEABLE, BOUNCE_ONLY, BOUNCE_H2D, PIECES_H2D, BOUNCE_HOST,
       MAP_TOUCH, MEMCPY, NMODES };
static const char *mode_name[NMODES] = {"staging", "+copy", "pageable", "bounce",
					"bounce+h2d", "pieces+h2d", "bounce+h2d+host",
					"map-touch", "memcpy"};
static volatile unsigned sink;

/* a thread's own stream, events and bounce buffers */
struct lane {
	cudaStream_t s;
	cudaEvent_t ev[NBOUNCE];
	unsigned char *bounce[NBOUNCE];
	unsigned nb;
};
static struct lane lanes[64]; /* (--threads: at most 64) */

struct run {
	int mode, nthreads;
	unsigned char *region, *region2, *dev;
	size_t next; /* (taken with __atomic_fetch_add) */
	int lanes_taken;
};

static void read_file(const struct file *f, unsigned char *dst)
{
	int fd = open(f->path, O_RDONLY);
	if (fd < 0) {
		perror(f->path);
		exit(1);
	}
	size_t got = 0;
	while (got < f->nbytes) {
		ssize_t r = pread(fd, dst + got, f->nbytes - got, (off_t)got);
		if (r <= 0) {
			perror(f->path);
			exit(1);
		}
		got += (size_t)r;
	}
	close(fd);
}

static void *worker(void *arg)
{
	struct run *r = (struct run *)arg;
	if (r->mode == MEMCPY) {
		/* thread k of T copies its share */
		size_t k = __atomic_fetch_add(&r->next, 1, __ATOMIC_RELAXED), n = (size_t)r->nthreads;
		size_t a = total * k / n, b = total * (k + 1) / n;
		memcpy(r->region2 + a, r->region + a, b - a);
		return NULL;
	}
	int bounced = r->mode == BOUNCE_ONLY || r->mode == BOUNCE_H2D || r->mode == BOUNCE_HOST;
	int pieces = bounced || r->mode == PIECES_H2D;
	struct lane *l = &lanes[__atomic_fetch_add(&r->lanes_taken, 1, __ATOMIC_RELAXED)];
	for (;;) {
		size_t i = __atomic_fetch_add(&r->next, 1, __ATOMIC_RELAXED);
		if (i >= nfiles)
			break;
		const struct file *f = &files[i];
		if (r->mode == MAP_TOUCH) {
			int fd = open(f->path, O_RDONLY);
			const unsigned char *m = (const unsigned char *)mmap(
				NULL, f->nbytes, PROT_READ, MAP_SHARED, fd, 0);
			close(fd);
			if (m == MAP_FAILED) {
				perror(f->path);
				exit(1);
			}
			unsigned acc = 0;
			for (size_t at = 0; at < f->nbytes; at += 16384)
				acc += m[at];
			sink += acc;
			munmap((void *)m, f->nbytes);
			continue;
		}
		if (!pieces) {
			read_file(f, r->region + f->at);
			continue;
		}
		int fd = open(f->path, O_RDONLY);
		for (size_t off = 0; off < f->nbytes; off += BOUNCE) {
			size_t n = f->nbytes - off < BOUNCE ? f->nbytes - off : BOUNCE;
			int k = l->nb++ % NBOUNCE;
			unsigned char *dst = r->region + f->at + off;
			if (bounced) {
				CK(cudaEventSynchronize(l->ev[k]));
				dst = l->bounce[k];
			}
			if (pread(fd, dst, n, (off_t)off) != (ssize_t)n) {
				perror(f->path);
				exit(1);
			}
			if (r->mode != BOUNCE_ONLY)
				CK(cudaMemcpyAsync(r->dev + f->at + off, dst, n,
						   cudaMemcpyHostToDevice, l->s));
			if (bounced)
				CK(cudaEventRecord(l->ev[k], l->s));
			if (r->mode == BOUNCE_HOST)
				memcpy(r->region + f->at + off, dst, n);
		}
		close(fd);
	}
	if (pieces)
		CK(cudaStreamSynchronize(l->s));
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	const char *threads = "1 8 16";
	int runs = 5;
	int i = 1;
	for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
		if (!strcmp(argv[i], "--threads"))
			threads = argv[i + 1];
		else if (!strcmp(argv[i], "--runs"))
			runs = atoi(argv[i + 1]);
	}
	if (i >= argc || runs < 1 || runs > 99) {
		fprintf(stderr, "usage: gpu_host_read_bench [--threads LIST] [--runs R] DIR\n");
		return 2;
	}
	nftw(argv[i], add, 64, FTW_PHYS);
	if (!nfiles) {
		fprintf(stderr, "%s: no files\n", argv[i]);
		return 1;
	}
	unsigned char *pinned, *pageable = (unsigned char *)malloc(total),
			       *pageable2 = (unsigned char *)malloc(total), *dev;
	CK(cudaHostAlloc((void **)&pinned, total, cudaHostAllocDefault));
	CK(cudaMalloc((void **)&dev, total));
	memset(pinned, 1, total);
	memset(pageable, 1, total);
	memset(pageable2, 1, total);
	for (int w = 0; w < 64; w++) {
		CK(cudaStreamCreateWithFlags(&lanes[w].s, cudaStreamNonBlocking));
		for (int k = 0; k < NBOUNCE; k++) {
			CK(cudaHostAlloc((void **)&lanes[w].bounce[k], BOUNCE, cudaHostAllocDefault));
			CK(cudaEventCreateWithFlags(&lanes[w].ev[k], cudaEventDisableTiming));
			memset(lanes[w].bounce[k], 0, BOUNCE);
		}
	}
	printf("gpu_host_read_bench: %zu files, %.1f MB, median of %d runs\n", nfiles,
	       total / 1e6, runs);
	printf("| threads | mode | GB/s | min-max |\n|---:|---|---:|---|\n");
	char list[256];
	snprintf(list, sizeof(list), "%s", threads);
	for (char *tok = strtok(list, " ,"); tok; tok = strtok(NULL, " ,")) {
		int nt = atoi(tok);
		if (nt < 1 || nt > 64)
			continue;
		for (int mode = 0; mode < NMODES; mode++) {
			double t[100];
			for (int k = 0; k <= runs; k++) {
				struct run r = {mode, nt, mode == PAGEABLE || mode == MEMCPY ? pageable
											 : pinned,
						pageable2, dev, 0, 0};
				pthread_t th[256];
				double t0 = now();
				for (int w = 0; w < nt; w++)
					pthread_create(&th[w], NULL, worker, &r);
				for (int w = 0; w < nt; w++)
					pthread_join(th[w], NULL);
				if (mode == STAGING_COPY)
					CK(cudaMemcpy(dev, pinned, total, cudaMemcpyHostToDevice));
				if (k)
					t[k - 1] = now() - t0;
			}
			qsort(t, (size_t)runs, sizeof(double), cmp);
			printf("| %d | %s | %.2f | %.2f-%.2f |\n", nt, mode_name[mode],
			       total / t[runs / 2] / 1e9, total / t[runs - 1] / 1e9, total / t[0] / 1e9);
			fflush(stdout);
		}
	}
	return 0;
}
