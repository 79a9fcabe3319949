/* test_fits_hdu_memo.c - opening FITS HDUs by index again in one context starts at the header a walk found before (a few read calls, not one a header before it; /proc/self/io counts them), and a file rewritten since, in place, at once and to the same size with its HDUs moved, still opens the HDU asked for, and a file changed within the last 50 ms is not kept (tsr_fits_memo_racy). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "fits_cards.h"
#include "formats/fits/fits.h"
#include "tessera.h"

#define NHDU 200

/* A primary HDU without data, then images. moved = 0: HDU i (1..NHDU-1) of 3 rows (two blocks),
 * values 100 * i + k. moved = 1: the same size, HDU 1 an image "NEW" of 864 rows (four blocks,
 * two HDUs' worth), then HDU i holding what HDU i - 1 held, the last one dropped: every header
 * offset past HDU 1 now holds another HDU's header. */
static void write_file(const char *path, int moved)
{
	FILE *f = fits_start(path);
	CHECK(f != NULL);
	if (!f)
		exit(1);
	for (int i = 1; i < NHDU - moved; i++) {
		char name[16];
		if (moved && i == 1) {
			image_rows(f, "NEW", 7, 864);
			continue;
		}
		int src = i - moved;
		snprintf(name, sizeof(name), "E%d", src);
		image(f, name, 100 * src);
	}
	fclose(f);
}

/* Read calls this process has made (Linux's task I/O accounting). */
static long read_calls(void)
{
	FILE *f = fopen("/proc/self/io", "r");
	char line[128];
	long n = -1;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "syscr: %ld", &n) == 1)
			break;
	if (f)
		fclose(f);
	return n;
}

/* Opens HDU hdu of path and checks its index, EXTNAME and first values. */
static void check_hdu(struct tsr_context *ctx, const char *path, int hdu, const char *name,
		      int first)
{
	struct tsr_open_options o = {.struct_size = sizeof(o), .hdu = hdu};
	struct tsr_array *a = NULL;
	CHECK_EQ_INT(tsr_open(ctx, path, &o, &a), TSR_OK);
	if (!a)
		return;
	struct tsr_array_info in = {.struct_size = sizeof(in)};
	CHECK_EQ_INT(tsr_array_info(a, &in), TSR_OK);
	CHECK_EQ_INT(in.index, hdu);
	CHECK(in.name && !strcmp(in.name, name));
	size_t n = (size_t)(in.shape[0] * in.shape[1]);
	int16_t *v = calloc(n, sizeof(*v));
	struct tsr_buffer dst = {.data = v, .nbytes = n * sizeof(*v), .mem = TSR_MEM_HOST};
	CHECK(v != NULL && n >= 15);
	CHECK_EQ_INT(tsr_read(a, NULL, &dst, NULL, NULL), TSR_OK);
	for (size_t k = 0; v && k < 15 && k < n; k++)
		if (v[k] != first + (int)k) {
			fprintf(stderr, "HDU %d value %zu: %d, expected %d\n", hdu, k, v[k],
				first + (int)k);
			check_failures++;
			break;
		}
	free(v);
	tsr_array_free(a);
}

int main(void)
{
	char path[] = "/tmp/tsr_hdu_memo_XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	write_file(path, 0);
	usleep(150000); /* (older than the memo's racy window: it keeps the file) */
	struct tsr_context *ctx = NULL;
	CHECK_EQ_INT(tsr_context_create(NULL, &ctx), TSR_OK);

	/* the first open walks 190 headers; the next ones start where it found them */
	check_hdu(ctx, path, 190, "E190", 19000);
	long r0 = read_calls();
	check_hdu(ctx, path, 195, "E195", 19500);
	check_hdu(ctx, path, 100, "E100", 10000);
	long r1 = read_calls();
	CHECK(r0 >= 0 && r1 >= 0);
	if (r1 - r0 > 40) {
		fprintf(stderr, "two opens after a walk made %ld read calls (a walk from the start: "
			"over 290)\n", r1 - r0);
		check_failures++;
	}
	for (int i = 1; i < NHDU; i++) {
		char name[16];
		snprintf(name, sizeof(name), "E%d", i);
		check_hdu(ctx, path, i, name, 100 * i);
	}

	/* rewritten in place at once, the same size: the memo's offsets are another HDU's now */
	write_file(path, 1);
	check_hdu(ctx, path, 195, "E194", 19400);
	check_hdu(ctx, path, 1, "NEW", 7);
	check_hdu(ctx, path, 2, "E1", 100);
	for (int i = 2; i < NHDU - 1; i += 7) {
		char name[16];
		snprintf(name, sizeof(name), "E%d", i - 1);
		check_hdu(ctx, path, i, name, 100 * (i - 1));
	}
	struct tsr_open_options past = {.struct_size = sizeof(past), .hdu = NHDU - 1};
	struct tsr_array *a = NULL;
	CHECK_EQ_INT(tsr_open(ctx, path, &past, &a), TSR_E_RANGE);

	tsr_context_free(ctx);

	/* a file changed in the last 50 ms is not kept: a rewrite within the kernel's clock
	 * grain may leave every time as it was (this machine's stamps are finer, so the rule is
	 * checked on stat records) */
	struct stat st;
	struct timespec now;
	CHECK_EQ_INT(stat(path, &st), 0);
	CHECK_EQ_INT(clock_gettime(CLOCK_REALTIME, &now), 0);
	st.st_ctim = now;
	CHECK_EQ_INT(tsr_fits_memo_racy(&st), 1);
	st.st_ctim.tv_sec = now.tv_sec - 1;
	CHECK_EQ_INT(tsr_fits_memo_racy(&st), 0);
	st.st_ctim.tv_sec = now.tv_sec + 5; /* (a file from the future: racy) */
	CHECK_EQ_INT(tsr_fits_memo_racy(&st), 1);
	st.st_ctim = now;
	st.st_ctim.tv_nsec -= 40000000;
	if (st.st_ctim.tv_nsec < 0)
		st.st_ctim.tv_nsec += 1000000000, st.st_ctim.tv_sec--;
	CHECK_EQ_INT(tsr_fits_memo_racy(&st), 1);
	remove(path);
	return check_failures ? 1 : 0;
}
