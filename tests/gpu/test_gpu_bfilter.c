/* test_gpu_bfilter.c - the GPU blosc filter pass (bfilter.cu) on every c-blosc/c-blosc2 fixture chunk in one batch, against the CPU blosc decoder. */
#include <cuda_runtime.h>
#include <libdeflate.h>
#include <lz4.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "bfilter.h"
#include "codecs/blosc.h"
#include "core/internal.h"
#include "gpu_check.h"

/*
 * Each chunk of tests/data/blosc and tests/data/blosc-filters with filters or a fill (as the
 * filter pass takes them: shuffles too, elements of no width, so no byte-plane reading) has its
 * streams decoded on the CPU into its place in one decode buffer, its stored bytes in one
 * staging buffer with room for its decoded size after them (the pass's second buffer), as the
 * CUDA engine lays them out; the pass runs once over all of them (chunks back to back, blocks
 * of many sizes in one grid, DELTA chunks needing the second launch); every chunk's bytes must
 * equal tsr_blosc_decode's (where the pass leaves them: decode buffer or staging), and the
 * staging guard after the last chunk stay intact. --corrupt (gpu-check's sanitizer runs) runs
 * the same batch: the pass has no input of its own to corrupt (its descriptions come from
 * headers the host checked). Chunks with a dictionary are left out: tsr_route_blosc keeps them
 * on the CPU (their streams decode only with the dictionary), so the pass never sees them.
 * Prints "skipped: no CUDA device" and passes where there is no GPU.
 */

#define GUARD 4096

struct chunk {
	char name[128];
	uint8_t *c, *want;
	size_t cn, n;
	uint64_t dec, stage;    /* offsets in the batch's buffers */
	int in_stage;           /* the result is at stage */
};

static uint8_t *slurp(const char *path, size_t *n_ret)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *b = (uint8_t *)tu_xmalloc((size_t)n);
	*n_ret = fread(b, 1, (size_t)n, f);
	fclose(f);
	return b;
}

