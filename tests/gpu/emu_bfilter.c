/* emu_bfilter.c - the GPU blosc filter pass's steps (bfilter_core.h) run on the CPU for thread blocks of 1 to 256 threads, after the GPU's stream recipe, against the CPU blosc decoder on c-blosc/c-blosc2 chunks (tests/data/blosc and blosc-filters: every filter, pipelines of up to six, special and memcpyed chunks) and the corpus's blosc chunks. */
#define TSR_BF_EMU 1
#define TSR_LZ_EMU 1
#include "bfilter_core.h"
#include "blosclz_core.h"
#include "lz4_core.h"

#include <dirent.h>
#include <libdeflate.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zstd.h>

#include "check.h"
#include "read_file.h"
#include "codecs/route.h"
#include "core/internal.h"

/*
 * Each chunk goes the CUDA engine's way: tsr_route_blosc must take it (unless its codec has no
 * GPU family or it has a dictionary), tsr_blosc_streams lists its streams (decoded here by the
 * GPU families' own code, or copied and set), the chunk's stored bytes lie in a staging buffer
 * exactly as large as the engine stages them (its stored size or decoded size, whichever is
 * larger: under ASan a step that strays outside fails), and the pass runs block by block, step
 * by step, each step for every thread of the block in turn. The result must equal
 * tsr_blosc_decode's bytes (and the fixture's expected bytes), for 1, 3, 32 and 256 threads.
 */

static struct libdeflate_decompressor *dd;
static const unsigned nthreads[] = {1, 3, 32, 256};
static int n_in_stage, n_pass, n_planes, n_plain, n_fill, n_copy, n_refused, n_delta, n_zstd;
static int n_filter[256];

/* Element e's bytes from planes that restart every `block` elements (place.cu's
 * tsr_load_planes). */
static void load_planes(const uint8_t *base, int64_t e, int64_t npix, size_t w, int64_t block,
			uint8_t *out)
{
	int64_t b = e / block;
	base += b * block * (int64_t)w;
	e -= b * block;
	npix = npix - b * block < block ? npix - b * block : block;
	for (size_t j = 0; j < w; j++)
		out[j] = base[(int64_t)j * npix + e];
}

/* The streams decoded into dec as the GPU's families, copies and sets do. */
static int decode_streams(const uint8_t *c, size_t cn, int kind, const struct tsr_blosc_stream *sp,
			  size_t n, uint8_t *dec, size_t dn)
{
	int fam = kind / TSR_VARIANTS;
	for (size_t k = 0; k < n; k++) {
		const struct tsr_blosc_stream *s = &sp[k];
		uint64_t in = s->kind == TSR_BLOSC_STREAM_CODED ? s->csize
			      : s->kind == TSR_BLOSC_STREAM_COPY ? s->n : 0;
		if (s->dst + s->n > dn || s->src + in > cn)
			return 1;
		if (s->kind == TSR_BLOSC_STREAM_CODED && kind < 0) {
			/* zstd: no GPU family yet; libzstd stands in so the pass sees its filters */
			if (ZSTD_decompress(dec + s->dst, s->n, c + s->src, s->csize) != s->n)
				return 1;
		} else if (s->kind == TSR_BLOSC_STREAM_CODED && fam == TSR_FAM_INFLATE) {
			size_t out = 0;
			if (libdeflate_zlib_decompress(dd, c + s->src, s->csize, dec + s->dst, s->n,
						       &out) != LIBDEFLATE_SUCCESS || out != s->n)
				return 1;
		} else if (s->kind == TSR_BLOSC_STREAM_CODED) {
			static struct tsr_lz_smem m;
			uint64_t out = 0;
			int st = fam == TSR_FAM_LZ4
					 ? tsr_lz4_stream(&m, c + s->src, s->csize, dec + s->dst, s->n,
							  kind % TSR_VARIANTS, &out)
					 : tsr_blosclz_stream(&m, c + s->src, s->csize, dec + s->dst,
							      s->n, &out);
			if (st != TSR_CUDA_LZ_OK || out != s->n)
				return 1;
		} else if (s->kind == TSR_BLOSC_STREAM_COPY) {
			memcpy(dec + s->dst, c + s->src, s->n);
		} else {
			memset(dec + s->dst, s->value, s->n);
		}
	}
	return 0;
}

