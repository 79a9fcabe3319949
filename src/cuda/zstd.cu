/* zstd.cu - batched GPU Zstandard decoding: blocks of every frame decoded in parallel, frames executed by a warp each or, a frame of many blocks, by cells (see zstd_core.h, zstd_exec_core.h, zstd_cells_core.h). */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>

#include "tessera.h"
#include "tsr_cuda.h"
#include "zstd_core.h"
#include "zstd_lits_core.h"
#include "zstd_exec_core.h"
#include "zstd_cells_core.h"

/*
 * How the work spreads, and why:
 * - A Zarr chunk is often one large frame (a 256^3 uint16 chunk: 32 MiB, 256 blocks), so one
 *   warp a stream would leave most of the GPU idle on a store of 64 such chunks. Entropy
 *   decoding is the costly, serial part of zstd, and it is independent between blocks once a
 *   block knows where the tables it repeats were described (phase a records that), so phase b
 *   decodes every block of every frame of the batch side by side (a batch of 64 chunks of 32
 *   MiB is 16 384 blocks), its tables in shared memory: a table lookup is the step every
 *   symbol waits on. Huffman and FSE streams are serial bit streams. The literals take one
 *   WARP a block (the block kernel): lane 0 builds the Huffman table (4 KiB), lanes 0 to 3 take
 *   the four literal streams. The sequences take one THREAD a block (the sequences kernel),
 *   each thread with its FSE tables (2.8 KiB, 16-bit entries): a block's sequences are one
 *   serial chain, so lane 0 of a block's warp decoded them while 31 lanes idled, and 20 such
 *   warps an SM ran the same sequences a cycle as 32 threads of one warp. Both wait out a
 *   chain of dependent steps, which the threads do with fewer issue slots; with the step
 *   shortened (zstd_core.h, tsr_zs_block_seqs) the threads took 38 and 43 ms where the warps'
 *   lane 0 took about 41 and 47 (H200, 2026-12-03, docs/design-notes.md). So the threads an SM
 *   are what its shared memory holds tables for (hence 16-bit entries: 82 where 43), and a
 *   thread's bit stream is read a window ahead (tsr_zs_hrc), so no step waits on its own load.
 * - Executing sequences must go in order inside a frame (matches read output of earlier
 *   blocks; repeat offsets run through the frame), and it is copying: so phase c gives each
 *   frame a WARP, 32 sequences at a time: literal runs and the matches that read only final
 *   bytes go in parallel, the rest in order with lanes sharing each copy (zstd_exec_core.h,
 *   tsr_zs_frame_exec). Frames of a batch run side by side. A batch of few large frames
 *   (64 chunks of 32 MiB) would leave most of the GPU idle in this phase: hence the cells.
 * - Phase a (header walk) and the layout are a thread per stream: a few bytes per block.
 * - A frame of TSR_ZS_CELLS_MIN_BLOCKS blocks or more runs phase c by cells instead, while
 *   the batch has too few such frames to fill the GPU a warp a frame (tsr_zs_cells_pay)
 *   (zstd_cells_core.h): every block's repeat function (a thread a block), the frame's entries
 *   (a thread a frame), every block's cells (a warp a block, all at once), the frame's status
 *   (its first failing block), its bytes (a CTA a block, a thread a byte following the cells)
 *   and its checksum. A batch of 64 such frames is then 16 384 warps' work, not 64.
 * Scratch: phase a counts what each stream needs (frames, blocks, literal bytes, sequences);
 * the launcher waits for those counts (the one synchronisation: sizes live in device memory),
 * then takes one allocation for the batch from the launchers' stream-ordered scratch pool
 * (scratch.cu: it keeps its memory between batches) and frees it in order.
 * The cells are a second allocation, 4 bytes an output byte of the streams that have a frame
 * of several blocks (bounded by their capacity and by 128 KiB a block); when it cannot be had
 * (or passes TSR_ZS_CELLS_MAX_NBYTES), every frame runs a warp a frame as before.
 */

#define TSR_ZS_THREADS 128
/* warps of the block kernel at most (a grid-stride loop beyond): each holds its tables
 * (about 5 KB) in shared memory. (H200, 64 x 32 MiB chunks, one thread a block with all its
 * tables in global memory: the tables of all decoders far outgrew the L2 cache; hence the
 * sequences kernel's tables in shared memory, as many threads a CTA as it holds.) */
#define TSR_ZS_MAX_DECODERS 16384
/* threads a CTA of the sequences kernel at most: each holds its tables (2.8 KB) in shared
 * memory and waits out its chain of steps, so a CTA takes as many as its shared memory holds
 * (tsr_zs_seq_threads): 82 on an H200 (227 KB a CTA, one CTA an SM); a batch of fewer blocks
 * than that on every SM takes fewer a CTA, so that every SM has some. A build may set another
 * number to measure it. */
#ifndef TSR_ZS_SEQ_THREADS
#define TSR_ZS_SEQ_THREADS 128
#endif
/* Frames of this many blocks or more run phase c by cells (a build may set another to measure
 * it; a huge value: never). A frame of one block gains nothing from it. */
#ifndef TSR_ZS_CELLS_MIN_BLOCKS
#define TSR_ZS_CELLS_MIN_BLOCKS 2
#endif
/* The most scratch a batch's cells may take (16 GiB: a 4 GiB batch of large frames). */
#ifndef TSR_ZS_CELLS_MAX_NBYTES
#define TSR_ZS_CELLS_MAX_NBYTES ((size_t)16 << 30)
#endif

