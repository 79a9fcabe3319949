/* route.c - which decoder family runs a chunk on a device, or why the CPU decodes it (route.h). */
#include <stdio.h>
#include <string.h>

#include "../core/internal.h"
#include "b2nd_blocks.h"
#include "blosc.h"
#include "route.h"

/* Does the place kernel compute this value transform exactly as src/codecs/values.c does? */
static int tsr_route_xform_ok(const struct tsr_chunk_ref *r)
{
	enum tsr_dtype in = r->codec.elem, out = r->xform.out;
	size_t w = tsr_dtype_size(in);
	switch (r->xform.kind) {
	case TSR_XF_COPY:
		return tsr_dtype_size(out) == w;
	case TSR_XF_OFFSET:
		return tsr_dtype_size(out) == w && !tsr_dtype_is_float(in) && w <= 8 &&
		       in != TSR_COMPLEX64;
	case TSR_XF_SCALE:
		return (out == TSR_FLOAT32 || out == TSR_FLOAT64) &&
		       (in == TSR_UINT8 || in == TSR_INT8 || in == TSR_INT16 || in == TSR_INT32 ||
			in == TSR_INT64 || in == TSR_FLOAT32 || in == TSR_FLOAT64);
	case TSR_XF_DEQUANT:
		/* quantized tiles hold int32 (or, by their decoded size, uint8/int16) values */
		return (out == TSR_FLOAT32 || out == TSR_FLOAT64) && in == TSR_INT32 &&
		       (r->xform.dither == TSR_DITHER_NONE || r->xform.dither == TSR_DITHER_1 ||
			r->xform.dither == TSR_DITHER_2);
	default:
		return 0;
	}
}

enum tsr_route_size tsr_route_size_class(const struct tsr_chunk_ref *r)
{
	if (r->nbytes == 0 || r->nbytes == TSR_WHOLE_FILE)
		return r->nbytes == 0 ? TSR_SIZE_NONE : TSR_SIZE_WHOLE_FILE;
	return r->nbytes == (uint64_t)r->npix * tsr_dtype_size(r->codec.elem) ? TSR_SIZE_ELEMENTS
									       : TSR_SIZE_OTHER;
}

/* Can the place kernel apply this chunk's transform to its stored bytes? */
static int tsr_route_raw_ok(const struct tsr_chunk_ref *r)
{
	return r->codec.id == TSR_CODEC_NONE && r->npre == 0 && !r->has_perm && !r->nfilter &&
	       !r->codec.byte_shuffle && !r->codec.elem_from_size &&
	       r->xform.kind != TSR_XF_DEQUANT && tsr_route_size_class(r) == TSR_SIZE_ELEMENTS;
}

/* Is the b2nd layout of a Blosc2 chunk (a b2nd array's, or a plain super-chunk's one row) a
 * whole number of blocks per axis holding the extent? (The CPU decoder checks the same.) */
static int tsr_route_layout_ok(const struct tsr_chunk_ref *r)
{
	if (r->ndim < 0 || r->ndim > TSR_BLOCKED_MAX_DIM)
		return 0;
	for (int d = 0; d < r->ndim; d++) {
		int64_t p = r->blocked.padded[d], b = r->blocked.block[d];
		if (b <= 0 || p <= 0 || p % b || r->extent[d] > p)
			return 0;
	}
	return 1;
}

/* Is the chunk a blosc chunk then plain elements (Zarr blosc, Blosc2 frames and b2nd arrays)?
 * Whether the GPU decodes it is known once its header is read (tsr_route_blosc_ref). */
static int tsr_route_blosc_ok(const struct tsr_chunk_ref *r)
{
	const struct tsr_codec_step *c = &r->codec;
	size_t w = tsr_dtype_size(c->elem);
	/* Zarr: a blosc pre-step; Blosc2: the b2nd codec, whose chunk header may name the byte
	 * order (be_from_chunk: tsr_route_blosc_ref reads it) */
	int zarr = r->npre == 1 && r->pre[0].id == TSR_CODEC_BLOSC && c->id == TSR_CODEC_NONE &&
		   !c->be_from_chunk;
	int b2 = r->npre == 0 && c->id == TSR_CODEC_BLOSC_B2ND && tsr_route_layout_ok(r);
	return (zarr || b2) && !c->byte_shuffle && !c->elem_from_size && !r->has_perm &&
	       !r->nfilter && (w == 1 || w == 2 || w == 4 || w == 8) && c->elem != TSR_COMPLEX64 &&
	       r->npix > 0 && tsr_route_size_class(r) >= TSR_SIZE_ELEMENTS && tsr_route_xform_ok(r);
}

