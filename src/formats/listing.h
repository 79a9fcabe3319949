/* listing.h - the entries tsr_list gathers: each format's lister appends to one listing. */
#ifndef TSR_LISTING_H
#define TSR_LISTING_H

#include "../core/internal.h"

/* Entries own their strings (copies). */
struct tsr_listing {
	char *path;            /* as given to tsr_list (a store's without trailing '/') */
	struct tsr_entry *v;
	size_t n, cap;
};

/* Appends a copy of e (its strings copied; NULL strings become ""). */
int tsr_listing_add(struct tsr_listing *l, const struct tsr_entry *e);

/* The listers. Each appends the entries of path; errors name path. */
int tsr_fits_list(const char *path, int fd, uint64_t file_nbytes, struct tsr_listing *l);
int tsr_zarr_entries(const char *store, struct tsr_listing *l);

#endif
