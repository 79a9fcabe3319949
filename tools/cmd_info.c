/* cmd_info.c - `tessera info`: what a FITS file, Zarr store or Blosc2 frame holds (tsr_list),
 * each array described (tsr_array_info, tsr_array_metadata) into one JSON document that is
 * printed as it is (--json, schema in docs/info-json.md) or as a table. */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

struct tsr_info_args {
	const char *path;
	const char *array; /* --array: a Zarr array or group */
	int hdu;           /* --hdu: a FITS HDU; -1: all */
	struct tsr_cli_hdu hdu_arg; /* --hdu as given: an index, or EXTNAME[,EXTVER] */
	int json, header, attrs;
	int level;         /* --level: that level of the multiscale group --array names; -1: all */
	const char *dtype; /* --dtype: every array opened with it (tsr_open_options.dtype) */
};

/* Keys of tsr_array_metadata's object an info entry carries (the rest with --attrs). */
static const char *const tsr_info_meta_keys[] = {
	"layout", "stored_nbytes", "bscale", "bzero", "blank", "compression", "zarr_format",
	"fill_value", "dimension_names", "frame_version",
};

static const char *tsr_kind_name(enum tsr_entry_kind k)
{
	switch (k) {
	case TSR_ENTRY_ARRAY: return "array";
	case TSR_ENTRY_EMPTY: return "empty";
	case TSR_ENTRY_TABLE: return "table";
	case TSR_ENTRY_MULTISCALE: return "multiscale";
	}
	return "?";
}

/* Out of memory while building the document: nothing sensible is left to do. */
static void *tsr_info_need(void *p)
{
	if (!p) {
		fprintf(stderr, "tessera info: out of memory\n");
		exit(1);
	}
	return p;
}

static void tsr_put(cJSON *o, const char *key, cJSON *item)
{
	tsr_info_need(item);
	if (!cJSON_AddItemToObject(o, key, item))
		tsr_info_need(NULL);
}

static cJSON *tsr_dims_json(const int64_t *v, int n)
{
	cJSON *list = tsr_info_need(cJSON_CreateArray());
	for (int i = 0; i < n; i++)
		if (!cJSON_AddItemToArray(list, tsr_info_need(cJSON_CreateNumber((double)v[i]))))
			tsr_info_need(NULL);
	return list;
}

/* What the listing says of an entry. */
static cJSON *tsr_entry_json(const struct tsr_entry *e)
{
	cJSON *o = tsr_info_need(cJSON_CreateObject());
	int fits = !strcmp(e->format, "fits"), zarr = !strcmp(e->format, "zarr");
	tsr_put(o, "kind", cJSON_CreateString(tsr_kind_name(e->kind)));
	tsr_put(o, "hdu", fits ? cJSON_CreateNumber(e->hdu) : cJSON_CreateNull());
	tsr_put(o, "name", cJSON_CreateString(e->name));
	if (fits) {
		tsr_put(o, "extver", e->extver ? cJSON_CreateNumber(e->extver) : cJSON_CreateNull());
		tsr_put(o, "xtension", e->hdu ? cJSON_CreateString(e->xtension) : cJSON_CreateNull());
		tsr_put(o, "compressed", cJSON_CreateBool(e->compressed));
	}
	if (zarr && e->kind == TSR_ENTRY_MULTISCALE)
		tsr_put(o, "nlevels", cJSON_CreateNumber(e->nlevels));
	if (zarr && e->kind == TSR_ENTRY_ARRAY) {
		tsr_put(o, "group", e->level >= 0 ? cJSON_CreateString(e->group) : cJSON_CreateNull());
		tsr_put(o, "level", e->level >= 0 ? cJSON_CreateNumber(e->level) : cJSON_CreateNull());
	}
	return o;
}

/* Opens listing entry i's array (where the listing found it) and adds what it is; on failure
 * adds "error" and says it on standard error. Returns 0 or 1. */
