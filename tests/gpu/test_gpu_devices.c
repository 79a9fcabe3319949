/* test_gpu_devices.c - reads with a device list equal the single-device read bit for bit (one GPU: lists [0] and [0, 0]; two: [0, 1]); ordinals that are not there refused.
 *
 * Usage: test_gpu_devices [CASES]. CASES: lines "path<TAB>hdu<TAB>array<TAB>dtype<TAB>section"
 * ("-": none; paths under $TSR_CORPUS), as scripts/gpu-engine-check writes them from the corpus
 * manifests; without it, a few corpus cases built in. For every case: the read with no device
 * named (the single-device path) against tsr_read on [0], tsr_read_devices on [0], on [0, 0]
 * (every step of a split read, on one GPU: two slabs, two threads) and on [0, 1] where there
 * are two GPUs (each slab in its own device's memory); batches of 5 copies of a file and a
 * stream of them split the same ways. Same status, same bytes. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera.h"

static int g_fail, g_cases, g_skipped;

#define FAIL(...)                                                                          \
	do {                                                                               \
		fprintf(stderr, "FAIL: " __VA_ARGS__);                                     \
		fputc('\n', stderr);                                                       \
		g_fail++;                                                                  \
	} while (0)

static const char *const k_builtin[] = {
	"fits/c_gzip2_i32_tiles.fits\t1\t-\t-\t-",
	"fits/c_rice_f32_sd1.fits\t1\t-\t-\t-",
	"fits/c_gzip1_u8_tiles.fits\t1\t-\t-\t5:90,7:150:4",
	"fits/u_scaled_blank.fits\t0\t-\t-\t3:100:2,::-3",
	"zarr2/zstd_i32_3d.zarr\t-\t-\t-\t-",
	"zarr2/gzip_u16.zarr\t-\t-\t-\t::-1,3:150",
	"zarr2/blosc_lz4_shuffle_i16.zarr\t-\t-\t-\t-",
	"zarr2/none_f64.zarr\t-\t-\t-\t-",
	"zarr3/raw_f4.zarr\t-\t-\t-\t3:11,10:60,5:40",
};

struct rcase {
	char path[4096];
	int hdu;
	char array[1024], dtype[1024], section[1024];
};

static int parse_case(const char *corpus, const char *line, struct rcase *c)
{
	char f[5][1024];
	int n = 0;
	const char *p = line;
	while (n < 5) {
		const char *e = strchr(p, '\t');
		size_t len = e ? (size_t)(e - p) : strcspn(p, "\r\n");
		if (len >= sizeof(f[0]))
			return -1;
		memcpy(f[n], p, len);
		f[n][len] = 0;
		n++;
		if (!e)
			break;
		p = e + 1;
	}
	if (n != 5)
		return -1;
	snprintf(c->path, sizeof(c->path), "%s/%s", corpus, f[0]);
	c->hdu = strcmp(f[1], "-") ? atoi(f[1]) : -1;
	snprintf(c->array, sizeof(c->array), "%s", strcmp(f[2], "-") ? f[2] : "");
	snprintf(c->dtype, sizeof(c->dtype), "%s", strcmp(f[3], "-") ? f[3] : "");
	snprintf(c->section, sizeof(c->section), "%s", strcmp(f[4], "-") ? f[4] : "");
	return 0;
}

static void open_opts(const struct rcase *c, struct tsr_open_options *oo)
{
	memset(oo, 0, sizeof(*oo));
	oo->struct_size = sizeof(*oo);
	oo->hdu = c->hdu;
	oo->level = -1;
	oo->array = c->array[0] ? c->array : NULL;
	oo->dtype = c->dtype[0] ? c->dtype : NULL;
}

/* Device memory of n bytes on device d, or NULL (the failure counted). */
static void *dev_alloc(int d, size_t n)
{
	void *p = NULL;
	if (tsr_cuda_malloc_on(d, n ? n : 1, &p)) {
		FAIL("cudaMalloc of %zu bytes on device %d: %s", n, d, tsr_errmsg());
		return NULL;
	}
	return p;
}

