/* test_fits_chunk_next.c - the FITS driver's chunk_next, given tile k - 1's description, gives
 * tile k's byte for byte as chunk_ref does wherever it says the two differ only in offset, size
 * and the tile's own ZSCALE, ZZERO and dither row: every tiled HDU of the corpus, values and raw,
 * including tiles cut at an edge and tiles in a fallback column (which it leaves to chunk_ref). */
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "core/array.h"
#include "core/internal.h"

/* Checks every tile of one array; adds the tiles chunk_next took and left to *took, *left. */
static void check_array(const struct tsr_array *a, const char *name, long *took, long *left)
{
	static struct tsr_chunk_ref ref, want;
	for (int64_t c = 1; c < a->desc.nchunks; c++) {
		if (a->ops->chunk_ref(a, c - 1, &ref))
			continue; /* a tile the corpus means to be bad: chunk_ref says so */
		/* what chunk_next must write, scribbled first */
		ref.offset = 0x1234567;
		ref.nbytes = 77;
		ref.xform.scale = -1.5;
		ref.xform.zero = 1e300;
		ref.xform.dither_row = -9;
		if (!a->ops->chunk_next(a, c, &ref)) {
			(*left)++;
			continue;
		}
		(*took)++;
		CHECK(a->ops->chunk_ref(a, c, &want) == TSR_OK);
		size_t at = offsetof(struct tsr_chunk_ref, missing_is_fill);
		if (strcmp(ref.path, want.path) ||
		    memcmp((char *)&ref + at, (char *)&want + at, sizeof(ref) - at)) {
			fprintf(stderr, "%s: tile %lld described unlike chunk_ref's\n", name,
				(long long)c);
			check_failures++;
			return;
		}
	}
}

int main(void)
{
	const char *corpus = getenv("TSR_CORPUS");
	char dir[512], path[1024];
	snprintf(dir, sizeof(dir), "%s/fits", corpus ? corpus : "../shared/corpus");
	DIR *d = opendir(dir);
	CHECK(d != NULL);
	if (!d)
		CHECK_DONE();
	struct tsr_context *ctx = NULL;
	CHECK(tsr_context_create(NULL, &ctx) == TSR_OK);
	long took = 0, left = 0, arrays = 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		for (int hdu = 0; hdu < 8; hdu++)
			for (int raw = 0; raw < 2; raw++) {
				struct tsr_open_options oo = {.struct_size = sizeof(oo), .hdu = hdu,
							      .raw = raw};
				struct tsr_array *a = NULL;
				if (tsr_open(ctx, path, &oo, &a))
					continue;
				if (a->ops->chunk_next) {
					char name[1100];
					snprintf(name, sizeof(name), "%s HDU %d%s", e->d_name, hdu,
						 raw ? " raw" : "");
					check_array(a, name, &took, &left);
					arrays++;
				}
				tsr_array_free(a);
			}
	}
	closedir(d);
	tsr_context_free(ctx);
	printf("%ld tiled arrays: chunk_next took %ld tiles, left %ld to chunk_ref\n", arrays, took,
	       left);
	/* the corpus has both: most tiles follow one like them, edge and fallback ones do not */
	CHECK(arrays > 20);
	CHECK(took > 1000);
	CHECK(left > 10);
	CHECK_DONE();
}
