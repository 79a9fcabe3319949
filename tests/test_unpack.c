/* test_unpack.c - whole-file decompression into a memory file (src/io/unpack.c, lzw.c): gzip
 * members and zero padding, bzip2 streams, unix compress as compress(1) writes it; the size
 * limit; every truncation and trailing garbage failing with a message, never a crash. */
#include <bzlib.h>
#include <libdeflate.h>
#include <stdint.h>
#include <unistd.h>

#include "check.h"
#include "io/io.h"
#include "io/unpack.h"
#include "tessera.h"

#define N (300 * 1000)
#define LIM ((uint64_t)1 << 30)
static unsigned char text[N];

/* Decompresses in, expecting want[0, nwant) (status TSR_OK) or status st. */
static void expect(const char *what, enum tsr_unpack_kind kind, const unsigned char *in, size_t n,
		   uint64_t limit, int st, const unsigned char *want, size_t nwant)
{
	int fd = -1;
	uint64_t got = 0;
	int rc = tsr_unpack(kind, in, n, limit, &fd, &got);
	if (rc != st) {
		fprintf(stderr, "%s: status %d (want %d): %s\n", what, rc, st, rc ? tsr_errmsg() : "");
		check_failures++;
	}
	if (rc == TSR_OK) {
		unsigned char *back = malloc(got + 1);
		CHECK_EQ_INT(got, nwant);
		CHECK(got != nwant || tsr_file_pread(fd, back, got, 0) == TSR_OK);
		CHECK(got != nwant || memcmp(back, want, nwant) == 0);
		free(back);
		tsr_file_close(fd);
	} else {
		CHECK(strlen(tsr_errmsg()) > 0);
	}
}

static size_t gz(const unsigned char *in, size_t n, unsigned char *out, size_t cap)
{
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(6);
	size_t m = libdeflate_gzip_compress(c, in, n, out, cap);
	libdeflate_free_compressor(c);
	return m;
}

static size_t bz(const unsigned char *in, size_t n, unsigned char *out, size_t cap)
{
	unsigned m = (unsigned)cap;
	return BZ2_bzBuffToBuffCompress((char *)out, &m, (char *)in, (unsigned)n, 9, 0, 0) == BZ_OK
		       ? m : 0;
}

/* compress(1) of text[0, n) at the given largest code width. */
static size_t lzw(size_t n, int bits, unsigned char *out, size_t cap)
{
	char path[64], cmd[160];
	snprintf(path, sizeof(path), "/tmp/tsr_unpack_%d.txt", (int)getpid());
	FILE *f = fopen(path, "wb");
	if (!f)
		return 0;
	fwrite(text, 1, n, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "compress -c -f -b %d < %s", bits, path);
	FILE *p = popen(cmd, "r");
	size_t m = p ? fread(out, 1, cap, p) : 0;
	if (p)
		pclose(p);
	remove(path);
	return m;
}

int main(void)
{
	/* text with repeats and noise: tables fill, and compress clears its own */
	uint32_t x = 12345;
	for (size_t i = 0; i < N; i++) {
		x = x * 1103515245u + 12345u;
		text[i] = i % 5000 < 2500 ? (unsigned char)("FITS tile "[i % 10]) : (unsigned char)(x >> 24);
	}
	static unsigned char c[2 * N], d[4 * N];
	CHECK_EQ_INT(tsr_unpack_sniff((const unsigned char *)"BZh9", 4), TSR_UNPACK_BZIP2);
	CHECK_EQ_INT(tsr_unpack_sniff((const unsigned char *)"BZh0", 4), TSR_UNPACK_NONE);
	CHECK_EQ_INT(tsr_unpack_sniff((const unsigned char *)"SIMPLE", 6), TSR_UNPACK_NONE);
	CHECK(tsr_unpack_limit() > 0);

	/* gzip: three members, then zero padding; garbage after a member is an error */
	size_t a = gz(text, N / 3, c, sizeof(c));
	size_t b = a + gz(text + N / 3, N / 3, c + a, sizeof(c) - a);
	size_t m = b + gz(text + 2 * (N / 3), N - 2 * (N / 3), c + b, sizeof(c) - b);
	expect("gzip members", TSR_UNPACK_GZIP, c, m, LIM, TSR_OK, text, N);
	memset(c + m, 0, 1000);
	expect("gzip padded", TSR_UNPACK_GZIP, c, m + 1000, LIM, TSR_OK, text, N);
	memcpy(c + m, "junk", 4);
	expect("gzip garbage", TSR_UNPACK_GZIP, c, m + 4, LIM, TSR_E_CORRUPT, NULL, 0);
	CHECK(strstr(tsr_errmsg(), "after member 3") != NULL);
	expect("gzip limit", TSR_UNPACK_GZIP, c, m, N - 1, TSR_E_NOMEM, NULL, 0);
	CHECK(strstr(tsr_errmsg(), "larger than") != NULL);
	expect("gzip exact limit", TSR_UNPACK_GZIP, c, m, N, TSR_OK, text, N);
	for (size_t cut = 0; cut < m; cut += 1 + cut / 7) /* every truncation fails cleanly */
		expect("gzip cut", TSR_UNPACK_GZIP, c, cut, LIM, TSR_E_CORRUPT,
		       NULL, 0);

	/* bzip2: two streams */
	a = bz(text, N / 2, c, sizeof(c));
	m = a + bz(text + N / 2, N - N / 2, c + a, sizeof(c) - a);
	expect("bzip2 streams", TSR_UNPACK_BZIP2, c, m, LIM, TSR_OK, text, N);
	expect("bzip2 limit", TSR_UNPACK_BZIP2, c, m, N / 2 + 10, TSR_E_NOMEM, NULL, 0);
	memcpy(c + m, "BZh9 junk", 9);
	expect("bzip2 garbage", TSR_UNPACK_BZIP2, c, m + 9, LIM, TSR_E_CORRUPT, NULL, 0);
	for (size_t cut = 4; cut < m; cut += 1 + cut / 5)
		expect("bzip2 cut", TSR_UNPACK_BZIP2, c, cut, LIM, TSR_E_CORRUPT, NULL, 0);

	/* compress: every code width it writes well (its own -b 9 output it cannot read back) */
	for (int bits = 10; bits <= 16; bits++) {
		m = lzw(N, bits, c, sizeof(c));
		CHECK(m > 3);
		expect("compress", TSR_UNPACK_COMPRESS, c, m, LIM, TSR_OK, text, N);
		expect("compress limit", TSR_UNPACK_COMPRESS, c, m, N - 1, TSR_E_NOMEM, NULL, 0);
		size_t got = 0;
		/* LZW has no end mark: a cut stream decodes to a prefix of the text */
		for (size_t cut = 3; cut < m; cut += 1 + cut / 3) {
			int st = tsr_lzw_decode(c, cut, d, sizeof(d), &got);
			CHECK(st == TSR_OK && got <= N && memcmp(d, text, got) == 0);
		}
	}
	static const unsigned char bad[] = {0x1f, 0x9d, 0x90, 0xff, 0xff, 0xff, 0xff};
	expect("compress bad code", TSR_UNPACK_COMPRESS, bad, sizeof(bad), LIM,
	       TSR_E_CORRUPT, NULL, 0);
	static const unsigned char wide[] = {0x1f, 0x9d, 0x91, 0x41};
	expect("compress 17 bits", TSR_UNPACK_COMPRESS, wide, sizeof(wide), LIM,
	       TSR_E_UNSUPPORTED, NULL, 0);
	CHECK_DONE();
}
