/* zarr.h - the Zarr driver's internal pieces: metadata, chunk keys, shard indexes, groups. */
#ifndef TSR_ZARR_H
#define TSR_ZARR_H

#include <cJSON.h>
#include <stdatomic.h>

#include "../../core/array.h"

/* How deep sharding_indexed may nest (a shard whose inner chunks are shards, ...). */
#define TSR_ZARR_MAX_SHARD 4
/* Metadata documents larger than this are not metadata. */
#define TSR_ZARR_MAX_JSON ((size_t)256 << 20)
/* A shard index larger than this is refused at open (it is read whole, once per shard). */
#define TSR_ZARR_MAX_INDEX ((uint64_t)1 << 30)

/* One level of sharding_indexed: a blob of shape `outer` (the shard, or an inner shard) holds
 * inner chunks of shape `inner`, located by an index of (offset, nbytes) pairs. */
struct tsr_zarr_shard {
	int64_t outer[TSR_MAX_DIM];
	int64_t inner[TSR_MAX_DIM];
	int64_t per[TSR_MAX_DIM];   /* inner chunks per blob along each axis */
	int64_t ninner;             /* entries in the index */
	int64_t grid[TSR_MAX_DIM];  /* blobs of this level per axis, over the whole array */
	int64_t nblobs;
	int index_at_start;
	int index_big_endian;
	int index_crc32c;
	uint64_t index_nbytes;
	/* Bytes codecs after sharding_indexed, on the whole shard (the outermost level only):
	 * decode order. Such a shard is decoded whole into a memory file once, its index and
	 * inner chunks read there. */
	int nwhole;
	struct tsr_bytes_step whole[TSR_MAX_PRE];
};

/* An array's metadata, reduced to what reading needs (v2 and v3 alike). */
struct tsr_zarr_meta {
	int version;                /* 2 or 3 */
	int ndim;
	int64_t shape[TSR_MAX_DIM];
	int64_t chunk[TSR_MAX_DIM]; /* chunk grid spacing: the shard shape when sharded */
	enum tsr_dtype dtype;
	int big_endian;             /* stored elements are big-endian (swapped on reading) */
	int kind;                   /* 0 numbers, 'S', 'U', 'V', 'T' (structured): raw dtypes;
				       'M' datetime64/timedelta64 */
	int raw_be;                 /* a raw 'U' dtype's code units are big-endian (as stored) */
	char *descr;                /* the NumPy descr of kind != 0 (owned) */
	uint8_t fill[16];           /* the fill value, little-endian bytes of dtype */
	uint8_t *fill_wide;         /* the fill of a dtype wider than 16 bytes (owned) */
	char sep;                   /* chunk key separator */
	int sep_given;              /* v2: the .zarray names dimension_separator */
	const char *bits_of;        /* a data type NumPy lacks (bfloat16, float8_*): dtype holds
				       its bits, read only under a caller's dtype of its size */
	int key_c_prefix;           /* v3 "default" keys: "c/1/2" */
	int npre;                   /* bytes steps of the innermost chunk, in decode order */
	struct tsr_bytes_step pre[TSR_MAX_PRE];
	int nfilter;                /* numcodecs filters, in decode order */
	struct tsr_filter filter[TSR_MAX_FILTERS];
	int has_perm;               /* order F, transpose */
	int8_t perm[TSR_MAX_DIM];
	int nshard;                 /* sharding levels, outermost first */
	struct tsr_zarr_shard shard[TSR_ZARR_MAX_SHARD];
	char codec[32];             /* for info and receipts: "blosc", "shard/zstd+crc32c" */
};

/* A shard's (or inner shard's) decoded index, cached once read. */
struct tsr_zarr_index {
	int missing;                /* the shard file does not exist: all fill */
	int memfd;                  /* the decoded shard's memory file (whole-shard codecs), owned
				       here, region_* then counting in it; -1: none */
	uint64_t region_offset;     /* of the blob in the shard file */
	uint64_t region_nbytes;
	uint64_t entries[];         /* offset, nbytes per inner chunk (C order) */
};

