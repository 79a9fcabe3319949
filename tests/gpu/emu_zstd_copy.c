/* emu_zstd_copy.c - the zstd kernels' lanes' copy (tsr_zs_copy, zstd_core.h: the exec kernel's and phase b's raw literals', run on the CPU as one lane): every length around its wide bound, every source and destination alignment, the bytes copied exactly, none written outside, and no word loaded outside the source (the loads noted; a source against a guard page at either end would also fault). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"

/* the lowest and highest byte the copy's word loads read */
static const uint8_t *read_lo, *read_hi;
static void note_read(const uint8_t *p, size_t n)
{
	if (!read_lo || p < read_lo)
		read_lo = p;
	if (!read_hi || p + n - 1 > read_hi)
		read_hi = p + n - 1;
}
#define TSR_ZS_NOTE_READ(p, n) note_read((p), (n))
#define TSR_ZSTD_EMU 1
#include "cuda/zstd_exec_core.h"

#define SPAN 4096u /* the longest copy tried: a page, and so every alignment of a 16-byte store */

int main(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t page = pg > 0 ? (size_t)pg : 4096u, room = (SPAN + 4 + page - 1) / page * page;
	/* guard | source room | guard: a source placed at the room's end or start has a
	 * PROT_NONE page right after or before it */
	uint8_t *map = mmap(NULL, room + 2 * page, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(map != MAP_FAILED);
	if (map == MAP_FAILED)
		return 1;
	CHECK(mprotect(map, page, PROT_NONE) == 0);
	CHECK(mprotect(map + page + room, page, PROT_NONE) == 0);
	uint8_t *area = map + page;
	static uint8_t dst[SPAN + 64], want[SPAN + 64];
	uint64_t s = 99;
	for (size_t i = 0; i < room; i++) {
		s = s * 6364136223846793005ull + 1442695040888963407ull;
		area[i] = (uint8_t)(s >> 56);
	}
	unsigned long cases = 0, wide = 0;
	static const uint32_t lens[] = {0, 1, 3, 31, 32, 33, 255, 256, 257, 258, 259, 260, 271,
					275, 276, 300, 1000, 1021, 2048, 4095, 4096};
	for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++)
		for (unsigned sa = 0; sa < 4; sa++)
			for (unsigned da = 0; da < 16; da++)
				for (int end = 0; end < 2; end++) {
					uint32_t n = lens[li];
					/* the source at the room's start (plus sa) or ending at its end
					 * (minus sa) */
					const uint8_t *src = end ? area + room - n - sa : area + sa;
					uint8_t *d = dst + 16 + da;
					memset(dst, 0xa5, sizeof dst);
					memcpy(want, dst, sizeof dst);
					memcpy(want + 16 + da, src, n);
					read_lo = read_hi = NULL;
					tsr_zs_copy(d, src, n);
					CHECK(memcmp(dst, want, sizeof dst) == 0);
					/* its words lie inside the source, and only wide copies
					 * load words */
					CHECK(n >= TSR_ZS_WIDE_COPY ? read_lo && read_lo >= src &&
								  read_hi < src + n
								: !read_lo);
					cases++;
					wide += n >= TSR_ZS_WIDE_COPY;
				}
	/* the wide copy's bound is in the lengths tried, on both sides */
	CHECK(TSR_ZS_WIDE_COPY > 33 && TSR_ZS_WIDE_COPY <= 4096);
	CHECK(wide > 0 && wide < cases);
	printf("%lu copies tried (%lu wide)\n", cases, wide);
	munmap(map, room + 2 * page);
	CHECK_DONE();
}