int64_t tsr_route_decoded_npix(const struct tsr_chunk_ref *r)
{
	if (r->codec.id != TSR_CODEC_BLOSC_B2ND || !tsr_route_layout_ok(r))
		return r->npix;
	int64_t n = 1;
	for (int d = 0; d < r->ndim; d++)
		n *= r->blocked.padded[d];
	return n;
}

int tsr_route_blocked(const struct tsr_chunk_ref *r)
{
	if (r->codec.id != TSR_CODEC_BLOSC_B2ND)
		return 0;
	/* blocks of whole rows (every axis but the first unblocked and unclipped) lie in C order
	 * over the extent, padding rows last */
	for (int d = 1; d < r->ndim; d++)
		if (r->blocked.block[d] != r->blocked.padded[d] || r->extent[d] != r->blocked.padded[d])
			return 1;
	return 0;
}

/* The stream kind of a chunk whose whole decode is one stream then plain elements (FITS
 * GZIP_1/2 tiles; Zarr chunks with one gzip, zlib, numcodecs LZ4 or zstd step; sharded
 * inner chunks are chunks of their own), or -1 with why. */
static int tsr_route_stream(const struct tsr_chunk_ref *r, const struct tsr_route_device *dev,
			    enum tsr_route_why *why)
{
	const struct tsr_codec_step *c = &r->codec;
	enum tsr_codec_id id = TSR_CODEC_NONE;
	if (r->npre == 0)
		id = c->id;
	else if (r->npre == 1 && c->id == TSR_CODEC_NONE && !c->byte_shuffle && !c->elem_from_size &&
		 (r->pre[0].id == TSR_CODEC_GZIP || r->pre[0].id == TSR_CODEC_ZLIB ||
		  r->pre[0].id == TSR_CODEC_LZ4 || r->pre[0].id == TSR_CODEC_ZSTD))
		id = r->pre[0].id;
	int kind = id == TSR_CODEC_GZIP      ? TSR_FAM_INFLATE * TSR_VARIANTS + TSR_VAR_GZIP
		   : id == TSR_CODEC_ZLIB    ? TSR_FAM_INFLATE * TSR_VARIANTS + TSR_VAR_ZLIB
		   : id == TSR_CODEC_DEFLATE ? TSR_FAM_INFLATE * TSR_VARIANTS + TSR_VAR_DEFLATE
		   : id == TSR_CODEC_LZ4 && r->npre == 1
			   ? TSR_FAM_LZ4 * TSR_VARIANTS + TSR_VAR_LZ4_SIZED
		   : id == TSR_CODEC_ZSTD && r->npre == 1 ? TSR_FAM_ZSTD * TSR_VARIANTS
			   : -1;
	size_t w = tsr_dtype_size(c->elem);
	int cplx = c->elem == TSR_COMPLEX64 || c->elem == TSR_COMPLEX128;
	if (id == TSR_CODEC_RICE && r->npre == 0) {
		/* RICE tiles decode to integers of BYTEPIX bytes; the GPU takes those the place
		 * kernel reads as they are (BYTEPIX = the stored width; the CPU converts other
		 * widths) with the FITS convention's block sizes (16, 32). */
		int v = c->rice_bytepix == 1 ? 0 : c->rice_bytepix == 2 ? 1 : c->rice_bytepix == 4 ? 2 : -1;
		if (v >= 0 && (size_t)c->rice_bytepix == w &&
		    (c->rice_blocksize == 16 || c->rice_blocksize == 32))
			kind = TSR_FAM_RICE * TSR_VARIANTS + 2 * v + (c->rice_blocksize == 16);
		else if (dev->families >> TSR_FAM_RICE & 1) {
			*why = TSR_WHY_STEPS;
			return -1;
		}
	}
	if (kind >= 0 && !(dev->families >> (kind / TSR_VARIANTS) & 1))
		kind = -1;
	if (kind < 0)
		*why = r->npre == 0 && c->id == TSR_CODEC_NONE ? TSR_WHY_STEPS : TSR_WHY_CODEC;
	else if (dev->force_cpu)
		*why = TSR_WHY_FORCED;
	else if (r->has_perm || r->nfilter || w == 0 || r->npix <= 0 || !tsr_route_xform_ok(r) ||
		 (c->byte_shuffle && (cplx || w > 8)) || tsr_route_size_class(r) < TSR_SIZE_ELEMENTS)
		*why = TSR_WHY_STEPS;
	else if (kind / TSR_VARIANTS == TSR_FAM_ZSTD && (uint64_t)r->npix * w > 0xffffffffu)
		*why = TSR_WHY_LONG; /* (its one stream's frames could be: TSR_CUDA_ZSTD_E_LONG) */
	else
		return kind;
	return -1;
}

