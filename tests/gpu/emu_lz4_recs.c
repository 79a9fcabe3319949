/* emu_lz4_recs.c - LZ4 through records (lz4_recs_core.h) executed by zstd's phase c (zstd_exec_core.h, TSR_ZS_REC_LSRC), on the CPU, on emu_lz4.c's blocks: liblz4's bytes, and on every stream the sequential decoder's (lz4_core.h) status, size and bytes. */
#define TSR_LZ_EMU 1
#define TSR_ZSTD_EMU 1
#define TSR_ZS_REC_LSRC 1
#include "lz4_recs_core.h"
#include "zstd_exec_core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/*
 * Each stream emu_lz4.c decodes goes through tsr_lz4_stream as well, into a buffer poisoned
 * as the one under test; the two must agree on the status, the size and every byte of the
 * output and its guard, corrupt streams included (their bytes up to the failure). The parse
 * must never run out of records (tsr_l4r_bound), and phase c must pass every record (the
 * parse made all of its checks). emu_lz4_recs_split.c runs the same with records of at most 7
 * bytes of literals or match.
 */

static size_t recs_streams, recs_records, recs_failed, recs_splits;

static int recs_stream(struct tsr_lz_smem *m, const uint8_t *in, uint64_t n, uint8_t *out,
		       uint64_t cap, int variant, uint64_t *got)
{
	/* (the caller poisoned out[0, cap + 64) and checks its guard) */
	uint8_t *ref = (uint8_t *)check_malloc(cap + 64);
	memcpy(ref, out, cap + 64);
	uint64_t ref_got = 0;
	int ref_st = tsr_lz4_stream(m, in, n, ref, cap, variant, &ref_got);

	uint64_t bound = tsr_l4r_bound(n);
	struct tsr_l4r_sink k = {(struct tsr_zs_seq *)check_malloc(bound * sizeof *k.rec), bound,
				 0, 0, 0};
	int st = tsr_l4r_stream(m, in, n, out, cap, variant, &k, got);
	CHECK(!k.full);
	if (k.nrec) {
		struct tsr_zs_frame f;
		struct tsr_zs_block b;
		static struct tsr_zs_xs x;
		memset(&f, 0, sizeof f);
		memset(&b, 0, sizeof b);
		f.window = 0xffffffffu;
		f.nblocks = 1;
		b.type = 2;
		b.nseq = k.nrec;
		b.nlit = k.nlit;
		b.out_size = (uint32_t)*got;
		int xst = tsr_zs_frame_exec(&x, in, &f, &b, in, k.rec, out);
		if (xst != TSR_CUDA_ZSTD_OK) {
			fprintf(stderr, "phase c refused a record of a %llu-byte stream: %d\n",
				(unsigned long long)n, xst);
			check_failures++;
		}
		for (uint32_t i = 0; i < k.nrec; i++)
			recs_splits += k.rec[i].ll == TSR_L4R_SPLIT || k.rec[i].ml == TSR_L4R_SPLIT;
	}
	if (st != ref_st || *got != ref_got || memcmp(out, ref, cap + 64)) {
		if (check_failures < 20)
			fprintf(stderr, "records (%u) of a %llu-byte stream, cap %llu: status %d, "
				"%llu bytes; the sequential decoder: %d, %llu bytes%s\n", k.nrec,
				(unsigned long long)n, (unsigned long long)cap, st,
				(unsigned long long)*got, ref_st, (unsigned long long)ref_got,
				st == ref_st && *got == ref_got ? " (bytes differ)" : "");
		check_failures++;
	}
	recs_streams++;
	recs_records += k.nrec;
	recs_failed += st != TSR_CUDA_LZ_OK;
	free(k.rec);
	free(ref);
	return st;
}

static void recs_done(void)
{
	printf("lz4 records: %zu streams (%zu failing) as the sequential decoder, %zu records "
	       "(split at %u bytes: %zu at the split)\n", recs_streams, recs_failed, recs_records,
	       (unsigned)TSR_L4R_SPLIT, recs_splits);
	CHECK(recs_streams > 5000 && recs_failed > 1000);
	CHECK(TSR_L4R_SPLIT > 64 || recs_splits > 10000);
}

#define EMU_LZ4_STREAM recs_stream
#define EMU_LZ4_DONE recs_done
#include "emu_lz4.c"
