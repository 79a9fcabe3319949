/* cfitsio_peer.c - the CFITSIO peer of bench/peers.py: reads the first image HDU of every FILE
 * with fits_read_img, files spread over T threads (CFITSIO's reentrant build), best of K runs;
 * prints GB/s of decoded output and a CRC of each file's values (checked against tessera's).
 * Usage: cfitsio_peer [-t T] [-k K] FILE... */
#include <fitsio.h>
#include <libdeflate.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct job {
	char **paths;
	int n;
	atomic_int next;
	size_t bytes;          /* decoded bytes, summed */
	unsigned *crc;         /* per file */
	int failed;
	pthread_mutex_t lock;
};

static void *worker(void *arg)
{
	struct job *j = arg;
	for (int i; (i = atomic_fetch_add(&j->next, 1)) < j->n;) {
		fitsfile *f = NULL;
		int st = 0, bitpix = 0, naxis = 0, anynul = 0;
		long ax[9] = {0};
		fits_open_image(&f, j->paths[i], READONLY, &st);
		fits_get_img_param(f, 9, &bitpix, &naxis, ax, &st);
		fits_get_img_equivtype(f, &bitpix, &st);
		long long n = 1;
		for (int d = 0; d < naxis; d++)
			n *= ax[d];
		int type = bitpix == SHORT_IMG ? TSHORT : bitpix == LONG_IMG ? TINT
			   : bitpix == BYTE_IMG ? TBYTE : bitpix == DOUBLE_IMG ? TDOUBLE : TFLOAT;
		size_t w = type == TSHORT ? 2 : type == TBYTE ? 1 : type == TDOUBLE ? 8 : 4;
		void *buf = malloc((size_t)n * w);
		fits_read_img(f, type, 1, n, NULL, buf, &anynul, &st);
		fits_close_file(f, &st);
		pthread_mutex_lock(&j->lock);
		if (st || !buf) {
			char msg[FLEN_STATUS];
			fits_get_errstatus(st, msg);
			fprintf(stderr, "cfitsio_peer: %s: %s\n", j->paths[i], msg);
			j->failed = 1;
		} else {
			j->bytes += (size_t)n * w;
		}
		pthread_mutex_unlock(&j->lock);
		if (buf && !st && j->crc)
			j->crc[i] = libdeflate_crc32(0, buf, (size_t)n * w);
		free(buf);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int t = (int)sysconf(_SC_NPROCESSORS_ONLN), k = 3, a = 1;
	for (; a < argc && argv[a][0] == '-'; a += 2) {
		if (a + 1 >= argc)
			return 2;
		if (!strcmp(argv[a], "-t"))
			t = atoi(argv[a + 1]);
		else if (!strcmp(argv[a], "-k"))
			k = atoi(argv[a + 1]);
	}
	int n = argc - a;
	if (n < 1 || t < 1 || k < 1) {
		fprintf(stderr, "usage: cfitsio_peer [-t T] [-k K] FILE...\n");
		return 2;
	}
	double best = 1e30;
	size_t bytes = 0;
	unsigned *crc = calloc((size_t)n, sizeof(unsigned));
	pthread_t *th = calloc((size_t)t, sizeof(pthread_t));
	for (int it = 0; it < k; it++) {
		struct job j = {.paths = argv + a, .n = n, .crc = it == 0 ? crc : NULL};
		pthread_mutex_init(&j.lock, NULL);
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (int i = 0; i < t; i++)
			pthread_create(&th[i], NULL, worker, &j);
		for (int i = 0; i < t; i++)
			pthread_join(th[i], NULL);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (j.failed)
			return 1;
		double s = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
		if (s < best)
			best = s;
		bytes = j.bytes;
	}
	printf("seconds=%.6f bytes=%zu threads=%d gbps=%.3f\n", best, bytes, t, bytes / best / 1e9);
	for (int i = 0; i < n; i++)
		printf("crc %s %08x\n", argv[a + i], crc[i]);
	free(crc);
	free(th);
	return 0;
}
