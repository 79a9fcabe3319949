/* tessera.h - the public C API of libtessera: chunked, compressed arrays into memory. */
#ifndef TESSERA_H
#define TESSERA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TSR_VERSION_MAJOR 0
#define TSR_VERSION_MINOR 1
#define TSR_VERSION_PATCH 0
#define TSR_VERSION_STRING "0.1.0"

/* The most dimensions an array or a selection result may have. */
#define TSR_MAX_DIM 32

#if defined(__GNUC__)
#define TSR_API __attribute__((visibility("default")))
#else
#define TSR_API
#endif

/*
 * Status codes. Every fallible call returns TSR_OK (0) or one of these negative codes;
 * tsr_strerror() names them and tsr_errmsg() gives the detail of this thread's last failure
 * (file, HDU/array, chunk/tile, what was wrong). Each call's comment below names the codes
 * it can return; TSR_E_INTERNAL, where named, marks a bug in tessera. Calls that return
 * something other than a status (names, sizes, counts, the *_free calls) cannot fail.
 */
#define TSR_STATUS_LIST(X)                                                          \
	X(TSR_OK, 0, "success")                                                     \
	X(TSR_E_INVALID_ARG, -1, "invalid argument")                                \
	X(TSR_E_NOMEM, -2, "out of memory")                                         \
	X(TSR_E_IO, -3, "I/O error")                                                \
	X(TSR_E_FORMAT, -4, "malformed file or metadata")                           \
	X(TSR_E_UNSUPPORTED, -5, "unsupported feature")                             \
	X(TSR_E_CORRUPT, -6, "corrupt compressed data")                             \
	X(TSR_E_RANGE, -7, "index out of range")                                    \
	X(TSR_E_SELECTION, -8, "malformed selection")                               \
	X(TSR_E_NOT_FOUND, -9, "not found")                                         \
	X(TSR_E_TOO_SMALL, -10, "destination buffer too small")                     \
	X(TSR_E_NO_DEVICE, -11, "device or memory space not available")             \
	X(TSR_E_INTERNAL, -12, "internal error")                                    \
	X(TSR_E_STOPPED, -13, "read stopped by the caller")

enum tsr_status {
#define TSR_X_ENUM(name, value, text) name = value,
	TSR_STATUS_LIST(TSR_X_ENUM)
#undef TSR_X_ENUM
};

/* tsr_strerror() returns a static description of a status code. */
TSR_API const char *tsr_strerror(int status);
/* tsr_status_name() returns the code's name, e.g. "TSR_E_CORRUPT". */
TSR_API const char *tsr_status_name(int status);
/*
 * tsr_errmsg() returns the detailed message of the calling thread's last failed call
 * ("c.fits: HDU 1: tile 7: RICE_1: block 3 runs past the end of the tile"). The string
 * stays valid until this thread's next tessera call. Threads never see each other's messages.
 */
TSR_API const char *tsr_errmsg(void);

/* Library version as a string ("0.1.0"). */
TSR_API const char *tsr_version(void);

/* Element types, as NumPy names them. */
enum tsr_dtype {
	TSR_DTYPE_INVALID = 0,
	TSR_BOOL,
	TSR_INT8,
	TSR_INT16,
	TSR_INT32,
	TSR_INT64,
	TSR_UINT8,
	TSR_UINT16,
	TSR_UINT32,
	TSR_UINT64,
	TSR_FLOAT16,
	TSR_FLOAT32,
	TSR_FLOAT64,
	TSR_COMPLEX64,
	TSR_COMPLEX128,
	/* Added later. NumPy datetime64 / timedelta64: int64 counts of a unit that
	 * tsr_array_info's descr names ("<M8[ns]", "<m8[10s]"); NaT is INT64_MIN. */
	TSR_DATETIME64,
	TSR_TIMEDELTA64,
	/* Raw elements of n bytes, n in [1, TSR_DTYPE_RAW_MAX]: the value TSR_DTYPE_RAW + n
	 * (TSR_DTYPE_RAW_OF(n)). Fixed-length bytes and unicode strings and structured dtypes
	 * ("|S8", "<U8", "[('a', '<i4'), ('b', '<f8')]"): tsr_array_info's descr is their exact
	 * NumPy dtype. Their bytes are delivered as stored (descr says the byte order). */
	TSR_DTYPE_RAW = 0x10000,
	TSR_DTYPE_RAW_LAST = 0x10000 + 0xfffff,
};
#define TSR_DTYPE_RAW_MAX 0xfffff
#define TSR_DTYPE_RAW_OF(n) ((enum tsr_dtype)(TSR_DTYPE_RAW + (n)))

/* tsr_dtype_size() returns the size in bytes of one element, 0 for an invalid dtype. */
TSR_API size_t tsr_dtype_size(enum tsr_dtype dtype);
/* tsr_dtype_name() returns the NumPy name ("int16", "float32", ..., "datetime64", "raw"). */
TSR_API const char *tsr_dtype_name(enum tsr_dtype dtype);
/* tsr_dtype_npy_descr() returns the NPY descr in little-endian ("<i2", "|u1", ...); "<M8" and
 * "<m8" without their unit, and "" for raw dtypes: an array's exact dtype is
 * tsr_array_info's descr. */
TSR_API const char *tsr_dtype_npy_descr(enum tsr_dtype dtype);

/* Options structs (tsr_context_options, tsr_open_options, tsr_read_options,
 * tsr_stream_options) start with struct_size = sizeof the struct as the caller's tessera.h has
 * it, and only grow at the end. A library reads a shorter (older) struct, down to the first
 * published one, with the defaults of the fields it lacks, and a longer (newer) one when the
 * fields it does not know are zero; other sizes are TSR_E_INVALID_ARG. Every call that takes
 * such a struct checks it before any other work (before any file opens). */

/* ---------------------------------------------------------------------------------------- */
/* Context: thread pool and shared settings. Thread-safe: many threads may read through one
 * context at once. Host reads from several threads share the pool in turn (a read that needs
 * one chunk runs on its caller alone); GPU reads through one context are serialised. Host
 * memory a context keeps from read to read, until tsr_context_free: its workers' codec states
 * and small buffers, and the stored bytes' buffers of the large blosc chunks a read split over
 * its threads (at most 256 MiB of them). On each CUDA device it has read into it keeps its
 * staging ring (six slots of pinned host and device buffers, sized by the largest reads), and
 * the GPU decoders keep their scratch in a pool of the device's that every context shares;
 * tsr_context_free releases the ring and returns the pool's unused memory to the driver, and
 * tsr_context_trim does so while the context lives.
 *
 * A fork's child may go on using a context (and its arrays and streams) made before the fork, as
 * multiprocessing workers do: its first read there starts the context's worker threads again,
 * which the child does not inherit. That holds when no other thread of the parent was inside a
 * tessera call at the fork (its locks would stay taken in the child), and for host memory:
 * CUDA does not survive a fork of a process that used it. */

