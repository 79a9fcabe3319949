/* clock.c - the monotonic clock receipts are timed with. */
#include <time.h>

#include "internal.h"

double tsr_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