/* Copies device memory back; 0 on success. */
static int back(void *host, const void *dev, size_t n)
{
	if (n && tsr_cuda_memcpy_to_host(host, dev, n)) {
		FAIL("copy back: %s", tsr_errmsg());
		return -1;
	}
	return 0;
}

/* Compares a variant's status and bytes with the reference's. */
static void same(const char *what, const char *path, int st_ref, int st, const void *ref,
		 const void *got, size_t n)
{
	if (st != st_ref) {
		FAIL("%s: %s: status %s, the single-device read %s (%s)", path, what,
		     tsr_status_name(st), tsr_status_name(st_ref), tsr_errmsg());
		return;
	}
	if (st == TSR_OK && n && memcmp(ref, got, n))
		FAIL("%s: %s: bytes differ from the single-device read", path, what);
}

/* A split array read on devs (n of them) into slabs, copied back into out (total bytes). */
static int split_read(struct tsr_array *a, const struct tsr_selection *sel, const int *devs,
		      int n, size_t total, int64_t rows, unsigned char *out)
{
	int axis;
	int64_t first[4], count[4];
	if (tsr_read_slabs(a, sel, n, &axis, first, count)) {
		FAIL("tsr_read_slabs: %s", tsr_errmsg());
		return TSR_E_INTERNAL;
	}
	size_t row = rows > 0 ? total / (size_t)rows : 0;
	struct tsr_buffer dsts[4];
	void *mem[4] = {0};
	for (int j = 0; j < n; j++) {
		size_t nb = axis < 0 ? (j == 0 ? total : 0) : (size_t)count[j] * row;
		mem[j] = dev_alloc(devs[j], nb);
		dsts[j] = (struct tsr_buffer){mem[j], nb, TSR_MEM_CUDA, NULL};
	}
	struct tsr_read_options ro = {.struct_size = sizeof(ro), .devices = devs, .ndevices = n};
	int st = tsr_read_devices(a, sel, dsts, &ro, NULL);
	size_t at = 0;
	for (int j = 0; j < n; j++) {
		if (st == TSR_OK && at + dsts[j].nbytes <= total)
			back(out + at, mem[j], dsts[j].nbytes);
		at += dsts[j].nbytes;
		tsr_cuda_free(mem[j]);
	}
	if (st == TSR_OK && at != total)
		FAIL("slabs hold %zu bytes, the read %zu", at, total);
	return st;
}