struct tsr_context;

struct tsr_context_options {
	size_t struct_size;    /* sizeof(struct tsr_context_options) */
	int nthreads;          /* worker threads; 0 = all online CPUs (at most 256), 1 = decode on
				  the caller; at most 1024 */
};

/* tsr_context_create() makes a context. Returns TSR_OK; TSR_E_INVALID_ARG (NULL ctx_ret, a
 * struct_size it does not accept, nthreads < 0 or > 1024); TSR_E_NOMEM (also when a worker thread
 * cannot be started). */
TSR_API int tsr_context_create(const struct tsr_context_options *opts, /* NULL: defaults */
			       struct tsr_context **ctx_ret);
/* tsr_context_free() frees a context; NULL is a no-op. Arrays opened on it must be freed first. */
TSR_API void tsr_context_free(struct tsr_context *ctx);
/* tsr_context_trim() gives back the memory ctx keeps between reads (above): idle workers' codec
 * states and buffers, the split chunks' spare buffers, and on each CUDA device its staging ring
 * (pinned host and device buffers), the feed's pinned bounce buffers and the GPU decoders'
 * unused scratch, as a caching allocator's empty-cache call does; later reads allocate what they
 * need again (a first read's cost). It waits for the GPU reads in flight through ctx (they are
 * serialised) and may be called while other threads read: reads running keep their memory, and
 * a device whose staging ring a batch read holds between its files keeps it. Returns TSR_OK, or
 * TSR_E_INVALID_ARG (NULL ctx). */
TSR_API int tsr_context_trim(struct tsr_context *ctx);
/* tsr_context_nthreads() returns how many threads decode for this context. */
TSR_API int tsr_context_nthreads(const struct tsr_context *ctx);

/* ---------------------------------------------------------------------------------------- */
/* Arrays. An array is one FITS image HDU, one Zarr array or one Blosc2 array. Reading one
 * handle from many threads at once is safe (tsr_read, tsr_read_alloc, tsr_array_info,
 * tsr_selection_shape: the tests read one handle from 16 threads under ThreadSanitizer);
 * tsr_array_free must not race with them. */

struct tsr_array;

/* tsr_open() picks the format from what path is: a FITS file, a Zarr v2/v3 store (a directory
 * with .zarray/.zgroup/zarr.json), or a Blosc2 frame (a .b2nd/.b2frame file, or a sparse
 * frame directory). A FITS file compressed whole (gzip, as .fits.gz; bzip2, .fits.bz2; unix
 * compress, .fits.Z; told by its first bytes, not its name) is decompressed into memory when
 * opened (no file on disk) and read from there; the handle holds that copy until freed, and one
 * larger than half of the machine's memory is TSR_E_NOMEM.
 *
 * NULL options are the defaults TSR_OPEN_OPTIONS_INIT holds: hdu and level -1. A struct zeroed
 * but for struct_size has hdu 0, the primary HDU, where the default is the first HDU with image
 * data (a tile-compressed .fz file's image is HDU 1): start from TSR_OPEN_OPTIONS_INIT, or set
 * hdu to -1. */
/* The longest EXTNAME tessera names and opens, in bytes: a FITS string of more than 68
 * characters goes on over CONTINUE cards (astropy writes long names so); a longer one is
 * listed cut to this length. */
#define TSR_HDU_NAME_MAX 1023

struct tsr_open_options {
	size_t struct_size;    /* sizeof(struct tsr_open_options) */
	int hdu;               /* FITS: HDU index as astropy counts (primary = 0); -1 = the first
				  HDU with image data */
	int raw;               /* 1: stored values (no BSCALE/BZERO, no dequantization) */
	const char *array;     /* Zarr: path of the array inside the store; NULL or "" = the
				  store itself (or, for a group, see tsr_open's notes) */
	int level;             /* OME-Zarr: multiscale level (dataset index); 0 (or -1) = the
				  first; ignored for arrays that are not multiscale when <= 0 */
	const char *hdu_name;  /* FITS: the HDU whose EXTNAME this is (blanks and case ignored,
				  "PRIMARY" also names HDU 0, as astropy; up to TSR_HDU_NAME_MAX
				  bytes); when set, hdu is ignored; none such is TSR_E_NOT_FOUND.
				  NULL or "": hdu decides */
	int hdu_ver;           /* with hdu_name: its EXTVER (absent counts as 1); 0 = the first
				  HDU of that name */
	/* Added later: a caller's struct_size from before gets NULL. */
	/* The dtype to read the items as, in NumPy's spelling ("<f4", "f4", "float32", "|u1",
	 * "int16", "bool"); NULL or "" = the file's. Plain Blosc2 super-chunks store only an item
	 * size: without this they read as the unsigned integers of that size (uint8/16/32/64;
	 * other sizes are an error asking for a dtype), and '<' or '>' names their byte order
	 * (no order: the chunks' own flag). For any other array it reinterprets the values read
	 * (NumPy's a.view(dtype)): the size must match the array's dtype (else
	 * TSR_E_INVALID_ARG), and '>' is refused (values come back in native order). */
	const char *dtype;
};
/* The defaults, for a struct to set some fields of: struct tsr_open_options o =
 * TSR_OPEN_OPTIONS_INIT; o.raw = 1; (C and C++ alike). */
#define TSR_OPEN_OPTIONS_INIT {sizeof(struct tsr_open_options), -1, 0, NULL, -1, NULL, 0, NULL}

/*
 * tsr_open() returns TSR_OK; TSR_E_INVALID_ARG (NULL ctx, path or array_ret, a struct_size it
 * does not accept, an hdu or level below -1, an hdu_name over 1023 bytes, an hdu_ver below 0,
 * a Zarr array path with "." or ".." among its parts, a dtype it does not know or whose item
 * size is not the array's);
 * TSR_E_NOT_FOUND (no such path; no HDU of that hdu_name/hdu_ver, no HDU with image data, or
 * an hdu chosen by index with none; a Zarr array path the store lacks, or a group that is not
 * multiscale; an array path in a FITS file or a Blosc2 frame, an hdu_name of a Zarr store or
 * a frame); TSR_E_RANGE (an HDU index past the last HDU, a multiscale level past the last, a
 * level > 0 of an array that is not multiscale, of a FITS file or of a frame, an hdu > 0 of a
 * Zarr store or a Blosc2 frame: an option the format does not take is refused, not ignored); TSR_E_IO (it cannot be read); TSR_E_FORMAT (no format claims
 * it, or a header or metadata document is malformed); TSR_E_UNSUPPORTED (a feature tessera
 * does not read, a '>' dtype, an array of more than INT64_MAX elements); TSR_E_CORRUPT (a whole-file compressed FITS file that does not
 * decompress, a zip store's metadata that does not inflate, a Blosc2 frame's chunk index that
 * does not decode); TSR_E_NOMEM (also a decompressed FITS file larger than half of the
 * machine's memory).
 */
