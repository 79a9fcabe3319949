/* nvcomp_peer.cu - the nvCOMP peer of bench/peers.py: nvCOMP's batched GPU decompression of a workload's own compressed chunks, checked against libdeflate / libzstd. */
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fitsio.h>
#include <libdeflate.h>
#include <zstd.h>
#include <zstd_errors.h>

/*
 * Usage: nvcomp_peer --nvcomp LIB [-k REPS] [--shard-inner N] [--batch-bytes B] [--cpu-only]
 *                    --codec zstd|gzip|zlib|deflate PATH...
 *
 * A PATH is a FITS file (its GZIP_1/GZIP_2 tile-compressed image HDUs give one stream per
 * tile), a Zarr v3 shard with --shard-inner N (one stream per present inner chunk), or else
 * one compressed stream (a Zarr chunk file). gzip and zlib streams lose their header and
 * trailer and go to nvCOMP's raw Deflate, the DEFLATE decoder tessera's GPU engine is compared
 * with (nvCOMP 6's Gzip entry points are left unused; there is no zlib one); zstd frames go as
 * they are.
 *
 * Every stream is first decoded on the CPU (libdeflate with the framing's checksum, libzstd):
 * that gives nvCOMP its output capacities and the bytes its output must equal. The payloads
 * are packed into one pinned buffer, copied to the device once, and decoded device to device
 * by nvCOMP (loaded with dlopen: a peer, never a dependency): one warm-up, checked byte for
 * byte, then best of REPS. "e2e" adds the H2D copy of the packed payloads to each run. GB/s
 * are decoded bytes (10^9) per second from CUDA events. One key=value line on stdout; errors
 * on stderr with exit status 1, and 2 when there is no CUDA device. --cpu-only stops after the
 * CPU decode (no GPU or nvCOMP needed), to check what the inputs yield.
 */

enum codec { C_ZSTD, C_GZIP, C_ZLIB, C_DEFLATE };
static const char *const codec_names[] = {"zstd", "gzip", "zlib", "deflate"};

/* nvCOMP 6 asks for 4-byte (Deflate) and 8-byte (zstd temp) alignment, checked at run time;
 * inputs a cache line apart keep the padding the e2e copy carries small. */
#define IN_ALIGN 64
#define OUT_ALIGN 256
/* One nvCOMP launch at most this many streams and (unless --batch-bytes) this much output:
 * larger workloads go in several launches within each timed run. */
#define BATCH_MAX_OUT ((size_t)1 << 31)
#define BATCH_MAX_STREAMS ((size_t)1 << 20)
/* The output check copies the device output back in pieces of about this size. */
#define CHECK_PIECE ((size_t)256 << 20)

struct stream {
	size_t in_off, in_n;   /* nvCOMP's payload, in the packed input */
	size_t out_off, out_n; /* the decoded bytes, in the packed output (same layout on the device) */
};

struct buf {
	unsigned char *p;
	size_t n, cap;
};

/* All streams of a run and their CPU decodes. */
struct set {
	enum codec codec;
	struct stream *s;
	size_t ns, scap;
	struct buf in;                /* payloads, IN_ALIGN apart */
	struct buf ref;               /* CPU decodes, OUT_ALIGN apart */
	size_t in_bytes, out_bytes;   /* sums of payload / decoded sizes, padding left out */
	struct libdeflate_decompressor *dd;
	ZSTD_DCtx *zd;
	struct buf tile;              /* one FITS tile as read */
};

__attribute__((noreturn, format(printf, 1, 2))) static void fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("nvcomp_peer: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

#define CK(x)                                                                                    \
	do {                                                                                     \
		cudaError_t e_ = (x);                                                            \
		if (e_ != cudaSuccess)                                                           \
			fail("%s:%d: %s: %s", __FILE__, __LINE__, #x, cudaGetErrorString(e_));   \
	} while (0)

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		fail("out of memory (%zu bytes)", n);
	return p;
}

static size_t align_up(size_t x, size_t a)
{
	return (x + a - 1) / a * a;
}

static void buf_reserve(struct buf *b, size_t need)
{
	if (need <= b->cap)
		return;
	size_t cap = b->cap * 2 > need ? b->cap * 2 : need;
	unsigned char *p = (unsigned char *)realloc(b->p, cap);
	if (!p)
		fail("out of memory (%zu bytes)", cap);
	b->p = p;
	b->cap = cap;
}

static uint64_t le64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int k = 7; k >= 0; k--)
		v = v << 8 | p[k];
	return v;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* CRC-32C, bit by bit: only a shard index goes through it. */
