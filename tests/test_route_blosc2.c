/* test_route_blosc2.c - the codec route sends Blosc2 frame (plain super-chunk) and b2nd chunks to the GPU's blosc families, with the decoded size, byte order and block layout the place kernel reads them by (checked on the corpus against the CPU decoder), and the rest to the CPU with a reason. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TSR_PLACE_EMU 1
#include "cuda/place_core.h"

#include "check.h"
#include "codecs/blosc.h"
#include "codecs/codecs.h"
#include "codecs/route.h"
#include "core/array.h"
#include "io/storage.h"
#include "tessera.h"

/* A b2nd chunk ref as src/formats/blosc2/frame.c makes it: 2-D, 10 x 7 of a 12 x 8 chunk
 * shape in blocks of 4 x 3 (padded 12 x 9). */
static struct tsr_chunk_ref b2nd_chunk(enum tsr_dtype elem)
{
	struct tsr_chunk_ref r;
	memset(&r, 0, sizeof r);
	r.nbytes = 900;
	r.ndim = 2;
	r.extent[0] = 10;
	r.extent[1] = 7;
	r.npix = 70;
	r.codec.id = TSR_CODEC_BLOSC_B2ND;
	r.codec.elem = elem;
	r.xform.kind = TSR_XF_COPY;
	r.xform.out = elem;
	r.blocked.padded[0] = 12;
	r.blocked.padded[1] = 9;
	r.blocked.block[0] = 4;
	r.blocked.block[1] = 3;
	r.codec_name = "blosc2";
	return r;
}

/* A plain super-chunk's chunk ref: one row of items whose byte order the chunk header says. */
static struct tsr_chunk_ref frame_chunk(void)
{
	struct tsr_chunk_ref r;
	memset(&r, 0, sizeof r);
	r.nbytes = 3000;
	r.ndim = 1;
	r.extent[0] = r.npix = 1000;
	r.codec.id = TSR_CODEC_BLOSC_B2ND;
	r.codec.elem = TSR_INT32;
	r.codec.be_from_chunk = 1;
	r.xform.kind = TSR_XF_COPY;
	r.xform.out = TSR_INT32;
	r.blocked.padded[0] = r.blocked.block[0] = 1000;
	r.codec_name = "blosc2";
	return r;
}

