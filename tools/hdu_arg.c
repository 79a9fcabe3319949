/* hdu_arg.c - the CLI's --hdu value: an HDU index ("2"), an EXTNAME ("SCI") or an EXTNAME and
 * EXTVER ("SCI,2"), into open options. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* A whole decimal number in [min, INT_MAX], or -1. */
static int hdu_number(const char *s, int min)
{
	if (!*s || strspn(s, "0123456789") != strlen(s))
		return -1;
	errno = 0;
	long v = strtol(s, NULL, 10);
	if (errno || v < min || v > 0x7fffffffL)
		return -1;
	return (int)v;
}

int tsr_cli_hdu_arg(const char *arg, struct tsr_cli_hdu *h)
{
	memset(h, 0, sizeof(*h));
	h->index = -1;
	if (!arg || !*arg)
		return -1;
	if (strchr("0123456789+-", arg[0])) { /* numbers stay indices */
		h->index = hdu_number(arg, 0);
		return h->index < 0 ? -1 : 0;
	}
	const char *comma = strchr(arg, ',');
	size_t n = comma ? (size_t)(comma - arg) : strlen(arg);
	if (n == 0 || n >= sizeof(h->name))
		return -1;
	memcpy(h->name, arg, n);
	h->name[n] = '\0';
	for (size_t i = 0; i < n; i++) /* FITS strings are printable ASCII */
		if ((unsigned char)arg[i] < 32 || (unsigned char)arg[i] > 126)
			return -1;
	if (comma && (h->ver = hdu_number(comma + 1, 1)) < 0)
		return -1;
	return 0;
}

void tsr_cli_hdu_apply(const struct tsr_cli_hdu *h, struct tsr_open_options *oo)
{
	if (h->name[0]) {
		oo->hdu_name = h->name;
		oo->hdu_ver = h->ver;
	} else {
		oo->hdu = h->index;
	}
}