static uint32_t crc32c(const unsigned char *p, size_t n)
{
	uint32_t c = 0xffffffffu;
	while (n--) {
		c ^= *p++;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1)));
	}
	return ~c;
}

/* ---- framing ---- */

/* Length of the RFC 1952 header at p (with FEXTRA, FNAME, FCOMMENT, FHCRC), 0 if none. */
static size_t gzip_header_len(const unsigned char *p, size_t n)
{
	if (n < 18 || p[0] != 0x1f || p[1] != 0x8b || p[2] != 8 || (p[3] & 0xe0))
		return 0;
	int flg = p[3];
	size_t k = 10;
	if (flg & 4) { /* FEXTRA: 2-byte length, then the field */
		if (k + 2 > n)
			return 0;
		k += 2 + (size_t)(p[k] | p[k + 1] << 8);
	}
	for (int bit = 8; bit <= 16; bit <<= 1) /* FNAME, FCOMMENT: zero-terminated */
		if (flg & bit) {
			while (k < n && p[k])
				k++;
			k++;
		}
	if (flg & 2)
		k += 2;
	return k + 8 <= n ? k : 0;
}

/* Length of the RFC 1950 header at p, 0 if none; a preset dictionary is refused by libdeflate
 * (and nvCOMP could not use one either). */
static size_t zlib_header_len(const unsigned char *p, size_t n)
{
	if (n < 6 || (p[0] & 0x0f) != 8 || (p[0] >> 4) > 7 || ((p[0] << 8) | p[1]) % 31)
		return 0;
	return p[1] & 0x20 ? 0 : 2;
}

/* ---- CPU reference ---- */

/* Decodes src into dst[cap]: 0 and *got on success, 1 if cap is too small, -1 on bad data,
 * -2 if gzip/zlib data follows the stream (a second member nvCOMP would not see). */
static int cpu_decode(struct set *t, const unsigned char *src, size_t n, unsigned char *dst,
		      size_t cap, size_t *got)
{
	if (t->codec == C_ZSTD) {
		size_t z = ZSTD_decompressDCtx(t->zd, dst, cap, src, n);
		if (!ZSTD_isError(z)) {
			*got = z;
			return 0;
		}
		return ZSTD_getErrorCode(z) == ZSTD_error_dstSize_tooSmall ? 1 : -1;
	}
	size_t used = n;
	enum libdeflate_result r;
	if (t->codec == C_GZIP)
		r = libdeflate_gzip_decompress_ex(t->dd, src, n, dst, cap, &used, got);
	else if (t->codec == C_ZLIB)
		r = libdeflate_zlib_decompress_ex(t->dd, src, n, dst, cap, &used, got);
	else
		r = libdeflate_deflate_decompress_ex(t->dd, src, n, dst, cap, &used, got);
	if (r == LIBDEFLATE_INSUFFICIENT_SPACE)
		return 1;
	if (r != LIBDEFLATE_SUCCESS)
		return -1;
	return used == n || t->codec == C_DEFLATE ? 0 : -2;
}

/* A first guess of a stream's decoded size: the frame's content size (zstd) or ISIZE (gzip)
 * when they are known; decoding grows it when it is short. */
static size_t size_guess(const struct set *t, const unsigned char *src, size_t n)
{
	if (t->codec == C_ZSTD) {
		unsigned long long z = ZSTD_getFrameContentSize(src, n);
		if (z != ZSTD_CONTENTSIZE_UNKNOWN && z != ZSTD_CONTENTSIZE_ERROR)
			return (size_t)z;
	} else if (t->codec == C_GZIP && n >= 18) {
		return le32(src + n - 4);
	}
	return 4 * n + 65536;
}

