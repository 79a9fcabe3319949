/* npy.c - NPY v1.0 output for `tessera read` (to a file, or to standard output for "-"). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* Where the bytes go first: a file's new contents are written beside it and renamed over it
 * once whole, so a failed or killed write (a full disk, a file size limit, Ctrl-C) leaves no
 * NPY whose header promises more data than it holds, and an earlier file as it was. A path
 * that is not a regular file (a device, a FIFO) is written in place. */
static int tsr_npy_staged(const char *path, char *target, char *tmp, size_t cap)
{
	struct stat sb;
	if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
		return 0;
	/* through a symbolic link to its file, which is what a write through the link changes */
	char *real = lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode) ? realpath(path, NULL) : NULL;
	int n = snprintf(target, cap, "%s", real ? real : path);
	free(real);
	if (n <= 0 || (size_t)n >= cap)
		return 0;
	n = snprintf(tmp, cap, "%s.tmp-%ld", target, (long)getpid());
	return n > 0 && (size_t)n < cap;
}

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
	char tmp[4200], target[4200];
	int staged = !to_stdout && tsr_npy_staged(path, target, tmp, sizeof(tmp));
	FILE *f = to_stdout ? stdout : fopen(staged ? tmp : path, "wb");
	if (!f)
		return -1;
	unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(n & 0xff),
				 (unsigned char)(n >> 8)};
	int ok = fwrite(pre, 1, 10, f) == 10 && fwrite(hdr, 1, (size_t)n, f) == (size_t)n &&
		 (nbytes == 0 || fwrite(data, 1, nbytes, f) == nbytes);
	if ((to_stdout ? fflush(f) : fclose(f)) != 0)
		ok = 0;
	if (staged) {
		int err = errno;
		if (ok && rename(tmp, target) != 0)
			ok = 0, err = errno;
		if (!ok)
			unlink(tmp);
		errno = err; /* (for the caller's perror) */
	}
	return ok ? 0 : -1;
}