static int tsr_describe(struct tsr_context *ctx, const struct tsr_info_args *args,
			const struct tsr_listing *l, size_t i, cJSON *o)
{
	struct tsr_open_options oo = {.struct_size = sizeof(oo), .hdu = -1, .level = -1,
				      .dtype = args->dtype};
	struct tsr_array *a = NULL;
	char *meta_text = NULL;
	struct tsr_array_info in = {.struct_size = sizeof(in)};
	if (tsr_listing_open(ctx, l, i, &oo, &a) || tsr_array_info(a, &in) ||
	    tsr_array_metadata(a, &meta_text)) {
		fprintf(stderr, "tessera info: %s\n", tsr_errmsg());
		tsr_put(o, "error", cJSON_CreateString(tsr_errmsg()));
		tsr_array_free(a);
		return 1;
	}
	cJSON *meta = tsr_info_need(tsr_cli_json_parse(meta_text));
	tsr_put(o, "dtype", cJSON_CreateString(tsr_dtype_name(in.dtype)));
	tsr_put(o, "stored_dtype", cJSON_CreateString(tsr_dtype_name(in.stored_dtype)));
	tsr_put(o, "dtype_source", cJSON_CreateString(in.dtype_source));
	tsr_put(o, "shape", tsr_dims_json(in.shape, in.ndim));
	tsr_put(o, "nchunks", cJSON_CreateNumber((double)in.nchunks));
	tsr_put(o, "codec", cJSON_CreateString(in.codec));
	tsr_put(o, "reader", cJSON_CreateString(in.reader));
	tsr_put(o, "scaled", cJSON_CreateBool(in.scaled));
	if (!cJSON_GetObjectItemCaseSensitive(meta, "stored_nbytes"))
		tsr_put(o, "stored_nbytes", cJSON_CreateNumber((double)in.stored_nbytes));
	for (size_t i = 0; i < sizeof(tsr_info_meta_keys) / sizeof(*tsr_info_meta_keys); i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(meta, tsr_info_meta_keys[i]);
		if (v)
			tsr_put(o, tsr_info_meta_keys[i], cJSON_Duplicate(v, 1));
	}
	/* the library's text itself: cJSON would round integers beyond 2^53 */
	if (args->attrs || args->header)
		tsr_put(o, "metadata", cJSON_CreateRaw(meta_text));
	cJSON_Delete(meta);
	tsr_free(meta_text);
	tsr_array_free(a);
	return 0;
}

/* "a/b/" and "/a/b" name "a/b"; "/" the root. */
static void tsr_array_norm(const char *in, char *buf, size_t cap)
{
	while (*in == '/')
		in++;
	snprintf(buf, cap, "%s", in);
	size_t n = strlen(buf);
	while (n && buf[n - 1] == '/')
		buf[--n] = '\0';
}

/* --hdu EXTNAME[,EXTVER]: the index of the HDU the library opens by that name (its matching
 * rules: case and blanks ignored, EXTVER absent = 1). Returns 0, or 1 with the message. */
static int tsr_info_hdu_named(struct tsr_info_args *args)
{
	struct tsr_context *ctx = NULL;
	struct tsr_context_options co = {.struct_size = sizeof(co), .nthreads = 1};
	struct tsr_open_options oo = {.struct_size = sizeof(oo), .hdu = -1, .level = -1};
	struct tsr_array *a = NULL;
	struct tsr_array_info in = {.struct_size = sizeof(in)};
	tsr_cli_hdu_apply(&args->hdu_arg, &oo);
	int st = tsr_context_create(&co, &ctx);
	if (!st)
		st = tsr_open(ctx, args->path, &oo, &a);
	if (!st)
		st = tsr_array_info(a, &in);
	if (st)
		fprintf(stderr, "tessera info: %s\n", tsr_errmsg());
	else
		args->hdu = in.index;
	tsr_array_free(a);
	tsr_context_free(ctx);
	return st != 0;
}

/* Which entries --hdu / --array keep: 1 keeps entry i. Returns 0, or 1 with the message on
 * standard error (what was asked for is not there). */
