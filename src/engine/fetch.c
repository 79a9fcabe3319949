/* fetch.c - the fetch step every engine shares: a chunk's stored bytes from its file. */
#include <stdlib.h>
#include <string.h>

#include "../io/io.h"
#include "engine.h"

/* Brings a chunk's stored bytes into *buf (grown as needed, 64 bytes of zeroed slack after
 * them). A chunk in a file of its own that does not exist becomes a fill chunk when the format
 * says so (Zarr's missing chunks). */
int tsr_engine_fetch(const struct tsr_array *a, struct tsr_chunk_ref *ref, unsigned char **buf,
		     size_t *cap)
{
	return tsr_engine_fetch_cached(a, ref, buf, cap, NULL);
}

void tsr_fd_cache_close(struct tsr_fd_cache *c)
{
	if (c->fd >= 0)
		tsr_io_close(c->fd);
	c->fd = -1;
	c->path[0] = '\0';
}

int tsr_engine_fetch_cached(const struct tsr_array *a, struct tsr_chunk_ref *ref,
			    unsigned char **buf, size_t *cap, struct tsr_fd_cache *cache)
{
	int fd = a->fd, st;
	if (ref->path[0] && cache && cache->fd >= 0 && strcmp(cache->path, ref->path) == 0) {
		/* Same file as the last chunk (inner chunks of one shard): keep it open. */
		fd = cache->fd;
		if (ref->nbytes == TSR_WHOLE_FILE)
			ref->nbytes = cache->size > ref->offset ? cache->size - ref->offset : 0;
	} else if (ref->path[0]) {
		uint64_t size;
		st = tsr_io_open(ref->path, &fd, &size);
		if (st == TSR_E_NOT_FOUND && ref->missing_is_fill) {
			ref->codec.id = TSR_CODEC_FILL;
			ref->nbytes = 0;
			return TSR_OK;
		}
		if (st)
			return st;
		if (ref->nbytes == TSR_WHOLE_FILE)
			ref->nbytes = size > ref->offset ? size - ref->offset : 0;
		if (cache && strlen(ref->path) < sizeof(cache->path)) {
			tsr_fd_cache_close(cache);
			cache->fd = fd;
			cache->size = size;
			strcpy(cache->path, ref->path);
		}
	}
	if (*cap < ref->nbytes || !*buf) { /* an empty chunk file still gets its slack */
		free(*buf);
		*buf = malloc(ref->nbytes + 64);
		*cap = *buf ? ref->nbytes : 0;
		if (!*buf) {
			st = tsr_error(TSR_E_NOMEM, "out of memory for %llu bytes",
				       (unsigned long long)ref->nbytes);
			goto done;
		}
	}
	st = tsr_io_pread(fd, *buf, ref->nbytes, ref->offset);
	if (st == TSR_OK)
		memset(*buf + ref->nbytes, 0, 64);
done:
	if (fd != a->fd && !(cache && fd == cache->fd))
		tsr_io_close(fd);
	return st;
}

