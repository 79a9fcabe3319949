/* test_listing.c - tsr_list: what a FITS file, a Zarr store (groups, OME-Zarr levels) and a
 * Blosc2 frame hold, from headers and metadata only, and its contract (status codes, entry
 * struct_size, range, NULL). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tessera.h"

static char corpus[1024];

static struct tsr_listing *list(const char *rel)
{
	char path[2048];
	struct tsr_listing *l = NULL;
	snprintf(path, sizeof(path), "%s/%s", corpus, rel);
	int st = tsr_list(path, &l);
	if (st)
		fprintf(stderr, "%s: %s\n", rel, tsr_errmsg());
	CHECK_EQ_INT(st, TSR_OK);
	return l;
}

static struct tsr_entry entry(const struct tsr_listing *l, size_t i)
{
	struct tsr_entry e = {.struct_size = sizeof(e)};
	CHECK_EQ_INT(tsr_listing_entry(l, i, &e), TSR_OK);
	return e;
}

int main(void)
{
	const char *c = getenv("TSR_CORPUS");
	snprintf(corpus, sizeof(corpus), "%s", c ? c : "../../shared/corpus");

	/* FITS: every HDU in file order, with EXTNAME; the first image is HDU 0 */
	struct tsr_listing *l = list("fits/u_multi_hdu.fits");
	static const char *names[] = {"", "B8", "I32", "I64", "F32", "F64"};
	CHECK_EQ_INT(tsr_listing_count(l), 6);
	for (size_t i = 0; i < tsr_listing_count(l) && i < 6; i++) {
		struct tsr_entry e = entry(l, i);
		CHECK_EQ_INT(e.kind, TSR_ENTRY_ARRAY);
		CHECK_EQ_INT(e.hdu, (int)i);
		CHECK(!strcmp(e.format, "fits") && !strcmp(e.name, names[i]));
		CHECK(!strcmp(e.xtension, i ? "IMAGE" : ""));
		CHECK_EQ_INT(e.compressed, 0);
		CHECK_EQ_INT(e.level, -1);
	}
	tsr_listing_free(l);

	/* fpack: an empty primary, then tile-compressed images */
	l = list("fits/fp_multi.fits.fz");
	CHECK_EQ_INT(tsr_listing_count(l), 4);
	CHECK_EQ_INT(entry(l, 0).kind, TSR_ENTRY_EMPTY);
	struct tsr_entry e = entry(l, 2);
	CHECK_EQ_INT(e.kind, TSR_ENTRY_ARRAY);
	CHECK(e.compressed && !strcmp(e.xtension, "BINTABLE") && !strcmp(e.name, "EXT1"));
	tsr_listing_free(l);

	/* a plain group: its arrays, sorted, no multiscale */
	l = list("zarr2/group_consolidated.zarr");
	static const char *arrays[] = {"labels/ids", "labels/mask", "meta/vector", "raw"};
	CHECK_EQ_INT(tsr_listing_count(l), 4);
	for (size_t i = 0; i < tsr_listing_count(l) && i < 4; i++) {
		e = entry(l, i);
		CHECK(e.kind == TSR_ENTRY_ARRAY && !strcmp(e.name, arrays[i]) && e.level == -1);
		CHECK(e.hdu == -1 && !strcmp(e.format, "zarr"));
	}
	tsr_listing_free(l);

	/* OME-Zarr at the root: the group first, then its levels */
	l = list("zarr2/ome_multiscale.zarr");
	CHECK_EQ_INT(tsr_listing_count(l), 4);
	e = entry(l, 0);
	CHECK(e.kind == TSR_ENTRY_MULTISCALE && !strcmp(e.name, "") && e.nlevels == 3);
	for (int k = 0; k < 3 && tsr_listing_count(l) == 4; k++) {
		e = entry(l, (size_t)k + 1);
		char want[8];
		snprintf(want, sizeof(want), "%d", k);
		CHECK(e.kind == TSR_ENTRY_ARRAY && !strcmp(e.name, want) && e.level == k &&
		      !strcmp(e.group, ""));
	}
	tsr_listing_free(l);

	/* a Blosc2 frame: one array */
	l = list("blosc2/blosclz_shuffle_f4_2d.b2nd");
	CHECK_EQ_INT(tsr_listing_count(l), 1);
	e = entry(l, 0);
	CHECK(e.kind == TSR_ENTRY_ARRAY && !strcmp(e.format, "blosc2") && e.hdu == -1);

	/* the contract */
	struct tsr_entry small = {.struct_size = 8};
	CHECK_EQ_INT(tsr_listing_entry(l, 0, &small), TSR_E_INVALID_ARG);
	CHECK_EQ_INT(tsr_listing_entry(l, 1, &e), TSR_E_RANGE);
	CHECK_EQ_INT(tsr_listing_entry(NULL, 0, &e), TSR_E_INVALID_ARG);
	/* a caller built against a later, larger struct gets the fields there are */
	struct {
		struct tsr_entry e;
		int later;
	} big = {.e.struct_size = sizeof(big), .later = 12345};
	CHECK_EQ_INT(tsr_listing_entry(l, 0, &big.e), TSR_OK);
	CHECK(big.later == 12345 && big.e.kind == TSR_ENTRY_ARRAY);
	tsr_listing_free(l);
	tsr_listing_free(NULL);
	CHECK_EQ_INT(tsr_listing_count(NULL), 0);

	struct tsr_listing *none = (struct tsr_listing *)1;
	CHECK_EQ_INT(tsr_list("/no/such/path.fits", &none), TSR_E_NOT_FOUND);
	CHECK(none == NULL && strstr(tsr_errmsg(), "/no/such/path.fits"));
	CHECK_EQ_INT(tsr_list(NULL, &none), TSR_E_INVALID_ARG);
	CHECK_EQ_INT(tsr_list("x", NULL), TSR_E_INVALID_ARG);
	char junk[] = "/tmp/tsr_listing_junk_XXXXXX";
	FILE *f = fdopen(mkstemp(junk), "wb");
	CHECK(f != NULL);
	for (int i = 0; f && i < 3000; i++)
		fputc('x', f);
	if (f)
		fclose(f);
	CHECK_EQ_INT(tsr_list(junk, &none), TSR_E_FORMAT);
	CHECK(strstr(tsr_errmsg(), "not a FITS file") != NULL);
	remove(junk);

	/* the listing's own metadata: an HDU without data still has its header; a group its
	 * attributes */
	char *meta = NULL;
	l = list("fits/fp_multi.fits.fz");
	CHECK_EQ_INT(tsr_listing_metadata(l, 0, &meta), TSR_OK);
	CHECK(meta && strstr(meta, "\"header\":[{\"key\":\"SIMPLE\",\"value\":true,") != NULL);
	CHECK(meta && strstr(meta, "\"hdu\":0,\"xtension\":null") != NULL);
	tsr_free(meta);
	CHECK_EQ_INT(tsr_listing_metadata(l, 2, &meta), TSR_OK);
	CHECK(meta && strstr(meta, "\"extname\":\"EXT1\"") && strstr(meta, "\"key\":\"ZIMAGE\""));
	tsr_free(meta);
	CHECK_EQ_INT(tsr_listing_metadata(l, 4, &meta), TSR_E_RANGE);
	CHECK(meta == NULL);
	CHECK_EQ_INT(tsr_listing_metadata(NULL, 0, &meta), TSR_E_INVALID_ARG);
	CHECK_EQ_INT(tsr_listing_metadata(l, 0, NULL), TSR_E_INVALID_ARG);
	tsr_listing_free(l);
	l = list("zarr2/ome_multiscale.zarr");
	CHECK_EQ_INT(tsr_listing_metadata(l, 0, &meta), TSR_OK);
	CHECK(meta && strstr(meta, "\"node_type\":\"group\"") && strstr(meta, "\"multiscales\":["));
	tsr_free(meta);
	tsr_listing_free(l);
	l = list("blosc2/blosclz_shuffle_f4_2d.b2nd");
	CHECK_EQ_INT(tsr_listing_metadata(l, 0, &meta), TSR_OK);
	CHECK(meta && strstr(meta, "\"metalayers\":[\"b2nd\"]") && !strstr(meta, "layout"));
	tsr_free(meta);
	tsr_listing_free(l);

	/* metadata of nothing */
	char *json = (char *)1;
	CHECK_EQ_INT(tsr_array_metadata(NULL, &json), TSR_E_INVALID_ARG);
	CHECK(json == NULL);
	CHECK_DONE();
}