/* Read-mostly cache of shard indexes: a three-level table (directories of pages of slots) of
 * atomically published pointers, so chunk_ref stays lock-free and thread-safe; memory grows
 * only with the shards read (the top level: 8 bytes per 2^20 shards of the array). */
struct tsr_zarr_cache {
	int64_t ndirs;
	_Atomic(void *) *dirs;
};

/* A zip store's central directory, sorted by name. */
struct tsr_zip_entry {
	const char *name;
	uint64_t local;             /* offset of its local header */
	uint64_t csize, usize;      /* stored and decoded sizes */
	uint16_t method, flags;
	uint32_t order;             /* place in the central directory */
};

struct tsr_zip {
	char *root;                 /* the zip file's path, as the store's paths start */
	int fd;                     /* borrowed: the array's open file */
	uint64_t size;
	size_t n;
	struct tsr_zip_entry *entries;
	unsigned char *cd;          /* the directory as read (holds the names) */
};

/* The driver's state behind array->impl. */
struct tsr_zarr {
	struct tsr_zarr_meta m;
	char *dir;                  /* store/array: where chunk keys start */
	size_t dir_len;
	char *label;                /* the array's path in the store ("/" for the root) */
	int64_t cshape[TSR_MAX_DIM]; /* the engine's chunk: the innermost chunk shape */
	struct tsr_chunk_ref tmpl;  /* what every chunk has in common */
	struct tsr_zarr_cache cache[TSR_ZARR_MAX_SHARD];
	struct tsr_zip *zip;        /* a zip store; NULL for a directory */
};

/* ---- json.c: files and JSON values ---- */

/* Reads a whole small file (NUL-terminated); TSR_E_NOT_FOUND when it does not exist. */
int tsr_zarr_read_file(const char *path, char **text_ret, size_t *nbytes_ret);
/* Reads and parses a JSON file; integers beyond 2^53 keep their digits (tsr_zarr_json_exact_int,
 * and printed metadata: tsr_json_print). */
int tsr_zarr_json_load(const char *path, cJSON **json_ret);
/* An integral JSON number in [lo, hi]. */
int tsr_zarr_json_int(const cJSON *item, int64_t lo, int64_t hi, int64_t *v_ret);
/* A list of n integers in [lo, hi] (n <= TSR_MAX_DIM). */
int tsr_zarr_json_dims(const cJSON *list, const char *what, int64_t lo, int *n_ret, int64_t *v);
/* An integral JSON number as the bits of a 64-bit integer, exactly: beyond 2^53 from the digits
 * the loader kept (a double does not hold them). TSR_E_RANGE where it does not fit. */
int tsr_zarr_json_exact_int(const cJSON *item, int is_unsigned, uint64_t *bits_ret);
/* A bytes step's parameters from holder (a v2 compressor's or filter's object, a v3 codec's
 * configuration; NULL: none), step->id set by the caller: where a checksum's 4 bytes lie
 * (numcodecs' "location": crc32 and adler32 at the start unless "end"; the others only at the
 * end), lookup3's "initval", LZMA's "format". TSR_E_FORMAT or TSR_E_UNSUPPORTED naming codec
 * `name`. */
int tsr_zarr_step_params(const char *name, const cJSON *holder, struct tsr_bytes_step *step);
/* Store paths in listing order: by bytes, each path's components one at a time ('/' before any
 * other byte), so that a group's arrays follow it ("cell", "cell/0", "cell-2"). */
int tsr_zarr_path_cmp(const char *a, const char *b);
/* "a/b" joined onto dir, allocated. */
char *tsr_zarr_join(const char *dir, const char *name);

/* ---- meta.c: dtypes and fill values ---- */

/* A v2 dtype string ("<f4", ">i2", "|b1") into dtype and byte order. */
int tsr_zarr_v2_dtype(const cJSON *item, enum tsr_dtype *dtype_ret, int *big_endian_ret);
/* A v3 data_type name ("float32"). */
int tsr_zarr_v3_dtype(const cJSON *item, enum tsr_dtype *dtype_ret);
/* A fill_value into little-endian bytes of dtype; null is zero (as zarr-python 3 and
 * tensorstore read it). */