/* The stream holding global item g, given each stream's first item (bases, n + 1 long). */
__device__ static size_t tsr_zs_owner(const uint64_t *first, size_t n, uint64_t g)
{
	size_t lo = 0, hi = n; /* first[lo] <= g < first[hi] */
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (first[mid] <= g)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* phase a, counting: a thread a stream; cellb: the cells its frames of several blocks may need
 * (its capacity, or 128 KiB a block if less; 0 when every frame is one block) */
__global__ void tsr_zs_count_kernel(const void *const *d_in, const size_t *d_in_nbytes,
				    void *const *d_out, const size_t *d_out_cap,
				    struct tsr_zs_count *cnt, int *st, uint64_t *cellb, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	const uint8_t *in = (const uint8_t *)d_in[i];
	struct tsr_zs_count c = {0, 0, 0, 0};
	int s;
	if ((!in && d_in_nbytes[i]) || (!d_out[i] && d_out_cap[i]))
		s = TSR_CUDA_ZSTD_E_ARGUMENT;
	else
		s = tsr_zs_scan(in, d_in_nbytes[i], NULL, 0, NULL, 0, &c);
	/* literals and sequences become output (3 bytes a sequence at least): a stream that
	 * asks for more scratch than its capacity allows cannot fit */
	if (s == TSR_CUDA_ZSTD_OK && (c.nlit > d_out_cap[i] || c.nseq > d_out_cap[i] / 3))
		s = TSR_CUDA_ZSTD_E_OVERFLOW;
	if (s != TSR_CUDA_ZSTD_OK)
		c.nframes = c.nblocks = 0, c.nlit = c.nseq = 0;
	cnt[i] = c;
	st[i] = s;
	uint64_t bound = (uint64_t)c.nblocks * TSR_ZS_BLOCK_MAX;
	cellb[i] = c.nblocks > c.nframes ? (bound < d_out_cap[i] ? bound : d_out_cap[i]) : 0;
}

/* Every stream's place in the scratch from the counts (prefix sums, tsr_zs_bases_put): one
 * CTA, each thread a run of streams, so that the bases need no copy from the host. (They were
 * made on the host and copied, which queued that copy behind whatever the copy engine had
 * queued: a CUDA read's feed queues the next slot's bytes there, tens of MiB.) */
__global__ void __launch_bounds__(TSR_ZS_BASES_THREADS)
tsr_zs_bases_kernel(const struct tsr_zs_count *cnt, const int *cst, const uint64_t *cellb,
		    int cells, size_t n, struct tsr_zs_stream *ss, uint64_t *first, uint32_t *nlong)
{
	if (threadIdx.x == 0) /* (the scan counts the long Huffman streams in it) */
		*nlong = 0;
	__shared__ uint64_t part[TSR_ZS_NBASES][TSR_ZS_BASES_THREADS];
	const unsigned t = threadIdx.x, nt = TSR_ZS_BASES_THREADS;
	uint64_t lo, hi, v[TSR_ZS_NBASES];
	tsr_zs_bases_run(t, nt, n, &lo, &hi);
	tsr_zs_bases_sum(cnt, cellb, lo, hi, v);
	/* an inclusive scan of the threads' sums (Hillis and Steele, in place: each step's reads
	 * before its writes), then each thread's own taken off: the sums before its run */
	for (int j = 0; j < TSR_ZS_NBASES; j++)
		part[j][t] = v[j];
	__syncthreads();
	for (unsigned d = 1; d < nt; d *= 2) {
		uint64_t add[TSR_ZS_NBASES];
		for (int j = 0; j < TSR_ZS_NBASES; j++)
			add[j] = t >= d ? part[j][t - d] : 0;
		__syncthreads();
		for (int j = 0; j < TSR_ZS_NBASES; j++)
			part[j][t] += add[j];
		__syncthreads();
	}
	uint64_t base[TSR_ZS_NBASES];
	for (int j = 0; j < TSR_ZS_NBASES; j++)
		base[j] = part[j][t] - v[j];
	if (lo < hi) /* (n > 0: the thread whose run ends the batch writes the totals) */
		tsr_zs_bases_put(cnt, cst, cellb, cells, lo, hi, n, base, ss, first);
}

/* phase a, storing frames and blocks at each stream's place */
__global__ void tsr_zs_scan_kernel(const void *const *d_in, const size_t *d_in_nbytes,
				   struct tsr_zs_stream *ss, struct tsr_zs_frame *frames,
				   struct tsr_zs_block *blocks, size_t n, uint32_t *nlong)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n || ss[i].status != TSR_CUDA_ZSTD_OK || ss[i].nframes == 0)
		return;
	struct tsr_zs_count c;
	struct tsr_zs_block *b = blocks + ss[i].block_base;
	int s = tsr_zs_scan((const uint8_t *)d_in[i], d_in_nbytes[i], frames + ss[i].frame_base,
			    ss[i].nframes, b, ss[i].nblocks, &c);
	if (s != TSR_CUDA_ZSTD_OK || c.nblocks != ss[i].nblocks) {
		ss[i].status = s != TSR_CUDA_ZSTD_OK ? s : TSR_CUDA_ZSTD_E_ARGUMENT;
		return;
	}
	uint32_t nl = 0;
	for (uint32_t k = 0; k < c.nblocks; k++) {
		b[k].lit_at += ss[i].lit_base;
		b[k].seq_at += ss[i].seq_base;
		nl += (uint32_t)tsr_zs_hsplit_long(&b[k]);
	}
	if (nl)
		atomicAdd(nlong, nl);
}

/* phase b, literals: a group of lanes a block (TSR_ZS_LIT_GROUP, 16 lanes by default),
 * grid-stride; each group's tables in shared memory, four groups a CTA (21.7 KB), ten CTAs an
 * SM asked of the registers (with warps: the lanes' table fill took it from 48 to 56 registers,
 * nine CTAs an SM on an H200; at 48 it spills 8 bytes; the streams' split, tsr_zs_huf_split,
 * takes it to 82, where ten still fit). Before sm_80 an SM holds 1,024 threads, so eight there
 * (ten is out of range, which ptxas reports and -Werror refuses; the launcher's split bound,
 * made on the host, takes ten). */