void tsr_route_chunk(const struct tsr_chunk_ref *r, const struct tsr_route_device *dev,
		     struct tsr_route *rt)
{
	rt->how = TSR_ROUTE_CPU;
	rt->kind = -1;
	rt->why = TSR_WHY_CODEC;
	rt->big_endian = r->codec.big_endian;
	rt->fill = r->codec.id == TSR_CODEC_FILL;
	rt->alt_width = 0;
	if (!dev->gpu) {
		rt->why = TSR_WHY_FORCED;
		return;
	}
	if (tsr_route_raw_ok(r)) {
		rt->how = TSR_ROUTE_RAW;
	} else if (tsr_route_blosc_ok(r)) {
		if (dev->force_cpu)
			rt->why = TSR_WHY_FORCED;
		else if (!dev->blosc)
			rt->why = TSR_WHY_HOST;
		else
			rt->how = TSR_ROUTE_BLOSC; /* its family once its header is read */
	} else if ((r->npre == 1 && r->pre[0].id == TSR_CODEC_BLOSC) ||
		   (r->npre == 0 && r->codec.id == TSR_CODEC_BLOSC_B2ND)) {
		/* a blosc chunk with a permutation (order F), numcodecs filters or an element the
		 * place kernel does not take: the blosc families exist, those steps do not */
		rt->why = dev->force_cpu ? TSR_WHY_FORCED : TSR_WHY_STEPS;
	} else if (r->codec.id != TSR_CODEC_FILL &&
		   (rt->kind = tsr_route_stream(r, dev, &rt->why)) >= 0) {
		rt->how = TSR_ROUTE_STREAM;
		/* Scaled integer FITS tiles may hold another width (CFITSIO decides by the
		 * size): room for the widest, as the CPU chain has. */
		rt->alt_width = r->codec.elem_from_size && !tsr_dtype_is_float(r->codec.elem) &&
				(r->xform.kind == TSR_XF_SCALE || r->xform.kind == TSR_XF_DEQUANT);
	}
}

_Static_assert(TSR_VALUES_COPY == (int)TSR_XF_COPY && TSR_VALUES_OFFSET == (int)TSR_XF_OFFSET &&
		       TSR_VALUES_SCALE == (int)TSR_XF_SCALE &&
		       TSR_VALUES_DEQUANT == (int)TSR_XF_DEQUANT,
	       "route values mirror enum tsr_xform_kind");

void tsr_route_values(const struct tsr_chunk_ref *r, const struct tsr_route *rt,
		      struct tsr_route_values *v)
{
	const struct tsr_xform *xf = &r->xform;
	memset(v, 0, sizeof(*v));
	v->out_type = xf->out;
	if (rt->how == TSR_ROUTE_CPU) {
		v->in_type = xf->out; /* decoded on the host: values are final */
		v->kind = TSR_VALUES_COPY;
		return;
	}
	v->in_type = r->codec.elem;
	v->in_be = (uint8_t)rt->big_endian;
	v->kind = xf->kind == TSR_XF_OFFSET ? TSR_VALUES_OFFSET
		  : xf->kind == TSR_XF_SCALE ? TSR_VALUES_SCALE
		  : xf->kind == TSR_XF_DEQUANT ? TSR_VALUES_DEQUANT : TSR_VALUES_COPY;
	v->dither = xf->dither == TSR_DITHER_1 ? 1 : xf->dither == TSR_DITHER_2 ? 2 : 0;
	v->dither_row = xf->dither_row;
	v->scale = xf->scale;
	v->zero = xf->zero;
	v->offset = xf->offset;
	v->has_blank = (uint8_t)xf->has_blank;
	v->blank = xf->blank;
	v->planes = rt->how == TSR_ROUTE_STREAM && r->codec.byte_shuffle &&
		    tsr_dtype_size(r->codec.elem) > 1;
}

