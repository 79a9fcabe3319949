/* test_fits_chunk_next.c - the FITS driver's chunk_next, given tile k - 1's description, gives
 * tile k's byte for byte as chunk_ref does wherever it says the two differ only in offset, size
 * and the tile's own ZSCALE, ZZERO and dither row: every tiled HDU of the corpus, values and raw,
 * including tiles cut at an edge and tiles in a fallback column (which it leaves to chunk_ref). */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "core/array.h"
#include "core/internal.h"
#include "corpus_fits.h"

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

struct counts {
	long took, left, arrays;
};

static void each_array(struct tsr_array *a, const char *name, void *arg)
{
	struct counts *n = arg;
	if (!a->ops->chunk_next)
		return;
	check_array(a, name, &n->took, &n->left);
	n->arrays++;
}

int main(void)
{
	struct tsr_context *ctx = NULL;
	CHECK(tsr_context_create(NULL, &ctx) == TSR_OK);
	struct counts n = {0};
	CHECK(corpus_fits_each(ctx, 1, each_array, &n) == 0);
	tsr_context_free(ctx);
	printf("%ld tiled arrays: chunk_next took %ld tiles, left %ld to chunk_ref\n", n.arrays,
	       n.took, n.left);
	/* the corpus has both: most tiles follow one like them, edge and fallback ones do not */
	CHECK(n.arrays > 20);
	CHECK(n.took > 1000);
	CHECK(n.left > 10);
	CHECK_DONE();
}