#define TSR_ZS_LIT_THREADS (4u * TSR_ZS_LIT_GROUP)
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define TSR_ZS_BLOCK_CTAS 8
#else
#define TSR_ZS_BLOCK_CTAS 10
#endif
__global__ void __launch_bounds__(TSR_ZS_LIT_THREADS, TSR_ZS_BLOCK_CTAS)
tsr_zs_block_kernel(const void *const *d_in, void *const *d_out, const size_t *d_out_cap,
		    const struct tsr_zs_stream *ss, const uint64_t *block_first, size_t n,
		    struct tsr_zs_block *blocks, uint64_t nblocks, uint8_t *lits,
		    const uint32_t *nlong, uint32_t split_max)
{
	/* the batch's long Huffman streams split where they are few (tsr_zs_hsplit_lanes) */
	const int split = *nlong <= split_max;
	__shared__ struct tsr_zs_work ws[4];
	struct tsr_zs_work *w = &ws[threadIdx.x / TSR_ZS_LIT_GROUP];
	uint64_t wid = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) / TSR_ZS_LIT_GROUP;
	uint64_t nw = (uint64_t)gridDim.x * blockDim.x / TSR_ZS_LIT_GROUP;
	for (uint64_t g = wid; g < nblocks; g += nw) {
		if (blocks[g].type != 2)
			continue;
		size_t s = tsr_zs_owner(block_first, n, g);
		if (ss[s].status != TSR_CUDA_ZSTD_OK)
			continue;
		struct tsr_zs_block *sb = blocks + ss[s].block_base;
		uint32_t bi = (uint32_t)(g - ss[s].block_base);
		uint8_t *direct = tsr_zs_lits_out(&sb[bi], (uint8_t *)d_out[s], d_out_cap[s],
						  ss[s].cell_n != 0);
		uint8_t *dst = tsr_zs_lits_dst(&sb[bi], direct, lits);
		if (dst) /* (global stores, not generic ones) */
			__builtin_assume(__isGlobal(dst));
		int st = tsr_zs_block_lits(w, (const uint8_t *)d_in[s], sb, bi, dst, split);
		if (TSR_ZS_GLANE == 0) {
			sb[bi].status = st;
			sb[bi].lit_out = direct != NULL;
		}
	}
}

/* A sequences thread's shared memory: its tables, or when wide their 32-bit entries over them
 * (the kernel's layout; the launcher sizes CTAs by it). */
__host__ __device__ static inline size_t tsr_zs_seq_nbytes(int wide)
{
	return wide ? TSR_ZS_SEQX_NBYTES : TSR_ZS_SEQW_NBYTES;
}

/* phase b, sequences: a thread a block, grid-stride; each thread's tables in shared memory
 * (dynamic: TSR_ZS_SEQ_THREADS of them a CTA), with wide their 32-bit entries over them. After
 * the literals' kernel (seq_st NULL): a block whose literals failed is skipped, and the status
 * is the block's; beside it (tsr_zs_side): every block's sequences, their status to seq_st,
 * merged after both (tsr_zs_merge_kernel) */
__global__ void __launch_bounds__(TSR_ZS_SEQ_THREADS)
tsr_zs_seqs_kernel(const void *const *d_in, const struct tsr_zs_stream *ss,
		   const uint64_t *block_first, size_t n, struct tsr_zs_block *blocks,
		   uint64_t nblocks, struct tsr_zs_seq *seqs, int wide, int32_t *seq_st)
{
	extern __shared__ uint32_t qsm[];
	const size_t per = tsr_zs_seq_nbytes(wide);
	struct tsr_zs_seqw *q = (struct tsr_zs_seqw *)((char *)qsm + threadIdx.x * per);
	struct tsr_zs_seqx *qx = wide ? tsr_zs_seqx_over(q) : NULL;
	uint64_t nt = (uint64_t)gridDim.x * blockDim.x;
	for (uint64_t g = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; g < nblocks; g += nt) {
		if (seq_st)
			seq_st[g] = TSR_CUDA_ZSTD_OK;
		if (blocks[g].type != 2)
			continue;
		size_t s = tsr_zs_owner(block_first, n, g);
		if (ss[s].status != TSR_CUDA_ZSTD_OK)
			continue;
		struct tsr_zs_block *sb = blocks + ss[s].block_base;
		uint32_t bi = (uint32_t)(g - ss[s].block_base);
		if (seq_st)
			seq_st[g] = tsr_zs_block_seqs(q, qx, (const uint8_t *)d_in[s], sb, bi,
						      seqs + sb[bi].seq_at);
		else if (sb[bi].status == TSR_CUDA_ZSTD_OK)
			sb[bi].status = tsr_zs_block_seqs(q, qx, (const uint8_t *)d_in[s], sb, bi,
							  seqs + sb[bi].seq_at);
	}
}

/* a thread a block: its status, the literals' where they failed, else the sequences', as the
 * kernels one after the other give it */
__global__ void tsr_zs_merge_kernel(struct tsr_zs_block *blocks, uint64_t nblocks,
				    const int32_t *seq_st)
{
	uint64_t g = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (g < nblocks)
		blocks[g].status = tsr_zs_block_status(blocks[g].status, seq_st[g]);
}

/* layout: a thread a stream */
__global__ void tsr_zs_layout_kernel(const size_t *d_out_cap, size_t *d_out_nbytes,
				     struct tsr_zs_stream *ss, struct tsr_zs_frame *frames,
				     const struct tsr_zs_block *blocks, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	uint64_t total = 0;
	if (ss[i].status == TSR_CUDA_ZSTD_OK)
		ss[i].status = tsr_zs_layout(frames + ss[i].frame_base, ss[i].nframes,
					     blocks + ss[i].block_base, d_out_cap[i], &total);
	if (d_out_nbytes)
		d_out_nbytes[i] = ss[i].status == TSR_CUDA_ZSTD_OK ? total : 0;
}

/* phase c: a warp a frame (but the frames of cells, fcell); eight blocks an SM asked, so that
 * the 1,024 blocks of a batch of 4,096 frames are all resident at once on an H200 (at 72
 * registers, 7 an SM fit, and the last hundred ran as a second wave: design-notes, "xreps and
 * xpre lost to the exec kernel's residency") */
