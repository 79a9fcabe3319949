/* test_feed_readers.c - a lone CUDA read's feed (tsr_feed_readers) and the describing threads beside it (tsr_aid_count of the readers) leave a core for the read's own thread and never starve the feed: at least one reader, at least half the threads reading, and 10 readers of 16 (the count measured on the H100 host's 16 cores). */
#include <stdio.h>

#include "check.h"
#include "engine/engine.h"

int main(void)
{
	for (int n = 1; n <= 256; n++) {
		int r = tsr_feed_readers(n), d = tsr_aid_count(r);
		CHECK(r >= 1);
		CHECK(r <= n);
		if (n >= 4) {
			CHECK(r + (d > 1 ? d : 0) + 1 <= n);
			CHECK(2 * r >= n - 1);
		}
	}
	CHECK(tsr_feed_readers(16) == 10);
	CHECK(tsr_aid_count(tsr_feed_readers(16)) == 5);
	CHECK_DONE();
}
