/* io.h - storage backends: where chunk bytes come from. */
#ifndef TSR_IO_H
#define TSR_IO_H

#include <stddef.h>
#include <stdint.h>

/* Opens path read-only; returns the descriptor and the file size. */
int tsr_io_open(const char *path, int *fd_ret, uint64_t *nbytes_ret);
void tsr_io_close(int fd);
/* Reads exactly nbytes at offset (POSIX pread, restarting on EINTR and short reads); a file
 * that ends early is TSR_E_IO naming what was asked and what was there. */
int tsr_io_pread(int fd, void *dst, size_t nbytes, uint64_t offset);

#endif
