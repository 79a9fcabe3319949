/* test_pool_fork.c - a fork's child reads on the context its parent made and read on (as
 * multiprocessing and ML loaders fork workers): its pool's workers are started again there,
 * not waited on forever; a child that never reads frees the context without joining the
 * parent's threads; a stream the parent opened goes on in the child, and frees there, read
 * or not (its read-ahead thread was joined, the parent's: a hang). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "tessera.h"

/* The whole array, read on ctx: TSR_OK and the bytes, or a status. */
static int read_all(struct tsr_context *ctx, const char *path, void **data, size_t *nb)
{
	struct tsr_array *a;
	int ndim, st = tsr_open(ctx, path, NULL, &a);
	int64_t shape[TSR_MAX_DIM];
	if (st)
		return st;
	st = tsr_read_alloc(a, NULL, NULL, data, nb, &ndim, shape, NULL);
	tsr_array_free(a);
	return st;
}

/* Runs body in a child under a 30 s alarm; its exit status (a hang: killed by the alarm). */
static int in_child(int (*body)(void *), void *arg)
{
	pid_t pid = fork();
	if (pid == 0) {
		alarm(30);
		_exit(body(arg));
	}
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

struct job {
	struct tsr_context *ctx;
	const char *path;
	const void *want;
	size_t want_n;
};

static int child_reads(void *p)
{
	struct job *j = p;
	for (int k = 0; k < 3; k++) {
		void *got = NULL;
		size_t nb = 0;
		if (read_all(j->ctx, j->path, &got, &nb) || nb != j->want_n ||
		    memcmp(got, j->want, nb))
			return 3;
		tsr_free(got);
	}
	tsr_context_free(j->ctx);
	return 0;
}

static int child_frees(void *p)
{
	tsr_context_free(((struct job *)p)->ctx);
	return 0;
}

struct sjob {
	struct tsr_stream *s;
	size_t per;
	const void *want; /* the stream's second file */
	int read;         /* the child reads a batch before it frees the stream */
};

static int child_stream(void *p)
{
	struct sjob *j = p;
	int bad = 0;
	if (j->read) {
		void *got = malloc(j->per);
		struct tsr_buffer b = {got, j->per, TSR_MEM_HOST, NULL};
		size_t n = 0;
		bad = !got || tsr_stream_next(j->s, &b, NULL, &n, NULL) || n != 1 ||
		      memcmp(got, j->want, j->per);
		free(got);
	}
	tsr_stream_free(j->s);
	return bad ? 3 : 0;
}

int main(void)
{
	const char *corpus = getenv("TSR_CORPUS");
	char path[1024];
	snprintf(path, sizeof(path), "%s/zarr2/blosc_lz4_shuffle_i16.zarr", corpus ? corpus : ".");
	struct tsr_context_options co = {.struct_size = sizeof(co), .nthreads = 4};
	struct tsr_context *ctx;
	CHECK_EQ_INT(tsr_context_create(&co, &ctx), TSR_OK);
	void *want = NULL;
	size_t nb = 0;
	CHECK_EQ_INT(read_all(ctx, path, &want, &nb), TSR_OK);
	CHECK(nb > 0);
	struct job j = {ctx, path, want, nb};
	CHECK_EQ_INT(in_child(child_reads, &j), 0);
	CHECK_EQ_INT(in_child(child_frees, &j), 0);
	/* a stream opened and read from in the parent, then forked */
	const char *two[] = {path, path};
	struct tsr_stream_options so = {sizeof(so), 1, 1};
	struct tsr_stream *st = NULL;
	CHECK_EQ_INT(tsr_stream_open(ctx, two, 2, NULL, NULL, &so, &st), TSR_OK);
	void *first = malloc(nb);
	struct tsr_buffer fb = {first, nb, TSR_MEM_HOST, NULL};
	size_t got_n = 0;
	CHECK_EQ_INT(tsr_stream_next(st, &fb, NULL, &got_n, NULL), TSR_OK);
	struct sjob sj = {st, nb, want, 1};
	CHECK_EQ_INT(in_child(child_stream, &sj), 0);
	sj.read = 0;
	CHECK_EQ_INT(in_child(child_stream, &sj), 0);
	tsr_stream_free(st);
	free(first);
	/* the parent's own pool goes on as before */
	CHECK_EQ_INT(child_reads(&(struct job){ctx, path, want, nb}), 0);
	tsr_free(want);
	CHECK_DONE();
}
