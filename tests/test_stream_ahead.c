/* test_stream_ahead.c - a stream that reads its next batches ahead (device streams do, into device memory; here into host memory through the test switch) hands every batch the values a read of its files gives, in whole batches and a short last one; its receipts sum to the files' bytes; an error in a file read ahead comes from the call whose batch holds that file, naming it, and the batches before it are still right; a destination too small for a batch held ahead is TSR_E_TOO_SMALL. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "engine/engine.h"
#include "tessera.h"
#include "write_file.h"

#define NFILES 9
#define NELEM 64 /* uint16 elements of an array: 4 chunks of 16 */
#define PER (NELEM * 2)

static char dirs[NFILES + 2][256];

/* Zarr v2 store i: raw uint16 values i * 1000 + k (dtype: "<u2", or another); broken: its
 * chunk 2 is short. */
static void make_store(int i, const char *dtype, int broken)
{
	char path[512];
	snprintf(dirs[i], sizeof(dirs[i]), "/tmp/tsr_ahead_%d_%d.zarr", (int)getpid(), i);
	mkdir(dirs[i], 0755);
	char meta[256];
	snprintf(meta, sizeof(meta),
		 "{\"zarr_format\":2,\"shape\":[%d],\"chunks\":[16],\"dtype\":\"%s\","
		 "\"compressor\":null,\"fill_value\":0,\"order\":\"C\",\"filters\":null}",
		 NELEM, dtype);
	snprintf(path, sizeof(path), "%s/.zarray", dirs[i]);
	CHECK_EQ_INT(write_file(path, meta, strlen(meta)), 0);
	size_t w = dtype[2] == '4' ? 4 : 2;
	for (int c = 0; c < 4; c++) {
		unsigned char buf[16 * 4];
		for (int k = 0; k < 16; k++) {
			uint32_t v = (uint32_t)(i * 1000 + c * 16 + k);
			memcpy(buf + k * w, &v, w); /* (little-endian machine, as the tests assume) */
		}
		snprintf(path, sizeof(path), "%s/%d", dirs[i], c);
		CHECK_EQ_INT(write_file(path, buf, broken && c == 2 ? 16 * w - 3 : 16 * w), 0);
	}
}

static int values_of(const unsigned char *got, int store)
{
	for (int k = 0; k < NELEM; k++) {
		uint16_t v;
		memcpy(&v, got + 2 * k, 2);
		if (v != (uint16_t)(store * 1000 + k))
			return 0;
	}
	return 1;
}

/* A stream of paths[0..n) in batches of per_batch, reading ahead into host memory up to budget
 * bytes a group (NULL, a failed check, where it cannot be opened). */
static struct tsr_stream *open_ahead(struct tsr_context *ctx, const char **paths, int n,
				     int per_batch, size_t budget)
{
	struct tsr_stream_options so = {sizeof(so), per_batch, 0};
	struct tsr_stream *s = NULL;
	CHECK_EQ_INT(tsr_stream_open(ctx, paths, (size_t)n, NULL, NULL, &so, &s), TSR_OK);
	if (s)
		tsr_stream_ahead_test(s, budget);
	return s;
}

/* Streams paths[0..n) in batches of per_batch with read-ahead of budget bytes; each batch must
 * hold the stores order[] names. Returns 100 x the batches read + those served from the
 * read-ahead (their receipts read no bytes). */
static int stream_all(struct tsr_context *ctx, const char **paths, int n, int per_batch,
		      size_t budget, const int *order)
{
	struct tsr_stream *s = open_ahead(ctx, paths, n, per_batch, budget);
	if (!s)
		return 0;
	unsigned char got[PER * 4];
	struct tsr_buffer gb = {got, sizeof(got), TSR_MEM_HOST, NULL};
	int at = 0, batches = 0, served = 0;
	uint64_t out = 0;
	for (;;) {
		size_t nf = 0;
		struct tsr_receipt r = {.struct_size = sizeof(r)};
		memset(got, 0xee, sizeof(got));
		CHECK_EQ_INT(tsr_stream_next(s, &gb, NULL, &nf, &r), TSR_OK);
		if (nf == 0)
			break;
		batches++;
		CHECK(nf == (size_t)per_batch || at + (int)nf == n);
		for (size_t f = 0; f < nf; f++)
			CHECK(values_of(got + f * PER, order[at + (int)f]));
		CHECK_EQ_INT((int)r.bytes_out, (int)(nf * PER));
		CHECK(!strcmp(r.driver, "zarr"));
		served += r.bytes_read == 0;
		if (getenv("TSR_TEST_VERBOSE"))
			fprintf(stderr, "batch at %d: %zu files, bytes_read %llu\n", at, nf,
				(unsigned long long)r.bytes_read);
		out += r.bytes_out;
		at += (int)nf;
	}
	CHECK_EQ_INT(at, n);
	CHECK_EQ_INT((int)out, n * PER);
	tsr_stream_free(s);
	return 100 * batches + served;
}