int tsr_zarr_fill(const cJSON *fv, enum tsr_dtype dtype, uint8_t out[16]);

/* ---- filters.c: numcodecs filters ---- */

/* A numcodecs filter by id ("delta", without v3's "numcodecs." prefix) and the object holding
 * its parameters. Returns 1 for a filter whose decoding changes nothing (bitround). */
int tsr_zarr_filter_parse(const char *id, const cJSON *conf, struct tsr_filter *f);
/* Appends f to m's filters (in decode order), or puts it first. */
int tsr_zarr_filter_add(struct tsr_zarr_meta *m, const struct tsr_filter *f, int at_front);
/* Appends "+id" to a codec label. */
void tsr_zarr_filter_label(const char *id, char *label, size_t cap);

/* ---- dtypes.c: strings, raw bytes, datetimes, structured ---- */

/* The dtype of v2 metadata (typestr or field list) into m: dtype, byte order, kind, descr. */
int tsr_zarr_dtype_v2(const cJSON *item, struct tsr_zarr_meta *m);
/* The same for a v3 data_type. */
int tsr_zarr_dtype_v3(const cJSON *item, struct tsr_zarr_meta *m);
/* Is name a data type NumPy has no dtype for (bfloat16, float8_*; bits_types.c)? 1 with m's
 * dtype its bits' unsigned integer and m->bits_of set, else 0. */
int tsr_zarr_bits_type(const char *name, struct tsr_zarr_meta *m);
/* Such an array's fill value: a number the type holds exactly, bfloat16's "NaN"/"Infinity"/
 * "-Infinity", or its bits as "0x..."; another is TSR_E_UNSUPPORTED. */
int tsr_zarr_bits_fill(const cJSON *fv, struct tsr_zarr_meta *m);
/* After the v3 codecs set m->big_endian: raw dtypes stay as stored (a big-endian 'U' says so
 * in its descr). */
void tsr_zarr_v3_raw_order(struct tsr_zarr_meta *m);
/* m's fill value from fill_value (any dtype): base64 for bytes, raw and structured, the
 * string for unicode, an integer or "NaT" for datetimes. */
int tsr_zarr_fill_value(const cJSON *fv, struct tsr_zarr_meta *m);

/* ---- v2.c, v3.c: array metadata ---- */
int tsr_zarr_v2_parse(const cJSON *zarray, struct tsr_zarr_meta *m);
int tsr_zarr_v3_parse(const cJSON *zarr_json, struct tsr_zarr_meta *m);

/* ---- zip.c: zip stores ---- */

/* Reads the central directory of the zip file open at fd (size bytes); root is its path. */
int tsr_zip_open(const char *root, int fd, uint64_t size, struct tsr_zip **zip_ret);
void tsr_zip_free(struct tsr_zip *zip);
/* The entry named key, or NULL. */
const struct tsr_zip_entry *tsr_zip_find(const struct tsr_zip *zip, const char *key);
/* Where an entry's stored bytes start (from its local header), bounded by the file. Refuses
 * encrypted entries and methods other than stored (0) and deflated (8). */
int tsr_zip_data(const struct tsr_zip *zip, const struct tsr_zip_entry *e, uint64_t *offset_ret);
/* A whole entry, decoded, NUL-terminated (at most max bytes). */
int tsr_zip_read(const struct tsr_zip *zip, const struct tsr_zip_entry *e, size_t max,
		 char **text_ret, size_t *n_ret);
/* The zip store this thread is opening (NULL: none): metadata reads of paths under its root
 * read its entries. */
void tsr_zarr_zip_enter(const struct tsr_zip *zip);
/* The current zip store when path lies in it, with *key_ret the entry name; else NULL. */
const struct tsr_zip *tsr_zarr_zip_of(const char *path, const char **key_ret);
/* Points ref (whose path is the chunk's path in the store) at its entry in z's zip: the
 * array's own file at the entry's offset, or fill when there is no entry. */
