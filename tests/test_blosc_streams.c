/* test_blosc_streams.c - blosc chunks as the CUDA engine decodes them (route.c, then
 * tsr_blosc_streams): each listed stream decoded by its family (zlib: libdeflate, as the inflate
 * kernel; lz4 and blosclz: the kernels' own code, src/cuda/lz4_core.h and blosclz_core.h, run
 * on the CPU), copied or set into place, then each block's byte planes read as the place kernel reads them, must give
 * the chunk's decoded bytes (chunks with filters or fills also need the filter pass: that is
 * test_gpu_bfilter_emu's); chunks of other codecs must be refused. Fixtures from
 * c-blosc/c-blosc2 (tests/data/blosc) and the corpus. */
#include <dirent.h>
#include <libdeflate.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "read_file.h"
#include "codecs/blosc.h"
#include "codecs/route.h"
#include "core/internal.h"
#define TSR_LZ_EMU 1
#include "cuda/blosclz_core.h"
#include "cuda/lz4_core.h"
#include "gpu/zstd_host.h"

/* Element e's bytes from a buffer of byte planes that restart every `block` elements (the place
 * kernel's tsr_load_planes, src/cuda/place.cu). */
static void load_planes(const uint8_t *base, int64_t e, int64_t npix, size_t w, int64_t block,
			uint8_t *out)
{
	if (block > 0) {
		int64_t b = e / block;
		base += b * block * (int64_t)w;
		e -= b * block;
		npix = npix - b * block < block ? npix - b * block : block;
	}
	for (size_t j = 0; j < w; j++)
		out[j] = base[(int64_t)j * npix + e];
}

static struct libdeflate_decompressor *dd;
static int accepted, accepted_planes, accepted_copy_or_set, refused, with_pass;
static int accepted_family[TSR_FAM_N];

