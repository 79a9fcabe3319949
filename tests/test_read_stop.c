/* test_read_stop.c - a read whose options' stop callback says stop returns TSR_E_STOPPED
 * naming the file, with no chunk started after the stop: on one thread exactly the chunks
 * before it are placed; on several, none after every thread has seen it. A callback that
 * never stops is asked once a chunk and changes nothing; a stopped handle reads whole again;
 * batch reads stop between files; an options struct from before the fields still reads. */
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "tessera.h"

#define NCHUNKS 64
#define CHUNK 1024

struct stopper {
	atomic_int asked;
	int after; /* stop from the after-th question on (0: at once; -1: never) */
};

static int stop_after(void *arg)
{
	struct stopper *s = arg;
	int n = atomic_fetch_add(&s->asked, 1);
	return s->after >= 0 && n >= s->after;
}

/* A Zarr v2 array of NCHUNKS raw int32 chunks of CHUNK values, value i at i. */
static void write_store(const char *dir)
{
	char p[256];
	CHECK(mkdir(dir, 0755) == 0);
	snprintf(p, sizeof(p), "%s/.zarray", dir);
	FILE *f = fopen(p, "w");
	CHECK(f != NULL);
	fprintf(f, "{\"zarr_format\": 2, \"shape\": [%d], \"chunks\": [%d], \"dtype\": \"<i4\", "
		   "\"compressor\": null, \"fill_value\": 0, \"order\": \"C\", \"filters\": null}",
		NCHUNKS * CHUNK, CHUNK);
	fclose(f);
	int32_t v[CHUNK];
	for (int c = 0; c < NCHUNKS; c++) {
		for (int i = 0; i < CHUNK; i++)
			v[i] = c * CHUNK + i;
		snprintf(p, sizeof(p), "%s/%d", dir, c);
		f = fopen(p, "wb");
		CHECK(f != NULL && fwrite(v, sizeof(v), 1, f) == 1);
		fclose(f);
	}
}

/* Reads the whole array into out (filled with -1 first) with stop; returns the status and
 * sets *placed to the number of chunks whose values all landed (a chunk is placed whole or
 * not at all). */
static int read_with(struct tsr_array *a, struct stopper *s, int nthreads, int32_t *out,
		     int *placed)
{
	struct tsr_read_options ro = {.struct_size = sizeof(ro), .nthreads = nthreads};
	if (s) {
		ro.stop = stop_after;
		ro.stop_arg = s;
	}
	struct tsr_buffer dst = {.data = out, .nbytes = sizeof(int32_t) * NCHUNKS * CHUNK,
				 .mem = TSR_MEM_HOST};
	memset(out, 0xff, dst.nbytes);
	int st = tsr_read(a, NULL, &dst, &ro, NULL);
	*placed = 0;
	for (int c = 0; c < NCHUNKS; c++) {
		int whole = 1, none = 1;
		for (int i = 0; i < CHUNK; i++) {
			int ok = out[c * CHUNK + i] == c * CHUNK + i;
			whole &= ok;
			none &= out[c * CHUNK + i] == -1;
		}
		CHECK(whole || none);
		*placed += whole;
	}
	return st;
}

static void check_stopped_message(const char *store)
{
	if (!strstr(tsr_errmsg(), store) || !strstr(tsr_errmsg(), "stopped")) {
		fprintf(stderr, "message lacks the store or 'stopped': %s\n", tsr_errmsg());
		check_failures++;
	}
}

int main(void)
{
	char dir[64], store[128];
	snprintf(dir, sizeof(dir), "/tmp/tsr_stop_XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
	snprintf(store, sizeof(store), "%s/a.zarr", dir);
	write_store(store);

	struct tsr_context *ctx = NULL;
	struct tsr_context_options co = {.struct_size = sizeof(co), .nthreads = 4};
	CHECK_EQ_INT(tsr_context_create(&co, &ctx), TSR_OK);
	struct tsr_array *a = NULL;
	CHECK_EQ_INT(tsr_open(ctx, store, NULL, &a), TSR_OK);
	if (!a)
		return 1;
	int32_t *out = check_malloc(sizeof(int32_t) * NCHUNKS * CHUNK);
	int placed;

	/* never stops: asked once a chunk, everything read */
	struct stopper never = {.after = -1};
	CHECK_EQ_INT(read_with(a, &never, 4, out, &placed), TSR_OK);
	CHECK_EQ_INT(placed, NCHUNKS);
	CHECK_EQ_INT(atomic_load(&never.asked), NCHUNKS);

	/* stops at once: nothing placed */
	struct stopper now = {.after = 0};
	CHECK_EQ_INT(read_with(a, &now, 4, out, &placed), TSR_E_STOPPED);
	check_stopped_message(store);
	CHECK_EQ_INT(placed, 0);
	CHECK(atomic_load(&now.asked) <= 4); /* each thread asks once, then sees the failure */

	/* one thread, stops at the 10th question: chunks 0-9 placed, no other */
	struct stopper ten = {.after = 10};
	CHECK_EQ_INT(read_with(a, &ten, 1, out, &placed), TSR_E_STOPPED);
	CHECK_EQ_INT(placed, 10);
	CHECK_EQ_INT(atomic_load(&ten.asked), 11);
	for (int c = 0; c < NCHUNKS; c++)
		CHECK((out[c * CHUNK] == c * CHUNK) == (c < 10));

	/* four threads: at most a chunk a thread after the stop was first answered */
	struct stopper mid = {.after = 20};
	CHECK_EQ_INT(read_with(a, &mid, 4, out, &placed), TSR_E_STOPPED);
	CHECK(placed >= 17 && placed <= 23);
	CHECK(atomic_load(&mid.asked) <= 24);

	/* the handle reads whole after a stop, and an options struct from before stop */
	struct tsr_read_options old = {.struct_size = offsetof(struct tsr_read_options, stop)};
	struct tsr_buffer dst = {.data = out, .nbytes = sizeof(int32_t) * NCHUNKS * CHUNK,
				 .mem = TSR_MEM_HOST};
	memset(out, 0, dst.nbytes);
	CHECK_EQ_INT(tsr_read(a, NULL, &dst, &old, NULL), TSR_OK);
	for (int i = 0; i < NCHUNKS * CHUNK; i++)
		if (out[i] != i) {
			fprintf(stderr, "value %d is %d after a stopped read\n", i, out[i]);
			check_failures++;
			break;
		}
	tsr_array_free(a);

	/* a batch of three files stopped at the second file's first question */
	const char *paths[3] = {store, store, store};
	int32_t *three = check_malloc(3 * sizeof(int32_t) * NCHUNKS * CHUNK);
	struct tsr_buffer bd = {.data = three, .nbytes = 3 * sizeof(int32_t) * NCHUNKS * CHUNK,
				.mem = TSR_MEM_HOST};
	struct stopper second = {.after = NCHUNKS};
	struct tsr_read_options ro = {.struct_size = sizeof(ro), .nthreads = 1, .stop = stop_after,
				      .stop_arg = &second};
	CHECK_EQ_INT(tsr_read_batch(ctx, paths, 3, NULL, NULL, &bd, &ro, NULL), TSR_E_STOPPED);
	check_stopped_message(store);
	CHECK_EQ_INT(atomic_load(&second.asked), NCHUNKS + 1);
	free(three);

	free(out);
	tsr_context_free(ctx);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	return check_failures ? 1 : 0;
}
