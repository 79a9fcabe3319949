/* lz4_lane_model.c - counts on the CPU what a warp of lane-a-stream LZ4 decoders (src/cuda/lz4_lane_core.h) passes through, in lockstep, under two loop shapes: a loop a run, or a step a piece. */
#include <lz4.h>
#include <lz4hc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lz_profiles.h"
#include "lz_zarr_plane.h"

/*
 * Usage: lz4_lane_model [--warps W] [--piece P]   (default 16 warps of 32 streams of 64 KiB,
 * pieces of up to 32 bytes: TSR_L4_PIECE)
 * A warp's 32 lanes decode 32 streams, each its own sequences; a branch some lanes take costs the
 * warp its whole path, and a loop as many turns as its longest lane's. Each stream (liblz4 fast
 * and HC 9 on lz_profiles.h's data) is parsed into sequences, and each sequence into the pieces
 * the kernel puts (a literal run in pieces of P bytes unless its 5 or fewer literals ride in
 * the token's word; a match in pieces of min(P, distance), or under distance 8 of the whole
 * periods that fit P bytes). Counted, a warp:
 * - a loop a run (main until 2026-12-05): rounds of one sequence a lane; a round costs a token
 *   parse, the token's fast path and the general parse if any lane takes them, the longest
 *   lane's literal pieces, the longest lane's match pieces (short-distance and far apart);
 * - a step a piece (lz4_lane_core.h now): each step every lane puts one piece; a step costs the
 *   piece once, plus a parse wherever any lane parses;
 * - a lane alone: its own parses and pieces, a 32nd of the warp's issue;
 * - steps a warp: the turns of the step loop a warp runs (its longest lane's), each at least a
 *   round trip to memory for its piece: the chain the kernel's time follows at a few warps an SM.
 * Costs are passes through a part of the code, weighted by the rough SASS length of each part
 * (W_* below, instructions): a way to compare the shapes, not a time.
 */

enum { W_TOKEN = 40, W_FAST = 15, W_GENERAL = 30, W_PIECE = 65, W_PATTERN = 20 };

struct seq {
	uint32_t lit, len, dist; /* len 0: the last sequence */
};

/* The sequences of block z (zn bytes, liblz4's own output). */
static size_t parse(const unsigned char *z, size_t zn, struct seq *out)
{
	size_t ip = 0, k = 0;
	for (;;) {
		unsigned tok = z[ip++];
		uint32_t lit = tok >> 4, len = tok & 15u, b;
		if (lit == 15)
			do
				lit += b = z[ip++];
			while (b == 255);
		ip += lit;
		if (ip >= zn) {
			out[k++] = (struct seq){lit, 0, 0};
			return k;
		}
		uint32_t d = z[ip] | (uint32_t)z[ip + 1] << 8;
		ip += 2;
		if (len == 15)
			do
				len += b = z[ip++];
			while (b == 255);
		out[k++] = (struct seq){lit, len + 4, d};
	}
}

static uint32_t cdiv(uint32_t a, uint32_t b)
{
	return (a + b - 1) / b;
}

/* A sequence's parts: fast path (its literals in the token's word), literal and match pieces. */
struct parts {
	int fast, pattern;
	uint32_t lp, mp;
};

static uint32_t piece = 32; /* the largest piece, bytes (--piece) */

static struct parts parts_of(const struct seq *s)
{
	struct parts p = {s->lit <= 5 && s->len, s->len && s->dist < 8, 0, 0};
	p.lp = p.fast ? 0 : cdiv(s->lit, piece);
	if (p.pattern)
		p.mp = cdiv(s->len, piece - piece % s->dist);
	else if (s->len)
		p.mp = cdiv(s->len, s->dist < piece ? s->dist : piece);
	return p;
}

