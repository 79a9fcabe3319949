/* unpack.c - whole-file gzip, bzip2 and unix compress inputs, decompressed into a memory file.
 *
 * Archives ship FITS files whole-file compressed (.fits.gz, .fits.bz2, .fits.Z). The readers
 * pread an array's descriptor, so the decompressed bytes go to an anonymous memory file
 * (memfd_create, or an unnamed file of /dev/shm where a sandbox forbids it: nothing on disk)
 * and every reader, engine and mock cache reads it unchanged. The memory file is mapped at its
 * largest allowed size and filled in place: its pages exist only as they are written, so no size has to be known first (gzip's ISIZE is only modulo
 * 2^32 and only for the last member), and the limit is checked by the decoder running out of
 * room, never by trusting a size the file claims. */
#include <bzlib.h>
#include <errno.h>
#include <fcntl.h>
#include <libdeflate.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../core/array.h"
#include "../core/file.h"
#include "../core/internal.h"
#include "io.h"
#include "unpack.h"

/* DEFLATE turns 2 bits into at most 258 bytes: no gzip member grows by more than this. */
#define TSR_DEFLATE_MAX_RATIO 1032

/* libbz2 counts its buffers in unsigned int: they are handed over in pieces of this much. */
#define TSR_BZ_PIECE ((size_t)1 << 30)

enum tsr_unpack_kind tsr_unpack_sniff(const unsigned char *head, size_t n)
{
	if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b)
		return TSR_UNPACK_GZIP;
	if (n >= 2 && head[0] == 0x1f && head[1] == 0x9d)
		return TSR_UNPACK_COMPRESS;
	if (n >= 4 && memcmp(head, "BZh", 3) == 0 && head[3] >= '1' && head[3] <= '9')
		return TSR_UNPACK_BZIP2;
	return TSR_UNPACK_NONE;
}

const char *tsr_unpack_name(enum tsr_unpack_kind kind)
{
	switch (kind) {
	case TSR_UNPACK_GZIP: return "gzip";
	case TSR_UNPACK_BZIP2: return "bzip2";
	case TSR_UNPACK_COMPRESS: return "compress";
	default: return "none";
	}
}

uint64_t tsr_unpack_limit(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	if (pages <= 0 || page <= 0)
		return (uint64_t)4 << 30;
	return (uint64_t)pages * (uint64_t)page / 2;
}

/* Are in[0, n) all zero bytes? (Tape-padded archives end so; gzip and bzip2 accept it.) */
static int tsr_all_zero(const unsigned char *in, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (in[i])
			return 0;
	return 1;
}

static int tsr_too_big(const char *what, uint64_t limit)
{
	return tsr_error(TSR_E_NOMEM, "%s: the decompressed file is larger than %llu bytes "
			 "(the limit, half of this machine's memory)", what,
			 (unsigned long long)limit);
}

static int tsr_gunzip(const unsigned char *in, size_t n, unsigned char *out, size_t cap,
		      uint64_t limit, size_t *used_ret)
{
	struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
	if (!d)
		return tsr_error(TSR_E_NOMEM, "out of memory");
	size_t pos = 0, used = 0;
	int st = TSR_OK;
	for (int member = 1;; member++) {
		size_t ain = 0, aout = 0;
		enum libdeflate_result r = libdeflate_gzip_decompress_ex(d, in + pos, n - pos,
									 out + used, cap - used,
									 &ain, &aout);
		if (r == LIBDEFLATE_INSUFFICIENT_SPACE) {
			st = tsr_too_big("gzip", limit);
			break;
		}
		if (r != LIBDEFLATE_SUCCESS) {
			st = tsr_error(TSR_E_CORRUPT, "gzip: member %d (at byte %zu of the %zu "
				       "bytes) is truncated or corrupt", member, pos, n);
			break;
		}
		pos += ain;
		used += aout;
		if (pos == n || tsr_all_zero(in + pos, n - pos))
			break;
		if (n - pos < 2 || in[pos] != 0x1f || in[pos + 1] != 0x8b) {
			st = tsr_error(TSR_E_CORRUPT, "gzip: %zu bytes after member %d (at byte %zu) "
				       "are not gzip data", n - pos, member, pos);
			break;
		}
	}
	libdeflate_free_decompressor(d);
	*used_ret = used;
	return st;
}