int tsr_zarr_zip_ref(const struct tsr_zarr *z, struct tsr_chunk_ref *ref);
/* A shard's entry (ref->path its path in the store): the zip's fd (borrowed), where the shard
 * starts and its size. TSR_E_NOT_FOUND when there is none; deflated shards are refused. */
int tsr_zarr_zip_shard(const struct tsr_zarr *z, const struct tsr_chunk_ref *ref, int *fd_ret,
		       uint64_t *base_ret, uint64_t *size_ret);

/* The current zip store when store is its root; else NULL. */
const struct tsr_zip *tsr_zarr_zip_root(const char *store);
/* tsr_list_arrays of a zip file: its arrays, or TSR_E_FORMAT when it is not a zip store. */
int tsr_zarr_list_zip(const char *path, char ***names_ret, size_t *count_ret);

/* ---- keys.c ---- */

/* The key of the chunk at grid coordinates idx ("c/0/3", "0.3"). */
int tsr_zarr_key(const struct tsr_zarr_meta *m, const int64_t *idx, char *buf, size_t cap);
/* ref->path = the array's folder / the key of chunk idx (of the outermost chunk grid). */
int tsr_zarr_chunk_path(const struct tsr_zarr *z, const int64_t *idx, struct tsr_chunk_ref *ref);

/* ---- shard.c ---- */

int tsr_zarr_cache_init(struct tsr_zarr_cache *c, int64_t nslots);
void tsr_zarr_cache_free(struct tsr_zarr_cache *c);
/* Finds the innermost chunk whose origin (element coordinates) is origin: sets ref->path,
 * offset and nbytes, or makes ref a fill chunk (missing shard, empty index entry). */
int tsr_zarr_shard_ref(struct tsr_zarr *z, const int64_t *origin, struct tsr_chunk_ref *ref);

/* ---- node.c: stores, groups, OME-Zarr ---- */

/* A node's metadata as found in a store: from its own file, or from consolidated metadata. */
struct tsr_zarr_node {
	int version;                /* 2 or 3 */
	int is_array;
	cJSON *json;                /* .zarray / zarr.json (owned unless borrowed) */
	cJSON *attrs;               /* v2 .zattrs, or v3 attributes (may be NULL) */
	cJSON *owned[3];            /* documents to free */
};

/* The Zarr version of the store rooted at dir: 2, 3, or 0 when it is not a Zarr store. */
int tsr_zarr_store_version(const char *dir);
/* Loads node `path` ("" = root) of the store. TSR_E_NOT_FOUND when there is none. */
int tsr_zarr_node_load(const char *store, int version, const char *path, struct tsr_zarr_node *n);
/* The same, with an array's attributes: tsr_zarr_node_load leaves a v2 array's .zattrs unread
 * (attrs NULL), so that opening and reading it never parse them. */
int tsr_zarr_node_load_attrs(const char *store, int version, const char *path,
			     struct tsr_zarr_node *n);
void tsr_zarr_node_free(struct tsr_zarr_node *n);
/* The OME-Zarr multiscale level of a group's attributes: *path_ret borrows datasets[level].path.
 * TSR_E_NOT_FOUND when the group is not multiscale, TSR_E_RANGE when level is too large. */
int tsr_zarr_ome_level(const cJSON *attrs, int level, const char **path_ret, int *nlevels_ret);
/* 1 where a multiscales entry of attrs of NGFF 0.2 to 0.4 lists dataset `name` (a normalized
 * path): its .zarray's chunk keys are '/'-separated when it names no dimension_separator. */
int tsr_zarr_ome_nested(const cJSON *attrs, const char *name);
/* Normalises an array path: strips slashes, collapses "//", refuses "." and "..". */
int tsr_zarr_norm_path(const char *in, char **out_ret);
/* Lists a store's arrays (sorted), as tsr_list_arrays returns them. */
int tsr_zarr_list(const char *store, char ***names_ret, size_t *count_ret);
/* A copy of a store's path without trailing slashes (how stores are named in messages and
 * listings); NULL when out of memory (the error set). */
char *tsr_zarr_store_dup(const char *path);

#endif /* TSR_ZARR_H */
