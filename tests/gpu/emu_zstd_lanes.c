/* emu_zstd_lanes.c - the GPU zstd decoder's block and execution phases (by frames, and by cells) run by 32 CPU threads as the lanes of one warp (a barrier for each __syncwarp), against libzstd and the one-lane emulation: each lane's share of the copies, the parallel literal runs and matches. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * zstd_exec_core.h's tsr_zs_frame_exec splits a batch of 32 sequences between the lanes of a warp
 * and orders them with __syncwarp; the one-lane emulation (test_gpu_zstd_emu) cannot show
 * a lane reading a byte another lane has not written yet. Here 32 threads are the lanes,
 * TSR_ZS_SYNC is a barrier of the 32 and TSR_ZS_BCAST goes through memory between two
 * barriers, so a missing sync or a lane that diverges shows up as wrong bytes, a status that
 * differs between lanes, or a hang (the test's timeout). Phase b (a warp a block) and phase c
 * (a warp a frame, or a warp a block's cells: zstd_cells_core.h) run on the 32 threads; phase a
 * on one, as in the launcher. Frames: every lz_profiles.h profile at three
 * sizes and five levels, a checksummed one, three frames in one stream, and damaged copies
 * (their status and bytes must be the one-lane emulation's); and the blocks' repeat functions
 * by the lanes (tsr_zs_block_reps_lanes), on those frames and on made-up blocks of random
 * sequences, against one lane's walk.
 */

/* lanes in the warp: 32 while the lane threads run, 1 for the one-lane reference (the same
 * code, run on the main thread before or after) */
static unsigned emu_nlanes = 1;
static _Thread_local unsigned emu_lane;
static pthread_barrier_t emu_bar;
static uint64_t emu_slot;

static void emu_sync(void)
{
	if (emu_nlanes > 1)
		pthread_barrier_wait(&emu_bar);
}

static uint64_t emu_bcast(uint64_t v)
{
	if (emu_lane == 0)
		emu_slot = v;
	emu_sync();
	uint64_t r = emu_slot;
	emu_sync();
	return r;
}

/* each lane's value, to all: the OR, the sum, the sum of the lanes' below */
static uint32_t emu_vals[32];

static uint32_t emu_across(uint32_t v, int how)
{
	if (emu_nlanes == 1)
		return how == 2 ? 0u : v;
	emu_vals[emu_lane] = v;
	emu_sync();
	uint32_t r = 0;
	for (unsigned k = 0; k < emu_nlanes; k++)
		if (how == 0)
			r |= emu_vals[k];
		else if (how == 1 || k < emu_lane)
			r += emu_vals[k];
	emu_sync();
	return r;
}

#define TSR_ZS_OR(v) emu_across((v), 0)
#define TSR_ZS_ADD(v) emu_across((v), 1)
#define TSR_ZS_XSUM(v) emu_across((v), 2)
#define TSR_ZS_LANE emu_lane
#define TSR_ZS_NLANES emu_nlanes
#define TSR_ZS_SYNC() emu_sync()
#define TSR_ZS_BCAST(v) emu_bcast(v)
#include <zstd.h>

#include "check.h"
#include "lz_profiles.h"
#include "zstd_host.h"

struct warp {
	int phase;              /* 0: blocks (phase b), 1: frames (phase c), 2: a frame's blocks'
				   cells (phase c by cells), 3: their repeat functions */
	struct tsr_zs_block *blocks;
	uint32_t nblocks;
	uint8_t *lits_w;
	struct tsr_zs_seq *seqs_w;
	size_t cap;             /* out's bytes, and whether phase c runs by cells: where phase b */
	int by_cells;           /* puts a block's literals (tsr_zs_lits_out) */
	struct tsr_zs_work wk;  /* the warp's literals tables (shared memory on the GPU) */
	/* each lane's sequence tables (shared memory on the GPU), the odd lanes' as 32-bit
	 * entries over them, as a small batch's kernel lays them (tsr_zs_seqx_over) */
	union {
		struct tsr_zs_seqw w;
		unsigned char wide[TSR_ZS_SEQX_NBYTES];
	} qs[32];
	const uint8_t *in;
	struct tsr_zs_frame *fr;
	uint32_t nframes;
	const struct tsr_zs_block *bl;
	const uint8_t *lits;
	const struct tsr_zs_seq *seqs;
	uint8_t *out;
	struct tsr_zs_xs xs;
	int status[32];         /* phases b and cells: a digest of each lane's block statuses */
	/* phase c by cells: frame cf's blocks, their entries, statuses (lane 0's) and cells */
	const struct tsr_zs_frame *cf;
	const struct tsr_zs_entry *e;
	int32_t *bst;
	uint32_t *cells;
	struct tsr_zs_reps part[32], *reps; /* phase 3: the lanes' parts (shared memory on the
					       GPU); the blocks' functions */
};

