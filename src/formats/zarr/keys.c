/* keys.c - Zarr chunk keys: v2 ("1.2", "1/2"), v3 default ("c/1/2", "c.1.2") and v3 "v2". */
#include <stdio.h>
#include <string.h>

#include "zarr.h"

int tsr_zarr_key(const struct tsr_zarr_meta *m, const int64_t *idx, char *buf, size_t cap)
{
	size_t n = 0;
	if (m->key_c_prefix)
		buf[n++] = 'c';
	else if (m->ndim == 0)
		buf[n++] = '0'; /* a 0-d array's one chunk */
	for (int d = 0; d < m->ndim; d++) {
		/* The "c" prefix is followed by a separator; plain v2 keys start with a number. */
		int lead = d > 0 || m->key_c_prefix;
		char num[24];
		size_t k = tsr_int_text(num, (long long)idx[d]);
		if (n + (size_t)lead + k >= cap)
			return tsr_error(TSR_E_UNSUPPORTED, "chunk key longer than %zu bytes", cap);
		if (lead)
			buf[n++] = m->sep == '/' ? '/' : '.';
		memcpy(buf + n, num, k + 1);
		n += k;
	}
	buf[n] = '\0';
	return TSR_OK;
}
