/* stream.c - streamed reads: batches of files read in turn while the next ones are read ahead. */
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine.h"

struct tsr_stream {
	struct tsr_context *ctx;
	char **paths;
	size_t npaths;
	struct tsr_open_options open;
	int has_open;
	char *array_copy;           /* our copy of open.array */
	char *hdu_name_copy;        /* our copy of open.hdu_name */
	char *dtype_copy;           /* our copy of open.dtype */
	struct tsr_selection sel;
	int has_sel;
	size_t per_batch, prefetch;
	int prefetch_set;           /* the caller gave prefetch */
	size_t next;                /* first file of the next batch */
	int ndim0;                  /* the first file's selected shape and dtype */
	int64_t shape0[TSR_MAX_DIM];
	enum tsr_dtype dtype0;
	int have_shape;
	/* Read-ahead thread: advises files [advised, want) into the page cache. */
	pthread_t thread;
	int thread_started;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	size_t advised, want;
	int quit;
	pid_t pid;                  /* the process whose thread it is (a fork's child has none) */
	/* Read-ahead into memory the stream owns (device streams; tsr_stream_ahead_test for host
	 * ones): files [ahead_first, ahead_first + ahead_n) read by one batch read, each
	 * file_nbytes, served to later batches by a copy. */
	unsigned char *ahead;
	size_t ahead_cap;           /* its bytes */
	enum tsr_mem ahead_mem;
	int ahead_device;           /* its CUDA device */
	size_t ahead_first, ahead_n;
	size_t ahead_off_until;     /* no read-ahead for batches before this file: a group read
				       failed in [next, ahead_off_until) */
	size_t ahead_budget;        /* bytes a group read may fill (0: TSR_STREAM_AHEAD_NBYTES) */
	int ahead_host;             /* read ahead into host memory too (tests) */
	size_t file_nbytes;         /* bytes of one file's selection */
	struct tsr_receipt ahead_rec; /* the group read's receipt: its names for later batches */
	int fail_st;                /* the error that ended the stream (0: none), and its message */
	char fail_msg[1024];
};

/* A device stream reads its next batches with the current one, as one batch read into a
 * buffer of at most this many bytes on the destination's device (and at most an eighth of the
 * device's free memory), and hands each batch over with a copy on the device: one file at a
 * time, the GPU would wait on the host's work for each file. Each group read fills and drains
 * the read's pipeline once, so larger groups come closer to one batch read (on the H200, 32
 * GZIP_2 float32 files of 64 MiB: 10.3 GB/s one by one, 19.3 in groups of 512 MiB, 25.3 as
 * one batch of 2 GiB). */
#define TSR_STREAM_AHEAD_NBYTES ((size_t)2 << 30)
#define TSR_STREAM_AHEAD_FREE_SHARE 8

/* Asks the kernel to start reading a file (a plain file; stores are directories of many
 * small files, which the OS reads ahead well enough by itself). */
static void tsr_stream_advise(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return;
	/* non-blocking: the path may have become a FIFO since the stat */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return;
	posix_fadvise(fd, 0, 0, POSIX_FADV_WILLNEED);
	close(fd);
}

