/* gpu_inflate_bench.cu - batched GPU inflate throughput (device to device) against libdeflate on one CPU thread, and nvCOMP when given. */
#include <cuda_runtime.h>
#include <dlfcn.h>

#include "tsr_cuda.h"
#include "gpu_test_util.h"

/*
 * Usage: gpu_inflate_bench [--streams N] [--size BYTES] [--level L] [--zero-bits B]
 *                          [--profile NAME] [--runs R] [--nvcomp PATH/libnvcomp.so.N]
 * Defaults: 10000 streams of 65536 bytes of float32 Gaussian noise with the low 14 mantissa
 * bits zeroed (ratio about 2.7 at libdeflate level 6, like float images). Streams are
 * compressed on all cores, copied to the device once, then decoded device to device: GB/s are
 * decoded bytes (10^9) per second, from CUDA events around one batch launch, median of --runs
 * after two warm-ups, every output checked against the source data. The CPU line is libdeflate
 * decompressing the same raw streams on one thread. nvCOMP (a peer, loaded with dlopen, never
 * a dependency) decodes the same raw DEFLATE streams from the same buffers.
 */

struct job {
	size_t nstreams, size;
	int level, zero_bits, profile;
	unsigned char *raw;        /* nstreams * size */
	unsigned char **z;         /* raw DEFLATE streams */
	size_t *zn;
	size_t next;
	pthread_mutex_t lock;
};

static void *compress_worker(void *arg)
{
	struct job *j = (struct job *)arg;
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(j->level);
	for (;;) {
		pthread_mutex_lock(&j->lock);
		size_t i = j->next++;
		pthread_mutex_unlock(&j->lock);
		if (i >= j->nstreams)
			break;
		unsigned char *src = j->raw + i * j->size;
		struct tu_rng r = tu_seed(1000 + i);
		if (j->profile == TU_FLOATS)
			tu_fill_floats(src, j->size, &r, j->zero_bits);
		else
			tu_fill(src, j->size, j->profile, &r);
		size_t bound = libdeflate_deflate_compress_bound(c, j->size);
		j->z[i] = (unsigned char *)tu_xmalloc(bound);
		j->zn[i] = libdeflate_deflate_compress(c, src, j->size, j->z[i], bound);
	}
	libdeflate_free_compressor(c);
	return NULL;
}

/* Streams of one timed batch that failed, decoded to the wrong size or to other bytes than the
 * source data (outputs, sizes and statuses copied back into the h_ buffers). */
