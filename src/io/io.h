/* io.h - file access under the storage backends: which file holds a chunk, kept open per worker. */
#ifndef TSR_IO_H
#define TSR_IO_H

#include <stddef.h>
#include <stdint.h>

/* (opening and reading files: core/file.h, which the format drivers share) */
#include "../core/file.h"

/* fetch.c: which file holds a chunk's bytes (the file backends of storage.h read through it). */
struct tsr_array;
struct tsr_chunk_ref;

/* A chunk in a file of its own whose size is not known yet (TSR_WHOLE_FILE: Zarr): the file's
 * size settles ref->nbytes without opening it, and a missing one becomes fill where the format
 * says so; other trouble is left to the read, which reports it. */
void tsr_io_chunk_settle(struct tsr_chunk_ref *ref);

/* A worker's last opened chunk file, kept open for the next chunk of the same file. */
struct tsr_fd_cache {
	char path[4096];
	int fd;          /* -1: none */
	uint64_t size;
};
void tsr_fd_cache_close(struct tsr_fd_cache *cache);
/* The descriptor of the file holding ref's bytes: the array's own file, or ref->path kept open
 * in cache (settling a whole-file ref's nbytes). *owned_ret: the caller must tsr_file_close it (no
 * cache, or a path too long for one). */
int tsr_io_chunk_fd(const struct tsr_array *a, struct tsr_chunk_ref *ref,
		    struct tsr_fd_cache *cache, int *fd_ret, int *owned_ret);

#endif