TSR_API int tsr_open(struct tsr_context *ctx, const char *path,
		     const struct tsr_open_options *opts, /* NULL: defaults */
		     struct tsr_array **array_ret);
/*
 * tsr_list_arrays() lists the arrays of the Zarr store at path, sorted (component by component:
 * "cell/0" before "cell-2"): their paths inside the
 * store ("labels/ids"; "" when the store is itself an array; a node whose metadata is there
 * but does not load among them, as tsr_list). *names_ret is one allocation (the
 * count_ret pointers, a NULL, then the strings): free it with tsr_free(). A path that is not a
 * Zarr store is TSR_E_FORMAT.
 * Returns TSR_OK; TSR_E_INVALID_ARG (NULL argument); TSR_E_NOT_FOUND (no such path);
 * TSR_E_FORMAT (not a directory or a zip file; malformed metadata); TSR_E_IO;
 * TSR_E_UNSUPPORTED or TSR_E_CORRUPT (a zip store tessera cannot read: split over disks,
 * encrypted, another compression method; an entry that does not inflate); TSR_E_NOMEM.
 */
TSR_API int tsr_list_arrays(const char *path, char ***names_ret, size_t *count_ret);

/* tsr_array_free() closes an array; NULL is a no-op. */
TSR_API void tsr_array_free(struct tsr_array *array);

struct tsr_array_info {
	size_t struct_size;            /* set by the caller: sizeof(struct tsr_array_info) */
	const char *format;            /* "fits", "zarr", "blosc2" */
	const char *path;
	int index;                     /* FITS: HDU index */
	enum tsr_dtype dtype;          /* dtype that tsr_read() returns */
	enum tsr_dtype stored_dtype;   /* dtype stored in the file (before scaling) */
	int ndim;
	int64_t shape[TSR_MAX_DIM];    /* C order (slowest axis first), as NumPy */
	int64_t chunk_shape[TSR_MAX_DIM]; /* tile / chunk shape, C order */
	int64_t nchunks;
	const char *codec;             /* "none", "GZIP_1", "RICE_1", ... */
	const char *reader;            /* "tessera" or "cfitsio" (fallback) */
	uint64_t stored_nbytes;        /* bytes of the data in the file (compressed); 0 for
					  Zarr, where it would take listing every chunk
					  (tsr_array_metadata's stored_nbytes counts them) */
	int scaled;                    /* 1 when values are transformed (BSCALE/BZERO, quantized) */
	/* Added later: a caller's struct_size from before gets the fields it has room for. */
	const char *descr;             /* the exact NumPy dtype of what tsr_read returns, as an NPY
					  header's 'descr' writes it: "<f4", "|S8", "<M8[ns]", or a
					  structured list "[('a', '<i4'), ('b', '>f8', (2,))]" */
	const char *dtype_source;      /* where dtype comes from: "file", "caller"
					  (tsr_open_options.dtype) or "itemsize" (the file names no
					  dtype: unsigned integers of its item size) */
	int level;                     /* the OME-Zarr multiscale level the array was opened as
					  (a group's dataset, tsr_open_options.level); -1: not
					  opened through a multiscale group (any FITS HDU, Blosc2
					  frame, or Zarr array opened by its own path) */
	/* Added later still (a struct_size from before gets what it has room for): */
	const char *name;              /* the array's name in its file, as tsr_list names it:
					  Zarr, its path in the store ("labels/ids"; an OME level's
					  own, "0"; "" for a store that is an array itself); FITS,
					  the HDU's EXTNAME ("" when none); Blosc2, "" */
};

/* Fills *info_ret; its strings live as long as the array. Returns TSR_OK or TSR_E_INVALID_ARG
 * (NULL argument, or a struct_size below the first published struct, which ends at scaled). */
TSR_API int tsr_array_info(const struct tsr_array *array, struct tsr_array_info *info_ret);

/* ---------------------------------------------------------------------------------------- */
/* Selections: NumPy basic indexing (integers, slices with any step, "...", None). */

enum tsr_sel_kind {
	TSR_SEL_INDEX = 1,   /* one integer; removes the axis */
	TSR_SEL_SLICE,       /* start:stop:step, each may be absent */
	TSR_SEL_ELLIPSIS,    /* ... */
	TSR_SEL_NEWAXIS,     /* None */
	/* Added later, for tsr_index only (tsr_selection_normalize and tsr_read refuse them): */
	TSR_SEL_ARRAY,       /* an integer array (tsr_index_add_array) */
	TSR_SEL_MASK,        /* a boolean array (tsr_index_add_mask) */
};

struct tsr_sel_item {
	enum tsr_sel_kind kind;
	int64_t start, stop, step; /* INDEX: start; SLICE: see has_* */
	unsigned char has_start, has_stop, has_step;
};

struct tsr_selection {
	int nitems;
	struct tsr_sel_item items[2 * TSR_MAX_DIM];
};

/* Parses "10:50,3:200", "-1,...,::2", "None,5". An empty string selects everything.
 * Returns TSR_OK; TSR_E_INVALID_ARG (NULL argument); TSR_E_SELECTION (not a selection, with
 * the column in the message). */
TSR_API int tsr_selection_parse(const char *spec, struct tsr_selection *sel_ret);

/* The shape of what a selection selects from an array, with NumPy's rules (sel NULL: all).
 * Returns TSR_OK; TSR_E_INVALID_ARG (NULL array or output, more than 2 * TSR_MAX_DIM items,
 * an item of another kind); TSR_E_SELECTION (two ellipses, more indices than axes, a zero
 * step, a result of more than TSR_MAX_DIM dims); TSR_E_RANGE (an integer index out of
 * bounds). Its message is NumPy's words alone (the caller holds the array); a read's, a
 * batch's and a stream's name the file and HDU or array before them. */
TSR_API int tsr_selection_shape(const struct tsr_array *array, const struct tsr_selection *sel,
				int *ndim_ret, int64_t shape_ret[TSR_MAX_DIM]);

/*
 * Advanced selections: NumPy keys with integer arrays and boolean masks besides the basic items.
 * A tsr_index owns copies of its arrays; build it item by item or parse a spec, then read it
 * with tsr_read_index(). An index is plain data: one may be read from many threads at once.
 *
 * TSR_INDEX_NUMPY is NumPy's own a[key] (zarr's vindex): the integer arrays and masks (a mask
 * of k dims stands for its k nonzero() arrays), and any integers among them, broadcast
 * together to one shape B; the result holds B in place of the indexed axes when those items
 * are adjacent in the key, else at the front. TSR_INDEX_ORTHOGONAL is zarr's and tensorstore's
 * oindex: each 1-D array or mask picks along its own axis, independently of the others.
 * Negative indices count from the end. Out-of-range indices are TSR_E_RANGE; arrays that do not
 * broadcast, masks whose shape is not the indexed axes', too many indices are TSR_E_SELECTION
 * (where NumPy raises IndexError). Reads fetch and decode only the chunks the selected points
 * touch, each once.
 */
