/* storage_names.c - the --storage names of the command-line tool, one table for every subcommand. */
#include <string.h>

#include "cli.h"

/* indexed by enum tsr_storage */
static const char *const tsr_cli_storage_names[] = {"real", "mock-host", "mock-device", "posix",
						    "cufile"};
#define TSR_CLI_NSTORAGE (int)(sizeof(tsr_cli_storage_names) / sizeof(tsr_cli_storage_names[0]))

int tsr_cli_storage(const char *name)
{
	for (int s = 0; s < TSR_CLI_NSTORAGE; s++)
		if (!strcmp(name, tsr_cli_storage_names[s]))
			return s;
	return -1;
}

const char *tsr_cli_storage_name(int storage)
{
	return storage >= 0 && storage < TSR_CLI_NSTORAGE ? tsr_cli_storage_names[storage] : "?";
}
