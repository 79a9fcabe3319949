/* test_storage_backends.c - the host storage backends (posix, mock-host) read the same bytes of the same chunks: whole, in ranges, and past the end. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "write_file.h"
#include "io/storage.h"
#include "tessera.h"

#define NCHUNKS 4
#define CHUNK 6 /* uint16 elements of a chunk */

int main(void)
{
	char dir[] = "/tmp/tsr_backends_XXXXXX", path[256];
	CHECK(mkdtemp(dir) != NULL);
	/* A Zarr v2 array of 4 raw chunks, each a file of its own; chunk 2's is missing (the
	 * fill value). */
	const char *meta = "{\"zarr_format\":2,\"shape\":[24],\"chunks\":[6],\"dtype\":\"<u2\","
			   "\"compressor\":null,\"fill_value\":7,\"order\":\"C\",\"filters\":null}";
	snprintf(path, sizeof(path), "%s/.zarray", dir);
	CHECK_EQ_INT(write_file(path, meta, strlen(meta)), 0);
	unsigned char want[NCHUNKS][2 * CHUNK];
	for (int c = 0; c < NCHUNKS; c++)
		for (int i = 0; i < 2 * CHUNK; i++)
			want[c][i] = (unsigned char)(c * 37 + i * 11 + 1);
	for (int c = 0; c < NCHUNKS; c++) {
		if (c == 2)
			continue;
		snprintf(path, sizeof(path), "%s/%d", dir, c);
		CHECK_EQ_INT(write_file(path, want[c], 2 * CHUNK), 0);
	}

	struct tsr_context *ctx = NULL;
	struct tsr_array *a = NULL;
	CHECK_EQ_INT(tsr_context_create(NULL, &ctx), TSR_OK);
	CHECK_EQ_INT(tsr_open(ctx, dir, NULL, &a), TSR_OK);
	if (!a)
		CHECK_DONE();
	/* mock-host's cache is filled by a read with it (the backend's prepare) */
	struct tsr_read_options ro = {.struct_size = sizeof(ro), .storage = TSR_STORAGE_MOCK_HOST};
	uint16_t out[NCHUNKS * CHUNK];
	struct tsr_buffer buf = {.data = out, .nbytes = sizeof(out), .mem = TSR_MEM_HOST};
	CHECK_EQ_INT(tsr_read(a, NULL, &buf, &ro, NULL), TSR_OK);
	for (int i = 0; i < 2 * CHUNK; i++)
		CHECK_EQ_INT(out[2 * CHUNK + i / 2], 7); /* (the missing chunk: fill) */

	const struct tsr_backend *be[2] = {&tsr_storage_posix, &tsr_storage_mock_host};
	struct tsr_source src[2];
	for (int b = 0; b < 2; b++)
		tsr_source_init(&src[b], be[b], a);
	unsigned char *fetched[2] = {NULL, NULL};
	size_t cap[2] = {0, 0};
	for (int c = 0; c < NCHUNKS; c++) {
		struct tsr_chunk_ref ref[2];
		const unsigned char *bytes[2] = {NULL, NULL};
		int st[2];
		for (int b = 0; b < 2; b++) {
			CHECK_EQ_INT(be[b]->chunk_ref(a, c, 0, &ref[b]), TSR_OK);
			st[b] = ref[b].nbytes ? tsr_storage_fetch(&src[b], c, &ref[b], &fetched[b],
								  &cap[b], &bytes[b])
					      : TSR_OK;
		}
		CHECK_EQ_INT(st[0], TSR_OK);
		CHECK_EQ_INT(st[1], TSR_OK);
		/* The posix ref settles as its read goes (a whole-file size, a missing file's
		 * fill); mock-host's was settled by its fill: the same at the end. */
		CHECK_EQ_INT(ref[0].nbytes, ref[1].nbytes);
		CHECK_EQ_INT(ref[0].codec.id, ref[1].codec.id);
		if (c == 2) {
			CHECK_EQ_INT(ref[1].codec.id, TSR_CODEC_FILL);
			CHECK_EQ_INT(ref[1].nbytes, 0);
			continue;
		}
		CHECK_EQ_INT(ref[1].nbytes, 2 * CHUNK);
		if (!bytes[0] || !bytes[1] || ref[1].nbytes != 2 * CHUNK)
			continue;
		CHECK(memcmp(bytes[0], want[c], 2 * CHUNK) == 0);
		CHECK(memcmp(bytes[1], want[c], 2 * CHUNK) == 0);
		for (int b = 0; b < 2; b++) /* the slack both leave */
			for (int i = 0; i < 64; i++)
				CHECK_EQ_INT(bytes[b][2 * CHUNK + i], 0);
		CHECK(bytes[1] != fetched[1]); /* mock-host lends its cache: no copy */
		/* every range of the chunk, into host and pinned memory kinds alike */
		for (int mem = TSR_MEM_HOST; mem <= TSR_MEM_HOST_PINNED; mem++)
			for (int off = 0; off <= 2 * CHUNK; off++)
				for (int n = 0; off + n <= 2 * CHUNK; n++) {
					unsigned char got[2][2 * CHUNK + 4];
					memset(got, 0xee, sizeof(got));
					for (int b = 0; b < 2; b++) {
						CHECK_EQ_INT(be[b]->open(&src[b], c, &ref[b]), TSR_OK);
						CHECK_EQ_INT(be[b]->read(&src[b], mem, got[b], 2, (size_t)n,
									 (uint64_t)off), TSR_OK);
						be[b]->release(&src[b]);
					}
					CHECK(memcmp(got[0], got[1], sizeof(got[0])) == 0);
					CHECK(memcmp(got[0] + 2, want[c] + off, (size_t)n) == 0);
					CHECK_EQ_INT(got[0][1], 0xee);
					CHECK_EQ_INT(got[0][2 + n], 0xee);
				}
		/* past the chunk's end: the file backend reads on into the file, which ends
		 * there; both fail as a source that ends early */
		for (int b = 0; b < 2; b++) {
			unsigned char tmp[2 * CHUNK + 1];
			CHECK_EQ_INT(be[b]->open(&src[b], c, &ref[b]), TSR_OK);
			CHECK_EQ_INT(be[b]->read(&src[b], TSR_MEM_HOST, tmp, 0, 2 * CHUNK + 1, 0),
				     TSR_E_IO);
			be[b]->release(&src[b]);
		}
	}
	for (int b = 0; b < 2; b++) {
		tsr_source_close(&src[b]);
		free(fetched[b]);
	}
	tsr_array_free(a);
	tsr_context_free(ctx);
	remove_store(dir, NCHUNKS);
	CHECK_DONE();
}