struct lane {
	struct warp *w;
	unsigned id;
};

static void *lane_main(void *arg)
{
	struct lane *l = arg;
	struct warp *w = l->w;
	emu_lane = l->id;
	int st = TSR_CUDA_ZSTD_OK;
	if (w->phase == 0) {
		for (uint32_t i = 0; i < w->nblocks; i++) {
			if (w->blocks[i].type != 2)
				continue;
			uint8_t *direct = tsr_zs_lits_out(&w->blocks[i], w->out, w->cap, w->by_cells);
			int bs = tsr_zs_block_lits(&w->wk, w->in, w->blocks, i,
						   tsr_zs_lits_dst(&w->blocks[i], direct, w->lits_w), 1);
			if (emu_lane == 0) {
				w->blocks[i].status = bs;
				w->blocks[i].lit_out = direct != NULL;
			}
			w->status[l->id] = w->status[l->id] * 31 + bs + 1; /* (every lane's the same) */
		}
		emu_sync();
		/* the sequences: a lane a block, as the sequences kernel's threads, where the
		 * literals failed too (the kernels side by side, zstd.cu's tsr_zs_side); the
		 * literals' failure first */
		for (uint32_t i = l->id; i < w->nblocks; i += 32)
			if (w->blocks[i].type == 2) {
				int qs = tsr_zs_block_seqs(
					&w->qs[l->id].w,
					l->id & 1 ? tsr_zs_seqx_over(&w->qs[l->id].w) : NULL, w->in,
					w->blocks, i, w->seqs_w + w->blocks[i].seq_at);
				w->blocks[i].status = tsr_zs_block_status(w->blocks[i].status, qs);
			}
		return NULL;
	}
	if (w->phase == 3) {
		for (uint32_t k = w->cf->first_block; k < w->cf->first_block + w->cf->nblocks; k++)
			tsr_zs_block_reps_lanes(&w->bl[k],
						w->seqs + (w->bl[k].type == 2 ? w->bl[k].seq_at : 0),
						w->part, &w->reps[k]);
		return NULL;
	}
	if (w->phase == 2) {
		for (uint32_t k = w->cf->first_block + w->cf->nblocks; k-- > w->cf->first_block;) {
			int bs = tsr_zs_block_cells(&w->xs, w->in, w->cf, &w->bl[k], &w->e[k], w->lits,
						    w->seqs, w->cells);
			if (emu_lane == 0)
				w->bst[k] = bs;
			w->status[l->id] = w->status[l->id] * 31 + bs + 1;
			emu_sync(); /* (blocks in turn on this warp: the batch x is shared) */
		}
		return NULL;
	}
	for (uint32_t f = 0; f < w->nframes && st == TSR_CUDA_ZSTD_OK; f++)
		st = tsr_zs_frame_exec(&w->xs, w->in, &w->fr[f], w->bl, w->lits, w->seqs, w->out);
	w->status[l->id] = st;
	return NULL;
}

/* Runs w's phase by 32 threads as the lanes of one warp. */
static void run_lanes(struct warp *w)
{
	pthread_t t[32];
	struct lane ln[32];
	emu_nlanes = 32;
	for (unsigned k = 0; k < 32; k++) {
		ln[k] = (struct lane){w, k};
		if (pthread_create(&t[k], NULL, lane_main, &ln[k]))
			exit(2);
	}
	for (unsigned k = 0; k < 32; k++)
		pthread_join(t[k], NULL);
	emu_nlanes = 1;
	for (unsigned k = 1; k < 32; k++)
		if (w->phase != 1 && w->status[k] != w->status[0]) {
			fprintf(stderr, "lane %u: another block status than lane 0's\n", k);
			check_failures++;
		}
}

