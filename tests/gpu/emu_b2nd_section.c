/* emu_b2nd_section.c - a b2nd section read the CUDA engine's way (route's block choice, the chosen blocks' streams, the filter pass and the place kernel's addressing, run on the CPU) lists only the blocks the section touches and places the CPU decoder's bytes. */
#define TSR_BF_EMU 1
#define TSR_LZ_EMU 1
#define TSR_PLACE_EMU 1
#include "bfilter_core.h"
#include "lz4_core.h"
#include "place_core.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "codecs/b2nd_blocks.h"
#include "codecs/route.h"
#include "core/internal.h"
#include "test_blosc2_frame.h"
#include "test_rng.h"

/*
 * Random b2nd chunks (1 to 4 axes, edge chunks, blocked and row layouts, LZ4 blocks with no
 * filter, a lone shuffle the place kernel reads as planes, DELTA alone, or shuffle then DELTA
 * through the filter pass) and random strided sections of them. For each section's bounds
 * (what tsr_task_bounds gives the engine):
 *  - tsr_route_blosc_blocks chooses blocks, and tsr_blosc_streams lists streams of exactly the
 *    blocks the bounds touch, found here by walking every element of the bounds (a row
 *    layout: the header's blocks over the bytes from the bounds' first element to their last)
 *    plus block 0 under DELTA, which every block needs, each block's streams whole;
 *  - those streams are decoded into a decode buffer poisoned elsewhere, the filter pass runs
 *    over the launch's blocks (tsr_bf_block), and the place kernel's addressing (blocked or C
 *    order, planes or not) reads the section: its bytes must be tsr_b2nd_decode's for the
 *    section's box, sampled at the steps, i.e. the CPU engine's.
 * Bounds that need every block (a whole chunk that is no edge chunk) choose every block, as
 * before.
 */

#define POISON 0xa5

static int64_t rnd(int64_t n)
{
	return (int64_t)(rng() % (uint64_t)n);
}

/* Blosc DELTA then byte shuffle of one block, as a writer applies them (x0: block 0's raw
 * bytes; NULL: this is block 0). */
static void encode_block(uint8_t *dst, const uint8_t *x, const uint8_t *x0, size_t n, size_t ts,
			 int delta, int shuffle)
{
	uint8_t *t = malloc(n + 1);
	memcpy(t, x, n);
	if (delta) {
		size_t u = ts, whole = n / u * u;
		for (size_t k = 0; k < whole; k++)
			t[k] = x0 ? (uint8_t)(x[k] ^ x0[k]) : (uint8_t)(k >= u ? x[k] ^ x[k - u] : x[k]);
	}
	if (shuffle && ts > 1) {
		size_t nel = n / ts;
		for (size_t i = 0; i < nel; i++)
			for (size_t j = 0; j < ts; j++)
				dst[j * nel + i] = t[i * ts + j];
		memcpy(dst + nel * ts, t + nel * ts, n - nel * ts);
	} else {
		memcpy(dst, t, n);
	}
	free(t);
}

/* A Blosc2 chunk of LZ4 blocks (no split) with filters: DELTA in slot 4, SHUFFLE in slot 5. */
static size_t write_chunk(uint8_t *dst, const uint8_t *src, size_t nbytes, size_t bs, size_t ts,
			  int delta, int shuffle)
{
	size_t nblocks = (nbytes + bs - 1) / bs, p = 32 + 4 * nblocks;
	memset(dst, 0, 32);
	dst[0] = 5;
	dst[1] = 1;
	dst[2] = (uint8_t)(0x05 | 0x10 | (1 << 5));
	dst[3] = (uint8_t)ts;
	b2w_le32(dst + 4, (uint32_t)nbytes);
	b2w_le32(dst + 8, (uint32_t)bs);
	dst[20] = delta ? TSR_BLOSC_DELTA : 0;
	dst[21] = shuffle ? TSR_BLOSC_SHUFFLE : 0;
	uint8_t *enc = malloc(bs + 1);
	for (size_t k = 0; k < nblocks; k++) {
		size_t len = k == nblocks - 1 ? nbytes - k * bs : bs;
		encode_block(enc, src + k * bs, k ? src : NULL, len, ts, delta, shuffle);
		b2w_le32(dst + 32 + 4 * k, (uint32_t)p);
		int c = LZ4_compress_default((const char *)enc, (char *)dst + p + 4, (int)len,
					     LZ4_compressBound((int)len));
		CHECK(c > 0);
		b2w_le32(dst + p, (uint32_t)c);
		p += 4 + (size_t)c;
	}
	free(enc);
	b2w_le32(dst + 12, (uint32_t)p);
	return p;
}

