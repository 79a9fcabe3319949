/* cmd_info.c - `tessera info`: what a file holds, HDU by HDU, or a Zarr store, array by array. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

static void tsr_print_dims(const int64_t *v, int n, const char *open, const char *close)
{
	printf("%s", open);
	for (int i = 0; i < n; i++)
		printf("%s%lld", i ? ", " : "", (long long)v[i]);
	printf("%s", close);
}

/* The format name of an opened array ("fits", "zarr", "blosc2"). */
static const char *tsr_array_format(const struct tsr_array *a)
{
	struct tsr_array_info in = {.struct_size = sizeof(in)};
	return tsr_array_info(a, &in) == TSR_OK ? in.format : "";
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

/* "120x160" */
static void tsr_dims_text(char *buf, size_t cap, const int64_t *v, int n)
{
	size_t len = 0;
	buf[0] = '\0';
	for (int i = 0; i < n && len < cap; i++) {
		int w = snprintf(buf + len, cap - len, "%s%lld", i ? "x" : "", (long long)v[i]);
		if (w < 0)
			break;
		len += (size_t)w;
	}
	if (n == 0)
		snprintf(buf, cap, "()");
}

/* How many OME-Zarr multiscale levels the group at `array` of the store has (0: none). */
static int tsr_ome_levels(struct tsr_context *ctx, const char *path, const char *array)
{
	int n = 0;
	for (; n < 64; n++) {
		struct tsr_open_options oo = {sizeof(oo), -1, 0, array, n, NULL, 0};
		struct tsr_array *a;
		if (tsr_open(ctx, path, &oo, &a))
			break;
		tsr_array_free(a);
	}
	return n;
}

/* A Zarr store: one row per array (or only `only`), then its multiscale levels. */
static int tsr_info_store(struct tsr_context *ctx, const char *path, char **names, size_t count,
			  const char *only, int json)
{
	int rc = 0, shown = 0;
	int plain = count == 1 && names[0][0] == '\0';
	if (json)
		printf("{\"path\": "), tsr_json_str(path), printf(", \"format\": \"zarr\", \"arrays\": [");
	else
		printf("%s (Zarr %s, %zu array%s)\n%-24s %-10s %-20s %-16s %s\n", path,
		       plain ? "array" : "group", count, count == 1 ? "" : "s", "array", "dtype",
		       "shape", "chunks", "codec");
	for (size_t i = 0; i < count; i++) {
		if (only && strcmp(only, names[i]) != 0)
			continue;
		struct tsr_open_options oo = {sizeof(oo), -1, 0, names[i], -1, NULL, 0};
		struct tsr_array *a;
		const char *shown_name = names[i][0] ? names[i] : "/";
		int st = tsr_open(ctx, path, &oo, &a);
		if (json) {
			printf("%s{\"array\": ", shown++ ? ", " : "");
			tsr_json_str(names[i]);
		}
		if (st) {
			if (json)
				printf(", \"error\": "), tsr_json_str(tsr_errmsg()), printf("}");
			else
				printf("%-24s (cannot open: %s)\n", shown_name, tsr_errmsg());
			rc = 1;
			continue;
		}
		struct tsr_array_info in = {.struct_size = sizeof(in)};
		tsr_array_info(a, &in);
		if (json) {
			printf(", \"dtype\": \"%s\", \"shape\": ", tsr_dtype_name(in.dtype));
			tsr_print_dims(in.shape, in.ndim, "[", "]");
			printf(", \"chunk_shape\": ");
			tsr_print_dims(in.chunk_shape, in.ndim, "[", "]");
			printf(", \"nchunks\": %lld, \"codec\": ", (long long)in.nchunks);
			tsr_json_str(in.codec);
			printf("}");
		} else {
			char shape[96], chunks[96];
			tsr_dims_text(shape, sizeof(shape), in.shape, in.ndim);
			tsr_dims_text(chunks, sizeof(chunks), in.chunk_shape, in.ndim);
			printf("%-24s %-10s %-20s %-16s %s\n", shown_name, tsr_dtype_name(in.dtype), shape,
			       chunks, in.codec);
		}
		tsr_array_free(a);
	}
	if (only && !plain && !shown && !json) {
		/* --array names a group (an OME-Zarr image, say) rather than an array. */
		printf("(%s is not an array of the store)\n", only);
	}
	int levels = plain ? 0 : tsr_ome_levels(ctx, path, only);
	if (json)
		printf("], \"multiscale_levels\": %d}\n", levels);
	else if (levels)
		printf("OME-Zarr multiscale%s%s: %d level%s (--level 0..%d)\n", only ? " " : "",
		       only ? only : "", levels, levels == 1 ? "" : "s", levels - 1);
	return rc;
}

int tsr_cli_info(int argc, char **argv)
{
	const char *path = NULL, *array = NULL;
	int json = 0, only = -2;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: tessera info PATH [--hdu N] [--array NAME] [--json]\n"
			       "Lists a FITS file's HDUs (dtype, shape, tile shape, codec, stored bytes)\n"
			       "or a Zarr store's arrays (dtype, shape, chunk shape, codecs) and its\n"
			       "OME-Zarr multiscale levels.\n");
			return 0;
		} else if (!strcmp(argv[i], "--array") && i + 1 < argc) {
			array = argv[++i];
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
	struct stat sb;
	char **names = NULL;
	size_t count = 0;
	if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode) &&
	    tsr_list_arrays(path, &names, &count) == TSR_OK) {
		rc = tsr_info_store(ctx, path, names, count, array, json);
		tsr_free(names);
		tsr_context_free(ctx);
		return rc;
	}
	if (json)
		printf("{\"path\": "), tsr_json_str(path), printf(", \"hdus\": [");
	for (int hdu = only >= 0 ? only : 0;; hdu++) {
		struct tsr_open_options oo = {sizeof(oo), hdu, 0, NULL, -1, NULL, 0};
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
			/* FITS counts HDUs and tiles; a Blosc2 frame holds one array of chunks. */
			int fits = st != TSR_OK || strcmp(tsr_array_format(a), "fits") == 0;
			printf("%s\n", path);
			printf("%-4s %-10s %-10s %-20s %-16s %-20s %s\n", fits ? "HDU" : "#", "dtype",
			       "stored", "shape", fits ? "tiles" : "chunks", "codec", "stored bytes");
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
				printf("%-4d %-10s %-10s %-20s %-16s %-20s %llu%s\n", hdu,
				       tsr_dtype_name(in.dtype), tsr_dtype_name(in.stored_dtype), shape,
				       strcmp(in.codec, "none") ? tiles : "-", in.codec,
				       (unsigned long long)in.stored_nbytes,
				       strcmp(in.reader, "tessera") ? " (via CFITSIO)" : "");
			}
			tsr_array_free(a);
			/* Only FITS files hold more than one array. */
			if (strcmp(in.format, "fits") != 0)
				break;
		}
		if (only >= 0)
			break;
	}
	if (json)
		printf("]}\n");
	tsr_context_free(ctx);
	return rc;
}
