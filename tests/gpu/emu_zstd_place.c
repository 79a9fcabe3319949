/* emu_zstd_place.c - the zstd exec kernel's repeat offsets (tsr_zs_place, zstd_exec_core.h, run on the CPU): for batches of 1 to 32 sequences, with and without repeat codes, every sequence's offset and the batch's exit offsets equal a walk by RFC 8878's rules written here. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#define TSR_ZSTD_EMU 1
#include "cuda/zstd_exec_core.h"

static uint64_t rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

/* RFC 8878, 3.1.1.5: an offset value over 3 is a new offset (value - 3); 1 to 3 name a repeat
 * offset, shifted by one when the literal length is 0, the fourth being offset 1 less one */
static uint64_t walk(uint64_t ov, uint32_t ll, uint64_t r[3])
{
	if (ov > 3) {
		r[2] = r[1];
		r[1] = r[0];
		r[0] = ov - 3;
		return r[0];
	}
	unsigned k = (unsigned)ov - 1 + (ll == 0);
	uint64_t off = k == 0 ? r[0] : k == 1 ? r[1] : k == 2 ? r[2] : r[0] - 1;
	if (k == 0)
		return off;
	if (k >= 2)
		r[2] = r[1];
	r[1] = r[0];
	r[0] = off;
	return off;
}

int main(void)
{
	static struct tsr_zs_xs x;
	uint64_t s = 99;
	unsigned long long batches = 0, plain = 0, bad = 0;
	for (int t = 0; t < 200000; t++) {
		uint32_t cnt = 1 + (uint32_t)(rnd(&s) % 32);
		int repeats = (int)(rnd(&s) % 2); /* half the batches code no repeat offset */
		uint64_t r[3], want[3], off[32];
		for (int k = 0; k < 3; k++)
			r[k] = want[k] = 1 + rnd(&s) % 100000;
		int any = 0;
		for (uint32_t i = 0; i < cnt; i++) {
			x.ll[i] = (uint32_t)(rnd(&s) % 4); /* (0 often: the shifted repeat codes) */
			x.ml[i] = 3 + (uint32_t)(rnd(&s) % 8);
			x.off[i] = repeats && rnd(&s) % 3 == 0 ? 1 + rnd(&s) % 3 : 4 + rnd(&s) % 70000;
			any |= x.off[i] <= 3;
			off[i] = walk(x.off[i], x.ll[i], want);
		}
		plain += !any;
		batches++;
		uint32_t op = 1u << 20, lit = 0, r32[3] = {(uint32_t)r[0], (uint32_t)r[1], (uint32_t)r[2]};
		tsr_zs_place(&x, cnt, 1u << 20, 1u << 30, 1u << 22, &op, &lit, r32);
		int wrong = 0;
		for (int k = 0; k < 3; k++)
			wrong |= r32[k] != want[k];
		for (uint32_t i = 0; i < cnt; i++)
			wrong |= x.off[i] != off[i];
		if (wrong && bad++ < 5)
			fprintf(stderr, "batch %d (%u sequences, %s): offsets differ from the walk\n", t,
				cnt, any ? "with repeat codes" : "no repeat code");
	}
	printf("%llu batches (%llu with no repeat code): %llu differ from the walk\n", batches, plain,
	       bad);
	CHECK(plain > 50000 && plain < batches);
	CHECK(bad == 0);
	CHECK_DONE();
}