__global__ void __launch_bounds__(TSR_ZS_THREADS, 8)
tsr_zs_exec_kernel(const void *const *d_in, void *const *d_out, struct tsr_zs_stream *ss,
		   const uint64_t *frame_first, size_t n, const struct tsr_zs_frame *frames,
		   uint64_t nframes, const struct tsr_zs_block *blocks, const uint8_t *lits,
		   const struct tsr_zs_seq *seqs, const uint8_t *fcell)
{
	__shared__ struct tsr_zs_xs xs[TSR_ZS_THREADS / 32];
	uint64_t g = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
	if (g >= nframes || (fcell && fcell[g]))
		return;
	size_t s = tsr_zs_owner(frame_first, n, g);
	if (ss[s].status != TSR_CUDA_ZSTD_OK)
		return;
	const uint8_t *in = (const uint8_t *)d_in[s];
	__builtin_assume(__isGlobal(in)); /* (raw literals are read from it: tsr_zs_lits_src) */
	int st = tsr_zs_frame_exec(&xs[threadIdx.x / 32], in, &frames[g],
				   blocks + ss[s].block_base, lits, seqs, (uint8_t *)d_out[s]);
	if (st != TSR_CUDA_ZSTD_OK && TSR_ZS_LANE == 0)
		atomicCAS(&ss[s].status, TSR_CUDA_ZSTD_OK, st);
}

/* phase c by cells, 1: a warp a block of a stream that has cells: its repeat function, each
 * lane a run of its sequences (tsr_zs_block_reps_lanes) */
__global__ void __launch_bounds__(TSR_ZS_THREADS)
tsr_zs_reps_kernel(const struct tsr_zs_stream *ss, const uint64_t *block_first, size_t n,
		   const struct tsr_zs_block *blocks, uint64_t nblocks,
		   const struct tsr_zs_seq *seqs, struct tsr_zs_reps *reps)
{
	__shared__ struct tsr_zs_reps part[TSR_ZS_THREADS / 32][32];
	uint64_t g = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
	if (g >= nblocks) /* (g, and so every return here, is the whole warp's) */
		return;
	size_t s = tsr_zs_owner(block_first, n, g);
	if (ss[s].status != TSR_CUDA_ZSTD_OK || ss[s].cell_n == 0)
		return;
	tsr_zs_block_reps_lanes(&blocks[g], seqs + (blocks[g].type == 2 ? blocks[g].seq_at : 0),
				part[threadIdx.x / 32], &reps[g]);
}

/* 2: a thread a frame: whether it runs by cells (fcell: several blocks, under 2 GiB, inside its
 * stream's cells), and then its blocks' entries */
__global__ void tsr_zs_entries_kernel(const struct tsr_zs_stream *ss, const uint64_t *frame_first,
				      size_t n, const struct tsr_zs_frame *frames, uint64_t nframes,
				      const struct tsr_zs_block *blocks,
				      const struct tsr_zs_reps *reps, struct tsr_zs_entry *e,
				      uint8_t *fcell)
{
	uint64_t g = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (g >= nframes)
		return;
	fcell[g] = 0;
	size_t s = tsr_zs_owner(frame_first, n, g);
	const struct tsr_zs_frame *f = &frames[g];
	if (ss[s].status != TSR_CUDA_ZSTD_OK || ss[s].cell_n == 0 ||
	    f->nblocks < TSR_ZS_CELLS_MIN_BLOCKS)
		return;
	const struct tsr_zs_block *sb = blocks + ss[s].block_base;
	uint64_t size = tsr_zs_frame_size(f, sb);
	if (size >= ((uint64_t)1 << 31) || f->out_at + size > ss[s].cell_n)
		return;
	struct tsr_zs_entry *se = e + ss[s].block_base;
	tsr_zs_frame_entries(f, sb, reps + ss[s].block_base, se);
	for (uint32_t k = 0; k < f->nblocks; k++) {
		se[f->first_block + k].frame = (uint32_t)g;
		se[f->first_block + k].use = 1;
	}
	fcell[g] = 1;
}

/* 3: a warp a block of a frame of cells, grid-stride: its cells, and its status in place of
 * phase b's (the layout has read those) */
__global__ void __launch_bounds__(TSR_ZS_THREADS)
tsr_zs_cells_kernel(const void *const *d_in, const struct tsr_zs_stream *ss,
		    const uint64_t *block_first, size_t n, struct tsr_zs_block *blocks,
		    uint64_t nblocks, const struct tsr_zs_frame *frames,
		    const struct tsr_zs_entry *e, const uint8_t *lits,
		    const struct tsr_zs_seq *seqs, uint32_t *cells)
{
	__shared__ struct tsr_zs_xs xs[TSR_ZS_THREADS / 32];
	uint64_t wid = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
	uint64_t nw = (uint64_t)gridDim.x * blockDim.x / 32;
	for (uint64_t g = wid; g < nblocks; g += nw) {
		if (!e[g].use)
			continue;
		size_t s = tsr_zs_owner(block_first, n, g);
		const struct tsr_zs_frame *f = &frames[e[g].frame];
		const uint8_t *in = (const uint8_t *)d_in[s];
		__builtin_assume(__isGlobal(in));
		int st = tsr_zs_block_cells(&xs[threadIdx.x / 32], in, f, &blocks[g], &e[g], lits,
					    seqs,
					    cells + ss[s].cell_base + f->out_at);
		if (TSR_ZS_LANE == 0)
			blocks[g].status = st;
		__syncwarp(); /* (the warp's next block reuses xs) */
	}
}

/* 4: a thread a frame of cells: its first failing block's status becomes its stream's */
__global__ void tsr_zs_cells_status_kernel(struct tsr_zs_stream *ss, const uint64_t *frame_first,
					   size_t n, const struct tsr_zs_frame *frames,
					   uint64_t nframes, const struct tsr_zs_block *blocks,
					   const uint8_t *fcell)
{
	uint64_t g = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (g >= nframes || !fcell[g])
		return;
	size_t s = tsr_zs_owner(frame_first, n, g);
	const struct tsr_zs_block *sb = blocks + ss[s].block_base + frames[g].first_block;
	for (uint32_t k = 0; k < frames[g].nblocks; k++)
		if (sb[k].status != TSR_CUDA_ZSTD_OK) {
			atomicCAS(&ss[s].status, TSR_CUDA_ZSTD_OK, sb[k].status);
			return;
		}
}

