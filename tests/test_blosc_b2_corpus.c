/* test_blosc_b2_corpus.c - every chunk of every Blosc2 corpus frame, decoded whole and block by block and reassembled as b2nd. */
#include "blosc_test_util.h"

/* ---- 5. Blosc2 corpus: every chunk of every frame, reassembled as b2nd ---- */

struct b2_walk {
	const char *corpus;
	char done[64][1024];
	int ndone;
	int frames, chunks, special_offsets;
	struct tsr_blosc_scratch *scratch;
};

static int64_t be64s(const uint8_t *p)
{
	return (int64_t)tsr_be64(p);
}

/* One decoded chunk compared block by block with the whole-chunk decode. */
static void check_blocks_match(const char *what, const uint8_t *c, size_t cn, const uint8_t *whole,
			       struct tsr_blosc_scratch *scratch)
{
	struct tsr_blosc_info in;
	if (tsr_blosc_info(c, cn, &in))
		return;
	uint8_t *blk = malloc((size_t)in.blocksize + 1);
	for (int64_t b = 0; b < in.nblocks; b++) {
		size_t len = (size_t)(b == in.nblocks - 1 ? in.last_block_nbytes : in.blocksize);
		int rc = tsr_blosc_decode_blocks(blk, len, c, cn, b, 1, scratch);
		if (rc || memcmp(blk, whole + b * in.blocksize, len) != 0) {
			fprintf(stderr, "%s: block %lld alone differs (rc %d %s)\n", what, (long long)b,
				rc, rc ? tsr_errmsg() : "");
			CHECK(0);
			break;
		}
	}
	free(blk);
}

