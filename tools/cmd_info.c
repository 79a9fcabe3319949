/* cmd_info.c - `tessera info`: what a file holds, HDU by HDU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void tsr_print_dims(const int64_t *v, int n, const char *open, const char *close)
{
	printf("%s", open);
	for (int i = 0; i < n; i++)
		printf("%s%lld", i ? ", " : "", (long long)v[i]);
	printf("%s", close);
}

static void tsr_json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 32)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

int tsr_cli_info(int argc, char **argv)
{
	const char *path = NULL;
	int json = 0, only = -2;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: tessera info PATH [--hdu N] [--json]\n"
			       "Lists the file's HDUs: dtype, shape, tile shape, codec, stored bytes.\n");
			return 0;
		} else if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!strcmp(argv[i], "--hdu") && i + 1 < argc) {
			only = atoi(argv[++i]);
		} else if (argv[i][0] == '-' || path) {
			fprintf(stderr, "tessera info: unexpected argument '%s'\n", argv[i]);
			return 2;
		} else {
			path = argv[i];
		}
	}
	if (!path) {
		fprintf(stderr, "tessera info: no PATH given\n");
		return 2;
	}
	struct tsr_context *ctx;
	struct tsr_context_options co = {sizeof(co), 1};
	if (tsr_context_create(&co, &ctx)) {
		fprintf(stderr, "tessera info: %s\n", tsr_errmsg());
		return 1;
	}
	int shown = 0, rc = 0;
	if (json)
		printf("{\"path\": "), tsr_json_str(path), printf(", \"hdus\": [");
	for (int hdu = only >= 0 ? only : 0;; hdu++) {
		struct tsr_open_options oo = {sizeof(oo), hdu, 0, NULL, -1};
		struct tsr_array *a;
		int st = tsr_open(ctx, path, &oo, &a);
		if (st == TSR_E_RANGE && (only < 0 || shown))
			break;
		if (st == TSR_E_FORMAT || st == TSR_E_IO || st == TSR_E_RANGE) {
			fprintf(stderr, "tessera info: %s\n", tsr_errmsg());
			rc = 1;
			break;
		}
		if (json) {
			printf("%s{\"hdu\": %d", shown ? ", " : "", hdu);
		} else if (!shown) {
			printf("%s\n", path);
			printf("%-4s %-10s %-10s %-20s %-16s %-12s %s\n", "HDU", "dtype", "stored",
			       "shape", "tiles", "codec", "stored bytes");
		}
		shown++;
		if (st) {
			if (json)
				printf(", \"image\": false, \"note\": "), tsr_json_str(tsr_errmsg()), printf("}");
			else
				printf("%-4d (no image: %s)\n", hdu, strstr(tsr_errmsg(), "is a ") ? strstr(tsr_errmsg(), "is a ") + 5 : tsr_errmsg());
		} else {
			struct tsr_array_info in = {.struct_size = sizeof(in)};
			tsr_array_info(a, &in);
			if (json) {
				printf(", \"image\": true, \"dtype\": \"%s\", \"stored_dtype\": \"%s\", \"shape\": ",
				       tsr_dtype_name(in.dtype), tsr_dtype_name(in.stored_dtype));
				tsr_print_dims(in.shape, in.ndim, "[", "]");
				printf(", \"chunk_shape\": ");
				tsr_print_dims(in.chunk_shape, in.ndim, "[", "]");
				printf(", \"nchunks\": %lld, \"codec\": \"%s\", \"reader\": \"%s\", "
				       "\"stored_nbytes\": %llu, \"scaled\": %s}",
				       (long long)in.nchunks, in.codec, in.reader,
				       (unsigned long long)in.stored_nbytes, in.scaled ? "true" : "false");
			} else {
				char shape[64] = "", tiles[64] = "";
				int n = 0, m = 0;
				for (int i = 0; i < in.ndim; i++) {
					n += snprintf(shape + n, sizeof(shape) - (size_t)n, "%s%lld",
						      i ? "x" : "", (long long)in.shape[i]);
					m += snprintf(tiles + m, sizeof(tiles) - (size_t)m, "%s%lld",
						      i ? "x" : "", (long long)in.chunk_shape[i]);
				}
				printf("%-4d %-10s %-10s %-20s %-16s %-12s %llu%s\n", hdu,
				       tsr_dtype_name(in.dtype), tsr_dtype_name(in.stored_dtype), shape,
				       strcmp(in.codec, "none") ? tiles : "-", in.codec,
				       (unsigned long long)in.stored_nbytes,
				       strcmp(in.reader, "tessera") ? " (via CFITSIO)" : "");
			}
			tsr_array_free(a);
		}
		if (only >= 0)
			break;
	}
	if (json)
		printf("]}\n");
	tsr_context_free(ctx);
	return rc;
}
