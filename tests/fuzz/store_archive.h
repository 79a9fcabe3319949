/* store_archive.h - unpacks a fuzz input into a directory of files (a Zarr store, a sparse
 * Blosc2 frame), so targets reach the drivers' multi-file paths: listings, groups,
 * consolidated metadata, shards, chunk files.
 *
 * The input is a run of records, each `u8 path_len, path, u32 LE data_len, data` (a length
 * past the input is cut to what remains); path_len 0 ends the records and what follows is the
 * target's own tail. Paths keep [A-Za-z0-9._-] and '/', at most 4 levels, no "." or ".."
 * parts and no leading '/': the rest become '_', so every file lands inside the directory.
 * tests/fuzz/store_seeds.py packs real stores into this form for the seeds. */
#ifndef TSR_FUZZ_STORE_ARCHIVE_H
#define TSR_FUZZ_STORE_ARCHIVE_H

#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int tsr_fuzz_rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(p);
	return 0;
}

/* Removes dir and everything under it. */
static inline void tsr_fuzz_rmtree(const char *dir)
{
	nftw(dir, tsr_fuzz_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Writes the records of data[0, n) under dir (made fresh); *tail gets what follows them and
 * first (when not NULL, 256 bytes) the path of the first file written, or "". */
static inline void tsr_fuzz_unpack(const char *dir, const uint8_t *data, size_t n,
				   const uint8_t **tail, size_t *tail_n, char *first)
{
	if (first)
		first[0] = '\0';
	tsr_fuzz_rmtree(dir);
	mkdir(dir, 0755);
	size_t at = 0;
	for (int rec = 0; rec < 64 && at < n; rec++) {
		size_t pl = data[at++];
		if (pl == 0 || pl > n - at)
			break;
		char rel[256], path[512];
		int depth = 0;
		for (size_t i = 0; i < pl; i++) {
			char c = (char)data[at + i];
			int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				 (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
			if (c == '/' && i > 0 && i + 1 < pl && rel[i - 1] != '/' && depth < 3)
				ok = 1, depth++;
			rel[i] = ok ? c : '_';
		}
		rel[pl] = '\0';
		at += pl;
		/* "." and ".." parts would leave the directory or name it */
		for (char *p = rel; *p;) {
			char *e = strchr(p, '/');
			size_t len = e ? (size_t)(e - p) : strlen(p);
			if ((len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
				p[0] = '_';
			p += len + (e != NULL);
		}
		size_t dl = 0;
		if (n - at >= 4) {
			dl = (size_t)data[at] | (size_t)data[at + 1] << 8 | (size_t)data[at + 2] << 16 |
			     (size_t)data[at + 3] << 24;
			at += 4;
		} else {
			at = n;
		}
		if (dl > n - at)
			dl = n - at;
		/* the parent folders, then the file */
		snprintf(path, sizeof(path), "%s/%s", dir, rel);
		for (char *s = path + strlen(dir) + 1; (s = strchr(s, '/')); s++) {
			*s = '\0';
			mkdir(path, 0755);
			*s = '/';
		}
		FILE *f = fopen(path, "wb");
		if (f) {
			fwrite(data + at, 1, dl, f);
			fclose(f);
			if (first && !first[0])
				snprintf(first, 256, "%s", path);
		}
		at += dl;
	}
	*tail = data + at;
	*tail_n = n - at;
}

#endif
