/* test_blosc_corrupt.c - corrupt blosc chunks (header fields out of range, damaged bytes) fail cleanly or decode to the size their header states. */
#include "blosc_test_util.h"

/* ---- 6. corrupt input ---- */

static int fuzz_runs, fuzz_ok;

/* Decoding must fail cleanly or give a chunk of the size its header states. */
static void decode_any(const uint8_t *c, size_t cn, uint8_t *out, size_t cap,
		       struct tsr_blosc_scratch *scratch)
{
	size_t got = 0;
	int rc = tsr_blosc_decode(out, cap, c, cn, scratch, &got);
	fuzz_runs++;
	if (rc == TSR_OK) {
		struct tsr_blosc_info in;
		CHECK_EQ_INT(tsr_blosc_info(c, cn, &in), TSR_OK);
		CHECK_EQ_INT(got, in.nbytes);
		CHECK(got <= cap);
		fuzz_ok++;
	} else {
		CHECK(rc == TSR_E_CORRUPT || rc == TSR_E_UNSUPPORTED || rc == TSR_E_TOO_SMALL);
		CHECK(tsr_errmsg()[0] != 0);
	}
	struct tsr_blosc_info in;
	if (tsr_blosc_info(c, cn, &in) == TSR_OK && in.nblocks > 0) {
		int64_t first = (int64_t)(rnd() % (uint64_t)in.nblocks);
		rc = tsr_blosc_decode_blocks(out, cap, c, cn, first, 1, scratch);
		CHECK(rc == TSR_OK || rc == TSR_E_CORRUPT || rc == TSR_E_UNSUPPORTED ||
		      rc == TSR_E_TOO_SMALL);
	}
}

static void put32(uint8_t *p, int32_t v)
{
	uint32_t u = (uint32_t)v;
	p[0] = (uint8_t)u;
	p[1] = (uint8_t)(u >> 8);
	p[2] = (uint8_t)(u >> 16);
	p[3] = (uint8_t)(u >> 24);
}

/* Header fields out of range, one at a time, on a copy of a valid chunk. */
static void test_header_fields(const uint8_t *c0, size_t cn, int extended)
{
	uint8_t *c = malloc(cn), out[1 << 16];
	struct tsr_blosc_info in;
	CHECK_EQ_INT(tsr_blosc_info(c0, cn, &in), TSR_OK);
	CHECK(!in.memcpyed && !in.special && in.nblocks >= 2);
	size_t cap = sizeof(out);
#define MUTATE(stmt, want)                                                                  \
	do {                                                                                \
		memcpy(c, c0, cn);                                                          \
		stmt;                                                                       \
		int rc_ = tsr_blosc_decode(out, cap, c, cn, NULL, NULL);                    \
		if (rc_ != (want))                                                          \
			fprintf(stderr, "mutation `%s`: rc %d (%s), want %d\n", #stmt, rc_, \
				tsr_errmsg(), want);                                        \
		CHECK_EQ_INT(rc_, want);                                                    \
	} while (0)
	MUTATE(c[0] = 0, TSR_E_CORRUPT);
	MUTATE(c[0] = 7, TSR_E_UNSUPPORTED);
	MUTATE(c[3] = 0, TSR_E_CORRUPT);
	MUTATE(put32(c + 4, -1), TSR_E_CORRUPT);
	MUTATE(put32(c + 4, (int32_t)cap + 1), TSR_E_TOO_SMALL);
	MUTATE(put32(c + 8, 0), TSR_E_CORRUPT);
	MUTATE(put32(c + 8, -5), TSR_E_CORRUPT);
	MUTATE(put32(c + 12, 15), TSR_E_CORRUPT);
	MUTATE(put32(c + 12, (int32_t)cn + 1), TSR_E_CORRUPT);
	MUTATE(put32(c + 12, -1), TSR_E_CORRUPT);
	MUTATE(c[2] = (uint8_t)((c[2] & 0x1f) | 2 << 5), TSR_E_UNSUPPORTED); /* snappy */
	MUTATE(c[2] = (uint8_t)((c[2] & 0x1f) | 5 << 5), TSR_E_UNSUPPORTED);
	MUTATE(c[2] = (uint8_t)((c[2] & 0x1f) | 6 << 5), TSR_E_UNSUPPORTED); /* user codec */
	int hdr = extended ? 32 : 16;
	MUTATE(put32(c + hdr, 0), TSR_E_CORRUPT);               /* block 0 inside the header */
	MUTATE(put32(c + hdr + 4, (int32_t)cn), TSR_E_CORRUPT); /* block 1 at the end */
	MUTATE(put32(c + hdr + 4, -100), TSR_E_CORRUPT);
	int32_t b0 = (int32_t)tsr_le32(c0 + hdr);
	MUTATE(put32(c + b0, (int32_t)cn), TSR_E_CORRUPT); /* stream size past the end */
	MUTATE(put32(c + b0, -300), TSR_E_CORRUPT);        /* run of no byte */
	MUTATE((put32(c + b0, -7), c[b0 + 4] = 0), TSR_E_CORRUPT); /* unknown token */
	/* block table bigger than the chunk: tiny blocks */
	MUTATE(put32(c + 8, 1), TSR_E_CORRUPT);
	if (extended) {
		MUTATE(c[16] = 99, TSR_E_UNSUPPORTED);                    /* unknown filter */
		MUTATE(c[31] |= 0x08, TSR_E_UNSUPPORTED);                 /* lazy chunk */
		MUTATE(c[30] |= 0x01, TSR_E_UNSUPPORTED);                 /* VL blocks */
		MUTATE(c[31] = (uint8_t)((c[31] & 0x8f) | 5 << 4), TSR_E_CORRUPT); /* special 5 */
		MUTATE((c[31] |= 0x01, put32(c + hdr + 4 * (int)in.nblocks, 1 << 30)),
		       TSR_E_CORRUPT); /* dictionary larger than the chunk */
		/* DELTA with a filter after it on decode, or twice: pipelines c-blosc2 writes
		 * (test_blosc_delta_order.c), decoded (to other values than the chunk's own) */
		MUTATE((c[16] = TSR_BLOSC_SHUFFLE, c[17] = TSR_BLOSC_DELTA), TSR_OK);
		MUTATE((c[16] = TSR_BLOSC_DELTA, c[17] = TSR_BLOSC_DELTA), TSR_OK);
	}
#undef MUTATE
	free(c);
}

