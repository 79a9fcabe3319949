/* test_metadata_reals.c - tsr_array_metadata writes numbers so that Python's json reads back
 * what the peers give: a Zarr document's as it wrote them (1.0 a float, not the int 1 cJSON
 * prints; -0.0, 1e-300, 1.5E3 as written), FITS cards' as astropy reads them (reals as reals,
 * an integer beyond int64 exact, '+5', '5.', '.5', '1.0D5', '007' as valid JSON of the same
 * value, complex values as strings), every document valid JSON (with Python's NaN tokens).
 * Integer fill values read the same as before from numbers that now keep their text. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "tessera.h"

/* One 80-character FITS card. */
static void card(FILE *f, const char *text)
{
	char c[81];
	snprintf(c, sizeof(c), "%-80s", text);
	fwrite(c, 1, 80, f);
}

/* ---- a JSON checker: what Python's json.loads takes (JSON, and NaN, Infinity, -Infinity) */

static const char *js_value(const char *p, int depth);

static const char *js_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

static const char *js_digits(const char *p)
{
	const char *q = p;
	while (isdigit((unsigned char)*q))
		q++;
	return q > p ? q : NULL;
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static const char *js_number(const char *p)
{
	p += *p == '-';
	if (*p == '0')
		p++;
	else if (!(p = js_digits(p)))
		return NULL;
	if (*p == '.' && !(p = js_digits(p + 1)))
		return NULL;
	if (*p == 'e' || *p == 'E') {
		p++;
		p += *p == '+' || *p == '-';
		p = js_digits(p);
	}
	return p;
}

static const char *js_string(const char *p)
{
	if (*p != '"')
		return NULL;
	for (p++; *p != '"'; p++) {
		if (!*p || (unsigned char)*p < 0x20)
			return NULL;
		if (*p == '\\' && !strchr("\"\\/bfnrtu", *++p))
			return NULL;
	}
	return p + 1;
}

static const char *js_value(const char *p, int depth)
{
	static const char *const words[] = {"true", "false", "null", "NaN", "Infinity", "-Infinity"};
	p = js_ws(p);
	if (depth > 64)
		return NULL;
	if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';
		p = js_ws(p + 1);
		if (*p == close)
			return p + 1;
		for (;;) {
			if (close == '}') {
				if (!(p = js_string(js_ws(p))) || *(p = js_ws(p)) != ':')
					return NULL;
				p++;
			}
			if (!(p = js_value(p, depth + 1)))
				return NULL;
			p = js_ws(p);
			if (*p == close)
				return p + 1;
			if (*p++ != ',')
				return NULL;
		}
	}
	if (*p == '"')
		return js_string(p);
	for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++)
		if (!strncmp(p, words[i], strlen(words[i])))
			return p + strlen(words[i]);
	return js_number(p);
}

static void valid_json(const char *what, const char *text)
{
	const char *end = text ? js_value(text, 0) : NULL;
	if (!end || *js_ws(end)) {
		fprintf(stderr, "%s: not JSON as Python reads it: %s\n", what, text ? text : "(none)");
		check_failures++;
	}
}

/* ---- the documents */

/* path's metadata document (NULL where it does not open), its first value (itemsize w) in
 * *first when first is not NULL. */
static char *doc(struct tsr_context *ctx, const char *path, size_t w, void *first)
{
	struct tsr_array *a = NULL;
	char *text = NULL;
	if (tsr_open(ctx, path, NULL, &a)) {
		fprintf(stderr, "%s: %s\n", path, tsr_errmsg());
		check_failures++;
		return NULL;
	}
	if (first) {
		void *data = NULL;
		size_t nbytes = 0;
		int ndim = 0;
		int64_t shape[TSR_MAX_DIM];
		CHECK_EQ_INT(tsr_read_alloc(a, NULL, NULL, &data, &nbytes, &ndim, shape, NULL),
			     TSR_OK);
		if (data && nbytes >= w)
			memcpy(first, data, w);
		tsr_free(data);
	}
	CHECK_EQ_INT(tsr_array_metadata(a, &text), TSR_OK);
	tsr_array_free(a);
	valid_json(path, text);
	return text;
}