static int tsr_bunzip(const unsigned char *in, size_t n, unsigned char *out, size_t cap,
		      uint64_t limit, size_t *used_ret)
{
	size_t pos = 0, used = 0;
	int st = TSR_OK;
	for (int stream = 1; st == TSR_OK; stream++) {
		bz_stream s;
		memset(&s, 0, sizeof(s));
		if (BZ2_bzDecompressInit(&s, 0, 0) != BZ_OK)
			return tsr_error(TSR_E_NOMEM, "bzip2: out of memory");
		int rc;
		do {
			unsigned ain = (unsigned)(n - pos < TSR_BZ_PIECE ? n - pos : TSR_BZ_PIECE);
			unsigned aout = (unsigned)(cap - used < TSR_BZ_PIECE ? cap - used : TSR_BZ_PIECE);
			s.next_in = (char *)(in + pos);
			s.avail_in = ain;
			s.next_out = (char *)(out + used);
			s.avail_out = aout;
			rc = BZ2_bzDecompress(&s);
			pos += ain - s.avail_in;
			used += aout - s.avail_out;
			if (rc == BZ_OK && ain == s.avail_in && aout == s.avail_out) {
				/* no progress: out of room, or out of input before the stream's end */
				if (used == cap)
					st = tsr_too_big("bzip2", limit);
				else
					st = tsr_error(TSR_E_CORRUPT, "bzip2: stream %d is truncated "
						       "(the file ends at byte %zu before its end)",
						       stream, n);
			}
		} while (rc == BZ_OK && st == TSR_OK);
		BZ2_bzDecompressEnd(&s);
		if (st)
			break;
		if (rc == BZ_MEM_ERROR) {
			st = tsr_error(TSR_E_NOMEM, "bzip2: out of memory");
		} else if (rc != BZ_STREAM_END) {
			st = tsr_error(TSR_E_CORRUPT, "bzip2: stream %d is corrupt (libbz2 error %d "
				       "near byte %zu)", stream, rc, pos);
		} else if (pos == n || tsr_all_zero(in + pos, n - pos)) {
			break;
		} else if (tsr_unpack_sniff(in + pos, n - pos) != TSR_UNPACK_BZIP2) {
			st = tsr_error(TSR_E_CORRUPT, "bzip2: %zu bytes after stream %d (at byte %zu) "
				       "are not bzip2 data", n - pos, stream, pos);
		}
	}
	*used_ret = used;
	return st;
}

int tsr_unpack(enum tsr_unpack_kind kind, const unsigned char *in, size_t n, uint64_t limit,
	       int *fd_ret, uint64_t *nbytes_ret)
{
	uint64_t cap = limit;
	if (kind == TSR_UNPACK_GZIP && n < (UINT64_MAX - 65536) / TSR_DEFLATE_MAX_RATIO &&
	    (uint64_t)n * TSR_DEFLATE_MAX_RATIO + 65536 < cap)
		cap = (uint64_t)n * TSR_DEFLATE_MAX_RATIO + 65536; /* all the room gzip can use */
	if (cap > (uint64_t)1 << 46) /* a mapping the address space holds */
		cap = (uint64_t)1 << 46;
	if (cap == 0)
		cap = 1;
	int fd = tsr_file_memfd();
	if (fd < 0)
		return tsr_error(TSR_E_IO, "a memory file for decompressing: %s", strerror(errno));
	unsigned char *out = MAP_FAILED;
	if (ftruncate(fd, (off_t)cap) == 0)
		out = mmap(NULL, (size_t)cap, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (out == MAP_FAILED) {
		int e = errno;
		close(fd);
		return tsr_error(TSR_E_NOMEM, "a %llu-byte memory file for decompressing: %s",
				 (unsigned long long)cap, strerror(e));
	}
	size_t used = 0;
	int st;
	switch (kind) {
	case TSR_UNPACK_GZIP:
		st = tsr_gunzip(in, n, out, (size_t)cap, limit, &used);
		break;
	case TSR_UNPACK_BZIP2:
		st = tsr_bunzip(in, n, out, (size_t)cap, limit, &used);
		break;
	case TSR_UNPACK_COMPRESS:
		st = tsr_lzw_decode(in, n, out, (size_t)cap, &used);
		if (st == TSR_E_TOO_SMALL)
			st = tsr_too_big("compress", limit);
		break;
	default:
		st = tsr_error(TSR_E_INTERNAL, "unpack: no compression");
	}
	munmap(out, (size_t)cap);
	/* the pages past the end go back now */
	if (st == TSR_OK && ftruncate(fd, (off_t)used) != 0)
		st = tsr_error(TSR_E_IO, "memory file: %s", strerror(errno));
	if (st) {
		close(fd);
		return st;
	}
	*fd_ret = fd;
	*nbytes_ret = used;
	return TSR_OK;
}

int tsr_unpack_file(const char *path, enum tsr_unpack_kind kind, int *fd, uint64_t *nbytes)
{
	if (*nbytes > SIZE_MAX)
		return tsr_error(TSR_E_UNSUPPORTED, "%s: too large to map", path);
	/* The compressed bytes are mapped, not read: the page cache holds them already. */
	void *in = mmap(NULL, (size_t)*nbytes, PROT_READ, MAP_PRIVATE, *fd, 0);
	if (in == MAP_FAILED)
		return tsr_error(TSR_E_IO, "%s: mmap: %s", path, strerror(errno));
	int mfd = -1;
	uint64_t n = 0;
	int st = tsr_unpack(kind, in, (size_t)*nbytes, tsr_unpack_limit(), &mfd, &n);
	munmap(in, (size_t)*nbytes);
	if (st) {
		tsr_error_prefix("%s", path);
		return st;
	}
	tsr_file_close(*fd);
	*fd = mfd;
	*nbytes = n;
	return TSR_OK;
}

int tsr_unpack_array(struct tsr_array *a, enum tsr_unpack_kind kind)
{
	int st = tsr_unpack_file(a->path, kind, &a->fd, &a->file_nbytes);
	if (st == TSR_OK)
		a->unpacked = tsr_unpack_name(kind);
	return st;
}
