/* emu_zstd_long.c - the GPU zstd decoder's 32-bit frame positions (tsr_zs_layout, zstd_exec_core.h, run on the CPU): a frame of 4 GiB or more of output refused, one byte less placed, a stream of frames past 4 GiB placed, and a single-segment frame's window taken at most 2^32 - 1. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#define TSR_ZSTD_EMU 1
#include "cuda/zstd_exec_core.h"

#define BLOCK (128u << 10)
#define MAX_BLOCKS (1u << 16)

static struct tsr_zs_block blocks[MAX_BLOCKS];

/* Frame f of n blocks of BLOCK bytes from block first, the last one short by `less`. */
static struct tsr_zs_frame frame_of(uint32_t first, uint32_t n, uint32_t less)
{
	struct tsr_zs_frame f;
	memset(&f, 0, sizeof f);
	f.first_block = first;
	f.nblocks = n;
	f.window = BLOCK;
	for (uint32_t k = 0; k < n; k++) {
		memset(&blocks[first + k], 0, sizeof blocks[0]);
		blocks[first + k].type = 2;
		blocks[first + k].status = TSR_CUDA_ZSTD_OK;
		blocks[first + k].out_size = BLOCK - (k == n - 1 ? less : 0);
	}
	return f;
}

int main(void)
{
	const uint64_t cap = (uint64_t)1 << 40;
	uint64_t total = 7;

	/* 32,768 blocks of 128 KiB: 2^32 bytes, one past the 32-bit positions */
	struct tsr_zs_frame f = frame_of(0, 32768, 0);
	CHECK_EQ_INT(tsr_zs_layout(&f, 1, blocks, cap, &total), TSR_CUDA_ZSTD_E_LONG);
	CHECK_EQ_INT(total, 0);

	/* the same with its content size declared: still refused for its length */
	f.has_size = 1;
	f.content_size = (uint64_t)1 << 32;
	CHECK_EQ_INT(tsr_zs_layout(&f, 1, blocks, cap, &total), TSR_CUDA_ZSTD_E_LONG);
	/* a declared size it does not match says so first, as for any frame */
	f.content_size = ((uint64_t)1 << 32) + 1;
	CHECK_EQ_INT(tsr_zs_layout(&f, 1, blocks, cap, &total), TSR_CUDA_ZSTD_E_SIZE);

	/* one byte less: 2^32 - 1, the longest frame phase c takes */
	f = frame_of(0, 32768, 1);
	CHECK_EQ_INT(tsr_zs_layout(&f, 1, blocks, cap, &total), TSR_CUDA_ZSTD_OK);
	CHECK(total == 0xffffffffu);
	CHECK(f.out_at == 0);

	/* three frames of 2 GiB - 1, 2 GiB and 1 GiB: the stream is past 4 GiB, no frame is, and
	 * each is placed after the ones before */
	struct tsr_zs_frame fr[3] = {frame_of(0, 16384, 1), frame_of(16384, 16384, 0),
				     frame_of(32768, 8192, 0)};
	CHECK_EQ_INT(tsr_zs_layout(fr, 3, blocks, cap, &total), TSR_CUDA_ZSTD_OK);
	CHECK(fr[0].out_at == 0);
	CHECK(fr[1].out_at == ((uint64_t)1 << 31) - 1);
	CHECK(fr[2].out_at == ((uint64_t)1 << 32) - 1);
	CHECK(total == ((uint64_t)5 << 30) - 1);
	/* a capacity one short refuses the last frame, not a long one */
	CHECK_EQ_INT(tsr_zs_layout(fr, 3, blocks, total - 1, &total), TSR_CUDA_ZSTD_E_OVERFLOW);

	/* the windows the 32-bit checks use: a frame's own below 2^32, else 2^32 - 1 (a
	 * single-segment frame's window is its content size, 64-bit) */
	struct tsr_zs_frame w;
	memset(&w, 0, sizeof w);
	w.window = (uint64_t)15 << 28; /* the largest a window descriptor codes (wlog 31, 7/8) */
	CHECK(tsr_zs_window32(&w) == (uint32_t)15 << 28);
	w.window = 0xffffffffu;
	CHECK(tsr_zs_window32(&w) == 0xffffffffu);
	w.window = (uint64_t)1 << 32;
	CHECK(tsr_zs_window32(&w) == 0xffffffffu);
	w.window = (uint64_t)5 << 40;
	CHECK(tsr_zs_window32(&w) == 0xffffffffu);

	printf("frames of 2^32 bytes refused, 2^32 - 1 placed, a 5 GiB stream of three placed\n");
	CHECK_DONE();
}
