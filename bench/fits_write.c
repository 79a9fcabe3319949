/* fits_write.c - writes benchmark FITS images with CFITSIO (the reference writer): N files of
 * ROWS x COLS, GZIP_2 float32 (lossless: no quantization) or RICE_1 int16, CFITSIO's default
 * one-row tiles. Usage: fits_write DIR N ROWS COLS gzip2_f32|rice_i16. Existing files are kept. */
#include <fitsio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int write_one(const char *path, long rows, long cols, int rice, unsigned seed)
{
	fitsfile *f = NULL;
	int st = 0;
	long naxes[2] = {cols, rows};
	char name[4300];
	snprintf(name, sizeof(name), "!%.4200s", path);
	fits_create_file(&f, name, &st);
	fits_set_compression_type(f, rice ? RICE_1 : GZIP_2, &st);
	if (!rice)
		fits_set_quantize_level(f, 0.0f, &st); /* lossless floats */
	fits_create_img(f, rice ? SHORT_IMG : FLOAT_IMG, 2, naxes, &st);
	size_t n = (size_t)cols;
	float *fv = malloc(n * sizeof(float));
	short *iv = malloc(n * sizeof(short));
	unsigned s = seed * 2654435761u + 12345u;
	for (long r = 0; r < rows && !st; r++) {
		for (long c = 0; c < cols; c++) {
			s = s * 1664525u + 1013904223u;
			double u = ((s >> 8) & 0xffff) / 65536.0 - 0.5;
			if (rice) {
				iv[c] = (short)(1000 + lround(u * 100.0));
			} else {
				/* a smooth field with noise, rounded to 1/100: compresses like data */
				double v = 100.0 * sin(r / 37.0) * cos(c / 53.0) + u;
				fv[c] = (float)(round(v * 100.0) / 100.0);
			}
		}
		long first[2] = {1, r + 1};
		fits_write_pix(f, rice ? TSHORT : TFLOAT, first, cols, rice ? (void *)iv : (void *)fv,
			       &st);
	}
	fits_close_file(f, &st);
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
	if (argc != 6 || (strcmp(argv[5], "gzip2_f32") && strcmp(argv[5], "rice_i16"))) {
		fprintf(stderr, "usage: fits_write DIR N ROWS COLS gzip2_f32|rice_i16\n");
		return 2;
	}
	const char *dir = argv[1];
	int n = atoi(argv[2]);
	long rows = atol(argv[3]), cols = atol(argv[4]);
	int rice = !strcmp(argv[5], "rice_i16");
	mkdir(dir, 0755);
	for (int i = 0; i < n; i++) {
		char path[4200];
		struct stat sb;
		snprintf(path, sizeof(path), "%s/%s_%03d.fits", dir, argv[5], i);
		if (stat(path, &sb) == 0)
			continue;
		if (write_one(path, rows, cols, rice, (unsigned)i))
			return 1;
	}
	return 0;
}
