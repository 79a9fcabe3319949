/* fits_sample.h - sample FITS images written with CFITSIO and read back by both readers, shared by `tessera demo` and bench/fits_bench. */
#ifndef TSR_FITS_SAMPLE_H
#define TSR_FITS_SAMPLE_H

/* Only tessera.h and CFITSIO: bench/fits_bench builds this file too, and the benchmarks use
 * nothing of the library but its public header. */
#include <stddef.h>
#include <stdint.h>

#include <fitsio.h>

#include "tessera.h"

#define TSR_SAMPLE_CUT 100 /* cutout edge */
#define TSR_SAMPLE_PATH 4096
#define TSR_SAMPLE_FILE (TSR_SAMPLE_PATH + 64) /* a folder of TSR_SAMPLE_PATH and a file name */
/* Float pixels holding this value are written as nulls (ZBLANK); both readers return NaN. */
#define TSR_SAMPLE_NULL -9999.0f

/* One sample image: NxN Gaussian noise, sigma 30 around 1000. */
struct tsr_sample_file {
	const char *name;
	int bitpix;   /* SHORT_IMG, LONG_IMG or FLOAT_IMG */
	int comptype; /* 0: an ordinary image HDU */
	long tile;    /* 0: one tile per row (CFITSIO's default); n: n x n tiles */
	float qlevel; /* floats: quantization level (SUBTRACTIVE_DITHER_1) */
	int nulls;    /* floats: about one pixel in 16384 is written as a null */
};

double tsr_sample_now(void); /* monotonic seconds */
int tsr_sample_fits_type(int bitpix);
enum tsr_dtype tsr_sample_dtype(int bitpix);
size_t tsr_sample_esize(int bitpix);

/* "CFITSIO status N: text" into err; clears CFITSIO's message stack. */
void tsr_sample_fits_error(int status, char *err, size_t errlen);
/* The linked CFITSIO's version as "4.2.0". */
void tsr_sample_cfitsio_version(char *s, size_t len);

/* Writes one image (the seed fixes the pixels); 0, or -1 with a message in err. */
int tsr_sample_write(const char *path, const struct tsr_sample_file *sf, long size, uint64_t seed,
		     char *err, size_t errlen);

/* The TSR_SAMPLE_CUT cutout of a size x size image: first row y0, first column x0, edge. */
void tsr_sample_cutout(long size, long *y0, long *x0, long *edge);

/* Opens path with CFITSIO at its image: HDU 2 of a tile-compressed file, whose primary HDU is
 * empty. CFITSIO status convention (*st nonzero: nothing done). */
void tsr_sample_fits_open(const char *path, fitsfile **f, int *st);
/* The whole image or the cutout into dst, NaN for null floats (as tessera returns them). */
void tsr_sample_read_cfitsio(fitsfile *f, int bitpix, long size, int cutout, void *dst, int *st);
/* The same with tessera through an open array; rec may be NULL. Returns tessera's status. */
int tsr_sample_read_tessera(struct tsr_array *a, long size, int cutout, void *dst, size_t nbytes,
			    struct tsr_receipt *rec);

/* Best wall time of runs calls of read(arg), or -1 as soon as one returns nonzero. */
double tsr_sample_best(int (*read)(void *arg), void *arg, int runs);

/* Index of the first differing element of n, or -1. Floats compare bit patterns (so -0.0 !=
 * 0.0) except that any NaN equals any NaN. */
long long tsr_sample_compare(const void *a, const void *b, size_t n, int bitpix);
/* Element i as text; floats also show their bits. */
void tsr_sample_value(char *s, size_t len, const void *p, size_t i, int bitpix);

/* The folder for the files: dir_opt (created if missing; *keep set), else a fresh
 * $TMPDIR/<tmpl>-XXXXXX. Returns 0, or the exit status after a message on stderr prefixed
 * with prog. */
int tsr_sample_make_dir(const char *prog, const char *dir_opt, const char *tmpl, char *dir,
			size_t len, int *keep);
/* Removes the n files and the folder; says so on stderr when the folder stays. */
void tsr_sample_remove_dir(const char *prog, const char *dir, const struct tsr_sample_file *files,
			   size_t n);

#endif