/* Adds one framed stream: its CPU decode to t->ref, its payload for nvCOMP to t->in. */
static void add_stream(struct set *t, const unsigned char *src, size_t n, const char *what)
{
	size_t hdr = 0, trailer = 0;
	if (t->codec == C_GZIP) {
		if (!(hdr = gzip_header_len(src, n)))
			fail("%s: not a gzip stream", what);
		trailer = 8;
	} else if (t->codec == C_ZLIB) {
		if (!(hdr = zlib_header_len(src, n)))
			fail("%s: not a zlib stream (or one with a preset dictionary)", what);
		trailer = 4;
	} else if (t->codec == C_ZSTD && ZSTD_getFrameContentSize(src, n) == ZSTD_CONTENTSIZE_ERROR) {
		fail("%s: not a zstd frame", what);
	}

	size_t out_off = align_up(t->ref.n, OUT_ALIGN), cap = size_guess(t, src, n), got = 0;
	for (;;) {
		buf_reserve(&t->ref, out_off + cap);
		int r = cpu_decode(t, src, n, t->ref.p + out_off, cap, &got);
		if (r == 0)
			break;
		if (r == -2)
			fail("%s: bytes after the end of the %s stream (several members?)", what,
			     codec_names[t->codec]);
		if (r < 0)
			fail("%s: %s data the CPU decoder (%s) rejects", what, codec_names[t->codec],
			     t->codec == C_ZSTD ? "libzstd" : "libdeflate");
		if (cap > ((size_t)1 << 40))
			fail("%s: decodes to more than 1 TiB", what);
		cap = 2 * cap + 65536;
	}
	t->ref.n = out_off + got;

	size_t body = n - hdr - trailer, in_off = align_up(t->in.n, IN_ALIGN);
	buf_reserve(&t->in, in_off + body);
	memcpy(t->in.p + in_off, src + hdr, body);
	t->in.n = in_off + body;

	if (t->ns == t->scap) {
		t->scap = t->scap ? 2 * t->scap : 1024;
		t->s = (struct stream *)realloc(t->s, t->scap * sizeof *t->s);
		if (!t->s)
			fail("out of memory");
	}
	struct stream *s = &t->s[t->ns++];
	s->in_off = in_off;
	s->in_n = body;
	s->out_off = out_off;
	s->out_n = got;
	t->in_bytes += body;
	t->out_bytes += got;
}

/* ---- inputs ---- */

static unsigned char *read_file(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		fail("%s: cannot open", path);
	long len = -1;
	if (fseek(f, 0, SEEK_END) == 0)
		len = ftell(f);
	if (len < 0 || fseek(f, 0, SEEK_SET) != 0)
		fail("%s: not a regular file", path);
	unsigned char *p = (unsigned char *)xmalloc((size_t)len);
	if (fread(p, 1, (size_t)len, f) != (size_t)len)
		fail("%s: read error", path);
	fclose(f);
	*n = (size_t)len;
	return p;
}

/* FITS files start with the SIMPLE card. */
static int is_fits(const char *path)
{
	char head[10] = "";
	FILE *f = fopen(path, "rb");
	if (!f)
		fail("%s: cannot open", path);
	size_t n = fread(head, 1, 9, f);
	fclose(f);
	return n == 9 && !memcmp(head, "SIMPLE  =", 9);
}

__attribute__((noreturn)) static void fits_fail(const char *path, int st)
{
	char msg[FLEN_STATUS] = "";
	fits_get_errstatus(st, msg);
	fail("%s: CFITSIO: %s", path, msg);
}

/* Column number of name in the current HDU, 0 if absent. */
static int fits_column(fitsfile *f, const char *name)
{
	int col = 0, st = 0;
	if (fits_get_colnum(f, CASESEN, (char *)name, &col, &st)) {
		fits_clear_errmsg();
		return 0;
	}
	int type = 0;
	LONGLONG repeat = 0, width = 0;
	fits_get_coltypell(f, col, &type, &repeat, &width, &st);
	if (st || type != -TBYTE)
		return 0; /* not a variable-length byte array: nothing gzip holds */
	return col;
}

/* Reads row's bytes of a variable-length byte column into t->tile; returns their number. */
static size_t fits_cell(struct set *t, fitsfile *f, int col, LONGLONG row, const char *path)
{
	LONGLONG len = 0, off = 0;
	int st = 0, anynul = 0;
	if (!col)
		return 0;
	if (fits_read_descriptll(f, col, row, &len, &off, &st))
		fits_fail(path, st);
	if (len <= 0)
		return 0;
	buf_reserve(&t->tile, (size_t)len);
	if (fits_read_col(f, TBYTE, col, row, 1, len, NULL, t->tile.p, &anynul, &st))
		fits_fail(path, st);
	return (size_t)len;
}

/* The tiles of one GZIP tile-compressed HDU: COMPRESSED_DATA, or GZIP_COMPRESSED_DATA for a
 * tile that could not be quantized (gzip too); tiles stored raw are left out, as nothing
 * decodes them. */
