/* emu_bops.c - the GPU's copy and set operations of a blosc slot's uncoded streams (bops_core.h) run on the CPU as thread blocks of 1, 3, 32 and 256 threads, each thread in turn: every operation writes exactly its destination bytes (copies from the staging, runs of one byte), nothing around them, against memcpy and memset. */
#include "bops_core.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define STAGE_NBYTES (1 << 20)
#define DEC_NBYTES (1 << 20)
#define NOPS 600

static unsigned long long rng = 88172645463325252ULL;
static uint64_t next(void)
{
	return check_next(&rng);
}

int main(void)
{
	static const unsigned nthreads[] = {1, 3, 32, 256};
	uint8_t *stage = malloc(STAGE_NBYTES), *dec = malloc(DEC_NBYTES), *want = malloc(DEC_NBYTES);
	struct tsr_cuda_bop *ops = malloc(NOPS * sizeof(*ops));
	CHECK(stage && dec && want && ops);
	if (!stage || !dec || !want || !ops)
		CHECK_DONE();
	for (size_t i = 0; i < STAGE_NBYTES; i++)
		stage[i] = (uint8_t)next();
	/* disjoint destinations of any size (0 to 3 KiB) and alignment, gaps between them;
	 * copies from anywhere in the staging, sets of any byte */
	uint64_t at = 0;
	int nops = 0;
	while (nops < NOPS) {
		uint64_t n = next() % 3072, gap = next() % 64;
		if (at + gap + n > DEC_NBYTES)
			break;
		struct tsr_cuda_bop *op = &ops[nops++];
		op->dst = at + gap;
		op->n = n;
		op->value = next() % 3 ? -1 : (int)(next() % 256);
		op->src = op->value < 0 ? next() % (STAGE_NBYTES - n) : 0;
		at = op->dst + n;
	}
	CHECK(nops > 300);
	for (size_t k = 0; k < sizeof(nthreads) / sizeof(nthreads[0]); k++) {
		unsigned nt = nthreads[k];
		memset(dec, 0xa5, DEC_NBYTES);
		memset(want, 0xa5, DEC_NBYTES);
		for (int o = 0; o < nops; o++) {
			const struct tsr_cuda_bop *op = &ops[o];
			if (op->value < 0)
				memcpy(want + op->dst, stage + op->src, op->n);
			else
				memset(want + op->dst, op->value, op->n);
			for (unsigned t = 0; t < nt; t++)
				tsr_bop_run(op, dec, stage, t, nt);
		}
		if (memcmp(dec, want, DEC_NBYTES)) {
			size_t i = 0;
			while (dec[i] == want[i])
				i++;
			fprintf(stderr, "%u threads: byte %zu is %u, want %u\n", nt, i, dec[i], want[i]);
			CHECK(0);
		}
	}
	printf("bops: %d operations, 1/3/32/256 threads: equal to memcpy/memset\n", nops);
	free(stage);
	free(dec);
	free(want);
	free(ops);
	CHECK_DONE();
}
