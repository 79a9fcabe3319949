/* test_blosc_threads.c - the fixtures decoded by several threads at once: no shared state between decodes. */
#include "blosc_test_util.h"

/* ---- 3b. concurrent decoding: no shared state between threads ---- */

struct thr_job {
	const struct fixture *fx;
	int nfx;
	const char *dir;
	int use_scratch;
	int bad;
};

static void *thr_main(void *arg)
{
	struct thr_job *j = arg;
	struct tsr_blosc_scratch *scratch = NULL;
	if (j->use_scratch)
		tsr_blosc_scratch_create(&scratch);
	for (int round = 0; round < 3; round++)
		for (int i = 0; i < j->nfx; i++) {
			char path[8192];
			size_t cn = 0, dn = 0;
			snprintf(path, sizeof(path), "%s/%s.blosc", j->dir, j->fx[i].name);
			uint8_t *c = read_file(path, &cn);
			snprintf(path, sizeof(path), "%s/%s", j->dir, j->fx[i].data);
			uint8_t *d = read_file(path, &dn);
			size_t n = (size_t)j->fx[i].nbytes, got = 0;
			uint8_t *out = malloc(n + 1);
			if (!c || !d || tsr_blosc_decode(out, n, c, cn, scratch, &got) != TSR_OK ||
			    got != n || memcmp(out, d, n) != 0)
				j->bad++;
			free(out);
			free(c);
			free(d);
		}
	tsr_blosc_scratch_free(scratch);
	return NULL;
}

static void test_threads(const struct fixture *fx, int nfx, const char *dir)
{
	enum { NT = 4 };
	pthread_t t[NT];
	struct thr_job jobs[NT];
	for (int i = 0; i < NT; i++) {
		jobs[i] = (struct thr_job){fx, nfx, dir, i % 2, 0};
		CHECK_EQ_INT(pthread_create(&t[i], NULL, thr_main, &jobs[i]), 0);
	}
	for (int i = 0; i < NT; i++) {
		pthread_join(t[i], NULL);
		CHECK_EQ_INT(jobs[i].bad, 0);
	}
}


int main(void)
{
	char dir[4096];
	struct fixture *fx = NULL;
	int nfx = load_fixtures(&fx, dir, sizeof(dir));
	CHECK(nfx > 200);
	if (nfx > 0)
		test_threads(fx, nfx, dir);
	free(fx);
	CHECK_DONE();
}