static void add_fits_hdu(struct set *t, fitsfile *f, const char *path, int hdu)
{
	int cdata = fits_column(f, "COMPRESSED_DATA"), gdata = fits_column(f, "GZIP_COMPRESSED_DATA");
	if (!cdata && !gdata)
		fail("%s: HDU %d: no byte column COMPRESSED_DATA", path, hdu);
	LONGLONG nrows = 0;
	int st = 0;
	if (fits_get_num_rowsll(f, &nrows, &st))
		fits_fail(path, st);
	size_t raw = 0;
	for (LONGLONG row = 1; row <= nrows; row++) {
		size_t n = fits_cell(t, f, cdata, row, path);
		if (!n)
			n = fits_cell(t, f, gdata, row, path);
		if (!n) {
			raw++;
			continue;
		}
		char what[4096];
		snprintf(what, sizeof what, "%s: HDU %d tile %lld", path, hdu, (long long)row);
		add_stream(t, t->tile.p, n, what);
	}
	if (raw)
		fprintf(stderr, "nvcomp_peer: %s: HDU %d: %zu tiles not compressed, left out\n", path,
			hdu, raw);
}

static void add_fits(struct set *t, const char *path)
{
	fitsfile *f = NULL;
	int st = 0, nhdu = 0, type = 0;
	size_t before = t->ns;
	if (t->codec != C_GZIP)
		fail("%s: FITS tiles are read as gzip streams: use --codec gzip", path);
	/* the disk-file opener: no CFITSIO extended file name syntax in the path */
	if (fits_open_diskfile(&f, path, READONLY, &st) || fits_get_num_hdus(f, &nhdu, &st))
		fits_fail(path, st);
	for (int h = 1; h <= nhdu; h++) {
		if (fits_movabs_hdu(f, h, &type, &st))
			fits_fail(path, st);
		/* CFITSIO reports a compressed image as IMAGE_HDU; its table stays readable */
		if (!fits_is_compressed_image(f, &st))
			continue;
		char zc[FLEN_VALUE] = "";
		if (fits_read_key(f, TSTRING, "ZCMPTYPE", zc, NULL, &st))
			fits_fail(path, st);
		if (strcmp(zc, "GZIP_1") && strcmp(zc, "GZIP_2")) {
			fprintf(stderr, "nvcomp_peer: %s: HDU %d is %s, not gzip: left out\n", path, h, zc);
			continue;
		}
		add_fits_hdu(t, f, path, h);
	}
	fits_close_file(f, &st);
	if (t->ns == before)
		fail("%s: no GZIP tile-compressed image HDU", path);
}

/* A Zarr v3 shard, index at the end: ninner (offset, nbytes) u64 LE pairs and their CRC-32C. */
static void add_shard(struct set *t, const char *path, size_t ninner)
{
	size_t n = 0, before = t->ns;
	unsigned char *p = read_file(path, &n);
	size_t idx = ninner * 16 + 4;
	if (ninner > ((size_t)1 << 40) || n < idx)
		fail("%s: shorter than a shard index of %zu inner chunks", path, ninner);
	const unsigned char *e = p + n - idx;
	size_t data = n - idx;
	if (crc32c(e, idx - 4) != le32(e + idx - 4))
		fail("%s: shard index CRC-32C mismatch (wrong --shard-inner %zu?)", path, ninner);
	for (size_t i = 0; i < ninner; i++) {
		uint64_t off = le64(e + 16 * i), nb = le64(e + 16 * i + 8);
		if (off == UINT64_MAX && nb == UINT64_MAX)
			continue; /* missing inner chunk */
		if (off > data || nb > data - off)
			fail("%s: inner chunk %zu (offset %llu, %llu bytes) outside the shard", path, i,
			     (unsigned long long)off, (unsigned long long)nb);
		char what[4096];
		snprintf(what, sizeof what, "%s: inner chunk %zu", path, i);
		add_stream(t, p + off, (size_t)nb, what);
	}
	if (t->ns == before)
		fprintf(stderr, "nvcomp_peer: %s: an empty shard\n", path);
	free(p);
}

static void add_path(struct set *t, const char *path, size_t shard_inner)
{
	if (is_fits(path)) {
		add_fits(t, path);
	} else if (shard_inner) {
		add_shard(t, path, shard_inner);
	} else {
		size_t n = 0;
		unsigned char *p = read_file(path, &n);
		add_stream(t, p, n, path);
		free(p);
	}
}

/* ---- nvCOMP, through dlopen (types repeated from nvCOMP 6's nvcomp/{zstd,deflate}.h) ---- */

/* nvcompBatchedZstdDecompressOpts_t {backend; reserved[60]} and
 * nvcompBatchedDeflateDecompressOpts_t {backend; sort_before_hw_decompress; reserved[56]}:
 * both 64 bytes, passed by value, all zero = default backend. */