enum tsr_index_mode {
	TSR_INDEX_NUMPY = 0,       /* vectorised: NumPy's a[key], zarr's vindex */
	TSR_INDEX_ORTHOGONAL = 1,  /* each axis on its own: zarr's and tensorstore's oindex */
};

struct tsr_index;

/* Returns TSR_OK; TSR_E_INVALID_ARG (NULL index_ret, mode none of enum tsr_index_mode);
 * TSR_E_NOMEM. */
TSR_API int tsr_index_create(int mode, struct tsr_index **index_ret);
/* tsr_index_free() frees an index; NULL is a no-op. */
TSR_API void tsr_index_free(struct tsr_index *index);
/* Appends a basic item (TSR_SEL_INDEX, _SLICE, _ELLIPSIS, _NEWAXIS). Returns TSR_OK;
 * TSR_E_INVALID_ARG (NULL index or item, another kind); TSR_E_SELECTION (the index already
 * has 2 * TSR_MAX_DIM items). */
TSR_API int tsr_index_add_item(struct tsr_index *index, const struct tsr_sel_item *item);
/* Appends an integer array of ndim dims (0 <= ndim <= TSR_MAX_DIM), values in C order (copied).
 * Returns TSR_OK; TSR_E_INVALID_ARG (NULL index, ndim out of range, NULL shape or values where
 * needed, a negative size, too many elements); TSR_E_SELECTION (the index is full, as for
 * tsr_index_add_item); TSR_E_NOMEM. Indices are checked against an array only when read. */
TSR_API int tsr_index_add_array(struct tsr_index *index, int ndim, const int64_t *shape,
				const int64_t *values);
/* Appends a boolean mask of ndim >= 1 dims, one byte per element (nonzero: selected; copied).
 * Returns what tsr_index_add_array returns, for the same reasons. */
TSR_API int tsr_index_add_mask(struct tsr_index *index, int ndim, const int64_t *shape,
			       const unsigned char *mask);
/* Parses a key as Python writes it: basic items as tsr_selection_parse takes them, and lists
 * ("[3, 1, -1]", nested for more dims: "[[0, 1], [2, 3]]") of integers, or of True/False for
 * a mask: "[3,1,3], :, 5", "..., [0, 2]", "[[True, False], [False, True]]". Returns TSR_OK;
 * TSR_E_INVALID_ARG (NULL argument, a mode none of enum tsr_index_mode); TSR_E_SELECTION (not
 * such a key: the column is in the message; lists that are not rectangular, mix integers and
 * booleans or nest deeper than TSR_MAX_DIM; too many items); TSR_E_NOMEM. */
TSR_API int tsr_index_parse(const char *spec, int mode, struct tsr_index **index_ret);
/* The shape of what the index selects from an array, with NumPy's (or oindex's) rules.
 * Returns TSR_OK; TSR_E_INVALID_ARG (NULL argument); TSR_E_SELECTION and TSR_E_RANGE (as the
 * notes above say); TSR_E_NOMEM (the points of large arrays or masks). */
TSR_API int tsr_index_shape(const struct tsr_array *array, const struct tsr_index *index,
			    int *ndim_ret, int64_t shape_ret[TSR_MAX_DIM]);

/* ---------------------------------------------------------------------------------------- */
/* Reading. */

enum tsr_mem {
	TSR_MEM_HOST = 0,
	TSR_MEM_HOST_PINNED,
	TSR_MEM_CUDA,
};

struct tsr_buffer {
	void *data;            /* destination; C order, native byte order, dtype of the array,
				  aligned for it (tsr_read) */
	size_t nbytes;         /* capacity in bytes */
	enum tsr_mem mem;
	void *cuda_stream;     /* cudaStream_t, for TSR_MEM_CUDA */
};

/* Which decoder a CUDA read uses (tsr_read_options.decoder). */
enum tsr_decoder {
	/* GPU kernels where they exist and pay, the CPU for the rest. A GPU inflate kernel runs
	 * one stream per warp, some 40 times slower than a CPU core on one stream: a single read
	 * whose DEFLATE streams are too few and large to keep the GPU busy (its largest stream x
	 * threads x 40 > its decoded bytes: a Zarr array of a few 4 MiB gzip chunks) decodes them
	 * on the CPU's threads, and the receipt says so. Batch and stream reads, whose slots
	 * gather many files' streams, always use the kernels. */
	TSR_DECODER_AUTO = 0,
	TSR_DECODER_CPU = 1,   /* every chunk decoded on the CPU, decoded values copied */
	TSR_DECODER_GPU = 2,   /* GPU kernels wherever they exist, however few the streams */
};

/* Where a read's chunk bytes come from (tsr_read_options.storage). */
enum tsr_storage {
	/* The files, through the backend that serves the read best: for TSR_MEM_CUDA reads
	 * cuFile (GPUDirect Storage) where it runs natively, else POSIX pread into pinned
	 * staging (the receipt's fallback says why cuFile was passed over); POSIX pread for
	 * host reads. */
	TSR_STORAGE_REAL = 0,
	/* The handle's own in-memory copy of the chunks' stored bytes, filled from the files by
	 * the handle's first mock-host read (it reads each chunk a read touches once) and kept
	 * until tsr_array_free: later mock-host reads do no I/O, so they time decoding alone.
	 * A TSR_MEM_CUDA read feeds the device from this copy (decoding and host-to-device
	 * copies, no file I/O); TSR_STORAGE_MOCK_DEVICE leaves the copies out too. */
	TSR_STORAGE_MOCK_HOST = 1,
	/* TSR_MEM_CUDA reads only: what the GPU reads of each chunk (its stored bytes, or the
	 * values the CPU decoded where no GPU decoder exists) is copied once into device memory
	 * kept on the handle until tsr_array_free; later mock-device reads then run the GPU
	 * decode and place kernels straight from it, with no I/O and no host-to-device copy. */
	TSR_STORAGE_MOCK_DEVICE = 2,
	TSR_STORAGE_POSIX = 3,     /* the files, through POSIX pread, always */
	/* The files, through cuFile straight into device memory (TSR_MEM_CUDA reads only): an
	 * error, saying why, where GPUDirect Storage does not run natively. */
	TSR_STORAGE_CUFILE = 4,
};

/* 1 when cuFile (GPUDirect Storage) reads run natively here (libcufile.so.0 loads, its driver
 * opens and reports the nvidia-fs kernel module), else 0; why (may be NULL) gets the reason
 * either way ("compatibility mode only (no nvidia-fs kernel module)"). Worked out once per
 * process. Compatibility mode (cuFile's own POSIX bounce) counts as not usable, unless the
 * environment sets TSR_CUFILE_ALLOW_COMPAT=1 (for tests of this path without GDS). Returns no
 * status code and never fails. */
