/* cli.h - the subcommands of the tessera command-line tool. */
#ifndef TSR_CLI_H
#define TSR_CLI_H

#include <stdint.h>

#include "tessera.h"

int tsr_cli_info(int argc, char **argv);
int tsr_cli_read(int argc, char **argv);
int tsr_cli_demo(int argc, char **argv);
int tsr_cli_bench(int argc, char **argv);

/* --storage NAME as an enum tsr_storage, or -1; and back ("real", "mock-host", "mock-device",
 * "posix", "cufile"). */
#define TSR_CLI_STORAGE_CHOICES "real, mock-host, mock-device, posix or cufile"
int tsr_cli_storage(const char *name);
const char *tsr_cli_storage_name(int storage);
/* --decoder NAME as an enum tsr_decoder, or -1; and back ("auto", "cpu", "gpu"). */
#define TSR_CLI_DECODER_CHOICES "auto, cpu or gpu"
int tsr_cli_decoder(const char *name);
const char *tsr_cli_decoder_name(int decoder);

/* Option values (args.c): 0, or -1 when s is not one (the caller names option and value).
 * An integer in [lo, hi], decimal, nothing before or after it. */
int tsr_cli_parse_int(const char *s, long lo, long hi, int *v_ret);

/* Writes an NPY v1.0 file (C order) of elements with NumPy descr `descr`; path "-" is
 * standard output. A regular file is written beside its path and renamed over it once whole
 * (a failed write leaves the path as it was). Returns 0 or -1 with errno. */
int tsr_cli_write_npy(const char *path, const char *descr, int ndim, const int64_t *shape,
		      const void *data, size_t nbytes);

/* --hdu: an index, an EXTNAME, or EXTNAME,EXTVER (hdu_arg.c). */
#define TSR_CLI_HDU_CHOICES "an index (0 = primary), an EXTNAME, or EXTNAME,EXTVER"
struct tsr_cli_hdu {
	int index;     /* -1: none (a name, or no --hdu) */
	char name[TSR_HDU_NAME_MAX + 1]; /* "": no name */
	int ver;       /* with name: EXTVER, 0 = any */
};
/* Parses arg into *h; 0, or -1 when it is none of the choices. */
int tsr_cli_hdu_arg(const char *arg, struct tsr_cli_hdu *h);
/* Puts *h into the open options (a name, or the index). */
void tsr_cli_hdu_apply(const struct tsr_cli_hdu *h, struct tsr_open_options *oo);

/* The library's JSON text (tsr_array_metadata's) parsed for the CLI to take parts of: its
 * NaN, Infinity and -Infinity, reals and integers beyond 2^53 numbers that keep their text
 * (json_text.c). NULL where it does not parse or memory runs out. tsr_cli_json_raw makes
 * those numbers of j raw nodes of their text, so that printing writes what the library
 * wrote (cJSON by itself prints NaN as null, 1.0 as 1 and rounds 2^63 - 1). */
struct cJSON;
struct cJSON *tsr_cli_json_parse(const char *text);
void tsr_cli_json_raw(struct cJSON *j);
/* text (cJSON's print, freed) as valid UTF-8, each byte that starts no UTF-8 character U+FFFD:
 * the CLI's own strings (a path named by bytes that are not UTF-8) go into its JSON as they
 * are, which JSON readers refuse. NULL where memory runs out. */
char *tsr_cli_json_utf8(char *text);

#endif
