/* test_open_takes.c - tsr_open refuses an option that names what the format's paths do not
 * have (an HDU of a Zarr store or a Blosc2 frame, an array path in a FITS file or a frame, a
 * multiscale level of either), naming the format and the option, where it used to ignore it
 * and read the one array; the defaults and the format's own options still open. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tessera.h"

static char corpus[1024];

/* Opens rel with o; the status, and the message holding each of want (NULL-ended). */
static void expect(struct tsr_context *ctx, const char *rel, struct tsr_open_options o, int st,
		   const char *const *want)
{
	char path[2048];
	snprintf(path, sizeof(path), "%s/%s", corpus, rel);
	o.struct_size = sizeof(o);
	struct tsr_array *a = NULL;
	int got = tsr_open(ctx, path, &o, &a);
	if (got != st)
		fprintf(stderr, "%s: %s\n", rel, got ? tsr_errmsg() : "opened");
	CHECK_EQ_INT(got, st);
	CHECK((a != NULL) == (st == TSR_OK));
	for (int i = 0; st != TSR_OK && want && want[i]; i++)
		if (!strstr(tsr_errmsg(), want[i])) {
			fprintf(stderr, "%s: '%s' lacks '%s'\n", rel, tsr_errmsg(), want[i]);
			CHECK(0);
		}
	tsr_array_free(a);
}

#define W(...) ((const char *const[]){__VA_ARGS__, NULL})

int main(void)
{
	const char *c = getenv("TSR_CORPUS");
	snprintf(corpus, sizeof(corpus), "%s", c ? c : "../../shared/corpus");
	struct tsr_context *ctx = NULL;
	CHECK_EQ_INT(tsr_context_create(NULL, &ctx), TSR_OK);
	const char *zarr = "zarr3/zstd_f4.zarr", *fits = "fits/fp_rice_i16.fits.fz",
		   *b2 = "blosc2/lz4_shuffle_f4_3d.b2nd", *ome = "zarr2/ome_multiscale.zarr";
	const struct tsr_open_options dflt = {.hdu = -1, .level = -1};
	struct tsr_open_options o;

	/* the defaults, and hdu 0 / level 0 (the one array), open every format */
	const char *all[] = {zarr, fits, b2, ome};
	for (int i = 0; i < 4; i++) {
		expect(ctx, all[i], dflt, TSR_OK, NULL);
		o = dflt, o.level = 0;
		expect(ctx, all[i], o, TSR_OK, NULL);
	}
	o = dflt, o.hdu = 0;
	expect(ctx, zarr, o, TSR_OK, NULL);
	expect(ctx, b2, o, TSR_OK, NULL);

	/* an HDU of a store or a frame */
	o = dflt, o.hdu = 1;
	expect(ctx, zarr, o, TSR_E_RANGE, W(zarr, "a Zarr store has no HDUs", "no HDU 1"));
	expect(ctx, b2, o, TSR_E_RANGE, W(b2, "a Blosc2 frame has no HDUs", "no HDU 1"));
	expect(ctx, fits, o, TSR_OK, NULL);
	o = dflt, o.hdu_name = "SCI";
	expect(ctx, zarr, o, TSR_E_NOT_FOUND, W("a Zarr store has no HDUs", "'SCI'"));
	expect(ctx, b2, o, TSR_E_NOT_FOUND, W("a Blosc2 frame has no HDUs", "'SCI'"));

	/* an array path in a FITS file or a frame */
	o = dflt, o.array = "x/y";
	expect(ctx, fits, o, TSR_E_NOT_FOUND, W(fits, "a FITS file has no arrays by path", "'x/y'"));
	expect(ctx, b2, o, TSR_E_NOT_FOUND, W("a Blosc2 frame has no arrays by path", "'x/y'"));
	o = dflt, o.array = "";
	expect(ctx, fits, o, TSR_OK, NULL);

	/* a multiscale level of a FITS file or a frame; a level of an OME-Zarr group opens */
	o = dflt, o.level = 1;
	expect(ctx, fits, o, TSR_E_RANGE, W("a FITS file has no multiscale levels", "level 1"));
	expect(ctx, b2, o, TSR_E_RANGE, W("a Blosc2 frame has no multiscale levels", "level 1"));
	expect(ctx, ome, o, TSR_OK, NULL);
	expect(ctx, zarr, o, TSR_E_RANGE, W("not an OME-Zarr multiscale group"));

	tsr_context_free(ctx);
	CHECK_DONE();
}