static void *tsr_stream_main(void *arg)
{
	struct tsr_stream *s = arg;
	pthread_mutex_lock(&s->lock);
	while (!s->quit) {
		if (s->advised < s->want) {
			size_t i = s->advised++;
			pthread_mutex_unlock(&s->lock);
			tsr_stream_advise(s->paths[i]);
			pthread_mutex_lock(&s->lock);
			continue;
		}
		pthread_cond_wait(&s->wake, &s->lock);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* Moves the read-ahead window to cover the files after `from`. */
static void tsr_stream_ahead(struct tsr_stream *s, size_t from)
{
	size_t want = from + s->prefetch;
	if (want > s->npaths)
		want = s->npaths;
	pthread_mutex_lock(&s->lock);
	if (s->advised < from)
		s->advised = from; /* files already read need no advice */
	if (want > s->want) {
		s->want = want;
		pthread_cond_signal(&s->wake);
	}
	pthread_mutex_unlock(&s->lock);
}

static void tsr_stream_ahead_drop(struct tsr_stream *s)
{
	if (s->ahead_mem == TSR_MEM_CUDA)
		tsr_cuda_free(s->ahead);
	else
		free(s->ahead);
	s->ahead = NULL;
	s->ahead_cap = 0;
	s->ahead_n = 0;
}

void tsr_stream_ahead_test(struct tsr_stream *s, size_t budget)
{
	s->ahead_host = 1;
	s->ahead_budget = budget;
}

/* In a fork's child, the read-ahead thread is the parent's: the stream's lock and condition
 * made new (that thread may have held them at the fork) and a thread of the child's own
 * started, as the context's pools do. */
static void tsr_stream_after_fork(struct tsr_stream *s)
{
	if (s->pid == getpid())
		return;
	s->pid = getpid();
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->wake, NULL);
	s->quit = 0;
	s->thread_started = pthread_create(&s->thread, NULL, tsr_stream_main, s) == 0;
}

void tsr_stream_free(struct tsr_stream *s)
{
	if (!s)
		return;
	tsr_stream_ahead_drop(s);
	if (s->pid != getpid()) {
		/* a child that never read: no thread of its own to end (and the parent's lock
		 * may be held), so nothing to join or destroy */
		s->thread_started = 0;
	} else if (s->thread_started) {
		pthread_mutex_lock(&s->lock);
		s->quit = 1;
		pthread_cond_signal(&s->wake);
		pthread_mutex_unlock(&s->lock);
		pthread_join(s->thread, NULL);
	}
	if (s->pid == getpid()) {
		pthread_mutex_destroy(&s->lock);
		pthread_cond_destroy(&s->wake);
	}
	free(s->array_copy);
	free(s->hdu_name_copy);
	free(s->dtype_copy);
	for (size_t i = 0; s->paths && i < s->npaths; i++)
		free(s->paths[i]);
	free(s->paths);
	free(s);
}

int tsr_stream_open(struct tsr_context *ctx, const char *const *paths, size_t npaths,
		    const struct tsr_open_options *open_opts, const struct tsr_selection *sel,
		    const struct tsr_stream_options *opts, struct tsr_stream **stream_ret)
{
	if (!stream_ret)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_stream_open: stream_ret is NULL");
	*stream_ret = NULL;
	if (!ctx || (!paths && npaths))
		return tsr_error(TSR_E_INVALID_ARG, "tsr_stream_open: NULL argument");
	struct tsr_stream_options so;
	int st0 = tsr_stream_options_load(&so, opts, "tsr_stream_open");
	if (st0)
		return st0;
	if (so.files_per_batch < 0 || so.prefetch < 0)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_stream_open: negative option");
	struct tsr_open_options oo;
	if ((st0 = tsr_open_options_load(&oo, open_opts, "tsr_stream_open")))
		return st0;
	for (size_t i = 0; i < npaths; i++) /* (each is copied below: strdup(NULL) faults) */
		if (!paths[i])
			return tsr_error(TSR_E_INVALID_ARG, "tsr_stream_open: paths[%zu] is NULL", i);
	struct tsr_stream *s = calloc(1, sizeof(*s));
	if (!s)
		return tsr_error(TSR_E_NOMEM, "tsr_stream_open: out of memory");
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->wake, NULL);
	s->pid = getpid();
	s->ctx = ctx;
	s->per_batch = so.files_per_batch ? (size_t)so.files_per_batch : 1;
	s->prefetch = so.prefetch ? (size_t)so.prefetch : 2 * s->per_batch;
	s->prefetch_set = so.prefetch > 0;
	s->paths = calloc(npaths ? npaths : 1, sizeof(char *));
	if (!s->paths)
		goto nomem;
	s->npaths = npaths;
	for (size_t i = 0; i < npaths; i++)
		if (!(s->paths[i] = strdup(paths[i])))
			goto nomem;
	s->open = oo;
	if (open_opts) {
		/* The array path, HDU name and dtype are the caller's: keep our own copies for
		 * the stream's life. */
		if (s->open.array) {
			if (!(s->array_copy = strdup(s->open.array)))
				goto nomem;
			s->open.array = s->array_copy;
		}
		if (s->open.hdu_name) {
			if (!(s->hdu_name_copy = strdup(s->open.hdu_name)))
				goto nomem;
			s->open.hdu_name = s->hdu_name_copy;
		}
		if (s->open.dtype) {
			if (!(s->dtype_copy = strdup(s->open.dtype)))
				goto nomem;
			s->open.dtype = s->dtype_copy;
		}
		s->has_open = 1;
	}
	if (sel) {
		s->sel = *sel;
		s->has_sel = 1;
	}
	if (pthread_create(&s->thread, NULL, tsr_stream_main, s) != 0) {
		tsr_stream_free(s);
		return tsr_error(TSR_E_NOMEM, "tsr_stream_open: cannot start the read-ahead thread");
	}
	s->thread_started = 1;
	tsr_stream_ahead(s, 0);
	*stream_ret = s;
	return TSR_OK;
nomem:
	tsr_stream_free(s);
	return tsr_error(TSR_E_NOMEM, "tsr_stream_open: out of memory");
}

