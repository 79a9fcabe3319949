/* test_io_fifo.c - a FIFO where a file should be (a FITS path, a Zarr chunk, a .zarray, a sparse
 * frame's chunks.b2frame) is refused at once: opening one without a writer used to block
 * forever before the regular-file check (issue 21, D5). An alarm turns a hang into a failure. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "tessera.h"

static char dir[64];

static void on_alarm(int sig)
{
	(void)sig;
	static const char msg[] = "test_io_fifo: hung on a FIFO\n";
	if (write(2, msg, sizeof(msg) - 1) < 0) {
	}
	_exit(1);
}

static void put_n(const char *rel, const char *text, size_t n)
{
	char p[256];
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	FILE *f = fopen(p, "wb");
	CHECK(f != NULL);
	if (f) {
		fwrite(text, 1, n, f);
		fclose(f);
	}
}

static void put(const char *rel, const char *text)
{
	put_n(rel, text, strlen(text));
}

static void fifo(const char *rel)
{
	char p[256];
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	CHECK_EQ_INT(mkfifo(p, 0600), 0);
}

static void rm(const char *rel)
{
	char p[256];
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	remove(p);
}

int main(void)
{
	signal(SIGALRM, on_alarm);
	alarm(20);
	snprintf(dir, sizeof(dir), "/tmp/tsr_fifo_XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
	struct tsr_context_options co = {sizeof(co), 2};
	struct tsr_context *ctx;
	CHECK_EQ_INT(tsr_context_create(&co, &ctx), TSR_OK);
	char p[256];
	struct tsr_array *a = NULL;

	/* a FIFO named like a FITS file */
	fifo("x.fits");
	snprintf(p, sizeof(p), "%s/x.fits", dir);
	CHECK_EQ_INT(tsr_open(ctx, p, NULL, &a), TSR_E_IO);
	CHECK(a == NULL && strstr(tsr_errmsg(), "not a regular file") && strstr(tsr_errmsg(), p));

	/* a Zarr store whose chunk 1 is a FIFO: chunk 0 reads, chunk 1 fails, on the caller's
	 * thread and on the pool */
	CHECK_EQ_INT(mkdir(strcat(strcpy(p, dir), "/z.zarr"), 0755), 0);
	put("z.zarr/.zarray", "{\"zarr_format\": 2, \"shape\": [4], \"chunks\": [2], \"dtype\": "
			      "\"<i4\", \"compressor\": null, \"fill_value\": 0, \"order\": \"C\", "
			      "\"filters\": null}");
	put_n("z.zarr/0", "\1\0\0\0\2\0\0\0", 8);
	fifo("z.zarr/1");
	CHECK_EQ_INT(tsr_open(ctx, p, NULL, &a), TSR_OK);
	for (int pass = 0; a && pass < 2; pass++) {
		struct tsr_read_options ro = {.struct_size = sizeof(ro)};
		ro.nthreads = pass ? 0 : 1;
		void *data = NULL;
		size_t nbytes;
		int ndim;
		int64_t shape[TSR_MAX_DIM];
		CHECK_EQ_INT(tsr_read_alloc(a, NULL, &ro, &data, &nbytes, &ndim, shape, NULL), TSR_E_IO);
		CHECK(data == NULL && strstr(tsr_errmsg(), "not a regular file") &&
		      strstr(tsr_errmsg(), "chunk 1"));
		/* the section in chunk 0 alone still reads */
		struct tsr_selection sel;
		CHECK_EQ_INT(tsr_selection_parse("0:2", &sel), TSR_OK);
		CHECK_EQ_INT(tsr_read_alloc(a, &sel, &ro, &data, &nbytes, &ndim, shape, NULL), TSR_OK);
		CHECK(data && nbytes == 8 && ((int32_t *)data)[1] == 2);
		tsr_free(data);
	}
	tsr_array_free(a);
	a = NULL;

	/* the store's .zarray itself a FIFO: no metadata file, so not a store */
	rm("z.zarr/.zarray");
	fifo("z.zarr/.zarray");
	CHECK(tsr_open(ctx, p, NULL, &a) < 0 && a == NULL);
	char **names = NULL;
	size_t count = 0;
	CHECK(tsr_list_arrays(p, &names, &count) < 0);

	/* a sparse Blosc2 frame whose chunks.b2frame is a FIFO */
	CHECK_EQ_INT(mkdir(strcat(strcpy(p, dir), "/s.b2nd"), 0755), 0);
	fifo("s.b2nd/chunks.b2frame");
	CHECK(tsr_open(ctx, p, NULL, &a) < 0 && a == NULL);

	tsr_context_free(ctx);
	const char *const all[] = {"x.fits", "z.zarr/0", "z.zarr/1", "z.zarr/.zarray", "z.zarr",
				   "s.b2nd/chunks.b2frame", "s.b2nd"};
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		rm(all[i]);
	rmdir(dir);
	printf("FIFOs refused without blocking\n");
	CHECK_DONE();
}
