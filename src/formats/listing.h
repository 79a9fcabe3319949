/* listing.h - the entries tsr_list gathers: each format's lister appends to one listing. */
#ifndef TSR_LISTING_H
#define TSR_LISTING_H

#include "../core/internal.h"

/* Entries own their strings (copies). */
/* An entry as listed, and where a FITS HDU's header starts (0 for other entries). */
struct tsr_listed {
	struct tsr_entry e;
	uint64_t at;
};

struct tsr_listing {
	char *path;            /* as given to tsr_list (a store's without trailing '/') */
	struct tsr_listed *v;
	size_t n, cap;
};

/* Appends a copy of e (its strings copied; NULL strings become ""); at: where a FITS HDU's
 * header starts (tsr_listing_open starts there), 0 for other entries. */
int tsr_listing_add(struct tsr_listing *l, const struct tsr_entry *e, uint64_t at);

/* The listers. Each appends the entries of path; errors name path. */
int tsr_fits_list(const char *path, int fd, uint64_t file_nbytes, struct tsr_listing *l);
int tsr_zarr_entries(const char *store, struct tsr_listing *l);

#endif
