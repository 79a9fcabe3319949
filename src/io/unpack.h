/* unpack.h - whole-file compressed inputs (gzip, bzip2, unix compress): told apart by their
 * first bytes, decompressed into a memory file that the readers pread like any other. */
#ifndef TSR_UNPACK_H
#define TSR_UNPACK_H

#include <stddef.h>
#include <stdint.h>

enum tsr_unpack_kind {
	TSR_UNPACK_NONE = 0,
	TSR_UNPACK_GZIP,     /* 1f 8b: one or more gzip members (libdeflate) */
	TSR_UNPACK_BZIP2,    /* "BZh1".."BZh9": one or more bzip2 streams (libbz2) */
	TSR_UNPACK_COMPRESS, /* 1f 9d: unix compress, LZW (lzw.c) */
};

/* The compression head[0, n) starts with; TSR_UNPACK_NONE for anything else. */
enum tsr_unpack_kind tsr_unpack_sniff(const unsigned char *head, size_t n);
/* "gzip", "bzip2", "compress". */
const char *tsr_unpack_name(enum tsr_unpack_kind kind);

/* How many decompressed bytes an open may hold: half of this machine's memory. */
uint64_t tsr_unpack_limit(void);

/* Decompresses in[0, n) into a new anonymous memory file (memfd: no file on disk). On TSR_OK
 * *fd_ret is that file (open for pread; close it with tsr_file_close) and *nbytes_ret its size.
 * More than limit decompressed bytes, corrupt or truncated input: a negative status and a
 * message that says which (the caller adds the path). */
int tsr_unpack(enum tsr_unpack_kind kind, const unsigned char *in, size_t n, uint64_t limit,
	       int *fd_ret, uint64_t *nbytes_ret);

/* Unix compress (lzw.c): decodes in[0, n) into out[0, cap); *nbytes_ret is how much it wrote.
 * More output than cap is TSR_E_TOO_SMALL. */
int tsr_lzw_decode(const unsigned char *in, size_t n, unsigned char *out, size_t cap,
		   size_t *nbytes_ret);

/* The file *fd (of *nbytes bytes, at path) is compressed as kind: on TSR_OK *fd is closed and
 * replaced by the decompressed memory file, *nbytes by its size (tsr_unpack_limit() bounds it);
 * on failure both are left as they were and the message names path. */
int tsr_unpack_file(const char *path, enum tsr_unpack_kind kind, int *fd, uint64_t *nbytes);

struct tsr_array;
/* tsr_unpack_file on the array's file (array->fd, array->file_nbytes), setting
 * array->unpacked. */
int tsr_unpack_array(struct tsr_array *array, enum tsr_unpack_kind kind);

#endif
