/* tessera.c - the command-line tool: info, read, bench, demo. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void tsr_cli_usage(FILE *f)
{
	fprintf(f, "usage: tessera <command> [options]\n\n"
		   "commands:\n"
		   "  info PATH... [--hdu N|NAME[,VER] | --array NAME [--level K]] [--dtype DTYPE]\n"
		   "       [--json] [--header] [--attrs]\n"
		   "                                     what PATH holds: HDUs, arrays, OME levels;\n"
		   "                                     dtype, shape, layout, codec, metadata\n"
		   "  read PATH [--hdu N|NAME[,VER] | --array NAME [--level K]] [--section SPEC]\n"
		   "       [--oindex] [--raw] [--dtype DTYPE] [--threads N] [--device cpu|cuda]\n"
		   "       [--decoder auto|cpu|gpu] [--storage ...] [--receipt] -o OUT.npy|-\n"
		   "                                     read all or a section into an NPY file\n"
		   "  bench [--hdu N | --array PATH [--level K]] [--section SPEC]\n"
		   "        [--device cpu|cuda|both] [--decoder auto|cpu|gpu] [--storage ...]\n"
		   "        [--iterations K] [--threads T] [--files-per-batch B] [--prefetch P]\n"
		   "        [--dir DIR [--max-files M]] [--output-json FILE] FILE...\n"
		   "                                     time reading FILEs phase by phase; JSON report\n"
		   "  demo [--dir DIR] [--keep] [--size N]\n"
		   "                                     write sample FITS files, read them back, check, time\n\n"
		   "  --version                          print the version\n"
		   "  <command> --help                   help for a command\n");
}

/* The command's status, or 1 where what it printed did not all reach standard output (a full
 * disk, a closed pipe): a listing cut short is a failure, as coreutils' tools say. */
static int tsr_cli_finish(int rc)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return rc;
	fprintf(stderr, "tessera: standard output: %s\n", strerror(errno ? errno : EIO));
	return rc ? rc : 1;
}

static int tsr_cli_run(int argc, char **argv)
{
	if (argc < 2) {
		tsr_cli_usage(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
		printf("tessera %s\n", tsr_version());
		return 0;
	}
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		tsr_cli_usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "info"))
		return tsr_cli_info(argc - 1, argv + 1);
	if (!strcmp(cmd, "read"))
		return tsr_cli_read(argc - 1, argv + 1);
	if (!strcmp(cmd, "bench"))
		return tsr_cli_bench(argc - 1, argv + 1);
	if (!strcmp(cmd, "demo"))
		return tsr_cli_demo(argc - 1, argv + 1);
	fprintf(stderr, "tessera: unknown command '%s' (try tessera --help)\n", cmd);
	return 2;
}

/* "--name=value" as "--name" "value" (GNU's long-option form), for every command: argv with
 * such arguments split, in *argc_ret; NULL when memory runs out. A lone "--" and what follows
 * it stay as they are. */
static char **tsr_cli_split_eq(int argc, char **argv, int *argc_ret)
{
	char **v = malloc(sizeof(char *) * (2 * (size_t)argc + 1));
	if (!v)
		return NULL;
	int n = 0, rest = 0;
	for (int i = 0; i < argc; i++) {
		char *eq = argv[i][0] == '-' && argv[i][1] == '-' ? strchr(argv[i], '=') : NULL;
		rest |= !strcmp(argv[i], "--");
		if (rest || !eq || eq == argv[i] + 2) {
			v[n++] = argv[i];
			continue;
		}
		*eq = '\0'; /* (argv's strings are the program's to change) */
		v[n++] = argv[i];
		v[n++] = eq + 1;
	}
	v[n] = NULL;
	*argc_ret = n;
	return v;
}

int main(int argc, char **argv)
{
	int n = argc;
	char **v = tsr_cli_split_eq(argc, argv, &n);
	if (!v) {
		fprintf(stderr, "tessera: out of memory\n");
		return 1;
	}
	int rc = tsr_cli_finish(tsr_cli_run(n, v));
	free(v);
	return rc;
}
