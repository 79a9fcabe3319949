/* options.c - tsr_options_load: the one rule by which every entry point reads a caller's options struct. */
#include <string.h>

#include "internal.h"

/*
 * Options structs start with size_t struct_size and only ever grow at the end. A caller built
 * against an older tessera.h passes a shorter struct: the fields it lacks keep their defaults
 * (already in dst). A caller built against a newer header passes a longer one: accepted when
 * every byte this library does not know is zero (the newer fields left at their zero
 * defaults), refused otherwise, since honouring half a request would be worse than saying no.
 */
int tsr_options_load(void *dst, size_t dst_nbytes, const void *src, size_t first_nbytes,
		     const char *what)
{
	size_t n;
	if (!src)
		return TSR_OK; /* NULL: every default */
	memcpy(&n, src, sizeof(n));
	if (n < first_nbytes)
		return tsr_error(TSR_E_INVALID_ARG,
				 "%s: struct_size %zu is below the first published size %zu (set it "
				 "to sizeof the struct)", what, n, first_nbytes);
	if (n > dst_nbytes) {
		const unsigned char *tail = (const unsigned char *)src + dst_nbytes;
		for (size_t i = 0; i < n - dst_nbytes; i++)
			if (tail[i])
				return tsr_error(TSR_E_INVALID_ARG,
						 "%s: struct_size %zu sets fields past this library's "
						 "%zu bytes (built against a newer tessera.h)",
						 what, n, dst_nbytes);
		n = dst_nbytes;
	}
	memcpy((char *)dst + sizeof(size_t), (const char *)src + sizeof(size_t), n - sizeof(size_t));
	return TSR_OK;
}