/* One chunk read as elements of w bytes: refused, or decoded the GPU's way and compared. */
static void check_chunk(const char *name, const uint8_t *c, size_t cn, size_t w,
			const uint8_t *want, size_t want_n)
{
	int codec;
	if (want_n % w)
		return;
	int64_t nelem = (int64_t)(want_n / w);
	struct tsr_route rt;
	tsr_route_blosc(c, cn, w, nelem, ~0u, &rt, &codec);
	if (rt.how != TSR_ROUTE_BLOSC) {
		refused++;
		CHECK(rt.why == TSR_WHY_STEPS || rt.why == TSR_WHY_CODEC ||
		      rt.why == TSR_WHY_DICT);
		return;
	}
	CHECK(codec == TSR_BLOSC_ZLIB || codec == TSR_BLOSC_LZ4 || codec == TSR_BLOSC_BLOSCLZ ||
	      codec == TSR_BLOSC_ZSTD);
	int fam = rt.kind / TSR_VARIANTS;
	CHECK_EQ_INT(fam, codec == TSR_BLOSC_ZLIB ? TSR_FAM_INFLATE
			  : codec == TSR_BLOSC_LZ4 ? TSR_FAM_LZ4
			  : codec == TSR_BLOSC_ZSTD ? TSR_FAM_ZSTD : TSR_FAM_BLOSCLZ);
	accepted_family[fam]++;
	/* without the family's launcher, the CPU, saying so */
	struct tsr_route rt2;
	tsr_route_blosc(c, cn, w, nelem, ~0u & ~(1u << fam), &rt2, &codec);
	CHECK(rt2.how == TSR_ROUTE_CPU && rt2.why == TSR_WHY_CODEC);
	size_t cap = 1 << 16, n = 0;
	struct tsr_blosc_stream *sp = malloc(cap * sizeof(*sp));
	struct tsr_blosc_pipeline pipe;
	int st = tsr_blosc_streams(c, cn, w, NULL, sp, cap, &n, &pipe);
	CHECK_EQ_INT(st, TSR_OK);
	/* a list that does not fit is refused without a message, and says so */
	if (st == TSR_OK && n > 1) {
		size_t n2 = 0;
		struct tsr_blosc_pipeline pipe2;
		CHECK_EQ_INT(tsr_blosc_streams(c, cn, w, NULL, sp, n - 1, &n2, &pipe2), TSR_E_TOO_SMALL);
		st = tsr_blosc_streams(c, cn, w, NULL, sp, cap, &n, &pipe);
	}
	int64_t pb = pipe.plane_block;
	if (st == TSR_OK && (pipe.nfilt || pipe.fill_len)) {
		/* filters and fills: the filter pass's (tests/gpu/emu_bfilter.c) */
		with_pass++;
		free(sp);
		return;
	}
	uint8_t *dec = calloc(want_n + 1, 1), *got = malloc(want_n + 1);
	int bad = st != TSR_OK;
	for (size_t k = 0; k < n && !bad; k++) {
		const struct tsr_blosc_stream *s = &sp[k];
		if (s->dst + s->n > want_n || (s->kind != TSR_BLOSC_STREAM_SET &&
					       s->src + (s->kind == TSR_BLOSC_STREAM_CODED ? s->csize : s->n) > cn)) {
			bad = 1;
			break;
		}
		if (s->kind == TSR_BLOSC_STREAM_CODED && fam == TSR_FAM_INFLATE) {
			size_t out = 0;
			bad = libdeflate_zlib_decompress(dd, c + s->src, s->csize, dec + s->dst, s->n,
							 &out) != LIBDEFLATE_SUCCESS || out != s->n;
		} else if (s->kind == TSR_BLOSC_STREAM_CODED && fam == TSR_FAM_ZSTD) {
			size_t out = 0; /* the GPU zstd decoder's code, emulated */
			bad = tsr_zstd_host_decode(c + s->src, s->csize, dec + s->dst, s->n, &out) !=
				      TSR_CUDA_ZSTD_OK || out != s->n;
		} else if (s->kind == TSR_BLOSC_STREAM_CODED) {
			static struct tsr_lz_smem m;
			uint64_t out = 0;
			int lst = fam == TSR_FAM_LZ4
					  ? tsr_lz4_stream(&m, c + s->src, s->csize, dec + s->dst, s->n,
							   rt.kind % TSR_VARIANTS, &out)
					  : tsr_blosclz_stream(&m, c + s->src, s->csize, dec + s->dst,
							       s->n, &out);
			bad = lst != TSR_CUDA_LZ_OK || out != s->n;
		} else if (s->kind == TSR_BLOSC_STREAM_COPY) {
			memcpy(dec + s->dst, c + s->src, s->n);
			accepted_copy_or_set++;
		} else {
			memset(dec + s->dst, s->value, s->n);
			accepted_copy_or_set++;
		}
	}
	if (!bad) {
		if (pb > 0) {
			accepted_planes++;
			for (int64_t e = 0; e < nelem; e++)
				load_planes(dec, e, nelem, w, pb, got + e * (int64_t)w);
		} else {
			memcpy(got, dec, want_n);
		}
		bad = memcmp(got, want, want_n) != 0;
	}
	if (bad)
		fprintf(stderr, "%s as %zu-byte elements: the GPU recipe differs from the decode\n",
			name, w);
	CHECK(!bad);
	accepted++;
	free(dec);
	free(got);
	free(sp);
}

