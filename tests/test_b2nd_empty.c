/* test_b2nd_empty.c - a b2nd array with an empty axis opens as python-blosc2 writes it: chunks
 * and blocks of 0 along that axis (blosc2.zeros((0, 4), dtype="<f4"), kept as
 * tests/data/blosc2-empty/zeros_0x4_f4.b2nd), described with chunks of 1 there and read as an
 * empty array of its shape and dtype. A 0 anywhere it says something false stays refused:
 * chunks or blocks of 0 on an axis that holds items, or one of them 0 without the other.
 *
 * The cases other than the file itself are its bytes with the metalayer's numbers changed. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "read_file.h"
#include "tessera.h"
#include "write_file.h"

static uint8_t *golden;
static size_t golden_nbytes, meta_at;
static char path[256];

static void put_be(uint8_t *p, uint64_t v, int n)
{
	for (int i = n - 1; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

/* The golden frame with axis ax's shape, chunks and blocks set (-1: as written), written to
 * path. python-blosc2's metalayer: 0x97 version ndim, then shape as int64s, chunks and blocks
 * as int32s, each value after its one-byte marker. */
static void write_case(int ax, int64_t shape, int64_t chunks, int64_t blocks)
{
	uint8_t *b = check_malloc(golden_nbytes);
	memcpy(b, golden, golden_nbytes);
	uint8_t *m = b + meta_at;
	if (shape >= 0)
		put_be(m + 5 + 9 * ax, (uint64_t)shape, 8);
	if (chunks >= 0)
		put_be(m + 24 + 5 * ax, (uint64_t)chunks, 4);
	if (blocks >= 0)
		put_be(m + 35 + 5 * ax, (uint64_t)blocks, 4);
	CHECK_EQ_INT(write_file(path, b, golden_nbytes), 0);
	free(b);
}

/* Opens path: the status; the info on success. */
static int open_info(struct tsr_context *ctx, struct tsr_array **a_ret, struct tsr_array_info *in)
{
	int st = tsr_open(ctx, path, NULL, a_ret);
	if (st == TSR_OK) {
		in->struct_size = sizeof(*in);
		CHECK_EQ_INT(tsr_array_info(*a_ret, in), TSR_OK);
	}
	return st;
}

static void refused(struct tsr_context *ctx, const char *what)
{
	struct tsr_array *a = NULL;
	struct tsr_array_info in;
	CHECK_EQ_INT(open_info(ctx, &a, &in), TSR_E_FORMAT);
	if (!strstr(tsr_errmsg(), what)) {
		fprintf(stderr, "expected '%s' in: %s\n", what, tsr_errmsg());
		check_failures++;
	}
	tsr_array_free(a);
}

int main(void)
{
	const char *src = getenv("TSR_SRC");
	char gpath[2048];
	snprintf(gpath, sizeof(gpath), "%s/tests/data/blosc2-empty/zeros_0x4_f4.b2nd",
		 src ? src : "..");
	golden = read_file(gpath, &golden_nbytes);
	if (!golden) {
		fprintf(stderr, "FAIL: cannot read %s\n", gpath);
		return 1;
	}
	static const uint8_t head[] = {0x97, 0x00, 0x02, 0x92, 0xd3};
	for (meta_at = 0; meta_at + 64 < golden_nbytes; meta_at++)
		if (!memcmp(golden + meta_at, head, sizeof(head)))
			break;
	if (meta_at + 64 >= golden_nbytes) {
		fprintf(stderr, "FAIL: no 2-d b2nd metalayer in %s\n", gpath);
		return 1;
	}
	char dir[] = "/tmp/tsr_b2nd_empty_XXXXXX";
	if (!mkdtemp(dir))
		return 2;
	snprintf(path, sizeof(path), "%s/a.b2nd", dir);
	struct tsr_context *ctx;
	struct tsr_context_options co = {sizeof(co), 1};
	CHECK_EQ_INT(tsr_context_create(&co, &ctx), TSR_OK);

	/* as written: shape (0, 4), chunks (0, 4), blocks (0, 4) */
	struct tsr_array *a = NULL;
	struct tsr_array_info in;
	write_case(0, -1, -1, -1);
	CHECK_EQ_INT(open_info(ctx, &a, &in), TSR_OK);
	if (a) {
		CHECK_EQ_INT(in.ndim, 2);
		CHECK_EQ_INT(in.shape[0], 0);
		CHECK_EQ_INT(in.shape[1], 4);
		CHECK_EQ_INT(in.chunk_shape[0], 1); /* a chunk is at least 1 wide, as Zarr's */
		CHECK_EQ_INT(in.chunk_shape[1], 4);
		CHECK_EQ_INT(in.nchunks, 0);
		CHECK_EQ_INT(in.dtype, TSR_FLOAT32);
		void *data = NULL;
		size_t nbytes = 1;
		int nd = 0;
		int64_t shape[TSR_MAX_DIM] = {-1, -1};
		CHECK_EQ_INT(tsr_read_alloc(a, NULL, NULL, &data, &nbytes, &nd, shape, NULL),
			     TSR_OK);
		CHECK_EQ_INT(nbytes, 0);
		CHECK_EQ_INT(nd, 2);
		CHECK_EQ_INT(shape[0], 0);
		CHECK_EQ_INT(shape[1], 4);
		tsr_free(data);
		tsr_array_free(a);
		a = NULL;
	}

	/* explicit extents along the empty axis, as python-blosc2 keeps them: as before */
	write_case(0, -1, 2, 1);
	CHECK_EQ_INT(open_info(ctx, &a, &in), TSR_OK);
	if (a) {
		CHECK_EQ_INT(in.chunk_shape[0], 2);
		CHECK_EQ_INT(in.nchunks, 0);
		tsr_array_free(a);
		a = NULL;
	}

	/* what python-blosc2 refuses to write stays refused */
	write_case(0, 3, -1, -1); /* chunks and blocks 0 on an axis of 3 */
	refused(ctx, "axis 0: shape 3, chunks 0, blocks 0");
	write_case(1, -1, 0, 0); /* on the axis of 4 */
	refused(ctx, "axis 1: shape 4, chunks 0, blocks 0");
	write_case(0, -1, 2, -1); /* blocks 0 in chunks of 2 */
	refused(ctx, "axis 0: shape 0, chunks 2, blocks 0");
	write_case(0, -1, -1, 1); /* blocks of 1 in chunks of 0 */
	refused(ctx, "axis 0: shape 0, chunks 0, blocks 1");

	tsr_context_free(ctx);
	unlink(path);
	rmdir(dir);
	free(golden);
	CHECK_DONE();
}
