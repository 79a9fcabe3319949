/* test_b2_list_truncated.c - tsr_list of a Blosc2 frame file cut short fails with TSR_E_FORMAT
 * naming the file and the sizes, as tsr_open does: it listed one array (TSR_OK), whose
 * metadata then said the frame "changed since it was opened". A whole frame lists, and one
 * with bytes after its end (the frame may end before the file does) too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "read_file.h"
#include "tessera.h"
#include "write_file.h"

static int list_status(const char *path, size_t *count)
{
	struct tsr_listing *l = NULL;
	int st = tsr_list(path, &l);
	*count = st ? 0 : tsr_listing_count(l);
	tsr_listing_free(l);
	return st;
}

int main(void)
{
	const char *corpus = getenv("TSR_CORPUS");
	char src[1100], dst[] = "/tmp/tsr_b2_list_truncXXXXXX";
	snprintf(src, sizeof(src), "%s/blosc2/blosclz_shuffle_f4_2d.b2nd", corpus ? corpus : "../../shared/corpus");
	size_t n = 0, count;
	unsigned char *frame = read_file(src, &n);
	CHECK(frame != NULL && n > 64);
	int fd = mkstemp(dst);
	CHECK(fd >= 0);
	close(fd);
	char path[64];
	snprintf(path, sizeof(path), "%s.b2nd", dst);

	CHECK_EQ_INT(write_file(path, frame, n), 0);
	CHECK_EQ_INT(list_status(path, &count), TSR_OK);
	CHECK(count == 1);
	unsigned char *longer = calloc(n + 100, 1);
	memcpy(longer, frame, n);
	CHECK_EQ_INT(write_file(path, longer, n + 100), 0);
	CHECK_EQ_INT(list_status(path, &count), TSR_OK);

	static const size_t keep[] = {40, 100};
	for (size_t i = 0; i < 3; i++) {
		size_t k = i < 2 ? keep[i] : n / 2;
		CHECK_EQ_INT(write_file(path, frame, k), 0);
		CHECK_EQ_INT(list_status(path, &count), TSR_E_FORMAT);
		CHECK(strstr(tsr_errmsg(), path) && strstr(tsr_errmsg(), "truncated?"));
		CHECK(count == 0);
	}
	remove(path);
	remove(dst);
	free(longer);
	free(frame);
	CHECK_DONE();
}
