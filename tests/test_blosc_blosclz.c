/* test_blosc_blosclz.c - BloscLZ on hand-made streams: every token kind, overlapping matches, and corrupt streams. */
#include "blosc_test_util.h"

/* ---- 2. BloscLZ on hand-made streams ---- */

static void test_blosclz(void)
{
	uint8_t out[64];
	size_t n;
	/* literal "abcd", a match of 3 at distance 4, literal "Z" */
	const uint8_t s1[] = {0x03, 'a', 'b', 'c', 'd', (1 << 5) | 0, 3, 0x00, 'Z'};
	CHECK_EQ_INT(tsr_blosclz_decode(out, sizeof(out), s1, sizeof(s1), &n), TSR_OK);
	CHECK_EQ_INT(n, 4 + 3 + 1);
	CHECK(memcmp(out, "abcdabcZ", 8) == 0);
	/* the top 3 bits of the first control byte are ignored */
	const uint8_t s2[] = {0x20 | 0x01, 'x', 'y', (2 << 5) | 0, 0, 0x00, '!'};
	CHECK_EQ_INT(tsr_blosclz_decode(out, sizeof(out), s2, sizeof(s2), &n), TSR_OK);
	CHECK_EQ_INT(n, 2 + 4 + 1);
	CHECK(memcmp(out, "xyyyyy!", 7) == 0);
	/* long match: ctrl>>5 == 7 with extra length bytes 255, 2 -> 6 + 257 + 3 = 266 */
	uint8_t big[400];
	const uint8_t s3[] = {0x00, 'q', (7 << 5) | 0, 255, 2, 0, 0x00, 'e'};
	CHECK_EQ_INT(tsr_blosclz_decode(big, sizeof(big), s3, sizeof(s3), &n), TSR_OK);
	CHECK_EQ_INT(n, 1 + 266 + 1);
	int all_q = 1;
	for (size_t k = 0; k < 267; k++)
		all_q &= big[k] == 'q';
	CHECK(all_q && big[267] == 'e');
	/* far match: 31,255 then a 16-bit distance - 8192 */
	static uint8_t far[20000];
	uint8_t s4[9000];
	size_t sp = 0, want = 0;
	/* 8200 literal bytes in runs of 32 */
	for (size_t k = 0; k < 8200; k += 32) {
		size_t r = 8200 - k < 32 ? 8200 - k : 32;
		s4[sp++] = (uint8_t)(r - 1);
		for (size_t m = 0; m < r; m++)
			s4[sp++] = (uint8_t)((k + m) * 7);
		want += r;
	}
	/* match of 3 at distance 8200: 8192 + 8 -> ofs bytes 0x00 0x08 */
	s4[sp++] = (1 << 5) | 31;
	s4[sp++] = 255;
	s4[sp++] = 0x00;
	s4[sp++] = 0x08;
	s4[sp++] = 0x00;
	s4[sp++] = 0x55;
	CHECK_EQ_INT(tsr_blosclz_decode(far, sizeof(far), s4, sp, &n), TSR_OK);
	CHECK_EQ_INT(n, want + 3 + 1);
	CHECK(far[8200] == far[0] && far[8201] == far[1] && far[8202] == far[2] && far[8203] == 0x55);
	/* random valid streams, written instruction by instruction next to a byte-by-byte
	 * reference, decoded into buffers of exactly their size (every copy path, up to the end) */
	static uint8_t want_buf[70000], got_buf[70000], stream[140000];
	int bad = 0;
	for (int it = 0; it < 3000; it++) {
		size_t target = 1 + (size_t)(rnd() % (it % 10 == 0 ? 69000 : 3000));
		size_t op = 0, sp = 0;
		int first = 1;
		while (op < target) {
			size_t room = target - op;
			if (first || op < 1 || rnd() % 3 == 0) {
				size_t r = 1 + (size_t)(rnd() % 32);
				if (r > room)
					r = room;
				stream[sp++] = (uint8_t)((r - 1) | (first ? (rnd() % 8) << 5 : 0));
				for (size_t k = 0; k < r; k++)
					want_buf[op++] = stream[sp++] = (uint8_t)(rnd() % 4);
				first = 0;
				continue;
			}
			if (room < 3) {
				stream[sp++] = (uint8_t)(room - 1);
				for (size_t k = 0; k < room; k++)
					want_buf[op++] = stream[sp++] = (uint8_t)rnd();
				continue;
			}
			size_t len, dist;
			uint64_t pick = rnd() % 4;
			len = pick == 0 ? 3 + rnd() % 6 : pick == 1 ? 9 + rnd() % 40 : 3 + rnd() % 2000;
			if (len > room)
				len = room;
			uint64_t dk = rnd() % 4;
			dist = dk == 0 ? 1 + rnd() % 8 : dk == 1 ? 1 + rnd() % 20 : 1 + rnd() % 70000;
			if (dist > op)
				dist = 1 + rnd() % op;
			unsigned lc = len <= 8 ? (unsigned)(len - 2) : 7;
			size_t d1 = dist - 1;
			int far = d1 >= 8191;
			stream[sp++] = (uint8_t)(lc << 5 | (far ? 31u : (unsigned)(d1 >> 8)));
			if (lc == 7) {
				size_t extra = len - 9;
				while (extra >= 255) {
					stream[sp++] = 255;
					extra -= 255;
				}
				stream[sp++] = (uint8_t)extra;
			}
			if (far) {
				stream[sp++] = 255;
				stream[sp++] = (uint8_t)((dist - 8192) >> 8);
				stream[sp++] = (uint8_t)(dist - 8192);
			} else {
				stream[sp++] = (uint8_t)d1;
			}
			for (size_t k = 0; k < len; k++, op++)
				want_buf[op] = want_buf[op - dist];
		}
		size_t got = 0;
		int rc = tsr_blosclz_decode(got_buf, target, stream, sp, &got);
		if ((rc || got != target || memcmp(got_buf, want_buf, target) != 0) && bad++ < 3)
			fprintf(stderr, "blosclz random stream %d (%zu bytes): rc %d, got %zu\n", it,
				target, rc, got);
		/* one byte less of room must fail, never overrun */
		if (tsr_blosclz_decode(got_buf, target - 1, stream, sp, &got) == TSR_OK && bad++ < 3)
			fprintf(stderr, "blosclz random stream %d decoded into too little room\n", it);
	}
	CHECK_EQ_INT(bad, 0);
	/* errors */
	const uint8_t e1[] = {0x05, 'a', 'b'}; /* literal past input */
	CHECK_EQ_INT(tsr_blosclz_decode(out, sizeof(out), e1, sizeof(e1), &n), TSR_E_CORRUPT);
	const uint8_t e2[] = {0x00, 'a', (1 << 5) | 0, 5}; /* distance 6 > 1 byte of output */
	CHECK_EQ_INT(tsr_blosclz_decode(out, sizeof(out), e2, sizeof(e2), &n), TSR_E_CORRUPT);
	CHECK(strstr(tsr_errmsg(), "blosclz") != NULL);
	CHECK_EQ_INT(tsr_blosclz_decode(out, 2, s1, sizeof(s1), &n), TSR_E_CORRUPT);
	const uint8_t e3[] = {0x00, 'a', (7 << 5) | 0, 255}; /* truncated length */
	CHECK_EQ_INT(tsr_blosclz_decode(out, sizeof(out), e3, sizeof(e3), &n), TSR_E_CORRUPT);
	const uint8_t e4[] = {0x00, 'a', (1 << 5) | 31, 255, 0x01}; /* truncated far distance */
	CHECK_EQ_INT(tsr_blosclz_decode(out, sizeof(out), e4, sizeof(e4), &n), TSR_E_CORRUPT);
}


int main(void)
{
	test_blosclz();
	CHECK_DONE();
}