/* Block b's repeat function by the lanes (got) against one lane's walk of its sequences; a
 * difference is reported under what. */
static void reps_check(const struct tsr_zs_block *b, const struct tsr_zs_seq *seqs,
		       const struct tsr_zs_reps *got, const char *what)
{
	struct tsr_zs_reps one;
	tsr_zs_block_reps(b, seqs + (b->type == 2 ? b->seq_at : 0), &one);
	for (int i = 0; i < 3; i++)
		if (one.v[i] != got->v[i] || one.src[i] != got->src[i]) {
			fprintf(stderr, "%s: offset %d's function by lanes differs\n", what, i);
			check_failures++;
		}
}

/* The lanes' repeat functions (phase 3) of one made-up frame against one lane's walk: blocks
 * of random sequences with every repeat code, with and without literals, where a lane's run
 * may begin on any of them (lanes_cells checks the same on the frames it decodes, whose data
 * seldom has "offset 1 minus one" at a run's start). */
static void reps_random(uint64_t *seed)
{
	static const uint32_t counts[] = {0, 1, 5, 31, 32, 33, 64, 100, 1000, 4099};
	const uint32_t nb = sizeof counts / sizeof counts[0];
	uint32_t total = 0;
	for (uint32_t k = 0; k < nb; k++)
		total += counts[k];
	struct tsr_zs_block *bl = calloc(nb, sizeof *bl);
	struct tsr_zs_seq *sq = malloc(total * sizeof *sq);
	struct tsr_zs_reps *reps = malloc(nb * sizeof *reps);
	struct warp *w = calloc(1, sizeof *w);
	if (!bl || !sq || !reps || !w)
		exit(2);
	for (uint32_t k = 0, at = 0; k < nb; at += counts[k++]) {
		bl[k].type = 2;
		bl[k].nseq = counts[k];
		bl[k].seq_at = at;
	}
	for (uint32_t i = 0; i < total; i++) {
		uint64_t r = lzp_rand(seed);
		sq[i].ll = r % 3 == 0 ? 0 : (uint32_t)(r >> 8) % 20;
		sq[i].of = r % 5 < 3 ? 1 + (uint32_t)(r >> 16) % 3 : 4 + (uint32_t)(r >> 24) % 5000;
	}
	struct tsr_zs_frame fr = {.first_block = 0, .nblocks = nb};
	w->phase = 3;
	w->cf = &fr;
	w->bl = bl;
	w->seqs = sq;
	w->reps = reps;
	run_lanes(w);
	for (uint32_t k = 0; k < nb; k++) {
		char what[64];
		snprintf(what, sizeof what, "made-up block of %u sequences", counts[k]);
		reps_check(&bl[k], sq, &reps[k], what);
	}
	free(bl);
	free(sq);
	free(reps);
	free(w);
}

/* Phase c of the frames by cells: each frame's blocks' cells by the 32 lanes of w (from phase
 * b), the rest as zstd_host.h's tsr_zstd_host_frame_cells. */