TSR_API int tsr_cufile_usable(char *why, size_t cap);

/* An options field that holds an enum but was int once: the enum in C (same size and place,
 * and C takes an int for it as before); int in C++, which would refuse a caller's int. */
#ifdef __cplusplus
#define TSR_ENUM_FIELD(e) int
#else
#define TSR_ENUM_FIELD(e) enum e
#endif

struct tsr_read_options {
	size_t struct_size;    /* sizeof(struct tsr_read_options) */
	int nthreads;          /* 0: the context's threads; n: at most n */
	TSR_ENUM_FIELD(tsr_decoder) decoder; /* 0 auto, 1 cpu, 2 gpu (CUDA reads; host reads
						always decode on the CPU) */
	/* Added later: a caller's struct_size from before gets real storage. */
	TSR_ENUM_FIELD(tsr_storage) storage; /* 0 real (auto), 1 mock-host, 2 mock-device,
						3 posix, 4 cufile */
	/* Added later: a caller's struct_size from before names no device. */
	/* CUDA devices (ordinals, as cudaSetDevice counts) of a TSR_MEM_CUDA read; NULL and 0:
	 * the device whose memory the destination is (else the calling thread's current CUDA
	 * device, as before these fields). Each device a context reads on has its own staging
	 * ring, streams, copy lanes and caches. tsr_read, tsr_read_index and tsr_read_batch take
	 * one (the read runs on that device); tsr_read_devices, tsr_read_batch_devices and
	 * tsr_stream_next_devices split their work over all of them, one destination each (a
	 * device listed twice takes both shares in turn). An ordinal that does not exist is
	 * TSR_E_NO_DEVICE naming it and the device count; device memory of the destination on
	 * another device than the read's is TSR_E_INVALID_ARG. Host reads ignore them. */
	const int *devices;
	int ndevices;
	/* Added later: a caller's struct_size from before cannot stop a read. */
	/* Asked between chunks (host reads) and between staging slots (CUDA reads), by any of
	 * the read's threads, at times by several at once: nonzero stops the read, which returns
	 * TSR_E_STOPPED (naming the file) once the chunks under way are done, and the GPU work
	 * sent before it. The destination then holds some chunks' values and not others. A batch
	 * or stream read asks it for each file. NULL: the read is never stopped. stop_arg is
	 * passed to it. (Python's module stops a read this way on Ctrl-C.) */
	int (*stop)(void *stop_arg);
	void *stop_arg;
};

/* What a read really did. */
struct tsr_receipt {
	size_t struct_size;            /* set by the caller: sizeof(struct tsr_receipt) */
	char driver[16];               /* "fits" */
	char backend[16];              /* "posix" */
	char engine[16];               /* "cpu" */
	char codec[32];                /* codec of the chunks decoded */
	char reader[16];               /* "tessera", or "cfitsio" when tiles went through CFITSIO */
	char fallback[160];            /* why a fallback ran; empty when none did */
	int nthreads;
	int64_t chunks_total;          /* chunks in the array */
	int64_t chunks_read;           /* chunks the selection touched */
	uint64_t bytes_read;           /* bytes fetched from storage */
	uint64_t bytes_decoded;        /* bytes the codecs produced */
	uint64_t bytes_out;            /* bytes written to the destination */
	double t_plan, t_fetch, t_decode, t_place; /* seconds; fetch/decode/place summed over threads;
					  plan: the read's own thread's planning (CUDA reads: the
					  chunks' descriptions, routes, stream arguments and place
					  descriptions too) */
	double t_total;                /* wall-clock seconds of the read */
	/* Added later: a caller's struct_size from before (no `decoder`) is still accepted, and
	 * gets the fields it has room for. */
	char decoder[160];             /* what decoded the chunks, CUDA reads: "GZIP_2 tiles decoded
					  on the GPU (tessera inflate kernel)"; empty otherwise */
	/* Added later still (a struct_size from before gets what it has room for): */
	double t_wait;                 /* CUDA reads: seconds the read's own thread waited, for
					  the GPU (a staging slot's earlier batch, the read's end)
					  and for the storage reads of a slot it was sending (it
					  reads too meanwhile); t_total - t_wait is its own work.
					  Summed over the reads of several devices; 0 for host
					  reads */
};

/*
 * tsr_read() reads the selection (NULL: everything) into dst. The destination receives the
 * selected values in C order with the array's dtype; dst->nbytes must be at least the
 * selection's size, and dst->data aligned for the dtype (to its item size, a complex dtype's
 * to its part's, as malloc, cudaMalloc and NumPy give; raw dtypes need none). An empty
 * selection reads nothing, and its dst->data may be NULL. receipt_ret may be NULL. The options
 * and the receipt's struct_size are checked before the selection.
 * Returns TSR_OK; TSR_E_INVALID_ARG (NULL array or dst, a read options struct_size it does not
 * accept, a receipt struct_size below the first published one, a decoder or storage value none
 * of its enum's, dst->data not aligned for the dtype); the selection's errors as
 * tsr_selection_shape() names them (TSR_E_INVALID_ARG, TSR_E_SELECTION, TSR_E_RANGE);
 * TSR_E_TOO_SMALL (dst->nbytes below the selection's size, or NULL dst->data where the
 * selection is not empty);
 * TSR_E_UNSUPPORTED (raw dtypes into device memory, mock-device or cufile storage into host
 * memory, cufile storage where GPUDirect Storage does not run natively, more axes than the
 * CUDA engine places, a codec or feature of the data tessera does not decode);
 * TSR_E_NO_DEVICE (a TSR_MEM_CUDA destination without a CUDA engine or device); TSR_E_IO (a
 * storage read failed, a CUDA call failed: the CUDA helpers' rule below); TSR_E_NOT_FOUND (a chunk file that must exist,
 * such as a Blosc2 sparse frame's, is gone); TSR_E_FORMAT (malformed tile or chunk
 * descriptions); TSR_E_CORRUPT (data that does not decode); TSR_E_NOMEM; TSR_E_INTERNAL.
 */
TSR_API int tsr_read(struct tsr_array *array, const struct tsr_selection *sel,
		     const struct tsr_buffer *dst, const struct tsr_read_options *opts,
		     struct tsr_receipt *receipt_ret);

/*
 * tsr_read_alloc() reads into a buffer the library allocates (host memory); free it with
 * tsr_free(). The shape of the result is returned in ndim_ret/shape_ret.
 * Returns what tsr_read() returns but TSR_E_TOO_SMALL and TSR_E_NO_DEVICE (its destination is
 * host memory, so mock-device and cufile storage are TSR_E_UNSUPPORTED), with
 * TSR_E_INVALID_ARG also for a NULL output pointer, and TSR_E_NOMEM when the result cannot be
 * allocated.
 */
