/* storage.h - storage backends behind one interface: a chunk's stored bytes read into host, pinned or device memory. */
#ifndef TSR_STORAGE_H
#define TSR_STORAGE_H

#include <stddef.h>
#include <stdint.h>

#include "../core/array.h"
#include "../core/chunk.h"
#include "cufile.h"
#include "io.h"

/*
 * A read picks its backend once (tsr_storage_select, from the read options' storage setting);
 * the engines then only call it. posix reads files with pread into host or pinned memory;
 * cufile reads them straight into device memory; mock-host replays the stored bytes a handle
 * read once from memory (to time decoding alone), and mock-device replays them from device
 * memory too. What an engine may ask of a backend is what its fields say, never its name.
 */

struct tsr_backend;

/* Bit of a destination memory kind (TSR_MEM_HOST, _HOST_PINNED, _CUDA) in tsr_storage.mems. */
#define TSR_MEMBIT(m) (1u << (m))

/*
 * One reader's way into storage (one thread's): the chunk or file it has open, and the files it
 * keeps open for the next chunk of the same file (inner chunks of a shard, tiles of a heap).
 */
struct tsr_source {
	const struct tsr_backend *be;
	const struct tsr_array *array;  /* whose chunks it opens (NULL: opened by path only) */
	struct tsr_fd_cache files;      /* posix: the last file opened */
	struct tsr_cufile_file cf;      /* cufile: the last file opened */
	int fd, owned;                  /* posix: the open chunk's descriptor; owned: closed on
					   release (a path too long to keep) */
	uint64_t base;                  /* file offset of the open chunk's bytes (0: a file) */
	const unsigned char *mem;       /* mock: the open chunk's cached bytes */
	uint64_t mem_nbytes;
};

/* A chunk's stored bytes mapped read-only into host memory (tsr_backend.map). */
struct tsr_map {
	void *base;             /* the mapping (NULL: none) */
	size_t len;
	const unsigned char *bytes; /* the chunk's first byte */
};