/* The blocks the bounds [lo, hi) touch, by walking every element: mark[b] = 1. */
static void touched(const struct tsr_chunk_ref *ref, int rows, int64_t bs_elems, const int64_t *lo,
		    const int64_t *hi, uint8_t *mark)
{
	int nd = ref->ndim;
	int64_t x[TSR_MAX_DIM];
	for (int d = 0; d < nd; d++)
		x[d] = lo[d];
	for (;;) {
		int64_t b = 0, i = 0;
		for (int d = 0; d < nd; d++) {
			b = b * (ref->blocked.padded[d] / ref->blocked.block[d]) + x[d] / ref->blocked.block[d];
			i = i * ref->blocked.padded[d] + x[d];
		}
		if (rows) {
			/* the row layout's blocks are the header's over the bytes the bounds span
			 * (rows between touched ones included, as the CPU's choice has them) */
			int64_t i0 = 0, i1 = 0;
			for (int d = 0; d < nd; d++) {
				i0 = i0 * ref->blocked.padded[d] + lo[d];
				i1 = i1 * ref->blocked.padded[d] + hi[d] - 1;
			}
			for (int64_t k = i0 / bs_elems; k <= i1 / bs_elems; k++)
				mark[k] = 1;
			CHECK(i >= i0 && i <= i1);
		}
		mark[rows ? i / bs_elems : b] = 1;
		int d = nd - 1;
		for (; d >= 0; d--) {
			if (++x[d] < hi[d])
				break;
			x[d] = lo[d];
		}
		if (d < 0)
			return;
	}
}

static int n_whole_read, n_sections, n_chosen, n_whole, n_delta, n_pass, n_planes, n_rows,
	n_multi_axis;
static int64_t blocks_listed, blocks_total;