static void one_case(struct tsr_context *ctx, const struct rcase *c, int ndev)
{
	struct tsr_open_options oo;
	open_opts(c, &oo);
	struct tsr_array *a = NULL;
	struct tsr_selection sel;
	if (tsr_selection_parse(c->section, &sel) || tsr_open(ctx, c->path, &oo, &a)) {
		g_skipped++; /* (a case that is an error to open: the GPU corpus test covers it) */
		return;
	}
	int ndim;
	int64_t shape[TSR_MAX_DIM];
	struct tsr_array_info in = {.struct_size = sizeof(in)};
	if (tsr_selection_shape(a, &sel, &ndim, shape) || tsr_array_info(a, &in)) {
		tsr_array_free(a);
		g_skipped++;
		return;
	}
	g_cases++;
	size_t total = tsr_dtype_size(in.dtype);
	if (in.dtype >= TSR_DTYPE_RAW)
		total = (size_t)(in.dtype - TSR_DTYPE_RAW);
	for (int i = 0; i < ndim; i++)
		total *= (size_t)shape[i];
	unsigned char *ref = calloc(1, total + 1), *got = calloc(1, total + 1);
	void *d0 = dev_alloc(0, total);
	if (!ref || !got || !d0)
		goto out;
	struct tsr_buffer b0 = {d0, total, TSR_MEM_CUDA, NULL};
	/* the single-device path: no device named */
	int st_ref = tsr_read(a, &sel, &b0, NULL, NULL);
	if (st_ref == TSR_OK)
		back(ref, d0, total);
	const int zero[2] = {0, 0}, pair[2] = {0, 1};
	/* [0] through tsr_read */
	struct tsr_read_options r0 = {.struct_size = sizeof(r0), .devices = zero, .ndevices = 1};
	int st = tsr_read(a, &sel, &b0, &r0, NULL);
	if (st == TSR_OK)
		back(got, d0, total);
	same("tsr_read on [0]", c->path, st_ref, st, ref, got, total);
	/* [0] through tsr_read_devices */
	memset(got, 0, total);
	st = tsr_read_devices(a, &sel, &b0, &r0, NULL);
	if (st == TSR_OK)
		back(got, d0, total);
	same("tsr_read_devices on [0]", c->path, st_ref, st, ref, got, total);
	/* [0, 0]: two slabs, two threads, one GPU */
	int64_t rows = 0;
	{
		int axis;
		int64_t first[2], count[2];
		if (tsr_read_slabs(a, &sel, 2, &axis, first, count) == TSR_OK)
			rows = axis < 0 ? 1 : count[0] + count[1];
	}
	memset(got, 0, total);
	st = split_read(a, &sel, zero, 2, total, rows, got);
	same("tsr_read_devices on [0, 0]", c->path, st_ref, st, ref, got, total);
	if (ndev >= 2) {
		memset(got, 0, total);
		st = split_read(a, &sel, pair, 2, total, rows, got);
		same("tsr_read_devices on [0, 1]", c->path, st_ref, st, ref, got, total);
	}
out:
	tsr_cuda_free(d0);
	free(ref);
	free(got);
	tsr_array_free(a);
}

/* A batch of 5 copies of a case's file, and a stream of them, split over devices. */
static void batch_case(struct tsr_context *ctx, const struct rcase *c, int ndev)
{
	enum { N = 5 };
	struct tsr_open_options oo;
	open_opts(c, &oo);
	struct tsr_selection sel;
	struct tsr_array *a = NULL;
	int ndim;
	int64_t shape[TSR_MAX_DIM];
	struct tsr_array_info in = {.struct_size = sizeof(in)};
	if (tsr_selection_parse(c->section, &sel) || tsr_open(ctx, c->path, &oo, &a))
		return;
	int ok = tsr_selection_shape(a, &sel, &ndim, shape) == TSR_OK &&
		 tsr_array_info(a, &in) == TSR_OK && in.dtype < TSR_DTYPE_RAW;
	tsr_array_free(a);
	if (!ok)
		return;
	size_t per = tsr_dtype_size(in.dtype);
	for (int i = 0; i < ndim; i++)
		per *= (size_t)shape[i];
	const size_t total = N * per;
	const char *paths[N];
	for (int i = 0; i < N; i++)
		paths[i] = c->path;
	unsigned char *ref = calloc(1, total + 1), *got = calloc(1, total + 1);
	void *d0 = dev_alloc(0, total);
	if (!ref || !got || !d0)
		goto out;
	struct tsr_buffer b0 = {d0, total, TSR_MEM_CUDA, NULL};
	int st_ref = tsr_read_batch(ctx, paths, N, &oo, &sel, &b0, NULL, NULL);
	if (st_ref == TSR_OK)
		back(ref, d0, total);
	const int zero[2] = {0, 0}, pair[2] = {0, 1};
	for (int v = 0; v < (ndev >= 2 ? 3 : 2); v++) {
		const int *devs = v == 2 ? pair : zero;
		int n = v == 0 ? 1 : 2;
		struct tsr_buffer dsts[2];
		void *mem[2] = {0};
		for (int j = 0; j < n; j++) {
			size_t f, k;
			tsr_device_share(N, n, j, &f, &k);
			mem[j] = dev_alloc(devs[j], k * per);
			dsts[j] = (struct tsr_buffer){mem[j], k * per, TSR_MEM_CUDA, NULL};
		}
		struct tsr_read_options ro = {.struct_size = sizeof(ro), .devices = devs,
					      .ndevices = n};
		memset(got, 0, total);
		int st = tsr_read_batch_devices(ctx, paths, N, &oo, &sel, dsts, &ro, NULL);
		size_t at = 0;
		for (int j = 0; j < n; j++) {
			if (st == TSR_OK)
				back(got + at, mem[j], dsts[j].nbytes);
			at += dsts[j].nbytes;
		}
		char what[64];
		snprintf(what, sizeof(what), "tsr_read_batch_devices on [%d%s]", devs[0],
			 n == 1 ? "" : devs[1] ? ", 1" : ", 0");
		same(what, c->path, st_ref, st, ref, got, total);
		/* the stream of the same files, 4 a batch (a short last batch), split alike */
		struct tsr_stream *s = NULL;
		struct tsr_stream_options so = {.struct_size = sizeof(so), .files_per_batch = 4};
		memset(got, 0, total);
		int sst = tsr_stream_open(ctx, paths, N, &oo, &sel, &so, &s);
		size_t done = 0, nf = 0;
		while (sst == TSR_OK && done < N) {
			size_t want = N - done < 4 ? N - done : 4;
			for (int j = 0; j < n; j++) {
				size_t f, k;
				tsr_device_share(want, n, j, &f, &k);
				dsts[j].nbytes = k * per;
			}
			sst = tsr_stream_next_devices(s, dsts, &ro, &nf, NULL);
			if (sst == TSR_OK && nf != want) {
				FAIL("%s: stream batch of %zu files, expected %zu", c->path, nf, want);
				break;
			}
			size_t off = done * per;
			for (int j = 0; j < n && sst == TSR_OK; j++) {
				back(got + off, mem[j], dsts[j].nbytes);
				off += dsts[j].nbytes;
			}
			done += nf;
		}
		tsr_stream_free(s);
		snprintf(what + strlen(what), sizeof(what) - strlen(what), " (stream)");
		same(what, c->path, st_ref, sst, ref, got, total);
		for (int j = 0; j < n; j++)
			tsr_cuda_free(mem[j]);
	}
out:
	tsr_cuda_free(d0);
	free(ref);
	free(got);
}

