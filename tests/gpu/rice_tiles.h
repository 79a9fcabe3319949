/* rice_tiles.h - RICE_1 tiles for the GPU test and benchmark: images of several profiles, compressed by CFITSIO on all cores. */
#ifndef TSR_RICE_TILES_H
#define TSR_RICE_TILES_H

#include "gpu_test_util.h"
#if !defined(__CUDACC__) && !defined(TSR_RICE_EMU)
#define TSR_RICE_EMU 1 /* built as C: the core's functions on the host (unused here) */
#endif
#include "cuda/rice_core.h"

/* CFITSIO's Rice coder (ricecomp.c), exported by libcfitsio but declared only in fitsio2.h. */
#ifdef __cplusplus
extern "C" {
#endif
int fits_rcomp(int a[], int nx, unsigned char *c, int clen, int nblock);
int fits_rcomp_short(short a[], int nx, unsigned char *c, int clen, int nblock);
int fits_rcomp_byte(signed char a[], int nx, unsigned char *c, int clen, int nblock);
int tsr_rice_decode(void *dst, size_t npix, const void *src, size_t src_nbytes, int bytepix,
		    int blocksize);
#ifdef __cplusplus
}
#endif

/* A set of tiles: tile i has npix[i] pixels of w[i] bytes, sigma-profile noise, compressed at
 * z + zoff[i] (zn[i] bytes; odd offsets on purpose), decoded size npix * w at roff[i]. */
struct rt_set {
	size_t n;
	unsigned *w, *bs;
	size_t *npix, *zoff, *zn, *roff;
	double *sigma;
	unsigned char *z, *raw;
	size_t z_nbytes, raw_nbytes;
	size_t next;
	pthread_mutex_t lock;
};

/* Fills and compresses tile i (worker side). */
static void rt_make(struct rt_set *s, size_t i, unsigned char *scratch, size_t scap)
{
	struct tu_rng r = tu_seed(0x5eed0000u + i);
	size_t n = s->npix[i];
	unsigned w = s->w[i];
	unsigned char *dst = s->raw + s->roff[i];
	for (size_t k = 0; k < n; k++) {
		double g = s->sigma[i] < 0 ? (k % 3 ? 0 : 1e9) : s->sigma[i] * tu_gauss(&r);
		long long v = w == 1 ? 100 + (long long)g : 1000 + (long long)g;
		long long lo = w == 1 ? 0 : w == 2 ? -32768 : -2147483647LL - 1;
		long long hi = w == 1 ? 255 : w == 2 ? 32767 : 2147483647LL;
		v = v < lo ? lo : v > hi ? hi : v;
		if (w == 1)
			dst[k] = (unsigned char)v;
		else if (w == 2) {
			short x = (short)v;
			memcpy(dst + 2 * k, &x, 2);
		} else {
			int x = (int)v;
			memcpy(dst + 4 * k, &x, 4);
		}
	}
	int zn = w == 1 ? fits_rcomp_byte((signed char *)dst, (int)n, scratch, (int)scap, (int)s->bs[i])
		 : w == 2 ? fits_rcomp_short((short *)dst, (int)n, scratch, (int)scap, (int)s->bs[i])
			  : fits_rcomp((int *)dst, (int)n, scratch, (int)scap, (int)s->bs[i]);
	if (zn <= 0) {
		fprintf(stderr, "fits_rcomp failed on tile %zu\n", i);
		exit(2);
	}
	s->zn[i] = (size_t)zn;
}

static void *rt_worker(void *arg)
{
	struct rt_set *s = (struct rt_set *)arg;
	size_t scap = 0;
	unsigned char *scratch = NULL;
	for (;;) {
		pthread_mutex_lock(&s->lock);
		size_t i = s->next++;
		pthread_mutex_unlock(&s->lock);
		if (i >= s->n)
			break;
		size_t need = s->npix[i] * s->w[i] * 2 + 64;
		if (need > scap) {
			free(scratch);
			scratch = (unsigned char *)tu_xmalloc(need);
			scap = need;
		}
		rt_make(s, i, scratch, scap);
		/* stash the stream in the tile's raw slot's twin (copied out after the join) */
		unsigned char *copy = (unsigned char *)tu_xmalloc(s->zn[i]);
		memcpy(copy, scratch, s->zn[i]);
		s->zoff[i] = (size_t)(uintptr_t)copy;
	}
	free(scratch);
	return NULL;
}

/* Makes n tiles (parameters already set: w, bs, npix, sigma) on every core, then lays the
 * streams out back to back at odd offsets in one buffer. */
static void rt_build(struct rt_set *s)
{
	s->raw_nbytes = 0;
	for (size_t i = 0; i < s->n; i++) {
		s->roff[i] = s->raw_nbytes;
		s->raw_nbytes += (s->npix[i] * s->w[i] + 7) / 8 * 8 + 8; /* 8 guard bytes */
	}
	s->raw = (unsigned char *)tu_xmalloc(s->raw_nbytes);
	s->next = 0;
	pthread_mutex_init(&s->lock, NULL);
	long nc = sysconf(_SC_NPROCESSORS_ONLN);
	int nt = nc > 0 ? (int)(nc > 64 ? 64 : nc) : 1;
	pthread_t th[64];
	for (int t = 0; t < nt; t++)
		pthread_create(&th[t], NULL, rt_worker, s);
	for (int t = 0; t < nt; t++)
		pthread_join(th[t], NULL);
	s->z_nbytes = 0;
	for (size_t i = 0; i < s->n; i++)
		s->z_nbytes += s->zn[i] + (i & 3);
	s->z = (unsigned char *)tu_xmalloc(s->z_nbytes + 1);
	size_t at = 0;
	for (size_t i = 0; i < s->n; i++) {
		unsigned char *copy = (unsigned char *)(uintptr_t)s->zoff[i];
		at += i & 3; /* misaligned starts: both paths of the bit reader */
		memcpy(s->z + at, copy, s->zn[i]);
		free(copy);
		s->zoff[i] = at;
		at += s->zn[i];
	}
}

static void rt_alloc(struct rt_set *s, size_t n)
{
	memset(s, 0, sizeof *s);
	s->n = n;
	s->w = (unsigned *)calloc(n, sizeof(unsigned));
	s->bs = (unsigned *)calloc(n, sizeof(unsigned));
	s->npix = (size_t *)calloc(n, sizeof(size_t));
	s->zoff = (size_t *)calloc(n, sizeof(size_t));
	s->zn = (size_t *)calloc(n, sizeof(size_t));
	s->roff = (size_t *)calloc(n, sizeof(size_t));
	s->sigma = (double *)calloc(n, sizeof(double));
}

static void rt_free(struct rt_set *s)
{
	free(s->w);
	free(s->bs);
	free(s->npix);
	free(s->zoff);
	free(s->zn);
	free(s->roff);
	free(s->sigma);
	free(s->z);
	free(s->raw);
}

#endif
