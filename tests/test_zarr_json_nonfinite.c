/* test_zarr_json_nonfinite.c - Zarr metadata with bare NaN, Infinity, -Infinity (as
 * zarr-python and Python's json write float attributes) opens: a bare NaN fill_value fills
 * with the quiet NaN the "NaN" string gives, and tsr_array_metadata writes the tokens back bare
 * (Python's json.loads reads them); anything else that is not JSON still fails, with the line
 * message. cJSON alone refuses the tokens: such arrays could not be opened. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "tessera.h"

/* Opens path, reads all n values (itemsize w) into out, returns the metadata text. */
static char *open_read(struct tsr_context *ctx, const char *path, size_t w, size_t n, void *out)
{
	struct tsr_array *a = NULL;
	char *text = NULL;
	void *data = NULL;
	size_t nbytes = 0;
	int ndim = 0;
	int64_t shape[TSR_MAX_DIM];
	int st = tsr_open(ctx, path, NULL, &a);
	CHECK_EQ_INT(st, TSR_OK);
	if (st) {
		fprintf(stderr, "%s: %s\n", path, tsr_errmsg());
		return NULL;
	}
	CHECK_EQ_INT(tsr_read_alloc(a, NULL, NULL, &data, &nbytes, &ndim, shape, NULL), TSR_OK);
	CHECK_EQ_INT(nbytes, w * n);
	if (data && nbytes == w * n)
		memcpy(out, data, w * n);
	tsr_free(data);
	CHECK_EQ_INT(tsr_array_metadata(a, &text), TSR_OK);
	tsr_array_free(a);
	return text;
}

/* Opening path fails with TSR_E_FORMAT and a message holding want. */
static void refused(struct tsr_context *ctx, const char *path, const char *want)
{
	struct tsr_array *a = NULL;
	CHECK_EQ_INT(tsr_open(ctx, path, NULL, &a), TSR_E_FORMAT);
	CHECK(a == NULL);
	if (!strstr(tsr_errmsg(), want)) {
		fprintf(stderr, "%s: message lacks \"%s\": %s\n", path, want, tsr_errmsg());
		check_failures++;
	}
	tsr_array_free(a);
}

int main(void)
{
	/* the quiet NaNs the specs name for "NaN" (meta.c) */
	static const uint8_t nan32[4] = {0, 0, 0xc0, 0x7f}, nan64[8] = {0, 0, 0, 0, 0, 0, 0xf8, 0x7f};
	char dir[64], p[256];
	snprintf(dir, sizeof(dir), "/tmp/tsr_zjn_XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
	struct tsr_context *ctx = NULL;
	CHECK_EQ_INT(tsr_context_create(NULL, &ctx), TSR_OK);

	/* v2: a bare NaN fill_value of float64, and attributes as Python's json.dumps writes */
	snprintf(p, sizeof(p), "%s/v2.zarr", dir);
	check_put_file(p, ".zarray", "{\"zarr_format\": 2, \"shape\": [4], \"chunks\": [2], \"dtype\": \"<f8\",\n"
			  " \"compressor\": null, \"fill_value\": NaN, \"order\": \"C\", "
			  "\"filters\": null}");
	check_put_file(p, ".zattrs", "{\"nodata\": NaN, \"hi\": Infinity, \"lo\": -Infinity,\n"
			  " \"list\": [NaN,1.5,-Infinity], \"text\": \"NaN, Infinity\", \"n\": -1}");
	double d[4] = {0};
	char *text = open_read(ctx, p, 8, 4, d);
	for (int i = 0; i < 4; i++)
		CHECK(!memcmp(&d[i], nan64, 8));
	static const char *const want2[] = {
		"\"fill_value\":NaN", "\"nodata\":NaN", "\"hi\":Infinity", "\"lo\":-Infinity",
		"\"list\":[NaN,1.5,-Infinity]", "\"text\":\"NaN, Infinity\"", "\"n\":-1", NULL};
	check_holds("v2", text, want2);
	tsr_free(text);

	/* v3: a bare NaN fill_value of float32, -Infinity and Infinity in the attributes */
	snprintf(p, sizeof(p), "%s/v3.zarr", dir);
	check_put_file(p, "zarr.json",
	    "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [3], \"data_type\": "
	    "\"float32\", \"chunk_grid\": {\"name\": \"regular\", \"configuration\": "
	    "{\"chunk_shape\": [3]}}, \"chunk_key_encoding\": {\"name\": \"default\"}, "
	    "\"fill_value\": NaN, \"codecs\": [{\"name\": \"bytes\", \"configuration\": "
	    "{\"endian\": \"little\"}}],\n\"attributes\": {\"nodata\":NaN,\"range\":[-Infinity,\t"
	    "Infinity],\"nested\":{\"x\":[[NaN]]}}}");
	float f[3] = {0};
	text = open_read(ctx, p, 4, 3, f);
	for (int i = 0; i < 3; i++)
		CHECK(!memcmp(&f[i], nan32, 4));
	static const char *const want3[] = {"\"fill_value\":NaN", "\"nodata\":NaN",
					    "\"range\":[-Infinity,Infinity]",
					    "\"nested\":{\"x\":[[NaN]]}", NULL};
	check_holds("v3", text, want3);
	tsr_free(text);

	/* what is still not JSON: lowercase, glued to letters or digits (NaN1 is no 0.01), a
	 * NaN key, a sign before NaN; each fails as before, naming line and place */
	static const struct {
		const char *value, *near;
	} bad[] = {
		{"nan", "near 'nan, \"order\": \"C"}, {"NaN1", "near 'NaN1, \"order\": \"C"},
		{"NaNx", "near 'NaNx, \"order\": \"C"}, {"1NaN", "near 'NaN, \"order\": \"C\""},
		{"-NaN", "near '-NaN, \"order\": \"C"}, {"Infinityy", "near 'Infinityy, \"order\""},
		{"inf", "near 'inf, \"order\": \"C"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		char doc[512], msg[128];
		snprintf(p, sizeof(p), "%s/bad%zu.zarr", dir, i);
		snprintf(doc, sizeof(doc), "{\"zarr_format\": 2, \"shape\": [4], \"chunks\": [2], "
			 "\"dtype\": \"<f8\",\n \"compressor\": null,\n \"fill_value\": %s, "
			 "\"order\": \"C\", \"filters\": null}", bad[i].value);
		check_put_file(p, ".zarray", doc);
		snprintf(msg, sizeof(msg), ".zarray: not valid JSON (line 3, %s", bad[i].near);
		refused(ctx, p, msg);
	}
	snprintf(p, sizeof(p), "%s/badkey.zarr", dir);
	check_put_file(p, ".zarray", "{\"zarr_format\": 2, NaN: 1}");
	refused(ctx, p, ".zarray: not valid JSON (line 1, near '"); /* (cJSON's place: 'aN: 1}') */

	tsr_context_free(ctx);
	snprintf(p, sizeof(p), "rm -rf '%s'", dir);
	CHECK(system(p) == 0);
	CHECK_DONE();
}