static int tsr_select(const struct tsr_info_args *args, const struct tsr_listing *l,
		      const char *format, char *keep)
{
	size_t n = tsr_listing_count(l);
	struct tsr_entry e = {.struct_size = sizeof(e)};
	memset(keep, !args->array && args->hdu < 0, n);
	if (args->hdu >= 0) {
		if (strcmp(format, "fits")) {
			fprintf(stderr, "tessera info: %s: --hdu is for FITS files, this is a %s %s\n",
				args->path, format, !strcmp(format, "zarr") ? "store" : "frame");
			return 1;
		}
		if ((size_t)args->hdu >= n) {
			fprintf(stderr, "tessera info: %s: HDU %d out of range: the file has %zu HDUs\n",
				args->path, args->hdu, n);
			return 1;
		}
		keep[args->hdu] = 1;
	}
	if (args->level >= 0) {
		/* one level of an OME-Zarr group (the store's root without --array), as read's
		 * --array GROUP --level K opens it; level 0 of what is no multiscale group is the
		 * array itself, as tsr_open_options.level says (read takes it so) */
		char group[4096] = "";
		size_t found = 0;
		int nlevels = -1;
		if (args->array)
			tsr_array_norm(args->array, group, sizeof(group));
		for (size_t i = 0; i < n && !strcmp(format, "zarr"); i++) {
			tsr_listing_entry(l, i, &e);
			if (e.kind == TSR_ENTRY_MULTISCALE && !strcmp(e.name, group))
				nlevels = e.nlevels;
			keep[i] = e.kind == TSR_ENTRY_ARRAY && e.level == args->level &&
				  !strcmp(e.group, group);
			found += keep[i];
		}
		if (found)
			return 0;
		if (nlevels >= 0) {
			fprintf(stderr, "tessera info: %s: no level %d of multiscale group '%s' (it has "
				"%d level%s)\n", args->path, args->level, group[0] ? group : "/",
				nlevels, nlevels == 1 ? "" : "s");
			return 1;
		}
		if (args->level > 0) {
			fprintf(stderr, "tessera info: %s: level %d: %s is not an OME-Zarr multiscale "
				"group\n", args->path, args->level,
				strcmp(format, "zarr") ? (strcmp(format, "fits") ? "a Blosc2 frame" :
				"a FITS file") : group[0] ? group : "the store's root");
			return 1;
		}
		memset(keep, !args->array && args->hdu < 0, n);
		if (args->hdu >= 0)
			keep[args->hdu] = 1;
	}
	if (!args->array)
		return 0;
	if (strcmp(format, "zarr")) {
		fprintf(stderr, "tessera info: %s: --array is for Zarr stores, this is a %s %s\n",
			args->path, format, !strcmp(format, "fits") ? "file" : "frame");
		return 1;
	}
	char want[4096];
	tsr_array_norm(args->array, want, sizeof(want));
	size_t wl = strlen(want), found = 0;
	for (size_t i = 0; i < n; i++) {
		tsr_listing_entry(l, i, &e);
		/* the array itself, or a group: everything under it (a multiscale group with its
		 * levels, a plain group with its arrays) */
		int same = !strcmp(e.name, want);
		int under = !wl ? 1 : !strncmp(e.name, want, wl) && e.name[wl] == '/';
		if (same || under) {
			keep[i] = 1;
			found++;
		}
	}
	if (found)
		return 0;
	fprintf(stderr, "tessera info: %s: no array or group '%s' (arrays:", args->path,
		wl ? want : "/");
	int any = 0;
	for (size_t i = 0; i < n; i++) {
		tsr_listing_entry(l, i, &e);
		if (e.kind == TSR_ENTRY_ARRAY)
			fprintf(stderr, "%s %s", any++ ? "," : "", e.name[0] ? e.name : "/");
	}
	fprintf(stderr, "%s)\n", any ? "" : " none");
	return 1;
}

/* ---- the table ---- */

/* "120x160" (every dimension: the buffer takes TSR_MAX_DIM of them); "()" for none. */
static void tsr_dims_text(char *buf, size_t cap, const cJSON *list)
{
	size_t len = 0;
	const cJSON *v;
	buf[0] = '\0';
	cJSON_ArrayForEach(v, list) {
		int w = snprintf(buf + len, cap - len, "%s%.0f", len ? "x" : "", v->valuedouble);
		if (w < 0 || (size_t)w >= cap - len)
			break; /* cannot happen with TSR_MAX_DIM dimensions: never past the end */
		len += (size_t)w;
	}
	if (!len)
		snprintf(buf, cap, "()");
}

#define TSR_DIMS_CAP (TSR_MAX_DIM * 24 + 8)

static void tsr_layout_text(char *buf, size_t cap, const cJSON *o)
{
	const cJSON *lay = cJSON_GetObjectItemCaseSensitive(o, "layout");
	const cJSON *kind = cJSON_GetObjectItemCaseSensitive(lay, "kind");
	char a[TSR_DIMS_CAP], b[TSR_DIMS_CAP];
	const cJSON *shard = cJSON_GetObjectItemCaseSensitive(lay, "shard_shape");
	tsr_dims_text(a, sizeof(a), cJSON_GetObjectItemCaseSensitive(lay, "chunk_shape"));
	if (!cJSON_IsString(kind))
		snprintf(buf, cap, "?");
	else if (!strcmp(kind->valuestring, "contiguous"))
		snprintf(buf, cap, "contiguous");
	else if (cJSON_IsArray(shard)) {
		tsr_dims_text(b, sizeof(b), shard);
		snprintf(buf, cap, "chunks %s in shards %s", a, b);
	} else {
		snprintf(buf, cap, "%s %s", kind->valuestring, a);
	}
}

