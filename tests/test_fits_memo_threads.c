/* test_fits_memo_threads.c - threads opening HDUs of FITS files by index in one context at once, each walk noting its header offsets in the context's memo while others start from it: every open finds its HDU (run under ThreadSanitizer by make test-tsan). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fits_cards.h"
#include "tessera.h"

#define NHDU 120
#define NFILES 3
#define NTHREADS 4

static char paths[NFILES][64];
static struct tsr_context *ctx;
static int iters = 200;

/* File f: a primary HDU, then images E1.. with values 1000 f + 10 i + k. */
static void write_file(int f)
{
	FILE *out = fits_start(paths[f]);
	if (!out)
		exit(1);
	for (int i = 1; i < NHDU; i++) {
		char name[16];
		snprintf(name, sizeof(name), "E%d", i);
		image(out, name, 1000 * f + 10 * i);
	}
	fclose(out);
}

static void *worker(void *arg)
{
	unsigned seed = (unsigned)(size_t)arg * 2654435761u + 1;
	long bad = 0;
	for (int it = 0; it < iters; it++) {
		seed = seed * 1103515245u + 12345u;
		int f = (int)(seed >> 8) % NFILES, hdu = 1 + (int)(seed >> 16) % (NHDU - 1);
		struct tsr_open_options o = {.struct_size = sizeof(o), .hdu = hdu};
		struct tsr_array *a = NULL;
		if (tsr_open(ctx, paths[f], &o, &a) != TSR_OK) {
			bad++;
			continue;
		}
		int16_t v[15] = {0};
		struct tsr_buffer dst = {.data = v, .nbytes = sizeof(v), .mem = TSR_MEM_HOST};
		if (tsr_read(a, NULL, &dst, NULL, NULL) != TSR_OK || v[0] != 1000 * f + 10 * hdu ||
		    v[14] != 1000 * f + 10 * hdu + 14)
			bad++;
		tsr_array_free(a);
	}
	return (void *)bad;
}

int main(void)
{
	const char *ie = getenv("TSR_THREAD_ITERS");
	if (ie && atoi(ie) > 0)
		iters = atoi(ie);
	for (int f = 0; f < NFILES; f++) {
		snprintf(paths[f], sizeof(paths[f]), "/tmp/tsr_memo_thr_%d_%d.fits", (int)getpid(), f);
		write_file(f);
	}
	usleep(150000); /* (older than the memo's racy window, so that it keeps them) */
	CHECK_EQ_INT(tsr_context_create(NULL, &ctx), TSR_OK);
	pthread_t t[NTHREADS];
	for (size_t i = 0; i < NTHREADS; i++)
		CHECK_EQ_INT(pthread_create(&t[i], NULL, worker, (void *)i), 0);
	long bad = 0;
	for (int i = 0; i < NTHREADS; i++) {
		void *r = NULL;
		pthread_join(t[i], &r);
		bad += (long)r;
	}
	CHECK_EQ_INT(bad, 0);
	tsr_context_free(ctx);
	for (int f = 0; f < NFILES; f++)
		remove(paths[f]);
	return check_failures ? 1 : 0;
}
