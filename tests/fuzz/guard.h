/* guard.h - places a fuzz input right before an inaccessible page, so any overread faults. */
#ifndef TSR_FUZZ_GUARD_H
#define TSR_FUZZ_GUARD_H

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct tsr_guarded {
	void *map;
	size_t map_nbytes;
	uint8_t *data; /* data[0, n) ends exactly at the guard page */
};

static inline int tsr_guard(struct tsr_guarded *g, const uint8_t *src, size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t body = (n + page - 1) / page * page;
	g->map_nbytes = body + page;
	g->map = mmap(NULL, g->map_nbytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g->map == MAP_FAILED)
		return -1;
	mprotect((uint8_t *)g->map + body, page, PROT_NONE);
	g->data = (uint8_t *)g->map + body - n;
	if (n)
		memcpy(g->data, src, n);
	return 0;
}

static inline void tsr_unguard(struct tsr_guarded *g)
{
	munmap(g->map, g->map_nbytes);
}

#endif
