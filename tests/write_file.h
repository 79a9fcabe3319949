/* write_file.h - a test's whole-file write (metadata and chunk files of the stores it makes), and the removal of a one-axis Zarr v2 store it made. */
#ifndef TSR_TEST_WRITE_FILE_H
#define TSR_TEST_WRITE_FILE_H

#include <stddef.h>
#include <stdio.h>
#include <unistd.h>

/* Writes n bytes at p to path (created or truncated); 0, or -1 when any step fails. */
static int write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t k = fwrite(p, 1, n, f);
	return fclose(f) == 0 && k == n ? 0 : -1;
}

/* Removes a Zarr v2 store of one axis written by a test: chunks 0 .. nchunks-1, .zarray, the
 * folder. */
static inline void remove_store(const char *dir, int nchunks)
{
	char path[512];
	for (int c = 0; c < nchunks; c++) {
		snprintf(path, sizeof(path), "%s/%d", dir, c);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/.zarray", dir);
	unlink(path);
	rmdir(dir);
}

#endif
