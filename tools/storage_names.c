/* storage_names.c - the --storage and --decoder names of the command-line tool, one table each for
 * every subcommand. */
#include <string.h>

#include "cli.h"

/* indexed by enum tsr_storage */
static const char *const tsr_cli_storage_names[] = {"real", "mock-host", "mock-device", "posix",
						    "cufile"};
/* indexed by enum tsr_decoder */
static const char *const tsr_cli_decoder_names[] = {"auto", "cpu", "gpu"};
#define TSR_CLI_COUNT(t) (int)(sizeof(t) / sizeof((t)[0]))

/* The index of name in names[n], or -1. */
static int tsr_cli_lookup(const char *const *names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

int tsr_cli_storage(const char *name)
{
	return tsr_cli_lookup(tsr_cli_storage_names, TSR_CLI_COUNT(tsr_cli_storage_names), name);
}

const char *tsr_cli_storage_name(int storage)
{
	return storage >= 0 && storage < TSR_CLI_COUNT(tsr_cli_storage_names)
		       ? tsr_cli_storage_names[storage]
		       : "?";
}

int tsr_cli_decoder(const char *name)
{
	return tsr_cli_lookup(tsr_cli_decoder_names, TSR_CLI_COUNT(tsr_cli_decoder_names), name);
}

const char *tsr_cli_decoder_name(int decoder)
{
	return decoder >= 0 && decoder < TSR_CLI_COUNT(tsr_cli_decoder_names)
		       ? tsr_cli_decoder_names[decoder]
		       : "?";
}
