/* zstd_groups.h - the block kernel's groups of lanes on the CPU for the emulator tests: 32 threads as a warp's lanes, each group with a barrier of its own for its __syncwarp, decode a stream's blocks' literals a group a block (tsr_zs_block_lits), checked against the one-lane emulation's bytes and statuses (check_groups). */
#ifndef TSR_TEST_ZSTD_GROUPS_H
#define TSR_TEST_ZSTD_GROUPS_H
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a lane's place in its group, the group's size, and its barrier (TSR_ZS_GSYNC) */
static _Thread_local unsigned g_lane, g_id;
static unsigned g_n = 1;
static pthread_barrier_t g_bar[4];
static int g_threads; /* (0: the one-lane reference on the main thread) */
static void g_sync(void)
{
	if (g_threads)
		pthread_barrier_wait(&g_bar[g_id]);
}
#define TSR_ZS_GLANE g_lane
#define TSR_ZS_GNLANES g_n
#define TSR_ZS_GSYNC() g_sync()

#include "check.h"
#include "zstd_frames.h"
#include "zstd_host.h"

/* a stream's blocks, and what the groups write */
struct job {
	const uint8_t *in;
	struct tsr_zs_block *bl;
	uint32_t nblocks;
	uint8_t *lits;
	struct tsr_zs_work w[4]; /* each group's tables (shared memory on the GPU) */
	int32_t st[4096];
	uint64_t at[4096]; /* each block's literals' place: every compressed block's, raw ones too
			      (phase a gives raw literals no scratch; here they are copied) */
};

/* A lane's thread: its place set, then its part of the run (groups_run). */
struct groups_lane {
	void (*part)(void *ctx);
	void *ctx;
	unsigned id;
};

static void *groups_lane_main(void *arg)
{
	struct groups_lane *l = arg;
	g_lane = l->id % g_n;
	g_id = l->id / g_n;
	l->part(l->ctx);
	return NULL;
}

/* part(ctx) run by nlanes threads (at most 32) as lanes in groups of g, each group with its
 * barrier; then the one-lane state again. */
static void groups_run(unsigned g, unsigned nlanes, void (*part)(void *ctx), void *ctx)
{
	g_n = g;
	for (unsigned k = 0; k < nlanes / g; k++)
		if (pthread_barrier_init(&g_bar[k], NULL, g))
			exit(2);
	g_threads = 1;
	pthread_t t[32];
	struct groups_lane ln[32];
	for (unsigned k = 0; k < nlanes; k++) {
		ln[k] = (struct groups_lane){part, ctx, k};
		if (pthread_create(&t[k], NULL, groups_lane_main, &ln[k]))
			exit(2);
	}
	for (unsigned k = 0; k < nlanes; k++)
		pthread_join(t[k], NULL);
	g_threads = 0, g_n = 1, g_lane = 0, g_id = 0;
	for (unsigned k = 0; k < nlanes / g; k++)
		pthread_barrier_destroy(&g_bar[k]);
}

/* A lane of the block kernel: its group takes blocks group, group + groups, ... (grid-stride) */
static void lane_part(void *ctx)
{
	struct job *j = ctx;
	for (uint32_t i = g_id; i < j->nblocks; i += 32 / g_n) {
		if (j->bl[i].type != 2)
			continue;
		int st = tsr_zs_block_lits(&j->w[g_id], j->in, j->bl, i, j->lits + j->at[i], 1);
		if (g_lane == 0)
			j->st[i] = st;
	}
}

static long nstreams, ndamaged, nblocks_by_groups;

/* z's blocks' literals by groups of g lanes against one lane's; what: for a report. */
static void check_groups(const uint8_t *z, size_t zn, unsigned g, const char *what)
{
	struct tsr_zs_count c, c2;
	if (tsr_zs_scan(z, zn, NULL, 0, NULL, 0, &c) != TSR_CUDA_ZSTD_OK || c.nblocks > 4096)
		return;
	struct job *j = check_malloc(sizeof *j);
	memset(j, 0, sizeof *j);
	struct tsr_zs_frame *fr = check_malloc((c.nframes + 1) * sizeof *fr);
	j->bl = check_malloc((c.nblocks + 1) * sizeof *j->bl);
	CHECK(tsr_zs_scan(z, zn, fr, c.nframes, j->bl, c.nblocks, &c2) == TSR_CUDA_ZSTD_OK);
	uint64_t nlit = 0;
	for (uint32_t i = 0; i < c.nblocks; i++) {
		j->at[i] = nlit;
		nlit += j->bl[i].type == 2 ? j->bl[i].nlit : 0;
	}
	uint8_t *want = check_malloc(nlit + 1);
	j->lits = check_malloc(nlit + 1);
	memset(j->lits, 0x5A, nlit + 1);
	memset(want, 0x5A, nlit + 1);
	j->in = z;
	j->nblocks = c.nblocks;
	/* the reference: one lane, block after block */
	int32_t *st1 = check_malloc((c.nblocks + 1) * sizeof *st1);
	g_threads = 0, g_n = 1, g_lane = 0, g_id = 0;
	for (uint32_t i = 0; i < c.nblocks; i++)
		if (j->bl[i].type == 2)
			st1[i] = tsr_zs_block_lits(&j->w[0], z, j->bl, i, want + j->at[i], 1);
	/* the groups */
	groups_run(g, 32, lane_part, j);
	int damaged = 0;
	for (uint32_t i = 0; i < c.nblocks; i++) {
		if (j->bl[i].type != 2)
			continue;
		nblocks_by_groups++;
		damaged |= st1[i] != TSR_CUDA_ZSTD_OK;
		int same = j->st[i] == st1[i] &&
			   (st1[i] != TSR_CUDA_ZSTD_OK ||
			    memcmp(j->lits + j->at[i], want + j->at[i], j->bl[i].nlit) == 0);
		if (!same)
			fprintf(stderr, "%s, groups of %u: block %u: status %d (one lane: %d)%s\n", what,
				g, i, j->st[i], st1[i], j->st[i] == st1[i] ? ", bytes differ" : "");
		CHECK(same);
	}
	nstreams++;
	ndamaged += damaged;
	free(fr);
	free(j->bl);
	free(want);
	free(j->lits);
	free(st1);
	free(j);
}

#endif