static void synthetic(void)
{
	struct tsr_route_device gpu = {.gpu = 1, .blosc = 1, .families = ~0u};
	struct tsr_route rt;
	struct tsr_chunk_ref b = b2nd_chunk(TSR_FLOAT32), f = frame_chunk();
	tsr_route_chunk(&b, &gpu, &rt);
	CHECK_EQ_INT(rt.how, TSR_ROUTE_BLOSC);
	CHECK_EQ_INT(rt.kind, -1); /* its family once its header is read */
	CHECK_EQ_INT(tsr_route_decoded_npix(&b), 12 * 9);
	CHECK_EQ_INT(tsr_route_blocked(&b), 1);
	tsr_route_chunk(&f, &gpu, &rt);
	CHECK_EQ_INT(rt.how, TSR_ROUTE_BLOSC);
	CHECK_EQ_INT(tsr_route_decoded_npix(&f), 1000);
	CHECK_EQ_INT(tsr_route_blocked(&f), 0);
	/* blocks of whole rows lie in C order (padding rows last): no blocked mode */
	struct tsr_chunk_ref rows = b2nd_chunk(TSR_INT16);
	rows.blocked.block[1] = rows.blocked.padded[1] = rows.extent[1] = 7;
	rows.npix = 70;
	CHECK_EQ_INT(tsr_route_blocked(&rows), 0);
	CHECK_EQ_INT(tsr_route_decoded_npix(&rows), 12 * 7);
	/* clipped on a later axis: blocked */
	rows.extent[1] = 6;
	CHECK_EQ_INT(tsr_route_blocked(&rows), 1);
	/* Zarr chunks keep their rules: be_from_chunk is a Blosc2 field, never taken with a
	 * blosc pre-step */
	struct tsr_chunk_ref z = f;
	z.codec.id = TSR_CODEC_NONE;
	z.npre = 1;
	z.pre[0].id = TSR_CODEC_BLOSC;
	tsr_route_chunk(&z, &gpu, &rt);
	CHECK_EQ_INT(rt.how, TSR_ROUTE_CPU);
	z.codec.be_from_chunk = 0;
	tsr_route_chunk(&z, &gpu, &rt);
	CHECK_EQ_INT(rt.how, TSR_ROUTE_BLOSC);
	CHECK_EQ_INT(tsr_route_decoded_npix(&z), 1000);
	/* refused, with the reason: elements the place kernel does not take, a layout that is not
	 * whole blocks, a bytes step before the b2nd codec, cuFile storage, decoder cpu */
	struct tsr_chunk_ref c = b2nd_chunk(TSR_COMPLEX64);
	tsr_route_chunk(&c, &gpu, &rt);
	CHECK_EQ_INT(rt.how, TSR_ROUTE_CPU);
	CHECK_EQ_INT(rt.why, TSR_WHY_STEPS);
	struct tsr_chunk_ref bad = b2nd_chunk(TSR_FLOAT32);
	bad.blocked.padded[1] = 8; /* not whole blocks of 3 */
	tsr_route_chunk(&bad, &gpu, &rt);
	CHECK_EQ_INT(rt.how, TSR_ROUTE_CPU);
	CHECK_EQ_INT(rt.why, TSR_WHY_STEPS);
	bad = b2nd_chunk(TSR_FLOAT32);
	bad.extent[0] = 13; /* past the padded chunk */
	tsr_route_chunk(&bad, &gpu, &rt);
	CHECK_EQ_INT(rt.how, TSR_ROUTE_CPU);
	CHECK_EQ_INT(tsr_route_decoded_npix(&bad), bad.npix);
	struct tsr_chunk_ref pre = b2nd_chunk(TSR_FLOAT32);
	pre.npre = 1;
	pre.pre[0].id = TSR_CODEC_CRC32C;
	tsr_route_chunk(&pre, &gpu, &rt);
	CHECK_EQ_INT(rt.how, TSR_ROUTE_CPU);
	struct tsr_route_device nohost = {.gpu = 1, .families = ~0u};
	tsr_route_chunk(&b, &nohost, &rt);
	CHECK_EQ_INT(rt.how, TSR_ROUTE_CPU);
	CHECK_EQ_INT(rt.why, TSR_WHY_HOST);
	struct tsr_route_device forced = {.gpu = 1, .blosc = 1, .force_cpu = 1, .families = ~0u};
	tsr_route_chunk(&f, &forced, &rt);
	CHECK_EQ_INT(rt.how, TSR_ROUTE_CPU);
	CHECK_EQ_INT(rt.why, TSR_WHY_FORCED);
	struct tsr_chunk_ref whole = f;
	whole.nbytes = TSR_WHOLE_FILE; /* a sparse frame's chunk file not settled */
	tsr_route_chunk(&whole, &gpu, &rt);
	CHECK_EQ_INT(rt.how, TSR_ROUTE_CPU);
}

static const char *const fam_of_codec[] = {"blosclz", "lz4", NULL, "zlib", "zstd"};

static int n_chunks, n_gpu, n_blocked, n_nofam, n_dict, n_mislaid, n_b2nd_files, n_frame_files;

/* Places the whole chunk from its decoded bytes (dec: the padded chunk, elements w wide) as
 * the CUDA engine describes it (cuda.c tsr_cuda_describe), swapping big-endian elements as
 * the kernel does; compares with the CPU's values. plane_block >= 0: dec is first cut into
 * byte planes restarting every plane_block elements (0: one set), as a blosc chunk with a
 * lone shuffle reaches the kernel, and read back through tsr_pc_planes. */
