/* test_b2frame_empty.c - a plain super-chunk that never had a chunk opens as an empty 1-d
 * array: c-blosc2 writes its chunksize as -1, not yet known (python-blosc2's
 * SChunk(urlpath=..., cparams={"typesize": 4}) with no data, kept as
 * tests/data/blosc2-empty/schunk_none_4.b2frame). The -1 says "no chunk" only while the frame
 * holds no bytes: with bytes it is still a malformed header. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "read_file.h"
#include "tessera.h"
#include "write_file.h"

int main(void)
{
	const char *src = getenv("TSR_SRC");
	char gpath[2048];
	snprintf(gpath, sizeof(gpath), "%s/tests/data/blosc2-empty/schunk_none_4.b2frame",
		 src ? src : "..");
	size_t n = 0;
	uint8_t *b = read_file(gpath, &n);
	/* the header's nbytes (0xd3 int64) is its 6th field, after magic, 2 lengths and flags */
	static const uint8_t nbytes_at[] = {0xa4, 0x12, 0x00, 0x55, 0x02, 0xd3};
	size_t at = 0;
	while (b && at + sizeof(nbytes_at) + 8 < n && memcmp(b + at, nbytes_at, sizeof(nbytes_at)))
		at++;
	if (!b || at + sizeof(nbytes_at) + 8 >= n) {
		fprintf(stderr, "FAIL: cannot read %s, or it is not the super-chunk it was\n", gpath);
		return 1;
	}
	at += sizeof(nbytes_at);
	char dir[] = "/tmp/tsr_b2frame_empty_XXXXXX", path[256];
	if (!mkdtemp(dir))
		return 2;
	snprintf(path, sizeof(path), "%s/a.b2frame", dir);
	struct tsr_context *ctx;
	struct tsr_context_options co = {sizeof(co), 1};
	CHECK_EQ_INT(tsr_context_create(&co, &ctx), TSR_OK);

	/* as written: 0 bytes, chunksize -1 */
	struct tsr_array *a = NULL;
	CHECK_EQ_INT(write_file(path, b, n), 0);
	CHECK_EQ_INT(tsr_open(ctx, path, NULL, &a), TSR_OK);
	if (a) {
		struct tsr_array_info in = {.struct_size = sizeof(in)};
		CHECK_EQ_INT(tsr_array_info(a, &in), TSR_OK);
		CHECK_EQ_INT(in.ndim, 1);
		CHECK_EQ_INT(in.shape[0], 0);
		CHECK_EQ_INT(in.chunk_shape[0], 1);
		CHECK_EQ_INT(in.nchunks, 0);
		CHECK_EQ_INT(in.dtype, TSR_UINT32); /* no dtype stored: items of the typesize */
		void *data = NULL;
		size_t nbytes = 1;
		int nd = 0;
		int64_t shape[TSR_MAX_DIM] = {-1};
		CHECK_EQ_INT(tsr_read_alloc(a, NULL, NULL, &data, &nbytes, &nd, shape, NULL),
			     TSR_OK);
		CHECK_EQ_INT(nbytes, 0);
		CHECK_EQ_INT(nd, 1);
		CHECK_EQ_INT(shape[0], 0);
		tsr_free(data);
		tsr_array_free(a);
		a = NULL;
	}

	/* the same header claiming 4 bytes: chunks of -1 bytes hold nothing */
	b[at + 7] = 4;
	CHECK_EQ_INT(write_file(path, b, n), 0);
	CHECK_EQ_INT(tsr_open(ctx, path, NULL, &a), TSR_E_FORMAT);
	CHECK(strstr(tsr_errmsg(), "chunksize -1") != NULL);
	tsr_array_free(a);

	tsr_context_free(ctx);
	unlink(path);
	rmdir(dir);
	free(b);
	CHECK_DONE();
}