/* One section of a chunk: its bounds, then the GPU's way against the CPU's bytes. */
static void check_section(const struct tsr_chunk_ref *ref, const uint8_t *chunk, size_t cn,
			  int rows, size_t w, const int64_t *first, const int64_t *step,
			  const int64_t *count, int delta)
{
	int nd = ref->ndim;
	int64_t lo[TSR_MAX_DIM], hi[TSR_MAX_DIM];
	int whole = 1;
	for (int d = 0; d < nd; d++) {
		lo[d] = first[d];
		hi[d] = first[d] + (count[d] - 1) * step[d] + 1;
		whole &= lo[d] == 0 && hi[d] == ref->extent[d];
	}
	struct tsr_blosc_info in;
	CHECK_EQ_INT(tsr_blosc_info(chunk, cn, &in), TSR_OK);
	struct tsr_route rt;
	int codec;
	tsr_route_blosc_ref(chunk, ref, ~0u, &rt, &codec);
	CHECK_EQ_INT(rt.how, TSR_ROUTE_BLOSC);
	struct tsr_blosc_blocks sel;
	memset(&sel, 0x5c, sizeof(sel));
	tsr_route_blosc_blocks(chunk, ref, lo, hi, &sel);

	/* the streams listed: exactly the touched blocks (and block 0 under DELTA) */
	uint8_t *want = calloc((size_t)in.nblocks, 1), *got = calloc((size_t)in.nblocks, 1);
	touched(ref, rows, in.blocksize / (int64_t)w, lo, hi, want);
	int64_t nwant = 0;
	for (int64_t b = 0; b < in.nblocks; b++)
		nwant += want[b];
	if (delta)
		want[0] = 1;
	size_t cap = 1 << 16, n = 0;
	struct tsr_blosc_stream *sp = malloc(cap * sizeof(*sp));
	struct tsr_blosc_pipeline p;
	CHECK_EQ_INT(tsr_blosc_streams(chunk, cn, w, &sel, sp, cap, &n, &p), TSR_OK);
	uint64_t *cover = calloc((size_t)in.nblocks, sizeof(uint64_t));
	for (size_t k = 0; k < n; k++) {
		int64_t b = (int64_t)(sp[k].dst / (uint64_t)in.blocksize);
		CHECK(b >= 0 && b < in.nblocks);
		if (b < 0 || b >= in.nblocks)
			continue;
		got[b] = 1;
		cover[b] += sp[k].n;
	}
	int same = 1;
	for (int64_t b = 0; b < in.nblocks; b++) {
		same &= want[b] == got[b];
		uint64_t bn = b == in.nblocks - 1 ? (uint64_t)in.last_block_nbytes
						  : (uint64_t)in.blocksize;
		CHECK(!got[b] || cover[b] == bn); /* a listed block's streams are all there */
		blocks_listed += got[b];
	}
	blocks_total += in.nblocks;
	if (!same) {
		fprintf(stderr, "section of a %d-axis chunk (%s layout, %lld blocks): the streams "
			"listed are not the touched blocks'\n", nd, rows ? "row" : "blocked",
			(long long)in.nblocks);
		for (int d = 0; d < nd; d++)
			fprintf(stderr, "  axis %d: [%lld, %lld) of %lld, block %d padded %d\n", d,
				(long long)lo[d], (long long)hi[d], (long long)ref->extent[d],
				ref->blocked.block[d], ref->blocked.padded[d]);
		for (int64_t b = 0; b < in.nblocks; b++)
			fprintf(stderr, "%d%d ", want[b], got[b]);
		fprintf(stderr, "\n sel naxes %d base %lld count %lld with0 %d\n", sel.naxes,
			(long long)sel.base, (long long)sel.count, sel.with0);
		CHECK(0);
	}
	/* every block (as before) where the bounds need them all: a whole chunk, unless an edge
	 * chunk's padding holds blocks of its own */
	if (nwant == in.nblocks)
		CHECK_EQ_INT(sel.naxes, 0);
	n_whole_read += whole;
	n_whole += sel.naxes == 0;
	n_chosen += sel.naxes > 0;
	n_multi_axis += sel.naxes > 1;

	/* the chosen streams decoded (LZ4, as the GPU's family), the rest of the buffer poison */
	size_t nbytes = (size_t)in.nbytes, sn = cn > nbytes ? cn : nbytes;
	uint8_t *dec = malloc(nbytes), *stage = malloc(sn);
	memset(dec, POISON, nbytes);
	memcpy(stage, chunk, cn);
	memset(stage + cn, POISON, sn - cn);
	static struct tsr_lz_smem m;
	for (size_t k = 0; k < n; k++) {
		uint64_t out = 0;
		if (sp[k].kind == TSR_BLOSC_STREAM_COPY) { /* (stored as is: a copy) */
			memcpy(dec + sp[k].dst, chunk + sp[k].src, sp[k].n);
			continue;
		}
		CHECK_EQ_INT(sp[k].kind, TSR_BLOSC_STREAM_CODED);
		int st = tsr_lz4_stream(&m, chunk + sp[k].src, sp[k].csize, dec + sp[k].dst, sp[k].n,
					TSR_VAR_LZ4_RAW, &out);
		CHECK(st == TSR_CUDA_LZ_OK && out == sp[k].n);
	}
	/* the filter pass over the launch's blocks, 32 threads a block */
	struct tsr_cuda_bfilter bf;
	int has = tsr_bf_describe(&p, 0, 0, 0, &bf);
	if (has) {
		CHECK_EQ_INT((int64_t)bf.nblocks, sel.naxes ? sel.count + sel.with0 : in.nblocks);
		uint64_t agg[32];
		for (int pass = 0; pass < tsr_bf_passes(&bf); pass++)
			for (uint64_t k = 0; k < bf.nblocks; k++) {
				uint64_t b = tsr_bf_block(&bf, k);
				CHECK(b < (uint64_t)in.nblocks && got[b]);
				struct tsr_bf_view v = {.a = dec + b * bf.blocksize,
							.b = stage + b * bf.blocksize,
							.a0 = dec, .pat = bf.pat,
							.n = tsr_bf_block_n(&bf, b),
							.at = b * bf.blocksize, .block = b};
				unsigned steps = tsr_bf_nsteps(&bf, b, pass);
				for (unsigned s = 0; s < steps; s++)
					for (unsigned t = 0; t < 32; t++)
						tsr_bf_step(&bf, &v, pass, s, t, 32, agg);
			}
		n_pass++;
	}
	const uint8_t *src = has && tsr_bf_in_stage(&bf) ? stage : dec;

	/* the place kernel's addressing of the section (as tsr_cuda_describe sets it up) */
	struct tsr_cuda_place pl;
	memset(&pl, 0, sizeof(pl));
	pl.ndim = nd;
	pl.blocked = tsr_route_blocked(ref);
	pl.src_npix = tsr_route_decoded_npix(ref);
	pl.planes = p.plane_block > 0;
	pl.plane_block = p.plane_block;
	int64_t onpix = 1, cstride[TSR_CUDA_MAX_DIM], npix = 1;
	for (int d = nd - 1; d >= 0; d--) {
		pl.extent[d] = ref->extent[d];
		pl.first[d] = first[d];
		pl.step[d] = step[d];
		pl.count[d] = count[d];
		pl.out_stride[d] = onpix;
		pl.block[d] = ref->blocked.block[d];
		pl.padded[d] = ref->blocked.padded[d];
		onpix *= count[d];
		cstride[d] = npix;
		npix *= ref->extent[d];
	}
	uint8_t *gpu = malloc((size_t)onpix * w), *cpu = NULL;
	memset(gpu, 0, (size_t)onpix * w);
	int64_t nmax, nrows = tsr_pc_rows(&pl, &nmax);
	for (int64_t r = 0; r < nrows; r++) {
		struct tsr_pc_row row;
		tsr_pc_row(&pl, cstride, r, &row);
		for (int64_t j = 0; j < row.n; j++) {
			int64_t e, o;
			tsr_pc_at(&row, j, &e, &o);
			if (pl.planes) {
				int64_t at, pn;
				tsr_pc_planes(e, pl.src_npix, (int)w, pl.plane_block, &at, &pn);
				for (size_t k = 0; k < w; k++)
					gpu[o * (int64_t)w + (int64_t)k] = src[at + (int64_t)k * pn];
			} else {
				memcpy(gpu + o * (int64_t)w, src + e * (int64_t)w, w);
			}
		}
	}
	/* the CPU engine's bytes: its decode of the box, sampled at the steps */
	struct tsr_chunk_box box;
	int64_t bn = 1, bstr[TSR_MAX_DIM];
	for (int d = nd - 1; d >= 0; d--) {
		box.lo[d] = lo[d];
		box.hi[d] = hi[d];
		bstr[d] = bn;
		bn *= hi[d] - lo[d];
	}
	uint8_t *boxv = malloc((size_t)bn * w);
	struct tsr_scratch scratch = {0};
	uint64_t dn;
	CHECK_EQ_INT(tsr_b2nd_decode(boxv, (size_t)bn * w, ref, chunk, cn, &box, &scratch, &dn),
		     TSR_OK);
	tsr_scratch_free(&scratch);
	cpu = malloc((size_t)onpix * w);
	for (int64_t o = 0; o < onpix; o++) {
		int64_t rem = o, at = 0;
		for (int d = nd - 1; d >= 0; d--) {
			at += rem % count[d] * step[d] * bstr[d];
			rem /= count[d];
		}
		memcpy(cpu + o * (int64_t)w, boxv + at * (int64_t)w, w);
	}
	if (memcmp(gpu, cpu, (size_t)onpix * w)) {
		fprintf(stderr, "section of a %d-axis chunk (%s layout, filters%s%s): the GPU's "
			"way differs from the CPU's bytes\n", nd, rows ? "row" : "blocked",
			delta ? " delta" : "", p.plane_block || has ? " shuffle" : "");
		CHECK(0);
	}
	n_sections++;
	n_delta += delta;
	n_planes += pl.planes;
	n_rows += rows;
	free(boxv);
	free(cpu);
	free(gpu);
	free(dec);
	free(stage);
	free(cover);
	free(sp);
	free(want);
	free(got);
}