static void place_whole(const char *name, int64_t chunk, const struct tsr_chunk_ref *ref,
			const uint8_t *dec, int be, const uint8_t *want, int64_t plane_block)
{
	size_t w0 = tsr_dtype_size(ref->codec.elem);
	int64_t nsrc0 = tsr_route_decoded_npix(ref);
	uint8_t *planes = NULL;
	if (plane_block >= 0) {
		planes = malloc((size_t)nsrc0 * w0 + 1);
		int64_t bl = plane_block > 0 ? plane_block : nsrc0;
		for (int64_t s = 0; s < nsrc0; s += bl) {
			int64_t n = nsrc0 - s < bl ? nsrc0 - s : bl;
			for (int64_t i = 0; i < n; i++)
				for (size_t b = 0; b < w0; b++)
					planes[(size_t)s * w0 + b * (size_t)n + (size_t)i] =
						dec[(size_t)(s + i) * w0 + b];
		}
	}
	struct tsr_cuda_place pl;
	memset(&pl, 0, sizeof pl);
	size_t w = tsr_dtype_size(ref->codec.elem);
	int64_t cstride[TSR_CUDA_MAX_DIM], n = 1;
	pl.ndim = ref->ndim;
	pl.src_npix = tsr_route_decoded_npix(ref);
	pl.blocked = tsr_route_blocked(ref);
	for (int d = ref->ndim - 1; d >= 0; d--) {
		pl.extent[d] = ref->extent[d];
		pl.first[d] = 0;
		pl.step[d] = 1;
		pl.count[d] = ref->extent[d];
		pl.out_stride[d] = n;
		pl.block[d] = ref->blocked.block[d];
		pl.padded[d] = ref->blocked.padded[d];
		cstride[d] = n;
		n *= ref->extent[d];
	}
	uint8_t *got = malloc((size_t)n * w + 1);
	int64_t nmax, rows = tsr_pc_rows(&pl, &nmax), bad = 0;
	for (int64_t r = 0; r < rows; r++) {
		struct tsr_pc_row row;
		tsr_pc_row(&pl, cstride, r, &row);
		for (int64_t j = 0; j < row.n; j++) {
			int64_t e, o;
			tsr_pc_at(&row, j, &e, &o);
			if (e < 0 || e >= pl.src_npix || o < 0 || o >= n) {
				bad++;
				continue;
			}
			int64_t at = e * (int64_t)w, step = 1;
			if (planes)
				tsr_pc_planes(e, pl.src_npix, (int)w, plane_block, &at, &step);
			for (size_t k = 0; k < w; k++) {
				size_t b = be ? w - 1 - k : k;
				got[(size_t)o * w + k] = planes ? planes[at + (int64_t)b * step]
								: dec[at + (int64_t)b];
			}
		}
	}
	CHECK_EQ_INT(bad, 0);
	if (memcmp(got, want, (size_t)n * w)) {
		fprintf(stderr, "%s chunk %lld (planes of %lld): placed values differ from the "
			"CPU's\n", name, (long long)chunk, (long long)plane_block);
		check_failures++;
	}
	free(got);
	free(planes);
}

