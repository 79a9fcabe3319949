/* file.h - file access every room shares (drivers read metadata, backends chunks): open, pread, close. */
#ifndef TSR_FILE_H
#define TSR_FILE_H

#include <stddef.h>
#include <stdint.h>

/* Opens path read-only; returns the descriptor and the file size. A path that is not a regular
 * file (a FIFO, a device, a directory) is refused without blocking. */
int tsr_file_open(const char *path, int *fd_ret, uint64_t *nbytes_ret);
void tsr_file_close(int fd);
/* Reads exactly nbytes at offset (POSIX pread, restarting on EINTR and short reads); a file
 * that ends early is TSR_E_IO naming what was asked and what was there. */
int tsr_file_pread(int fd, void *dst, size_t nbytes, uint64_t offset);
/* A new empty anonymous memory file (memfd; an unnamed file of /dev/shm where a sandbox has no
 * memfd: nothing on disk), or -1 with errno set. */
int tsr_file_memfd(void);
/* A new anonymous memory file holding data[0, n): *fd_ret, open for pread (close it with
 * tsr_file_close). */
int tsr_memfile(const void *data, size_t n, int *fd_ret);

#endif