static void b2_case(struct jspan obj, void *arg)
{
	struct b2_walk *w = arg;
	struct jspan v;
	char path[512], expect[512], dtype[16] = "";
	if (jget(obj, "section", &v))
		return;
	if (!jget(obj, "path", &v) || !jstr(v, path, sizeof(path)) || !jget(obj, "expect", &v) ||
	    !jstr(v, expect, sizeof(expect)))
		return;
	if (jget(obj, "dtype", &v))
		jstr(v, dtype, sizeof(dtype));
	for (int i = 0; i < w->ndone; i++)
		if (strcmp(w->done[i], path) == 0)
			return;
	if (w->ndone < 64)
		snprintf(w->done[w->ndone++], sizeof(w->done[0]), "%s", path);

	char fpath[1200], dir[1100];
	snprintf(dir, sizeof(dir), "%s/%s", w->corpus, path);
	int sparse = is_dir(dir);
	snprintf(fpath, sizeof(fpath), sparse ? "%s/chunks.b2frame" : "%s", dir);
	size_t fn;
	uint8_t *fr = read_file(fpath, &fn);
	if (!fr || fn < 100 || fr[0] != 0x9e || memcmp(fr + 2, "b2frame", 7) != 0 ||
	    fr[29] != 0xd3 || fr[38] != 0xd3 || fr[47] != 0xd2 || fr[57] != 0xd2) {
		fprintf(stderr, "blosc2 %s: not a frame I can read\n", path);
		CHECK(0);
		free(fr);
		return;
	}
	int64_t header_len = (int32_t)tsr_be32(fr + 11);
	int64_t nbytes = be64s(fr + 30), cbytes = be64s(fr + 39);
	int64_t typesize = (int32_t)tsr_be32(fr + 48), chunksize = (int32_t)tsr_be32(fr + 58);
	/* the offsets index is itself a blosc chunk, right after the data chunks (which a
	 * sparse frame keeps in files of their own) */
	int64_t ioff = sparse ? header_len : header_len + cbytes;
	struct tsr_blosc_info oi;
	if (ioff < 0 || ioff >= (int64_t)fn ||
	    tsr_blosc_info(fr + ioff, fn - (size_t)ioff, &oi) != TSR_OK || chunksize <= 0) {
		fprintf(stderr, "blosc2 %s: offsets index: %s\n", path, tsr_errmsg());
		CHECK(0);
		free(fr);
		return;
	}
	int64_t nchunks = oi.nbytes / 8;
	int64_t *offs = malloc((size_t)oi.nbytes + 8);
	CHECK_EQ_INT(tsr_blosc_decode(offs, (size_t)oi.nbytes, fr + ioff, fn - (size_t)ioff,
				      w->scratch, NULL),
		     TSR_OK);
	CHECK_EQ_INT(nchunks, (nbytes + chunksize - 1) / chunksize);

	/* b2nd metalayer: shape, chunkshape, blockshape; without it a 1-D super-chunk */
	int nd = 1;
	int64_t shape[16] = {nbytes / typesize}, cshape[16] = {chunksize / typesize},
		bshape[16] = {chunksize / typesize};
	for (int64_t p = 87; p + 10 < header_len; p++) {
		if (memcmp(fr + p, "\xa4" "b2nd\xd2", 6) != 0)
			continue;
		int64_t mo = (int32_t)tsr_be32(fr + p + 6);
		const uint8_t *m = fr + mo + 5; /* after bin32 marker and length */
		if (mo + 5 + 3 > (int64_t)fn || fr[mo] != 0xc6 || m[0] != 0x97)
			break;
		nd = m[2];
		const uint8_t *q = m + 3;
		q++; /* fixarray of shape */
		for (int d = 0; d < nd; d++, q += 9)
			shape[d] = be64s(q + 1);
		q++;
		for (int d = 0; d < nd; d++, q += 5)
			cshape[d] = (int32_t)tsr_be32(q + 1);
		q++;
		for (int d = 0; d < nd; d++, q += 5)
			bshape[d] = (int32_t)tsr_be32(q + 1);
		break;
	}
	int64_t total = 1, echunk = 1, eblock = 1, cgrid[16], bgrid[16];
	for (int d = 0; d < nd; d++) {
		total *= shape[d];
		cgrid[d] = (shape[d] + cshape[d] - 1) / cshape[d];
		bgrid[d] = (cshape[d] + bshape[d] - 1) / bshape[d];
		echunk *= bgrid[d] * bshape[d];
		eblock *= bshape[d];
	}
	char epath[1100];
	snprintf(epath, sizeof(epath), "%s/%s", w->corpus, expect);
	struct npy np;
	if (!npy_load(epath, &np) || np.nbytes != (size_t)(total * typesize)) {
		fprintf(stderr, "blosc2 %s: expected data %s unusable\n", path, epath);
		CHECK(0);
		free(np.file);
		free(offs);
		free(fr);
		return;
	}
	uint8_t *chunk = malloc((size_t)chunksize);
	int mism = 0;
	for (int64_t ic = 0; ic < nchunks; ic++) {
		int64_t o = offs[ic];
		size_t want = (size_t)(nd > 1 || ic < nchunks - 1 ? chunksize
								   : nbytes - ic * chunksize);
		if (o < 0) {
			/* special chunk kept in the index: (o >> 56) & 7 is 1 zeros, 2 NaN, 4 uninit */
			int kind = (int)((uint64_t)o >> 56 & 7);
			memset(chunk, 0, want);
			if (kind == 2)
				for (size_t k = 0; k + (size_t)typesize <= want; k += (size_t)typesize) {
					if (typesize == 4)
						memcpy(chunk + k, "\x00\x00\xc0\x7f", 4);
					else
						memcpy(chunk + k, "\x00\x00\x00\x00\x00\x00\xf8\x7f", 8);
				}
			w->special_offsets++;
		} else {
			uint8_t *c;
			size_t cn = 0;
			uint8_t *cfile = NULL;
			if (sparse) {
				char cp[1300];
				snprintf(cp, sizeof(cp), "%s/%08llX.chunk", dir, (unsigned long long)o);
				cfile = read_file(cp, &cn);
				c = cfile;
			} else {
				c = o + header_len < (int64_t)fn ? fr + header_len + o : NULL;
				cn = c ? fn - (size_t)(header_len + o) : 0;
			}
			size_t got = 0;
			int rc = c ? tsr_blosc_decode(chunk, (size_t)chunksize, c, cn, w->scratch, &got)
				   : TSR_E_IO;
			if (rc || got != want) {
				fprintf(stderr, "blosc2 %s chunk %lld: rc %d %s (%zu bytes, want %zu)\n",
					path, (long long)ic, rc, tsr_errmsg(), got, want);
				CHECK(0);
				free(cfile);
				continue;
			}
			check_blocks_match(path, c, cn, chunk, w->scratch);
			free(cfile);
			w->chunks++;
		}
		/* place: chunk ic of the C-order grid, blocks in C order inside it */
		int64_t cidx[16], rem = ic;
		for (int d = nd - 1; d >= 0; d--) {
			cidx[d] = rem % cgrid[d];
			rem /= cgrid[d];
		}
		if (nd == 1 && cshape[0] * typesize == chunksize && bshape[0] == cshape[0]) {
			/* plain super-chunk: bytes in order */
			int64_t first = ic * chunksize;
			for (size_t k = 0; k < want; k++)
				mism += chunk[k] != np.data[first + (int64_t)k];
			continue;
		}
		int64_t li[16] = {0}, cn_items = 1;
		for (int d = 0; d < nd; d++)
			cn_items *= cshape[d];
		for (int64_t k = 0; k < cn_items; k++) {
			int inside = 1;
			int64_t g = 0, bi = 0, wi = 0;
			for (int d = 0; d < nd; d++) {
				int64_t x = cidx[d] * cshape[d] + li[d];
				inside &= x < shape[d];
				g = g * shape[d] + x;
				bi = bi * bgrid[d] + li[d] / bshape[d];
				wi = wi * bshape[d] + li[d] % bshape[d];
			}
			int64_t s = bi * eblock + wi;
			if (inside && memcmp(chunk + s * typesize, np.data + g * typesize,
					     (size_t)typesize) != 0) {
				/* NaN equals NaN */
				int nan_ok = 0;
				if (dtype[1] == 'f' && typesize == 4) {
					float a, b;
					memcpy(&a, chunk + s * typesize, 4);
					memcpy(&b, np.data + g * typesize, 4);
					nan_ok = isnan(a) && isnan(b);
				} else if (dtype[1] == 'f' && typesize == 8) {
					double a, b;
					memcpy(&a, chunk + s * typesize, 8);
					memcpy(&b, np.data + g * typesize, 8);
					nan_ok = isnan(a) && isnan(b);
				}
				mism += !nan_ok;
			}
			for (int d = nd - 1; d >= 0; d--) {
				if (++li[d] < cshape[d])
					break;
				li[d] = 0;
			}
		}
		(void)echunk;
	}
	if (mism)
		fprintf(stderr, "blosc2 %s: %d elements differ\n", path, mism);
	CHECK_EQ_INT(mism, 0);
	w->frames++;
	free(chunk);
	free(np.file);
	free(offs);
	free(fr);
}

static void test_blosc2_corpus(const char *corpus)
{
	char mpath[4200];
	snprintf(mpath, sizeof(mpath), "%s/manifest-blosc2.json", corpus);
	size_t n;
	char *text = (char *)read_file(mpath, &n);
	if (!text) {
		fprintf(stderr, "no Blosc2 corpus at %s: skipped\n", corpus);
		return;
	}
	text = realloc(text, n + 1);
	text[n] = 0;
	struct b2_walk w = {.corpus = corpus};
	tsr_blosc_scratch_create(&w.scratch);
	jeach(text, b2_case, &w);
	tsr_blosc_scratch_free(w.scratch);
	free(text);
	printf("blosc2 corpus: %d frames, %d chunks decoded, %d special offsets\n", w.frames,
	       w.chunks, w.special_offsets);
	CHECK(w.frames >= 20 && w.chunks >= 200);
}


int main(void)
{
	char corpus[4096];
	corpus_dir(corpus, sizeof(corpus));
	test_blosc2_corpus(corpus);
	CHECK_DONE();
}