/* 5: a CTA a block of a frame of cells, grid-stride: its bytes, a thread a byte following the
 * cells (a failed stream's cells are never followed: some may be unwritten) */
__global__ void tsr_zs_resolve_kernel(void *const *d_out, const struct tsr_zs_stream *ss,
				      const uint64_t *block_first, size_t n,
				      const struct tsr_zs_block *blocks, uint64_t nblocks,
				      const struct tsr_zs_frame *frames,
				      const struct tsr_zs_entry *e, const uint32_t *cells)
{
	for (uint64_t g = blockIdx.x; g < nblocks; g += gridDim.x) {
		if (!e[g].use)
			continue;
		size_t s = tsr_zs_owner(block_first, n, g);
		if (ss[s].status != TSR_CUDA_ZSTD_OK)
			continue;
		const struct tsr_zs_frame *f = &frames[e[g].frame];
		const uint32_t *fc = cells + ss[s].cell_base + f->out_at;
		uint8_t *o = (uint8_t *)d_out[s] + f->out_at;
		uint64_t end = e[g].at + blocks[g].out_size;
		for (uint64_t p = e[g].at + threadIdx.x; p < end; p += blockDim.x)
			o[p] = tsr_zs_cell_byte(fc, p);
	}
}

/* 6: a warp a checksummed frame of cells: its XXH64, four chains on four lanes */
__global__ void tsr_zs_cells_sum_kernel(void *const *d_out, struct tsr_zs_stream *ss,
					const uint64_t *frame_first, size_t n,
					const struct tsr_zs_frame *frames, uint64_t nframes,
					const struct tsr_zs_block *blocks, const uint8_t *fcell)
{
	__shared__ uint64_t hv[TSR_ZS_THREADS / 32][4];
	uint64_t g = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
	if (g >= nframes || !fcell[g] || !frames[g].has_checksum) /* (the warp's g) */
		return;
	size_t s = tsr_zs_owner(frame_first, n, g);
	/* (lane 0's view of the status for the warp: another frame's warp may fail it now) */
	if (TSR_ZS_BCAST(ss[s].status) != TSR_CUDA_ZSTD_OK)
		return;
	uint64_t size = tsr_zs_frame_size(&frames[g], blocks + ss[s].block_base);
	const uint8_t *o = (const uint8_t *)d_out[s] + frames[g].out_at;
	uint64_t h = tsr_zs_xxh64_lanes(o, size, hv[threadIdx.x / 32]);
	if (TSR_ZS_LANE == 0 && (uint32_t)h != frames[g].checksum)
		atomicCAS(&ss[s].status, TSR_CUDA_ZSTD_OK, TSR_CUDA_ZSTD_E_CHECKSUM);
}

__global__ void tsr_zs_finish_kernel(const struct tsr_zs_stream *ss, size_t *d_out_nbytes,
				     int *d_status, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	if (d_status)
		d_status[i] = ss[i].status;
	if (d_out_nbytes && ss[i].status != TSR_CUDA_ZSTD_OK)
		d_out_nbytes[i] = 0;
}

static unsigned tsr_zs_grid(uint64_t items, unsigned per)
{
	uint64_t g = (items + per - 1) / per;
	return (unsigned)(g ? g : 1);
}

/* the launcher's scratch (scratch.cu: memory kept between batches) */
static cudaError_t tsr_zs_malloc(void **p, size_t n, cudaStream_t cs)
{
	return (cudaError_t)tsr_cuda_scratch_alloc(p, n, cs);
}

/*
 * The sequences' kernel beside the literals' (TSR_ZS_SIDE: 0 never; 1 where its blocks take
 * more than one wave of its threads; 2 always). Neither reads what the other writes (the
 * sequences take their tables and bit stream from the scan's records). The sequences' threads
 * fill each SM's shared memory with their tables, so where their blocks take two waves the
 * second leaves SMs idle (gpu_zstd_bench's set c: 16,384 blocks, 10,824 threads a wave on an
 * H100) that the literals' CTAs can take; in one wave there is no room beside them, and the
 * side stream's events and merge are cost alone (zside, always on: set c +11%, a and e lost;
 * design-notes). The launcher is a call on the caller's stream, so the side stream and its two
 * events are made for the call and let go at once (their resources go when the work queued on
 * them is done); where one cannot be made, both kernels go on the caller's stream.
 */
#ifndef TSR_ZS_SIDE
#define TSR_ZS_SIDE 1
#endif
struct tsr_zs_side {
	cudaStream_t qs;
	cudaEvent_t fork, join;
	int on;
};

/* The stream the sequences go on: the side stream, after the work queued on cs so far; cs
 * itself where the side cannot be had. */
static cudaStream_t tsr_zs_side_fork(struct tsr_zs_side *d, cudaStream_t cs)
{
	d->on = 0;
	d->qs = NULL;
	d->fork = d->join = NULL;
	if (cudaStreamCreateWithFlags(&d->qs, cudaStreamNonBlocking) == cudaSuccess &&
	    cudaEventCreateWithFlags(&d->fork, cudaEventDisableTiming) == cudaSuccess &&
	    cudaEventCreateWithFlags(&d->join, cudaEventDisableTiming) == cudaSuccess &&
	    cudaEventRecord(d->fork, cs) == cudaSuccess &&
	    cudaStreamWaitEvent(d->qs, d->fork, 0) == cudaSuccess) {
		d->on = 1;
		return d->qs;
	}
	(void)cudaGetLastError(); /* (what was made goes: both kernels on cs) */
	if (d->join)
		cudaEventDestroy(d->join);
	if (d->fork)
		cudaEventDestroy(d->fork);
	if (d->qs)
		cudaStreamDestroy(d->qs);
	return cs;
}