static void corpus_file(struct tsr_context *ctx, const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	struct tsr_array *a = NULL;
	if (tsr_open(ctx, path, NULL, &a)) {
		/* files the CPU refuses too (a dtype it does not read): not this test's */
		return;
	}
	const struct tsr_desc *d = &a->desc;
	int64_t nchunks = 1;
	for (int i = 0; i < d->ndim; i++)
		nchunks *= d->grid[i];
	unsigned char *buf = NULL;
	size_t cap = 0;
	struct tsr_scratch scratch = {0};
	struct tsr_route_device gpu = {.gpu = 1, .blosc = 1, .families = ~0u};
	int is_frame = strstr(name, ".b2frame") != NULL;
	struct tsr_source src;
	tsr_source_init(&src, &tsr_storage_posix, a);
	n_frame_files += is_frame;
	n_b2nd_files += !is_frame;
	for (int64_t c = 0; c < nchunks; c++) {
		struct tsr_chunk_ref ref;
		/* (settled: a sparse frame's chunk file has its size) */
		CHECK_EQ_INT(tsr_storage_posix.chunk_ref(a, c, 1, &ref), 0);
		if (ref.codec.id != TSR_CODEC_BLOSC_B2ND)
			continue; /* special chunks kept in the index: fills */
		struct tsr_route rt;
		tsr_route_chunk(&ref, &gpu, &rt);
		size_t w = tsr_dtype_size(ref.codec.elem);
		int elem_ok = (w == 1 || w == 2 || w == 4 || w == 8) && ref.codec.elem != TSR_COMPLEX64;
		CHECK_EQ_INT(rt.how, elem_ok ? TSR_ROUTE_BLOSC : TSR_ROUTE_CPU);
		if (rt.how != TSR_ROUTE_BLOSC)
			continue;
		const unsigned char *bytes = NULL;
		if (tsr_storage_fetch(&src, c, &ref, &buf, &cap, &bytes)) {
			fprintf(stderr, "%s chunk %lld: %s\n", name, (long long)c, tsr_errmsg());
			check_failures++;
			continue;
		}
		n_chunks++;
		struct tsr_blosc_info in;
		CHECK_EQ_INT(tsr_blosc_info(bytes, (size_t)ref.nbytes, &in), 0);
		int codec = -1;
		tsr_route_blosc_ref(bytes, &ref, ~0u, &rt, &codec);
		CHECK_EQ_INT(codec, in.codec);
		int has_fam = in.codec >= 0 && in.codec <= 4 && fam_of_codec[in.codec];
		int be = ref.codec.big_endian || (ref.codec.be_from_chunk && (in.blosc2_flags & 2));
		if (has_fam && !in.use_dict) {
			/* every chunk of a family the device has: the GPU's */
			CHECK_EQ_INT(rt.how, TSR_ROUTE_BLOSC);
			CHECK_EQ_INT(rt.big_endian, be);
		} else if (has_fam) {
			/* streams that need the chunk's dictionary: the CPU, saying so */
			CHECK_EQ_INT(rt.how, TSR_ROUTE_CPU);
			CHECK_EQ_INT(rt.why, TSR_WHY_DICT);
			n_dict++;
		}
		/* without its family: the CPU, naming the missing decoder */
		struct tsr_route none;
		tsr_route_blosc_ref(bytes, &ref, 0u, &none, &codec);
		CHECK_EQ_INT(none.how, TSR_ROUTE_CPU);
		CHECK_EQ_INT(none.why, TSR_WHY_CODEC);
		n_nofam += has_fam;
		if (rt.how != TSR_ROUTE_BLOSC)
			continue;
		n_gpu++;
		n_blocked += tsr_route_blocked(&ref);
		struct tsr_chunk_ref other = ref;
		other.blocked.block[0] = other.blocked.padded[0];
		if (tsr_route_blocked(&ref) && ref.blocked.block[0] != ref.blocked.padded[0] &&
		    !in.memcpyed && !in.special) {
			/* a layout whose blocks are not the chunk's: the CPU (which reports it) */
			struct tsr_route ro;
			tsr_route_blosc_ref(bytes, &other, ~0u, &ro, &codec);
			CHECK_EQ_INT(ro.how, TSR_ROUTE_CPU);
			CHECK_EQ_INT(ro.why, TSR_WHY_STEPS);
			n_mislaid++;
		}
		/* what the GPU decodes: the whole blosc chunk, as the CPU's blosc decoder makes it
		 * (the families and filter pass are bit-exact with it: their own tests) */
		size_t dn = (size_t)tsr_route_decoded_npix(&ref) * w, got_n = 0;
		CHECK_EQ_INT((int64_t)dn, in.nbytes);
		uint8_t *dec = malloc(dn + 1), *want = malloc((size_t)ref.npix * w + 1);
		uint64_t cpu_n = 0;
		CHECK_EQ_INT(tsr_blosc_decode(dec, dn, bytes, (size_t)ref.nbytes, NULL, &got_n), 0);
		CHECK_EQ_INT(got_n, dn);
		CHECK_EQ_INT(tsr_chunk_decode(&ref, (void *)bytes, ref.nbytes, want, 0, &scratch,
					      &cpu_n),
			     0);
		if (!check_failures) {
			place_whole(name, c, &ref, dec, rt.big_endian, want, -1);
			/* byte planes: one set, and blosc's, a set a block of the chunk */
			if (w > 1) {
				place_whole(name, c, &ref, dec, rt.big_endian, want, 0);
				if (in.blocksize % (int64_t)w == 0)
					place_whole(name, c, &ref, dec, rt.big_endian, want,
						    in.blocksize / (int64_t)w);
			}
		}
		free(dec);
		free(want);
	}
	tsr_scratch_free(&scratch);
	tsr_source_close(&src);
	free(buf);
	tsr_array_free(a);
}

int main(void)
{
	synthetic();
	const char *corpus = getenv("TSR_CORPUS");
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/blosc2", corpus && *corpus ? corpus : "../shared/corpus");
	DIR *dp = opendir(dir);
	CHECK(dp != NULL);
	struct tsr_context *ctx = NULL;
	CHECK_EQ_INT(tsr_context_create(NULL, &ctx), 0);
	struct dirent *e;
	while (dp && ctx && (e = readdir(dp))) {
		if (strstr(e->d_name, ".b2nd") || strstr(e->d_name, ".b2frame"))
			corpus_file(ctx, dir, e->d_name);
	}
	if (dp)
		closedir(dp);
	tsr_context_free(ctx);
	/* the corpus held frames and b2nd arrays, chunks laid out in blocks among them */
	printf("%d b2nd files, %d frames: %d chunks, %d to the GPU (%d blocked), %d with "
	       "dictionaries\n", n_b2nd_files, n_frame_files, n_chunks, n_gpu, n_blocked, n_dict);
	CHECK(n_b2nd_files > 0 && n_frame_files > 0 && n_gpu > 0 && n_blocked > 0 && n_nofam > 0 &&
	      n_mislaid > 0);
	CHECK_DONE();
}