typedef struct {
	int backend;
	char reserved[60];
} nvc_opts;
typedef struct {
	size_t input, output, temp;
} nvc_align; /* nvcompAlignmentRequirements_t */
typedef int (*nvc_align_fn)(nvc_opts, nvc_align *);
typedef int (*nvc_temp_fn)(size_t num_chunks, size_t max_uncompressed_chunk_bytes, nvc_opts,
			   size_t *temp_bytes, size_t max_total_uncompressed_bytes, cudaStream_t);
typedef int (*nvc_decomp_fn)(const void *const *d_in_ptrs, const size_t *d_in_bytes,
			     const size_t *d_out_capacities, size_t *d_out_actual, size_t num_chunks,
			     void *d_temp, size_t temp_bytes, void *const *d_out_ptrs, nvc_opts,
			     int *d_statuses, cudaStream_t);
typedef const char *(*nvc_str_fn)(int);

struct nvc {
	void *lib;
	const char *family; /* "Zstd" or "Deflate" */
	nvc_temp_fn temp;
	nvc_decomp_fn dec;
	nvc_align_fn align;
	nvc_str_fn str;
	nvc_opts opts;
	size_t max_chunk; /* nvcomp{Zstd,Deflate}DecompressionMaxAllowedChunkSize */
};

static void *nvc_sym(struct nvc *v, const char *fmt, int required)
{
	char name[128];
	snprintf(name, sizeof name, fmt, v->family);
	void *f = dlsym(v->lib, name);
	if (!f && required)
		fail("nvCOMP: missing symbol %s (nvCOMP 6 expected)", name);
	return f;
}

static void nvc_load(struct nvc *v, const char *path, enum codec c)
{
	memset(v, 0, sizeof *v);
	v->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!v->lib)
		fail("cannot load nvCOMP: %s", dlerror());
	v->family = c == C_ZSTD ? "Zstd" : "Deflate";
	v->max_chunk = c == C_ZSTD ? ((size_t)1 << 31) - 1 : ((size_t)1 << 32) - 1;
	v->temp = (nvc_temp_fn)nvc_sym(v, "nvcompBatched%sDecompressGetTempSize", 1);
	v->dec = (nvc_decomp_fn)nvc_sym(v, "nvcompBatched%sDecompressAsync", 1);
	v->align = (nvc_align_fn)nvc_sym(v, "nvcompBatched%sDecompressGetRequiredAlignments", 0);
	v->str = (nvc_str_fn)dlsym(v->lib, "nvcompGetStatusString");
}

static const char *nvc_strerror(const struct nvc *v, int rc)
{
	const char *s = v->str ? v->str(rc) : NULL;
	return s ? s : "nvCOMP error";
}

/* ---- GPU ---- */

struct batch {
	size_t first, n, max_out, total_out;
};

struct gpu {
	cudaStream_t s;
	cudaEvent_t e0, e1;
	unsigned char *h_in, *d_in, *d_out; /* h_in: pinned */
	size_t in_len, out_len;             /* packed, padding included */
	void **d_inp, **d_outp;
	size_t *d_inn, *d_cap, *d_got;
	int *d_st;
	void *d_temp;
	size_t temp_n;
	struct batch *b;
	size_t nb;
};

/* Consecutive streams in launches of bounded output and count. */
static void make_batches(struct gpu *g, const struct set *t, const struct nvc *v, size_t max_out)
{
	size_t cap = 0;
	struct batch *cur = NULL;
	g->b = NULL;
	g->nb = 0;
	for (size_t i = 0; i < t->ns; i++) {
		size_t n = t->s[i].out_n;
		if (n > v->max_chunk)
			fail("stream %zu decodes to %zu bytes, over nvCOMP %s's limit of %zu", i, n,
			     v->family, v->max_chunk);
		if (!cur || cur->n == BATCH_MAX_STREAMS || cur->total_out + n > max_out) {
			if (g->nb == cap) {
				cap = cap ? 2 * cap : 8;
				g->b = (struct batch *)realloc(g->b, cap * sizeof *g->b);
				if (!g->b)
					fail("out of memory");
			}
			cur = &g->b[g->nb++];
			memset(cur, 0, sizeof *cur);
			cur->first = i;
		}
		cur->n++;
		cur->total_out += n;
		cur->max_out = n > cur->max_out ? n : cur->max_out;
	}
}