int main(void)
{
	for (int c = 0; c < 300; c++) {
		struct tsr_chunk_ref ref;
		memset(&ref, 0, sizeof(ref));
		int nd = 1 + (int)rnd(4), rows = c % 4 == 1;
		size_t w = (size_t)1 << rnd(4);
		enum tsr_dtype t[] = {TSR_UINT8, TSR_INT16, TSR_INT32, TSR_INT64};
		ref.ndim = nd;
		ref.codec.id = TSR_CODEC_BLOSC_B2ND;
		ref.codec.elem = t[w == 1 ? 0 : w == 2 ? 1 : w == 4 ? 2 : 3];
		ref.xform.out = ref.codec.elem;
		ref.xform.kind = TSR_XF_COPY;
		int64_t padn = 1, blkn = 1;
		for (int d = 0; d < nd; d++) {
			int64_t chunk = 1 + rnd((int64_t[]){60, 14, 9, 6}[nd - 1]);
			int64_t block = rows && d > 0 ? chunk : 1 + rnd(chunk);
			ref.blocked.block[d] = (int32_t)block;
			ref.blocked.padded[d] = (int32_t)((chunk + block - 1) / block * block);
			ref.extent[d] = rows && d > 0 ? ref.blocked.padded[d] : 1 + rnd(chunk);
			padn *= ref.blocked.padded[d];
			blkn *= block;
		}
		ref.npix = 1;
		for (int d = 0; d < nd; d++)
			ref.npix *= ref.extent[d];
		/* row layouts: the header's blocks of any size (whole elements) */
		size_t nbytes = (size_t)padn * w;
		size_t bs = rows ? w * (size_t)(1 + rnd(padn)) : (size_t)blkn * w;
		int delta = c % 3 == 2, shuffle = c % 2 == 1 && w > 1;
		uint8_t *vals = malloc(nbytes), *chunk = malloc(3 * nbytes + 4096);
		for (size_t i = 0; i < nbytes; i++)
			vals[i] = (uint8_t)(i / 5 % 61 + (rng() % 8 == 0 ? rng() : 0));
		size_t cn = write_chunk(chunk, vals, nbytes, bs, w, delta, shuffle);
		ref.nbytes = cn;
		/* the whole chunk, then random strided sections */
		int64_t first[TSR_MAX_DIM], step[TSR_MAX_DIM], count[TSR_MAX_DIM];
		for (int d = 0; d < nd; d++) {
			first[d] = 0;
			step[d] = 1;
			count[d] = ref.extent[d];
		}
		check_section(&ref, chunk, cn, rows, w, first, step, count, delta);
		for (int k = 0; k < 6; k++) {
			for (int d = 0; d < nd; d++) {
				first[d] = rnd(ref.extent[d]);
				step[d] = 1 + (k % 3 == 2 ? rnd(3) : 0);
				count[d] = 1 + rnd((ref.extent[d] - first[d] - 1) / step[d] + 1);
			}
			check_section(&ref, chunk, cn, rows, w, first, step, count, delta);
		}
		free(vals);
		free(chunk);
	}
	printf("%d sections (%d row layout, %d DELTA, %d through the filter pass, %d as planes): "
	       "%d chose blocks (%d of several axes), %d every block (%d whole chunks); %lld of %lld "
	       "blocks listed\n",
	       n_sections, n_rows, n_delta, n_pass, n_planes, n_chosen, n_multi_axis, n_whole, n_whole_read,
	       (long long)blocks_listed, (long long)blocks_total);
	/* the cases must be there: sections that choose, on several axes, through each path */
	CHECK(n_chosen > 500 && n_multi_axis > 30 && n_pass > 200 && n_planes > 200 &&
	      n_rows > 200 && blocks_listed * 2 < blocks_total);
	CHECK_DONE();
}
