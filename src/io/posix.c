/* posix.c - the POSIX storage backend: pread from the engine's threads into host or pinned memory. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/array.h"
#include "../core/internal.h"
#include "io.h"
#include "storage.h"

/* ---- the backend (storage.h): chunks and files read with pread into host or pinned memory ---- */

/* The driver's description of a chunk (shared with cufile.c). */
int tsr_storage_file_chunk_ref(const struct tsr_array *a, int64_t chunk, int settle,
			       struct tsr_chunk_ref *ref)
{
	int st = a->ops->chunk_ref(a, chunk, ref);
	if (st)
		return st;
	ref->ndim = a->desc.ndim;
	if (settle)
		tsr_io_chunk_settle(ref);
	return TSR_OK;
}

int tsr_storage_file_chunk_next(const struct tsr_array *a, int64_t chunk, int settle,
				struct tsr_chunk_ref *ref)
{
	if (!a->ops->chunk_next || !a->ops->chunk_next(a, chunk, ref))
		return 0;
	if (settle)
		tsr_io_chunk_settle(ref);
	return 1;
}

static int tsr_posix_open(struct tsr_source *src, int64_t chunk, struct tsr_chunk_ref *ref)
{
	(void)chunk;
	src->base = ref->offset;
	return tsr_io_chunk_fd(src->array, ref, &src->files, &src->fd, &src->owned);
}

static int tsr_posix_open_path(struct tsr_source *src, const char *path)
{
	src->base = 0;
	src->owned = 0;
	if (src->files.fd >= 0 && strcmp(src->files.path, path) == 0) {
		src->fd = src->files.fd;
		return TSR_OK;
	}
	uint64_t size;
	int fd, st = tsr_file_open(path, &fd, &size);
	if (st)
		return st;
	src->fd = fd;
	if (strlen(path) < sizeof(src->files.path)) {
		tsr_fd_cache_close(&src->files);
		src->files.fd = fd;
		src->files.size = size;
		strcpy(src->files.path, path);
	} else {
		src->owned = 1;
	}
	return TSR_OK;
}

static int tsr_posix_read(struct tsr_source *src, int mem, void *dst, size_t at, size_t nbytes,
			  uint64_t offset)
{
	if (mem != TSR_MEM_HOST && mem != TSR_MEM_HOST_PINNED)
		return tsr_error(TSR_E_INTERNAL, "posix storage reads into host memory only");
	return tsr_file_pread(src->fd, (unsigned char *)dst + at, nbytes, src->base + offset);
}

/* The open chunk's bytes mapped (storage.h: map). A file shorter than its chunk fails here, not
 * with a fault at the first read past its end. (A file cut shorter while mapped still faults:
 * the feed's reads and the mapping are of files that the read does not expect to change.) */
static int tsr_posix_map(struct tsr_source *src, uint64_t nbytes, struct tsr_map *m)
{
	memset(m, 0, sizeof(*m));
	if (nbytes == 0) {
		m->bytes = (const unsigned char *)"";
		return TSR_OK;
	}
	struct stat sb;
	if (fstat(src->fd, &sb) != 0)
		return tsr_error(TSR_E_IO, "fstat: %s", strerror(errno));
	if (sb.st_size < 0 || (uint64_t)sb.st_size < src->base ||
	    (uint64_t)sb.st_size - src->base < nbytes)
		return tsr_error(TSR_E_IO, "the file ends before the chunk's %llu bytes at offset %llu",
				 (unsigned long long)nbytes, (unsigned long long)src->base);
	long page = sysconf(_SC_PAGESIZE);
	uint64_t lo = src->base - src->base % (uint64_t)(page > 0 ? page : 4096);
	if (src->base + nbytes - lo > SIZE_MAX)
		return tsr_error(TSR_E_IO, "a chunk of %llu bytes does not fit the address space",
				 (unsigned long long)nbytes);
	size_t len = (size_t)(src->base + nbytes - lo);
	void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, src->fd, (off_t)lo);
	if (p == MAP_FAILED)
		return tsr_error(TSR_E_IO, "mmap: %s", strerror(errno));
	m->base = p;
	m->len = len;
	m->bytes = (const unsigned char *)p + (src->base - lo);
	return TSR_OK;
}

void tsr_storage_unmap(struct tsr_map *m)
{
	if (m->base)
		munmap(m->base, m->len);
	memset(m, 0, sizeof(*m));
}

static void tsr_posix_release(struct tsr_source *src)
{
	if (src->owned)
		tsr_file_close(src->fd);
	src->fd = -1;
	src->owned = 0;
}

static void tsr_posix_close(struct tsr_source *src)
{
	tsr_posix_release(src);
	tsr_fd_cache_close(&src->files);
}

const struct tsr_backend tsr_storage_posix = {
	.name = "posix",
	.mems = TSR_MEMBIT(TSR_MEM_HOST) | TSR_MEMBIT(TSR_MEM_HOST_PINNED),
	.chunk_ref = tsr_storage_file_chunk_ref,
	.chunk_next = tsr_storage_file_chunk_next,
	.open = tsr_posix_open,
	.open_path = tsr_posix_open_path,
	.read = tsr_posix_read,
	.map = tsr_posix_map,
	.release = tsr_posix_release,
	.close = tsr_posix_close,
};