struct tsr_backend {
	const char *name;       /* as receipts name it */
	unsigned mems;          /* the memory kinds its reads write (TSR_MEMBIT) */
	/* Before a read's tasks run, on the reading thread (NULL: nothing to do): the mock
	 * backends fill the handle's cache with the read's chunks, chunks[k * stride] for k <
	 * n (the plan's task words as they are: io takes chunk numbers, not plans). */
	int (*prepare)(struct tsr_array *array, const int64_t *chunks, int64_t n, int64_t stride);
	/* A chunk's description as this backend serves it, ndim set. settle: a chunk file's size
	 * is made exact (and a missing one fill, where the format says so) now, not at its read;
	 * the mock backends give the one their fill's real read settled. */
	int (*chunk_ref)(const struct tsr_array *array, int64_t chunk, int settle,
			 struct tsr_chunk_ref *ref);
	/* Optional (NULL: none): chunk's description from ref, chunk - 1's as chunk_ref gave it,
	 * where the two differ only in offset, nbytes and the xform's scale, zero and dither_row
	 * (1), as the driver's chunk_next says (core/array.h); 0: ask chunk_ref. */
	int (*chunk_next)(const struct tsr_array *array, int64_t chunk, int settle,
			  struct tsr_chunk_ref *ref);
	/* Opens a chunk's stored bytes for reads (a whole-file size settled); a chunk file that
	 * does not exist is TSR_E_NOT_FOUND. */
	int (*open)(struct tsr_source *src, int64_t chunk, struct tsr_chunk_ref *ref);
	/* Opens a file by its path: reads then take file offsets. */
	int (*open_path)(struct tsr_source *src, const char *path);
	/* nbytes at offset (into the open chunk's bytes, or the open file) to dst + at, memory of
	 * kind mem (one of mems); a source that ends early is TSR_E_IO. */
	int (*read)(struct tsr_source *src, int mem, void *dst, size_t at, size_t nbytes,
		    uint64_t offset);
	/* Optional (NULL: none): the open chunk's nbytes stored bytes mapped read-only into host
	 * memory, *m until tsr_storage_unmap, for a reader that looks at few of them while other
	 * reads take them elsewhere (the CUDA feed's: a blosc chunk's headers on the host, its
	 * bytes to the device). No slack past the chunk's end may be read. A file that ends before
	 * the chunk's bytes is TSR_E_IO. */
	int (*map)(struct tsr_source *src, uint64_t nbytes, struct tsr_map *m);
	/* Done with the open chunk (files stay open for the next one). */
	void (*release)(struct tsr_source *src);
	/* Closes all the source holds. */
	void (*close)(struct tsr_source *src);
	/* Backends that hold whole chunks in host memory (NULL: the others): the stored bytes of
	 * a chunk prepare cached, with 64 zeroed bytes of slack, shared by all threads (only
	 * read), or NULL. */
	const unsigned char *(*lend)(const struct tsr_array *array, int64_t chunk);
	/* Backends that keep chunks in device memory (NULL: the others): the device address of
	 * what the handle keeps of a chunk (kind: TSR_KEEP_STORED its stored bytes, as lend gives
	 * them; TSR_KEEP_VALUES the values the CPU decoded of them), or 0, with its size ... */
	uint64_t (*kept)(const struct tsr_array *array, int64_t chunk, int kind,
			 uint64_t *nbytes_ret);
	/* ... and keeps nbytes of host memory there as chunk's kind (once: the first stays),
	 * returning the address. The caller serialises calls on one array. */
	int (*keep)(struct tsr_array *array, int64_t chunk, int kind, const void *host,
		    size_t nbytes, uint64_t *addr_ret);
	/* A backend whose reads write no host memory (cufile): the one that reads its chunks into
	 * host memory for the CPU to decode (NULL: this one does). */
	const struct tsr_backend *host;
};

/* What a device-keeping backend keeps of a chunk (tsr_backend.kept). */
enum { TSR_KEEP_STORED = 0, TSR_KEEP_VALUES = 1 };

extern const struct tsr_backend tsr_storage_posix;       /* posix.c */
extern const struct tsr_backend tsr_storage_cufile;      /* cufile.c */
extern const struct tsr_backend tsr_storage_mock_host;   /* mock.c */
extern const struct tsr_backend tsr_storage_mock_device; /* mock_device.c */

/* The format driver's description of a chunk, ndim set (posix.c): the file backends' chunk_ref. */
int tsr_storage_file_chunk_ref(const struct tsr_array *array, int64_t chunk, int settle,
			       struct tsr_chunk_ref *ref);
/* The driver's chunk_next, settled: the file backends' chunk_next. */
int tsr_storage_file_chunk_next(const struct tsr_array *array, int64_t chunk, int settle,
				struct tsr_chunk_ref *ref);

/* A read's backend (storage.c). */
struct tsr_storage_choice {
	const struct tsr_backend *be;
	int automatic;          /* TSR_STORAGE_REAL: the library chose */
	char why[256];          /* automatic, into device memory, and not cuFile: why not */
	int by_path;            /* the array's files may be opened by their paths (reads that
				   outlive the array, the CUDA feed's); not a file decompressed in
				   memory when opened, whose path holds other bytes */
};
/* Chooses the backend of a read of array from storage (enum tsr_storage) into device memory
 * (on_device) or host memory: TSR_STORAGE_REAL is cuFile where it runs natively and the file's
 * bytes are on disk as they are (choice->why says why not), else posix. A storage value none
 * of the enum's is TSR_E_INVALID_ARG; cufile and mock-device storage into host memory, cufile
 * storage where it cannot run or for a file decompressed in memory, TSR_E_UNSUPPORTED: each
 * message names the array's file. */
int tsr_storage_select(const struct tsr_array *array, int storage, int on_device,
		       struct tsr_storage_choice *choice);