/* The chunk's streams decoded into dec (its decoded size), filters not undone. */
static int streams_on_cpu(const struct chunk *k, const struct tsr_blosc_info *in, uint8_t *dec,
			  struct libdeflate_decompressor *dd)
{
	static struct tsr_blosc_stream sp[1 << 16];
	struct tsr_blosc_pipeline p;
	size_t n = 0;
	if (tsr_blosc_streams(k->c, k->cn, 0, NULL, sp, 1 << 16, &n, &p))
		return 1;
	for (size_t j = 0; j < n; j++) {
		const struct tsr_blosc_stream *s = &sp[j];
		uint8_t *o = dec + s->dst;
		const uint8_t *src = k->c + s->src;
		size_t got = 0;
		if (s->kind == TSR_BLOSC_STREAM_SET) {
			memset(o, s->value, s->n);
		} else if (s->kind == TSR_BLOSC_STREAM_COPY) {
			memcpy(o, src, s->n);
		} else if (in->codec == TSR_BLOSC_LZ4) {
			if (LZ4_decompress_safe((const char *)src, (char *)o, (int)s->csize, (int)s->n) !=
			    (int)s->n)
				return 1;
		} else if (in->codec == TSR_BLOSC_BLOSCLZ) {
			if (tsr_blosclz_decode(o, s->n, src, s->csize, &got) || got != s->n)
				return 1;
		} else if (in->codec == TSR_BLOSC_ZLIB) {
			if (libdeflate_zlib_decompress(dd, src, s->csize, o, s->n, &got) ||
			    got != s->n)
				return 1;
		} else if (ZSTD_decompress(o, s->n, src, s->csize) != s->n) {
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	int ndev = 0;
	if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
		printf("skipped: no CUDA device\n");
		return 0;
	}
	char dir[4096], path[8192];
	snprintf(dir, sizeof(dir), "%s", __FILE__);
	*strrchr(dir, '/') = 0;
	size_t cap = 1024, nk = 0, dec_total = 0, stage_total = 0, n_dict = 0;
	struct chunk *ks = (struct chunk *)tu_xmalloc(cap * sizeof(*ks));
	static const char *const sets[] = {"blosc", "blosc-filters"};
	for (int set = 0; set < 2; set++) {
		snprintf(path, sizeof(path), "%s/../data/%s/index.tsv", dir, sets[set]);
		FILE *ix = fopen(path, "r");
		if (!ix) {
			fprintf(stderr, "cannot open %s\n", path);
			return 1;
		}
		char line[4096];
		while (fgets(line, sizeof(line), ix)) {
			char name[128];
			if (line[0] == '#' || sscanf(line, "%127s", name) != 1)
				continue;
			struct chunk k;
			memset(&k, 0, sizeof(k));
			snprintf(k.name, sizeof(k.name), "%s", name);
			snprintf(path, sizeof(path), "%s/../data/%s/%s.blosc", dir, sets[set], name);
			k.c = slurp(path, &k.cn);
			struct tsr_blosc_info in;
			if (!k.c || tsr_blosc_info(k.c, k.cn, &in) || in.nbytes == 0) {
				free(k.c);
				continue;
			}
			if (in.use_dict) {
				n_dict++;
				free(k.c);
				continue;
			}
			k.n = (size_t)in.nbytes;
			k.want = (uint8_t *)tu_xmalloc(k.n);
			size_t got = 0;
			if (tsr_blosc_decode(k.want, k.n, k.c, k.cn, NULL, &got) != TSR_OK) {
				free(k.c);
				free(k.want);
				continue;
			}
			if (nk == cap)
				ks = (struct chunk *)realloc(ks, (cap *= 2) * sizeof(*ks));
			/* decoded bytes 16-aligned, staging: the stored bytes, room for the decoded */
			k.dec = dec_total;
			dec_total += (k.n + 15) & ~(size_t)15;
			k.stage = stage_total;
			stage_total += ((k.cn > k.n ? k.cn : k.n) + 15) & ~(size_t)15;
			ks[nk++] = k;
		}
		fclose(ix);
	}
	uint8_t *hdec = (uint8_t *)tu_xmalloc(dec_total), *hstage = (uint8_t *)tu_xmalloc(stage_total + GUARD);
	memset(hdec, 0xa5, dec_total);
	memset(hstage, 0x5a, stage_total + GUARD);
	struct tsr_cuda_bfilter *desc = (struct tsr_cuda_bfilter *)tu_xmalloc(nk * sizeof(*desc));
	struct libdeflate_decompressor *dd = libdeflate_alloc_decompressor();
	size_t nd = 0, with_delta = 0, fills = 0;
	uint64_t blocks = 0;
	int passes = 1, fails = 0;
	for (size_t i = 0; i < nk; i++) {
		struct chunk *k = &ks[i];
		struct tsr_blosc_info in;
		tsr_blosc_info(k->c, k->cn, &in);
		memcpy(hstage + k->stage, k->c, k->cn);
		if (streams_on_cpu(k, &in, hdec + k->dec, dd)) {
			fprintf(stderr, "%s: streams do not decode on the CPU\n", k->name);
			fails++;
			k->n = 0; /* (one failure, not a second one for its bytes) */
			continue;
		}
		struct tsr_blosc_pipeline p;
		tsr_blosc_pipeline(&in, 0, &p);
		if (!tsr_cuda_bfilter_describe(&p, k->dec, k->stage, blocks, &desc[nd])) {
			k->n = 0; /* nothing for the pass */
			continue;
		}
		k->in_stage = tsr_cuda_bfilter_in_stage(&desc[nd]);
		int np = tsr_cuda_bfilter_passes(&desc[nd]);
		passes = np > passes ? np : passes;
		with_delta += np == 2;
		fills += desc[nd].plen > 0;
		blocks += desc[nd].nblocks;
		nd++;
	}
	uint8_t *ddec, *dstage;
	struct tsr_cuda_bfilter *ddesc;
	CK(cudaMalloc((void **)&ddec, dec_total));
	CK(cudaMalloc((void **)&dstage, stage_total + GUARD));
	CK(cudaMalloc((void **)&ddesc, nd * sizeof(*desc)));
	CK(cudaMemcpy(ddec, hdec, dec_total, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(dstage, hstage, stage_total + GUARD, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(ddesc, desc, nd * sizeof(*desc), cudaMemcpyHostToDevice));
	int ke = tsr_cuda_bfilter_launch(ddec, dstage, ddesc, nd, blocks, passes, NULL);
	if (ke) {
		fprintf(stderr, "launch: %s\n", cudaGetErrorString((cudaError_t)ke));
		return 1;
	}
	CK(cudaDeviceSynchronize());
	CK(cudaMemcpy(hdec, ddec, dec_total, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(hstage, dstage, stage_total, cudaMemcpyDeviceToHost));
	uint8_t *guard = (uint8_t *)tu_xmalloc(GUARD);
	CK(cudaMemcpy(guard, dstage + stage_total, GUARD, cudaMemcpyDeviceToHost));
	for (size_t j = 0; j < GUARD; j++)
		if (guard[j] != 0x5a) {
			fprintf(stderr, "the pass wrote past the staging buffer (byte %zu)\n", j);
			fails++;
			break;
		}
	size_t checked = 0, differ = 0;
	for (size_t i = 0; i < nk; i++) {
		const struct chunk *k = &ks[i];
		if (!k->n)
			continue;
		checked++;
		const uint8_t *res = k->in_stage ? hstage + k->stage : hdec + k->dec;
		if (memcmp(res, k->want, k->n)) {
			size_t at = 0;
			while (res[at] == k->want[at])
				at++;
			fprintf(stderr, "%s: the GPU pass differs from the CPU decode at byte %zu\n",
				k->name, at);
			differ++;
		}
	}
	fails += (int)differ;
	printf("blosc filter pass on the GPU: %zu chunks (%llu blocks, %zu with DELTA, %zu fills) "
	       "in one batch, %zu of %zu equal to the CPU decode (%zu dictionary chunks left out), "
	       "%d failures\n", nd, (unsigned long long)blocks, with_delta, fills, checked - differ,
	       checked, n_dict, fails);
	if (nd < 250 || !with_delta || !fills) {
		/* not vacuous (the fixtures give 255 chunks, 45 with DELTA, 10 fills) */
		fprintf(stderr, "too few chunks for the pass: %zu\n", nd);
		fails++;
	}
	cudaFree(ddec);
	cudaFree(dstage);
	cudaFree(ddesc);
	libdeflate_free_decompressor(dd);
	return fails ? 1 : 0;
}