static void test_corrupt(struct fixture *fx, int nfx, const char *dir)
{
	struct tsr_blosc_scratch *scratch;
	tsr_blosc_scratch_create(&scratch);
	int hv1 = 0, hv2 = 0;
	for (int i = 0; i < nfx; i++) {
		const struct fixture *f = &fx[i];
		/* a spread of codecs, filters and specials; every 7th fixture */
		if (i % 7 != 0 && !f->special && strstr(f->name, "dict") == NULL &&
		    strstr(f->name, "runs") == NULL)
			continue;
		char path[8192];
		size_t cn = 0;
		snprintf(path, sizeof(path), "%s/%s.blosc", dir, f->name);
		uint8_t *c0 = read_file(path, &cn);
		if (!c0)
			continue;
		size_t cap = (size_t)f->nbytes + 64;
		uint8_t *out = malloc(cap), *c = malloc(cn + 1);
		/* every truncation, with and without the header's size patched to match */
		for (size_t len = 0; len < cn; len++) {
			memcpy(c, c0, len);
			CHECK(tsr_blosc_decode(out, cap, c, len, scratch, NULL) != TSR_OK);
			if (len >= 16) {
				put32(c + 12, (int32_t)len);
				decode_any(c, len, out, cap, scratch);
			}
		}
		/* random byte flips */
		for (int it = 0; it < 400; it++) {
			memcpy(c, c0, cn);
			int nflip = 1 + (int)(rnd() % 3);
			for (int k = 0; k < nflip; k++) {
				size_t at = (size_t)(rnd() % cn);
				/* favour the header and block table, where sizes live */
				if (rnd() % 2)
					at = (size_t)(rnd() % (cn < 64 ? cn : 64));
				c[at] ^= (uint8_t)(1 + rnd() % 255);
			}
			decode_any(c, cn, out, cap, scratch);
		}
		if (!f->memcpyed && !f->special && f->nbytes / (f->blocksize ? f->blocksize : 1) >= 2) {
			int ext = f->version >= 3;
			if ((ext && !hv2) || (!ext && !hv1)) {
				test_header_fields(c0, cn, ext);
				hv1 |= !ext;
				hv2 |= ext;
			}
		}
		free(out);
		free(c);
		free(c0);
	}
	CHECK(hv1 && hv2);
	tsr_blosc_scratch_free(scratch);
	printf("corrupt input: %d decodes (%d accepted with the right size)\n", fuzz_runs, fuzz_ok);
}


int main(void)
{
	char dir[4096];
	struct fixture *fx = NULL;
	int nfx = load_fixtures(&fx, dir, sizeof(dir));
	CHECK(nfx > 200);
	if (nfx > 0)
		test_corrupt(fx, nfx, dir);
	free(fx);
	CHECK_DONE();
}