/* The pass over one chunk, nt threads a block: pass 0 over every block, then pass 1. */
static void run_pass(const struct tsr_cuda_bfilter *d, uint8_t *dec, uint8_t *stage, unsigned nt)
{
	uint64_t *agg = malloc(nt * sizeof(*agg));
	for (int pass = 0; pass < tsr_bf_passes(d); pass++) {
		for (uint64_t k = 0; k < d->nblocks; k++) {
			uint64_t b = tsr_bf_block(d, k);
			struct tsr_bf_view v = {.a = dec + d->dec + b * d->blocksize,
						.b = stage + d->scratch + b * d->blocksize,
						.a0 = dec + d->dec,
						.n = tsr_bf_block_n(d, b),
						.at = b * d->blocksize,
						.block = b};
			v.pat = d->pat_src == TSR_CUDA_BF_PAT_INLINE ? d->pat : stage + d->pat_src;
			unsigned steps = tsr_bf_nsteps(d, b, pass);
			/* each step for every thread in turn: a barrier between steps */
			for (unsigned s = 0; s < steps; s++)
				for (unsigned t = 0; t < nt; t++)
					tsr_bf_step(d, &v, pass, s, t, nt, agg);
		}
	}
	free(agg);
}

/* One chunk as elements of w bytes, the GPU's way, against the CPU decoder's bytes `want`. */
static void check_chunk(const char *name, const uint8_t *c, size_t cn, size_t w,
			const uint8_t *want, size_t want_n)
{
	if (want_n % w || want_n == 0)
		return;
	int64_t nelem = (int64_t)(want_n / w);
	struct tsr_route rt;
	int codec;
	tsr_route_blosc(c, cn, w, nelem, ~0u, &rt, &codec);
	struct tsr_blosc_info in;
	CHECK_EQ_INT(tsr_blosc_info(c, cn, &in), TSR_OK);
	if (rt.how != TSR_ROUTE_BLOSC) {
		/* only codecs without a family, and dictionaries, are left to the CPU */
		n_refused++;
		if (!(rt.why == TSR_WHY_CODEC || (rt.why == TSR_WHY_DICT && in.use_dict))) {
			fprintf(stderr, "%s (w %zu): refused, reason %d\n", name, w, rt.why);
			CHECK(0);
		}
		if (in.codec != TSR_BLOSC_ZSTD || in.use_dict || rt.why != TSR_WHY_CODEC)
			return;
		n_zstd++; /* its streams by libzstd, its filters by the pass */
	}
	if (in.codec == TSR_BLOSC_ZSTD)
		rt.kind = -1; /* (libzstd also once zstd has a GPU family: its own tests test it) */
	size_t cap = 1 << 16, n = 0;
	struct tsr_blosc_stream *sp = malloc(cap * sizeof(*sp));
	struct tsr_blosc_pipeline p;
	int st = tsr_blosc_streams(c, cn, w, NULL, sp, cap, &n, &p);
	CHECK_EQ_INT(st, TSR_OK);
	CHECK_EQ_INT(p.nbytes, (int64_t)want_n);
	/* staging as the engine sizes it: the stored bytes, room for the decoded ones after */
	size_t sn = cn > want_n ? cn : want_n;
	struct tsr_cuda_bfilter d;
	int has = tsr_bf_describe(&p, 0, 0, 0, &d);
	CHECK(!(has && p.plane_block > 0));
	for (size_t i = 0; i < sizeof(nthreads) / sizeof(nthreads[0]); i++) {
		uint8_t *dec = malloc(want_n), *stage = malloc(sn), *got = malloc(want_n);
		memset(dec, 0xa5, want_n);
		memcpy(stage, c, cn);
		memset(stage + cn, 0x5a, sn - cn);
		int bad = st != TSR_OK || decode_streams(c, cn, rt.kind, sp, n, dec, want_n);
		if (!bad && has)
			run_pass(&d, dec, stage, nthreads[i]);
		if (!bad && p.plane_block > 0) {
			for (int64_t e = 0; e < nelem; e++)
				load_planes(dec, e, nelem, w, p.plane_block, got + e * (int64_t)w);
		} else if (!bad) {
			/* the pass's result: in the staging when tsr_bf_in_stage says so */
			memcpy(got, has && tsr_bf_in_stage(&d) ? stage : dec, want_n);
		}
		if (!bad && memcmp(got, want, want_n) != 0) {
			size_t at = 0;
			while (got[at] == want[at])
				at++;
			fprintf(stderr, "%s as %zu-byte elements, %u threads: differs from the CPU "
				"decode at byte %zu\n", name, w, nthreads[i], at);
			bad = 1;
		}
		CHECK(!bad);
		free(dec);
		free(stage);
		free(got);
	}
	n_pass++;
	n_planes += p.plane_block > 0;
	n_plain += !has && p.plane_block == 0;
	n_fill += p.fill_len > 0;
	n_copy += in.memcpyed;
	n_delta += has && tsr_bf_passes(&d) == 2;
	n_in_stage += has && tsr_bf_in_stage(&d);
	for (int k = 0; k < p.nfilt; k++)
		n_filter[p.filt[k]]++;
	free(sp);
}

