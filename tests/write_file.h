/* write_file.h - a test's whole-file write (metadata and chunk files of the stores it makes). */
#ifndef TSR_TEST_WRITE_FILE_H
#define TSR_TEST_WRITE_FILE_H

#include <stddef.h>
#include <stdio.h>

/* Writes n bytes at p to path (created or truncated); 0, or -1 when any step fails. */
static int write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t k = fwrite(p, 1, n, f);
	return fclose(f) == 0 && k == n ? 0 : -1;
}

#endif