/* cs waits for the side stream's work, and the side's stream and events are let go. Where the
 * join cannot be queued, the host waits for the side stream instead, so that cs never runs
 * ahead of the sequences. */
static void tsr_zs_side_join(struct tsr_zs_side *d, cudaStream_t cs)
{
	if (!d->on)
		return;
	if (cudaEventRecord(d->join, d->qs) != cudaSuccess ||
	    cudaStreamWaitEvent(cs, d->join, 0) != cudaSuccess) {
		(void)cudaGetLastError();
		(void)cudaStreamSynchronize(d->qs);
	}
	cudaEventDestroy(d->join);
	cudaEventDestroy(d->fork);
	cudaStreamDestroy(d->qs);
}

static size_t tsr_zs_align(size_t v)
{
	return (v + 255) & ~(size_t)255;
}

/* The sequences kernel's threads a CTA at most, *qt (as many of TSR_ZS_SEQ_THREADS as the
 * device's shared memory a CTA holds tables for), and *qw, as many with their 32-bit tables too,
 * with its shared memory allowed for; *sms: the device's SMs. */
static cudaError_t tsr_zs_seq_threads(unsigned *qt, unsigned *qw, unsigned *sms)
{
	int dev = 0, optin = 0, n = 0;
	cudaError_t e = cudaGetDevice(&dev);
	if (e == cudaSuccess)
		e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
	if (e == cudaSuccess)
		e = cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev);
	if (e != cudaSuccess)
		return e;
	size_t t = (size_t)optin / tsr_zs_seq_nbytes(0);
	if (t > TSR_ZS_SEQ_THREADS)
		t = TSR_ZS_SEQ_THREADS;
	if (t == 0 || n <= 0)
		return cudaErrorInvalidConfiguration;
	size_t tw = (size_t)optin / tsr_zs_seq_nbytes(1);
	tw = tw < t ? tw : t;
	*qt = (unsigned)t;
	*qw = (unsigned)tw;
	*sms = (unsigned)n;
	size_t most = t * tsr_zs_seq_nbytes(0);
	most = tw * tsr_zs_seq_nbytes(1) > most ? tw * tsr_zs_seq_nbytes(1) : most;
	return cudaFuncSetAttribute(tsr_zs_seqs_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
				    (int)most);
}

/*
 * Whether a batch whose streams with a frame of several blocks hold `frames` frames runs them
 * by cells: while a warp a frame leaves the GPU short of warps. Measured on the H200 (132 SMs,
 * tsr_zs_exec_kernel 32 warps an SM resident, 4,224 in all; gpu_zstd_bench --sets c --count N
 * --phase-c, frames of 512 KiB in 4 blocks, GB/s by cells / a warp a frame, two runs where
 * two): 256 frames 4.0 / 3.4, 512 6.8 / 6.2, 768 7.5 / 7.2, 1024 8.4 / 7.5 and 8.3 / 9.1,
 * 2048 9.9 / 10.1 and 9.8 / 11.7, 4096 11.2 / 12.0 and 11.0 / 13.2; 64 frames of 32 MiB 10.2
 * / 1.3. The crossing is near a quarter of the resident warps, so that is the bound. When the
 * device cannot be asked: by cells.
 */
static int tsr_zs_cells_pay(uint64_t frames)
{
	int dev = 0, sms = 0, ctas = 0;
	if (cudaGetDevice(&dev) != cudaSuccess ||
	    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
	    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&ctas, tsr_zs_exec_kernel,
							  TSR_ZS_THREADS, 0) != cudaSuccess) {
		(void)cudaGetLastError();
		return 1;
	}
	return frames < (uint64_t)sms * (uint64_t)ctas * (TSR_ZS_THREADS / 32) / 4;
}

extern "C" int tsr_cuda_zstd_batch(const void *const *d_in, const size_t *d_in_nbytes,
				   void *const *d_out, const size_t *d_out_cap,
				   size_t *d_out_nbytes, int *d_status, size_t nstreams,
				   int variant, void *d_scratch, size_t scratch_nbytes,
				   void *cuda_stream)
{
	(void)d_scratch;
	(void)scratch_nbytes;
	if (variant != 0)
		return TSR_E_INVALID_ARG;
	return tsr_cuda_zstd_batch_c(d_in, d_in_nbytes, d_out, d_out_cap, d_out_nbytes, d_status,
				     nstreams, TSR_CUDA_ZSTD_C_AUTO, cuda_stream);
}

