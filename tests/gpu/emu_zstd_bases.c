/* emu_zstd_bases.c - the zstd launcher's bases kernel (tsr_zs_bases_sum and tsr_zs_bases_put, zstd_core.h) run on the CPU as its CTA of 1,024 threads, each over its run of streams with the scan of the threads' sums between: every stream's entry and the firsts' totals equal a plain prefix sum's, for batches of 1 to 10,000 streams, with and without cells, and no entry outside the batch is written. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TSR_ZSTD_EMU 1
#include "cuda/zstd_core.h"

#include "check.h"

#define NT TSR_ZS_BASES_THREADS /* (the kernel's CTA, zstd_core.h) */

static unsigned long long rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void)
{
	return check_next(&rng);
}

/* the kernel's threads, one after another: sums, their exclusive scan, the runs */
static void emulate(const struct tsr_zs_count *cnt, const int *cst, const uint64_t *cellb,
		    int cells, uint64_t n, struct tsr_zs_stream *ss, uint64_t *first)
{
	static uint64_t sum[NT][TSR_ZS_NBASES];
	uint64_t lo, hi;
	for (unsigned t = 0; t < NT; t++) {
		tsr_zs_bases_run(t, NT, n, &lo, &hi);
		tsr_zs_bases_sum(cnt, cellb, lo, hi, sum[t]);
	}
	uint64_t run[TSR_ZS_NBASES] = {0};
	for (unsigned t = 0; t < NT; t++) {
		tsr_zs_bases_run(t, NT, n, &lo, &hi);
		uint64_t base[TSR_ZS_NBASES];
		memcpy(base, run, sizeof base);
		for (int j = 0; j < TSR_ZS_NBASES; j++)
			run[j] += sum[t][j];
		if (lo < hi)
			tsr_zs_bases_put(cnt, cst, cellb, cells, lo, hi, n, base, ss, first);
	}
}

int main(void)
{
	static const uint64_t sizes[] = {1, 2, 3, 255, 1023, 1024, 1025, 2047, 4016, 10000};
	long cases = 0;
	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
		for (int cells = 0; cells < 2; cells++) {
			const uint64_t n = sizes[k];
			struct tsr_zs_count *cnt = malloc(n * sizeof *cnt);
			int *cst = malloc(n * sizeof *cst);
			uint64_t *cellb = malloc(n * sizeof *cellb);
			/* one entry past each end, to see nothing is written there */
			struct tsr_zs_stream *ss = malloc((n + 2) * sizeof *ss);
			uint64_t *first = malloc((2 * (n + 1) + 2) * sizeof *first);
			CHECK(cnt && cst && cellb && ss && first);
			if (!cnt || !cst || !cellb || !ss || !first)
				CHECK_DONE();
			for (uint64_t i = 0; i < n; i++) {
				/* failed streams count nothing; others up to large sizes */
				int failed = next() % 7 == 0;
				cnt[i].nframes = failed ? 0 : (uint32_t)(1 + next() % 3);
				cnt[i].nblocks = failed ? 0 : cnt[i].nframes + (uint32_t)(next() % 300);
				cnt[i].nlit = failed ? 0 : next() % (1u << 22);
				cnt[i].nseq = failed ? 0 : next() % (1u << 16);
				cst[i] = failed ? (int)(1 + next() % 12) : 0;
				cellb[i] = cnt[i].nblocks > cnt[i].nframes ? next() % (1u << 25) : 0;
			}
			memset(ss, 0xa5, (n + 2) * sizeof *ss);
			memset(first, 0xa5, (2 * (n + 1) + 2) * sizeof *first);
			emulate(cnt, cst, cellb, cells, n, ss + 1, first + 1);
			/* the plain prefix sum */
			uint64_t nf = 0, nb = 0, nl = 0, nq = 0, nc = 0;
			int bad = 0;
			for (uint64_t i = 0; i < n; i++) {
				const struct tsr_zs_stream *s = &ss[1 + i];
				bad |= s->frame_base != nf || s->block_base != nb || s->lit_base != nl ||
				       s->seq_base != nq || s->cell_base != nc ||
				       s->cell_n != (cells ? cellb[i] : 0) ||
				       s->nframes != cnt[i].nframes || s->nblocks != cnt[i].nblocks ||
				       s->status != cst[i] || s->pad != 0;
				bad |= first[1 + i] != nf || first[1 + n + 1 + i] != nb;
				nf += cnt[i].nframes;
				nb += cnt[i].nblocks;
				nl += cnt[i].nlit;
				nq += cnt[i].nseq;
				nc += cellb[i];
			}
			bad |= first[1 + n] != nf || first[1 + 2 * n + 1] != nb;
			uint64_t mark;
			memset(&mark, 0xa5, sizeof mark);
			bad |= first[0] != mark || first[2 * (n + 1) + 1] != mark;
			const unsigned char *lo = (const unsigned char *)&ss[0];
			const unsigned char *hi = (const unsigned char *)&ss[n + 1];
			for (size_t b = 0; b < sizeof *ss; b++)
				bad |= lo[b] != 0xa5 || hi[b] != 0xa5;
			if (bad)
				fprintf(stderr, "bases of %llu streams (cells %d) differ\n",
					(unsigned long long)n, cells);
			CHECK(!bad);
			cases++;
			free(cnt), free(cst), free(cellb), free(ss), free(first);
		}
	}
	printf("emu_zstd_bases: %ld batches\n", cases);
	CHECK_DONE();
}
