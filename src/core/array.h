/* array.h - an opened array: its description, its format driver, its file. */
#ifndef TSR_ARRAY_H
#define TSR_ARRAY_H

#include "chunk.h"

struct tsr_array;

/* What a format driver provides once it has described an array. The engine calls chunk_ref
 * from several threads at once, so it must only read the driver's state. */
struct tsr_driver_ops {
	const char *name;
	/* Describes chunk number `chunk` (C order over the chunk grid). */
	int (*chunk_ref)(const struct tsr_array *array, int64_t chunk, struct tsr_chunk_ref *ref_ret);
	/* Optional (NULL: none), for chunks described one after another: given ref, chunk - 1's
	 * description as chunk_ref made it but for its offset, nbytes and the xform's scale, zero
	 * and dither_row (which need not hold chunk - 1's), writes those five of chunk's and
	 * returns 1 when chunk's description differs from chunk - 1's in them alone; returns 0
	 * when it may differ otherwise (the caller then asks chunk_ref, which also reports any
	 * fault of the chunk's). The tiles of a FITS image are described so a few loads a tile. */
	int (*chunk_next)(const struct tsr_array *array, int64_t chunk, struct tsr_chunk_ref *ref);
	void (*free)(void *impl);
};

/* The array description every driver fills. */
struct tsr_desc {
	int ndim;
	int64_t shape[TSR_MAX_DIM];
	int64_t chunk_shape[TSR_MAX_DIM]; /* grid spacing; edge chunks may be smaller */
	int64_t grid[TSR_MAX_DIM];        /* chunks per axis */
	int64_t nchunks;
	enum tsr_dtype dtype;             /* output */
	enum tsr_dtype stored_dtype;
	const char *dtype_source;         /* tsr_array_info's; NULL: "file" */
	int scaled;
	uint64_t stored_nbytes;
	uint64_t max_chunk_nbytes;        /* largest stored chunk: fetch buffer size */
	char codec[32];
	char reader[16];                  /* "tessera" or "cfitsio" */
	char fallback[160];               /* why part of the work goes through a fallback */
	const char *unit_noun;            /* "HDU", "array" */
	const char *name;                 /* tsr_array_info.name; NULL: "" */
	const char *unit_label;           /* names the unit in messages ("labels/ids"); NULL:
					     its index */
	/* Optional: names chunk `chunk` in messages (a Zarr chunk key); NULL: its number. */
	void (*chunk_label)(const struct tsr_array *array, int64_t chunk, char *buf, size_t cap);
	const char *chunk_noun;           /* "tile", "chunk" */
	int index;                        /* HDU index */
	int level;                        /* the OME-Zarr level opened as (-1: none) */
	const char *descr;                /* the exact NumPy dtype (the driver's string); NULL:
					     tsr_dtype_npy_descr(dtype) */
};

struct tsr_array {
	struct tsr_context *ctx;
	char *path;
	int fd;
	uint64_t file_nbytes;
	struct tsr_desc desc;
	const struct tsr_driver_ops *ops;
	void *impl;
	/* Where a listing found the HDU this open asks for (tsr_listing_open): FITS starts its
	 * walk at start_hdu's header, at byte start_at, once that header still names start_name
	 * (EXTNAME, "" for none); start_hdu 0: the walk starts at the file's start. */
	int start_hdu;
	uint64_t start_at;
	const char *start_name;
	uint64_t header_at;        /* FITS: where the opened HDU's header starts (its metadata) */
	char extname[TSR_HDU_NAME_MAX + 1]; /* FITS: the opened HDU's EXTNAME (desc.name) */
	/* tsr_open_options.dtype, parsed before the driver runs (TSR_DTYPE_INVALID: none). A
	 * driver whose file names no dtype uses it (and sets desc.dtype_source to "caller");
	 * tsr_open applies it to any other array as a view of the values. */
	enum tsr_dtype want_dtype;
	char want_order;           /* its byte order character, 0 when it names none */
	/* Per-array state of the storage backends (src/io keeps its mock caches there), opaque
	 * to everything else: attached once, by tsr_array_backend_attach, and freed by
	 * tsr_array_free through the release function its attacher gave. NULL until needed. */
	void *backend;
	void (*backend_release)(void *backend);
	const char *unpacked; /* "gzip", "bzip2", "compress": the file is whole-file compressed
				 and fd is its decompressed copy in memory (src/io/unpack.c), so
				 its path must never be opened for data; NULL otherwise */
};

/* The caller's dtype (want_dtype) applied to an array whose file names one: a view of the
 * values read, so only the label changes (the engines place bytes of the array's own item
 * size); a different item size is an error. */
int tsr_array_view(struct tsr_array *array);
/* Fills desc.grid and desc.nchunks from the shape and chunk shape the driver set. */
void tsr_array_grid(struct tsr_array *array);

/* The extent of chunk `chunk` (C order over the grid) in the array: the chunk shape, edge chunks
 * truncated to the array, not padded. Returns its element count. */
int64_t tsr_array_chunk_extent(const struct tsr_array *array, int64_t chunk, int64_t *extent);
/* Writes how messages name the array's unit after its path: ": HDU 1", ": array labels/ids",
 * or "" for a format that holds one array (a Blosc2 frame: no unit noun). */
void tsr_array_unit(const struct tsr_array *array, char *buf, size_t cap);
/* How messages name a chunk: prefix gets "path: HDU 1: tile" ("path: chunk"), label
 * its number or the driver's name for it ("7", "c/0/1"); either may be NULL. */
void tsr_array_chunk_name(const struct tsr_array *array, int64_t chunk, char *prefix,
			  size_t prefix_cap, char *label, size_t label_cap);

/* The array's backend state, NULL while none is attached; any thread may ask. */
void *tsr_array_backend(const struct tsr_array *array);
/* Attaches state (with the function that frees it) unless another thread attached one first;
 * returns the state that is attached, which is not the caller's when it lost that race (the
 * caller then frees its own). */
void *tsr_array_backend_attach(struct tsr_array *array, void *state, void (*release)(void *));
/* Frees the backend state, if any (the array is being freed). */
void tsr_array_backend_release(struct tsr_array *array);

#endif