void tsr_route_stream_check(const struct tsr_chunk_ref *r, const struct tsr_route *rt,
			    struct tsr_route_check *c)
{
	*c = (struct tsr_route_check){.npix = (uint64_t)r->npix,
				      .width = (uint32_t)tsr_dtype_size(r->codec.elem),
				      .elem = (int16_t)r->codec.elem,
				      .out = (int16_t)r->xform.out,
				      .kind = (uint8_t)rt->kind,
				      .elem_from_size = (uint8_t)r->codec.elem_from_size,
				      .xform = (uint8_t)r->xform.kind};
}

void tsr_route_bytes_check(uint64_t n, int kind, struct tsr_route_check *c)
{
	*c = (struct tsr_route_check){.npix = n, .width = 1, .elem = TSR_UINT8, .out = TSR_UINT8,
				      .kind = (uint8_t)kind, .xform = TSR_XF_COPY};
}

/*
 * The GPU takes blosc chunks whose streams a family decodes: each block's streams decode into
 * the chunk's decode buffer at the block's place; then the place kernel reads byte planes (a
 * lone shuffle by the element size), or a filter pass undoes the chunk's filters block by block
 * (shuffle, bitshuffle, delta, bytedelta; the truncations have nothing to undo). Memcpyed chunks
 * are copies, special chunks fills (tsr_blosc_pipeline). Dictionaries, other codecs and headers
 * the CPU refuses go to the CPU's tsr_blosc_decode.
 */
void tsr_route_blosc(const void *chunk, size_t nbytes, size_t elem_nbytes, int64_t nelem,
		     unsigned families, struct tsr_route *rt, int *codec_ret)
{
	struct tsr_blosc_info in;
	size_t w = elem_nbytes;
	rt->how = TSR_ROUTE_CPU;
	rt->kind = -1;
	rt->why = TSR_WHY_STEPS;
	rt->big_endian = 0;
	*codec_ret = -1;
	if (tsr_blosc_info(chunk, nbytes, &in) != TSR_OK)
		return; /* the full decode says what is wrong */
	*codec_ret = in.codec;
	int kind = in.codec == TSR_BLOSC_ZLIB ? TSR_FAM_INFLATE * TSR_VARIANTS + TSR_VAR_ZLIB
		   : in.codec == TSR_BLOSC_LZ4 ? TSR_FAM_LZ4 * TSR_VARIANTS + TSR_VAR_LZ4_RAW
		   : in.codec == TSR_BLOSC_BLOSCLZ ? TSR_FAM_BLOSCLZ * TSR_VARIANTS
		   : in.codec == TSR_BLOSC_ZSTD ? TSR_FAM_ZSTD * TSR_VARIANTS
						   : -1;
	if (kind < 0 || !(families >> (kind / TSR_VARIANTS) & 1)) {
		rt->why = TSR_WHY_CODEC;
		return;
	}
	if (in.use_dict) {
		rt->why = TSR_WHY_DICT;
		return;
	}
	/* the filter pass undoes DELTA only as the decode's last step (bfilter_core.h): a
	 * pipeline with another filter after it, or two of them, decodes on the CPU */
	for (int k = 0; k + 1 < in.nundo; k++)
		if (in.undo[k] == TSR_BLOSC_DELTA)
			return;
	if (in.nbytes != (int64_t)w * nelem || in.nbytes == 0 || w == 0 ||
	    in.value_nbytes > 65535) /* (the fill pass repeats patterns of up to 64 KiB) */
		return;
	rt->how = TSR_ROUTE_BLOSC;
	rt->kind = kind;
}

