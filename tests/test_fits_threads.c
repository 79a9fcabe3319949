/* test_fits_threads.c - 16 threads read random sections of one FITS handle at once (RICE,
 * GZIP_2, HCOMPRESS and quantized tiles, uncompressed and scaled images), then 16 threads open
 * handles of their own on one context; every result must equal the same section cut from a
 * single-threaded whole read. make test-tsan runs it under ThreadSanitizer. */
#include "thread_reads.h"

int main(void)
{
	/* hdu -1: the first HDU with an image, which is the compressed table in each .fits/.fz */
	struct tr_target t[] = {
		{.path = "fits/c_rice_i16_tiles.fits", .label = "RICE_1 int16 48x64 tiles"},
		{.path = "fits/c_gzip2_i32_tiles.fits", .label = "GZIP_2 int32 40x64 tiles"},
		{.path = "fits/u_cube_3d.fits", .label = "uncompressed int16 cube"},
		{.path = "fits/c_rice_f32_sd1.fits", .label = "quantized float32, dithered"},
		/* CFITSIO's HCOMPRESS decoder keeps static state: tessera serialises it */
		{.path = "fits/fp_hcomp_i16.fits.fz", .label = "HCOMPRESS_1 int16 (fpack)"},
		/* BSCALE/BZERO with BLANK -> NaN */
		{.path = "fits/u_scaled_blank.fits", .label = "scaled int16 with BLANK"},
	};
	int n = (int)(sizeof(t) / sizeof(t[0]));
	for (int i = 0; i < n; i++)
		t[i].oo = (struct tsr_open_options){.struct_size = sizeof(t[i].oo), .hdu = -1};
	if (tr_run_all(t, n))
		return 1;
	CHECK_DONE();
}
