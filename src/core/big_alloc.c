/* big_alloc.c - large buffers on transparent huge pages: one page fault per 2 MiB, not per 4 KiB. */
#include <stdlib.h>
#include <sys/mman.h>

#include "internal.h"

/* Large buffers are 2 MiB aligned and asked for transparent huge pages, as NumPy does: a
 * fresh buffer's first touch otherwise costs a page fault a 4 KiB page (a 256 MiB result
 * 65536 of them, about a third of a fast read; a read's chunk buffers as many as their
 * stored bytes), and under many threads the faults also contend on the kernel's locks.
 * free() frees either kind. */
void *tsr_alloc_big(size_t n)
{
	const size_t huge = (size_t)2 << 20;
	if (n < 2 * huge)
		return malloc(n ? n : 1);
	void *p = NULL;
	size_t r = (n + huge - 1) / huge * huge;
	if (posix_memalign(&p, huge, r) != 0)
		return NULL;
#ifdef MADV_HUGEPAGE
	madvise(p, r, MADV_HUGEPAGE);
#endif
	return p;
}