static int lanes_cells(struct warp *w, const struct tsr_zs_frame *fr, uint32_t nframes,
		       uint32_t nblocks, uint8_t *out)
{
	struct tsr_zs_reps *reps = malloc((nblocks + 1) * sizeof *reps);
	struct tsr_zs_entry *e = malloc((nblocks + 1) * sizeof *e);
	int32_t *bst = malloc((nblocks + 1) * sizeof *bst);
	if (!reps || !e || !bst)
		exit(2);
	int st = TSR_CUDA_ZSTD_OK;
	for (uint32_t f = 0; f < nframes && st == TSR_CUDA_ZSTD_OK; f++) {
		const uint32_t b0 = fr[f].first_block, b1 = b0 + fr[f].nblocks;
		uint64_t size = tsr_zs_frame_size(&fr[f], w->bl);
		/* the blocks' repeat functions by the lanes, each equal to one lane's walk */
		w->phase = 3;
		w->cf = &fr[f];
		w->reps = reps;
		memset(w->status, 0, sizeof w->status);
		run_lanes(w);
		for (uint32_t k = b0; k < b1; k++) {
			char what[32];
			snprintf(what, sizeof what, "block %u", k);
			reps_check(&w->bl[k], w->seqs, &reps[k], what);
		}
		tsr_zs_frame_entries(&fr[f], w->bl, reps, e);
		uint32_t *cells = malloc(size * sizeof *cells + 1);
		if (!cells)
			exit(2);
		w->phase = 2;
		w->cf = &fr[f];
		w->e = e;
		w->bst = bst;
		w->cells = cells;
		memset(w->status, 0, sizeof w->status);
		run_lanes(w);
		st = tsr_zstd_host_cells_out(cells, bst, &fr[f], size, out);
		free(cells);
	}
	free(reps);
	free(e);
	free(bst);
	return st;
}

/* As tsr_zstd_host_decode, with blocks and execution by 32 threads (cells: phase c by cells,
 * lanes_cells); every lane's status must agree. */
static int lanes_decode(const uint8_t *in, size_t n, uint8_t *out, size_t cap, size_t *got,
			int cells)
{
	struct tsr_zs_count c, c2;
	*got = 0;
	int st = tsr_zs_scan(in, n, NULL, 0, NULL, 0, &c);
	if (st != TSR_CUDA_ZSTD_OK)
		return st;
	if (c.nlit > cap || c.nseq * 3 > cap)
		return TSR_CUDA_ZSTD_E_OVERFLOW;
	struct tsr_zs_frame *fr = malloc((c.nframes + 1) * sizeof *fr);
	struct tsr_zs_block *bl = malloc((c.nblocks + 1) * sizeof *bl);
	uint8_t *lits = malloc(c.nlit + 1);
	struct tsr_zs_seq *seqs = malloc((c.nseq + 1) * sizeof *seqs);
	struct warp *w = malloc(sizeof *w);
	if (!fr || !bl || !lits || !seqs || !w)
		exit(2);
	st = tsr_zs_scan(in, n, fr, c.nframes, bl, c.nblocks, &c2);
	if (st == TSR_CUDA_ZSTD_OK) {
		/* phase b by the 32 lanes, block after block */
		memset(w, 0, sizeof *w);
		w->phase = 0;
		w->blocks = bl;
		w->nblocks = c.nblocks;
		w->lits_w = lits;
		w->seqs_w = seqs;
		w->in = in;
		w->out = out;
		w->cap = cap;
		w->by_cells = cells;
		run_lanes(w);
		uint64_t total;
		st = tsr_zs_layout(fr, c.nframes, bl, cap, &total);
		if (st == TSR_CUDA_ZSTD_OK) {
			memset(w, 0, sizeof *w);
			w->phase = 1;
			w->in = in;
			w->fr = fr;
			w->nframes = c.nframes;
			w->bl = bl;
			w->lits = lits;
			w->seqs = seqs;
			w->out = out;
			if (cells) {
				st = lanes_cells(w, fr, c.nframes, c.nblocks, out);
			} else {
				run_lanes(w);
				st = w->status[0];
				for (unsigned k = 1; k < 32; k++)
					if (w->status[k] != st) {
						fprintf(stderr, "lane %u: status %d, lane 0: %d\n", k,
							w->status[k], st);
						check_failures++;
					}
			}
			if (st == TSR_CUDA_ZSTD_OK)
				*got = total;
		}
	}
	free(fr);
	free(bl);
	free(lits);
	free(seqs);
	free(w);
	return st;
}

static long nvalid, ncorrupt;