static void tsr_print_value(FILE *f, const cJSON *v)
{
	cJSON *c = tsr_info_need(cJSON_Duplicate(v, 1));
	tsr_cli_json_raw(c); /* (the library's own text of its numbers) */
	char *s = cJSON_PrintUnformatted(c);
	cJSON_Delete(c);
	fputs(s ? s : "?", f);
	free(s);
}

/* The line under a row: what a reader asks first, where the array has it. */
static void tsr_details_text(const cJSON *o)
{
	const cJSON *v;
	int n = 0;
#define TSR_SEP (n++ ? "  " : "     ")
	if ((v = cJSON_GetObjectItemCaseSensitive(o, "extver")) && cJSON_IsNumber(v))
		printf("%sEXTVER %d", TSR_SEP, v->valueint);
	const cJSON *bs = cJSON_GetObjectItemCaseSensitive(o, "bscale");
	const cJSON *bz = cJSON_GetObjectItemCaseSensitive(o, "bzero");
	if ((cJSON_IsNumber(bs) && bs->valuedouble != 1.0) ||
	    (cJSON_IsNumber(bz) && bz->valuedouble != 0.0)) {
		printf("%sBSCALE ", TSR_SEP);
		tsr_print_value(stdout, bs);
		printf(" BZERO ");
		tsr_print_value(stdout, bz);
	}
	if ((v = cJSON_GetObjectItemCaseSensitive(o, "blank")) && !cJSON_IsNull(v)) {
		printf("%sBLANK ", TSR_SEP);
		tsr_print_value(stdout, v);
	}
	const cJSON *z = cJSON_GetObjectItemCaseSensitive(o, "compression");
	if (cJSON_IsObject(z)) {
		const cJSON *lossy = cJSON_GetObjectItemCaseSensitive(z, "lossy");
		const cJSON *q = cJSON_GetObjectItemCaseSensitive(z, "quantize");
		const cJSON *seed = cJSON_GetObjectItemCaseSensitive(z, "dither_seed");
		if (cJSON_IsTrue(lossy)) {
			printf("%sLOSSY: quantized (ZQUANTIZ %s", TSR_SEP,
			       cJSON_IsString(q) ? q->valuestring : "?");
			if (cJSON_IsNumber(seed))
				printf(", ZDITHER0 %.0f", seed->valuedouble);
			printf(")");
		} else {
			printf("%slossless", TSR_SEP);
		}
	}
	if ((v = cJSON_GetObjectItemCaseSensitive(o, "fill_value"))) {
		printf("%sfill value ", TSR_SEP);
		tsr_print_value(stdout, v);
	}
	if ((v = cJSON_GetObjectItemCaseSensitive(o, "dimension_names")) && cJSON_IsArray(v)) {
		printf("%sdimensions ", TSR_SEP);
		tsr_print_value(stdout, v);
	}
	const cJSON *g = cJSON_GetObjectItemCaseSensitive(o, "group");
	if (cJSON_IsString(g) && (v = cJSON_GetObjectItemCaseSensitive(o, "level")))
		printf("%slevel %d of multiscale group %s", TSR_SEP, v->valueint,
		       g->valuestring[0] ? g->valuestring : "/");
	const cJSON *rows = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(o, "layout"), "rows_per_read");
	const cJSON *shape0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(o, "shape"), 0);
	if (cJSON_IsNumber(rows) && cJSON_IsNumber(shape0) && rows->valuedouble < shape0->valuedouble)
		printf("%sread %.0f rows at a time", TSR_SEP, rows->valuedouble);
	if (n)
		printf("\n");
#undef TSR_SEP
}

static const char *tsr_str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : "";
}

/* The columns a UTF-8 string takes: its bytes less their continuation bytes ("nível" is 6
 * bytes, 5 columns). */
