/* corpus_fits.h - a test's walk over every HDU of every file of the FITS corpus ($TSR_CORPUS/fits), each opened with its values and, when asked, raw. */
#ifndef TSR_TEST_CORPUS_FITS_H
#define TSR_TEST_CORPUS_FITS_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/array.h"
#include "tessera.h"

/* Called with each array that opens and its name ("FILE HDU k", " raw" after it when raw). */
typedef void (*corpus_fits_fn)(struct tsr_array *a, const char *name, void *arg);

/* Opens HDUs 0 to 7 of each corpus file (with raw: also with the raw option) and calls fn on
 * each one that opens; 0, or -1 when the corpus folder cannot be read. */
static inline int corpus_fits_each(struct tsr_context *ctx, int with_raw, corpus_fits_fn fn,
				   void *arg)
{
	const char *corpus = getenv("TSR_CORPUS");
	char dir[512], path[1024], name[1100];
	snprintf(dir, sizeof(dir), "%s/fits", corpus ? corpus : "../shared/corpus");
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		for (int hdu = 0; hdu < 8; hdu++)
			for (int raw = 0; raw <= with_raw; raw++) {
				struct tsr_open_options oo = {.struct_size = sizeof(oo), .hdu = hdu,
							      .raw = raw};
				struct tsr_array *a = NULL;
				if (tsr_open(ctx, path, &oo, &a))
					continue;
				snprintf(name, sizeof(name), "%s HDU %d%s", e->d_name, hdu,
					 raw ? " raw" : "");
				fn(a, name, arg);
				tsr_array_free(a);
			}
	}
	closedir(d);
	return 0;
}

#endif
