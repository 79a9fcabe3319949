/* test_storage_map.c - the posix backend's map gives a chunk's stored bytes as its read does: every tile of every FITS corpus HDU (tiles at any offset, across pages), and a file that ends before its chunk is refused, not mapped; a backend without map says so. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "core/array.h"
#include "corpus_fits.h"
#include "io/storage.h"
#include "write_file.h"

struct counts {
	long mapped, unaligned;
};

/* Each tile's mapping against its fetch (a pread), byte for byte. */
static void check_array(struct tsr_array *a, const char *name, void *arg)
{
	struct counts *n = arg;
	struct tsr_source src, rd;
	tsr_source_init(&src, &tsr_storage_posix, a);
	tsr_source_init(&rd, &tsr_storage_posix, a);
	unsigned char *buf = NULL;
	size_t cap = 0;
	for (int64_t c = 0; c < a->desc.nchunks; c++) {
		struct tsr_chunk_ref ref;
		if (tsr_storage_posix.chunk_ref(a, c, 1, &ref) || ref.nbytes == 0)
			continue; /* (a tile the corpus means to be bad, or one with no bytes) */
		const unsigned char *want = NULL;
		if (tsr_storage_fetch(&rd, c, &ref, &buf, &cap, &want))
			continue;
		struct tsr_map m;
		int st = tsr_storage_map(&src, c, &ref, &m);
		if (st != TSR_OK || memcmp(m.bytes, want, (size_t)ref.nbytes)) {
			fprintf(stderr, "%s: tile %lld: mapped %s\n", name, (long long)c,
				st ? tsr_errmsg() : "bytes unlike its read");
			check_failures++;
			tsr_storage_unmap(&m);
			break;
		}
		n->mapped++;
		n->unaligned += ref.offset % 4096 != 0;
		tsr_storage_unmap(&m);
		CHECK(m.base == NULL && m.bytes == NULL);
	}
	free(buf);
	tsr_source_close(&src);
	tsr_source_close(&rd);
}

int main(void)
{
	struct tsr_context *ctx = NULL;
	CHECK_EQ_INT(tsr_context_create(NULL, &ctx), TSR_OK);
	struct counts n = {0, 0};
	CHECK_EQ_INT(corpus_fits_each(ctx, 0, check_array, &n), 0);
	printf("%ld tiles mapped (%ld at offsets off a page), each equal to its read\n", n.mapped,
	       n.unaligned);
	CHECK(n.mapped > 1000 && n.unaligned > 1000);

	/* A Zarr v2 chunk file cut shorter than its chunk's size: refused with TSR_E_IO. A
	 * chunk of no bytes maps nothing. */
	char dir[] = "/tmp/tsr_map_XXXXXX", path[256];
	CHECK(mkdtemp(dir) != NULL);
	const char *meta = "{\"zarr_format\":2,\"shape\":[8],\"chunks\":[8],\"dtype\":\"<u2\","
			   "\"compressor\":null,\"fill_value\":0,\"order\":\"C\",\"filters\":null}";
	snprintf(path, sizeof(path), "%s/.zarray", dir);
	CHECK_EQ_INT(write_file(path, meta, strlen(meta)), 0);
	snprintf(path, sizeof(path), "%s/0", dir);
	CHECK_EQ_INT(write_file(path, "0123456789abcdef", 16), 0);
	struct tsr_array *a = NULL;
	CHECK_EQ_INT(tsr_open(ctx, dir, NULL, &a), TSR_OK);
	if (a) {
		struct tsr_chunk_ref ref;
		struct tsr_source src;
		struct tsr_map m;
		tsr_source_init(&src, &tsr_storage_posix, a);
		CHECK_EQ_INT(tsr_storage_posix.chunk_ref(a, 0, 1, &ref), TSR_OK);
		CHECK_EQ_INT(tsr_storage_posix.open(&src, 0, &ref), TSR_OK);
		CHECK_EQ_INT(tsr_storage_posix.map(&src, 16, &m), TSR_OK);
		CHECK(m.bytes && memcmp(m.bytes, "0123456789abcdef", 16) == 0);
		tsr_storage_unmap(&m);
		CHECK_EQ_INT(tsr_storage_posix.map(&src, 17, &m), TSR_E_IO);
		CHECK(m.base == NULL && strstr(tsr_errmsg(), "ends before") != NULL);
		CHECK_EQ_INT(tsr_storage_posix.map(&src, 0, &m), TSR_OK);
		CHECK(m.base == NULL && m.bytes != NULL);
		tsr_storage_unmap(&m);
		tsr_storage_posix.release(&src);
		tsr_source_close(&src);
		/* a backend that maps nothing says so */
		tsr_source_init(&src, &tsr_storage_mock_host, a);
		CHECK_EQ_INT(tsr_storage_map(&src, 0, &ref, &m), TSR_E_UNSUPPORTED);
		CHECK(m.base == NULL);
		tsr_source_close(&src);
		tsr_array_free(a);
	}
	unlink(path);
	snprintf(path, sizeof(path), "%s/.zarray", dir);
	unlink(path);
	rmdir(dir);
	tsr_context_free(ctx);
	CHECK_DONE();
}