/* The CUDA device of a device destination, where a read ahead for it may be made and served
 * there: the destination's, which the read options name too where they name one; -1 where not
 * (a read of the batch itself then gives the error these options deserve). */
static int tsr_stream_ahead_device(struct tsr_stream *s, const struct tsr_buffer *dst,
				   const struct tsr_read_options *opts)
{
	int device = -1, named = -1;
	if (tsr_cuda_pointer_device(dst->data, &device) != TSR_OK || device < 0 ||
	    tsr_read_device(s->ctx, opts, "tsr_stream_next", &named) != TSR_OK ||
	    (named >= 0 && named != device)) {
		tsr_error_clear();
		return -1;
	}
	return device;
}

/* How many files the read of the batch at s->next (n files) takes in: n, or with read-ahead
 * whole batches more, as many as the budget holds (and the prefetch option, where set, asks),
 * into a buffer made ready for them. */
static size_t tsr_stream_group(struct tsr_stream *s, const struct tsr_buffer *dst,
			       const struct tsr_read_options *opts, size_t n)
{
	if (s->next < s->ahead_off_until || !s->file_nbytes ||
	    (dst->mem != TSR_MEM_CUDA && !(s->ahead_host && dst->mem == TSR_MEM_HOST)))
		return n;
	size_t budget = s->ahead_budget ? s->ahead_budget : TSR_STREAM_AHEAD_NBYTES;
	int device = -1;
	if (dst->mem == TSR_MEM_CUDA) {
		/* on the destination's device, the read's; no more than a share of what it has
		 * free, so the caller's own allocations still find room */
		size_t free_nbytes = 0;
		if ((device = tsr_stream_ahead_device(s, dst, opts)) < 0)
			return n;
		if (tsr_cuda_free_nbytes(device, &free_nbytes) != TSR_OK) {
			tsr_error_clear();
			return n;
		}
		if (!s->ahead_budget && budget > free_nbytes / TSR_STREAM_AHEAD_FREE_SHARE)
			budget = free_nbytes / TSR_STREAM_AHEAD_FREE_SHARE;
		if (s->ahead && s->ahead_mem == TSR_MEM_CUDA && s->ahead_device == device &&
		    budget < s->ahead_cap)
			budget = s->ahead_cap; /* (the buffer it holds already counts as free) */
	}
	size_t most = budget / s->file_nbytes, left = s->npaths - s->next;
	if (s->prefetch_set && n + s->prefetch < most)
		most = n + s->prefetch;
	if (most >= left)
		most = left; /* (the stream's last batch may be short) */
	else
		most -= most % s->per_batch; /* whole batches */
	if (most <= n)
		return n;
	size_t need = most * s->file_nbytes;
	if (s->ahead && (s->ahead_mem != dst->mem || s->ahead_device != device ||
			 s->ahead_cap < need))
		tsr_stream_ahead_drop(s);
	if (!s->ahead) {
		void *p = NULL;
		if (dst->mem == TSR_MEM_CUDA) {
			if (tsr_cuda_malloc_on(device, need, &p) != TSR_OK)
				p = NULL;
		} else {
			p = malloc(need);
		}
		if (!p) {
			tsr_error_clear(); /* (no read-ahead: the batch is read as it is) */
			return n;
		}
		s->ahead = p;
		s->ahead_cap = need;
		s->ahead_mem = dst->mem;
		s->ahead_device = device;
	}
	return most;
}

/* Whether the read-ahead buffer holds the batch at s->next (n files) for dst: the same kind of
 * memory, on the same device, which the read options name too where they name one. */
