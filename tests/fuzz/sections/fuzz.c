/* fuzz.c - sections of multi-file stores: the input unpacks into a directory
 * (store_archive.h: Zarr v2/v3 stores with shards, sparse Blosc2 frames; when the directory
 * is no store, its first file: FITS files and contiguous frames); the tail picks an array of
 * tsr_list_arrays (or an HDU) and up to 8 sections of integers and slices (any step, negative and
 * out-of-range bounds). Each section is read with tsr_read and, when the whole array also
 * reads, compared with the same section cut from the whole by NumPy's rules: a mismatch
 * aborts, so wrong bytes count as findings, not only crashes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../read_whole.h"
#include "../store_archive.h"
#include "tessera.h"

#define CAP (1u << 20)

struct axis {
	int is_index;
	int64_t start, step, count; /* the positions start + k * step, k < count */
};

/* NumPy's slice.indices and integer indexing on an axis of length len; -1 when the index is
 * out of range (the read must fail too). Bounds stay within +-2^40 here, so sums cannot wrap. */
static int tsr_fuzz_axis(const struct tsr_sel_item *it, int64_t len, struct axis *ax)
{
	memset(ax, 0, sizeof(*ax));
	if (it->kind == TSR_SEL_INDEX) {
		int64_t i = it->start < 0 ? it->start + len : it->start;
		if (i < 0 || i >= len)
			return -1;
		ax->is_index = 1;
		ax->start = i;
		ax->step = 1;
		ax->count = 1;
		return 0;
	}
	int64_t step = it->has_step ? it->step : 1, start, stop;
	if (step > 0) {
		start = it->has_start ? it->start : 0;
		stop = it->has_stop ? it->stop : len;
		start = start < 0 ? (start + len < 0 ? 0 : start + len) : (start > len ? len : start);
		stop = stop < 0 ? (stop + len < 0 ? 0 : stop + len) : (stop > len ? len : stop);
		ax->count = stop > start ? (stop - start + step - 1) / step : 0;
	} else {
		start = it->has_start ? it->start : len - 1;
		stop = it->has_stop ? it->stop : -1 - len; /* "to the beginning" */
		start = start < 0 ? (start + len < 0 ? -1 : start + len) : (start >= len ? len - 1 : start);
		stop = stop < 0 ? (stop + len < 0 ? -1 : stop + len) : (stop >= len ? len - 1 : stop);
		ax->count = start > stop ? (start - stop + (-step) - 1) / (-step) : 0;
	}
	ax->start = start;
	ax->step = step;
	return 0;
}