void tsr_route_blosc_ref(const void *chunk, const struct tsr_chunk_ref *r, unsigned families,
			 struct tsr_route *rt, int *codec_ret)
{
	size_t w = tsr_dtype_size(r->codec.elem);
	tsr_route_blosc(chunk, (size_t)r->nbytes, w, tsr_route_decoded_npix(r), families, rt,
			codec_ret);
	rt->big_endian = r->codec.big_endian;
	if (rt->how != TSR_ROUTE_BLOSC || r->codec.id != TSR_CODEC_BLOSC_B2ND)
		return;
	struct tsr_blosc_info in;
	if (tsr_blosc_info(chunk, (size_t)r->nbytes, &in) != TSR_OK) {
		rt->how = TSR_ROUTE_CPU; /* (tsr_route_blosc read it: not reached) */
		rt->why = TSR_WHY_STEPS;
		return;
	}
	/* A plain super-chunk's elements are big-endian when its writer was. */
	rt->big_endian = r->codec.big_endian || (r->codec.be_from_chunk && (in.blosc2_flags & 0x02));
	/* A NaN chunk holds the reader's native NaN whatever the array's byte order (c-blosc2),
	 * which the place kernel would swap: the CPU fills it. */
	int native_nan = rt->big_endian && in.special == TSR_BLOSC_SPECIAL_NAN;
	/* Blocks of the chunk's own size lay it out as the b2nd layout says; others the CPU
	 * reports (memcpyed and special chunks have no blocks to check). */
	int64_t bbytes = (int64_t)w, nblocks = 1;
	for (int d = 0; d < r->ndim; d++) {
		bbytes *= r->blocked.block[d];
		nblocks *= r->blocked.padded[d] / r->blocked.block[d];
	}
	int layout = !tsr_route_blocked(r) || in.memcpyed || in.special ||
		     (in.blocksize == bbytes && in.nblocks == nblocks);
	if (native_nan || !layout) {
		rt->how = TSR_ROUTE_CPU;
		rt->kind = -1;
		rt->why = TSR_WHY_STEPS;
	}
}

void tsr_route_blosc_blocks(const void *chunk, const struct tsr_chunk_ref *r, const int64_t *lo,
			    const int64_t *hi, struct tsr_blosc_blocks *sel)
{
	/* (Zarr blosc chunks and plain super-chunks without a b2nd layout: whole) */
	if (!tsr_route_layout_ok(r) || !tsr_b2nd_blocks(r, chunk, (size_t)r->nbytes, lo, hi, sel))
		memset(sel, 0, sizeof(*sel));
}

unsigned tsr_route_warp_factor(int kind)
{
	/* inflate: H200 ~8 MB/s a warp on 4 MiB gzip chunks, libdeflate ~300 MB/s a core. LZ4
	 * and BloscLZ copy whole runs a warp at a time: their warps lag a core far less. */
	/* RICE: one thread a tile, not a warp. Measured (H200, 16 cores, 2026-12-02, files read
	 * one at a time): 8 MiB int16 files of 1024 row tiles took 2.38 ms each on the GPU
	 * (mock-device, 3.52 GB/s) against 376 MB/s a core on the CPU (6.02 GB/s on 16 threads),
	 * a factor of 109 for 8 KiB tiles; quantized float32, 16 KiB tiles: 1.98 ms, 629 MB/s a
	 * core, 76. 96: such files go to the CPU's threads, 4096^2 images of row tiles (4096 of
	 * them) still to the GPU. */
	/* zstd: 40 was measured when one warp executed a whole frame (H200, 64 frames of 32 MiB,
	 * 11 MB/s a frame, against libzstd's 126 MB/s on a loaded build-box core). It now applies
	 * to a block, not a frame (tsr_route_serial_bytes): 64^3 u16 inner chunks (512 KiB) go to
	 * the GPU from 640 of them on 16 threads, as before, and 32 MiB chunks from the same 640
	 * blocks' worth (80 MiB). docs/design-notes.md has the rows that measured it. */
	return kind / TSR_VARIANTS == TSR_FAM_INFLATE ? 40
	       : kind / TSR_VARIANTS == TSR_FAM_RICE  ? 96
	       : kind / TSR_VARIANTS == TSR_FAM_ZSTD  ? 40
						      : 8;
}

