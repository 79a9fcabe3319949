/* fits_write.c - writes benchmark and test FITS images with CFITSIO (the reference writer): N
 * files of ROWS x COLS of one KIND. Usage: fits_write DIR N ROWS COLS KIND [FIRST] (fits_write -h
 * lists the kinds): files FIRST .. FIRST + N - 1 (default 0; the index seeds the values, so
 * writers run side by side on parts of a set). Existing files are kept. */
#include <fitsio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct kind {
	const char *name;
	int comp;               /* CFITSIO compression type */
	int bitpix;             /* SHORT_IMG, FLOAT_IMG or DOUBLE_IMG */
	float qlevel;           /* floats: 0 lossless, else quantized at this level */
	int qmethod;            /* NO_DITHER, SUBTRACTIVE_DITHER_1 or _2 */
	long tile;              /* 0: CFITSIO's one-row tiles; else tile x tile */
	int specials;           /* floats: exact zeros and NaNs sprinkled in */
	const char *what;
};

static const struct kind kinds[] = {
	{"gzip2_f32", GZIP_2, FLOAT_IMG, 0.0f, 0, 0, 0, "GZIP_2 float32, lossless (benchmarks)"},
	{"rice_i16", RICE_1, SHORT_IMG, 0.0f, 0, 0, 0, "RICE_1 int16 (benchmarks)"},
	{"rice_qf32", RICE_1, FLOAT_IMG, 4.0f, SUBTRACTIVE_DITHER_1, 0, 0,
	 "RICE_1 float32 quantized (q=4, SUBTRACTIVE_DITHER_1; benchmarks)"},
	/* Quantized floats in GZIP tiles, which the GPU inflates and dequantizes: */
	{"gzip1_f32_sd1", GZIP_1, FLOAT_IMG, 4.0f, SUBTRACTIVE_DITHER_1, 0, 1,
	 "GZIP_1 float32 quantized, SUBTRACTIVE_DITHER_1, NaNs"},
	{"gzip2_f32_sd2", GZIP_2, FLOAT_IMG, 4.0f, SUBTRACTIVE_DITHER_2, 128, 1,
	 "GZIP_2 float32 quantized, SUBTRACTIVE_DITHER_2 (exact zeros), NaNs, 128x128 tiles"},
	{"gzip2_f64_nodither", GZIP_2, DOUBLE_IMG, 8.0f, NO_DITHER, 0, 1,
	 "GZIP_2 float64 quantized, NO_DITHER, NaNs"},
	{"gzip1_f64_sd1", GZIP_1, DOUBLE_IMG, 16.0f, SUBTRACTIVE_DITHER_1, 100, 0,
	 "GZIP_1 float64 quantized, SUBTRACTIVE_DITHER_1, 100x100 tiles"},
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

static int write_one(const char *path, long rows, long cols, const struct kind *k, unsigned seed)
{
	fitsfile *f = NULL;
	int st = 0, fl = k->bitpix != SHORT_IMG;
	long naxes[2] = {cols, rows};
	char name[4300];
	snprintf(name, sizeof(name), "!%.4200s", path);
	fits_create_file(&f, name, &st);
	fits_set_compression_type(f, k->comp, &st);
	if (k->tile) {
		long tdim[2] = {k->tile, k->tile};
		fits_set_tile_dim(f, 2, tdim, &st);
	}
	if (fl) {
		fits_set_quantize_level(f, k->qlevel, &st); /* 0: lossless floats */
		if (k->qlevel != 0.0f)
			fits_set_quantize_method(f, k->qmethod, &st);
	}
	fits_create_img(f, k->bitpix, 2, naxes, &st);
	/* One write of the whole image: CFITSIO recompresses a multi-row tile on every
	 * partial write, leaving the old copies in the heap. */
	size_t n = (size_t)rows * (size_t)cols;
	double *dv = fl ? malloc(n * sizeof(double)) : NULL;
	float *fv = k->bitpix == FLOAT_IMG ? malloc(n * sizeof(float)) : NULL;
	short *iv = fl ? NULL : malloc(n * sizeof(short));
	if ((fl && !dv) || (k->bitpix == FLOAT_IMG && !fv) || (!fl && !iv)) {
		fprintf(stderr, "fits_write: out of memory\n");
		st = MEMORY_ALLOCATION;
	}
	unsigned s = seed * 2654435761u + 12345u;
	for (long r = 0; r < rows && !st; r++) {
		for (long c = 0; c < cols; c++) {
			size_t i = (size_t)r * (size_t)cols + (size_t)c;
			s = s * 1664525u + 1013904223u;
			double u = ((s >> 8) & 0xffff) / 65536.0 - 0.5;
			if (!fl) {
				iv[i] = (short)(1000 + lround(u * 100.0));
				continue;
			}
			/* a smooth field with noise, rounded to 1/100: compresses like data */
			double v = 100.0 * sin(r / 37.0) * cos(c / 53.0) + u;
			dv[i] = round(v * 100.0) / 100.0;
			if (k->specials && i % 97 == 5)
				dv[i] = 0.0;
			if (k->specials && i % 1009 == 7)
				dv[i] = NAN;
			if (fv)
				fv[i] = (float)dv[i];
		}
	}
	long first[2] = {1, 1};
	if (!st && fv)
		fits_write_pixnull(f, TFLOAT, first, (LONGLONG)n, fv, NULL, &st);
	else if (!st && fl)
		fits_write_pixnull(f, TDOUBLE, first, (LONGLONG)n, dv, NULL, &st);
	else if (!st)
		fits_write_pix(f, TSHORT, first, (LONGLONG)n, iv, &st);
	fits_close_file(f, &st);
	free(dv);
	free(fv);
	free(iv);
	if (st) {
		char msg[FLEN_STATUS];
		fits_get_errstatus(st, msg);
		fprintf(stderr, "fits_write: %s: %s\n", path, msg);
	}
	return st;
}

int main(int argc, char **argv)
{
	const struct kind *k = NULL;
	for (size_t i = 0; (argc == 6 || argc == 7) && i < NKINDS; i++)
		if (!strcmp(argv[5], kinds[i].name))
			k = &kinds[i];
	if (!k) {
		fprintf(stderr, "usage: fits_write DIR N ROWS COLS KIND [FIRST]; kinds:\n");
		for (size_t i = 0; i < NKINDS; i++)
			fprintf(stderr, "  %-20s %s\n", kinds[i].name, kinds[i].what);
		return 2;
	}
	const char *dir = argv[1];
	int n = atoi(argv[2]);
	long rows = atol(argv[3]), cols = atol(argv[4]);
	int first = argc == 7 ? atoi(argv[6]) : 0;
	mkdir(dir, 0755); /* (writers side by side: one of them makes it) */
	for (int i = first; i < first + n; i++) {
		char path[4200];
		struct stat sb;
		snprintf(path, sizeof(path), "%s/%s_%03d.fits", dir, k->name, i);
		if (stat(path, &sb) == 0)
			continue;
		if (write_one(path, rows, cols, k, (unsigned)i))
			return 1;
	}
	return 0;
}