TSR_API int tsr_read_alloc(struct tsr_array *array, const struct tsr_selection *sel,
			   const struct tsr_read_options *opts, void **data_ret, size_t *nbytes_ret,
			   int *ndim_ret, int64_t shape_ret[TSR_MAX_DIM],
			   struct tsr_receipt *receipt_ret);
/*
 * tsr_read_index() and tsr_read_index_alloc() read an advanced selection as tsr_read() and
 * tsr_read_alloc() read a basic one. On a TSR_MEM_CUDA destination the CUDA engine decodes the
 * chunks the points touch as for any read and its place kernel gathers the points on the device.
 * They return what tsr_read() and tsr_read_alloc() return, the index's errors being those
 * tsr_index_shape() names (TSR_E_INVALID_ARG, TSR_E_SELECTION, TSR_E_RANGE, TSR_E_NOMEM).
 */
TSR_API int tsr_read_index(struct tsr_array *array, const struct tsr_index *index,
			   const struct tsr_buffer *dst, const struct tsr_read_options *opts,
			   struct tsr_receipt *receipt_ret);
TSR_API int tsr_read_index_alloc(struct tsr_array *array, const struct tsr_index *index,
				 const struct tsr_read_options *opts, void **data_ret,
				 size_t *nbytes_ret, int *ndim_ret, int64_t shape_ret[TSR_MAX_DIM],
				 struct tsr_receipt *receipt_ret);
/*
 * tsr_read_batch() reads the same array (same open options, same selection) of npaths files
 * into one stacked output of shape (npaths, ...): file i lands at dst->data + i * (bytes per
 * file). Every file must give the same shape and dtype as the first, else TSR_E_FORMAT naming
 * the file. Works for host and CUDA destinations. The receipt sums over the files.
 * Returns TSR_OK; TSR_E_INVALID_ARG (NULL ctx, paths or dst, a struct_size of either options
 * struct it does not accept, even with npaths 0, a receipt struct_size below the first
 * published one); TSR_E_TOO_SMALL (dst->nbytes below npaths times the first file's
 * selection); TSR_E_FORMAT (a file that does not match the first); and any code tsr_open()
 * or tsr_read() returns for one of the files, which the message names.
 */
TSR_API int tsr_read_batch(struct tsr_context *ctx, const char *const *paths, size_t npaths,
			   const struct tsr_open_options *open_opts, const struct tsr_selection *sel,
			   const struct tsr_buffer *dst, const struct tsr_read_options *opts,
			   struct tsr_receipt *receipt_ret);

/*
 * Streamed reads: the same array of many files, a batch of files at a time, while the next
 * files are read ahead (the kernel is asked to pull them into the page cache, and their
 * metadata is parsed before they are needed). A stream belongs to one thread at a time.
 * Into device memory (tsr_stream_next with a TSR_MEM_CUDA destination) a stream also reads
 * the next whole batches together with the current one, as one batch read into a buffer of
 * up to 2 GiB (and at most an eighth of the device's free memory) it owns on the
 * destination's device (at most prefetch files more, where prefetch is given), and hands each
 * later batch over with a copy on the device: the GPU then decodes many files' chunks at
 * once, as in tsr_read_batch. The first batch then waits for its group's read. Files are
 * read when their group is, so a file changed after that is seen as it was. A batch's receipt covers what its call
 * read: the group read's for the batch that read the group, and for the batches handed over
 * later their bytes_out and the copy's time (names as the group read's, counts 0). An error
 * in any file of a group comes from the call whose batch holds that file, as without
 * read-ahead (the group's batches are then read one at a time).
 */
struct tsr_stream;

struct tsr_stream_options {
	size_t struct_size;    /* sizeof(struct tsr_stream_options) */
	int files_per_batch;   /* files stacked per tsr_stream_next (0: 1) */
	int prefetch;          /* files read ahead of the current batch (0: 2 batches' worth
				  into the page cache; a device stream's group read: as many as
				  its buffer holds) */
};

/* tsr_stream_open() opens no file yet (the files' errors come from tsr_stream_next). Returns
 * TSR_OK; TSR_E_INVALID_ARG (NULL ctx or stream_ret, NULL paths with npaths > 0 or a NULL
 * entry of them, a struct_size
 * of either options struct it does not accept, a negative option); TSR_E_NOMEM (also when the
 * read-ahead thread cannot be started). */
TSR_API int tsr_stream_open(struct tsr_context *ctx, const char *const *paths, size_t npaths,
			    const struct tsr_open_options *open_opts, const struct tsr_selection *sel,
			    const struct tsr_stream_options *opts, struct tsr_stream **stream_ret);
/* Reads the next batch into dst (stacked as tsr_read_batch does); *nfiles_ret is how many
 * files it held, 0 once the stream is done. Every file must match the first file's shape and
 * dtype (TSR_E_FORMAT naming the file otherwise). Returns TSR_OK; TSR_E_INVALID_ARG (NULL
 * stream, dst or nfiles_ret, a read options or receipt struct_size it does not accept, also
 * once the stream is done); otherwise what tsr_read_batch() returns for the batch's files.
 * An error ends the stream: every later call returns that status and message again, with
 * *nfiles_ret 0 (a stream does not skip a bad file; read the files after it with a stream of
 * their own); a stop (TSR_E_STOPPED) ends it too. The call's own argument errors end nothing:
 * TSR_E_INVALID_ARG as above, and TSR_E_TOO_SMALL (dst too small for the batch), after which
 * the next call with room reads the same batch. */
TSR_API int tsr_stream_next(struct tsr_stream *stream, const struct tsr_buffer *dst,
			    const struct tsr_read_options *opts, size_t *nfiles_ret,
			    struct tsr_receipt *receipt_ret);
/* Stops the read-ahead and frees the stream; NULL is a no-op. */
TSR_API void tsr_stream_free(struct tsr_stream *stream);

/*
 * Work split over several CUDA devices (tsr_read_options.devices, ndevices >= 1, one
 * destination each in dsts[]). Each device's share runs on its own thread with its own share of
 * the context's threads (nthreads / ndevices each, at least one), so storage reads for all the
 * devices share the host's cores evenly. (A share whose destination is host memory reads on
 * the CPU engine, its device unchecked: the split's steps then run without a GPU.) With one
 * device each call is that device's single-device read (tsr_read, tsr_read_batch), bit for
 * bit. The receipt sums the shares (t_total: the wall-clock time of the whole). On a failure
 * every share has stopped and the message names the device and the file or chunk; what other
 * shares wrote is unspecified.
 *
 * tsr_device_share() gives the files a batch of n files hands device `part` of nparts:
 * files [*first_ret, *first_ret + *count_ret), in order, as even as can be (the first n %
 * nparts devices get one more). Returns TSR_OK or TSR_E_INVALID_ARG (NULL argument, nparts <
 * 1, part outside [0, nparts)).
 *
 * The split calls return what their single-device calls return, and TSR_E_INVALID_ARG (NULL
 * argument; no devices named; a device < 0); TSR_E_NO_DEVICE (a device that is not there for
 * a device-memory destination); TSR_E_NOMEM.
 */
