/* digits.c - an integer's decimal digits without snprintf, for the per-chunk and per-number paths. */
#include "internal.h"

size_t tsr_int_text(char *buf, long long v)
{
	char tmp[24];
	size_t n = 0, k = 0;
	unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
	do
		tmp[n++] = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		buf[k++] = '-';
	while (n)
		buf[k++] = tmp[--n];
	buf[k] = '\0';
	return k;
}
