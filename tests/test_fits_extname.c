/* test_fits_extname.c - HDUs chosen by EXTNAME and EXTVER through the C API (tsr_open, streams),
 * in a plain FITS file and in the same file gzip-compressed whole; older option structs that
 * end before hdu_name keep choosing by index. */
#include <fitsio.h>
#include <libdeflate.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include "check.h"
#include "tessera.h"

static char plain[256], packed[256];

/* HDU k holds int16 values v * (k + 1) for v = 0..n-1; names: PRIMARY, SCI, SCI v2, "dq". */
static int write_file(void)
{
	fitsfile *f;
	int st = 0;
	long dims[2] = {8, 10};
	int16_t v[80];
	remove(plain);
	fits_create_file(&f, plain, &st);
	for (int k = 0; k < 4; k++) {
		for (int i = 0; i < 80; i++)
			v[i] = (int16_t)(i * (k + 1));
		fits_create_img(f, SHORT_IMG, 2, dims, &st);
		fits_write_img(f, TSHORT, 1, 80, v, &st);
		if (k == 1 || k == 2)
			fits_write_key(f, TSTRING, "EXTNAME", "SCI", NULL, &st);
		if (k == 2) {
			int ver = 2;
			fits_write_key(f, TINT, "EXTVER", &ver, NULL, &st);
		}
		if (k == 3)
			fits_write_key(f, TSTRING, "EXTNAME", "  dq", NULL, &st);
	}
	fits_close_file(f, &st);
	return st;
}

/* The same file, gzip-compressed (libdeflate) into packed. */
static int write_packed(void)
{
	FILE *f = fopen(plain, "rb");
	if (!f)
		return -1;
	static unsigned char in[1 << 16], out[1 << 17];
	size_t n = fread(in, 1, sizeof(in), f);
	fclose(f);
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(6);
	size_t m = libdeflate_gzip_compress(c, in, n, out, sizeof(out));
	libdeflate_free_compressor(c);
	f = fopen(packed, "wb");
	if (!f || !m)
		return -1;
	fwrite(out, 1, m, f);
	fclose(f);
	return 0;
}

/* Opens path with o; returns the HDU index it chose (and checks a value of its data), or the
 * negative status. */
static int pick(struct tsr_context *ctx, const char *path, const struct tsr_open_options *o)
{
	struct tsr_array *a = NULL;
	int st = tsr_open(ctx, path, o, &a);
	if (st)
		return st;
	struct tsr_array_info in = {.struct_size = sizeof(in)};
	tsr_array_info(a, &in);
	int16_t v[80];
	struct tsr_buffer b = {.data = v, .nbytes = sizeof(v)};
	CHECK_EQ_INT(tsr_read(a, NULL, &b, NULL, NULL), TSR_OK);
	CHECK_EQ_INT(v[7], 7 * (in.index + 1));
	tsr_array_free(a);
	return in.index;
}

static struct tsr_open_options by_name(const char *name, int ver)
{
	return (struct tsr_open_options){.struct_size = sizeof(struct tsr_open_options),
					 .hdu = -1, .hdu_name = name, .hdu_ver = ver};
}

int main(void)
{
	snprintf(plain, sizeof(plain), "/tmp/tsr_extname_%d.fits", (int)getpid());
	snprintf(packed, sizeof(packed), "/tmp/tsr_extname_%d.fits.gz", (int)getpid());
	if (write_file() || write_packed()) {
		fprintf(stderr, "cannot write the test files\n");
		return 1;
	}
	struct tsr_context *ctx;
	struct tsr_context_options co = {sizeof(co), 2};
	CHECK_EQ_INT(tsr_context_create(&co, &ctx), TSR_OK);
	struct tsr_open_options o;
	for (int z = 0; z < 2; z++) {
		const char *path = z ? packed : plain;
		o = by_name("SCI", 0);
		CHECK_EQ_INT(pick(ctx, path, &o), 1); /* the first of that name */
		o = by_name("sci ", 1);               /* case and blanks do not count */
		CHECK_EQ_INT(pick(ctx, path, &o), 1); /* no EXTVER counts as 1 */
		o = by_name("SCI", 2);
		CHECK_EQ_INT(pick(ctx, path, &o), 2);
		o = by_name("DQ", 0);
		CHECK_EQ_INT(pick(ctx, path, &o), 3);
		o = by_name("primary", 0);
		CHECK_EQ_INT(pick(ctx, path, &o), 0);
		o = by_name("SCI", 0);
		o.hdu = 3; /* a name decides over an index */
		CHECK_EQ_INT(pick(ctx, path, &o), 1);
		o = by_name("", 0);
		o.hdu = 2; /* an empty name is none */
		CHECK_EQ_INT(pick(ctx, path, &o), 2);

		o = by_name("SCI", 3);
		CHECK_EQ_INT(pick(ctx, path, &o), TSR_E_NOT_FOUND);
		CHECK(strstr(tsr_errmsg(), path) && strstr(tsr_errmsg(), "EXTVER 3") &&
		      strstr(tsr_errmsg(), "2 SCI,2"));
		o = by_name("NOPE", 0);
		CHECK_EQ_INT(pick(ctx, path, &o), TSR_E_NOT_FOUND);
		CHECK(strstr(tsr_errmsg(), "'NOPE'") != NULL);
		o = by_name("SCI", -1);
		CHECK_EQ_INT(pick(ctx, path, &o), TSR_E_INVALID_ARG);
		char longname[TSR_HDU_NAME_MAX + 2];
		memset(longname, 'A', TSR_HDU_NAME_MAX + 1);
		longname[TSR_HDU_NAME_MAX + 1] = '\0';
		o = by_name(longname, 0);
		CHECK_EQ_INT(pick(ctx, path, &o), TSR_E_INVALID_ARG);

		/* A caller built against the header before hdu_name: its struct ends there, and
		 * whatever follows in memory is not read. */
		o = by_name("SCI", 2);
		o.hdu = 3;
		o.struct_size = offsetof(struct tsr_open_options, hdu_name);
		CHECK_EQ_INT(pick(ctx, path, &o), 3);

		/* Streams keep their own copy of the name. */
		char name[8] = "SCI";
		o = by_name(name, 2);
		struct tsr_stream *s = NULL;
		const char *paths[2] = {path, plain};
		CHECK_EQ_INT(tsr_stream_open(ctx, paths, 2, &o, NULL, NULL, &s), TSR_OK);
		strcpy(name, "DQ");
		int16_t v[160];
		struct tsr_buffer b = {.data = v, .nbytes = sizeof(v)};
		size_t got = 0;
		for (int k = 0; k < 2 && s; k++) {
			b.data = v + 80 * k;
			CHECK_EQ_INT(tsr_stream_next(s, &b, NULL, &got, NULL), TSR_OK);
			CHECK_EQ_INT(got, 1);
		}
		CHECK_EQ_INT(v[7], 21);
		CHECK_EQ_INT(v[80 + 7], 21);
		tsr_stream_free(s);
	}
	tsr_context_free(ctx);
	remove(plain);
	remove(packed);
	CHECK_DONE();
}