TSR_API int tsr_device_share(size_t n, int nparts, int part, size_t *first_ret,
			     size_t *count_ret);
/* tsr_read_batch() over several devices: device j (devices[j]) reads its share of the files
 * (tsr_device_share) into dsts[j], stacked as tsr_read_batch stacks them. Also TSR_E_FORMAT
 * (the first files of two shares give other shapes or dtypes). */
TSR_API int tsr_read_batch_devices(struct tsr_context *ctx, const char *const *paths,
				   size_t npaths, const struct tsr_open_options *open_opts,
				   const struct tsr_selection *sel, const struct tsr_buffer *dsts,
				   const struct tsr_read_options *opts,
				   struct tsr_receipt *receipt_ret);
/* tsr_stream_next() over several devices: the next batch's files split as
 * tsr_read_batch_devices splits them; *nfiles_ret is the batch's file count (0: done). */
TSR_API int tsr_stream_next_devices(struct tsr_stream *stream, const struct tsr_buffer *dsts,
				    const struct tsr_read_options *opts, size_t *nfiles_ret,
				    struct tsr_receipt *receipt_ret);
/*
 * One array read over several devices: the selection's result is cut along its first array
 * axis that it keeps into nparts slabs at chunk boundaries (each chunk is decoded by one
 * device), as even in chunks as can be. tsr_read_slabs() gives slab j's first row and row count
 * along that axis of the result (*axis_ret: which axis of the result; -1 when the result has
 * no such axis, and then slab 0 has it all); a slab may be empty. tsr_read_devices() reads slab
 * j on devices[j] into dsts[j] (C order, the result's shape with that axis cut to the slab).
 * tsr_read_slabs returns TSR_OK; TSR_E_INVALID_ARG (NULL argument, nparts outside [1, 4096]);
 * the selection's errors as tsr_read names them. tsr_read_devices also returns
 * TSR_E_UNSUPPORTED (mock-device storage over more than one device).
 */
TSR_API int tsr_read_slabs(const struct tsr_array *array, const struct tsr_selection *sel,
			   int nparts, int *axis_ret, int64_t *first_ret, int64_t *count_ret);
TSR_API int tsr_read_devices(struct tsr_array *array, const struct tsr_selection *sel,
			     const struct tsr_buffer *dsts, const struct tsr_read_options *opts,
			     struct tsr_receipt *receipt_ret);

/* Frees memory that tessera allocated for the caller. NULL is a no-op. */
TSR_API void tsr_free(void *p);

/* What this build and machine can do, for a caller choosing where to read and for reports. */
struct tsr_capabilities {
	size_t struct_size;     /* sizeof(struct tsr_capabilities) */
	int cuda_built;         /* 1: this build has the CUDA engine */
	int cuda_devices;       /* CUDA devices usable now (0 without a device or a driver) */
	char gpu_decoders[128]; /* GPU decoder families compiled in, comma-separated
				   ("inflate,lz4,blosclz,rice"); "" without CUDA. A codec with none
				   decodes on the CPU even in a CUDA read (its receipt says so). */
	int cufile_usable;      /* as tsr_cufile_usable() */
	char cufile_why[160];   /* its reason */
};

/* tsr_capabilities() fills *caps_ret (set caps_ret->struct_size first; fields past it are
 * left alone). Never fails for want of a GPU. Returns TSR_OK, or TSR_E_INVALID_ARG for NULL
 * or a struct_size below the first published size. Thread-safe. */
TSR_API int tsr_capabilities(struct tsr_capabilities *caps_ret);

/* ---------------------------------------------------------------------------------------- */
/* CUDA helpers, so callers need no CUDA headers for the basics. Each returns TSR_E_NO_DEVICE
 * (with the reason in tsr_errmsg) when this build has no CUDA engine or no device is there.
 * CUDA errors map to statuses by one rule, here and in tsr_read: no device, an insufficient
 * driver, an invalid device or no kernel image for it -> TSR_E_NO_DEVICE; out of device memory
 * -> TSR_E_NOMEM; any other CUDA error -> TSR_E_IO; tsr_errmsg names the CUDA error. */

/* Returns TSR_OK with *n_ret > 0; TSR_E_NO_DEVICE with *n_ret = 0 (any CUDA error asking the
 * count); TSR_E_INVALID_ARG (NULL n_ret). */
TSR_API int tsr_cuda_device_count(int *n_ret);
/* Returns TSR_OK; TSR_E_INVALID_ARG (NULL ptr_ret); TSR_E_NO_DEVICE; TSR_E_NOMEM (out of
 * device memory); TSR_E_IO (any other CUDA error). *ptr_ret is NULL on failure. */
TSR_API int tsr_cuda_malloc(size_t nbytes, void **ptr_ret);
TSR_API void tsr_cuda_free(void *ptr);
/* Returns TSR_OK; TSR_E_NO_DEVICE; TSR_E_IO (any other CUDA error, such as a src that is not
 * device memory). */
TSR_API int tsr_cuda_memcpy_to_host(void *dst, const void *src, size_t nbytes);
/* Added later. tsr_cuda_malloc on CUDA device `device` (the calling thread's current
 * device is left as it was). Returns TSR_OK; TSR_E_INVALID_ARG (NULL ptr_ret, device < 0);
 * TSR_E_NO_DEVICE (no such ordinal); TSR_E_NOMEM (out of device memory); TSR_E_IO (any other
 * CUDA error). */
TSR_API int tsr_cuda_malloc_on(int device, size_t nbytes, void **ptr_ret);
/* The CUDA device whose memory ptr points into (*device_ret), or -1 for memory of no one
 * device (host memory, pinned or not; managed memory). Returns TSR_OK; TSR_E_INVALID_ARG
 * (NULL device_ret); TSR_E_NO_DEVICE (no CUDA engine or device). */
TSR_API int tsr_cuda_pointer_device(const void *ptr, int *device_ret);

/* ---------------------------------------------------------------------------------------- */
/* What a path holds, and what an array says about itself. */

/* What an entry of a listing is. */
enum tsr_entry_kind {
	/* An array tsr_open reads: a FITS HDU with image data (plain or tile-compressed), a
	 * Zarr array, a Blosc2 array. */
	TSR_ENTRY_ARRAY = 1,
	TSR_ENTRY_EMPTY = 2,      /* FITS: an image HDU without data (NAXIS = 0, or an axis of 0) */
	TSR_ENTRY_TABLE = 3,      /* FITS: a table or other extension that is not an image */
	/* Zarr: an OME-Zarr multiscale group; its levels are the ARRAY entries naming it as
	 * their group. */
	TSR_ENTRY_MULTISCALE = 4,
};

