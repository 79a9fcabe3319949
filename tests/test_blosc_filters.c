/* test_blosc_filters.c - blosc filters (shuffle, bitshuffle, delta, bytedelta, trunc_prec) against plain reference code. */
#include "blosc_test_util.h"
#include "gpu/blosc_filter_ref.h"

/* ---- 1. filters against plain reference code ---- */

static void test_filters(void)
{
	int fails = 0;
	for (size_t ts = 1; ts <= 33; ts++) {
		size_t sizes[] = {0, 1, ts, 7 * ts, 8 * ts, 16 * ts + 3, 64 * ts, 1000 * ts + 5, 4099,
				  9000 * ts + 5}; /* (the last: strips of the bit unshuffle) */
		for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
			size_t nb = sizes[si];
			uint8_t *x = malloc(nb + 1), *s = malloc(nb + 1), *y = malloc(nb + 1);
			for (size_t k = 0; k < nb; k++)
				x[k] = (uint8_t)rnd();
			/* byte shuffle */
			shuffle_ref(s, x, nb, ts);
			tsr_blosc_unshuffle(y, s, nb, ts);
			if (memcmp(x, y, nb) != 0 && fails++ < 5)
				fprintf(stderr, "unshuffle ts %zu n %zu differs\n", ts, nb);
			/* bit shuffle, Blosc2 and Blosc1 rules */
			size_t n = nb / ts;
			uint8_t *tmp = malloc(nb + 1);
			/* each vector path of the bit transpose this CPU has, down to plain C */
			for (int isa = TSR_ISA_GFNI; isa >= TSR_ISA_NONE; isa--) {
				tsr_bitshuffle_limit_isa(isa);
				for (int withtmp = 0; withtmp < 2; withtmp++) {
					bitshuffle_ref(s, x, nb, ts, n - n % 8);
					tsr_blosc_bitunshuffle(y, s, nb, ts, 5, withtmp ? tmp : NULL);
					if (memcmp(x, y, nb) != 0 && fails++ < 5)
						fprintf(stderr, "bitunshuffle v5 ts %zu n %zu isa %d "
							"differs\n", ts, nb, isa);
					bitshuffle_ref(s, x, nb, ts, n % 8 == 0 ? n : 0);
					tsr_blosc_bitunshuffle(y, s, nb, ts, 2, withtmp ? tmp : NULL);
					if (memcmp(x, y, nb) != 0 && fails++ < 5)
						fprintf(stderr, "bitunshuffle v2 ts %zu n %zu isa %d "
							"differs\n", ts, nb, isa);
				}
			}
			tsr_bitshuffle_limit_isa(TSR_ISA_GFNI);
			free(tmp);
			/* delta: encode as c-blosc2 does, decode, for block 0 and another block */
			size_t unit = (ts == 1 || ts == 2 || ts == 4 || ts == 8) ? ts : (ts % 8 ? 1 : 8);
			size_t nu = nb / unit;
			memcpy(s, x, nb);
			for (size_t k = nu; k-- > 1;)
				for (size_t u = 0; u < unit; u++)
					s[k * unit + u] ^= x[(k - 1) * unit + u];
			memcpy(y, s, nb);
			tsr_blosc_delta_decode(y, y, nb, ts, NULL);
			if (memcmp(x, y, nb) != 0 && fails++ < 5)
				fprintf(stderr, "delta block 0 ts %zu n %zu differs\n", ts, nb);
			uint8_t *ref = malloc(nb + 1);
			for (size_t k = 0; k < nb; k++)
				ref[k] = (uint8_t)rnd();
			for (size_t k = 0; k < nb; k++)
				s[k] = k < nu * unit ? x[k] ^ ref[k] : x[k];
			tsr_blosc_delta_decode(y, s, nb, ts, ref);
			if (memcmp(x, y, nb) != 0 && fails++ < 5)
				fprintf(stderr, "delta block k ts %zu n %zu differs\n", ts, nb);
			/* bytedelta: per-stream differences */
			size_t len = nb / ts;
			for (size_t st = 0; st < ts; st++)
				for (size_t k = 0; k < len; k++)
					s[st * len + k] = (uint8_t)(x[st * len + k] -
								    (k ? x[st * len + k - 1] : 0));
			memcpy(s + len * ts, x + len * ts, nb - len * ts);
			tsr_blosc_bytedelta_decode(y, s, nb, ts, 0);
			if (memcmp(x, y, nb) != 0 && fails++ < 5)
				fprintf(stderr, "bytedelta ts %zu n %zu differs\n", ts, nb);
			free(ref);
			free(x);
			free(s);
			free(y);
		}
	}
	CHECK_EQ_INT(fails, 0);
}


int main(void)
{
	test_filters();
	CHECK_DONE();
}
