/* test_split_spare.c - a kept spare of split chunks' buffers (split.h) hands back one at least the size asked, keeps the larger buffers, and trims to the bytes it may keep, the largest that fit first. */
#include <stdlib.h>

#include "check.h"
#include "engine/split.h"

int main(void)
{
	struct tsr_split_spare sp;
	tsr_split_spare_init(&sp);
	size_t cap = 0;
	unsigned char *a = tsr_split_spare_take(&sp, 1000, &cap);
	CHECK(a != NULL && cap == 1000);
	unsigned char *b = tsr_split_spare_take(&sp, 3000, &cap);
	CHECK(b != NULL && cap == 3000);
	unsigned char *c = tsr_split_spare_take(&sp, 2000, &cap);
	CHECK(c != NULL && cap == 2000);
	tsr_split_spare_give(&sp, a, 1000);
	tsr_split_spare_give(&sp, b, 3000);
	tsr_split_spare_give(&sp, c, 2000); /* displaces the 1000 (freed) */
	/* a kept one large enough, the same buffer */
	unsigned char *d = tsr_split_spare_take(&sp, 2500, &cap);
	CHECK(d == b && cap == 3000);
	tsr_split_spare_give(&sp, d, cap);
	/* 4000 bytes may stay: the 3000, not the 2000 too */
	tsr_split_spare_trim(&sp, 4000);
	int kept = 0;
	size_t held = 0;
	for (int i = 0; i < TSR_SPLIT_SPARES; i++)
		if (sp.buf[i]) {
			kept++;
			held += sp.cap[i];
		}
	CHECK_EQ_INT(kept, 1);
	CHECK_EQ_INT((long long)held, 3000);
	/* nothing may stay */
	tsr_split_spare_trim(&sp, 0);
	for (int i = 0; i < TSR_SPLIT_SPARES; i++)
		CHECK(sp.buf[i] == NULL);
	tsr_split_spare_destroy(&sp);
	CHECK_DONE();
}
