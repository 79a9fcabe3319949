/* test_device_share.c - tsr_device_share: a batch's files split over devices in order, evenly, each file once. */
#include "check.h"
#include "tessera.h"

int main(void)
{
	/* every n and nparts up to a few: shares follow each other, cover [0, n), and differ by
	 * at most one file, the larger ones first */
	for (size_t n = 0; n <= 40; n++) {
		for (int parts = 1; parts <= 9; parts++) {
			size_t next = 0, lo = (size_t)-1, hi = 0, prev_count = (size_t)-1;
			for (int p = 0; p < parts; p++) {
				size_t first = 99, count = 99;
				CHECK_EQ_INT(tsr_device_share(n, parts, p, &first, &count), TSR_OK);
				CHECK_EQ_INT(first, next);
				CHECK(count <= prev_count);
				prev_count = count;
				next = first + count;
				lo = count < lo ? count : lo;
				hi = count > hi ? count : hi;
			}
			CHECK_EQ_INT(next, n);
			CHECK(hi - lo <= 1);
		}
	}
	size_t f, c;
	CHECK_EQ_INT(tsr_device_share(64, 2, 1, &f, &c), TSR_OK);
	CHECK_EQ_INT(f, 32);
	CHECK_EQ_INT(c, 32);
	CHECK_EQ_INT(tsr_device_share(5, 2, 0, &f, &c), TSR_OK);
	CHECK_EQ_INT(c, 3);
	/* parts that are no parts */
	CHECK_EQ_INT(tsr_device_share(8, 0, 0, &f, &c), TSR_E_INVALID_ARG);
	CHECK_EQ_INT(tsr_device_share(8, 2, 2, &f, &c), TSR_E_INVALID_ARG);
	CHECK_EQ_INT(tsr_device_share(8, 2, -1, &f, &c), TSR_E_INVALID_ARG);
	CHECK_EQ_INT(tsr_device_share(8, 2, 0, NULL, &c), TSR_E_INVALID_ARG);
	CHECK_DONE();
}