static int streams_wrong(const struct job *j, size_t n, size_t stride_out, const unsigned char *d_out,
			 const size_t *d_got, const int *d_st, unsigned char *h_out, size_t *h_got,
			 int *h_st)
{
	int bad = 0;
	CK(cudaMemcpy(h_out, d_out, n * stride_out, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(h_got, d_got, n * sizeof(size_t), cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(h_st, d_st, n * sizeof(int), cudaMemcpyDeviceToHost));
	for (size_t i = 0; i < n; i++)
		if (h_st[i] || h_got[i] != j->size ||
		    memcmp(h_out + i * stride_out, j->raw + i * j->size, j->size))
			bad++;
	return bad;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* ---- nvCOMP, through dlopen (types repeated from nvcomp/deflate.h, nvCOMP 5/6) ---- */
typedef struct {
	int backend;            /* nvcompDecompressBackend_t: 0 default */
	int sort_before_hw_decompress;
	char reserved[56];
} nvc_opts_t;
typedef int (*nvc_temp_fn)(size_t, size_t, nvc_opts_t, size_t *, size_t, cudaStream_t);
typedef int (*nvc_decomp_fn)(const void *const *, const size_t *, const size_t *, size_t *, size_t,
			     void *, size_t, void *const *, nvc_opts_t, int *, cudaStream_t);

int main(int argc, char **argv)
{
	struct job j;
	int runs = 15;
	const char *nvcomp_path = NULL;
	memset(&j, 0, sizeof j);
	j.nstreams = 10000;
	j.size = 65536;
	j.level = 6;
	j.zero_bits = 14;
	j.profile = TU_FLOATS;
	for (int a = 1; a + 1 < argc; a += 2) {
		if (!strcmp(argv[a], "--streams"))
			j.nstreams = strtoull(argv[a + 1], NULL, 10);
		else if (!strcmp(argv[a], "--size"))
			j.size = strtoull(argv[a + 1], NULL, 10);
		else if (!strcmp(argv[a], "--level"))
			j.level = atoi(argv[a + 1]);
		else if (!strcmp(argv[a], "--zero-bits"))
			j.zero_bits = atoi(argv[a + 1]);
		else if (!strcmp(argv[a], "--runs"))
			runs = atoi(argv[a + 1]);
		else if (!strcmp(argv[a], "--nvcomp"))
			nvcomp_path = argv[a + 1];
		else if (!strcmp(argv[a], "--profile")) {
			for (int p = 0; p < TU_NPROFILES; p++)
				if (!strcmp(argv[a + 1], tu_profile_name[p]))
					j.profile = p;
		} else {
			fprintf(stderr, "unknown option %s\n", argv[a]);
			return 2;
		}
	}
	int ndev = 0;
	if (cudaGetDeviceCount(&ndev) != cudaSuccess)
		ndev = 0;
	if (ndev == 0) {
		printf("skipped: no CUDA device\n");
		return 0;
	}
	struct cudaDeviceProp prop;
	CK(cudaGetDeviceProperties(&prop, 0));

	size_t n = j.nstreams, i, total = n * j.size;
	j.raw = (unsigned char *)tu_xmalloc(total);
	j.z = (unsigned char **)tu_xmalloc(n * sizeof *j.z);
	j.zn = (size_t *)tu_xmalloc(n * sizeof(size_t));
	pthread_mutex_init(&j.lock, NULL);
	pthread_t th[64];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int nt = ncpu < 1 ? 1 : ncpu > 64 ? 64 : (int)ncpu;
	double t0 = tu_now();
	for (int t = 0; t < nt; t++)
		pthread_create(&th[t], NULL, compress_worker, &j);
	for (int t = 0; t < nt; t++)
		pthread_join(th[t], NULL);
	double tcomp = tu_now() - t0;

	/* framings: raw as made; zlib and gzip wrap the same DEFLATE data */
	size_t ztotal = 0;
	for (i = 0; i < n; i++)
		ztotal += j.zn[i];
	printf("gpu_inflate_bench: %s, %d SMs; %zu streams x %zu B %s", prop.name,
	       prop.multiProcessorCount, n, j.size, tu_profile_name[j.profile]);
	if (j.profile == TU_FLOATS)
		printf(" (float32 noise, low %d mantissa bits zero)", j.zero_bits);
	printf(", libdeflate level %d, ratio %.2f, compressed in %.1f s on %d threads\n", j.level,
	       (double)total / ztotal, tcomp, nt);

	/* CPU reference: libdeflate, one thread, the raw streams */
	unsigned char *cpu_out = (unsigned char *)tu_xmalloc(j.size);
	struct libdeflate_decompressor *dd = libdeflate_alloc_decompressor();
	double cpu_best = 1e30;
	for (int rep = 0; rep < 2; rep++) {
		t0 = tu_now();
		for (i = 0; i < n; i++) {
			size_t got;
			if (libdeflate_deflate_decompress(dd, j.z[i], j.zn[i], cpu_out, j.size, &got) ||
			    got != j.size) {
				fprintf(stderr, "libdeflate failed on stream %zu\n", i);
				return 1;
			}
		}
		double t = tu_now() - t0;
		cpu_best = t < cpu_best ? t : cpu_best;
	}

	/* device buffers: inputs 256-aligned (nvCOMP asks for 4), one output region each */
	size_t stride_in = 0;
	for (i = 0; i < n; i++)
		stride_in = j.zn[i] + 32 > stride_in ? j.zn[i] + 32 : stride_in;
	stride_in = (stride_in + 255) / 256 * 256;
	size_t stride_out = (j.size + 255) / 256 * 256;
	unsigned char *h_in = (unsigned char *)tu_xmalloc(n * stride_in * 3);
	unsigned char *d_in, *d_out;
	CK(cudaMalloc((void **)&d_in, n * stride_in * 3));
	CK(cudaMalloc((void **)&d_out, n * stride_out));
	void **h_inp = (void **)tu_xmalloc(3 * n * sizeof(void *));
	void **h_outp = (void **)tu_xmalloc(n * sizeof(void *));
	size_t *h_zn = (size_t *)tu_xmalloc(3 * n * sizeof(size_t));
	size_t *h_cap = (size_t *)tu_xmalloc(n * sizeof(size_t));
	for (int f = 0; f < 3; f++)
		for (i = 0; i < n; i++) {
			unsigned char *p = h_in + (f * n + i) * stride_in;
			const unsigned char *src = j.raw + i * j.size;
			size_t k = 0;
			if (f == TU_ZLIB) {
				p[k++] = 0x78;
				p[k++] = 0x9c;
			} else if (f == TU_GZIP) {
				static const unsigned char gh[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
				memcpy(p, gh, 10);
				k = 10;
			}
			memcpy(p + k, j.z[i], j.zn[i]);
			k += j.zn[i];
			if (f == TU_ZLIB) {
				uint32_t a = (uint32_t)adler32(1, src, (uInt)j.size);
				p[k++] = (unsigned char)(a >> 24);
				p[k++] = (unsigned char)(a >> 16);
				p[k++] = (unsigned char)(a >> 8);
				p[k++] = (unsigned char)a;
			} else if (f == TU_GZIP) {
				uint32_t c = (uint32_t)crc32(0, src, (uInt)j.size), s = (uint32_t)j.size;
				for (int b = 0; b < 4; b++)
					p[k++] = (unsigned char)(c >> (8 * b));
				for (int b = 0; b < 4; b++)
					p[k++] = (unsigned char)(s >> (8 * b));
			}
			h_inp[f * n + i] = d_in + (f * n + i) * stride_in;
			h_zn[f * n + i] = k;
		}
	for (i = 0; i < n; i++) {
		h_outp[i] = d_out + i * stride_out;
		h_cap[i] = j.size;
	}
	CK(cudaMemcpy(d_in, h_in, n * stride_in * 3, cudaMemcpyHostToDevice));
	void **d_inp, **d_outp;
	size_t *d_zn, *d_cap, *d_got, scratch_n;
	int *d_st;
	void *d_scratch;
	CK(cudaMalloc((void **)&d_inp, 3 * n * sizeof(void *)));
	CK(cudaMalloc((void **)&d_outp, n * sizeof(void *)));
	CK(cudaMalloc((void **)&d_zn, 3 * n * sizeof(size_t)));
	CK(cudaMalloc((void **)&d_cap, n * sizeof(size_t)));
	CK(cudaMalloc((void **)&d_got, n * sizeof(size_t)));
	CK(cudaMalloc((void **)&d_st, n * sizeof(int)));
	CK(cudaMemcpy(d_inp, h_inp, 3 * n * sizeof(void *), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d_outp, h_outp, n * sizeof(void *), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d_zn, h_zn, 3 * n * sizeof(size_t), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d_cap, h_cap, n * sizeof(size_t), cudaMemcpyHostToDevice));
	tsr_cuda_inflate_scratch_nbytes(n, &scratch_n);
	CK(cudaMalloc(&d_scratch, scratch_n));
	cudaStream_t stream;
	cudaEvent_t e0, e1;
	CK(cudaStreamCreate(&stream));
	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	unsigned char *h_out = (unsigned char *)tu_xmalloc(n * stride_out);
	size_t *h_got = (size_t *)tu_xmalloc(n * sizeof(size_t));
	int *h_st = (int *)tu_xmalloc(n * sizeof(int));
	double *times = (double *)tu_xmalloc((runs + 2) * sizeof(double));

	struct row {
		char name[64];
		double gbs, ms;
		const char *check;
	} rows[8];
	int nrows = 0;

	/* the check: every stream ok and equal to its source */
	for (int f = 0; f < 3; f++) {
		int bad = 0;
		for (int rep = 0; rep < runs + 2; rep++) {
			if (rep == 0)
				CK(cudaMemset(d_out, 0xa5, n * stride_out));
			CK(cudaEventRecord(e0, stream));
			int rc = tsr_cuda_inflate_batch((const void *const *)(d_inp + f * n), d_zn + f * n,
							d_outp, d_cap, d_got, d_st, n, f, d_scratch,
							scratch_n, stream);
			CK(cudaEventRecord(e1, stream));
			if (rc) {
				fprintf(stderr, "tsr_cuda_inflate_batch: %d\n", rc);
				return 1;
			}
			CK(cudaEventSynchronize(e1));
			float ms;
			CK(cudaEventElapsedTime(&ms, e0, e1));
			times[rep] = ms;
			if (rep == 0)
				bad += streams_wrong(&j, n, stride_out, d_out, d_got, d_st, h_out, h_got, h_st);
		}
		qsort(times + 2, runs, sizeof(double), cmp_double);
		double med = times[2 + runs / 2];
		struct row *r = &rows[nrows++];
		snprintf(r->name, sizeof r->name, "tessera GPU %s",
			 f == 0 ? "raw DEFLATE" : f == 1 ? "zlib + Adler-32 check" : "gzip + CRC-32 check");
		r->ms = med;
		r->gbs = total / (med * 1e-3) / 1e9;
		r->check = bad ? "MISMATCH" : "ok";
		if (bad)
			fprintf(stderr, "%s: %d streams wrong\n", r->name, bad);
	}

	/* nvCOMP on the raw streams */
	if (nvcomp_path) {
		void *lib = dlopen(nvcomp_path, RTLD_NOW | RTLD_LOCAL);
		nvc_temp_fn temp_fn = lib ? (nvc_temp_fn)dlsym(lib, "nvcompBatchedDeflateDecompressGetTempSize") : NULL;
		nvc_decomp_fn dec_fn = lib ? (nvc_decomp_fn)dlsym(lib, "nvcompBatchedDeflateDecompressAsync") : NULL;
		if (!temp_fn || !dec_fn) {
			printf("nvCOMP: cannot load %s (%s)\n", nvcomp_path, lib ? "missing symbols" : dlerror());
		} else {
			nvc_opts_t opts;
			size_t temp_n = 0;
			void *d_temp = NULL;
			memset(&opts, 0, sizeof opts);
			int rc = temp_fn(n, j.size, opts, &temp_n, total, stream);
			if (rc == 0 && temp_n)
				CK(cudaMalloc(&d_temp, temp_n));
			int bad = rc != 0;
			for (int rep = 0; rep < runs + 2 && !rc; rep++) {
				if (rep == 0)
					CK(cudaMemset(d_out, 0xa5, n * stride_out));
				CK(cudaEventRecord(e0, stream));
				rc = dec_fn((const void *const *)d_inp, d_zn, d_cap, d_got, n, d_temp, temp_n,
					    d_outp, opts, d_st, stream);
				CK(cudaEventRecord(e1, stream));
				CK(cudaEventSynchronize(e1));
				float ms;
				CK(cudaEventElapsedTime(&ms, e0, e1));
				times[rep] = ms;
				if (rep == 0)
					bad += streams_wrong(&j, n, stride_out, d_out, d_got, d_st, h_out, h_got,
							     h_st);
			}
			if (rc) {
				printf("nvCOMP: error %d\n", rc);
			} else {
				qsort(times + 2, runs, sizeof(double), cmp_double);
				double med = times[2 + runs / 2];
				struct row *r = &rows[nrows++];
				snprintf(r->name, sizeof r->name, "nvCOMP batched Deflate (raw)");
				r->ms = med;
				r->gbs = total / (med * 1e-3) / 1e9;
				r->check = bad ? "MISMATCH" : "ok";
			}
			if (d_temp)
				cudaFree(d_temp);
		}
	}
	struct row *r = &rows[nrows++];
	snprintf(r->name, sizeof r->name, "libdeflate CPU, 1 thread (raw)");
	r->ms = cpu_best * 1e3;
	r->gbs = total / cpu_best / 1e9;
	r->check = "ok";

	printf("\n| decoder | GB/s decoded | ms per batch | output check |\n|---|---:|---:|---|\n");
	for (int k = 0; k < nrows; k++)
		printf("| %s | %.1f | %.2f | %s |\n", rows[k].name, rows[k].gbs, rows[k].ms,
		       rows[k].check);
	int fail = 0;
	for (int k = 0; k < nrows; k++)
		fail |= strcmp(rows[k].check, "ok") != 0;
	return fail;
}