/* One bound from the tail: small values around the axis, or an extreme. */
static int64_t tsr_fuzz_bound(uint8_t b, int64_t len, int *extreme)
{
	switch (b % 16) {
	case 0: *extreme = 1; return INT64_MIN;
	case 1: *extreme = 1; return INT64_MAX;
	case 2: return len;
	case 3: return -len;
	default: return (int8_t)b % (len + 3);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	static struct tsr_context *ctx;
	static char dir[64];
	if (!ctx) {
		struct tsr_context_options co = {sizeof(co), 1};
		tsr_context_create(&co, &ctx);
		snprintf(dir, sizeof(dir), "/dev/shm/tsr_fuzz_sections_%d", (int)getpid());
	}
	const uint8_t *t;
	size_t tn;
	char first[256];
	tsr_fuzz_unpack(dir, data, n, &t, &tn, first);
	char **names = NULL;
	size_t count = 0;
	const char *name = NULL, *path = dir;
	int hdu = -1;
	if (tsr_list_arrays(dir, &names, &count) == TSR_OK && count) {
		name = names[(tn ? t[0] : 0) % count];
	} else if (first[0]) {
		/* not a store: its first file (a FITS file, a contiguous frame), at an HDU */
		path = first;
		hdu = tn ? (int)(t[0] % 4) - 1 : -1;
	}
	struct tsr_open_options oo = {sizeof(oo), hdu, 0, name, -1};
	struct tsr_array *a = NULL;
	if (tsr_open(ctx, path, &oo, &a) != TSR_OK)
		goto out;
	struct tsr_array_info info = {.struct_size = sizeof(info)};
	if (tsr_array_info(a, &info) != TSR_OK)
		goto out;
	size_t w = tsr_dtype_size(info.dtype);
	if (tsr_fuzz_nbytes(info.chunk_shape, info.ndim, w) > (64u << 20))
		goto out;
	/* the whole, when small: the reference the sections are cut from */
	size_t whole_n = tsr_fuzz_nbytes(info.shape, info.ndim, w);
	uint8_t *whole = NULL;
	if (whole_n <= CAP) {
		whole = malloc(whole_n ? whole_n : 1);
		struct tsr_buffer dst = {whole, whole_n, TSR_MEM_HOST, NULL};
		if (tsr_read(a, NULL, &dst, NULL, NULL) != TSR_OK) {
			free(whole);
			whole = NULL;
		}
	}
	size_t at = tn ? 1 : 0;
	for (int s = 0; s < 8 && at + (size_t)info.ndim * 4 + 1 <= tn; s++) {
		struct tsr_selection sel = {0};
		struct axis ax[TSR_MAX_DIM];
		int extreme = 0, valid = 1;
		int threads = t[at++] & 1;
		for (int d = 0; d < info.ndim; d++, at += 4) {
			const uint8_t *b = t + at;
			struct tsr_sel_item *it = &sel.items[sel.nitems++];
			int64_t len = info.shape[d];
			if (b[0] % 4 == 0) {
				it->kind = TSR_SEL_INDEX;
				it->start = tsr_fuzz_bound(b[1], len, &extreme);
			} else {
				it->kind = TSR_SEL_SLICE;
				it->has_start = (b[0] >> 2) & 1;
				it->has_stop = (b[0] >> 3) & 1;
				it->has_step = (b[0] >> 4) & 1;
				it->start = it->has_start ? tsr_fuzz_bound(b[1], len, &extreme) : 0;
				it->stop = it->has_stop ? tsr_fuzz_bound(b[2], len, &extreme) : 0;
				it->step = it->has_step ? (b[3] % 16 == 0 ? INT64_MIN : (int8_t)b[3] % 9) : 0;
				if (it->has_step && (it->step == 0 || it->step == INT64_MIN))
					extreme = 1; /* refused by the library; nothing to compare */
			}
			if (!extreme && tsr_fuzz_axis(it, len, &ax[d]))
				valid = 0;
		}
		int ndim;
		int64_t shape[TSR_MAX_DIM];
		if (tsr_selection_shape(a, &sel, &ndim, shape) != TSR_OK)
			continue;
		size_t out_n = tsr_fuzz_nbytes(shape, ndim, w);
		if (out_n > CAP)
			continue;
		uint8_t *out = malloc(out_n ? out_n : 1);
		struct tsr_buffer dst = {out, out_n, TSR_MEM_HOST, NULL};
		struct tsr_read_options ro = {.struct_size = sizeof(ro)};
		ro.nthreads = threads ? 0 : 1;
		int st = tsr_read(a, &sel, &dst, &ro, NULL);
		if (st != TSR_OK && whole && !extreme && valid) {
			fprintf(stderr, "the whole reads but a section of it fails: %s\n",
				tsr_errmsg());
			abort();
		}
		if (st == TSR_OK && whole && !extreme) {
			if (!valid) {
				fprintf(stderr, "section read although an index is out of range\n");
				abort();
			}
			/* walk the section's positions in C order */
			int64_t k[TSR_MAX_DIM] = {0}, total = 1;
			for (int d = 0; d < info.ndim; d++)
				total *= ax[d].count;
			for (int64_t e = 0; e < total; e++) {
				int64_t off = 0;
				for (int d = 0; d < info.ndim; d++)
					off = off * info.shape[d] + ax[d].start + k[d] * ax[d].step;
				if (memcmp(out + (size_t)e * w, whole + (size_t)off * w, w) != 0) {
					fprintf(stderr, "section element %lld differs from the whole's "
						"element %lld\n", (long long)e, (long long)off);
					abort();
				}
				for (int d = info.ndim - 1; d >= 0; d--) {
					if (++k[d] < ax[d].count)
						break;
					k[d] = 0;
				}
			}
		}
		free(out);
	}
	free(whole);
out:
	tsr_array_free(a);
	tsr_free(names);
	return 0;
}
