/* test_metadata_no_listing.c - tsr_array_metadata_flags with TSR_METADATA_NO_LISTING: a Zarr array's document without its chunk listing (stored_nbytes null, the rest as tsr_array_metadata's), a FITS HDU's unchanged, unknown flags refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tessera.h"

/* The document of path's array with flags; NULL where it fails (checked). */
static char *doc(struct tsr_context *ctx, const char *path, unsigned flags)
{
	struct tsr_array *a = NULL;
	char *text = NULL;
	CHECK_EQ_INT(tsr_open(ctx, path, NULL, &a), TSR_OK);
	if (a)
		CHECK_EQ_INT(tsr_array_metadata_flags(a, flags, &text), TSR_OK);
	tsr_array_free(a);
	return text;
}

/* text with its "stored_nbytes" value replaced by null (a copy). */
static char *stored_null(const char *text)
{
	const char *k = strstr(text, "\"stored_nbytes\":");
	char *out = malloc(strlen(text) + 8);
	if (!k || !out) {
		free(out);
		return NULL;
	}
	const char *v = k + strlen("\"stored_nbytes\":"), *e = v;
	while (*e >= '0' && *e <= '9')
		e++;
	CHECK(e > v); /* (a count in the full document) */
	snprintf(out, strlen(text) + 8, "%.*snull%s", (int)(v - text), text, e);
	return out;
}

int main(void)
{
	const char *corpus = getenv("TSR_CORPUS");
	char zpath[512], fpath[512];
	snprintf(zpath, sizeof(zpath), "%s/zarr2/1d_i16.zarr", corpus ? corpus : ".");
	snprintf(fpath, sizeof(fpath), "%s/fits/c_cube_3d.fits", corpus ? corpus : ".");
	struct tsr_context *ctx = NULL;
	CHECK_EQ_INT(tsr_context_create(NULL, &ctx), TSR_OK);

	char *full = doc(ctx, zpath, 0), *light = doc(ctx, zpath, TSR_METADATA_NO_LISTING);
	CHECK(full && light);
	if (full && light) {
		CHECK(strstr(light, "\"stored_nbytes\":null") != NULL);
		char *want = stored_null(full);
		CHECK(want && !strcmp(want, light));
		free(want);
	}
	tsr_free(full);
	tsr_free(light);

	full = doc(ctx, fpath, 0);
	light = doc(ctx, fpath, TSR_METADATA_NO_LISTING);
	CHECK(full && light && !strcmp(full, light));
	tsr_free(full);
	tsr_free(light);

	struct tsr_array *a = NULL;
	char *text = NULL;
	CHECK_EQ_INT(tsr_open(ctx, zpath, NULL, &a), TSR_OK);
	CHECK_EQ_INT(tsr_array_metadata_flags(a, 2, &text), TSR_E_INVALID_ARG);
	CHECK(text == NULL);
	CHECK_EQ_INT(tsr_array_metadata_flags(a, TSR_METADATA_NO_LISTING, NULL), TSR_E_INVALID_ARG);
	tsr_array_free(a);
	tsr_context_free(ctx);
	return check_failures ? 1 : 0;
}
