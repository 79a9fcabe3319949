/* file.c - file access every room shares: open read-only with its size, exact pread, close. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file.h"
#include "internal.h"

int tsr_file_open(const char *path, int *fd_ret, uint64_t *nbytes_ret)
{
	struct stat st;
	/* O_NONBLOCK: a FIFO (or device) at the path would block open() until a writer came;
	 * non-blocking, it opens at once and the fstat below refuses it (issue 21, D5). */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return tsr_error(errno == ENOENT ? TSR_E_NOT_FOUND : TSR_E_IO, "%s: %s", path,
				 strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return tsr_error(TSR_E_IO, "%s: not a regular file", path);
	}
	/* Regular files ignore O_NONBLOCK on Linux; cleared anyway so reads block as POSIX
	 * specifies everywhere. */
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
		int e = errno;
		close(fd);
		return tsr_error(TSR_E_IO, "%s: %s", path, strerror(e));
	}
	*fd_ret = fd;
	*nbytes_ret = (uint64_t)st.st_size;
	return TSR_OK;
}

void tsr_file_close(int fd)
{
	if (fd >= 0)
		close(fd);
}

int tsr_file_pread(int fd, void *dst, size_t nbytes, uint64_t offset)
{
	unsigned char *p = dst;
	size_t done = 0;
	while (done < nbytes) {
		ssize_t n = pread(fd, p + done, nbytes - done, (off_t)(offset + done));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return tsr_error(TSR_E_IO, "read of %zu bytes at offset %llu: %s", nbytes,
					 (unsigned long long)offset, strerror(errno));
		}
		if (n == 0) {
			/* its size now (it may have shrunk since it was opened, to before offset) */
			struct stat sb;
			unsigned long long size = fstat(fd, &sb) == 0 ? (unsigned long long)sb.st_size
								 : (unsigned long long)(offset + done);
			return tsr_error(TSR_E_IO, "file ends after %llu bytes, needed %zu bytes at "
					 "offset %llu", size, nbytes, (unsigned long long)offset);
		}
		done += (size_t)n;
	}
	return TSR_OK;
}

int tsr_file_memfd(void)
{
	int fd = memfd_create("tessera-unpacked", MFD_CLOEXEC);
	if (fd < 0 && (errno == ENOSYS || errno == EPERM)) /* (a sandbox without memfd) */
		fd = open("/dev/shm", O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
	return fd;
}

int tsr_memfile(const void *data, size_t n, int *fd_ret)
{
	int fd = tsr_file_memfd();
	if (fd < 0)
		return tsr_error(TSR_E_IO, "a memory file: %s", strerror(errno));
	for (size_t done = 0; done < n;) {
		ssize_t w = write(fd, (const char *)data + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int e = w < 0 ? errno : ENOSPC;
			close(fd);
			return tsr_error(e == ENOSPC || e == ENOMEM ? TSR_E_NOMEM : TSR_E_IO,
					 "a memory file of %zu bytes: %s", n, strerror(e));
		}
		done += (size_t)w;
	}
	*fd_ret = fd;
	return TSR_OK;
}