int main(void)
{
	dd = libdeflate_alloc_decompressor();
	char dir[4096], path[8192];
	snprintf(dir, sizeof(dir), "%s", __FILE__);
	*strrchr(dir, '/') = 0;
	/* c-blosc and c-blosc2 fixtures: name, data file, version, codec, ... */
	snprintf(path, sizeof(path), "%s/data/blosc/index.tsv", dir);
	FILE *ix = fopen(path, "r");
	CHECK(ix != NULL);
	char line[4096];
	int zlib_fixtures = 0;
	while (ix && fgets(line, sizeof(line), ix)) {
		if (line[0] == '#')
			continue;
		char name[256], data[256];
		int version, codec;
		if (sscanf(line, "%255s %255s %d %d", name, data, &version, &codec) != 4)
			continue;
		size_t cn, dn;
		snprintf(path, sizeof(path), "%s/data/blosc/%s.blosc", dir, name);
		uint8_t *c = read_file(path, &cn);
		snprintf(path, sizeof(path), "%s/data/blosc/%s", dir, data);
		uint8_t *d = read_file(path, &dn);
		CHECK(c && d);
		if (c && d) {
			zlib_fixtures += codec == TSR_BLOSC_ZLIB;
			for (size_t w = 1; w <= 8; w *= 2)
				check_chunk(name, c, cn, w, d, dn);
		}
		free(c);
		free(d);
	}
	if (ix)
		fclose(ix);
	/* the corpus's Zarr v2 blosc-zlib float64 array (zarr-python's numcodecs c-blosc) */
	const char *corpus = getenv("TSR_CORPUS");
	snprintf(dir, sizeof(dir), "%s/zarr2/blosc_zlib_shuffle_f64.zarr",
		 corpus && *corpus ? corpus : "../shared/corpus");
	DIR *dp = opendir(dir);
	int corpus_chunks = 0;
	for (struct dirent *de; dp && (de = readdir(dp));) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		size_t cn, dn = 0;
		uint8_t *c = read_file(path, &cn);
		struct tsr_blosc_info in;
		if (c && tsr_blosc_info(c, cn, &in) == TSR_OK) {
			uint8_t *d = malloc((size_t)in.nbytes + 1);
			CHECK_EQ_INT(tsr_blosc_decode(d, (size_t)in.nbytes, c, cn, NULL, &dn), TSR_OK);
			int before = accepted;
			check_chunk(path, c, cn, 8, d, dn);
			CHECK_EQ_INT(accepted, before + 1); /* zlib + shuffle by 8: the GPU takes it */
			corpus_chunks++;
			free(d);
		}
		free(c);
	}
	if (dp)
		closedir(dp);
	/* the corpus's Zarr v2 blosc-lz4 int16 and blosc-blosclz uint8 arrays */
	static const struct { const char *store; size_t w; } more[] = {
		{"zarr2/blosc_lz4_shuffle_i16.zarr", 2}, {"zarr2/blosc_blosclz_noshuffle_u8.zarr", 1}};
	for (int k = 0; k < 2; k++) {
		snprintf(dir, sizeof(dir), "%s/%s", corpus && *corpus ? corpus : "../shared/corpus",
			 more[k].store);
		dp = opendir(dir);
		for (struct dirent *de; dp && (de = readdir(dp));) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			size_t cn, dn = 0;
			uint8_t *c = read_file(path, &cn);
			struct tsr_blosc_info in;
			if (c && tsr_blosc_info(c, cn, &in) == TSR_OK) {
				uint8_t *d = malloc((size_t)in.nbytes + 1);
				CHECK_EQ_INT(tsr_blosc_decode(d, (size_t)in.nbytes, c, cn, NULL, &dn),
					     TSR_OK);
				check_chunk(path, c, cn, more[k].w, d, dn);
				corpus_chunks++;
				free(d);
			}
			free(c);
		}
		if (dp)
			closedir(dp);
	}
	printf("blosc chunks the GPU path takes: %d checked equal (%d zlib, %d lz4, %d blosclz, %d "
	       "zstd; %d byte-shuffled, %d stored or run streams), %d more with the filter pass; %d "
	       "refused; %d zlib fixtures, %d corpus chunks\n", accepted,
	       accepted_family[TSR_FAM_INFLATE], accepted_family[TSR_FAM_LZ4],
	       accepted_family[TSR_FAM_BLOSCLZ], accepted_family[TSR_FAM_ZSTD], accepted_planes,
	       accepted_copy_or_set, with_pass, refused, zlib_fixtures, corpus_chunks);
	/* not vacuous: shuffled multi-byte chunks of both sources, every family, went through */
	CHECK(zlib_fixtures > 0 && corpus_chunks > 0 && accepted_planes > 0 && refused > 0);
	CHECK(accepted_family[TSR_FAM_INFLATE] > 0 && accepted_family[TSR_FAM_LZ4] > 0 &&
	      accepted_family[TSR_FAM_BLOSCLZ] > 0);
	libdeflate_free_decompressor(dd);
	CHECK_DONE();
}