static int tsr_stream_holds(struct tsr_stream *s, const struct tsr_buffer *dst,
			    const struct tsr_read_options *opts, size_t n)
{
	if (!s->ahead_n || s->next < s->ahead_first || s->next + n > s->ahead_first + s->ahead_n ||
	    dst->mem != s->ahead_mem)
		return 0;
	return dst->mem != TSR_MEM_CUDA || tsr_stream_ahead_device(s, dst, opts) == s->ahead_device;
}

/* Hands the batch at s->next (n files, all in the read-ahead buffer) to dst. The receipt: the
 * group read's for the batch that read it; later batches get its names, their bytes and the
 * copy's time. */
static int tsr_stream_serve(struct tsr_stream *s, const struct tsr_buffer *dst, size_t n,
			    size_t *nfiles_ret, struct tsr_receipt *receipt_ret)
{
	double t0 = tsr_now();
	size_t nbytes = n * s->file_nbytes;
	if (!dst->data || dst->nbytes < nbytes)
		return tsr_error(TSR_E_TOO_SMALL, "batch of %zu x %zu bytes, buffer has %zu", n,
				 s->file_nbytes, dst->nbytes);
	const unsigned char *src = s->ahead + (s->next - s->ahead_first) * s->file_nbytes;
	if (dst->mem == TSR_MEM_CUDA) {
		/* on the buffers' device, current as a read makes it: a NULL stream is that
		 * device's default one, ordered after the caller's work there */
		int device = s->ahead_device, prev = -1;
		int st = tsr_cuda_enter(&device, dst->data, "tsr_stream_next", &prev);
		if (st == TSR_OK)
			st = tsr_cuda_copy_on_device(dst->data, src, nbytes, dst->cuda_stream);
		tsr_cuda_leave(prev);
		if (st)
			return st;
	} else {
		memcpy(dst->data, src, nbytes);
	}
	struct tsr_receipt r = s->ahead_rec;
	if (s->next != s->ahead_first) {
		r.chunks_total = r.chunks_read = 0;
		r.bytes_read = r.bytes_decoded = 0;
		r.t_plan = r.t_fetch = r.t_decode = r.t_place = r.t_wait = 0;
	}
	r.bytes_out = nbytes;
	r.t_total = s->next == s->ahead_first ? r.t_total + (tsr_now() - t0) : tsr_now() - t0;
	if (receipt_ret)
		tsr_receipt_store(receipt_ret, &r);
	s->next += n;
	*nfiles_ret = n;
	if (s->next >= s->ahead_first + s->ahead_n)
		s->ahead_n = 0;
	if (s->next >= s->npaths)
		tsr_stream_ahead_drop(s); /* (the stream is done: its device memory goes back) */
	return TSR_OK;
}

static int tsr_stream_read(struct tsr_stream *s, const struct tsr_buffer *dst, int split,
			   const struct tsr_read_options *opts, size_t *nfiles_ret,
			   struct tsr_receipt *receipt_ret);

/* The next batch (stacked into dst, or split over the read options' devices into dsts). */
static int tsr_stream_batch(struct tsr_stream *s, const struct tsr_buffer *dst, int split,
			    const struct tsr_read_options *opts, size_t *nfiles_ret,
			    struct tsr_receipt *receipt_ret)
{
	if (!s || !dst || !nfiles_ret)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_stream_next: NULL argument");
	*nfiles_ret = 0;
	tsr_stream_after_fork(s);
	struct tsr_read_options o; /* (checked here too: a stream's end refuses what a read does) */
	int st0 = tsr_read_options_load(&o, opts);
	if (st0)
		return st0;
	if (receipt_ret && receipt_ret->struct_size < TSR_RECEIPT_MIN_NBYTES)
		return tsr_error(TSR_E_INVALID_ARG, "tsr_stream_next: receipt struct_size too small");
	if (s->fail_st) {
		tsr_error_set_text(s->fail_msg);
		return s->fail_st;
	}
	if (s->next >= s->npaths)
		return TSR_OK;
	int st = tsr_stream_read(s, dst, split, opts, nfiles_ret, receipt_ret);
	/* an error ends the stream: later calls give it again (tsr_stream_next); a destination
	 * too small is the call's own, as a NULL one is: the same batch waits for a larger one */
	if (st && st != TSR_E_TOO_SMALL) {
		*nfiles_ret = 0;
		s->fail_st = st;
		snprintf(s->fail_msg, sizeof(s->fail_msg), "%s", tsr_errmsg());
	}
	return st;
}

