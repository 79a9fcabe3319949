/* fuzz.c - the CLI's `tessera info` formatting (table, --json, --header, --attrs, --hdu) on an
 * arbitrary file (FITS or Blosc2 by its content): the code D1's fixed-size shape buffers lived
 * in. The command's own sources are built in; what it prints goes to /dev/null. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../../tools/args.c"
#include "../../../tools/cmd_info.c"
#include "../../../tools/hdu_arg.c"
#include "../../../tools/json_text.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	static char path[64];
	if (!path[0]) {
		snprintf(path, sizeof(path), "/dev/shm/tsr_fuzz_cli_info_%d", (int)getpid());
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0)
			dup2(null, 1); /* the command's output; libFuzzer reports on stderr */
		FILE *quiet = fopen("/dev/null", "w");
		if (quiet)
			stderr = quiet; /* the command's messages (libFuzzer keeps its own stream) */
	}
	if (n < 1)
		return 0;
	FILE *f = fopen(path, "wb");
	if (!f)
		return 0;
	fwrite(data + 1, 1, n - 1, f);
	fclose(f);
	static const char *const views[] = {NULL, "--json", "--header", "--attrs"};
	char *argv[8] = {"info", path};
	int argc = 2;
	if (views[data[0] & 3])
		argv[argc++] = (char *)views[data[0] & 3];
	if (data[0] & 4) {
		argv[argc++] = "--hdu";
		argv[argc++] = (data[0] & 8) ? "1" : "0";
	}
	tsr_cli_info(argc, argv);
	fflush(stdout);
	return 0;
}
