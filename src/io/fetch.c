/* fetch.c - a chunk's stored bytes from its file (the POSIX backend), shared by every engine and the mock caches. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/array.h"
#include "../core/chunk.h"
#include "../core/internal.h"
#include "io.h"

int tsr_io_fetch(const struct tsr_array *a, struct tsr_chunk_ref *ref, unsigned char **buf,
		 size_t *cap)
{
	return tsr_io_fetch_cached(a, ref, buf, cap, NULL);
}

void tsr_fd_cache_close(struct tsr_fd_cache *c)
{
	if (c->fd >= 0)
		tsr_io_close(c->fd);
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
		int fd, st = tsr_io_open(ref->path, &fd, &size);
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

int tsr_io_fetch_cached(const struct tsr_array *a, struct tsr_chunk_ref *ref, unsigned char **buf,
			size_t *cap, struct tsr_fd_cache *cache)
{
	int fd, owned, st = tsr_io_chunk_fd(a, ref, cache, &fd, &owned);
	if (st == TSR_E_NOT_FOUND && ref->missing_is_fill) {
		/* A chunk in a file of its own that does not exist: the fill value (Zarr). */
		tsr_chunk_set_fill(ref);
		return TSR_OK;
	}
	if (st)
		return st;
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
	if (owned)
		tsr_io_close(fd);
	return st;
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
