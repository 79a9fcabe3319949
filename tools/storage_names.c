/* storage_names.c - the --storage and --decoder names of the command-line tool, one table each for
 * every subcommand. */
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

/* indexed by enum tsr_decoder */
static const char *const tsr_cli_decoder_names[] = {"auto", "cpu", "gpu"};
#define TSR_CLI_NDECODER (int)(sizeof(tsr_cli_decoder_names) / sizeof(tsr_cli_decoder_names[0]))

int tsr_cli_decoder(const char *name)
{
	for (int d = 0; d < TSR_CLI_NDECODER; d++)
		if (!strcmp(name, tsr_cli_decoder_names[d]))
			return d;
	return -1;
}

const char *tsr_cli_decoder_name(int decoder)
{
	return decoder >= 0 && decoder < TSR_CLI_NDECODER ? tsr_cli_decoder_names[decoder] : "?";
}
