/* emu_lz4_pparse.c - the LZ4 batches' parallel parse (lz4_core.h, TSR_LZ4_PPARSE): whole decodes against the sequential decoder (emu_lz4_fast.c's blocks), and each parse against the serial one from the same place: the same sequences, places and end, across window ends too. */
#define EMU_BATCHED 1
#define EMU_PPARSE 1
static unsigned long long moved; /* parses gone on in a moved window */
#define TSR_LZ4_PP_MORE() (moved++)
static void parse_direct(void);
#define EMU_EXTRA parse_direct
#include "emu_lz4_fast.c"

/* Both parses from ip with the window first filled at p0 (the state a block's loop leaves). */
static size_t parses, many, crossed;

static void one_parse(const unsigned char *in, uint32_t n, uint32_t p0, uint32_t ip, uint32_t op,
		      uint32_t cap)
{
	static struct tsr_lz_smem ms, mp;
	struct tsr_lz zs = {in, n, 0, &ms}, zp = {in, n, 0, &mp};
	tsr_lz_fill(&zs, p0);
	tsr_lz_fill(&zp, p0);
	struct tsr_lz4_seq S[32], P[32];
	uint32_t ips = ip, ops = op, ipp = ip, opp = op;
	uint32_t cs = tsr_lz4_parse(&zs, &ips, &ops, cap, S);
	unsigned long long was = moved;
	uint32_t cp = tsr_lz4_pparse(&zp, &ipp, &opp, cap, P);
	parses++;
	many += cs >= 8;
	crossed += moved != was;
	int bad = cp != cs || ipp != ips || opp != ops;
	for (uint32_t i = 0; i < cp && !bad; i++)
		bad = memcmp(&S[i], &P[i], sizeof S[i]) != 0;
	if (bad) {
		fprintf(stderr, "parse from %u (window at %u, n %u, op %u, cap %u): serial %u "
			"sequences to %u, parallel %u to %u\n", ip, p0, n, op, cap, cs, ips, cp, ipp);
		check_failures++;
	}
}

static void parse_direct(void)
{
	unsigned char *buf = (unsigned char *)check_malloc(400);
	uint64_t s = 777;
	for (int t = 0; t < 200000; t++) {
		uint32_t n = 1 + (uint32_t)(lzp_rand(&s) % 380);
		unsigned mis = (unsigned)(lzp_rand(&s) % 4);
		unsigned char *in = buf + mis;
		/* short tokens mostly (literals under 15, match codes under 15), some long ones */
		uint32_t k = 0, toks[400], ntok = 0;
		while (k < n) {
			toks[ntok++] = k;
			uint32_t lit = (uint32_t)(lzp_rand(&s) % 8), code = (uint32_t)(lzp_rand(&s) % 15);
			if (lzp_rand(&s) % 50 == 0)
				lit = 15;
			if (lzp_rand(&s) % 50 == 0)
				code = 15;
			in[k++] = (unsigned char)(lit << 4 | code);
			for (uint32_t j = 0; j < lit + 2 && k < n; j++)
				in[k++] = (unsigned char)(j == lit ? 1 + lzp_rand(&s) % 64
						     : j == lit + 1 ? lzp_rand(&s) % 64 == 0 : lzp_rand(&s));
		}
		/* a token's place mostly (a sequence's start), else any byte */
		uint32_t ip = t % 8 ? toks[lzp_rand(&s) % ntok] : (uint32_t)(lzp_rand(&s) % n);
		/* the window from a few bytes before ip, or from anywhere up to 128 before it */
		uint32_t back = (uint32_t)(lzp_rand(&s) % (t % 2 ? 8 : 128));
		uint32_t p0 = back > ip ? 0 : ip - back;
		/* room behind for most distances, and a capacity that is mostly large enough */
		uint32_t op = t % 3 ? 64 + (uint32_t)(lzp_rand(&s) % 200) : (uint32_t)(lzp_rand(&s) % 8);
		uint32_t cap = op + (uint32_t)(lzp_rand(&s) % (t % 3 ? 2000 : 300));
		one_parse(in, n, p0, ip, op, cap);
	}
	free(buf);
	printf("lz4 parallel parse: %zu parses equal to the serial one's (%zu of 8 sequences or "
	       "more, %zu going on past the window they started in, %llu moves)\n", parses, many,
	       crossed, moved);
	CHECK(parses == 200000 && many > 20000 && crossed > 10000);
}