/* The temp buffer of the largest need over the batches, and the alignment nvCOMP asks for. */
static void gpu_temp(struct gpu *g, struct nvc *v)
{
	nvc_align al;
	if (v->align && v->align(v->opts, &al) == 0 &&
	    (al.input > IN_ALIGN || al.output > OUT_ALIGN || al.temp > 256))
		fail("nvCOMP %s wants alignments %zu/%zu/%zu (input/output/temp)", v->family,
		     al.input, al.output, al.temp);
	g->temp_n = 0;
	for (size_t k = 0; k < g->nb; k++) {
		size_t n = 0;
		int rc = v->temp(g->b[k].n, g->b[k].max_out, v->opts, &n, g->b[k].total_out, g->s);
		if (rc)
			fail("nvcompBatched%sDecompressGetTempSize: %s (%d)", v->family,
			     nvc_strerror(v, rc), rc);
		g->temp_n = n > g->temp_n ? n : g->temp_n;
	}
	if (g->temp_n)
		CK(cudaMalloc(&g->d_temp, g->temp_n));
}

/* Pinned packed payloads, device buffers and the per-stream device arrays. */
static void gpu_setup(struct gpu *g, struct set *t, struct nvc *v, size_t batch_bytes)
{
	size_t n = t->ns;
	memset(g, 0, sizeof *g);
	CK(cudaStreamCreate(&g->s));
	CK(cudaEventCreate(&g->e0));
	CK(cudaEventCreate(&g->e1));
	g->in_len = t->in.n;
	g->out_len = t->ref.n;
	CK(cudaMallocHost((void **)&g->h_in, g->in_len ? g->in_len : 1));
	memcpy(g->h_in, t->in.p, g->in_len);
	free(t->in.p); /* the pinned copy is the one used from here */
	memset(&t->in, 0, sizeof t->in);
	CK(cudaMalloc((void **)&g->d_in, g->in_len ? g->in_len : 1));
	CK(cudaMalloc((void **)&g->d_out, g->out_len ? g->out_len : 1));
	CK(cudaMalloc((void **)&g->d_inp, n * sizeof(void *)));
	CK(cudaMalloc((void **)&g->d_outp, n * sizeof(void *)));
	CK(cudaMalloc((void **)&g->d_inn, n * sizeof(size_t)));
	CK(cudaMalloc((void **)&g->d_cap, n * sizeof(size_t)));
	CK(cudaMalloc((void **)&g->d_got, n * sizeof(size_t)));
	CK(cudaMalloc((void **)&g->d_st, n * sizeof(int)));

	void **inp = (void **)xmalloc(n * sizeof(void *)), **outp = (void **)xmalloc(n * sizeof(void *));
	size_t *inn = (size_t *)xmalloc(n * sizeof(size_t)), *cap = (size_t *)xmalloc(n * sizeof(size_t));
	for (size_t i = 0; i < n; i++) {
		inp[i] = g->d_in + t->s[i].in_off;
		inn[i] = t->s[i].in_n;
		outp[i] = g->d_out + t->s[i].out_off;
		cap[i] = t->s[i].out_n;
	}
	CK(cudaMemcpy(g->d_inp, inp, n * sizeof(void *), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(g->d_outp, outp, n * sizeof(void *), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(g->d_inn, inn, n * sizeof(size_t), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(g->d_cap, cap, n * sizeof(size_t), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(g->d_in, g->h_in, g->in_len, cudaMemcpyHostToDevice));
	free(inp);
	free(outp);
	free(inn);
	free(cap);

	make_batches(g, t, v, batch_bytes);
	gpu_temp(g, v);
}

/* Queues every batch's decompression on g->s. */
static void gpu_decode(struct gpu *g, const struct nvc *v)
{
	for (size_t k = 0; k < g->nb; k++) {
		size_t f = g->b[k].first;
		int rc = v->dec((const void *const *)(g->d_inp + f), g->d_inn + f, g->d_cap + f,
				g->d_got + f, g->b[k].n, g->d_temp, g->temp_n, g->d_outp + f, v->opts,
				g->d_st + f, g->s);
		if (rc)
			fail("nvcompBatched%sDecompressAsync: %s (%d)", v->family, nvc_strerror(v, rc), rc);
	}
}

/* One run in milliseconds: the batches' decompression, after the H2D copy of the packed
 * payloads if h2d. */
static double gpu_run(struct gpu *g, const struct nvc *v, int h2d)
{
	float ms = 0;
	CK(cudaEventRecord(g->e0, g->s));
	if (h2d)
		CK(cudaMemcpyAsync(g->d_in, g->h_in, g->in_len, cudaMemcpyHostToDevice, g->s));
	gpu_decode(g, v);
	CK(cudaEventRecord(g->e1, g->s));
	CK(cudaEventSynchronize(g->e1));
	CK(cudaGetLastError());
	CK(cudaEventElapsedTime(&ms, g->e0, g->e1));
	return ms;
}

/* Streams whose last decode failed, has another size than the CPU's or other bytes; the
 * output comes back in pieces of about CHECK_PIECE. */
static size_t gpu_wrong(const struct gpu *g, const struct set *t)
{
	size_t n = t->ns, bad = 0;
	size_t *got = (size_t *)xmalloc(n * sizeof(size_t));
	int *st = (int *)xmalloc(n * sizeof(int));
	struct buf piece = {NULL, 0, 0};
	CK(cudaMemcpy(got, g->d_got, n * sizeof(size_t), cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(st, g->d_st, n * sizeof(int), cudaMemcpyDeviceToHost));
	for (size_t i = 0, j; i < n; i = j) {
		size_t lo = t->s[i].out_off;
		for (j = i + 1; j < n && t->s[j].out_off + t->s[j].out_n - lo <= CHECK_PIECE; j++)
			;
		size_t hi = t->s[j - 1].out_off + t->s[j - 1].out_n;
		buf_reserve(&piece, hi - lo);
		CK(cudaMemcpy(piece.p, g->d_out + lo, hi - lo, cudaMemcpyDeviceToHost));
		for (size_t k = i; k < j; k++) {
			const struct stream *s = &t->s[k];
			if (!st[k] && got[k] == s->out_n &&
			    !memcmp(piece.p + (s->out_off - lo), t->ref.p + s->out_off, s->out_n))
				continue;
			if (!bad++)
				fprintf(stderr, "nvcomp_peer: stream %zu: status %d, %zu bytes (%zu expected)%s\n",
					k, st[k], got[k], s->out_n,
					!st[k] && got[k] == s->out_n ? ", other bytes" : "");
		}
	}
	free(piece.p);
	free(got);
	free(st);
	return bad;
}

/* Streams whose last decode reported an error (the timed runs are not checked byte by byte). */
static size_t gpu_failed(const struct gpu *g, size_t n)
{
	int *st = (int *)xmalloc(n * sizeof(int));
	size_t bad = 0;
	CK(cudaMemcpy(st, g->d_st, n * sizeof(int), cudaMemcpyDeviceToHost));
	for (size_t i = 0; i < n; i++)
		bad += st[i] != 0;
	free(st);
	return bad;
}

static void gpu_free(struct gpu *g)
{
	CK(cudaFree(g->d_temp));
	CK(cudaFree(g->d_st));
	CK(cudaFree(g->d_got));
	CK(cudaFree(g->d_cap));
	CK(cudaFree(g->d_inn));
	CK(cudaFree(g->d_outp));
	CK(cudaFree(g->d_inp));
	CK(cudaFree(g->d_out));
	CK(cudaFree(g->d_in));
	CK(cudaFreeHost(g->h_in));
	CK(cudaEventDestroy(g->e0));
	CK(cudaEventDestroy(g->e1));
	CK(cudaStreamDestroy(g->s));
	free(g->b);
}

/* ---- main ---- */

struct args {
	const char *nvcomp;
	int reps, cpu_only, codec;
	size_t shard_inner, batch_bytes;
	char **paths;
	int npaths;
};

static const char usage[] =
	"usage: nvcomp_peer --nvcomp LIB [-k REPS] [--shard-inner N] [--batch-bytes B] [--cpu-only]\n"
	"                   --codec zstd|gzip|zlib|deflate PATH...\n";

__attribute__((noreturn)) static void bad_usage(const char *why)
{
	fprintf(stderr, "nvcomp_peer: %s\n%s", why, usage);
	exit(1);
}

static void parse_args(struct args *a, int argc, char **argv)
{
	memset(a, 0, sizeof *a);
	a->reps = 5;
	a->batch_bytes = BATCH_MAX_OUT;
	a->codec = -1;
	a->paths = (char **)xmalloc(argc * sizeof(char *));
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i];
		int more = i + 1 < argc;
		if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
			fputs(usage, stdout);
			exit(0);
		} else if (!strcmp(o, "--cpu-only")) {
			a->cpu_only = 1;
		} else if (!strcmp(o, "--nvcomp") && more) {
			a->nvcomp = argv[++i];
		} else if (!strcmp(o, "-k") && more) {
			a->reps = atoi(argv[++i]);
		} else if (!strcmp(o, "--shard-inner") && more) {
			a->shard_inner = strtoull(argv[++i], NULL, 10);
			if (!a->shard_inner)
				bad_usage("--shard-inner wants a positive count");
		} else if (!strcmp(o, "--batch-bytes") && more) {
			a->batch_bytes = strtoull(argv[++i], NULL, 10);
			if (!a->batch_bytes)
				bad_usage("--batch-bytes wants a positive size");
		} else if (!strcmp(o, "--codec") && more) {
			o = argv[++i];
			for (int c = 0; c < 4; c++)
				if (!strcmp(o, codec_names[c]))
					a->codec = c;
			if (a->codec < 0)
				bad_usage("unknown codec");
		} else if (o[0] == '-') {
			bad_usage(more ? "unknown option" : "an option without its value, or unknown");
		} else {
			a->paths[a->npaths++] = argv[i];
		}
	}
	if (a->codec < 0 || !a->npaths || (!a->nvcomp && !a->cpu_only) || a->reps < 1)
		bad_usage("--codec, --nvcomp (unless --cpu-only), REPS >= 1 and a PATH are needed");
}

static const char *basename_of(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

int main(int argc, char **argv)
{
	struct args a;
	struct nvc v;
	parse_args(&a, argc, argv);
	if (!a.cpu_only) {
		int ndev = 0;
		cudaError_t e = cudaGetDeviceCount(&ndev);
		if (e != cudaSuccess || ndev < 1) {
			fprintf(stderr, "no CUDA device (%s)\n",
				e != cudaSuccess ? cudaGetErrorString(e) : "none found");
			return 2;
		}
		nvc_load(&v, a.nvcomp, (enum codec)a.codec);
	}

	struct set t;
	memset(&t, 0, sizeof t);
	t.codec = (enum codec)a.codec;
	t.dd = libdeflate_alloc_decompressor();
	t.zd = ZSTD_createDCtx();
	if (!t.dd || !t.zd)
		fail("out of memory");
	for (int i = 0; i < a.npaths; i++)
		add_path(&t, a.paths[i], a.shard_inner);
	libdeflate_free_decompressor(t.dd);
	ZSTD_freeDCtx(t.zd);
	free(t.tile.p);
	if (!t.ns)
		fail("no compressed streams in the given paths");
	if (a.cpu_only) {
		printf("streams=%zu in_bytes=%zu out_bytes=%zu codec=%s\n", t.ns, t.in_bytes,
		       t.out_bytes, codec_names[t.codec]);
		free(t.in.p);
		free(t.ref.p);
		free(t.s);
		free(a.paths);
		return 0;
	}

	struct gpu g;
	gpu_setup(&g, &t, &v, a.batch_bytes);
	/* the check: the warm-up decode over a poisoned output */
	CK(cudaMemset(g.d_out, 0xa5, g.out_len ? g.out_len : 1));
	CK(cudaMemset(g.d_got, 0xff, t.ns * sizeof(size_t)));
	gpu_run(&g, &v, 0);
	size_t wrong = gpu_wrong(&g, &t);
	double dec = 1e30, e2e = 1e30, ms;
	for (int r = 0; r < a.reps; r++)
		if ((ms = gpu_run(&g, &v, 0)) < dec)
			dec = ms;
	for (int r = 0; r < a.reps; r++)
		if ((ms = gpu_run(&g, &v, 1)) < e2e)
			e2e = ms;
	wrong += gpu_failed(&g, t.ns);

	double gb = (double)t.out_bytes / 1e9;
	printf("streams=%zu in_bytes=%zu out_bytes=%zu batches=%zu decode_ms=%.3f decode_gbps=%.3f "
	       "e2e_ms=%.3f e2e_gbps=%.3f equal=%d wrong=%zu codec=%s nvcomp=%s\n",
	       t.ns, t.in_bytes, t.out_bytes, g.nb, dec, gb / (dec * 1e-3), e2e, gb / (e2e * 1e-3),
	       wrong == 0, wrong, codec_names[t.codec], basename_of(a.nvcomp));
	if (wrong)
		fprintf(stderr, "nvcomp_peer: %zu streams differ from the CPU decode\n", wrong);
	gpu_free(&g);
	dlclose(v.lib);
	free(t.ref.p);
	free(t.s);
	free(a.paths);
	return wrong ? 1 : 0;
}
