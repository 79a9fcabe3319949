/* memo.c - where the HDUs of the FITS files a context walked lately start (its TSR_CTX_FITS state), so that opening HDU i of such a file again reads one header, not i. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../../core/internal.h"
#include "fits.h"

/*
 * tsr_open by HDU index walks the file from its start, a header after another, so a loop that
 * opens every HDU of a file of n HDUs reads n^2 / 2 headers (2,000 HDUs: 3.2 s on this 2-core
 * machine, design-notes "tsr_listing_open"). The walk's header offsets are kept here, per file,
 * for the last TSR_FITS_MEMO_FILES files: HDU k of a file at offset at[k], for k < n, as the
 * walks found them from the start (a contiguous run). A file counts as the same while its
 * device, inode, size, modification time and status change time are: any write changes the
 * last, which no caller can set back; and the walk still checks that the header it starts
 * from is an extension's. The kernel stamps those times from a clock of a few milliseconds'
 * grain, so a file rewritten within one grain of its last write could keep them all; as git
 * does with its index, a file changed in the last TSR_FITS_MEMO_RACY_NS is not kept, so any
 * write after an entry is made stamps a later time than the one kept.
 */
#define TSR_FITS_MEMO_RACY_NS 50000000LL
#define TSR_FITS_MEMO_FILES 8
/* (HDUs a file keeps at most: 512 KiB of offsets; past them a walk goes on from the last) */
#define TSR_FITS_MEMO_MAX (1u << 16)

struct tsr_fits_memo_file {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
	uint64_t *at;
	uint32_t n, cap;
	uint64_t used; /* when last looked at (the memo's clock): the oldest goes first */
};

struct tsr_fits_memo {
	pthread_mutex_t lock;
	uint64_t clock;
	struct tsr_fits_memo_file f[TSR_FITS_MEMO_FILES];
};

static int tsr_fits_memo_make(struct tsr_context *ctx, void **state_ret)
{
	(void)ctx;
	struct tsr_fits_memo *m = calloc(1, sizeof(*m));
	if (!m)
		return TSR_E_NOMEM;
	if (pthread_mutex_init(&m->lock, NULL)) {
		free(m);
		return TSR_E_NOMEM;
	}
	*state_ret = m;
	return TSR_OK;
}

static void tsr_fits_memo_free(void *state)
{
	struct tsr_fits_memo *m = state;
	for (int i = 0; i < TSR_FITS_MEMO_FILES; i++)
		free(m->f[i].at);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

/* The context's memo, or NULL where it cannot be made (the walk then starts at the file's
 * start, as without one). */
static struct tsr_fits_memo *tsr_fits_memo_of(struct tsr_context *ctx)
{
	void *m = NULL;
	if (!ctx || tsr_context_state(ctx, TSR_CTX_FITS, tsr_fits_memo_make, tsr_fits_memo_free, &m))
		return NULL;
	return m;
}

static int tsr_fits_memo_same(const struct tsr_fits_memo_file *f, const struct stat *s)
{
	return f->at && f->dev == s->st_dev && f->ino == s->st_ino && f->size == s->st_size &&
	       f->mtime.tv_sec == s->st_mtim.tv_sec && f->mtime.tv_nsec == s->st_mtim.tv_nsec &&
	       f->ctime.tv_sec == s->st_ctim.tv_sec && f->ctime.tv_nsec == s->st_ctim.tv_nsec;
}

int tsr_fits_memo_racy(const struct stat *s)
{
	struct timespec now;
	if (clock_gettime(CLOCK_REALTIME, &now))
		return 1;
	long long ns = ((long long)now.tv_sec - (long long)s->st_ctim.tv_sec) * 1000000000LL +
		       (now.tv_nsec - s->st_ctim.tv_nsec);
	return ns < TSR_FITS_MEMO_RACY_NS;
}

/* The entry of the file of stat record s (under the lock), or with make an entry taken for it
 * (the oldest, or one never used), or NULL. */
static struct tsr_fits_memo_file *tsr_fits_memo_file(struct tsr_fits_memo *m, const struct stat *s,
						     int make)
{
	struct tsr_fits_memo_file *old = &m->f[0];
	for (int i = 0; i < TSR_FITS_MEMO_FILES; i++) {
		struct tsr_fits_memo_file *f = &m->f[i];
		if (tsr_fits_memo_same(f, s)) {
			f->used = ++m->clock;
			return f;
		}
		if (f->used < old->used)
			old = f;
	}
	if (!make || tsr_fits_memo_racy(s))
		return NULL;
	old->dev = s->st_dev;
	old->ino = s->st_ino;
	old->size = s->st_size;
	old->mtime = s->st_mtim;
	old->ctime = s->st_ctim;
	old->n = 0;
	old->used = ++m->clock;
	if (!old->at) {
		old->cap = 64;
		old->at = malloc(old->cap * sizeof(*old->at));
		if (!old->at)
			old->cap = 0;
	}
	return old->at ? old : NULL;
}

int tsr_fits_memo_start(struct tsr_context *ctx, const struct stat *s, int want, int *hdu_ret,
			uint64_t *at_ret)
{
	struct tsr_fits_memo *m = want > 0 ? tsr_fits_memo_of(ctx) : NULL;
	if (!m)
		return 0;
	int found = 0;
	pthread_mutex_lock(&m->lock);
	struct tsr_fits_memo_file *f = tsr_fits_memo_file(m, s, 0);
	if (f && f->n > 1) {
		uint32_t k = (uint32_t)want < f->n ? (uint32_t)want : f->n - 1;
		*hdu_ret = (int)k;
		*at_ret = f->at[k];
		found = 1;
	}
	pthread_mutex_unlock(&m->lock);
	return found;
}

void tsr_fits_memo_note(struct tsr_context *ctx, const struct stat *s, int hdu, uint64_t at)
{
	struct tsr_fits_memo *m = tsr_fits_memo_of(ctx);
	if (!m || hdu < 0 || (uint32_t)hdu >= TSR_FITS_MEMO_MAX)
		return;
	pthread_mutex_lock(&m->lock);
	struct tsr_fits_memo_file *f = tsr_fits_memo_file(m, s, hdu == 0);
	if (f && (uint32_t)hdu < f->n && f->at[hdu] != at) {
		f->n = (uint32_t)hdu; /* (a walk that disagrees: what it found replaces the rest) */
	}
	if (f && (uint32_t)hdu == f->n) {
		if (f->n == f->cap) {
			uint64_t *at2 = realloc(f->at, 2 * (size_t)f->cap * sizeof(*at2));
			if (at2) {
				f->at = at2;
				f->cap *= 2;
			}
		}
		if (f->n < f->cap)
			f->at[f->n++] = at;
	}
	pthread_mutex_unlock(&m->lock);
}
