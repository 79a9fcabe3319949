/* zstd_core.h - Zstandard (RFC 8878) frames decoded in three phases a GPU runs in parallel: the types, bit readers, FSE tables, phase a (scan) and phase b's sequences; phase b's literals are zstd_lits_core.h, phase c zstd_exec_core.h; also builds as C for the CPU. */
#ifndef TSR_ZSTD_CORE_H
#define TSR_ZSTD_CORE_H

/*
 * A zstd stream is frames (and skippable frames) one after another; a frame is blocks of at
 * most 128 KiB of output. Decoding a compressed block has two parts of very different shape:
 * entropy decoding (Huffman literals, FSE sequences) is serial inside a block but independent
 * between blocks once each block knows which earlier block described the tables it repeats;
 * executing sequences (copying literals and matches) depends on the output of earlier blocks
 * of the frame (matches reach back up to the window) and on the repeat offsets, which run
 * through the whole frame. So the work is split in three phases:
 *   (a) tsr_zs_scan: walk a stream's frame and block headers, and of each compressed block the
 *       literals and sequences headers (a few bytes each): sizes, the scratch each block needs,
 *       and for every "repeat" table the block whose header describes it. Cheap, one pass.
 *   (b) tsr_zs_block_lits, then tsr_zs_block_seqs: one block's tables, literals (into a
 *       scratch literal buffer, or the output where they are all of a place phase a knows:
 *       tsr_zs_lits_out; a group of lanes; zstd_lits_core.h) and sequences (into a scratch sequence buffer, offsets
 *       still as coded: repeat codes are resolved later because they depend on earlier
 *       blocks; a thread). Blocks run in any order.
 *   (c) tsr_zs_layout then tsr_zs_frame_exec (zstd_exec_core.h): output places of frames
 *       (sizes are known after (b)), then one frame's blocks executed in order, resolving
 *       repeat offsets and checking offsets against the frame's start and window, then its
 *       XXH64 checksum.
 * Every read is checked against the stream's size, every write against the output capacity
 * and scratch sizes that (a) computed; each failure has its own status (tsr_cuda.h). Frames
 * that need a dictionary are refused with TSR_CUDA_ZSTD_E_DICTIONARY (the CPU decodes them).
 * Acceptance is at most libzstd's (1.5): a stream accepted here decodes to libzstd's bytes;
 * a few things libzstd tolerates are refused (offsets past the window, blocks past the block
 * size limit, Huffman codes longer than 11 bits, which libzstd's encoder never writes).
 * Built with TSR_ZSTD_EMU, the code runs on the CPU (execution as a warp of one lane), so CI
 * tests the decoding logic against libzstd without a GPU.
 */

#include <stddef.h>
#include <stdint.h>

#include "tsr_cuda.h"
#include "warp.h"

#ifdef TSR_ZSTD_EMU
#include <string.h>
#define TSR_ZD static inline
#define TSR_ZD_INLINE static inline
#ifndef TSR_ZS_LANE /* (a test may emulate a warp of threads: tests/gpu/emu_zstd_lanes.c) */
#define TSR_ZS_LANE 0u
#define TSR_ZS_NLANES 1u
#define TSR_ZS_SYNC() ((void)0)
#define TSR_ZS_BCAST(v) (v)
/* across the lanes (uint32_t): the OR of v, its sum, and the sum of the lanes' below */
#define TSR_ZS_OR(v) (v)
#define TSR_ZS_ADD(v) (v)
#define TSR_ZS_XSUM(v) ((void)(v), 0u)
#endif
#define TSR_ZTABLE static const
#define TSR_ZS_UNROLL
#else
/* (a loop of a constant count kept in registers) */
#define TSR_ZS_UNROLL _Pragma("unroll")
#define TSR_ZTABLE static __constant__ const
#define TSR_ZD static __device__
/* (a step of a loop whose locals must stay in registers) */
#define TSR_ZD_INLINE static __device__ __forceinline__
#define TSR_ZS_LANE (threadIdx.x & 31u)
#define TSR_ZS_NLANES 32u
#define TSR_ZS_SYNC() __syncwarp()
/* lane 0's value of v, to every lane */
#define TSR_ZS_BCAST(v) __shfl_sync(0xffffffffu, (v), 0)
/* across the lanes (uint32_t): the OR of v, its sum, and the sum of the lanes' below (warp.h) */
#define TSR_ZS_OR(v) tsr_warp_or(v)
#define TSR_ZS_ADD(v) tsr_warp_add(v)
#define TSR_ZS_XSUM(v) tsr_warp_xsum(v)
#endif

/* Whether p holds for any thread of the warp at this point (the sequences' threads, each on a
 * block of its own): on the CPU the thread's own p (a test may refill at more steps:
 * emu_zstd_vote.c) */
#ifndef TSR_ZS_ANY_ACTIVE
#ifdef TSR_ZSTD_EMU
#define TSR_ZS_ANY_ACTIVE(p) (p)
#else
#define TSR_ZS_ANY_ACTIVE(p) __any_sync(__activemask(), (p))
#endif
#endif

/*
 * The literals' lanes (tsr_zs_block_lits, tsr_zs_huf_fill): a group of TSR_ZS_LIT_GROUP lanes
 * (8, 16 or 32) decodes a block; by default 16, two blocks a warp. A block's four Huffman
 * streams keep four lanes busy of its group, so each instruction the warp issues does two (or,
 * at 8, four) blocks' work, and the groups' lanes 0 build their trees side by side (the same
 * instructions). H100, against the warp (litraw's tree, 3 rounds): 10000 x 64 KiB float32
 * 117.8 -> 157.7 GB/s, 512 KiB uint16 chunks 74.2 -> 75.0, b2_zstd planes 48.1 -> 50.3, but
 * Blosc2 planes with raw literals 98.0 -> 94.4 (a raw section's copy takes twice the rounds
 * on half the lanes); 8 lanes was below 16 on every set. GLANE is a lane's place in its group,
 * GSYNC the group's __syncwarp. A test may run groups of threads: emu_zstd_groups.c.
 */
#ifndef TSR_ZS_LIT_GROUP
#define TSR_ZS_LIT_GROUP 16u
#endif
#if TSR_ZS_LIT_GROUP != 8u && TSR_ZS_LIT_GROUP != 16u && TSR_ZS_LIT_GROUP != 32u
#error "TSR_ZS_LIT_GROUP: 8, 16 or 32 (four groups a CTA: at least a warp)"
#endif
#ifndef TSR_ZS_GLANE
#ifdef TSR_ZSTD_EMU
#define TSR_ZS_GLANE TSR_ZS_LANE
#define TSR_ZS_GNLANES TSR_ZS_NLANES
#define TSR_ZS_GSYNC() TSR_ZS_SYNC()
#else
#define TSR_ZS_GLANE (threadIdx.x & (TSR_ZS_LIT_GROUP - 1u))
#define TSR_ZS_GNLANES TSR_ZS_LIT_GROUP
#define TSR_ZS_GSYNC() __syncwarp(tsr_zs_group_mask(threadIdx.x & 31u, TSR_ZS_LIT_GROUP))
#endif
#endif
/* A flag of the group's set to 1 by any of its lanes, several at once (read after a GSYNC):
 * on the CPU, where a test runs the lanes as threads, an atomic store. */
#ifdef TSR_ZSTD_EMU
#define TSR_ZS_GFLAG(p) __atomic_store_n((p), 1, __ATOMIC_RELAXED)
#else
#define TSR_ZS_GFLAG(p) (*(p) = 1)
#endif

/* (a test counts the sequences that took more than 64 bits: emu_zstd_wide.c) */
#ifndef TSR_ZS_NOTE_SPLIT
#define TSR_ZS_NOTE_SPLIT() ((void)0)
#endif

#define TSR_ZS_BLOCK_MAX (128u << 10)
#define TSR_ZS_HUF_MAXBITS 11u

/* One frame of a stream (phase a; out_at by tsr_zs_layout). */
struct tsr_zs_frame {
	uint64_t window;        /* bytes a match may reach back */
	uint64_t content_size;  /* declared size (has_size) */
	uint64_t out_at;        /* its first output byte in the stream's output */
	uint32_t first_block;   /* index of its first block in the stream's blocks */
	uint32_t nblocks;
	uint32_t checksum;      /* stored XXH64 low 32 bits (has_checksum) */
	uint8_t has_size, has_checksum;
};

/* One block (phase a; out_size and status of compressed blocks by phase b). */
struct tsr_zs_block {
	uint64_t in_at;         /* its content in the stream */
	uint64_t lit_at;        /* its literals in the literal scratch (bytes) */
	uint64_t seq_at;        /* its sequences in the sequence scratch (records) */
	uint32_t in_size;       /* content bytes (RLE: 1) */
	uint32_t out_size;      /* decoded bytes */
	uint32_t block_max;     /* the frame's block size limit */
	uint32_t nlit, nseq;    /* compressed: literal bytes, sequences */
	uint32_t lit_hdr;       /* compressed: literals header bytes */
	uint32_t lit_csize;     /* compressed: literals section bytes after the header */
	int32_t huf_from;       /* block whose literals section holds the Huffman tree used; -1 */
	int32_t fse_from[3];    /* literal lengths, offsets, match lengths: block whose sequences
				   header describes the table used; -1 */
	int32_t status;         /* compressed: phase b's result */
	uint8_t type;           /* 0 raw, 1 RLE, 2 compressed */
	uint8_t lit_type;       /* 0 raw, 1 RLE, 2 compressed, 3 treeless */
	uint8_t lit_streams;    /* 1 or 4 */
	uint8_t lit_out;        /* phase b decoded its literals into the output (tsr_zs_lits_out) */
	uint32_t out_known;     /* its output's place in the stream's + 1 where phase a knows it
				   (every block before it raw, RLE, or compressed with no
				   sequences) and it is under 4 GiB; else 0 */
};

