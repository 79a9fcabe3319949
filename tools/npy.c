/* npy.c - NPY v1.0 output for `tessera read` (to a file, or to standard output for "-"). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int tsr_cli_write_npy(const char *path, const char *descr, int ndim, const int64_t *shape,
		      const void *data, size_t nbytes)
{
	/* a structured descr is a list literal, written as it stands; others are quoted */
	char hdr[65536];
	int q = descr[0] != '[';
	int n = snprintf(hdr, sizeof(hdr) - 1024, "{'descr': %s%s%s, 'fortran_order': False, "
			 "'shape': (", q ? "'" : "", descr, q ? "'" : "");
	if (n < 0 || n >= (int)sizeof(hdr) - 1024)
		return -1;
	for (int i = 0; i < ndim; i++)
		n += snprintf(hdr + n, sizeof(hdr) - (size_t)n, "%lld,%s", (long long)shape[i],
			      i + 1 < ndim ? " " : "");
	if (ndim > 1)
		n--; /* "(3, 4)" not "(3, 4,)" */
	n += snprintf(hdr + n, sizeof(hdr) - (size_t)n, "), }");
	/* Pad so that magic + length + header is a multiple of 64, ending in '\n'. */
	int total = 10 + n + 1;
	int pad = (64 - total % 64) % 64;
	memset(hdr + n, ' ', (size_t)pad);
	n += pad;
	hdr[n++] = '\n';
	int to_stdout = strcmp(path, "-") == 0;
	FILE *f = to_stdout ? stdout : fopen(path, "wb");
	if (!f)
		return -1;
	unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(n & 0xff),
				 (unsigned char)(n >> 8)};
	int ok = fwrite(pre, 1, 10, f) == 10 && fwrite(hdr, 1, (size_t)n, f) == (size_t)n &&
		 (nbytes == 0 || fwrite(data, 1, nbytes, f) == nbytes);
	if ((to_stdout ? fflush(f) : fclose(f)) != 0)
		ok = 0;
	return ok ? 0 : -1;
}
