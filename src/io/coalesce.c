/* coalesce.c - the one read-coalescing and piece-splitting rule: spans back to back become one read, large ones pieces. */
#include <string.h>

#include "../core/internal.h"
#include "storage.h"

static int tsr_piece_add(struct tsr_piece **pieces, int64_t *n, size_t *cap, struct tsr_piece p)
{
	int st = tsr_grow((void **)pieces, cap, (size_t)*n + 1, sizeof(**pieces), 256);
	if (st)
		return st;
	(*pieces)[(*n)++] = p;
	return TSR_OK;
}

int tsr_coalesce(const struct tsr_span *spans, int64_t nspans, const struct tsr_coalesce_rule *rule,
		 struct tsr_piece **pieces, int64_t *npieces, size_t *cap)
{
	const uint64_t cut = rule->piece ? rule->piece : UINT64_MAX;
	int st = TSR_OK;
	for (int64_t i = 0; i < nspans && st == TSR_OK;) {
		const struct tsr_span *s = &spans[i];
		int64_t j = i + 1;
		if (!s->nbytes) { /* nothing to read of it alone */
			i++;
			continue;
		}
		uint64_t n = s->nbytes;
		if (n <= rule->start_max) {
			/* (n - sums compared against run_max - n: no overflow) */
			while (j < nspans && spans[j].nbytes <= rule->join_max &&
			       n <= rule->run_max && spans[j].nbytes <= rule->run_max - n &&
			       spans[j].offset == s->offset + n && spans[j].dst == s->dst + n &&
			       (spans[j].file == s->file || !strcmp(spans[j].file, s->file))) {
				n += spans[j].nbytes;
				j++;
			}
		}
		if (j > i + 1) {
			st = tsr_piece_add(pieces, npieces, cap,
					   (struct tsr_piece){i, j - i, s->offset, n, s->dst});
		} else {
			const uint64_t piece = n <= rule->whole_max ? UINT64_MAX : cut;
			for (uint64_t off = 0; st == TSR_OK; off += piece) {
				uint64_t len = n - off < piece ? n - off : piece;
				st = tsr_piece_add(pieces, npieces, cap,
						   (struct tsr_piece){i, 1, s->offset + off, len,
								      s->dst + off});
				if (len == n - off)
					break; /* (the last: off + piece may not wrap) */
			}
		}
		i = j;
	}
	return st;
}