/* Whether compressed block b's literals are read where they lie in the stream (raw ones): then
 * phase a gives them no scratch, phase b leaves them (tsr_zs_lits_dst) and phase c reads them
 * there (tsr_zs_lits_src), where they were copied to the scratch and read back from it. */
TSR_ZD_INLINE int tsr_zs_lits_in_stream(const struct tsr_zs_block *b)
{
	return b->lit_type == 0;
}

/* One sequence as coded (phase b): lengths, and the offset value (> 3: offset + 3; 1..3: a
 * repeat code, resolved in phase c). 16 bytes, aligned on the GPU, so that the sequences'
 * thread writes each with one 128-bit store and the exec kernel's lanes read it with one load:
 * a warp's threads each write their own block's records, so every store of the warp touched 32
 * places, three stores a sequence where one now. */
#ifdef TSR_ZSTD_EMU
struct tsr_zs_seq {
#else
struct __align__(16) tsr_zs_seq {
#endif
	uint32_t ll, ml, of, pad;
};

/* What phase a counted in a stream. */
struct tsr_zs_count {
	uint32_t nframes, nblocks;
	uint64_t nlit, nseq;    /* scratch the stream's compressed blocks need */
};

/* A stream's place in the batch's scratch (its first frame, block, literal byte, sequence and
 * cell: prefix sums of the streams' counts), its frames and blocks, its status so far. */
struct tsr_zs_stream {
	uint64_t frame_base, block_base;
	uint32_t nframes, nblocks;
	uint64_t lit_base, seq_base;
	uint64_t cell_base, cell_n; /* its cells (cell_n 0: none, every frame by a warp) */
	int status;
	int pad;
};

/* The five counts a stream's bases sum, in order: frames, blocks, literal bytes, sequences,
 * cells. */
#define TSR_ZS_NBASES 5

/* The bases kernel's CTA (zstd.cu), one of 1,024 threads: a run of 10 streams each on a batch of
 * 10,000 (at 256 threads, 40 each, the kernels alone ran about 1% slower on an H100). */
#define TSR_ZS_BASES_THREADS 1024

/* Thread t of nt's run of the n streams, [*lo, *hi): ceil(n / nt) streams each, in order (the
 * last runs shorter or empty). */
TSR_ZD void tsr_zs_bases_run(uint64_t t, uint64_t nt, uint64_t n, uint64_t *lo, uint64_t *hi)
{
	const uint64_t share = (n + nt - 1) / nt;
	*lo = share * t < n ? share * t : n;
	*hi = *lo + share < n ? *lo + share : n;
}

/* Sums streams [lo, hi)'s counts into sum (the bases kernel's thread, its share of the batch). */
TSR_ZD void tsr_zs_bases_sum(const struct tsr_zs_count *cnt, const uint64_t *cellb, uint64_t lo,
			     uint64_t hi, uint64_t sum[TSR_ZS_NBASES])
{
	for (int j = 0; j < TSR_ZS_NBASES; j++)
		sum[j] = 0;
	for (uint64_t i = lo; i < hi; i++) {
		sum[0] += cnt[i].nframes;
		sum[1] += cnt[i].nblocks;
		sum[2] += cnt[i].nlit;
		sum[3] += cnt[i].nseq;
		sum[4] += cellb[i];
	}
}

/* Streams [lo, hi)'s entries, base holding the sums of every stream before lo (and then of
 * every stream before hi): ss[i], and first[i] (frames) and first[n + 1 + i] (blocks) of the
 * n streams' firsts; cells 0: no stream runs by cells (cell_n 0). The last share (hi == n)
 * writes the totals, first[n] and first[2n + 1]. */
TSR_ZD void tsr_zs_bases_put(const struct tsr_zs_count *cnt, const int *cst,
			     const uint64_t *cellb, int cells, uint64_t lo, uint64_t hi,
			     uint64_t n, uint64_t base[TSR_ZS_NBASES], struct tsr_zs_stream *ss,
			     uint64_t *first)
{
	for (uint64_t i = lo; i < hi; i++) {
		struct tsr_zs_stream s;
		s.frame_base = base[0];
		s.block_base = base[1];
		s.lit_base = base[2];
		s.seq_base = base[3];
		s.cell_base = base[4];
		s.cell_n = cells ? cellb[i] : 0;
		s.nframes = cnt[i].nframes;
		s.nblocks = cnt[i].nblocks;
		s.status = cst[i];
		s.pad = 0;
		ss[i] = s;
		first[i] = base[0];
		first[n + 1 + i] = base[1];
		base[0] += cnt[i].nframes;
		base[1] += cnt[i].nblocks;
		base[2] += cnt[i].nlit;
		base[3] += cnt[i].nseq;
		base[4] += cellb[i];
	}
	if (hi == n) {
		first[n] = base[0];
		first[2 * n + 1] = base[1];
	}
}

/*
 * An FSE decoding table's entry (tables of 1 << al entries, al <= 9): x | sym << 10, where x
 * (1 to 1023) is the symbol's count-numbered state of RFC 8878 4.1.1 (its normalised count, plus
 * how many of its states come before this one; 1 for a "less than 1" symbol). The bits the
 * next state reads and its base follow from x (tsr_zs_fse_bits, tsr_zs_fse_base), so an entry
 * is 16 bits where storing them took 32: a sequences thread's three tables in 2.5 KB of shared
 * memory, not 5, and twice the threads an SM (each waits out a serial chain).
 */
typedef uint16_t tsr_zs_fse;

/* The bits entry e of a table of 1 << al entries reads for the next state: al - highbit(x). */
TSR_ZD_INLINE unsigned tsr_zs_fse_bits(uint32_t e, unsigned al)
{
	uint32_t x = e & 1023u;
#ifdef TSR_ZSTD_EMU
	return al - (31u - (unsigned)__builtin_clz(x));
#else
	/* (bfind: the highest set bit's place, one FLO; 31 - __clz took two more instructions
	 * a table in the sequences' step, not folded away) */
	unsigned h;
	asm("bfind.u32 %0, %1;" : "=r"(h) : "r"(x));
	return al - h;
#endif
}

/* The next state before the nbits read (tsr_zs_fse_bits), of entry e: (x << nbits) - 2^al. */
TSR_ZD_INLINE uint32_t tsr_zs_fse_base(uint32_t e, unsigned al, unsigned nbits)
{
	return ((e & 1023u) << nbits) - (1u << al);
}

/* An FSE table's build temporaries: the normalised counts, then each symbol's next state. */
struct tsr_zs_norm {
	int16_t norm[64];
	uint16_t next[64];
};

/* A Huffman stream split between lanes (tsr_zs_huf_split, zstd_lits_core.h): at most
 * TSR_ZS_HSPLIT_LANES lanes a stream, their counts. */
#define TSR_ZS_HSPLIT_LANES 4u
struct tsr_zs_hsplit {
	uint32_t n[4][TSR_ZS_HSPLIT_LANES]; /* symbols starting in the lane's part */
	uint32_t e[4][TSR_ZS_HSPLIT_LANES]; /* symbols after them until the next part's joined */
	uint32_t m[4][TSR_ZS_HSPLIT_LANES]; /* the next part's symbols before the join */
	int32_t join[4][TSR_ZS_HSPLIT_LANES]; /* the join's bit: where the next part's true
						 symbols start */
	int32_t bad[4][TSR_ZS_HSPLIT_LANES]; /* the part did not join the next: decoded whole */
};

/* A block decoder's literals tables and temporaries (about 5 KiB; a warp's, in shared memory
 * on the GPU). */
struct tsr_zs_work {
	tsr_zs_fse wt[64];
	uint16_t huf[1u << TSR_ZS_HUF_MAXBITS]; /* symbol | bits << 8 */
	union { /* the tree's temporaries until the table is made, then the streams' split */
		struct {
			uint8_t weights[256];
			uint16_t hsym[256]; /* each symbol's first entry in huf | its weight << 12
					       (0: none) */
			uint16_t wcount[16]; /* the symbols of each weight (tsr_zs_huf_ranks) */
		};
		struct tsr_zs_hsplit sp;
	};
	uint32_t nweights;   /* weights read from the tree description (the last one not) */
	struct tsr_zs_norm nm;
	uint32_t huf_bits, huf_nsym;
	/* the literal streams of the block being decoded, for the lanes that decode them */
	uint64_t s_at[4], s_len[4], s_out[4]; /* in the stream; bytes; in the block's literals */
	uint32_t s_cnt[4], nstreams;
	int32_t status, lit_bad;
};

/* A sequence decoder's FSE tables (about 2.8 KiB; a thread's, in shared memory on the GPU):
 * the tables last, so that their 32-bit form (struct tsr_zs_seqx) may lie over them, and in
 * the order that lets them widen in place (tsr_zs_block_seqs). */
struct tsr_zs_seqw {
	union { /* the counts while the tables are made; then the bit reader's stage (tsr_zs_hrs) */
		struct tsr_zs_norm nm;
		uint32_t stage[64];
	};
	uint32_t ll_al, ml_al, of_al;
	tsr_zs_fse ml[512], ll[512], of[256];
};

/* The same tables as 32-bit entries, base | bits << 16 | symbol << 24 (tsr_zs_fse_wide): a
 * step then takes its bits and base from the entry, not from highbit(x) in the chain. For a
 * batch too small to fill the SMs' shared memory with 16-bit tables' threads, where the
 * chain's length, not the threads an SM, is the time. They lie over the 16-bit tables, from
 * the same place (tsr_zs_seqx_over: 2.5 KiB more a thread, where they took 5 KiB after them),
 * and are widened from them in an order that reads each 16-bit entry before it is written
 * over (tsr_zs_block_seqs). */
struct tsr_zs_seqx {
	uint32_t ll[512], ml[512], of[256];
};

/* The lanes of lane's group of g (a power of two, 1 to 32) among a warp's 32, as a mask
 * (TSR_ZS_GSYNC's __syncwarp). */
TSR_ZD_INLINE uint32_t tsr_zs_group_mask(unsigned lane, unsigned g)
{
	return g >= 32u ? 0xffffffffu : ((1u << g) - 1u) << (lane & 31u & ~(g - 1u));
}

/* A thread's shared memory for its tables: 16-bit, or wide (32-bit ones over them). */
#define TSR_ZS_SEQW_NBYTES sizeof(struct tsr_zs_seqw)
#define TSR_ZS_SEQX_NBYTES (offsetof(struct tsr_zs_seqw, ml) + sizeof(struct tsr_zs_seqx))

/* The 32-bit tables that lie over w's 16-bit ones (in a thread's TSR_ZS_SEQX_NBYTES). */
TSR_ZD_INLINE struct tsr_zs_seqx *tsr_zs_seqx_over(struct tsr_zs_seqw *w)
{
	return (struct tsr_zs_seqx *)(void *)((char *)w + offsetof(struct tsr_zs_seqw, ml));
}

/* ---- byte and bit access ------------------------------------------------------------- */

TSR_ZD uint32_t tsr_zs_le(const uint8_t *p, unsigned nb)
{
	uint32_t v = 0;
	for (unsigned k = 0; k < nb; k++)
		v |= (uint32_t)p[k] << (8 * k);
	return v;
}

TSR_ZD unsigned tsr_zs_highbit(uint64_t v) /* v > 0 */
{
	unsigned r = 0;
	while (v >>= 1)
		r++;
	return r;
}

/* nb (<= 16) bits at bit bp of s[0..n), little-endian order; bits past n read as zero. */
TSR_ZD uint32_t tsr_zs_fwd(const uint8_t *s, uint64_t n, uint64_t bp, unsigned nb)
{
	uint64_t by = bp >> 3;
	uint32_t v = 0;
	for (unsigned k = 0; k < 4; k++)
		if (by + k < n)
			v |= (uint32_t)s[by + k] << (8 * k);
	return (v >> (bp & 7)) & ((1u << nb) - 1u);
}

/*
 * Backward bit stream (RFC 8878 4.1: Huffman and FSE streams): the bytes as one little-endian
 * number, read from its highest set bit (the end mark) down. pos: bits left; it goes negative
 * when a read runs past the start (those bits read as zero), which callers treat as
 * corruption, as libzstd does. A stream lies inside one block (under 128 KiB, phase a
 * checks), so positions are 32-bit (a GPU does 64-bit integer arithmetic in two or more
 * instructions). The stream is read through the aligned 32-bit words that hold it, 64 bits
 * below the position at a time, by three loads and two funnel shifts with no branch, so the
 * literal loop's lanes do not diverge to refill a cache (refills were 41% of that loop's
 * iterations and half its instructions, each run by one lane of four). The first and last
 * words, which hold bytes outside the stream, are read byte by byte once at the start with
 * those bytes as zero; only words wholly inside the stream are loaded later, so no byte
 * outside it is ever read.
 */
struct tsr_zs_hr {
	const uint8_t *s;
	const uint8_t *mid; /* word 1 (the first wholly inside the stream), or a zero word (the
			     * literals' loads, tsr_zs_hr_word_flat) */
	int32_t pos;    /* bits left */
	int32_t lead;   /* bytes from the aligned word holding s[0] to s[0] (0 to 3) */
	int32_t last;   /* index of the word holding s[n - 1] */
	uint32_t w0, wl; /* words 0 and last, bytes outside the stream as zero */
};

/* Where a stream of fewer than three words points its loads (tsr_zs_hr_word_flat): a word
 * that is read and never used. */
#ifdef TSR_ZSTD_EMU
static const uint32_t tsr_zs_noword[1] = {0};
#else
static __device__ const uint32_t tsr_zs_noword[1] = {0};
#endif

TSR_ZD int tsr_zs_hr_init(struct tsr_zs_hr *h, const uint8_t *s, uint64_t n)
{
	if (n == 0 || n > ((uint64_t)1 << 24) || s[n - 1] == 0)
		return -1;
	int32_t lead = (int32_t)((uintptr_t)s & 3u);
	h->s = s;
	h->lead = lead;
	h->last = (int32_t)((lead + n - 1) >> 2);
	h->pos = (int32_t)(8 * (n - 1) + tsr_zs_highbit(s[n - 1]));
	h->w0 = h->wl = 0;
	h->mid = h->last >= 2 ? s + (4 - lead) : (const uint8_t *)tsr_zs_noword;
	for (int32_t k = 0; k < 4; k++) {
		int64_t i0 = k - lead, il = 4 * (int64_t)h->last + k - lead;
		if (i0 >= 0 && (uint64_t)i0 < n)
			h->w0 |= (uint32_t)s[i0] << (8 * k);
		if (il >= 0 && (uint64_t)il < n)
			h->wl |= (uint32_t)s[il] << (8 * k);
	}
	return 0;
}

/* (a test notes the words the exec kernel's copies read: emu_zstd_copy.c) */
#ifndef TSR_ZS_NOTE_READ
#define TSR_ZS_NOTE_READ(p, n) ((void)0)
#endif

/* The aligned 32-bit word at p. */
TSR_ZD_INLINE uint32_t tsr_zs_word(const uint8_t *p)
{
	TSR_ZS_NOTE_READ(p, 4);
#ifdef TSR_ZSTD_EMU
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
#else
	return *(const uint32_t *)p;
#endif
}

/* Word i of the stream's words (0 to last); below 0 or above last, zero. (The sequences'
 * reader, tsr_zs_hrc, whose lanes load words only on a fill: the branches cost less there than
 * tsr_zs_hr_word_flat's selects, whose loads and selects lengthened each fill; H200, 2026-12-04,
 * design-notes "The literals' words without a branch".) */
TSR_ZD_INLINE uint32_t tsr_zs_hr_word(const struct tsr_zs_hr *h, int32_t i)
{
	if (i <= 0 || i >= h->last)
		return i == h->last ? h->wl : i == 0 ? h->w0 : 0u;
	return tsr_zs_word(h->s + (4 * (int64_t)i - h->lead)); /* (aligned, wholly inside the
								  stream) */
}

/* The same word with no branch (the literals' lanes: tsr_zs_hr_window64): a load of a word
 * wholly inside the stream (i clamped to 1 to last - 1; the zero word when there is none) and
 * selects. The four lanes of a block's Huffman streams refill at different symbols, and with a
 * branch a word the warp ran every lane's nested branches; without, the block kernel took 5.6%
 * less time on gpu_zstd_bench's set a and 6.9% on set c, 4.6% more on set e (H200). */
TSR_ZD_INLINE uint32_t tsr_zs_hr_word_flat(const struct tsr_zs_hr *h, int32_t i)
{
	int32_t top = h->last >= 2 ? h->last - 2 : 0;
	int32_t j = i - 1 < 0 ? 0 : i - 1 > top ? top : i - 1;
	uint32_t w = tsr_zs_word(h->mid + 4 * (int64_t)j);
	w = i == h->last ? h->wl : w;
	w = i == 0 ? h->w0 : w;
	return i < 0 || i > h->last ? 0u : w;
}

/* The 32 bits of hi:lo from bit sh (0 to 31) up. */
TSR_ZD_INLINE uint32_t tsr_zs_funnel(uint32_t lo, uint32_t hi, unsigned sh)
{
	return (uint32_t)(((uint64_t)hi << 32 | lo) >> sh);
}

/* The 64 bits of hi:mid:lo from bit sh (0 to 31) up: a window of three consecutive words. */
TSR_ZD_INLINE uint64_t tsr_zs_funnel64(uint32_t lo, uint32_t mid, uint32_t hi, unsigned sh)
{
	return (uint64_t)tsr_zs_funnel(mid, hi, sh) << 32 | tsr_zs_funnel(lo, mid, sh);
}

/* The 64 bits below pos, bit pos - 1 the highest; bits before the stream read as zero. */
TSR_ZD_INLINE uint64_t tsr_zs_hr_window64(const struct tsr_zs_hr *h)
{
	int32_t q = h->pos + 8 * h->lead, i = q >> 5;
	uint32_t w2 = tsr_zs_hr_word_flat(h, i), w1 = tsr_zs_hr_word_flat(h, i - 1),
		 w0 = tsr_zs_hr_word_flat(h, i - 2);
	unsigned sh = (unsigned)q & 31;
	return tsr_zs_funnel64(w0, w1, w2, sh);
}

/*
 * Five words of a stream, w[j] word k - j, for a reader that takes 64-bit windows as it goes
 * down (the sequences: tsr_zs_block_seqs). A window at most 64 bits below the last one lies in
 * words k to k - 4, and each window loads the two below its own, so a window waits on no load
 * of its own: the loads of the last window. Where each window loaded its three words, the
 * sequences kernel spent 44% of its stall samples waiting for them (H200, a batch of 512 frames
 * of 512 KiB; docs/design-notes.md).
 */
struct tsr_zs_hrc {
	int32_t k;
	uint32_t w0, w1, w2, w3, w4;
};

/* The 64 bits below h->pos (as tsr_zs_hr_window64), with c loaded for the windows after. */
TSR_ZD_INLINE uint64_t tsr_zs_hrc_fill(const struct tsr_zs_hr *h, struct tsr_zs_hrc *c)
{
	int32_t q = h->pos + 8 * h->lead, i = q >> 5;
	unsigned sh = (unsigned)q & 31;
	c->k = i;
	c->w0 = tsr_zs_hr_word(h, i);
	c->w1 = tsr_zs_hr_word(h, i - 1);
	c->w2 = tsr_zs_hr_word(h, i - 2);
	c->w3 = tsr_zs_hr_word(h, i - 3);
	c->w4 = tsr_zs_hr_word(h, i - 4);
	return tsr_zs_funnel64(c->w2, c->w1, c->w0, sh);
}

/*
 * A window's reader also asks for the stream's bytes TSR_ZS_PF_WORDS words below its own to be
 * brought into the SM's L1 without waiting for them: a block's sequences are one thread's
 * chain, about four warps an SM on gpu_zstd_bench's set c, so the two words a window loads for
 * the next (tsr_zs_hrc) would come from DRAM a few steps before they are needed, and nothing
 * else runs under that wait. Without it set c read 70.0 GB/s where 77.0 (H100); and 8 words
 * (a sector, some 14 steps ahead) beat 32 (a line, some 57 steps ahead) in two calls, c 77.0 ->
 * 77.4 and 77.1 -> 77.5 (4: 77.7, 16: 77.3, 64: 76.7): with the sequences' tables filling
 * shared memory, the L1 left holds little more than the 82 threads' lines in use, so a line
 * asked for long before is the likelier to be gone (design-notes, "x32, xsum and xwide
 * landed"). Only words wholly inside the stream (1 to last - 1) are asked for.
 */
#ifndef TSR_ZS_PF_WORDS
#define TSR_ZS_PF_WORDS 8
#endif
/* (a test notes the places prefetched: emu_zstd_prefetch.c) */
#ifndef TSR_ZS_NOTE_PREFETCH
#define TSR_ZS_NOTE_PREFETCH(p) ((void)0)
#endif

/* Word j of h's stream asked into the L1, where it lies wholly inside the stream (words 1 to
 * last - 1). */
TSR_ZD_INLINE void tsr_zs_hr_prefetch(const struct tsr_zs_hr *h, int32_t j)
{
	if (j >= 1 && j < h->last) {
		const uint8_t *p = h->s + (4 * (int64_t)j - h->lead);
		TSR_ZS_NOTE_PREFETCH(p);
#ifndef TSR_ZSTD_EMU
		asm volatile("prefetch.L1 [%0];" ::"l"(p));
#else
		(void)p; /* (a test notes it: TSR_ZS_NOTE_PREFETCH) */
#endif
	}
}

/* The word TSR_ZS_PF_WORDS below word i asked for. */
TSR_ZD_INLINE void tsr_zs_hrc_ahead(const struct tsr_zs_hr *h, int32_t i)
{
	tsr_zs_hr_prefetch(h, i - 4 - TSR_ZS_PF_WORDS);
}

/* The 64 bits below h->pos, from c's words where h->pos is at most 64 bits below the last
 * window's of c (else from a fill); c then holds this window's three words and the two below
 * (loaded now, used by the next window). */
TSR_ZD_INLINE uint64_t tsr_zs_hrc_window(const struct tsr_zs_hr *h, struct tsr_zs_hrc *c)
{
	int32_t q = h->pos + 8 * h->lead, i = q >> 5, d = c->k - i;
	if ((uint32_t)d > 2u)
		return tsr_zs_hrc_fill(h, c);
	unsigned sh = (unsigned)q & 31;
	uint32_t a = d == 0 ? c->w0 : d == 1 ? c->w1 : c->w2;
	uint32_t b = d == 0 ? c->w1 : d == 1 ? c->w2 : c->w3;
	uint32_t e = d == 0 ? c->w2 : d == 1 ? c->w3 : c->w4;
	c->k = i;
	c->w0 = a;
	c->w1 = b;
	c->w2 = e;
	if (i >= 5) { /* both words wholly inside the stream (i is at most last): two loads, where
		       * tsr_zs_hr_word's tests for the stream's ends took ten instructions a word
		       * at nearly every other step of a warp */
		const uint8_t *q4 = h->mid + 4 * (int64_t)(i - 5);
		c->w3 = tsr_zs_word(q4 + 4);
		c->w4 = tsr_zs_word(q4);
	} else {
		c->w3 = tsr_zs_hr_word(h, i - 3);
		c->w4 = tsr_zs_hr_word(h, i - 4);
	}
	tsr_zs_hrc_ahead(h, i);
	return tsr_zs_funnel64(e, b, a, sh);
}

/*
 * The sequences' reader by stages (TSR_ZS_SEQ_STAGE, the default; 0: tsr_zs_hrc above). A
 * thread's stream words b to b + TSR_ZS_STAGE_WORDS - 1 are copied into a stage of its own in
 * shared memory (over the table-making counts, dead while the steps run: no room taken from
 * the tables), and each window's three words are read from there. The warp's threads restage
 * together, whenever any one's window leaves its stage (a vote, as the refill's): the refill's
 * vote compiles to a convergence check (BRA.DIV) that waits for every load in flight, so with
 * two words loaded a refill for the next window each step's vote waited for them (set c, H100:
 * 23.7% of the sequences kernel's stall samples on that check); a stage's words are loaded
 * together, one wait a stage for the warp, some forty steps, and the next stage's lines are
 * asked into the L1 meanwhile.
 */
#ifndef TSR_ZS_SEQ_STAGE
#define TSR_ZS_SEQ_STAGE 1
#endif
/* 64 words, the counts' whole 256 bytes: set c (H100, 2026-12-05) 77.3 GB/s without stages,
 * 81.8 at 16 or 32 words, 83.2 at 64; sets a, d and e within their ranges at each. */
#ifndef TSR_ZS_STAGE_WORDS
#define TSR_ZS_STAGE_WORDS 64
#endif
#if TSR_ZS_STAGE_WORDS < 4 || TSR_ZS_STAGE_WORDS > 64
#error "TSR_ZS_STAGE_WORDS: 4 to 64 (the stage lies over the 256-byte counts)"
#endif

struct tsr_zs_hrs {
	int32_t b;   /* the stage's first word */
	uint32_t *st; /* its words, b first */
};

/* The lines of words b - TSR_ZS_STAGE_WORDS to b - 1 (the next stage) asked into the L1. */
TSR_ZD_INLINE void tsr_zs_hrs_ahead(const struct tsr_zs_hr *h, int32_t b)
{
	for (int32_t j = b - TSR_ZS_STAGE_WORDS; j < b; j += 32)
		tsr_zs_hr_prefetch(h, j);
}

/* c's stage set to words i - TSR_ZS_STAGE_WORDS + 1 to i (below 0 or above last: zero): where
 * all lie wholly inside the stream, every load first, then the stores. */
TSR_ZD_INLINE void tsr_zs_hrs_stage(const struct tsr_zs_hr *h, struct tsr_zs_hrs *c, int32_t i)
{
	int32_t b = i - (TSR_ZS_STAGE_WORDS - 1);
	c->b = b;
	if (b >= 1 && i < h->last) {
		const uint8_t *q = h->mid + 4 * (int64_t)(b - 1);
		uint32_t w[TSR_ZS_STAGE_WORDS];
		TSR_ZS_UNROLL
		for (int j = 0; j < TSR_ZS_STAGE_WORDS; j++)
			w[j] = tsr_zs_word(q + 4 * j);
		TSR_ZS_UNROLL
		for (int j = 0; j < TSR_ZS_STAGE_WORDS; j++)
			c->st[j] = w[j];
	} else {
		for (int j = 0; j < TSR_ZS_STAGE_WORDS; j++)
			c->st[j] = tsr_zs_hr_word(h, b + j);
	}
	tsr_zs_hrs_ahead(h, b);
}

/* The 64 bits below pos from words i, i - 1, i - 2 of c's stage (i from pos; the caller
 * knows they are in it). */
TSR_ZD_INLINE uint64_t tsr_zs_hrs_at(const struct tsr_zs_hrs *c, int32_t q)
{
	int32_t d = (q >> 5) - c->b;
	unsigned sh = (unsigned)q & 31;
	uint32_t a = c->st[d], m = c->st[d - 1], e = c->st[d - 2];
	return tsr_zs_funnel64(e, m, a, sh);
}

/* Whether the window below h->pos lies outside c's stage: below it (a stage is made with the
 * window at its top word, and pos only goes down). */
TSR_ZD_INLINE int tsr_zs_hrs_out(const struct tsr_zs_hr *h, const struct tsr_zs_hrs *c)
{
	int32_t i = (h->pos + 8 * h->lead) >> 5;
	return i - 2 < c->b;
}

/* The first window (a stage at the stream's top), st: the thread's stage. */
TSR_ZD_INLINE uint64_t tsr_zs_hrs_fill(const struct tsr_zs_hr *h, struct tsr_zs_hrs *c,
				       uint32_t *st)
{
	int32_t q = h->pos + 8 * h->lead;
	c->st = st;
	tsr_zs_hrs_stage(h, c, q >> 5);
	return tsr_zs_hrs_at(c, q);
}

/* A refill's window (every thread of the warp here: the refill's vote), the warp's threads
 * restaging together first where any one's leaves its stage. */
TSR_ZD_INLINE uint64_t tsr_zs_hrs_window(const struct tsr_zs_hr *h, struct tsr_zs_hrs *c)
{
	int32_t q = h->pos + 8 * h->lead;
	if (TSR_ZS_ANY_ACTIVE(tsr_zs_hrs_out(h, c)))
		tsr_zs_hrs_stage(h, c, q >> 5);
	return tsr_zs_hrs_at(c, q);
}

/* A window one thread alone takes (a step of more than 64 bits): from the stage where it lies
 * in it, else from the stream's words, the stage kept. */
TSR_ZD_INLINE uint64_t tsr_zs_hrs_peek(const struct tsr_zs_hr *h, const struct tsr_zs_hrs *c)
{
	int32_t q = h->pos + 8 * h->lead, i = q >> 5;
	if (!tsr_zs_hrs_out(h, c))
		return tsr_zs_hrs_at(c, q);
	uint32_t a = tsr_zs_hr_word(h, i), m = tsr_zs_hr_word(h, i - 1);
	uint32_t e = tsr_zs_hr_word(h, i - 2);
	unsigned sh = (unsigned)q & 31;
	return tsr_zs_funnel64(e, m, a, sh);
}

/* The sequences' reader: by stages, or by five cached words (tsr_zs_hrc) */
#if TSR_ZS_SEQ_STAGE
typedef struct tsr_zs_hrs tsr_zs_seqrd;
#define TSR_ZS_RD_FILL(h, c, w) tsr_zs_hrs_fill((h), (c), (w)->stage)
#define TSR_ZS_RD_WINDOW(h, c) tsr_zs_hrs_window((h), (c))
#define TSR_ZS_RD_PEEK(h, c) tsr_zs_hrs_peek((h), (c))
#else
typedef struct tsr_zs_hrc tsr_zs_seqrd;
#define TSR_ZS_RD_FILL(h, c, w) tsr_zs_hrc_fill((h), (c))
#define TSR_ZS_RD_WINDOW(h, c) tsr_zs_hrc_window((h), (c))
#define TSR_ZS_RD_PEEK(h, c) tsr_zs_hrc_fill((h), (c))
#endif

/* The top nb (0 to 32) bits of window *v, consumed from it and from h. */
TSR_ZD_INLINE uint32_t tsr_zs_hr_take(struct tsr_zs_hr *h, uint64_t *v, unsigned nb)
{
	if (nb == 0)
		return 0;
	uint32_t r = (uint32_t)(*v >> (64 - nb));
	*v <<= nb;
	h->pos -= (int32_t)nb;
	return r;
}

/* Table t (1 << al 16-bit entries) as 32-bit entries into x (struct tsr_zs_seqx), first entry
 * first: x may lie over t where t starts at least 2 (1 << al) bytes after x (entry u's 4 bytes
 * then cover 16-bit entries read already), or apart from it. The reads go through memcpy
 * because the two forms share their bytes. */
TSR_ZD void tsr_zs_fse_wide(const tsr_zs_fse *t, unsigned al, uint32_t *x)
{
	for (unsigned u = 0; u < 1u << al; u++) {
		tsr_zs_fse h;
		memcpy(&h, (const char *)t + 2 * (size_t)u, sizeof h);
		uint32_t e = h;
		unsigned nb = tsr_zs_fse_bits(e, al);
		x[u] = tsr_zs_fse_base(e, al, nb) | nb << 16 | (e >> 10) << 24;
	}
}

/* The state after entry e of a table of 1 << al entries, its bits taken from window *v of h
 * (tsr_zs_hr_take), which *left counts down. */
TSR_ZD_INLINE uint32_t tsr_zs_fse_next_win(uint32_t e, unsigned al, struct tsr_zs_hr *h,
					   uint64_t *v, unsigned *left)
{
	unsigned nb = tsr_zs_fse_bits(e, al);
	*left -= nb;
	return tsr_zs_fse_base(e, al, nb) + tsr_zs_hr_take(h, v, nb);
}

/* The n (0 to 32) bits of v from bit o (0 to 64) down from its top, o + n <= 64; 0 when n is
 * 0. */
TSR_ZD_INLINE uint32_t tsr_zs_field(uint64_t v, unsigned o, unsigned n)
{
#ifdef TSR_ZSTD_EMU
	return n == 0 ? 0u : (uint32_t)((v << o) >> (64 - n));
#else
	/* the high word of v << o holds the field (n <= 32), so a 32-bit shift takes it out:
	 * one funnel shift and one shift, where the 64-bit pair took three (PTX shifts by 64 or
	 * 32 give 0: no test for n == 0 or o == 64) */
	uint32_t r;
	asm("{ .reg .b64 t; .reg .b32 lo; shl.b64 t, %1, %2; mov.b64 {lo, %0}, t; }"
	    : "=r"(r) : "l"(v), "r"(o));
	asm("shr.b32 %0, %0, %1;" : "+r"(r) : "r"(32 - n));
	return r;
#endif
}

/* v << n, n 0 to 64. */
TSR_ZD_INLINE uint64_t tsr_zs_shl(uint64_t v, unsigned n)
{
#ifdef TSR_ZSTD_EMU
	return n >= 64 ? 0 : v << n;
#else
	uint64_t r;
	asm("shl.b64 %0, %1, %2;" : "=l"(r) : "l"(v), "r"(n));
	return r;
#endif
}

/* ---- FSE tables ------------------------------------------------------------------------ */

/* Reads an FSE table description (RFC 8878 4.1.1) from s[0..n): w->norm[0..*nsym), *al;
 * *used: its bytes. 0, or -1 when corrupt. */
TSR_ZD int tsr_zs_ncount(struct tsr_zs_norm *w, const uint8_t *s, uint64_t n, unsigned maxsym,
			 unsigned maxlog, unsigned *al_ret, unsigned *nsym, uint64_t *used)
{
	if (n == 0)
		return -1;
	unsigned al = tsr_zs_fwd(s, n, 0, 4) + 5;
	if (al > maxlog)
		return -1;
	uint64_t bp = 4;
	int remaining = (1 << al) + 1, threshold = 1 << al;
	unsigned nb = al + 1, sym = 0;
	while (remaining > 1) {
		if (sym > maxsym)
			return -1;
		int max = 2 * threshold - 1 - remaining;
		int v = (int)tsr_zs_fwd(s, n, bp, nb - 1);
		if (v < max) {
			bp += nb - 1;
		} else {
			v = (int)tsr_zs_fwd(s, n, bp, nb);
			if (v >= threshold)
				v -= max;
			bp += nb;
		}
		int p = v - 1;
		remaining -= p < 0 ? -p : p;
		w->norm[sym++] = (int16_t)p;
		if (p == 0) {
			for (;;) {
				unsigned r = tsr_zs_fwd(s, n, bp, 2);
				bp += 2;
				for (unsigned k = 0; k < r; k++) {
					if (sym > maxsym)
						return -1;
					w->norm[sym++] = 0;
				}
				if (r != 3)
					break;
				if (bp > 8 * n)
					return -1;
			}
		}
		while (remaining < threshold && threshold > 1) {
			nb--;
			threshold >>= 1;
		}
		if (bp > 8 * n)
			return -1;
	}
	if (remaining != 1)
		return -1;
	*used = (bp + 7) >> 3;
	*al_ret = al;
	*nsym = sym;
	return 0;
}

/* Decoding table t (1 << al entries) of w->norm[0..nsym). 0, or -1 when the spread fails. */
TSR_ZD int tsr_zs_fse_build(struct tsr_zs_norm *w, tsr_zs_fse *t, unsigned nsym, unsigned al)
{
	unsigned size = 1u << al, high = size - 1, mask = size - 1;
	for (unsigned s = 0; s < nsym; s++) {
		if (w->norm[s] == -1) {
			t[high--] = (tsr_zs_fse)(s << 10);
			w->next[s] = 1;
		} else {
			w->next[s] = (uint16_t)w->norm[s];
		}
	}
	unsigned step = (size >> 1) + (size >> 3) + 3, pos = 0;
	for (unsigned s = 0; s < nsym; s++)
		for (int i = 0; i < w->norm[s]; i++) {
			t[pos] = (tsr_zs_fse)(s << 10);
			do
				pos = (pos + step) & mask;
			while (pos > high);
		}
	if (pos != 0)
		return -1;
	for (unsigned u = 0; u < size; u++)
		t[u] = (tsr_zs_fse)(t[u] | w->next[t[u] >> 10]++);
	return 0;
}

/* The predefined distributions (RFC 8878 3.1.1.3.2.2). */
TSR_ZTABLE int8_t tsr_zs_pre_ll[36] = {4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 2, 2,
				       2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1, -1, -1, -1, -1};
TSR_ZTABLE int8_t tsr_zs_pre_ml[53] = {1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1,
				       1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
				       1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1};
TSR_ZTABLE int8_t tsr_zs_pre_of[29] = {1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1,
				       1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1};
/* Literal length codes 16..35 and match length codes 32..52: baselines and extra bits. */
TSR_ZTABLE uint32_t tsr_zs_ll_b[20] = {16,   18,   20,   22,   24,    28,    32,
				       40,   48,   64,   128,  256,   512,   1024,
				       2048, 4096, 8192, 16384, 32768, 65536};
TSR_ZTABLE uint8_t tsr_zs_ll_n[20] = {1, 1, 1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
TSR_ZTABLE uint32_t tsr_zs_ml_b[21] = {35,   37,   39,   41,   43,    47,    51,
				       59,   67,   83,   99,   131,   259,   515,
				       1027, 2051, 4099, 8195, 16387, 32771, 65539};
TSR_ZTABLE uint8_t tsr_zs_ml_n[21] = {1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
TSR_ZTABLE uint32_t tsr_zs_maxsym[3] = {35, 31, 52};
TSR_ZTABLE uint32_t tsr_zs_maxlog[3] = {9, 8, 9};

/* A predefined table (k: 0 LL, 1 OF, 2 ML). */
TSR_ZD int tsr_zs_predefined(struct tsr_zs_norm *w, int k, tsr_zs_fse *t, unsigned *al)
{
	const int8_t *d = k == 0 ? tsr_zs_pre_ll : k == 1 ? tsr_zs_pre_of : tsr_zs_pre_ml;
	unsigned nsym = k == 0 ? 36 : k == 1 ? 29 : 53;
	for (unsigned s = 0; s < nsym; s++)
		w->norm[s] = d[s];
	*al = k == 1 ? 5 : 6;
	return tsr_zs_fse_build(w, t, nsym, *al);
}

/* ---- phase a: frame and block headers ------------------------------------------------ */

/* Literals section header at p (avail bytes): type, header bytes, regenerated and section
 * bytes, streams. 0 or -1. */
TSR_ZD int tsr_zs_lit_header(const uint8_t *p, uint64_t avail, struct tsr_zs_block *b)
{
	if (avail < 1)
		return -1;
	unsigned type = p[0] & 3, sf = p[0] >> 2 & 3;
	b->lit_type = (uint8_t)type;
	b->lit_streams = 1;
	if (type <= 1) {
		unsigned hdr = (sf & 1) == 0 ? 1 : sf == 1 ? 2 : 3;
		if (avail < hdr)
			return -1;
		uint32_t v = tsr_zs_le(p, hdr);
		b->lit_hdr = hdr;
		b->nlit = hdr == 1 ? v >> 3 : v >> 4;
		b->lit_csize = type == 0 ? b->nlit : 1;
	} else {
		unsigned hdr = sf <= 1 ? 3 : sf == 2 ? 4 : 5, bits = sf <= 1 ? 10 : sf == 2 ? 14 : 18;
		if (avail < hdr)
			return -1;
		uint64_t v = 0;
		for (unsigned k = 0; k < hdr; k++)
			v |= (uint64_t)p[k] << (8 * k);
		b->lit_hdr = hdr;
		b->nlit = (uint32_t)(v >> 4 & ((1u << bits) - 1));
		b->lit_csize = (uint32_t)(v >> (4 + bits) & ((1u << bits) - 1));
		b->lit_streams = sf == 0 ? 1 : 4;
		if (b->lit_streams == 4 && b->nlit < 6)
			return -1;
	}
	return 0;
}

/* Sequences header at p (avail bytes): count, modes byte (or -1 when there are none), bytes. */
TSR_ZD int tsr_zs_seq_header(const uint8_t *p, uint64_t avail, uint32_t *nseq, int *modes,
			     unsigned *hdr)
{
	if (avail < 1)
		return -1;
	unsigned h;
	if (p[0] < 128) {
		*nseq = p[0];
		h = 1;
	} else if (p[0] < 255) {
		if (avail < 2)
			return -1;
		*nseq = ((uint32_t)(p[0] - 128) << 8) + p[1];
		h = 2;
	} else {
		if (avail < 3)
			return -1;
		*nseq = p[1] + ((uint32_t)p[2] << 8) + 0x7f00u;
		h = 3;
	}
	*modes = -1;
	if (*nseq == 0) {
		/* libzstd: a block without sequences ends after this one byte */
		if (h != 1 || avail != 1)
			return -1;
		*hdr = 1;
		return 0;
	}
	if (avail < h + 1 || (p[h] & 3))
		return -1;
	*modes = p[h];
	*hdr = h + 1;
	return 0;
}

/*
 * Phase a: walks stream in[0..n). Frames and blocks are stored while their index is below
 * max_frames / max_blocks (0: count only); cnt gets the totals. Each compressed block's
 * lit_at / seq_at is its place in the stream's literal / sequence scratch (cnt->nlit and
 * cnt->nseq in all). Returns a status; on failure the counts are those so far.
 */
TSR_ZD int tsr_zs_scan(const uint8_t *in, uint64_t n, struct tsr_zs_frame *frames,
		       uint32_t max_frames, struct tsr_zs_block *blocks, uint32_t max_blocks,
		       struct tsr_zs_count *cnt)
{
	cnt->nframes = cnt->nblocks = 0;
	cnt->nlit = cnt->nseq = 0;
	if (!in || n == 0)
		return TSR_CUDA_ZSTD_E_TRUNCATED;
	uint64_t at = 0;
	/* the stream's output before the next block while every block so far has its size in its
	 * headers (raw, RLE, compressed with no sequences: its literals), for out_known */
	uint64_t known = 0;
	int sized = 1;
	while (at < n) {
		if (n - at < 4)
			return TSR_CUDA_ZSTD_E_TRUNCATED;
		uint32_t magic = tsr_zs_le(in + at, 4);
		if ((magic & 0xfffffff0u) == 0x184d2a50u) {
			if (n - at < 8)
				return TSR_CUDA_ZSTD_E_TRUNCATED;
			uint64_t sz = tsr_zs_le(in + at + 4, 4);
			if (sz > n - at - 8)
				return TSR_CUDA_ZSTD_E_TRUNCATED;
			at += 8 + sz;
			continue;
		}
		if (magic != 0xfd2fb528u)
			return TSR_CUDA_ZSTD_E_MAGIC;
		at += 4;
		if (at >= n)
			return TSR_CUDA_ZSTD_E_TRUNCATED;
		unsigned fhd = in[at++];
		unsigned fcs_flag = fhd >> 6, single = fhd >> 5 & 1, csum = fhd >> 2 & 1;
		unsigned did_bytes = (fhd & 3) == 3 ? 4 : (fhd & 3);
		unsigned fcs_bytes = fcs_flag == 0 ? single : 1u << fcs_flag;
		if (fhd & 8)
			return TSR_CUDA_ZSTD_E_HEADER;
		if (n - at < (uint64_t)!single + did_bytes + fcs_bytes)
			return TSR_CUDA_ZSTD_E_TRUNCATED;
		struct tsr_zs_frame f;
		f.window = 0;
		if (!single) {
			unsigned wd = in[at++], wlog = (wd >> 3) + 10;
			if (wlog > 31)
				return TSR_CUDA_ZSTD_E_HEADER;
			f.window = (1ull << wlog) + ((1ull << wlog) >> 3) * (wd & 7);
		}
		uint32_t did = did_bytes ? tsr_zs_le(in + at, did_bytes) : 0;
		at += did_bytes;
		if (did != 0)
			return TSR_CUDA_ZSTD_E_DICTIONARY;
		f.has_size = fcs_bytes != 0;
		f.content_size = 0;
		if (fcs_bytes == 8)
			f.content_size = tsr_zs_le(in + at, 4) |
					 (uint64_t)tsr_zs_le(in + at + 4, 4) << 32;
		else if (fcs_bytes)
			f.content_size = tsr_zs_le(in + at, fcs_bytes) + (fcs_bytes == 2 ? 256u : 0u);
		at += fcs_bytes;
		if (single)
			f.window = f.content_size;
		uint64_t bmax = f.window < TSR_ZS_BLOCK_MAX ? f.window : TSR_ZS_BLOCK_MAX;
		f.first_block = cnt->nblocks;
		f.nblocks = 0;
		f.has_checksum = (uint8_t)csum;
		f.checksum = 0;
		f.out_at = 0;
		int32_t huf = -1, fse[3] = {-1, -1, -1};
		for (int last = 0; !last;) {
			if (n - at < 3)
				return TSR_CUDA_ZSTD_E_TRUNCATED;
			uint32_t bh = tsr_zs_le(in + at, 3);
			at += 3;
			struct tsr_zs_block b;
			last = bh & 1;
			b.type = (uint8_t)(bh >> 1 & 3);
			uint32_t size = bh >> 3;
			if (b.type == 3)
				return TSR_CUDA_ZSTD_E_BLOCK;
			b.in_at = at;
			b.in_size = b.type == 1 ? 1 : size;
			b.out_size = b.type == 2 ? 0 : size;
			b.block_max = (uint32_t)bmax;
			b.nlit = b.nseq = b.lit_hdr = b.lit_csize = 0;
			b.huf_from = -1;
			b.fse_from[0] = b.fse_from[1] = b.fse_from[2] = -1;
			b.status = TSR_CUDA_ZSTD_OK;
			b.lit_type = 0;
			b.lit_streams = 1;
			b.lit_out = 0;
			b.lit_at = cnt->nlit;
			b.seq_at = cnt->nseq;
			if (b.in_size > n - at)
				return TSR_CUDA_ZSTD_E_TRUNCATED;
			if (size > bmax || (b.type == 2 && (size >= TSR_ZS_BLOCK_MAX || size < 3)))
				return TSR_CUDA_ZSTD_E_BLOCK;
			if (b.type == 2) {
				uint32_t self = cnt->nblocks;
				if (tsr_zs_lit_header(in + at, size, &b) || b.nlit > bmax ||
				    b.lit_csize > size - b.lit_hdr)
					return TSR_CUDA_ZSTD_E_LITERALS;
				if (b.lit_type >= 2) {
					if (b.lit_type == 2)
						huf = (int32_t)self;
					else if (huf < 0)
						return TSR_CUDA_ZSTD_E_LITERALS;
					b.huf_from = huf;
				}
				uint64_t sat = b.lit_hdr + (uint64_t)b.lit_csize;
				int modes;
				unsigned sh;
				if (tsr_zs_seq_header(in + at + sat, size - sat, &b.nseq, &modes, &sh) ||
				    (uint64_t)b.nseq * 3 > bmax)
					return TSR_CUDA_ZSTD_E_SEQUENCES;
				for (int k = 0; k < 3 && modes >= 0; k++) {
					unsigned m = (unsigned)modes >> (6 - 2 * k) & 3;
					if (m != 3)
						fse[k] = (int32_t)self;
					else if (fse[k] < 0)
						return TSR_CUDA_ZSTD_E_SEQUENCES;
					b.fse_from[k] = fse[k];
				}
				cnt->nlit += tsr_zs_lits_in_stream(&b) ? 0 : b.nlit;
				cnt->nseq += b.nseq;
			}
			b.out_known = sized && known < UINT32_MAX ? (uint32_t)(known + 1) : 0u;
			if (b.type != 2)
				known += size;
			else if (b.nseq == 0)
				known += b.nlit;
			else
				sized = 0;
			if (cnt->nblocks < max_blocks)
				blocks[cnt->nblocks] = b;
			cnt->nblocks++;
			f.nblocks++;
			at += b.in_size;
		}
		if (csum) {
			if (n - at < 4)
				return TSR_CUDA_ZSTD_E_TRUNCATED;
			f.checksum = tsr_zs_le(in + at, 4);
			at += 4;
		}
		if (cnt->nframes < max_frames)
			frames[cnt->nframes] = f;
		cnt->nframes++;
	}
	return TSR_CUDA_ZSTD_OK;
}

/* Four words to the 16-byte aligned dst. */
TSR_ZD_INLINE void tsr_zs_put16(uint8_t *dst, uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
#ifdef TSR_ZSTD_EMU
	uint32_t v[4] = {a, b, c, d};
	memcpy(dst, v, 16);
#else
	*(uint4 *)dst = make_uint4(a, b, c, d);
#endif
}

/* The shortest copy made 16 bytes a lane; shorter ones go a byte a lane, a few rounds of the
 * warp (with every copy wide, the in-turn matches' too, gpu_zstd_bench's sets c and e lost 2%
 * and 4% on the H200; with this bound, nothing). At least 19 + 20, so that it has a piece. */
#define TSR_ZS_WIDE_COPY 256u

/*
 * Lanes copy n bytes (src and dst do not overlap), 16 bytes a lane at a time: a head of 4 to 19
 * bytes brings dst to a 16-byte boundary, then each lane stores 16 aligned bytes made of five
 * aligned source words (shifted by the source's misalignment), then a tail of bytes. The words
 * read lie wholly inside src[0..n) (the head's 4 bytes keep the first one from reaching below
 * src, and a piece leaves 4 bytes after it for the fifth word), so no byte outside the source
 * is read. A byte a lane, these copies (a frame's literal-only blocks, raw blocks, long literal
 * runs) held gpu_zstd_bench's set a (float frames, literals only) to 81 GB/s on the H200, 97
 * this way (design-notes, "Wide copies in the exec kernel"). lane, nlanes: this lane's place
 * among those sharing the copy.
 */
TSR_ZD void tsr_zs_copy_lanes(uint8_t *dst, const uint8_t *src, uint32_t n, uint32_t lane,
			      uint32_t nlanes)
{
	uint32_t h = ((16u - (((uint32_t)(uintptr_t)dst + 4u) & 15u)) & 15u) + 4u, np = 0;
	if (n >= TSR_ZS_WIDE_COPY)
		np = (n - h - 4) / 16;
	uint32_t head = np ? h : n, tail = h + 16 * np;
	for (uint32_t i = lane; i < head; i += nlanes)
		dst[i] = src[i];
	for (uint32_t k = lane; k < np; k += nlanes) {
		uint32_t p = h + 16 * k;
		const uint8_t *s = src + p;
		unsigned r = (unsigned)((uintptr_t)s & 3u), sh = 8u * r;
		const uint8_t *a = s - r;
		uint32_t w0 = tsr_zs_word(a), w1 = tsr_zs_word(a + 4), w2 = tsr_zs_word(a + 8),
			 w3 = tsr_zs_word(a + 12), w4 = tsr_zs_word(a + 16);
		tsr_zs_put16(dst + p, tsr_zs_funnel(w0, w1, sh), tsr_zs_funnel(w1, w2, sh),
			     tsr_zs_funnel(w2, w3, sh), tsr_zs_funnel(w3, w4, sh));
	}
	for (uint32_t i = (np ? tail : n) + lane; i < n; i += nlanes)
		dst[i] = src[i];
}

/* The copy by the warp's lanes (tsr_zs_copy_lanes). */
TSR_ZD_INLINE void tsr_zs_copy(uint8_t *dst, const uint8_t *src, uint32_t n)
{
	tsr_zs_copy_lanes(dst, src, n, TSR_ZS_LANE, TSR_ZS_NLANES);
}

/* ---- phase b: one compressed block's sequences (its literals: zstd_lits_core.h) --------- */

/* The FSE table of kind k (0 LL, 1 OF, 2 ML) as block f's sequences header describes it. */
TSR_ZD int tsr_zs_fse_from(struct tsr_zs_seqw *w, const uint8_t *in,
			   const struct tsr_zs_block *f, int k, uint64_t *end)
{
	const uint8_t *p = in + f->in_at;
	uint64_t at = f->lit_hdr + (uint64_t)f->lit_csize, size = f->in_size;
	uint32_t nseq;
	int modes;
	unsigned sh;
	if (tsr_zs_seq_header(p + at, size - at, &nseq, &modes, &sh) || modes < 0)
		return -1;
	at += sh;
	for (int j = 0; j < 3; j++) {
		unsigned m = (unsigned)modes >> (6 - 2 * j) & 3, al = 0;
		tsr_zs_fse *t = j == 0 ? w->ll : j == 1 ? w->of : w->ml;
		int build = k == j || k < 0;
		if (m == 1) {
			if (at >= size || p[at] > tsr_zs_maxsym[j])
				return -1;
			if (build) /* one state: x 1, no bits, base 0 */
				t[0] = (tsr_zs_fse)(1u | (unsigned)p[at] << 10);
			at++;
		} else if (m == 2) {
			unsigned nsym;
			uint64_t used;
			if (tsr_zs_ncount(&w->nm, p + at, size - at, tsr_zs_maxsym[j], tsr_zs_maxlog[j], &al, &nsym,
					  &used))
				return -1;
			if (build && tsr_zs_fse_build(&w->nm, t, nsym, al))
				return -1;
			at += used;
		} else if (m == 0 && build) {
			if (tsr_zs_predefined(&w->nm, j, t, &al))
				return -1;
		}
		if (build && m != 3) {
			if (j == 0)
				w->ll_al = al;
			else if (j == 1)
				w->of_al = al;
			else
				w->ml_al = al;
		}
	}
	*end = at;
	return 0;
}

TSR_ZD uint32_t tsr_zs_ll_base(unsigned c, unsigned *bits)
{
	*bits = c < 16 ? 0 : tsr_zs_ll_n[c - 16];
	return c < 16 ? c : tsr_zs_ll_b[c - 16];
}

TSR_ZD uint32_t tsr_zs_ml_base(unsigned c, unsigned *bits)
{
	*bits = c < 32 ? 0 : tsr_zs_ml_n[c - 32];
	return c < 32 ? c + 3 : tsr_zs_ml_b[c - 32];
}

/* Entry e's symbol, the bits its next state reads, and that state's base, from a 16-bit entry
 * (x | symbol << 10: tsr_zs_fse) or a 32-bit one (wide: tsr_zs_seqx). */
TSR_ZD_INLINE unsigned tsr_zs_ent_sym(uint32_t e, int wide)
{
	return wide ? e >> 24 : e >> 10;
}

TSR_ZD_INLINE unsigned tsr_zs_ent_bits(uint32_t e, unsigned al, int wide)
{
	return wide ? e >> 16 & 255 : tsr_zs_fse_bits(e, al);
}

TSR_ZD_INLINE uint32_t tsr_zs_ent_base(uint32_t e, unsigned al, unsigned nb, int wide)
{
	return wide ? e & 0xffffu : tsr_zs_fse_base(e, al, nb);
}

/* A sequences thread's state between steps: the window v and its bits not yet taken, the
 * three states, and the sums the block's checks use. */
struct tsr_zs_sst {
	uint64_t v, litsum, out;
	unsigned avail, sl, so, sm;
};

/* One sequence's step: its record into *sq and, but for the last (last: a constant at each
 * call, so each gets its own copy), the three states' updates. No test but the refill's: every
 * symbol a table holds is one its kind has (tsr_zs_fse_from checks an RLE symbol and the
 * counts' symbols against tsr_zs_maxsym), a state is below its table's size by the table's
 * making, and bits read past the stream's start read as zero (pos goes negative), which fails
 * the block at the end (tsr_zs_seqs_steps), within the same nseq steps as an early exit did. */
TSR_ZD_INLINE void tsr_zs_seq_step(const struct tsr_zs_seqw *w, const struct tsr_zs_seqx *wx,
				   const int wide, const int last, struct tsr_zs_hr *br,
				   tsr_zs_seqrd *bc, struct tsr_zs_sst *t, struct tsr_zs_seq *sq)
{
	const unsigned la = w->ll_al, oa = w->of_al, ma = w->ml_al;
	uint32_t el = wide ? wx->ll[t->sl] : w->ll[t->sl], eo = wide ? wx->of[t->so] : w->of[t->so],
		 em = wide ? wx->ml[t->sm] : w->ml[t->sm];
	unsigned lc = tsr_zs_ent_sym(el, wide), oc = tsr_zs_ent_sym(eo, wide),
		 mc = tsr_zs_ent_sym(em, wide), mb, lb;
	uint32_t ml = tsr_zs_ml_base(mc, &mb), ll = tsr_zs_ll_base(lc, &lb);
	/* the state updates' sizes (none after the last sequence) */
	unsigned nl = last ? 0 : tsr_zs_ent_bits(el, la, wide),
		 nm = last ? 0 : tsr_zs_ent_bits(em, ma, wide),
		 no = last ? 0 : tsr_zs_ent_bits(eo, oa, wide);
	unsigned x = oc + mb + lb, y = nl + nm + no;
	/* a new window when this thread's bits run out, or when another's of the warp do:
	 * a thread refills at about a third of its steps (sets c, d and e of gpu_zstd_bench:
	 * 15 to 20 bits a sequence), so with each deciding alone the warp ran the refill at
	 * nearly every step; together, each refill leaves all with 64 bits (pos is at most
	 * 64 bits below the last window) */
	if (TSR_ZS_ANY_ACTIVE(x + y > t->avail)) {
		t->v = TSR_ZS_RD_WINDOW(br, bc);
		t->avail = 64;
	}
	/* the updates from window u, from its bit at */
	unsigned split = x + y > 64, at = split ? 0 : x;
	uint64_t v = t->v, u = v;
	if (split) { /* (65 to 89 bits: u is the window after the extra bits) */
		TSR_ZS_NOTE_SPLIT();
		br->pos -= (int32_t)x;
		u = TSR_ZS_RD_PEEK(br, bc); /* (the next window is at most 64 below) */
		br->pos += (int32_t)x;
	}
	ml += tsr_zs_field(v, oc, mb);
	ll += tsr_zs_field(v, oc + mb, lb);
	struct tsr_zs_seq rec = {ll, ml, (1u << oc) + tsr_zs_field(v, 0, oc), 0};
	*sq = rec;
	t->litsum += ll;
	t->out += ml;
	br->pos -= (int32_t)(x + y);
	if (last)
		return;
	t->sl = tsr_zs_ent_base(el, la, nl, wide) + tsr_zs_field(u, at, nl);
	t->sm = tsr_zs_ent_base(em, ma, nm, wide) + tsr_zs_field(u, at + nl, nm);
	t->so = tsr_zs_ent_base(eo, oa, no, wide) + tsr_zs_field(u, at + nl + nm, no);
	t->v = tsr_zs_shl(u, at + y);
	t->avail = split ? 64 - y : t->avail - x - y;
}

/* Block b's sequences (p: the block's bytes, its bit stream from end) by w's tables, or by wx's
 * when wide (its caller passes a constant, so each gets its own copy of the loop). A status. */
TSR_ZD_INLINE int tsr_zs_seqs_steps(struct tsr_zs_seqw *w, const struct tsr_zs_seqx *wx,
				    const int wide, struct tsr_zs_block *b, const uint8_t *p,
				    uint64_t end, struct tsr_zs_seq *seqs)
{
	/* bits from a 64-bit window while it holds them (avail: its bits not yet taken), a new
	 * window when it does not. A sequence takes its extra bits (offset, match length, literal
	 * length: 63 at most) and its three state updates (26 at most) in one step: the six
	 * fields' places in the window are sums of their sizes, so each is taken on its own rather
	 * than after the one before (the step is one serial chain through the states and the bit
	 * position, and its length is the time of a lane) */
	struct tsr_zs_hr br;
	tsr_zs_seqrd bc;
	if (tsr_zs_hr_init(&br, p + end, b->in_size - end))
		return TSR_CUDA_ZSTD_E_SEQUENCES;
	struct tsr_zs_sst t;
	t.v = TSR_ZS_RD_FILL(&br, &bc, w);
	t.avail = 64 - w->ll_al - w->of_al - w->ml_al;
	t.sl = tsr_zs_hr_take(&br, &t.v, w->ll_al);
	t.so = tsr_zs_hr_take(&br, &t.v, w->of_al);
	t.sm = tsr_zs_hr_take(&br, &t.v, w->ml_al);
	t.litsum = 0;
	t.out = b->nlit;
	const uint32_t nseq = b->nseq; /* (1 or more: tsr_zs_block_seqs) */
	struct tsr_zs_seq *sq = seqs;
	for (uint32_t i = 1; i < nseq; i++, sq++)
		tsr_zs_seq_step(w, wx, wide, 0, &br, &bc, &t, sq);
	tsr_zs_seq_step(w, wx, wide, 1, &br, &bc, &t, sq);
	uint64_t litsum = t.litsum, out = t.out;
	if (br.pos != 0)
		return TSR_CUDA_ZSTD_E_SEQUENCES;
	if (litsum > b->nlit)
		return TSR_CUDA_ZSTD_E_SEQUENCES;
	if (out > b->block_max)
		return TSR_CUDA_ZSTD_E_BLOCK;
	b->out_size = (uint32_t)out;
	return TSR_CUDA_ZSTD_OK;
}

/* A block's status from its literals' and its sequences' (decoded side by side, or the
 * sequences after the literals): the literals' failure first, as the CPU decoder checks them. */
TSR_ZD_INLINE int tsr_zs_block_status(int lits, int seqs)
{
	return lits != TSR_CUDA_ZSTD_OK ? lits : seqs;
}

/*
 * Phase b, sequences: decodes compressed block bi's sequences into seqs (nseq records) and sets
 * its out_size, once its literals are decoded; one thread (w: its tables, in shared memory on
 * the GPU; wx, where not NULL: room for them as 32-bit entries, which the steps then read). A
 * status.
 */
TSR_ZD int tsr_zs_block_seqs(struct tsr_zs_seqw *w, struct tsr_zs_seqx *wx, const uint8_t *in,
			     struct tsr_zs_block *blocks, uint32_t bi, struct tsr_zs_seq *seqs)
{
	struct tsr_zs_block *b = &blocks[bi];
	const uint8_t *p = in + b->in_at;
	/* sequences */
	uint64_t out = b->nlit;
	if (b->nseq == 0) {
		b->out_size = (uint32_t)out;
		return out > b->block_max ? TSR_CUDA_ZSTD_E_BLOCK : TSR_CUDA_ZSTD_OK;
	}
	uint64_t end = 0, e2;
	if (tsr_zs_fse_from(w, in, b, -1, &end)) /* this block's own tables, and where its
						     bit stream starts */
		return TSR_CUDA_ZSTD_E_SEQUENCES;
	/* tables in repeat mode: rebuilt from the header of the block that described them */
	for (int k = 0; k < 3; k++)
		if (b->fse_from[k] != (int32_t)bi &&
		    tsr_zs_fse_from(w, in, &blocks[b->fse_from[k]], k, &e2))
			return TSR_CUDA_ZSTD_E_SEQUENCES;
	if (wx) {
		/* (over the 16-bit tables, tsr_zs_seqx_over, from their byte 0: 16-bit ml at 0,
		 * ll at 1,024, of at 2,048; 32-bit ll at 0, ml at 2,048, of at 4,096. So of
		 * widens apart from every 16-bit table, ml over of's 16-bit one (read), and ll
		 * over ml's (read) and its own, which starts 1,024 bytes above it: entry u's 4
		 * bytes reach 16-bit entry 2u - 511 at most: entry u, read first, or below) */
		tsr_zs_fse_wide(w->of, w->of_al, wx->of);
		tsr_zs_fse_wide(w->ml, w->ml_al, wx->ml);
		tsr_zs_fse_wide(w->ll, w->ll_al, wx->ll);
		return tsr_zs_seqs_steps(w, wx, 1, b, p, end, seqs);
	}
	return tsr_zs_seqs_steps(w, wx, 0, b, p, end, seqs);
}

#endif /* TSR_ZSTD_CORE_H */
