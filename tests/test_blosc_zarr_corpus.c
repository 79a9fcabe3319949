/* test_blosc_zarr_corpus.c - every blosc chunk of the Zarr v2 corpus against zarr-python's reading. */
#include "blosc_test_util.h"

/* ---- 4. Zarr v2 corpus: every blosc chunk against zarr-python's reading ---- */

struct zarr_walk {
	const char *corpus;
	char done[64][1024];
	int ndone;
	int arrays, chunks, missing;
	struct tsr_blosc_scratch *scratch;
};

static void swap_bytes(uint8_t *p, size_t n, size_t w)
{
	for (size_t i = 0; i + w <= n; i += w)
		for (size_t a = 0, b = w - 1; a < b; a++, b--) {
			uint8_t t = p[i + a];
			p[i + a] = p[i + b];
			p[i + b] = t;
		}
}

static void zarr_case(struct jspan obj, void *arg)
{
	struct zarr_walk *w = arg;
	struct jspan v;
	char path[512], array[256] = "", expect[512], key[800];
	if (jget(obj, "section", &v) || jget(obj, "level", &v))
		return;
	if (!jget(obj, "path", &v) || !jstr(v, path, sizeof(path)) || !jget(obj, "expect", &v) ||
	    !jstr(v, expect, sizeof(expect)))
		return;
	if (jget(obj, "array", &v))
		jstr(v, array, sizeof(array));
	snprintf(key, sizeof(key), "%s/%s", path, array);
	for (int i = 0; i < w->ndone; i++)
		if (strcmp(w->done[i], key) == 0)
			return;
	if (w->ndone < 64)
		snprintf(w->done[w->ndone++], sizeof(w->done[0]), "%s", key);

	char dir[1400], zpath[1500];
	snprintf(dir, sizeof(dir), "%s/%s%s%s", w->corpus, path, *array ? "/" : "", array);
	snprintf(zpath, sizeof(zpath), "%s/.zarray", dir);
	size_t zn;
	char *z = (char *)read_file(zpath, &zn);
	if (!z)
		return;
	z = realloc(z, zn + 1);
	z[zn] = 0;
	struct jspan zo = {z, zn}, comp, fl;
	char id[32] = "", dtype[32] = "", order[8] = "C", sep[4] = ".";
	int delta = 0;
	if (!jget(zo, "compressor", &comp) || !jget(comp, "id", &v) || !jstr(v, id, sizeof(id)) ||
	    strcmp(id, "blosc") != 0) {
		free(z);
		return;
	}
	if (jget(zo, "filters", &fl) && fl.p[0] == '[') {
		/* numcodecs Delta with dtype == astype is the one filter this test undoes */
		if (strstr(z, "\"delta\"") && strstr(z, "\"astype\": \"<i4\"") == NULL &&
		    strstr(z, "\"astype\":\"<i4\"") == NULL) {
			free(z);
			return;
		}
		delta = 1;
	}
	int64_t shape[8], chunks[8];
	int nd = jget(zo, "shape", &v) ? jints(v, shape, 8) : -1;
	int nc = jget(zo, "chunks", &v) ? jints(v, chunks, 8) : -1;
	if (jget(zo, "dtype", &v))
		jstr(v, dtype, sizeof(dtype));
	if (jget(zo, "order", &v))
		jstr(v, order, sizeof(order));
	if (jget(zo, "dimension_separator", &v))
		jstr(v, sep, sizeof(sep));
	free(z);
	if (nd <= 0 || nd != nc || strlen(dtype) < 3) {
		fprintf(stderr, "zarr %s: cannot read .zarray\n", key);
		CHECK(0);
		return;
	}
	size_t isz = (size_t)atoi(dtype + 2);
	int big = dtype[0] == '>';
	if (delta && isz != 4) {
		fprintf(stderr, "zarr %s: delta on itemsize %zu\n", key, isz);
		return;
	}
	char epath[1100];
	snprintf(epath, sizeof(epath), "%s/%s", w->corpus, expect);
	struct npy np;
	if (!npy_load(epath, &np)) {
		fprintf(stderr, "zarr %s: cannot read %s\n", key, epath);
		CHECK(0);
		free(np.file);
		return;
	}
	int64_t total = 1, cn = 1, grid[8];
	for (int d = 0; d < nd; d++) {
		total *= shape[d];
		cn *= chunks[d];
		grid[d] = (shape[d] + chunks[d] - 1) / chunks[d];
	}
	CHECK_EQ_INT(np.nbytes, (size_t)total * isz);
	size_t cbytes_n = (size_t)cn * isz;
	uint8_t *buf = malloc(cbytes_n), *blk = malloc(cbytes_n);
	int64_t ci[8] = {0};
	int mism = 0;
	w->arrays++;
	for (;;) {
		char name[256], cpath[1700];
		size_t o = 0;
		for (int d = 0; d < nd; d++)
			o += (size_t)snprintf(name + o, sizeof(name) - o, "%s%lld", d ? sep : "",
					      (long long)ci[d]);
		snprintf(cpath, sizeof(cpath), "%s/%s", dir, name);
		size_t srcn;
		uint8_t *src = read_file(cpath, &srcn);
		if (!src) {
			w->missing++;
		} else {
			size_t got = 0;
			int rc = tsr_blosc_decode(buf, cbytes_n, src, srcn, w->scratch, &got);
			if (rc || got != cbytes_n) {
				fprintf(stderr, "zarr %s chunk %s: rc %d %s (%zu bytes)\n", key, name, rc,
					tsr_errmsg(), got);
				CHECK(0);
			} else {
				/* block by block gives the same bytes */
				struct tsr_blosc_info in;
				tsr_blosc_info(src, srcn, &in);
				for (int64_t b = 0; b < in.nblocks; b++)
					CHECK_EQ_INT(tsr_blosc_decode_blocks(blk + b * in.blocksize,
									     cbytes_n - (size_t)(b * in.blocksize),
									     src, srcn, b, 1, w->scratch),
						     TSR_OK);
				CHECK(memcmp(blk, buf, cbytes_n) == 0);
				if (delta) {
					int32_t acc = 0;
					for (int64_t k = 0; k < cn; k++) {
						int32_t x;
						memcpy(&x, buf + 4 * k, 4);
						acc = (int32_t)((uint32_t)acc + (uint32_t)x);
						memcpy(buf + 4 * k, &acc, 4);
					}
				}
				if (big)
					swap_bytes(buf, cbytes_n, isz);
				/* every element of the chunk inside the array */
				int64_t li[8] = {0};
				for (int64_t k = 0; k < cn; k++) {
					int inside = 1;
					int64_t eoff = 0, coff = 0;
					for (int d = 0; d < nd; d++) {
						int64_t g = ci[d] * chunks[d] + li[d];
						inside &= g < shape[d];
						eoff = eoff * shape[d] + g;
					}
					if (order[0] == 'F')
						for (int d = nd - 1; d >= 0; d--)
							coff = coff * chunks[d] + li[d];
					else
						for (int d = 0; d < nd; d++)
							coff = coff * chunks[d] + li[d];
					if (inside && memcmp(buf + coff * (int64_t)isz,
							     np.data + eoff * (int64_t)isz, isz) != 0)
						mism++;
					for (int d = nd - 1; d >= 0; d--) {
						if (++li[d] < chunks[d])
							break;
						li[d] = 0;
					}
				}
				w->chunks++;
			}
			free(src);
		}
		int d = nd - 1;
		for (; d >= 0; d--) {
			if (++ci[d] < grid[d])
				break;
			ci[d] = 0;
		}
		if (d < 0)
			break;
	}
	if (mism)
		fprintf(stderr, "zarr %s: %d elements differ\n", key, mism);
	CHECK_EQ_INT(mism, 0);
	free(buf);
	free(blk);
	free(np.file);
}

static void test_zarr_corpus(const char *corpus)
{
	char mpath[4200];
	snprintf(mpath, sizeof(mpath), "%s/manifest-zarr2.json", corpus);
	size_t n;
	char *text = (char *)read_file(mpath, &n);
	if (!text) {
		fprintf(stderr, "no Zarr v2 corpus at %s: skipped\n", corpus);
		return;
	}
	text = realloc(text, n + 1);
	text[n] = 0;
	struct zarr_walk w = {.corpus = corpus};
	tsr_blosc_scratch_create(&w.scratch);
	jeach(text, zarr_case, &w);
	tsr_blosc_scratch_free(w.scratch);
	free(text);
	printf("zarr2 corpus: %d blosc arrays, %d chunks decoded (%d never written)\n", w.arrays,
	       w.chunks, w.missing);
	CHECK(w.arrays >= 12 && w.chunks >= 150);
}


int main(void)
{
	char corpus[4096];
	corpus_dir(corpus, sizeof(corpus));
	test_zarr_corpus(corpus);
	CHECK_DONE();
}
