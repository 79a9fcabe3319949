/* lz4_recs.cu - batched LZ4 through records: a group of lanes parses each stream into sequence records (lz4_recs_core.h), then the zstd decoder's phase c executes them, a warp a stream (zstd_exec_core.h, literals read from the input). */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>

#include "tessera.h"
#include "tsr_cuda.h"

#define TSR_ZS_REC_LSRC 1 /* (phase c's literals at the records' places in the input) */
#include "lz4_recs_core.h"
#include "lz_launch.h"
#include "zstd_exec_core.h"

/* phase c's CTA: four warps, a stream each (as zstd.cu's exec kernel) */
#define TSR_L4R_XTHREADS 128

/* The parse: each group takes the next stream (tsr_lz_streams: its size and status are the
 * sequential decoder's), writes its records from at[i] on, and its frame and block for phase
 * c: one block of all its records, out_size the bytes they make (a failing stream's too: the
 * bytes tsr_lz4_block writes before its failure). */
__global__ void __launch_bounds__(TSR_LZ_WARPS * 32)
tsr_l4r_parse_kernel(const void *const *d_in, const size_t *d_in_nbytes, void *const *d_out,
		     const size_t *d_out_cap, size_t *d_out_nbytes, int *d_status, size_t nstreams,
		     int variant, const uint64_t *at, struct tsr_zs_frame *fr,
		     struct tsr_zs_block *bl, struct tsr_zs_seq *rec, unsigned long long *next)
{
	tsr_lz_streams(
		[=](struct tsr_lz_smem *m, uint64_t i, const uint8_t *in, uint64_t n, uint8_t *out,
		    uint64_t cap, uint64_t *got) {
			struct tsr_l4r_sink k = {rec + at[i], at[i + 1] - at[i], 0, 0, 0};
			int st = tsr_l4r_stream(m, in, n, out, cap, variant, &k, got);
			if (k.full) { /* (never: tsr_l4r_bound) */
				st = TSR_CUDA_LZ_E_OVERFLOW;
				k.nrec = 0;
				*got = 0;
			}
			if (TSR_LZ_LANE == 0) {
				struct tsr_zs_frame f = {};
				f.window = 0xffffffffu; /* (the parse checked each distance) */
				f.nblocks = 1;
				fr[i] = f;
				struct tsr_zs_block b = {};
				b.seq_at = at[i];
				b.nseq = k.nrec;
				b.nlit = k.nlit;
				b.out_size = (uint32_t)*got;
				b.type = 2;
				bl[i] = b;
			}
			return st;
		},
		d_in, d_in_nbytes, d_out, d_out_cap, d_out_nbytes, d_status, nstreams, next);
}

/* Phase c, a warp a stream: its records into its output. */
__global__ void __launch_bounds__(TSR_L4R_XTHREADS, 8)
tsr_l4r_exec_kernel(const void *const *d_in, void *const *d_out, int *d_status,
		    const struct tsr_zs_frame *fr, const struct tsr_zs_block *bl,
		    const struct tsr_zs_seq *rec, size_t nstreams)
{
	__shared__ struct tsr_zs_xs xs[TSR_L4R_XTHREADS / 32];
	uint64_t g = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
	if (g >= nstreams || bl[g].nseq == 0) /* (the whole warp's) */
		return;
	const uint8_t *in = (const uint8_t *)d_in[g];
	TSR_LZ_GLOBAL(in);
	int st = tsr_zs_frame_exec(&xs[threadIdx.x / 32], in, &fr[g], &bl[g], in, rec,
				   (uint8_t *)d_out[g]);
	/* (never: the parse made phase c's checks; kept so that a fault there cannot pass) */
	if (st != TSR_CUDA_ZSTD_OK && TSR_ZS_LANE == 0 && d_status)
		d_status[g] = TSR_CUDA_LZ_E_OVERFLOW;
}

static int tsr_l4r_grid_cache[64];

static size_t tsr_l4r_align(size_t v)
{
	return (v + 255) & ~(size_t)255;
}

