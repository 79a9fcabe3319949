/* test_options_load.c - every entry point (read options too) reads a caller's options struct by one rule: older, shorter structs get the defaults of the fields they lack; longer ones are accepted when the unknown bytes are zero; anything else is refused with a message. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tessera.h"

/* An options struct as a caller built against a newer header passes it: ours, then `extra`
 * more bytes (zero, or with one set). */
struct newer_open {
	struct tsr_open_options o;
	unsigned char extra[24];
};

int main(void)
{
	const char *corpus = getenv("TSR_CORPUS");
	char path[1100];
	snprintf(path, sizeof(path), "%s/fits/u_multi_hdu.fits", corpus ? corpus : "../../shared/corpus");
	struct tsr_context *ctx = NULL;
	struct tsr_array *a = NULL;
	struct tsr_array_info in = {.struct_size = sizeof(in)};

	/* context: the first published struct, a longer one with zero tail, a short one */
	struct {
		struct tsr_context_options c;
		int more;
	} cl;
	memset(&cl, 0, sizeof(cl)); /* (padding included: the tail must read as zero) */
	cl.c.struct_size = sizeof(cl);
	cl.c.nthreads = 1;
	CHECK_EQ_INT(tsr_context_create(&cl.c, &ctx), TSR_OK);
	CHECK_EQ_INT(tsr_context_nthreads(ctx), 1);
	tsr_context_free(ctx);
	cl.more = 7;
	ctx = NULL;
	CHECK_EQ_INT(tsr_context_create(&cl.c, &ctx), TSR_E_INVALID_ARG);
	CHECK(strstr(tsr_errmsg(), "tsr_context_create") && strstr(tsr_errmsg(), "newer"));
	struct tsr_context_options tiny = {sizeof(size_t), 1};
	CHECK_EQ_INT(tsr_context_create(&tiny, &ctx), TSR_E_INVALID_ARG);
	CHECK(strstr(tsr_errmsg(), "first published size") != NULL);
	struct tsr_context_options co = {sizeof(co), 2};
	CHECK_EQ_INT(tsr_context_create(&co, &ctx), TSR_OK);

	/* open: the oldest struct (no array path on) reads the first image HDU, as NULL does */
	struct tsr_open_options old = {.struct_size = offsetof(struct tsr_open_options, array),
				       .hdu = 3};
	CHECK_EQ_INT(tsr_open(ctx, path, &old, &a), TSR_OK);
	if (a) {
		CHECK_EQ_INT(tsr_array_info(a, &in), TSR_OK);
		CHECK_EQ_INT(in.index, 3);
		CHECK_EQ_INT(in.dtype, TSR_INT64);
	}
	tsr_array_free(a);
	a = NULL;
	/* a struct ending before hdu_name: the name and dtype it lacks stay unset */
	struct tsr_open_options mid = {.struct_size = offsetof(struct tsr_open_options, hdu_name),
				       .hdu = 4, .level = -1};
	CHECK_EQ_INT(tsr_open(ctx, path, &mid, &a), TSR_OK);
	if (a) {
		CHECK_EQ_INT(tsr_array_info(a, &in), TSR_OK);
		CHECK_EQ_INT(in.index, 4);
	}
	tsr_array_free(a);
	a = NULL;
	/* newer callers: zero tail accepted, a set byte refused naming the call */
	struct newer_open n;
	memset(&n, 0, sizeof(n));
	n.o = (struct tsr_open_options){.struct_size = sizeof(n), .hdu = 2, .level = -1};
	CHECK_EQ_INT(tsr_open(ctx, path, &n.o, &a), TSR_OK);
	if (a) {
		CHECK_EQ_INT(tsr_array_info(a, &in), TSR_OK);
		CHECK_EQ_INT(in.index, 2);
	}
	tsr_array_free(a);
	a = NULL;
	n.extra[9] = 1;
	CHECK_EQ_INT(tsr_open(ctx, path, &n.o, &a), TSR_E_INVALID_ARG);
	CHECK(strstr(tsr_errmsg(), "tsr_open") && strstr(tsr_errmsg(), "newer tessera.h"));
	CHECK(a == NULL);
	struct tsr_open_options small = {.struct_size = sizeof(size_t)};
	CHECK_EQ_INT(tsr_open(ctx, path, &small, &a), TSR_E_INVALID_ARG);

	/* stream: the first published options, and old open options with it; the HDU they name is
	 * what each batch reads (the stream keeps its own copies of the caller's strings) */
	const char *paths[2] = {path, path};
	struct tsr_stream_options so = {sizeof(so), 2, 0};
	char *name = strdup("F32");
	struct tsr_open_options byname = {.struct_size = sizeof(byname), .hdu = -1, .level = -1,
					  .hdu_name = name};
	struct tsr_stream *s = NULL;
	CHECK_EQ_INT(tsr_stream_open(ctx, paths, 2, &byname, NULL, &so, &s), TSR_OK);
	free(name); /* the stream's copy stays */
	if (s) {
		size_t nb = 2 * 120 * 100 * 4, got = 0;
		void *buf = malloc(nb);
		struct tsr_buffer dst = {.data = buf, .nbytes = nb, .mem = TSR_MEM_HOST};
		CHECK_EQ_INT(tsr_stream_next(s, &dst, NULL, &got, NULL), TSR_OK);
		CHECK_EQ_INT(got, 2);
		free(buf);
	}
	tsr_stream_free(s);
	s = NULL;
	struct tsr_stream_options bad = {sizeof(size_t), 2, 0};
	CHECK_EQ_INT(tsr_stream_open(ctx, paths, 2, &old, NULL, &bad, &s), TSR_E_INVALID_ARG);
	CHECK(s == NULL);

	/* read: the first published struct (struct_size, nthreads) ignores what lies past it; a
	 * longer one with a zero tail reads, one with a field set there is refused */
	a = NULL;
	CHECK_EQ_INT(tsr_open(ctx, path, NULL, &a), TSR_OK);
	if (a) {
		struct tsr_array_info ai = {.struct_size = sizeof(ai)};
		CHECK_EQ_INT(tsr_array_info(a, &ai), TSR_OK);
		size_t nb = tsr_dtype_size(ai.dtype);
		for (int d = 0; d < ai.ndim; d++)
			nb *= (size_t)ai.shape[d];
		void *buf = malloc(nb ? nb : 1);
		struct tsr_buffer dst = {.data = buf, .nbytes = nb, .mem = TSR_MEM_HOST};
		struct {
			struct tsr_read_options o;
			int more;
		} ro;
		memset(&ro, 0, sizeof(ro));
		ro.o.struct_size = offsetof(struct tsr_read_options, nthreads) + sizeof(int);
		ro.o.nthreads = 1;
		ro.o.decoder = 99; /* past the caller's struct_size: not read */
		ro.o.storage = 99;
		CHECK_EQ_INT(tsr_read(a, NULL, &dst, &ro.o, NULL), TSR_OK);
		ro.o.struct_size = sizeof(ro.o);
		CHECK_EQ_INT(tsr_read(a, NULL, &dst, &ro.o, NULL), TSR_E_INVALID_ARG);
		ro.o.decoder = TSR_DECODER_AUTO;
		ro.o.storage = TSR_STORAGE_REAL;
		ro.o.struct_size = sizeof(ro);
		CHECK_EQ_INT(tsr_read(a, NULL, &dst, &ro.o, NULL), TSR_OK);
		ro.more = 1;
		CHECK_EQ_INT(tsr_read(a, NULL, &dst, &ro.o, NULL), TSR_E_INVALID_ARG);
		CHECK(strstr(tsr_errmsg(), "read options") && strstr(tsr_errmsg(), "newer"));
		struct tsr_read_options tiny_ro = {.struct_size = sizeof(size_t)};
		CHECK_EQ_INT(tsr_read(a, NULL, &dst, &tiny_ro, NULL), TSR_E_INVALID_ARG);
		CHECK(strstr(tsr_errmsg(), "first published size") != NULL);
		free(buf);
	}
	tsr_array_free(a);
	tsr_context_free(ctx);
	CHECK_DONE();
}
