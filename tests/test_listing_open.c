/* test_listing_open.c - tsr_listing_open opens a listing's array entries as tsr_open opens them
 * by index or path (the same HDU, values, metadata and the caller's other options), from the
 * header the listing read; a file rewritten since the listing (a four-block HDU put first, so a
 * listed offset holds another HDU's header) still opens the HDU asked for, and a listing's
 * metadata of a table names the HDU the file holds now; entries that are no array, indexes past
 * the end and NULL arguments are refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fits_cards.h"
#include "tessera.h"

#define NHDU 300

/* A primary HDU without data, then NHDU - 1 extensions: images E1, E2, ... (values 100 * i
 * + k), HDU 7 a table and HDU 9 an image without data (one block; the others two). shift:
 * HDU i holds what HDU i - 1 held without it (a new image "NEW" of four blocks first, the
 * last one dropped). */
static void write_file(const char *path, int shift)
{
	FILE *f = fits_start(path);
	CHECK(f != NULL);
	if (!f)
		exit(1);
	for (int i = 1; i < NHDU; i++) {
		int src = i - shift; /* which HDU of the unshifted file this one is */
		char name[16];
		if (src == 0) {
			/* four blocks, two HDUs' worth: the listed offset of HDU i is now
			 * HDU i - 1's header, a header of another name */
			card(f, "XTENSION= 'IMAGE   '");
			card(f, "BITPIX  =                   16");
			card(f, "NAXIS   =                    2");
			card(f, "NAXIS1  =                    5");
			card(f, "NAXIS2  =                  864");
			card(f, "PCOUNT  =                    0");
			card(f, "GCOUNT  =                    1");
			card(f, "EXTNAME = 'NEW     '");
			end_header(f, 8);
			unsigned char data[3 * 2880] = {0};
			fwrite(data, 1, sizeof(data), f);
			continue;
		}
		snprintf(name, sizeof(name), "E%d", src);
		if (src == 7) {
			card(f, "XTENSION= 'BINTABLE'");
			card(f, "BITPIX  =                    8");
			card(f, "NAXIS   =                    2");
			card(f, "NAXIS1  =                    4");
			card(f, "NAXIS2  =                    2");
			card(f, "PCOUNT  =                    0");
			card(f, "GCOUNT  =                    1");
			card(f, "TFIELDS =                    1");
			card(f, "TFORM1  = 'J       '");
			card(f, "EXTNAME = 'E7      '");
			end_header(f, 10);
			unsigned char pad[2880] = {0};
			fwrite(pad, 1, sizeof(pad), f);
		} else if (src == 9) {
			card(f, "XTENSION= 'IMAGE   '");
			card(f, "BITPIX  =                   16");
			card(f, "NAXIS   =                    0");
			card(f, "PCOUNT  =                    0");
			card(f, "GCOUNT  =                    1");
			card(f, "EXTNAME = 'E9      '");
			end_header(f, 6);
		} else {
			image(f, name, 100 * src);
		}
	}
	fclose(f);
}

/* The array's 15 values are first .. first + 14, and its index and EXTNAME are hdu, name. */
static void check_array(struct tsr_array *a, int hdu, const char *name, int first)
{
	struct tsr_array_info in = {.struct_size = sizeof(in)};
	CHECK_EQ_INT(tsr_array_info(a, &in), TSR_OK);
	CHECK_EQ_INT(in.index, hdu);
	int16_t v[15] = {0};
	struct tsr_buffer dst = {.data = v, .nbytes = sizeof(v), .mem = TSR_MEM_HOST};
	CHECK_EQ_INT(tsr_read(a, NULL, &dst, NULL, NULL), TSR_OK);
	for (int k = 0; k < 15; k++)
		if (v[k] != first + k) {
			fprintf(stderr, "HDU %d value %d: %d, expected %d\n", hdu, k, v[k], first + k);
			check_failures++;
			break;
		}
	char *meta = NULL, want[64];
	CHECK_EQ_INT(tsr_array_metadata(a, &meta), TSR_OK);
	snprintf(want, sizeof(want), "\"extname\":\"%s\"", name);
	if (!meta || !strstr(meta, want)) {
		fprintf(stderr, "HDU %d: metadata lacks %s\n", hdu, want);
		check_failures++;
	}
	tsr_free(meta);
}