extern "C" int tsr_cuda_zstd_batch_c(const void *const *d_in, const size_t *d_in_nbytes,
				     void *const *d_out, const size_t *d_out_cap,
				     size_t *d_out_nbytes, int *d_status, size_t nstreams,
				     int phase_c, void *cuda_stream)
{
	if (nstreams == 0)
		return TSR_OK;
	if (!d_in || !d_in_nbytes || !d_out || !d_out_cap || nstreams > ((size_t)1 << 31) ||
	    phase_c < TSR_CUDA_ZSTD_C_AUTO || phase_c > TSR_CUDA_ZSTD_C_CELLS)
		return TSR_E_INVALID_ARG;
	cudaStream_t cs = (cudaStream_t)cuda_stream;
	const unsigned T = TSR_ZS_THREADS;
	unsigned qt = 0, qw = 0, sms = 0;
	cudaError_t e = tsr_zs_seq_threads(&qt, &qw, &sms);
	if (e != cudaSuccess)
		return tsr_cuda_status(e, TSR_E_INTERNAL);
	/* counts: per stream a tsr_zs_count, a status and its cells' bound */
	size_t cnt_nbytes = tsr_zs_align(nstreams * sizeof(struct tsr_zs_count));
	size_t cst_nbytes = tsr_zs_align(nstreams * sizeof(int));
	void *d_cnt = NULL;
	uint32_t *cells = NULL;
	e = tsr_zs_malloc(&d_cnt, cnt_nbytes + cst_nbytes +
						nstreams * sizeof(uint64_t), cs);
	if (e != cudaSuccess)
		return tsr_cuda_status(e, TSR_E_INTERNAL);
	struct tsr_zs_count *cnt = (struct tsr_zs_count *)d_cnt;
	int *cst = (int *)((char *)d_cnt + cnt_nbytes);
	uint64_t *cellb = (uint64_t *)((char *)d_cnt + cnt_nbytes + cst_nbytes);
	tsr_zs_count_kernel<<<tsr_zs_grid(nstreams, T), T, 0, cs>>>(
		d_in, d_in_nbytes, d_out, d_out_cap, cnt, cst, cellb, nstreams);
	struct tsr_zs_count *h_cnt = (struct tsr_zs_count *)malloc(nstreams * sizeof *h_cnt);
	uint64_t *h_cellb = (uint64_t *)malloc(nstreams * sizeof(uint64_t));
	int rc = TSR_OK;
	if (!h_cnt || !h_cellb) {
		rc = TSR_E_NOMEM;
		goto fail_cnt;
	}
	if ((e = cudaGetLastError()) != cudaSuccess ||
	    (e = cudaMemcpyAsync(h_cnt, cnt, nstreams * sizeof *h_cnt, cudaMemcpyDeviceToHost, cs)) !=
		    cudaSuccess ||
	    (e = cudaMemcpyAsync(h_cellb, cellb, nstreams * sizeof(uint64_t),
				 cudaMemcpyDeviceToHost, cs)) != cudaSuccess ||
	    (e = cudaStreamSynchronize(cs)) != cudaSuccess) {
		rc = tsr_cuda_status(e, TSR_E_INTERNAL);
		goto fail_cnt;
	}
	{
		/* the totals, to size the scratch (the bases kernel makes each stream's) */
		uint64_t nf = 0, nb = 0, nl = 0, nq = 0, nc = 0, nfc = 0;
		for (size_t i = 0; i < nstreams; i++) {
			nf += h_cnt[i].nframes;
			nb += h_cnt[i].nblocks;
			nl += h_cnt[i].nlit;
			nq += h_cnt[i].nseq;
			nc += h_cellb[i];
			nfc += h_cellb[i] ? h_cnt[i].nframes : 0;
		}
		if (phase_c == TSR_CUDA_ZSTD_C_WARPS ||
		    (phase_c == TSR_CUDA_ZSTD_C_AUTO && nc && !tsr_zs_cells_pay(nfc)))
			nc = 0;
		/* the cells, when some frame has several blocks and they can be had; else every
		 * frame a warp (an allocation that fails is not an error of the batch) */
		if (nc && nc <= TSR_ZS_CELLS_MAX_NBYTES / sizeof(uint32_t) &&
		    tsr_zs_malloc((void **)&cells, nc * sizeof(uint32_t), cs) != cudaSuccess) {
			(void)cudaGetLastError();
			cells = NULL;
		}
		/* phase b's warps: one a block, up to TSR_ZS_MAX_DECODERS */
		uint64_t ndec = nb < TSR_ZS_MAX_DECODERS ? nb : TSR_ZS_MAX_DECODERS;
		size_t o_ss = 0, o_first = o_ss + tsr_zs_align(nstreams * sizeof(struct tsr_zs_stream));
		size_t o_fr = o_first + tsr_zs_align(2 * (nstreams + 1) * sizeof(uint64_t));
		size_t o_bl = o_fr + tsr_zs_align(nf * sizeof(struct tsr_zs_frame));
		size_t o_lit = o_bl + tsr_zs_align(nb * sizeof(struct tsr_zs_block));
		size_t o_seq = o_lit + tsr_zs_align(nl);
		size_t o_reps = o_seq + tsr_zs_align(nq * sizeof(struct tsr_zs_seq));
		size_t o_ent = o_reps + (cells ? tsr_zs_align(nb * sizeof(struct tsr_zs_reps)) : 0);
		size_t o_fcell = o_ent + (cells ? tsr_zs_align(nb * sizeof(struct tsr_zs_entry)) : 0);
		/* the sequences beside the literals where they take more than one wave */
		int side = TSR_ZS_SIDE == 2 || (TSR_ZS_SIDE == 1 && nb > (uint64_t)sms * qt);
		size_t o_sst = o_fcell + (cells ? tsr_zs_align(nf) : 0);
		size_t o_long = o_sst + (side ? tsr_zs_align(nb * sizeof(int32_t)) : 0);
		size_t total = o_long + tsr_zs_align(sizeof(uint32_t));
		char *sc = NULL;
		if ((e = tsr_zs_malloc((void **)&sc, total, cs)) != cudaSuccess) {
			rc = tsr_cuda_status(e, TSR_E_INTERNAL);
			goto fail_cnt;
		}
		struct tsr_zs_stream *ss = (struct tsr_zs_stream *)(sc + o_ss);
		uint64_t *first = (uint64_t *)(sc + o_first);
		struct tsr_zs_frame *fr = (struct tsr_zs_frame *)(sc + o_fr);
		struct tsr_zs_block *bl = (struct tsr_zs_block *)(sc + o_bl);
		uint8_t *lits = (uint8_t *)(sc + o_lit);
		struct tsr_zs_seq *seqs = (struct tsr_zs_seq *)(sc + o_seq);
		struct tsr_zs_reps *reps = (struct tsr_zs_reps *)(sc + o_reps);
		struct tsr_zs_entry *ent = (struct tsr_zs_entry *)(sc + o_ent);
		uint8_t *fcell = cells ? (uint8_t *)(sc + o_fcell) : NULL;
		int32_t *seq_st = side ? (int32_t *)(sc + o_sst) : NULL;
		uint32_t *nlong = (uint32_t *)(sc + o_long);
		tsr_zs_bases_kernel<<<1, TSR_ZS_BASES_THREADS, 0, cs>>>(cnt, cst, cellb, cells != NULL,
								       nstreams, ss, first, nlong);
		if ((e = cudaGetLastError()) == cudaSuccess && cells)
			/* (no block runs by cells until its frame says) */
			e = cudaMemsetAsync(ent, 0, nb * sizeof *ent, cs);
		if (e == cudaSuccess) {
			unsigned g = tsr_zs_grid(nstreams, T);
			tsr_zs_scan_kernel<<<g, T, 0, cs>>>(d_in, d_in_nbytes, ss, fr, bl, nstreams,
							    nlong);
			if (nb) {
				/* beside: the sequences first on the side stream (their CTAs
				 * resident before the literals' fill the SMs), the literals on
				 * cs, then cs waits and merges the statuses */
				struct tsr_zs_side sd;
				sd.on = 0;
				cudaStream_t qs = side ? tsr_zs_side_fork(&sd, cs) : cs;
				/* a batch of few blocks spreads them over every SM: a
				 * thread's chain, not the SM, is what each waits on; and
				 * where the threads leave room, their tables go wide too,
				 * for a shorter chain */
				uint64_t spread = (nb + sms - 1) / sms;
				unsigned q = spread < qt ? (unsigned)spread : qt;
				int wide = q <= qw;
				auto seqs_on = [&](cudaStream_t st, int32_t *sst) {
					tsr_zs_seqs_kernel<<<tsr_zs_grid(nb, q), q,
							     q * tsr_zs_seq_nbytes(wide), st>>>(
						d_in, ss, first + nstreams + 1, nstreams, bl, nb,
						seqs, wide, sst);
				};
				if (side)
					seqs_on(qs, seq_st);
				tsr_zs_block_kernel<<<tsr_zs_grid(ndec * TSR_ZS_LIT_GROUP,
								  TSR_ZS_LIT_THREADS),
						      TSR_ZS_LIT_THREADS, 0, cs>>>(
					d_in, d_out, d_out_cap, ss, first + nstreams + 1, nstreams,
					bl, nb, lits, nlong, sms * TSR_ZS_BLOCK_CTAS);
				if (side) {
					tsr_zs_side_join(&sd, cs);
					tsr_zs_merge_kernel<<<tsr_zs_grid(nb, T), T, 0, cs>>>(
						bl, nb, seq_st);
				} else {
					seqs_on(cs, NULL);
				}
			}
			tsr_zs_layout_kernel<<<g, T, 0, cs>>>(d_out_cap, d_out_nbytes, ss, fr, bl,
							      nstreams);
			if (cells && nf) {
				/* phase c by cells (zstd.cu's opening comment) */
				const uint64_t *bfirst = first + nstreams + 1;
				uint64_t ncw = nb < TSR_ZS_MAX_DECODERS ? nb : TSR_ZS_MAX_DECODERS;
				tsr_zs_reps_kernel<<<tsr_zs_grid(nb * 32, T), T, 0, cs>>>(
					ss, bfirst, nstreams, bl, nb, seqs, reps);
				tsr_zs_entries_kernel<<<tsr_zs_grid(nf, T), T, 0, cs>>>(
					ss, first, nstreams, fr, nf, bl, reps, ent, fcell);
				tsr_zs_cells_kernel<<<tsr_zs_grid(ncw * 32, T), T, 0, cs>>>(
					d_in, ss, bfirst, nstreams, bl, nb, fr, ent, lits, seqs, cells);
				tsr_zs_cells_status_kernel<<<tsr_zs_grid(nf, T), T, 0, cs>>>(
					ss, first, nstreams, fr, nf, bl, fcell);
				tsr_zs_resolve_kernel<<<(unsigned)ncw, 256, 0, cs>>>(
					d_out, ss, bfirst, nstreams, bl, nb, fr, ent, cells);
				tsr_zs_cells_sum_kernel<<<tsr_zs_grid(nf * 32, T), T, 0, cs>>>(
					d_out, ss, first, nstreams, fr, nf, bl, fcell);
			}
			if (nf)
				tsr_zs_exec_kernel<<<tsr_zs_grid(nf * 32, T), T, 0, cs>>>(
					d_in, d_out, ss, first, nstreams, fr, nf, bl, lits, seqs,
					fcell);
			tsr_zs_finish_kernel<<<g, T, 0, cs>>>(ss, d_out_nbytes, d_status, nstreams);
			e = cudaGetLastError();
		}
		cudaError_t e2 = cudaFreeAsync(sc, cs);
		if (e == cudaSuccess)
			e = e2;
		rc = tsr_cuda_status(e, TSR_E_INTERNAL);
	}
fail_cnt:
	if (cells)
		cudaFreeAsync(cells, cs);
	cudaFreeAsync(d_cnt, cs);
	free(h_cnt);
	free(h_cellb);
	return rc;
}

