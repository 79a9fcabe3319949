/* read_file.h - a test's whole-file read (fixtures, chunk files). */
#ifndef TSR_TEST_READ_FILE_H
#define TSR_TEST_READ_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The file's bytes (malloc'd) and their count in *n_ret; NULL when it cannot be opened. */
static uint8_t *read_file(const char *path, size_t *n_ret)
{
	*n_ret = 0;
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	uint8_t *buf = malloc(cap);
	for (;;) {
		if (n == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
		}
		size_t r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (r == 0)
			break;
	}
	fclose(f);
	*n_ret = n;
	return buf;
}

#endif