int main(void)
{
	char path[64];
	snprintf(path, sizeof(path), "/tmp/tsr_lopen_%d.fits", (int)getpid());
	write_file(path, 0);
	struct tsr_context *ctx = NULL;
	CHECK_EQ_INT(tsr_context_create(NULL, &ctx), TSR_OK);
	struct tsr_listing *l = NULL;
	if (tsr_list(path, &l) != TSR_OK) {
		fprintf(stderr, "tsr_list: %s\n", tsr_errmsg());
		return 1;
	}
	CHECK_EQ_INT(tsr_listing_count(l), NHDU);
	int arrays = 0;
	for (size_t i = 0; i < tsr_listing_count(l); i++) {
		struct tsr_entry e = {.struct_size = sizeof(e)};
		CHECK_EQ_INT(tsr_listing_entry(l, i, &e), TSR_OK);
		struct tsr_array *a = NULL;
		int st = tsr_listing_open(ctx, l, i, NULL, &a);
		if (e.kind != TSR_ENTRY_ARRAY) {
			CHECK_EQ_INT(st, TSR_E_INVALID_ARG);
			CHECK(a == NULL);
			continue;
		}
		CHECK_EQ_INT(st, TSR_OK);
		if (!a)
			continue;
		arrays++;
		check_array(a, (int)i, e.name, 100 * (int)i);
		tsr_array_free(a);
	}
	CHECK_EQ_INT(arrays, NHDU - 3); /* not the primary, the table or the empty image */

	/* the caller's other options hold; its hdu and names do not */
	struct tsr_open_options oo = {.struct_size = sizeof(oo), .hdu = 3, .hdu_name = "E5",
				      .dtype = "u2"};
	struct tsr_array *a = NULL;
	CHECK_EQ_INT(tsr_listing_open(ctx, l, 200, &oo, &a), TSR_OK);
	struct tsr_array_info in = {.struct_size = sizeof(in)};
	CHECK_EQ_INT(tsr_array_info(a, &in), TSR_OK);
	CHECK_EQ_INT(in.index, 200);
	CHECK_EQ_INT(in.dtype, TSR_UINT16);
	tsr_array_free(a);

	/* entries that are no array: their metadata from the header the listing read */
	char *meta = NULL;
	CHECK_EQ_INT(tsr_listing_metadata(l, 7, &meta), TSR_OK);
	CHECK(meta && strstr(meta, "\"extname\":\"E7\"") && strstr(meta, "BINTABLE"));
	tsr_free(meta);

	/* the file rewritten in place since the listing: HDU i is what HDU i - 1 was, and the
	 * listed offset of HDU i (i > 11) is HDU i - 1's header */
	write_file(path, 1);
	for (size_t i = 12; i < NHDU; i += 37) { /* (images in both files) */
		a = NULL;
		CHECK_EQ_INT(tsr_listing_open(ctx, l, i, NULL, &a), TSR_OK);
		if (a) {
			char name[16];
			snprintf(name, sizeof(name), "E%d", (int)i - 1);
			check_array(a, (int)i, name, 100 * ((int)i - 1));
		}
		tsr_array_free(a);
	}

	/* HDU 7's listed header is now HDU 6's: its metadata is HDU 7's as the file holds it */
	meta = NULL;
	CHECK_EQ_INT(tsr_listing_metadata(l, 7, &meta), TSR_OK);
	CHECK(meta && strstr(meta, "\"extname\":\"E6\"") && strstr(meta, "\"hdu\":7"));
	tsr_free(meta);

	/* refusals */
	a = (struct tsr_array *)&a;
	CHECK_EQ_INT(tsr_listing_open(ctx, l, NHDU, NULL, &a), TSR_E_RANGE);
	CHECK(a == NULL);
	CHECK_EQ_INT(tsr_listing_open(NULL, l, 1, NULL, &a), TSR_E_INVALID_ARG);
	CHECK_EQ_INT(tsr_listing_open(ctx, NULL, 1, NULL, &a), TSR_E_INVALID_ARG);
	CHECK_EQ_INT(tsr_listing_open(ctx, l, 1, NULL, NULL), TSR_E_INVALID_ARG);
	tsr_listing_free(l);

	/* Zarr entries (an OME group's levels, each as its group's level) and a Blosc2 frame */
	const char *corpus = getenv("TSR_CORPUS");
	char store[512];
	snprintf(store, sizeof(store), "%s/zarr2/ome_multiscale.zarr", corpus ? corpus : ".");
	CHECK_EQ_INT(tsr_list(store, &l), TSR_OK);
	int levels = 0;
	for (size_t i = 0; i < tsr_listing_count(l); i++) {
		struct tsr_entry e = {.struct_size = sizeof(e)};
		tsr_listing_entry(l, i, &e);
		if (e.kind != TSR_ENTRY_ARRAY)
			continue;
		struct tsr_open_options lv = {.struct_size = sizeof(lv), .hdu = -1, .array = e.group,
					      .level = e.level};
		struct tsr_array *x = NULL, *y = NULL;
		struct tsr_array_info ix = {.struct_size = sizeof(ix)}, iy = {.struct_size = sizeof(iy)};
		CHECK_EQ_INT(tsr_listing_open(ctx, l, i, NULL, &x), TSR_OK);
		CHECK_EQ_INT(tsr_open(ctx, store, &lv, &y), TSR_OK);
		if (x && y && !tsr_array_info(x, &ix) && !tsr_array_info(y, &iy)) {
			CHECK(ix.ndim == iy.ndim && ix.shape[0] == iy.shape[0] &&
			      ix.shape[1] == iy.shape[1]);
			/* a level says its level and its path, as opened by group and level */
			CHECK_EQ_INT(ix.level, e.level);
			CHECK_EQ_INT(ix.level, iy.level);
			CHECK(ix.name && iy.name && !strcmp(ix.name, iy.name) &&
			      !strcmp(ix.name, e.name));
			levels++;
		}
		tsr_array_free(x);
		tsr_array_free(y);
	}
	CHECK_EQ_INT(levels, 3);
	tsr_listing_free(l);
	snprintf(store, sizeof(store), "%s/blosc2/lz4_shuffle_f4_3d.b2nd", corpus ? corpus : ".");
	CHECK_EQ_INT(tsr_list(store, &l), TSR_OK);
	a = NULL;
	CHECK_EQ_INT(tsr_listing_open(ctx, l, 0, NULL, &a), TSR_OK);
	tsr_array_free(a);
	tsr_listing_free(l);

	tsr_context_free(ctx);
	remove(path);
	return check_failures ? 1 : 0;
}