static void check(const uint8_t *z, size_t zn, size_t cap, const uint8_t *want, size_t wn,
		  int valid, const char *what)
{
	uint8_t *in = malloc(zn ? zn : 1), *a = malloc(cap + 1), *b = malloc(cap + 1);
	if (!in || !a || !b)
		exit(2);
	memcpy(in, z, zn);
	memset(a, 0xA5, cap + 1);
	memset(b, 0xA5, cap + 1);
	size_t gb = 0;
	int sb = tsr_zstd_host_decode(in, zn, b, cap, &gb);
	for (int cells = 0; cells < 2; cells++) {
		size_t ga = 0;
		memset(a, 0xA5, cap + 1);
		int sa = lanes_decode(in, zn, a, cap, &ga, cells);
		const char *how = cells ? "by cells" : "by frames";
		if (valid && (sa != TSR_CUDA_ZSTD_OK || ga != wn || memcmp(a, want, wn))) {
			fprintf(stderr, "%s: 32 lanes %s: status %d, %zu bytes (want %zu)\n", what, how,
				sa, ga, wn);
			check_failures++;
		}
		if (sa != sb || ga != gb || (sa == TSR_CUDA_ZSTD_OK && memcmp(a, b, ga))) {
			fprintf(stderr, "%s: 32 lanes %s: status %d, %zu bytes; one lane: %d, %zu\n",
				what, how, sa, ga, sb, gb);
			check_failures++;
		}
		CHECK(a[cap] == 0xA5);
	}
	valid ? nvalid++ : ncorrupt++;
	free(in);
	free(a);
	free(b);
}

int main(void)
{
	if (pthread_barrier_init(&emu_bar, NULL, 32))
		return 2;
	static const size_t sizes[] = {1000, 65536, 200000};
	static const int levels[] = {-3, 1, 3, 9, 19};
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	uint64_t seed = 7;
	for (int t = 0; t < 20; t++)
		reps_random(&seed);
	char what[96];
	int combo = 0;
	for (int p = 0; p < LZP_N; p++)
		for (size_t si = 0; si < 3; si++)
			for (size_t li = 0; li < 5; li++) {
				size_t n = sizes[si];
				if (levels[li] == 19 && n > 65536)
					continue;
				combo++;
				uint8_t *src = malloc(n), *z = malloc(ZSTD_compressBound(n));
				if (!src || !z)
					exit(2);
				lzp_fill(p, src, n, (uint64_t)(combo % 64 + 1));
				ZSTD_CCtx_reset(cc, ZSTD_reset_session_and_parameters);
				ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, levels[li]);
				ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, combo % 2);
				size_t zn = ZSTD_compress2(cc, z, ZSTD_compressBound(n), src, n);
				if (ZSTD_isError(zn))
					exit(2);
				snprintf(what, sizeof what, "%s n=%zu level=%d", lzp_name[p], n, levels[li]);
				check(z, zn, n, src, n, 1, what);
				if (combo % 4 == 0) /* a damaged copy: a byte flipped after the header */
					for (int t = 0; t < 2 && zn > 20; t++) {
						z[12 + lzp_rand(&seed) % (zn - 12)] ^= (uint8_t)(1u << (lzp_rand(&seed) % 8));
						check(z, zn, n, NULL, 0, 0, what);
					}
				free(src);
				free(z);
			}
	/* three frames in one stream */
	size_t n1 = 70000, n2 = 3000, n3 = 50000, n = n1 + n2 + n3;
	uint8_t *src = malloc(n), *z = malloc(ZSTD_compressBound(n) + 64);
	if (!src || !z)
		exit(2);
	lzp_fill(LZP_TEXT, src, n1, 1);
	lzp_fill(LZP_PERIOD, src + n1, n2, 3);
	lzp_fill(LZP_FLOATS, src + n1 + n2, n3, 2);
	size_t at = ZSTD_compress(z, ZSTD_compressBound(n1), src, n1, 3);
	at += ZSTD_compress(z + at, ZSTD_compressBound(n2), src + n1, n2, 1);
	at += ZSTD_compress(z + at, ZSTD_compressBound(n3), src + n1 + n2, n3, 12);
	check(z, at, n, src, n, 1, "three frames");
	free(src);
	free(z);
	ZSTD_freeCCtx(cc);
	pthread_barrier_destroy(&emu_bar);
	printf("32-lane execution: %ld valid streams, %ld damaged ones as the one-lane emulation\n",
	       nvalid, ncorrupt);
	CHECK(nvalid > 100 && ncorrupt > 10);
	CHECK_DONE();
}