int main(void)
{
	for (int i = 0; i < NFILES; i++)
		make_store(i, "<u2", 0);
	make_store(NFILES, "<u2", 1);     /* a short chunk */
	make_store(NFILES + 1, "<u4", 0); /* another dtype */
	struct tsr_context *ctx = NULL;
	CHECK_EQ_INT(tsr_context_create(NULL, &ctx), TSR_OK);
	const char *paths[NFILES];
	int order[NFILES];
	for (int i = 0; i < NFILES; i++) {
		paths[i] = dirs[i];
		order[i] = i;
	}

	/* one file a batch, groups of 3 files (6 batches served from the read-ahead); 2 a batch,
	 * groups of 2 batches (a budget of 5 files holds 2 whole ones), the last group the rest of
	 * the stream with its short batch (5 files); a budget of one batch: none ahead; 3 a batch,
	 * the whole stream one group */
	CHECK_EQ_INT(stream_all(ctx, paths, NFILES, 1, 3 * PER, order), 100 * NFILES + 6);
	CHECK_EQ_INT(stream_all(ctx, paths, NFILES, 2, 5 * PER, order), 500 + 3);
	CHECK_EQ_INT(stream_all(ctx, paths, NFILES, 2, 2 * PER, order), 500);
	CHECK_EQ_INT(stream_all(ctx, paths, NFILES, 3, 100 * PER, order), 300 + 2);

	/* The broken store fifth: read ahead with the first four files' group, it fails that
	 * group; the four batches before it are right, its own call fails naming it, and the
	 * stream does not pass it. */
	const char *bad[6] = {dirs[0], dirs[1], dirs[2], dirs[3], dirs[NFILES], dirs[4]};
	for (int budget = 2; budget <= 6; budget += 4) {
		struct tsr_stream *s = open_ahead(ctx, bad, 6, 1, (size_t)budget * PER);
		unsigned char got[PER];
		struct tsr_buffer gb = {got, sizeof(got), TSR_MEM_HOST, NULL};
		size_t nf = 0;
		for (int i = 0; i < 4; i++) {
			CHECK_EQ_INT(tsr_stream_next(s, &gb, NULL, &nf, NULL), TSR_OK);
			CHECK_EQ_INT((int)nf, 1);
			CHECK(values_of(got, i));
		}
		int st = tsr_stream_next(s, &gb, NULL, &nf, NULL);
		CHECK(st < 0);
		CHECK(strstr(tsr_errmsg(), dirs[NFILES]) != NULL);
		CHECK_EQ_INT(tsr_stream_next(s, &gb, NULL, &nf, NULL), st); /* again, the same */
		tsr_stream_free(s);
	}

	/* A store of another dtype third: batches 1 and 2 right, the third call TSR_E_FORMAT
	 * naming it. */
	const char *odd[4] = {dirs[0], dirs[1], dirs[NFILES + 1], dirs[2]};
	{
		struct tsr_stream *s = open_ahead(ctx, odd, 4, 1, 4 * PER);
		unsigned char got[PER];
		struct tsr_buffer gb = {got, sizeof(got), TSR_MEM_HOST, NULL};
		size_t nf = 0;
		for (int i = 0; i < 2; i++) {
			CHECK_EQ_INT(tsr_stream_next(s, &gb, NULL, &nf, NULL), TSR_OK);
			CHECK(values_of(got, i));
		}
		CHECK_EQ_INT(tsr_stream_next(s, &gb, NULL, &nf, NULL), TSR_E_FORMAT);
		CHECK(strstr(tsr_errmsg(), dirs[NFILES + 1]) != NULL);
		tsr_stream_free(s);
	}

	/* A batch held ahead into a destination too small for it. */
	{
		struct tsr_stream *s = open_ahead(ctx, paths, 3, 1, 3 * PER);
		unsigned char got[PER];
		struct tsr_buffer gb = {got, sizeof(got), TSR_MEM_HOST, NULL};
		size_t nf = 0;
		CHECK_EQ_INT(tsr_stream_next(s, &gb, NULL, &nf, NULL), TSR_OK);
		gb.nbytes = PER - 1;
		CHECK_EQ_INT(tsr_stream_next(s, &gb, NULL, &nf, NULL), TSR_E_TOO_SMALL);
		gb.nbytes = PER;
		CHECK_EQ_INT(tsr_stream_next(s, &gb, NULL, &nf, NULL), TSR_OK);
		CHECK(values_of(got, 1));
		tsr_stream_free(s);
	}

	tsr_context_free(ctx);
	for (int i = 0; i < NFILES + 2; i++)
		remove_store(dirs[i], 4);
	CHECK_DONE();
}