/* One entry of a listing. Its strings live as long as the listing. */
struct tsr_entry {
	size_t struct_size;        /* set by the caller: sizeof(struct tsr_entry) */
	enum tsr_entry_kind kind;
	const char *format;        /* "fits", "zarr", "blosc2" */
	int hdu;                   /* FITS: the HDU index (primary = 0), as tsr_open_options.hdu
				      takes it; -1 otherwise */
	const char *name;          /* FITS: EXTNAME ("" when none); Zarr: the array's or group's
				      path in the store, as tsr_open_options.array takes it ("" =
				      the store itself); Blosc2: "" */
	int extver;                /* FITS: EXTVER (0 when absent); 0 otherwise */
	const char *xtension;      /* FITS: XTENSION ("IMAGE", "BINTABLE", ...; "" for the primary
				      HDU); "" otherwise */
	int compressed;            /* FITS: 1 for a tile-compressed image (ZIMAGE = T) */
	const char *group;         /* Zarr: the multiscale group this array is a level of ("" = the
				      root), when level >= 0; "" otherwise */
	int level;                 /* Zarr ARRAY: its level in that group (tsr_open_options.level
				      with array = group opens it too); -1 when none */
	int nlevels;               /* MULTISCALE: how many levels; 0 otherwise */
};

struct tsr_listing;

/*
 * tsr_list() lists what path holds, reading headers and metadata only (no data, no trial
 * opens): every HDU of a FITS file in file order, the arrays of a Zarr store sorted by path
 * with its OME-Zarr multiscale groups among them (a group sorts before its levels), or
 * the one array of a Blosc2 frame. A Zarr node whose metadata is there but does not load is
 * listed as an array, so that opening it names the fault. Free the listing with
 * tsr_listing_free().
 * Returns TSR_OK; TSR_E_INVALID_ARG (NULL argument); TSR_E_NOT_FOUND (no such path);
 * TSR_E_IO (it cannot be read); TSR_E_FORMAT (not a FITS file, Zarr store or Blosc2 frame,
 * or a header or metadata document that is malformed: the message names file and HDU or
 * array); TSR_E_UNSUPPORTED (a FITS HDU whose data size cannot be known, as with BITPIX 12,
 * so the walk cannot step past it; a zip store tessera cannot read); TSR_E_CORRUPT (a
 * whole-file compressed FITS file that does not decompress; a zip store's metadata that does
 * not inflate); TSR_E_NOMEM (also a decompressed FITS file larger than half of the machine's
 * memory).
 */
TSR_API int tsr_list(const char *path, struct tsr_listing **listing_ret);
/* tsr_listing_count() returns how many entries a listing holds (0 for NULL). */
TSR_API size_t tsr_listing_count(const struct tsr_listing *listing);
/* tsr_listing_entry() fills *entry_ret with entry i. Returns TSR_OK, TSR_E_INVALID_ARG (NULL
 * argument, or a struct_size smaller than the first published struct) or TSR_E_RANGE. */
TSR_API int tsr_listing_entry(const struct tsr_listing *listing, size_t i,
			      struct tsr_entry *entry_ret);
/*
 * tsr_listing_metadata() returns what entry i's own header or metadata document says, as one
 * JSON object (free it with tsr_free()), without opening it as an array, so for every kind of
 * entry (a FITS primary HDU without data, a table, a Zarr group): for FITS the HDU's `hdu`,
 * `xtension`, `extname`, `extver` and its `header` cards; for Zarr the node's `name`,
 * `zarr_format`, `node_type`, `attributes` and `metadata` document; for Blosc2 the frame's
 * metalayers and `vlmeta` (docs/info-json.md). Returns TSR_OK; TSR_E_INVALID_ARG (NULL
 * argument); TSR_E_RANGE (no entry i, or an HDU no longer there); TSR_E_NOT_FOUND or TSR_E_IO
 * (the path went away or cannot be read); TSR_E_FORMAT (it changed since it was listed);
 * TSR_E_NOMEM.
 */
TSR_API int tsr_listing_metadata(const struct tsr_listing *listing, size_t i, char **json_ret);
/*
 * tsr_listing_open() opens entry i of a listing, an ARRAY entry, as tsr_open opens it by its
 * HDU index (FITS) or array path (Zarr; an OME-Zarr level by its group and level, so that its
 * tsr_array_info.level is the entry's): opts gives the rest (raw, dtype; its hdu, hdu_name,
 * hdu_ver, array and level are the entry's). A FITS HDU is found from the header the listing
 * read, not by walking the file from its start, so opening every entry of a file of n HDUs
 * reads n headers, not n^2 / 2 (a first tsr_open by index walks every HDU before it); a file whose
 * header there no longer names the listed EXTNAME is walked from its start, as tsr_open does.
 * (tsr_open by index also starts where the context's earlier walks of the same, unchanged
 * file found that HDU, so an open by index in a loop reads a header or a few, not i.)
 * Returns what tsr_open returns; TSR_E_INVALID_ARG also for NULL arguments and an entry that
 * is not an array; TSR_E_RANGE (no entry i).
 */
TSR_API int tsr_listing_open(struct tsr_context *ctx, const struct tsr_listing *listing, size_t i,
			     const struct tsr_open_options *opts, struct tsr_array **array_ret);
/* tsr_listing_free() frees a listing; NULL is a no-op. */
TSR_API void tsr_listing_free(struct tsr_listing *listing);

/*
 * tsr_array_metadata() returns what the array's metadata says, as one JSON object (UTF-8,
 * NUL-terminated, allocated: free it with tsr_free()): for FITS the header cards in order
 * (key, value, comment), EXTNAME, BSCALE/BZERO, BLANK and the compression and quantization
 * of a tile-compressed image; for Zarr the format version, fill value, dimension names,
 * attributes, stored bytes and OME-Zarr scales; for Blosc2 the frame's metalayers and
 * variable-length metalayers. docs/info-json.md gives the schema.
 * Returns TSR_OK; TSR_E_INVALID_ARG (NULL argument); TSR_E_IO or TSR_E_NOT_FOUND (the
 * metadata cannot be read again); TSR_E_FORMAT or TSR_E_RANGE (it changed on disk since the
 * array was opened); TSR_E_NOMEM.
 */
TSR_API int tsr_array_metadata(const struct tsr_array *array, char **json_ret);
/* tsr_array_metadata() with flags: TSR_METADATA_NO_LISTING leaves out what only a listing of
 * every chunk gives (Zarr's stored_nbytes is null), so that the document of an array of a
 * million chunk files costs what its metadata files do (Python's Array.attrs asks so). Other
 * flags: TSR_E_INVALID_ARG. */
#define TSR_METADATA_NO_LISTING 1u
TSR_API int tsr_array_metadata_flags(const struct tsr_array *array, unsigned flags,
				     char **json_ret);

#ifdef __cplusplus
}
#endif
#endif /* TESSERA_H */