int main(int argc, char **argv)
{
	int warps = 16;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--warps") && i + 1 < argc) {
			warps = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--piece") && i + 1 < argc && atoi(argv[i + 1]) >= 8) {
			piece = (uint32_t)atoi(argv[++i]);
		} else {
			fprintf(stderr, "usage: lz4_lane_model [--warps W] [--piece P]\n");
			return 2;
		}
	}
	const size_t n = 65536;
	const int bound = LZ4_compressBound((int)n);
	unsigned char *buf = malloc(n), *z = malloc((size_t)bound);
	struct seq *seqs[32];
	size_t ns[32];
	for (int l = 0; l < 32; l++)
		seqs[l] = malloc(sizeof(struct seq) * (n + 1));
	/* (LZP_N: lz_zarr_plane.h's profile, the Zarr v2 slots' planes) */
	static const int profiles[] = {LZP_FLOATS_SHUFFLED, LZP_FLOATS, LZP_TEXT, LZP_N};
	printf("| data | codec | sequences a stream | lane alone | a loop a run | a step a piece | "
	       "steps a warp |\n|---|---|---:|---:|---:|---:|---:|\n");
	for (size_t pi = 0; pi < sizeof profiles / sizeof *profiles; pi++) {
		for (int hc = 0; hc < 2; hc++) {
			double alone = 0, runs = 0, steps = 0, total = 0, turns = 0;
			for (int w = 0; w < warps; w++) {
				size_t longest = 0;
				for (int l = 0; l < 32; l++) {
					if (profiles[pi] == LZP_N)
						lz_zarr_plane(buf, n, (uint64_t)(w * 32 + l + 1));
					else
						lzp_fill(profiles[pi], buf, n, (uint64_t)(w * 32 + l + 1));
					int zn = hc ? LZ4_compress_HC((char *)buf, (char *)z, (int)n, bound, 9)
						    : LZ4_compress_fast((char *)buf, (char *)z, (int)n, bound, 1);
					ns[l] = parse(z, (size_t)zn, seqs[l]);
					total += (double)ns[l];
					longest = ns[l] > longest ? ns[l] : longest;
				}
				/* a loop a run: round r is every lane's r-th sequence */
				for (size_t r = 0; r < longest; r++) {
					int any_fast = 0, any_gen = 0, any_pat = 0;
					uint32_t max_lp = 0, max_pat = 0, max_far = 0;
					for (int l = 0; l < 32; l++) {
						if (r >= ns[l])
							continue;
						struct parts p = parts_of(&seqs[l][r]);
						alone += W_TOKEN + (p.fast ? W_FAST : W_GENERAL) + p.lp * W_PIECE +
							 (p.pattern ? W_PATTERN : 0) + p.mp * W_PIECE;
						any_fast |= p.fast;
						any_gen |= !p.fast;
						any_pat |= p.pattern;
						max_lp = p.lp > max_lp ? p.lp : max_lp;
						if (p.pattern)
							max_pat = p.mp > max_pat ? p.mp : max_pat;
						else
							max_far = p.mp > max_far ? p.mp : max_far;
					}
					runs += W_TOKEN + any_fast * W_FAST + any_gen * W_GENERAL +
						any_pat * W_PATTERN + (double)(max_lp + max_pat + max_far) * W_PIECE;
				}
				/* a step a piece: each lane at its own sequence and piece */
				size_t at[32] = {0};
				uint32_t left[32] = {0};
				for (;;) {
					int active = 0, any_fast = 0, any_gen = 0, any_pat = 0;
					for (int l = 0; l < 32; l++) {
						if (at[l] >= ns[l])
							continue;
						active = 1;
						struct parts p = parts_of(&seqs[l][at[l]]);
						if (!left[l]) { /* a new sequence: parsed in this step */
							any_fast |= p.fast;
							any_gen |= !p.fast;
							any_pat |= p.pattern;
							left[l] = p.lp + p.mp;
							if (!left[l]) { /* (nothing to put: the parse alone) */
								at[l]++;
								continue;
							}
						}
						if (--left[l] == 0)
							at[l]++;
					}
					if (!active)
						break;
					turns++;
					steps += W_PIECE + (any_fast || any_gen) * W_TOKEN +
						 any_fast * W_FAST + any_gen * W_GENERAL + any_pat * W_PATTERN;
				}
			}
			/* per sequence of a stream: the warp's cost over its 32 streams' sequences x 32 */
			double per = total / 32;
			printf("| %s | %s | %.0f | %.0f | %.0f (%.2fx) | %.0f (%.2fx) | %.0f |\n",
			       profiles[pi] == LZP_N ? "zarr-f32-top-plane" : lzp_name[profiles[pi]],
			       hc ? "lz4hc 9" : "lz4 fast", total / (32.0 * warps),
			       alone / 32 / per, runs / per, runs / alone * 32, steps / per,
			       steps / alone * 32, turns / warps);
		}
	}
	for (int l = 0; l < 32; l++)
		free(seqs[l]);
	free(buf), free(z);
	return 0;
}