/* A v2 array of 2 values of dtype with fill_value fill (text as written). */
static void v2_array(const char *dir, const char *dtype, const char *fill)
{
	char t[512];
	snprintf(t, sizeof(t), "{\"zarr_format\": 2, \"shape\": [2], \"chunks\": [2], \"dtype\": "
		 "\"%s\", \"compressor\": null, \"fill_value\": %s, \"order\": \"C\", "
		 "\"filters\": null}", dtype, fill);
	check_put_file(dir, ".zarray", t);
}

int main(void)
{
	char dir[64], p[256];
	snprintf(dir, sizeof(dir), "/tmp/tsr_mreal_XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
	struct tsr_context *ctx = NULL;
	CHECK_EQ_INT(tsr_context_create(NULL, &ctx), TSR_OK);

	/* Zarr v3: numbers as the document wrote them; an int32 fill_value written 7.0 */
	snprintf(p, sizeof(p), "%s/v3.zarr", dir);
	check_put_file(p, "zarr.json",
	    "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [2], \"data_type\": "
	    "\"int32\", \"chunk_grid\": {\"name\": \"regular\", \"configuration\": "
	    "{\"chunk_shape\": [2]}}, \"chunk_key_encoding\": {\"name\": \"default\"}, "
	    "\"fill_value\": 7.0, \"codecs\": [{\"name\": \"bytes\", \"configuration\": "
	    "{\"endian\": \"little\"}}], \"attributes\": {\"one\": 1.0, \"negzero\": -0.0, "
	    "\"tiny\": 1e-300, \"big\": 1.5E3, \"scale\": [1.0, 1.0], \"int\": 7, "
	    "\"neg\": -2.50, \"huge\": 9007199254740993, \"exp\": 2e+0,\n"
	    "\"lenient\": [1., -.5, 007, -00]}}");
	int32_t i32 = 0;
	char *text = doc(ctx, p, 4, &i32);
	CHECK_EQ_INT(i32, 7);
	static const char *const want3[] = {
		"\"fill_value\":7.0", "\"one\":1.0", "\"negzero\":-0.0", "\"tiny\":1e-300",
		"\"big\":1.5E3", "\"scale\":[1.0,1.0]", "\"int\":7,", "\"neg\":-2.50",
		"\"huge\":9007199254740993", "\"exp\":2e+0",
		/* what cJSON reads but JSON does not write, as JSON of the same value */
		"\"lenient\":[1.0,-0.5,7,-0]", NULL};
	check_holds("zarr v3", text, want3);
	tsr_free(text);

	/* integer fill values: the digits path (beyond 2^53) and what is refused, as before */
	static const struct {
		const char *dtype, *fill;
		uint64_t bits; /* (of the first value; 0: refused) */
		const char *msg;
	} fills[] = {
		{"<u8", "18446744073709551615", UINT64_MAX, NULL},
		{"<i8", "-9007199254740993", (uint64_t)INT64_C(-9007199254740993), NULL},
		{"<i4", "1.0e3", 1000, NULL},
		{"<i8", "1e20", 0, "fill_value 1e+20 does not fit int64"},
		{"<i8", "1.5", 0, "fill_value 1.5 of an integer array is not an integer"},
		{"<u8", "-1.0", 0, "fill_value -1 does not fit uint64"},
	};
	for (size_t i = 0; i < sizeof(fills) / sizeof(*fills); i++) {
		snprintf(p, sizeof(p), "%s/fill%zu.zarr", dir, i);
		v2_array(p, fills[i].dtype, fills[i].fill);
		if (!fills[i].msg) {
			uint64_t v = 0;
			size_t w = fills[i].dtype[2] == '8' ? 8 : 4;
			text = doc(ctx, p, w, &v);
			if (w == 4)
				v = (uint64_t)(int64_t)(int32_t)v;
			if (v != fills[i].bits) {
				fprintf(stderr, "fill %s of %s read as 0x%llx\n", fills[i].fill,
					fills[i].dtype, (unsigned long long)v);
				check_failures++;
			}
			char want[64];
			snprintf(want, sizeof(want), "\"fill_value\":%s", fills[i].fill);
			const char *const w1[] = {want, NULL};
			check_holds(fills[i].fill, text, w1);
			tsr_free(text);
			continue;
		}
		struct tsr_array *a = NULL;
		CHECK_EQ_INT(tsr_open(ctx, p, NULL, &a), TSR_E_FORMAT);
		if (!strstr(tsr_errmsg(), fills[i].msg)) {
			fprintf(stderr, "fill %s: message lacks \"%s\": %s\n", fills[i].fill,
				fills[i].msg, tsr_errmsg());
			check_failures++;
		}
		tsr_array_free(a);
	}

	/* FITS: the card values of an int16 image as astropy reads them */
	snprintf(p, sizeof(p), "%s/cards.fits", dir);
	FILE *f = fopen(p, "wb");
	CHECK(f != NULL);
	if (f) {
		static const char *const cards[] = {
			"SIMPLE  =                    T", "BITPIX  =                   16",
			"NAXIS   =                    2", "NAXIS1  =                    5",
			"NAXIS2  =                    3", "FLT     =                  1.0 / a real",
			"BIG     = 123456789012345678901234567890",
			"NBIG    = -0123456789012345678901234567890",
			"DEXP    =                1.0D5", "PT5     =                   5.",
			"DOT5    =                   .5", "PLUS    =                   +5",
			"ZEROS   =                  007", "RZ      =              -007.50",
			"INT     =                   42", "E       =               1.5E-3",
			"ZERO    =                  0.0", "MZERO   =                 -0.0",
			"THIRD   = 0.33333333333333331", "PI      =    3.141592653589793",
			"CPLX    =           (1.0, 2.0)", "INT64   =  9223372036854775807",
		};
		int n = (int)(sizeof(cards) / sizeof(*cards));
		for (int i = 0; i < n; i++)
			card(f, cards[i]);
		card(f, "END");
		for (n++; n % 36; n++)
			card(f, "");
		static const unsigned char zeros[2880];
		fwrite(zeros, 1, sizeof(zeros), f);
		fclose(f);
	}
	text = doc(ctx, p, 0, NULL);
	static const char *const wantf[] = {
		"\"key\":\"FLT\",\"value\":1.0,\"comment\":\"a real\"",
		"\"key\":\"BIG\",\"value\":123456789012345678901234567890,",
		"\"key\":\"NBIG\",\"value\":-123456789012345678901234567890,",
		"\"key\":\"DEXP\",\"value\":100000.0,", "\"key\":\"PT5\",\"value\":5.0,",
		"\"key\":\"DOT5\",\"value\":0.5,", "\"key\":\"PLUS\",\"value\":5,",
		"\"key\":\"ZEROS\",\"value\":7,", "\"key\":\"RZ\",\"value\":-7.5,",
		"\"key\":\"INT\",\"value\":42,", "\"key\":\"E\",\"value\":0.0015,",
		"\"key\":\"ZERO\",\"value\":0.0,", "\"key\":\"MZERO\",\"value\":-0.0,",
		"\"key\":\"THIRD\",\"value\":0.3333333333333333,",
		"\"key\":\"PI\",\"value\":3.141592653589793,",
		"\"key\":\"CPLX\",\"value\":\"(1.0, 2.0)\",",
		"\"key\":\"INT64\",\"value\":9223372036854775807,", NULL};
	check_holds("fits", text, wantf);
	tsr_free(text);

	tsr_context_free(ctx);
	snprintf(p, sizeof(p), "rm -rf '%s'", dir);
	CHECK(system(p) == 0);
	CHECK_DONE();
}
