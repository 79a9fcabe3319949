/* write_file.h - a test's whole-file write (metadata and chunk files of the stores it makes), and the making and removal of one-axis Zarr v2 stores. */
#ifndef TSR_TEST_WRITE_FILE_H
#define TSR_TEST_WRITE_FILE_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
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

/* Writes a Zarr v2 uint16 store of one axis: nchunks chunks of chunk elements, compressor the
 * JSON of .zarray's "compressor" ("null": none). For layout tests, which read only metadata and
 * file sizes: a compressed chunk file holds a few stand-in bytes, a raw one is a sparse file of
 * the chunk's size. 0, or -1 when a step fails. */
static inline int make_u16_store_with(const char *dir, int nchunks, long long chunk,
				      const char *compressor)
{
	char path[512], meta[512];
	int packed = strcmp(compressor, "null") != 0;
	mkdir(dir, 0755);
	snprintf(meta, sizeof(meta),
		 "{\"zarr_format\":2,\"shape\":[%lld],\"chunks\":[%lld],\"dtype\":\"<u2\","
		 "\"compressor\":%s,\"fill_value\":0,\"order\":\"C\",\"filters\":null}",
		 (long long)nchunks * chunk, chunk, compressor);
	snprintf(path, sizeof(path), "%s/.zarray", dir);
	if (write_file(path, meta, strlen(meta)))
		return -1;
	for (int c = 0; c < nchunks; c++) {
		snprintf(path, sizeof(path), "%s/%d", dir, c);
		if (write_file(path, "stand-in", 8) ||
		    (!packed && truncate(path, (off_t)(2 * chunk))))
			return -1;
	}
	return 0;
}

/* make_u16_store_with: compressor zstd (level 1), or none. */
static inline int make_u16_store(const char *dir, int nchunks, long long chunk, int zstd)
{
	return make_u16_store_with(dir, nchunks, chunk,
				   zstd ? "{\"id\":\"zstd\",\"level\":1}" : "null");
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
