/* emu_upload.c - the upload kernel's copy (tsr_upload_run, upload_core.h) run on the CPU as grids of 1, 3, 32, 256 and 65,536 threads, each thread in turn: for sizes of 0 to 5,000 bytes at every alignment of either end to 16 bytes, the destination equals the source and nothing around it is written. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "upload_core.h"

#include "check.h"

#define ROOM 8192

int main(void)
{
	static const uint64_t nthreads[] = {1, 3, 32, 256, 65536};
	static const uint64_t sizes[] = {0, 1, 15, 16, 17, 31, 32, 33, 255, 256, 1000, 4096, 5000};
	/* 16-byte aligned buffers (the tables are), the copies at offsets 0 to 16 of them */
	uint8_t *src = aligned_alloc(16, ROOM), *dst = aligned_alloc(16, ROOM);
	CHECK(src && dst);
	if (!src || !dst)
		CHECK_DONE();
	for (size_t i = 0; i < ROOM; i++)
		src[i] = (uint8_t)(i * 131 + 7);
	long runs = 0, bad = 0;
	for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
		for (unsigned so = 0; so <= 16; so += 1)
			for (unsigned d0 = 0; d0 <= 16; d0 += 4)
				for (size_t k = 0; k < sizeof nthreads / sizeof nthreads[0]; k++) {
					const uint64_t n = sizes[z], nt = nthreads[k];
					const unsigned doff = d0 ? d0 : so; /* (also both aligned alike) */
					memset(dst, 0x5a, ROOM);
					for (uint64_t t = 0; t < nt; t++)
						tsr_upload_run(dst + 64 + doff, src + so, n, t, nt);
					int ok = memcmp(dst + 64 + doff, src + so, n) == 0;
					for (size_t i = 0; i < ROOM; i++)
						if ((i < 64 + doff || i >= 64 + doff + n) &&
						    dst[i] != 0x5a)
							ok = 0;
					bad += !ok;
					runs++;
					if (!ok)
						fprintf(stderr, "n %llu, src +%u, dst +%u, %llu threads\n",
							(unsigned long long)n, so, doff,
							(unsigned long long)nt);
				}
	CHECK(bad == 0);
	printf("emu_upload: %ld copies\n", runs);
	free(src);
	free(dst);
	CHECK_DONE();
}