static int tsr_cols(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* The printf width that pads s to width columns. */
static int tsr_pad(const char *s, int width)
{
	return width + (int)strlen(s) - tsr_cols(s);
}

/* The table's columns, widened to their longest field. */
struct tsr_widths {
	int first, dtype, stored, shape, layout, codec;
};

/* An entry's first field: "1    SCI" (FITS), the array's path (Zarr), "0" (Blosc2). */
static void tsr_first_text(char *buf, size_t cap, const cJSON *o, int fits, int zarr)
{
	const char *name = tsr_str(o, "name");
	const cJSON *hdu = cJSON_GetObjectItemCaseSensitive(o, "hdu");
	if (fits)
		snprintf(buf, cap, "%-4d %s", cJSON_IsNumber(hdu) ? hdu->valueint : -1,
			 name[0] ? name : "-");
	else
		snprintf(buf, cap, "%s", zarr ? (name[0] ? name : "/") : "0");
}

static int tsr_wider(int w, const char *s)
{
	int c = tsr_cols(s);
	return c > w ? c : w;
}

static void tsr_table_widths(const cJSON *entries, int fits, int zarr, struct tsr_widths *w)
{
	const cJSON *o;
	*w = (struct tsr_widths){zarr ? 24 : 21, 10, 10, 20, 30, 16};
	cJSON_ArrayForEach(o, entries) {
		if (strcmp(tsr_str(o, "kind"), "array") ||
		    cJSON_GetObjectItemCaseSensitive(o, "error"))
			continue; /* (a row of its own words after the first field) */
		char first[4200], shape[TSR_DIMS_CAP], layout[2 * TSR_DIMS_CAP];
		tsr_first_text(first, sizeof(first), o, fits, zarr);
		tsr_dims_text(shape, sizeof(shape), cJSON_GetObjectItemCaseSensitive(o, "shape"));
		tsr_layout_text(layout, sizeof(layout), o);
		w->first = tsr_wider(w->first, first);
		w->dtype = tsr_wider(w->dtype, tsr_str(o, "dtype"));
		w->stored = tsr_wider(w->stored, tsr_str(o, "stored_dtype"));
		w->shape = tsr_wider(w->shape, shape);
		w->layout = tsr_wider(w->layout, layout);
		w->codec = tsr_wider(w->codec, tsr_str(o, "codec"));
	}
}

static void tsr_print_table(const cJSON *doc)
{
	const char *format = tsr_str(doc, "format");
	const cJSON *entries = cJSON_GetObjectItemCaseSensitive(doc, "entries"), *o;
	int fits = !strcmp(format, "fits"), zarr = !strcmp(format, "zarr");
	/* the title counts what the path holds, though --hdu / --array show part of it */
	const cJSON *count = cJSON_GetObjectItemCaseSensitive(doc, "count");
	int n = cJSON_IsNumber(count) ? count->valueint : cJSON_GetArraySize(entries);
	struct tsr_widths w;
	tsr_table_widths(entries, fits, zarr, &w);
	printf("%s (%s, %d %s%s)\n", tsr_str(doc, "path"),
	       fits ? "FITS file" : zarr ? "Zarr store" : "Blosc2 frame", n,
	       fits ? "HDU" : "entr", fits ? (n == 1 ? "" : "s") : (n == 1 ? "y" : "ies"));
	printf("%-*s %-*s %-*s %-*s %-*s %-*s %s\n", w.first,
	       fits ? "HDU  EXTNAME" : zarr ? "array" : "#", w.dtype, "dtype", w.stored, "stored",
	       w.shape, "shape", w.layout, "layout", w.codec, "codec", "stored bytes");
	cJSON_ArrayForEach(o, entries) {
		const char *kind = tsr_str(o, "kind"), *name = tsr_str(o, "name");
		char first[4200];
		tsr_first_text(first, sizeof(first), o, fits, zarr);
		if (!strcmp(kind, "multiscale")) {
			const cJSON *nl = cJSON_GetObjectItemCaseSensitive(o, "nlevels");
			printf("%-*s OME-Zarr multiscale group: %d level%s (%s%s%s--level 0..%d)",
			       tsr_pad(first, w.first), first, nl->valueint, nl->valueint == 1 ? "" : "s",
			       name[0] ? "--array " : "", name, name[0] ? " " : "", nl->valueint - 1);
			/* levels whose array the store lacks: listed by the group, no entry of their own */
			int nmissing = 0;
			for (int k = 0; k < nl->valueint; k++) {
				const cJSON *e;
				int found = 0;
				cJSON_ArrayForEach(e, entries) {
					const cJSON *g = cJSON_GetObjectItemCaseSensitive(e, "group"),
						    *lv = cJSON_GetObjectItemCaseSensitive(e, "level");
					found |= cJSON_IsString(g) && !strcmp(g->valuestring, name) &&
						 cJSON_IsNumber(lv) && lv->valueint == k;
				}
				if (!found)
					printf("%s%d", nmissing++ ? ", " : "; no array for level ", k);
			}
			printf("\n");
			continue;
		}
		if (strcmp(kind, "array")) {
			const char *xt = tsr_str(o, "xtension");
			printf("%-*s (no image: %s)\n", tsr_pad(first, w.first), first,
			       !strcmp(kind, "table") ? xt : "an HDU without data");
			continue;
		}
		const cJSON *err = cJSON_GetObjectItemCaseSensitive(o, "error");
		if (err) {
			printf("%-*s (cannot open: %s)\n", tsr_pad(first, w.first), first,
			       err->valuestring);
			continue;
		}
		char shape[TSR_DIMS_CAP], layout[2 * TSR_DIMS_CAP];
		tsr_dims_text(shape, sizeof(shape), cJSON_GetObjectItemCaseSensitive(o, "shape"));
		tsr_layout_text(layout, sizeof(layout), o);
		const cJSON *sb = cJSON_GetObjectItemCaseSensitive(o, "stored_nbytes");
		const char *dt = tsr_str(o, "dtype"), *sdt = tsr_str(o, "stored_dtype");
		const char *codec = tsr_str(o, "codec");
		printf("%-*s %-*s %-*s %-*s %-*s %-*s %.0f%s%s\n", tsr_pad(first, w.first), first,
		       tsr_pad(dt, w.dtype), dt, tsr_pad(sdt, w.stored), sdt, w.shape, shape,
		       w.layout, layout, tsr_pad(codec, w.codec), codec,
		       cJSON_IsNumber(sb) ? sb->valuedouble : 0.0,
		       strcmp(tsr_str(o, "reader"), "tessera") ? " (via CFITSIO)" : "",
		       strcmp(tsr_str(o, "dtype_source"), "itemsize") ? "" :
		       " (no dtype in the file: unsigned items of its size; --dtype names one)");
		tsr_details_text(o);
	}
}

/* Does the list at s hold no objects or lists? */
static int tsr_flat_list(const char *s)
{
	for (s++; *s && *s != ']'; s++) {
		if (*s == '{' || *s == '[')
			return 0;
		if (*s == '"')
			for (s++; *s && *s != '"'; s++)
				if (*s == '\\' && s[1])
					s++;
		if (!*s)
			return 0;
	}
	return *s == ']';
}

/* JSON text indented, one member or item a line (the text kept as is: numbers exact). */
static void tsr_print_indented(const char *s)
{
	int depth = 0, in_str = 0;
	for (; *s; s++) {
		char ch = *s;
		if (in_str) {
			putchar(ch);
			if (ch == '\\' && s[1])
				putchar(*++s);
			else if (ch == '"')
				in_str = 0;
			continue;
		}
		if (ch == '"') {
			in_str = 1;
			putchar(ch);
		} else if (ch == '[' && tsr_flat_list(s)) {
			/* a list of plain values stays on one line */
			for (putchar(*s++); *s != ']'; s++) {
				if (*s == '"') {
					for (putchar(*s++); *s != '"'; s++)
						putchar(*s == '\\' ? (putchar(*s++), *s) : *s);
					putchar('"');
				} else {
					printf(*s == ',' ? ", " : "%c", *s);
				}
			}
			putchar(']');
		} else if ((ch == '{' || ch == '[') && (s[1] == '}' || s[1] == ']')) {
			putchar(ch);
			putchar(*++s);
		} else if (ch == '{' || ch == '[') {
			printf("%c\n%*s", ch, 2 * ++depth, "");
		} else if (ch == '}' || ch == ']') {
			printf("\n%*s%c", 2 * --depth, "", ch);
		} else if (ch == ',') {
			printf(",\n%*s", 2 * depth, "");
		} else if (ch == ':') {
			printf(": ");
		} else {
			putchar(ch);
		}
	}
	putchar('\n');
}

/* --header: the cards as a FITS header shows them. */
static void tsr_print_header(const cJSON *o)
{
	const cJSON *raw = cJSON_GetObjectItemCaseSensitive(o, "metadata");
	cJSON *meta = tsr_info_need(tsr_cli_json_parse(raw->valuestring));
	const cJSON *cards = cJSON_GetObjectItemCaseSensitive(meta, "header"), *c;
	cJSON_ArrayForEach(c, cards) {
		const char *key = tsr_str(c, "key"), *comment = tsr_str(c, "comment");
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, "value");
		if (cJSON_IsNull(v)) {
			printf("%-8s %s\n", key, comment);
			continue;
		}
		if (strlen(key) > 8 || strchr(key, ' '))
			printf("HIERARCH %s = ", key); /* (its card: ESO's convention) */
		else
			printf("%-8s= ", key);
		if (cJSON_IsString(v)) {
			putchar('\'');
			for (const char *p = v->valuestring; *p; p++)
				printf(*p == '\'' ? "''" : "%c", *p);
			putchar('\'');
		} else if (cJSON_IsBool(v)) {
			putchar(cJSON_IsTrue(v) ? 'T' : 'F');
		} else {
			tsr_print_value(stdout, v);
		}
		printf(comment[0] ? " / %s\n" : "\n", comment);
	}
	cJSON_Delete(meta);
}

