/* args.c - option values of the command line, parsed strictly: a value that is not exactly
 * what the option takes is an error, never a silent 0. */
#include <errno.h>
#include <stdlib.h>

#include "cli.h"

int tsr_cli_parse_int(const char *s, long lo, long hi, int *v_ret)
{
	char *end;
	if (!s || !*s || *s == ' ' || *s == '+')
		return -1;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (*end || errno || v < lo || v > hi)
		return -1;
	*v_ret = (int)v;
	return 0;
}
