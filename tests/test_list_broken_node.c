/* test_list_broken_node.c - a Zarr array whose metadata is there but does not load (not JSON,
 * an unknown node_type, a v2 .zarray cut short) is listed beside its good siblings, and opening
 * it names store, array and fault: the walk once left such nodes out, so a store listed as if
 * the broken array were not there. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "tessera.h"

static void put(const char *dir, const char *sub, const char *name, const char *text)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", dir, sub);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/%s/%s", dir, sub, name);
	FILE *f = fopen(p, "wb");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* The listing's ARRAY names, joined by commas. */
static void listed(const char *store, char *buf, size_t cap)
{
	struct tsr_listing *l = NULL;
	buf[0] = '\0';
	CHECK_EQ_INT(tsr_list(store, &l), TSR_OK);
	for (size_t i = 0; i < tsr_listing_count(l); i++) {
		struct tsr_entry e = {.struct_size = sizeof(e)};
		CHECK_EQ_INT(tsr_listing_entry(l, i, &e), TSR_OK);
		if (e.kind == TSR_ENTRY_ARRAY)
			snprintf(buf + strlen(buf), cap - strlen(buf), "%s%s", buf[0] ? "," : "",
				 e.name);
	}
	tsr_listing_free(l);
}

/* Opening array name of store fails with TSR_E_FORMAT and a message naming store, array and
 * what (part of the fault). */
static void refused(const char *store, const char *name, const char *what)
{
	struct tsr_open_options oo = {.struct_size = sizeof(oo), .hdu = -1, .array = name, .level = -1};
	struct tsr_array *a = NULL;
	struct tsr_context *ctx = NULL;
	char want[64];
	CHECK_EQ_INT(tsr_context_create(NULL, &ctx), TSR_OK);
	CHECK_EQ_INT(tsr_open(ctx, store, &oo, &a), TSR_E_FORMAT);
	CHECK(a == NULL);
	snprintf(want, sizeof(want), "array %s", name);
	if (!strstr(tsr_errmsg(), store) || !strstr(tsr_errmsg(), want) ||
	    !strstr(tsr_errmsg(), what)) {
		fprintf(stderr, "%s: message lacks the store, '%s' or '%s': %s\n", name, want, what,
			tsr_errmsg());
		check_failures++;
	}
	tsr_context_free(ctx);
}

int main(void)
{
	static const char v3_array[] =
		"{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [4], \"data_type\": "
		"\"int32\", \"chunk_grid\": {\"name\": \"regular\", \"configuration\": "
		"{\"chunk_shape\": [2]}}, \"chunk_key_encoding\": {\"name\": \"default\"}, "
		"\"fill_value\": 0, \"codecs\": [{\"name\": \"bytes\", \"configuration\": "
		"{\"endian\": \"little\"}}]}";
	static const char v2_array[] =
		"{\"zarr_format\": 2, \"shape\": [4], \"chunks\": [2], \"dtype\": \"<i4\", "
		"\"compressor\": null, \"fill_value\": 0, \"order\": \"C\", \"filters\": null}";
	char dir[64], v3[128], v2[128], names[256];
	snprintf(dir, sizeof(dir), "/tmp/tsr_lbn_XXXXXX");
	CHECK(mkdtemp(dir) != NULL);

	snprintf(v3, sizeof(v3), "%s/v3.zarr", dir);
	CHECK(mkdir(v3, 0755) == 0);
	put(v3, ".", "zarr.json", "{\"zarr_format\": 3, \"node_type\": \"group\"}");
	put(v3, "a", "zarr.json", v3_array);
	put(v3, "b", "zarr.json", "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [");
	put(v3, "c", "zarr.json", "{\"zarr_format\": 3, \"node_type\": \"banana\"}");
	put(v3, "d", "zarr.json", v3_array);
	listed(v3, names, sizeof(names));
	if (strcmp(names, "a,b,c,d")) {
		fprintf(stderr, "v3 store listed '%s', expected 'a,b,c,d'\n", names);
		check_failures++;
	}
	refused(v3, "b", "not valid JSON");
	refused(v3, "c", "node_type");

	snprintf(v2, sizeof(v2), "%s/v2.zarr", dir);
	CHECK(mkdir(v2, 0755) == 0);
	put(v2, ".", ".zgroup", "{\"zarr_format\": 2}");
	put(v2, "a", ".zarray", v2_array);
	put(v2, "b", ".zarray", "{\"zarr_format\": 2, \"shape\": [4], ");
	put(v2, "g", ".zgroup", "{\"zarr_format\": 2}");
	put(v2, "g/c", ".zarray", v2_array);
	listed(v2, names, sizeof(names));
	if (strcmp(names, "a,b,g/c")) {
		fprintf(stderr, "v2 store listed '%s', expected 'a,b,g/c'\n", names);
		check_failures++;
	}
	refused(v2, "b", "not valid JSON");

	/* the names-only listing walks the same way */
	char **n = NULL;
	size_t count = 0;
	CHECK_EQ_INT(tsr_list_arrays(v3, &n, &count), TSR_OK);
	CHECK_EQ_INT(count, 4);
	tsr_free(n);

	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	return check_failures ? 1 : 0;
}