extern "C" const char *tsr_cuda_zstd_status_name(int status)
{
	switch (status) {
	case TSR_CUDA_ZSTD_OK: return "ok";
	case TSR_CUDA_ZSTD_E_TRUNCATED: return "truncated input";
	case TSR_CUDA_ZSTD_E_MAGIC: return "not a zstd frame";
	case TSR_CUDA_ZSTD_E_HEADER: return "bad frame header";
	case TSR_CUDA_ZSTD_E_DICTIONARY: return "frame needs a dictionary";
	case TSR_CUDA_ZSTD_E_BLOCK: return "bad block type or size";
	case TSR_CUDA_ZSTD_E_LITERALS: return "corrupt literals section";
	case TSR_CUDA_ZSTD_E_SEQUENCES: return "corrupt sequences section";
	case TSR_CUDA_ZSTD_E_OFFSET: return "match offset outside the window";
	case TSR_CUDA_ZSTD_E_OVERFLOW: return "output larger than its buffer";
	case TSR_CUDA_ZSTD_E_SIZE: return "decoded size differs from the frame's content size";
	case TSR_CUDA_ZSTD_E_CHECKSUM: return "checksum mismatch";
	case TSR_CUDA_ZSTD_E_ARGUMENT: return "NULL buffer with a nonzero size";
	case TSR_CUDA_ZSTD_E_MEMORY: return "no scratch memory";
	case TSR_CUDA_ZSTD_E_LONG: return "frame of 4 GiB or more of output";
	default: return "unknown status";
	}
}