/* The batch at s->next into dst: tsr_stream_batch's work once its arguments are checked. */
static int tsr_stream_read(struct tsr_stream *s, const struct tsr_buffer *dst, int split,
			   const struct tsr_read_options *opts, size_t *nfiles_ret,
			   struct tsr_receipt *receipt_ret)
{
	size_t n = s->npaths - s->next < s->per_batch ? s->npaths - s->next : s->per_batch;
	const struct tsr_open_options *oo = s->has_open ? &s->open : NULL;
	const struct tsr_selection *sel = s->has_sel ? &s->sel : NULL;
	if (!split && tsr_stream_holds(s, dst, opts, n))
		return tsr_stream_serve(s, dst, n, nfiles_ret, receipt_ret);
	/* Later batches must match the stream's first file, not just their own first file. */
	if (!s->have_shape) {
		struct tsr_array *a = NULL;
		int st = tsr_open(s->ctx, s->paths[0], oo, &a);
		if (st == TSR_OK)
			st = tsr_array_sel_shape(a, sel, &s->ndim0, s->shape0);
		if (st == TSR_OK)
			s->dtype0 = a->desc.dtype;
		tsr_array_free(a);
		if (st)
			return st;
		s->have_shape = 1;
		s->file_nbytes = tsr_dtype_size(s->dtype0);
		for (int d = 0; d < s->ndim0; d++)
			s->file_nbytes *= (size_t)s->shape0[d];
	} else {
		struct tsr_array *a = NULL;
		int ndim;
		int64_t shape[TSR_MAX_DIM];
		int st = tsr_open(s->ctx, s->paths[s->next], oo, &a);
		if (st == TSR_OK)
			st = tsr_array_sel_shape(a, sel, &ndim, shape);
		if (st == TSR_OK)
			st = tsr_batch_alike(s->paths[s->next], ndim, shape, a->desc.dtype,
					     s->paths[0], s->ndim0, s->shape0, s->dtype0);
		tsr_array_free(a);
		if (st)
			return st;
	}
	tsr_stream_ahead(s, s->next + n);
	const char *const *paths = (const char *const *)s->paths + s->next;
	size_t group = split ? n : tsr_stream_group(s, dst, opts, n);
	if (group > n) {
		/* this batch and the next ones in one read into the stream's buffer; a failure
		 * there leaves the batches it held to be read one at a time, so each error comes
		 * from the call whose batch holds the file, as without read-ahead */
		struct tsr_buffer ab = {s->ahead, group * s->file_nbytes, s->ahead_mem,
					dst->cuda_stream};
		struct tsr_receipt rec = {.struct_size = sizeof(rec)};
		s->ahead_n = 0;
		if (tsr_read_batch(s->ctx, paths, group, oo, sel, &ab, opts, &rec) == TSR_OK) {
			s->ahead_first = s->next;
			s->ahead_n = group;
			s->ahead_rec = rec;
			tsr_stream_ahead(s, s->next + group);
			return tsr_stream_serve(s, dst, n, nfiles_ret, receipt_ret);
		}
		tsr_error_clear();
		s->ahead_off_until = s->next + group;
	}
	int st = split ? tsr_read_batch_devices(s->ctx, paths, n, oo, sel, dst, opts, receipt_ret)
		       : tsr_read_batch(s->ctx, paths, n, oo, sel, dst, opts, receipt_ret);
	if (st)
		return st;
	s->next += n;
	*nfiles_ret = n;
	return TSR_OK;
}

int tsr_stream_next(struct tsr_stream *s, const struct tsr_buffer *dst,
		    const struct tsr_read_options *opts, size_t *nfiles_ret,
		    struct tsr_receipt *receipt_ret)
{
	return tsr_stream_batch(s, dst, 0, opts, nfiles_ret, receipt_ret);
}

int tsr_stream_next_devices(struct tsr_stream *s, const struct tsr_buffer *dsts,
			    const struct tsr_read_options *opts, size_t *nfiles_ret,
			    struct tsr_receipt *receipt_ret)
{
	return tsr_stream_batch(s, dsts, 1, opts, nfiles_ret, receipt_ret);
}