extern "C" int tsr_cuda_lz4_recs_batch(const void *const *d_in, const size_t *d_in_nbytes,
				       void *const *d_out, const size_t *d_out_cap,
				       size_t *d_out_nbytes, int *d_status, size_t nstreams,
				       int variant, void *d_scratch, size_t scratch_nbytes,
				       void *cuda_stream)
{
	if (variant != TSR_CUDA_LZ4_RAW && variant != TSR_CUDA_LZ4_SIZED)
		return TSR_E_INVALID_ARG;
	if (nstreams == 0)
		return TSR_OK;
	if (!d_in || !d_in_nbytes || !d_out || !d_out_cap || !d_scratch || scratch_nbytes < 256 ||
	    nstreams > ((size_t)1 << 31))
		return TSR_E_INVALID_ARG;
	cudaStream_t cs = (cudaStream_t)cuda_stream;
	/* the records' places: the input sizes are in device memory, so the one wait is here */
	size_t *h_n = (size_t *)malloc(nstreams * sizeof(size_t));
	uint64_t *h_at = (uint64_t *)malloc((nstreams + 1) * sizeof(uint64_t));
	char *sc = NULL;
	int rc = TSR_OK;
	cudaError_t e;
	if (!h_n || !h_at) {
		rc = TSR_E_NOMEM;
		goto out;
	}
	if ((e = cudaMemcpyAsync(h_n, d_in_nbytes, nstreams * sizeof(size_t),
				 cudaMemcpyDeviceToHost, cs)) != cudaSuccess ||
	    (e = cudaStreamSynchronize(cs)) != cudaSuccess) {
		rc = tsr_cuda_status(e, TSR_E_INTERNAL);
		goto out;
	}
	{
		uint64_t nrec = 0;
		for (size_t i = 0; i < nstreams; i++) {
			h_at[i] = nrec;
			/* (a stream past TSR_LZ_MAX is refused before its parse) */
			nrec += tsr_l4r_bound(h_n[i] > TSR_LZ_MAX ? 0 : h_n[i]);
		}
		h_at[nstreams] = nrec;
		size_t o_fr = tsr_l4r_align((nstreams + 1) * sizeof(uint64_t));
		size_t o_bl = o_fr + tsr_l4r_align(nstreams * sizeof(struct tsr_zs_frame));
		size_t o_rec = o_bl + tsr_l4r_align(nstreams * sizeof(struct tsr_zs_block));
		if (nrec > (SIZE_MAX - o_rec) / sizeof(struct tsr_zs_seq)) {
			rc = TSR_E_NOMEM;
			goto out;
		}
		if (tsr_cuda_scratch_alloc((void **)&sc, o_rec + nrec * sizeof(struct tsr_zs_seq),
					   cs) != cudaSuccess) {
			(void)cudaGetLastError();
			sc = NULL;
			rc = TSR_E_NOMEM; /* (the caller may take another kernel) */
			goto out;
		}
		uint64_t *at = (uint64_t *)sc;
		struct tsr_zs_frame *fr = (struct tsr_zs_frame *)(sc + o_fr);
		struct tsr_zs_block *bl = (struct tsr_zs_block *)(sc + o_bl);
		struct tsr_zs_seq *rec = (struct tsr_zs_seq *)(sc + o_rec);
		/* (a pageable copy is staged before cudaMemcpyAsync returns: h_at may go) */
		if ((e = cudaMemcpyAsync(at, h_at, (nstreams + 1) * sizeof(uint64_t),
					 cudaMemcpyHostToDevice, cs)) != cudaSuccess) {
			rc = tsr_cuda_status(e, TSR_E_INTERNAL);
			goto out;
		}
		rc = tsr_lz_launch(tsr_l4r_parse_kernel, tsr_l4r_grid_cache, 64, d_in, d_in_nbytes,
				   d_out, d_out_cap, nstreams, d_scratch, scratch_nbytes,
				   cuda_stream, d_in, d_in_nbytes, d_out, d_out_cap, d_out_nbytes,
				   d_status, nstreams, variant, (const uint64_t *)at, fr, bl, rec);
		if (rc)
			goto out;
		uint64_t blocks = (nstreams * 32 + TSR_L4R_XTHREADS - 1) / TSR_L4R_XTHREADS;
		tsr_l4r_exec_kernel<<<(unsigned)blocks, TSR_L4R_XTHREADS, 0, cs>>>(
			d_in, d_out, d_status, fr, bl, rec, nstreams);
		rc = tsr_cuda_status(cudaGetLastError(), TSR_E_INTERNAL);
	}
out:
	if (sc)
		cudaFreeAsync(sc, cs);
	free(h_n);
	free(h_at);
	return rc;
}
