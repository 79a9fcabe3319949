/* test_gpu_inflate_emu.c - the GPU inflate kernel's decoding code, run on the CPU as a one-lane warp, against libdeflate. */
#define TSR_INFLATE_EMU 1
#include "inflate_core.h"

#include "gpu_corrupt.h"

/*
 * The same source the kernel runs (inflate_core.h), built as C with a "warp" of one lane, so
 * every machine (CI has no GPU) checks the decoding logic: table building, all block types,
 * framings, checksums and corrupt input. What only the GPU exercises (shuffles, the register
 * input window, 32-lane copies) is left to test_gpu_inflate.
 */

static struct tsr_inflate_smem smem;

#define GUARD 64

/* Decodes z at a given misalignment into a poisoned buffer with a guard after cap. */
static int emu_decode(const unsigned char *z, size_t zn, unsigned misalign, unsigned char *out,
		      size_t cap, unsigned framing, size_t *got, int *guard_ok)
{
	unsigned char *in = (unsigned char *)tu_xmalloc(zn + 8);
	memcpy(in + misalign, z, zn);
	memset(out, 0xa5, cap + GUARD);
	int st = tsr_inflate_stream(&smem, in + misalign, zn, out, cap, framing, got);
	*guard_ok = 1;
	for (size_t i = cap; i < cap + GUARD; i++)
		if (out[i] != 0xa5)
			*guard_ok = 0;
	free(in);
	return st;
}

int main(void)
{
	size_t ncases, nbad, i, bytes = 0;
	int failures = 0, disagree_ok = 0;
	struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
	char name[160];

	struct tu_case *cs = tu_make_cases(0, &ncases);
	tu_build_all(cs, ncases);
	for (i = 0; i < ncases; i++) {
		const struct tu_case *c = &cs[i];
		unsigned char *out = (unsigned char *)tu_xmalloc(c->cap + GUARD);
		size_t got;
		int guard_ok;
		int st = emu_decode(c->z, c->zn, (unsigned)(i % 4), out, c->cap,
				    (unsigned)c->framing | (i % 5 == 4 ? TSR_CUDA_INFLATE_NO_CHECKSUM : 0),
				    &got, &guard_ok);
		if (st != TSR_CUDA_INFLATE_OK || got != c->size || memcmp(out, c->raw, c->size) ||
		    !guard_ok) {
			tu_case_name(c, name, sizeof name);
			fprintf(stderr, "FAIL %s: status %d (%s), %zu of %zu bytes, guard %s\n", name, st,
				tsr_cuda_inflate_status_name(st), got, c->size, guard_ok ? "ok" : "hit");
			failures++;
		}
		bytes += c->size;
		free(out);
	}
	printf("valid: %zu streams, %.1f MB, %d failed\n", ncases, bytes / 1e6, failures);

	/* libdeflate itself agrees with the source data (the reference is sound) */
	for (i = 0; i < ncases; i++) {
		const struct tu_case *c = &cs[i];
		unsigned char *out;
		size_t rgot;
		if (c->comp == TU_MULTI)
			continue;
		out = (unsigned char *)tu_xmalloc(c->size);
		if (tu_ref_decode(d, c->framing, c->z, c->zn, out, c->size, &rgot) || rgot != c->size ||
		    memcmp(out, c->raw, c->size)) {
			tu_case_name(c, name, sizeof name);
			fprintf(stderr, "libdeflate disagrees on %s\n", name);
			failures++;
		}
		free(out);
	}

	struct tu_bad *bad = tu_make_bad(cs, ncases, 3, &nbad);
	int bad_fail = 0, nrej = 0;
	for (i = 0; i < nbad; i++) {
		const struct tu_bad *x = &bad[i];
		unsigned char *out = (unsigned char *)tu_xmalloc(x->cap + GUARD);
		size_t got;
		int guard_ok;
		int st = emu_decode(x->z, x->zn, (unsigned)(i % 4), out, x->cap, (unsigned)x->framing,
				    &got, &guard_ok);
		nrej += st != TSR_CUDA_INFLATE_OK;
		if (!guard_ok) {
			fprintf(stderr, "%s: wrote past cap\n", x->what);
			bad_fail++;
		}
		bad_fail += tu_judge_bad(d, x, st, out, got, &disagree_ok);
		free(out);
	}
	printf("corrupt: %zu streams, %d rejected (as libdeflate, and %d where only zlib or the gzip "
	       "header CRC libdeflate skips reject too), %d wrong\n",
	       nbad, nrej, disagree_ok, bad_fail);
	failures += bad_fail;

	/* the CRC-32 combination the warp uses, with 32 segments as on the GPU */
	struct tu_rng r = tu_seed(99);
	for (int t = 0; t < 200; t++) {
		size_t n = (size_t)(tu_next(&r) % 5000), seg = (n + 31) / 32, k;
		unsigned char *p = (unsigned char *)tu_xmalloc(n);
		for (k = 0; k < n; k++)
			p[k] = (unsigned char)tu_next(&r);
		uint32_t crc = 0;
		for (k = 0; k < 32; k++) {
			size_t a = k * seg < n ? k * seg : n, b = n - a < seg ? n : a + seg;
			crc = tsr_crc32_combine(crc, tsr_crc32_range(p + a, b - a), b - a);
		}
		if (crc != (uint32_t)crc32(0, p, (uInt)n) ||
		    tsr_adler32(p, n) != (uint32_t)adler32(1, p, (uInt)n)) {
			fprintf(stderr, "checksum mismatch at n=%zu\n", n);
			failures++;
		}
		free(p);
	}

	tu_free_bad(bad, nbad);
	tu_free_cases(cs, ncases);
	libdeflate_free_decompressor(d);
	if (failures) {
		printf("FAILED: %d\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