/* An ordinal that is not there, and (two GPUs) a destination on another device. */
static void refusals(struct tsr_context *ctx, const char *corpus, int ndev)
{
	char path[4096], want[64], count[64];
	snprintf(path, sizeof(path), "%s/zarr2/zstd_i32_3d.zarr", corpus);
	struct tsr_array *a = NULL;
	if (tsr_open(ctx, path, NULL, &a)) {
		FAIL("%s: %s", path, tsr_errmsg());
		return;
	}
	const size_t total = 12 * 80 * 90 * 4;
	void *d0 = dev_alloc(0, total);
	struct tsr_buffer b0 = {d0, total, TSR_MEM_CUDA, NULL};
	const int missing = ndev;
	struct tsr_read_options ro = {.struct_size = sizeof(ro), .devices = &missing, .ndevices = 1};
	snprintf(want, sizeof(want), "CUDA device %d", ndev);
	snprintf(count, sizeof(count), "%d CUDA device", ndev);
	int st = tsr_read(a, NULL, &b0, &ro, NULL);
	if (st != TSR_E_NO_DEVICE || !strstr(tsr_errmsg(), want) || !strstr(tsr_errmsg(), count))
		FAIL("device %d: %s (%s), expected TSR_E_NO_DEVICE naming it and the count", ndev,
		     tsr_status_name(st), tsr_errmsg());
	else
		printf("device %d refused: %s\n", ndev, tsr_errmsg());
	/* a caller built before the devices fields: its struct_size ends before them, so what
	 * lies there is not read (the read runs on the destination's device) */
	ro.struct_size = offsetof(struct tsr_read_options, devices);
	st = tsr_read(a, NULL, &b0, &ro, NULL);
	if (st != TSR_OK)
		FAIL("a read with the older struct_size: %s (%s)", tsr_status_name(st), tsr_errmsg());
	ro.struct_size = sizeof(ro);
	void *p = NULL;
	if (tsr_cuda_malloc_on(ndev, 16, &p) != TSR_E_NO_DEVICE || p)
		FAIL("tsr_cuda_malloc_on(%d) did not refuse", ndev);
	int owner = -2;
	if (tsr_cuda_pointer_device(d0, &owner) || owner != 0)
		FAIL("tsr_cuda_pointer_device of device 0 memory: %d", owner);
	if (ndev >= 2) {
		/* memory of device 1, read on device 0: refused; no device named: read on 1 */
		void *d1 = dev_alloc(1, total);
		struct tsr_buffer b1 = {d1, total, TSR_MEM_CUDA, NULL};
		const int zero = 0;
		ro.devices = &zero;
		st = tsr_read(a, NULL, &b1, &ro, NULL);
		if (st != TSR_E_INVALID_ARG || !strstr(tsr_errmsg(), "CUDA device 1"))
			FAIL("device 1 memory read on device 0: %s (%s)", tsr_status_name(st),
			     tsr_errmsg());
		unsigned char *h0 = malloc(total), *h1 = malloc(total);
		if (h0 && h1 && tsr_read(a, NULL, &b0, NULL, NULL) == TSR_OK &&
		    tsr_read(a, NULL, &b1, NULL, NULL) == TSR_OK && !back(h0, d0, total) &&
		    !back(h1, d1, total)) {
			if (memcmp(h0, h1, total))
				FAIL("the read into device 1 memory differs from device 0's");
		} else {
			FAIL("reads into device 0 and device 1 memory: %s", tsr_errmsg());
		}
		free(h0);
		free(h1);
		tsr_cuda_free(d1);
	}
	tsr_cuda_free(d0);
	tsr_array_free(a);
}