static int tsr_info_usage(FILE *f)
{
	fprintf(f, "usage: tessera info PATH... [--hdu N|EXTNAME[,EXTVER]] [--array NAME]\n"
		   "                    [--level K] [--json] [--header] [--attrs] [--dtype DTYPE]\n"
		   "Lists what PATH holds: a FITS file's HDUs (EXTNAME, dtype, shape, tiles, codec,\n"
		   "stored bytes, BSCALE/BZERO, BLANK, quantization), a Zarr store's arrays (dtype,\n"
		   "shape, chunks and shards, codecs, fill value, stored bytes) and OME-Zarr\n"
		   "multiscale groups, or a Blosc2 frame's array. --hdu and --array show one HDU,\n"
		   "array or group; --level K one level of the OME-Zarr group --array names (the\n"
		   "store's own without it). --header prints the FITS header cards of the HDUs shown;\n"
		   "--attrs prints all the metadata of each (Zarr attributes, dimension names, OME\n"
		   "scales, Blosc2 vlmeta, FITS cards) as JSON. --json prints one JSON document\n"
		   "(docs/info-json.md; with --header or --attrs each array carries \"metadata\").\n"
		   "--dtype opens the arrays with that dtype, as tessera read --dtype does (a plain\n"
		   "Blosc2 super-chunk stores none: unsigned integers of its item size otherwise).\n"
		   "Several paths are listed one after another (--json: a list of their documents).\n"
		   "Exits 1, saying why on standard error, when a PATH or what was asked for cannot\n"
		   "be read.\n");
	return f == stdout ? 0 : 2;
}

