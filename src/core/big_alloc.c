/* big_alloc.c - large buffers on transparent huge pages: one page fault per 2 MiB, not per 4 KiB. */
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "internal.h"

#define TSR_HUGE_NBYTES ((size_t)2 << 20)

/* Large buffers are 2 MiB aligned and asked for transparent huge pages, as NumPy does: a
 * fresh buffer's first touch otherwise costs a page fault a 4 KiB page (a 256 MiB result
 * 65536 of them, about a third of a fast read; a read's chunk buffers as many as their
 * stored bytes), and under many threads the faults also contend on the kernel's locks.
 * free() frees either kind. */
void *tsr_alloc_big(size_t n)
{
	const size_t huge = TSR_HUGE_NBYTES;
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

struct tsr_populate {
	unsigned char *p;
	size_t n;
	atomic_size_t next; /* the next 2 MiB page to fault in */
};

static void tsr_populate_worker(void *arg, int w)
{
	struct tsr_populate *job = arg;
	(void)w;
	for (;;) {
		size_t i = atomic_fetch_add(&job->next, 1), at = i * TSR_HUGE_NBYTES;
		if (at >= job->n)
			break;
		size_t len = job->n - at < TSR_HUGE_NBYTES ? job->n - at : TSR_HUGE_NBYTES;
#ifdef MADV_POPULATE_WRITE
		if (madvise(job->p + at, len, MADV_POPULATE_WRITE) == 0)
			continue;
#endif
		/* (kernels before 5.14) a write a page faults it in; the contents are the caller's
		 * to write, so zeros do */
		for (size_t k = 0; k < len; k += 4096)
			((volatile unsigned char *)job->p)[at + k] = 0;
	}
}

/* A huge page is cleared by the kernel at its first touch, before the faulting thread's write
 * goes on; threads whose writes share a page (a read's shares are smaller than one) may all
 * fault on it at once, and each then clears a page of its own, all but one thrown away. Each
 * page faulted in by one thread, the pages spread over the threads, the clearing is done once
 * and in parallel. */
void tsr_big_populate(void *p, size_t n, struct tsr_pool *pool, int nthreads)
{
	if (!p || n < 2 * TSR_HUGE_NBYTES || nthreads < 2 || !pool)
		return;
	struct tsr_populate job = {p, n, 0};
	size_t pages = (n + TSR_HUGE_NBYTES - 1) / TSR_HUGE_NBYTES;
	tsr_pool_run(pool, (size_t)nthreads < pages ? nthreads : (int)pages, tsr_populate_worker, &job);
}
