/* fuzz.c - whole-file decompression (gzip members, bzip2 streams, unix compress) on arbitrary
 * bytes: the kind as tsr_open would sniff it, else chosen by the first byte; a 16 MiB limit. */
#include <stdlib.h>

#include "../guard.h"
#include "io/io.h"
#include "io/unpack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	if (n < 1)
		return 0;
	enum tsr_unpack_kind kind = tsr_unpack_sniff(data + 1, n - 1);
	if (kind == TSR_UNPACK_NONE)
		kind = (enum tsr_unpack_kind)(1 + data[0] % 3);
	struct tsr_guarded g;
	if (tsr_guard(&g, data + 1, n - 1))
		return 0;
	int fd = -1;
	uint64_t got = 0;
	if (tsr_unpack(kind, g.data, n - 1, (uint64_t)16 << 20, &fd, &got) == 0) {
		unsigned char last;
		if (got > 16 << 20 || (got && tsr_file_pread(fd, &last, 1, got - 1)))
			abort(); /* past the limit, or a size that is not the file's */
		tsr_file_close(fd);
	}
	tsr_unguard(&g);
	return 0;
}