/* One PATH's listing, printed; with `all` (several paths and --json), its document goes there
 * (a path that does not list: {"path", "error"}). */
static int tsr_info_path(struct tsr_info_args *a, cJSON *all)
{
	struct tsr_info_args args = *a;
	struct tsr_listing *l = NULL;
	if (tsr_list(args.path, &l)) {
		fprintf(stderr, "tessera info: %s\n", tsr_errmsg());
		if (all) {
			cJSON *o = tsr_info_need(cJSON_CreateObject());
			tsr_put(o, "path", cJSON_CreateString(args.path));
			tsr_put(o, "error", cJSON_CreateString(tsr_errmsg()));
			cJSON_AddItemToArray(all, o);
		}
		return 1;
	}
	size_t n = tsr_listing_count(l);
	struct tsr_entry e = {.struct_size = sizeof(e)};
	const char *format = n && !tsr_listing_entry(l, 0, &e) ? e.format : "zarr";
	char *keep = tsr_info_need(calloc(n + 1, 1));
	if (args.hdu_arg.name[0] && !strcmp(format, "fits") && tsr_info_hdu_named(&args)) {
		free(keep);
		tsr_listing_free(l);
		return 1;
	}
	if (args.hdu_arg.name[0] && strcmp(format, "fits"))
		args.hdu = 0; /* (tsr_select then says --hdu is for FITS files) */
	if (tsr_select(&args, l, format, keep)) {
		free(keep);
		tsr_listing_free(l);
		return 1;
	}
	if (args.header && strcmp(format, "fits")) {
		fprintf(stderr, "tessera info: %s: --header is for FITS files (--attrs prints a %s "
			"array's metadata)\n", args.path, format);
		free(keep);
		tsr_listing_free(l);
		return 1;
	}
	struct tsr_context *ctx;
	struct tsr_context_options co = {sizeof(co), 1};
	if (tsr_context_create(&co, &ctx)) {
		fprintf(stderr, "tessera info: %s\n", tsr_errmsg());
		free(keep);
		tsr_listing_free(l);
		return 1;
	}
	cJSON *doc = tsr_info_need(cJSON_CreateObject());
	cJSON *entries = tsr_info_need(cJSON_CreateArray());
	tsr_put(doc, "path", cJSON_CreateString(args.path));
	tsr_put(doc, "format", cJSON_CreateString(format));
	tsr_put(doc, "count", cJSON_CreateNumber((double)n));
	tsr_put(doc, "entries", entries);
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		if (!keep[i] || tsr_listing_entry(l, i, &e))
			continue;
		cJSON *o = tsr_entry_json(&e);
		if (!cJSON_AddItemToArray(entries, o))
			tsr_info_need(NULL);
		if (e.kind == TSR_ENTRY_ARRAY) {
			rc |= tsr_describe(ctx, &args, l, i, o);
		} else if (args.header || args.attrs) {
			/* a header without an image, a group's attributes: the listing's own */
			char *text = NULL;
			if (tsr_listing_metadata(l, i, &text)) {
				fprintf(stderr, "tessera info: %s\n", tsr_errmsg());
				tsr_put(o, "error", cJSON_CreateString(tsr_errmsg()));
				rc = 1;
			} else {
				tsr_put(o, "metadata", cJSON_CreateRaw(text));
			}
			tsr_free(text);
		}
	}
	if (all) {
		cJSON_AddItemToArray(all, doc);
		doc = NULL;
	} else if (args.json) {
		tsr_cli_json_raw(doc);
		char *s = tsr_info_need(tsr_cli_json_utf8(cJSON_PrintUnformatted(doc)));
		tsr_print_indented(s);
		free(s);
	} else if (args.header || args.attrs) {
		const cJSON *o;
		cJSON_ArrayForEach(o, entries) {
			const cJSON *meta = cJSON_GetObjectItemCaseSensitive(o, "metadata");
			if (!meta)
				continue;
			if (args.header) {
				const cJSON *hdu = cJSON_GetObjectItemCaseSensitive(o, "hdu");
				if (cJSON_GetArraySize(entries) > 1)
					printf("%s# HDU %d%s%s\n", hdu->valueint ? "\n" : "",
					       hdu->valueint, tsr_str(o, "name")[0] ? " " : "",
					       tsr_str(o, "name"));
				tsr_print_header(o);
			}
			if (args.attrs)
				tsr_print_indented(meta->valuestring);
		}
	} else {
		tsr_print_table(doc);
	}
	cJSON_Delete(doc);
	tsr_context_free(ctx);
	free(keep);
	tsr_listing_free(l);
	return rc;
}

