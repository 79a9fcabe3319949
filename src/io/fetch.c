/* fetch.c - where a chunk's stored bytes are: the file the file backends open for it (kept open for the next chunk), and a chunk file's size. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/array.h"
#include "../core/chunk.h"
#include "../core/internal.h"
#include "io.h"

void tsr_fd_cache_close(struct tsr_fd_cache *c)
{
	if (c->fd >= 0)
		tsr_file_close(c->fd);
	c->fd = -1;
	c->path[0] = '\0';
}

int tsr_io_chunk_fd(const struct tsr_array *a, struct tsr_chunk_ref *ref,
		    struct tsr_fd_cache *cache, int *fd_ret, int *owned_ret)
{
	*fd_ret = a->fd;
	*owned_ret = 0;
	if (!ref->path[0])
		return TSR_OK;
	uint64_t size;
	if (cache && cache->fd >= 0 && strcmp(cache->path, ref->path) == 0) {
		/* Same file as the last chunk (inner chunks of one shard): keep it open. */
		*fd_ret = cache->fd;
		size = cache->size;
	} else {
		int fd, st = tsr_file_open(ref->path, &fd, &size);
		if (st)
			return st;
		*fd_ret = fd;
		if (cache && strlen(ref->path) < sizeof(cache->path)) {
			tsr_fd_cache_close(cache);
			cache->fd = fd;
			cache->size = size;
			strcpy(cache->path, ref->path);
		} else {
			*owned_ret = 1;
		}
	}
	if (ref->nbytes == TSR_WHOLE_FILE)
		ref->nbytes = size > ref->offset ? size - ref->offset : 0;
	return TSR_OK;
}

void tsr_io_chunk_settle(struct tsr_chunk_ref *ref)
{
	if (!ref->path[0] || ref->nbytes != TSR_WHOLE_FILE || ref->codec.id == TSR_CODEC_FILL)
		return;
	struct stat sb;
	int rc = stat(ref->path, &sb);
	if (rc == 0 && S_ISREG(sb.st_mode))
		ref->nbytes = (uint64_t)sb.st_size > ref->offset ? (uint64_t)sb.st_size - ref->offset
								 : 0;
	else if (rc != 0 && errno == ENOENT && ref->missing_is_fill)
		tsr_chunk_set_fill(ref);
}
