/* frame.c - the Blosc2 frame driver (to come: frames are not read yet). */
#include "../../core/array.h"

int tsr_blosc2_sniff(const unsigned char *head, size_t n)
{
	(void)head;
	(void)n;
	return 0;
}

int tsr_blosc2_sniff_dir(const char *path)
{
	(void)path;
	return 0;
}

int tsr_blosc2_open(struct tsr_array *array, const struct tsr_open_options *opts)
{
	(void)opts;
	return tsr_error(TSR_E_UNSUPPORTED, "%s: Blosc2 frames are not read yet", array->path);
}