uint64_t tsr_route_serial_bytes(int kind, uint64_t n)
{
	/* zstd (RFC 8878 3.1.1.2.4): a block decodes to 128 KiB at most; phase b decodes a
	 * frame's blocks a warp each, and phase c by cells (zstd.cu) executes them all at once
	 * while a batch has fewer multi-block frames than the GPU holds warps (about 1,056 on an
	 * H200), as a read of few large frames has */
	const uint64_t zblock = (uint64_t)128 << 10;
	return kind / TSR_VARIANTS == TSR_FAM_ZSTD && n > zblock ? zblock : n;
}

const char *tsr_route_blosc_name(int codec)
{
	static const char *const name[] = {"blosc/blosclz", "blosc/lz4", "blosc/snappy",
					   "blosc/zlib", "blosc/zstd", "blosc", "blosc/user"};
	return codec >= 0 && codec <= 6 ? name[codec] : "blosc";
}

const char *tsr_route_family_name(int family)
{
	static const char *const name[TSR_FAM_N] = {"inflate", "lz4", "blosclz", "rice", "zstd"};
	return family >= 0 && family < TSR_FAM_N ? name[family] : "unknown";
}

const char *tsr_route_why_text(int why)
{
	static const char *const reason[TSR_WHY_N] = {
		"decoder option cpu",
		"decoder auto: too few, large streams to keep the GPU busy at one warp a stream",
		"steps with no GPU kernel yet", "no GPU decoder yet",
		"blosc headers are read on the host, which cuFile and mock-device storage skip",
		"blosc dictionaries: no GPU decoder takes them yet",
		"zstd chunks of 4 GiB or more: the GPU decoder's frame positions are 32-bit"};
	return why >= 0 && why < TSR_WHY_N ? reason[why] : "unknown reason";
}

static int tsr_int_width_type(uint64_t w)
{
	return w == 1 ? TSR_UINT8 : w == 2 ? TSR_INT16 : w == 4 ? TSR_INT32 : TSR_INT64;
}

int tsr_route_verdict(const struct tsr_route_check *c, int status, const char *status_name,
		      uint64_t got, const char *name, char *why, size_t cap)
{
	static const char *const inflate[] = {"deflate", "zlib", "gzip", "deflate"};
	int family = c->kind / TSR_VARIANTS;
	const char *f = family == TSR_FAM_INFLATE ? inflate[c->kind % TSR_VARIANTS]
						  : tsr_route_family_name(family);
	uint64_t want = c->npix * c->width;
	if (status != 0) {
		snprintf(why, cap, "%s: %s (GPU %s)", f, status_name, tsr_route_family_name(family));
		return TSR_E_CORRUPT;
	}
	if (got == want)
		return TSR_OK;
	if (!c->elem_from_size) {
		snprintf(why, cap, "%s: decodes to %llu bytes, expected %llu", name,
			 (unsigned long long)got, (unsigned long long)want);
		return TSR_E_CORRUPT;
	}
	uint64_t ew = c->npix ? got / c->npix : 0;
	if (!(ew == 1 || ew == 2 || ew == 4 || ew == 8) || ew * c->npix != got) {
		snprintf(why, cap, "%s: decodes to %llu bytes, not a whole number of 1/2/4/8-byte "
			 "values for %llu pixels", name, (unsigned long long)got,
			 (unsigned long long)c->npix);
		return TSR_E_CORRUPT;
	}
	if (tsr_dtype_is_float((enum tsr_dtype)c->elem)) {
		snprintf(why, cap, "%s: float tile decodes to %llu bytes, expected %llu", name,
			 (unsigned long long)got, (unsigned long long)want);
		return TSR_E_CORRUPT;
	}
	if (c->xform == TSR_XF_SCALE)
		return TSR_OK; /* the kernel scaled integers of that width, as the CPU does */
	if (c->xform == TSR_XF_DEQUANT) {
		if (ew <= 4)
			return TSR_OK; /* uint8/int16 quantized values widen, as on the CPU */
		snprintf(why, cap, "%s: quantized tile of int64 values", name);
		return TSR_E_FORMAT;
	}
	snprintf(why, cap, "%s: tile holds %s values in a %s image", name,
		 tsr_dtype_name((enum tsr_dtype)tsr_int_width_type(ew)),
		 tsr_dtype_name((enum tsr_dtype)c->out));
	return TSR_E_CORRUPT;
}