int tsr_cli_info(int argc, char **argv)
{
	struct tsr_info_args args = {.hdu = -1, .level = -1};
	const char **paths = tsr_info_need(calloc((size_t)argc, sizeof(*paths)));
	int npaths = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			free(paths);
			return tsr_info_usage(stdout);
		} else if (!strcmp(argv[i], "--array") && i + 1 < argc) {
			args.array = argv[++i];
		} else if (!strcmp(argv[i], "--json")) {
			args.json = 1;
		} else if (!strcmp(argv[i], "--dtype") && i + 1 < argc) {
			args.dtype = argv[++i];
		} else if (!strcmp(argv[i], "--level") && i + 1 < argc) {
			if (tsr_cli_parse_int(argv[++i], 0, 1L << 30, &args.level)) {
				fprintf(stderr, "tessera info: --level is a level number, not '%s'\n",
					argv[i]);
				free(paths);
				return 2;
			}
		} else if (!strcmp(argv[i], "--header")) {
			args.header = 1;
		} else if (!strcmp(argv[i], "--attrs")) {
			args.attrs = 1;
		} else if (!strcmp(argv[i], "--hdu") && i + 1 < argc) {
			if (tsr_cli_hdu_arg(argv[++i], &args.hdu_arg)) {
				fprintf(stderr, "tessera info: --hdu is " TSR_CLI_HDU_CHOICES
					", not '%s'\n", argv[i]);
				free(paths);
				return 2;
			}
			args.hdu = args.hdu_arg.index;
		} else if (argv[i][0] == '-') {
			fprintf(stderr, "tessera info: unexpected argument '%s'\n", argv[i]);
			free(paths);
			return 2;
		} else {
			paths[npaths++] = argv[i];
		}
	}
	if (!npaths) {
		free(paths);
		fprintf(stderr, "tessera info: no PATH given\n");
		return tsr_info_usage(stderr);
	}
	/* several paths: each one's listing in turn (--json: a list of their documents) */
	cJSON *all = npaths > 1 && args.json ? tsr_info_need(cJSON_CreateArray()) : NULL;
	int rc = 0;
	for (int k = 0; k < npaths; k++) {
		struct tsr_info_args one = args;
		one.path = paths[k];
		if (k && !args.json)
			putchar('\n');
		rc |= tsr_info_path(&one, all);
	}
	if (all) {
		tsr_cli_json_raw(all);
		char *text = tsr_info_need(tsr_cli_json_utf8(cJSON_PrintUnformatted(all)));
		tsr_print_indented(text);
		free(text);
		cJSON_Delete(all);
	}
	free(paths);
	return rc;
}