int main(int argc, char **argv)
{
	int ndev = 0;
	if (tsr_cuda_device_count(&ndev) || ndev < 1) {
		printf("skipped: no CUDA device (%s)\n", tsr_errmsg());
		return 0;
	}
	const char *corpus = getenv("TSR_CORPUS");
	if (!corpus)
		corpus = "corpus";
	struct tsr_context *ctx = NULL;
	if (tsr_context_create(NULL, &ctx)) {
		fprintf(stderr, "context: %s\n", tsr_errmsg());
		return 1;
	}
	printf("%d CUDA device%s; lists [0], [0, 0]%s\n", ndev, ndev == 1 ? "" : "s",
	       ndev >= 2 ? ", [0, 1]" : " ([0, 1] needs two GPUs: not run)");
	FILE *f = argc > 1 ? fopen(argv[1], "r") : NULL;
	if (argc > 1 && !f) {
		fprintf(stderr, "cannot open %s\n", argv[1]);
		return 1;
	}
	char line[8192];
	size_t bi = 0;
	int nbatch = 0;
	for (;;) {
		const char *l = NULL;
		if (f)
			l = fgets(line, sizeof(line), f);
		else if (bi < sizeof(k_builtin) / sizeof(k_builtin[0]))
			l = k_builtin[bi++];
		if (!l)
			break;
		struct rcase c;
		if (parse_case(corpus, l, &c)) {
			fprintf(stderr, "bad case line: %s\n", l);
			g_fail++;
			continue;
		}
		one_case(ctx, &c, ndev);
		/* batches of a few whole arrays of each format */
		if (!c.section[0] && nbatch < 12) {
			batch_case(ctx, &c, ndev);
			nbatch++;
		}
	}
	if (f)
		fclose(f);
	refusals(ctx, corpus, ndev);
	tsr_context_free(ctx);
	printf("%d cases (%d not opened: error cases), %d batch files; %d failure%s\n", g_cases,
	       g_skipped, nbatch, g_fail, g_fail == 1 ? "" : "s");
	return g_fail ? 1 : 0;
}
