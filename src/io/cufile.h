/* cufile.h - the cuFile (GPUDirect Storage) storage backend, loaded with dlopen: probe and reads into device memory. */
#ifndef TSR_CUFILE_H
#define TSR_CUFILE_H

#include <stddef.h>
#include <stdint.h>

/* Whether cuFile reads may run here: tsr_cufile_usable, in tessera.h. */

/* One file open for cuFile reads. */
struct tsr_cufile_file {
	char path[1024];
	int fd;          /* -1: none */
	void *handle;    /* CUfileHandle_t */
};

/* Opens path (O_DIRECT where the file system allows it) and registers it with cuFile. */
int tsr_cufile_open(const char *path, struct tsr_cufile_file *f);
/* Reads exactly nbytes at file offset into device memory dev_base + dev_offset. */
int tsr_cufile_read(struct tsr_cufile_file *f, void *dev_base, size_t dev_offset, size_t nbytes,
		    uint64_t offset);
void tsr_cufile_close(struct tsr_cufile_file *f);

#endif