/* A reader on be for array's chunks (array NULL: files by path only); tsr_source_close ends it. */
void tsr_source_init(struct tsr_source *src, const struct tsr_backend *be,
		     const struct tsr_array *array);
void tsr_source_close(struct tsr_source *src);

/* A chunk's whole stored bytes in host memory: lent by a backend that holds them (*bytes_ret
 * points into its cache), else read into *buf (grown as needed, 64 zeroed bytes of slack) and
 * *bytes_ret = *buf. A chunk file that does not exist becomes a fill chunk where
 * ref->missing_is_fill (nothing is read: ref->nbytes is 0). */
int tsr_storage_fetch(struct tsr_source *src, int64_t chunk, struct tsr_chunk_ref *ref,
		      unsigned char **buf, size_t *cap, const unsigned char **bytes_ret);

/* Maps chunk's stored bytes (ref as tsr_storage_fetch's) into *m: the backend's open, map and
 * release; TSR_E_UNSUPPORTED for a backend without map. Ended by tsr_storage_unmap. */
int tsr_storage_map(struct tsr_source *src, int64_t chunk, struct tsr_chunk_ref *ref,
		    struct tsr_map *m);

/* Ends a mapping that tsr_backend.map made (posix.c); none (m->base NULL): nothing. m is zeroed. */
void tsr_storage_unmap(struct tsr_map *m);

/* Copies a chunk's n stored bytes from src into *buf (made to hold them by tsr_storage_room) and
 * zeroes the 64 bytes of slack after them: for a decoder, from bytes with no slack of their own
 * (a slot's staging, a mapping). TSR_E_NOMEM. */
int tsr_storage_copy(unsigned char **buf, size_t *cap, const void *src, uint64_t n);

/* Makes *buf (*cap bytes) hold n bytes and the 64 bytes of slack decoders may read past a
 * chunk's end (its old contents are not kept; *buf is made even for n 0). TSR_E_NOMEM. */
int tsr_storage_room(unsigned char **buf, size_t *cap, uint64_t n);

/* tsr_chunk_fetch_part's reader over an open source (arg: the struct tsr_source), into host
 * memory. */
int tsr_source_read_host(void *arg, void *dst, size_t nbytes, uint64_t offset);

/*
 * Read coalescing and piece splitting (coalesce.c), the one rule for every engine: spans that
 * lie back to back both in their file and in their destination become one read, and a span not
 * merged is read in pieces, so that several threads share a large one.
 */
struct tsr_span {
	const char *file;       /* which file: spans of equal strings are in the same one */
	uint64_t offset, nbytes; /* in the file */
	uint64_t dst;           /* where its first byte lands (bytes into the destination) */
};
/* One read: spans [span, span + nspans) merged (nspans > 1), or a part of span. */
struct tsr_piece {
	int64_t span, nspans;
	uint64_t offset, nbytes, dst;
};
struct tsr_coalesce_rule {
	uint64_t start_max;     /* a run of spans starts only at a span of at most this many bytes */
	uint64_t join_max;      /* and takes in only spans of at most this many */
	uint64_t run_max;       /* and grows up to this many in all */
	uint64_t piece;         /* a span read alone is read in pieces of at most this (> 0) */
	uint64_t whole_max;     /* but one of at most this many bytes in one read (0: none) */
};
/* Greedy, in the spans' order: each span that is not empty starts a run unless it is too large
 * to; a run takes in the next spans while each lies right after it in the same file and in the
 * destination and fits. Empty spans are read only inside a run. Appends the reads to *pieces
 * (*npieces of them, capacity *cap; grown); TSR_E_NOMEM when it cannot grow. */
int tsr_coalesce(const struct tsr_span *spans, int64_t nspans, const struct tsr_coalesce_rule *rule,
		 struct tsr_piece **pieces, int64_t *npieces, size_t *cap);

#endif
