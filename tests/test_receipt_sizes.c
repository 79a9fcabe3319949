/* test_receipt_sizes.c - a receipt of each published size (before `decoder`, before `t_wait`, today's) gets the fields it has room for and nothing past them, from tsr_read and tsr_read_batch; a smaller one is refused; a host read waits for no GPU (t_wait 0). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tessera.h"

static char corpus[1024];

/* A receipt of `size` bytes in a buffer of guard bytes; returns whether the bytes past size
 * were left alone and struct_size came back as size. */
static int receipt_of(struct tsr_array *a, struct tsr_context *ctx, const char *path,
		      size_t size, int batch, struct tsr_receipt *full)
{
	unsigned char mem[sizeof(struct tsr_receipt) + 64];
	memset(mem, 0xab, sizeof(mem));
	struct tsr_receipt *r = (struct tsr_receipt *)(void *)mem;
	r->struct_size = size;
	int16_t *buf = malloc(2 * 200 * 300 * 2);
	struct tsr_buffer dst = {buf, 2 * 200 * 300 * 2, TSR_MEM_HOST, NULL};
	const char *paths[2] = {path, path};
	int st = batch ? tsr_read_batch(ctx, paths, 2, NULL, NULL, &dst, NULL, r)
		       : tsr_read(a, NULL, &dst, NULL, r);
	free(buf);
	CHECK_EQ_INT(st, TSR_OK);
	int ok = r->struct_size == size;
	for (size_t i = size; i < sizeof(mem); i++)
		ok &= mem[i] == 0xab;
	if (size == sizeof(struct tsr_receipt))
		memcpy(full, r, sizeof(*full));
	return ok;
}

int main(void)
{
	const char *env = getenv("TSR_CORPUS");
	snprintf(corpus, sizeof(corpus), "%s/fits/c_rice_i16_tiles.fits",
		 env ? env : "../../shared/corpus");
	struct tsr_context *ctx = NULL;
	struct tsr_array *a = NULL;
	CHECK_EQ_INT(tsr_context_create(NULL, &ctx), TSR_OK);
	CHECK_EQ_INT(tsr_open(ctx, corpus, NULL, &a), TSR_OK);
	if (!a)
		CHECK_DONE();
	const size_t sizes[] = {offsetof(struct tsr_receipt, decoder),
				offsetof(struct tsr_receipt, t_wait), sizeof(struct tsr_receipt)};
	for (int batch = 0; batch < 2; batch++) {
		struct tsr_receipt full;
		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
			CHECK(receipt_of(a, ctx, corpus, sizes[k], batch, &full));
		CHECK(full.t_total > 0 && full.t_wait == 0);
		CHECK(strcmp(full.engine, "cpu") == 0 && full.decoder[0] == '\0');
		/* below the first published size: refused, the receipt untouched */
		struct tsr_receipt small = {.struct_size = sizes[0] - 1};
		int16_t *buf = malloc(2 * 200 * 300 * 2);
		struct tsr_buffer dst = {buf, 2 * 200 * 300 * 2, TSR_MEM_HOST, NULL};
		const char *paths[2] = {corpus, corpus};
		CHECK_EQ_INT(batch ? tsr_read_batch(ctx, paths, 2, NULL, NULL, &dst, NULL, &small)
				   : tsr_read(a, NULL, &dst, NULL, &small),
			     TSR_E_INVALID_ARG);
		CHECK(small.t_total == 0);
		free(buf);
	}
	tsr_array_free(a);
	tsr_context_free(ctx);
	CHECK_DONE();
}
