/* metadata.h - tsr_array_metadata's pieces: each format driver describes its array into one
 * JSON object (cJSON), the schema of docs/info-json.md. */
#ifndef TSR_METADATA_H
#define TSR_METADATA_H

#include <cJSON.h>

#include "../core/array.h"

/* Each adds its members to root; errors name the file (and HDU or array). Zarr's
 * stored_nbytes lists every chunk: with count 0 it is null (TSR_METADATA_NO_LISTING). */
int tsr_fits_metadata(const struct tsr_array *array, cJSON *root);
int tsr_zarr_metadata(const struct tsr_array *array, int count, cJSON *root);
int tsr_blosc2_metadata(const struct tsr_array *array, cJSON *root);

/* The same for an entry of a listing, without opening an array (tsr_listing_metadata): a
 * FITS HDU of any kind, a Zarr node (array or group), a Blosc2 frame. */
int tsr_fits_hdu_metadata(int fd, uint64_t file_nbytes, const char *path, int index, uint64_t at,
			  const char *name, cJSON *root);
int tsr_zarr_node_metadata(const char *store, const char *name, cJSON *root);
int tsr_blosc2_path_metadata(const char *path, cJSON *root);

/* Helpers for the drivers: a list of dims, a JSON number for an integer (exact beyond 2^53:
 * then the digits go in raw), and adding an item that may be NULL (out of memory). */
cJSON *tsr_json_dims(const int64_t *v, int n);
cJSON *tsr_json_int(int64_t v);
/* tsr_json_real_text: v as JSON number text that reads back as the same double and stays a
 * real (to Python's json: a float): the shortest such %g text, with '.0' where it has neither
 * '.' nor exponent ("1.0", "-0.0", "1e+20", "0.1"); NaN and infinities as the bare tokens
 * NaN, Infinity, -Infinity, which JSON lacks but Python's json reads and writes (and the
 * peers: zarr-python's attributes, python-blosc2's vlmeta). buf holds TSR_JSON_REAL_MAX. */
#define TSR_JSON_REAL_MAX 32
void tsr_json_real_text(double v, char buf[TSR_JSON_REAL_MAX]);
/* tsr_json_real: a number item of v that tsr_json_print writes as tsr_json_real_text's text
 * (kept in its valuestring); NULL when out of memory. */
cJSON *tsr_json_real(double v);
/* root as compact JSON text into *json_ret (free it with tsr_free), numbers that kept their
 * text in their valuestring (a Zarr document's numbers as it wrote them: zarr/json.c; those
 * of tsr_json_real) written as that text; TSR_OK or TSR_E_NOMEM. */
int tsr_json_print(cJSON *root, char **json_ret);
/* Adds item under key; returns TSR_E_NOMEM when item is NULL or the add fails. */
int tsr_json_add(cJSON *obj, const char *key, cJSON *item);

#endif