/* A chunk and the CPU decoder's bytes (compared with `expect` too when given). */
static int check_file_chunk(const char *name, const uint8_t *c, size_t cn, const uint8_t *expect,
			    size_t en)
{
	struct tsr_blosc_info in;
	if (tsr_blosc_info(c, cn, &in) != TSR_OK || in.nbytes == 0)
		return 0;
	uint8_t *want = malloc((size_t)in.nbytes);
	size_t wn = 0;
	if (tsr_blosc_decode(want, (size_t)in.nbytes, c, cn, NULL, &wn) != TSR_OK) {
		free(want);
		return 0;
	}
	if (expect)
		CHECK(en == wn && !memcmp(expect, want, wn));
	for (size_t w = 1; w <= 16; w *= 2)
		check_chunk(name, c, cn, w, want, wn);
	if (in.typesize != 1 && in.typesize != 2 && in.typesize != 4 && in.typesize != 8 &&
	    in.typesize != 16)
		check_chunk(name, c, cn, (size_t)in.typesize, want, wn);
	free(want);
	return 1;
}

/* Every blosc chunk file under dir (Zarr v2 and v3 stores). */
static int walk(const char *dir)
{
	DIR *dp = opendir(dir);
	int found = 0;
	char path[8192];
	for (struct dirent *de; dp && (de = readdir(dp));) {
		if (de->d_name[0] == '.' && (de->d_name[1] == 0 || de->d_name[1] == '.'))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		struct stat sb;
		if (stat(path, &sb) != 0)
			continue;
		if (S_ISDIR(sb.st_mode)) {
			found += walk(path);
			continue;
		}
		size_t cn;
		uint8_t *c = read_file(path, &cn);
		if (c)
			found += check_file_chunk(path, c, cn, NULL, 0);
		free(c);
	}
	if (dp)
		closedir(dp);
	return found;
}

int main(void)
{
	dd = libdeflate_alloc_decompressor();
	char dir[4096], path[8192];
	snprintf(dir, sizeof(dir), "%s", __FILE__);
	*strrchr(dir, '/') = 0;
	int fixtures = 0;
	static const char *const sets[] = {"blosc", "blosc-filters"};
	for (int set = 0; set < 2; set++) {
		snprintf(path, sizeof(path), "%s/../data/%s/index.tsv", dir, sets[set]);
		FILE *ix = fopen(path, "r");
		CHECK(ix != NULL);
		char line[4096];
		while (ix && fgets(line, sizeof(line), ix)) {
			char name[256], data[256];
			if (line[0] == '#' || sscanf(line, "%255s %255s", name, data) != 2)
				continue;
			size_t cn, dn;
			snprintf(path, sizeof(path), "%s/../data/%s/%s.blosc", dir, sets[set], name);
			uint8_t *c = read_file(path, &cn);
			snprintf(path, sizeof(path), "%s/../data/%s/%s", dir, sets[set], data);
			uint8_t *d = read_file(path, &dn);
			CHECK(c && d);
			if (c && d)
				fixtures += check_file_chunk(name, c, cn, d, dn);
			free(c);
			free(d);
		}
		if (ix)
			fclose(ix);
	}
	const char *corpus = getenv("TSR_CORPUS");
	int corpus_chunks = 0;
	for (int k = 0; k < 2; k++) {
		snprintf(path, sizeof(path), "%s/%s", corpus && *corpus ? corpus : "../shared/corpus",
			 k ? "zarr3" : "zarr2");
		corpus_chunks += walk(path);
	}
	printf("blosc filter pass: %d fixture and %d corpus chunks; %d chunk readings taken "
	       "(%d byte planes, %d plain, %d fills, %d memcpyed, %d with DELTA, %d left in the "
	       "staging), %d refused (%d zstd ones through the pass all the same, libzstd decoding "
	       "their streams); filters undone: shuffle %d, bitshuffle %d, delta %d, bytedelta %d, "
	       "legacy bytedelta %d\n",
	       fixtures, corpus_chunks, n_pass, n_planes, n_plain, n_fill, n_copy, n_delta,
	       n_in_stage, n_refused, n_zstd, n_filter[TSR_BLOSC_SHUFFLE],
	       n_filter[TSR_BLOSC_BITSHUFFLE], n_filter[TSR_BLOSC_DELTA],
	       n_filter[TSR_BLOSC_BYTEDELTA], n_filter[TSR_BLOSC_BYTEDELTA_V1]);
	/* not vacuous: every filter, fills and copies went through the pass */
	CHECK(n_in_stage > 0 && fixtures > 330 && n_fill > 0 && n_copy > 0 && n_delta > 0 &&
	      n_planes > 0);
	CHECK(n_filter[TSR_BLOSC_SHUFFLE] > 0 && n_filter[TSR_BLOSC_BITSHUFFLE] > 0 &&
	      n_filter[TSR_BLOSC_DELTA] > 0 && n_filter[TSR_BLOSC_BYTEDELTA] > 0 &&
	      n_filter[TSR_BLOSC_BYTEDELTA_V1] > 0);
	libdeflate_free_decompressor(dd);
	CHECK_DONE();
}
