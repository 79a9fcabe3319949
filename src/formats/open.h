/* open.h - the format driver table: which driver opens, and lists, what a path holds. */
#ifndef TSR_FORMATS_OPEN_H
#define TSR_FORMATS_OPEN_H

#include <stddef.h>
#include <stdint.h>

#include "../core/array.h"

struct tsr_listing;
struct tsr_entry;
struct cJSON;

/* The open options a format's paths take beyond the array itself (struct tsr_driver's
 * takes): tsr_open refuses the others, naming the format, rather than ignoring them. */
enum {
	TSR_TAKES_HDU = 1,   /* hdu > 0, hdu_name: FITS HDUs */
	TSR_TAKES_ARRAY = 2, /* array: a path inside a store */
	TSR_TAKES_LEVEL = 4, /* level > 0: OME-Zarr multiscale levels */
};

/* One format driver. A directory goes to the first driver whose dir() claims it and a file to
 * the first whose file() claims its first bytes. The last directory driver claims every
 * directory, so that it, not a generic "unknown format", says what is wrong with a damaged
 * store; a file no driver claims gets a message naming the formats tessera reads (and the
 * FITS driver claims every file that starts as FITS or is compressed whole). */
struct tsr_driver {
	const char *name;
	const char *noun;  /* what its paths are, for messages: "Zarr store" */
	unsigned takes;    /* TSR_TAKES_* */
	int (*dir)(const char *path);
	int (*file)(const char *path, const unsigned char *head, size_t n);
	/* describes the array at array->path (array->fd open for a file, -1 for a directory) */
	int (*open)(struct tsr_array *array, const struct tsr_open_options *opts);
	/* appends the arrays at path (*fd: the open file, -1 for a directory; a driver that reads
	 * another file in its place swaps it in, and the caller closes *fd); errors name path */
	int (*list)(const char *path, int *fd, uint64_t *file_nbytes, struct tsr_listing *l);
	/* adds entry e's metadata (one the driver listed; at: where a FITS HDU's header was) to
	 * the JSON object root, as list */
	int (*metadata)(const char *path, int *fd, uint64_t *file_nbytes,
			const struct tsr_entry *e, uint64_t at, struct cJSON *root);
};

/* The drivers the table in open.c names. Each describes the array at
 * array->path into array->desc / ops / impl. FITS and Blosc2 contiguous frames find
 * array->fd open; directories find it at -1. */
int tsr_fits_open(struct tsr_array *array, const struct tsr_open_options *opts);
int tsr_zarr_open(struct tsr_array *array, const struct tsr_open_options *opts);
/* Is a file a zip archive (a zipped Zarr store): named *.zip, or starting like one? */
int tsr_zarr_sniff_zip(const char *path, const unsigned char *head, size_t n);
int tsr_blosc2_open(struct tsr_array *array, const struct tsr_open_options *opts);
/* Does a file start like a Blosc2 frame? Is a directory a sparse Blosc2 frame? */
int tsr_blosc2_sniff(const unsigned char *head, size_t n);
/* A frame file's fixed header checked against its size (fsize bytes, fd open): its header's and
 * its frame's lengths, or TSR_E_FORMAT saying what is wrong (a listing's check, an open's
 * first). */
int tsr_blosc2_frame_span(int fd, uint64_t fsize, int64_t *header_len_ret,
			  uint64_t *frame_len_ret);
int tsr_blosc2_sniff_dir(const char *path);

/* tsr_open, starting the walk to a FITS HDU at start_hdu's header (byte start_at), where a
 * listing found it, once that header still names start_name (tsr_listing_open); start_hdu 0:
 * as tsr_open. */
int tsr_open_at(struct tsr_context *ctx, const char *path, const struct tsr_open_options *opts,
		int start_hdu, uint64_t start_at, const char *start_name,
		struct tsr_array **array_ret);

/* The driver for path. A file is left open in *fd_ret (the caller closes it) with its size in
 * *nbytes_ret; a directory gives -1 and 0. On failure *fd_ret is -1 and the message names
 * path. */
int tsr_driver_find(const char *path, const struct tsr_driver **driver_ret, int *fd_ret,
		    uint64_t *nbytes_ret);

#endif
