/* lzw.c - unix compress (.Z) decoding: LZW codes of 9 up to 16 bits, no Debian library does it.
 *
 * The format, as compress(1) writes it and gzip reads it: 1f 9d, a flags byte (low 5 bits: the
 * largest code width; 0x80: block mode, where code 256 clears the table), then codes packed
 * least significant bit first. The writer emits codes in groups of 8 (n_bits bytes), and when
 * the width grows or the table is cleared the rest of the group is padding: the reader skips to
 * the next group boundary, counted from where the current width began. Work is bounded by the
 * input (one code per 9 bits at least) and the output room; every code is checked against the
 * table before use, and a string is unwound through at most 65536 entries. */
#include <stdlib.h>

#include "../core/internal.h"
#include "unpack.h"

#define TSR_LZW_MAX_BITS 16
#define TSR_LZW_CLEAR 256

/* The start of the next group of 8 codes of n_bits, from a width that began at seg. */
static uint64_t tsr_lzw_align(uint64_t pos, uint64_t seg, int n_bits)
{
	uint64_t g = (uint64_t)n_bits * 8, rel = pos - seg;
	return seg + (rel + g - 1) / g * g;
}

int tsr_lzw_decode(const unsigned char *in, size_t n, unsigned char *out, size_t cap,
		   size_t *nbytes_ret)
{
	*nbytes_ret = 0;
	if (n < 3 || in[0] != 0x1f || in[1] != 0x9d)
		return tsr_error(TSR_E_FORMAT, "compress: no 1f 9d magic");
	int maxbits = in[2] & 0x1f, block_mode = (in[2] & 0x80) != 0;
	if (in[2] & 0x60)
		return tsr_error(TSR_E_UNSUPPORTED, "compress: unknown flags 0x%02x", in[2]);
	if (maxbits < 9 || maxbits > TSR_LZW_MAX_BITS)
		return tsr_error(TSR_E_UNSUPPORTED, "compress: %d-bit codes (9 to %d supported)",
				 maxbits, TSR_LZW_MAX_BITS);
	const unsigned char *codes = in + 3;
	const uint64_t nbits = (uint64_t)(n - 3) * 8;
	const uint32_t maxmaxcode = (uint32_t)1 << maxbits;
	uint16_t *prefix = malloc(sizeof(uint16_t) << TSR_LZW_MAX_BITS);
	unsigned char *suffix = malloc((size_t)1 << TSR_LZW_MAX_BITS);
	unsigned char *stack = malloc((size_t)1 << TSR_LZW_MAX_BITS);
	if (!prefix || !suffix || !stack) {
		free(prefix), free(suffix), free(stack);
		return tsr_error(TSR_E_NOMEM, "compress: out of memory");
	}
	int n_bits = 9, st = TSR_OK;
	uint32_t maxcode = (1u << n_bits) - 1, free_ent = block_mode ? 257 : 256;
	int32_t oldcode = -1;
	unsigned char finchar = 0;
	uint64_t pos = 0, seg = 0;
	size_t used = 0;
	for (;;) {
		/* (as compress and gzip do it: with 9-bit files this widens once to 10 bits, the
		 * table then being full) */
		if (free_ent > maxcode) {
			pos = tsr_lzw_align(pos, seg, n_bits);
			seg = pos;
			n_bits++;
			maxcode = n_bits == maxbits ? maxmaxcode : (1u << n_bits) - 1;
		}
		if (pos + (uint64_t)n_bits > nbits)
			break; /* what is left is padding */
		/* the code's bits: at most 16 starting anywhere in a byte span 3 bytes */
		uint64_t byte = pos / 8;
		uint32_t w = codes[byte];
		if (byte + 1 < n - 3)
			w |= (uint32_t)codes[byte + 1] << 8;
		if (byte + 2 < n - 3)
			w |= (uint32_t)codes[byte + 2] << 16;
		uint32_t code = (w >> (pos % 8)) & ((1u << n_bits) - 1);
		pos += (uint64_t)n_bits;
		if (oldcode < 0) {
			if (code >= 256) {
				st = tsr_error(TSR_E_CORRUPT, "compress: first code %u is not a byte",
					       code);
				break;
			}
			if (used == cap) {
				st = tsr_error(TSR_E_TOO_SMALL, "compress: output exceeds %zu bytes", cap);
				break;
			}
			out[used++] = finchar = (unsigned char)code;
			oldcode = (int32_t)code;
			continue;
		}
		if (code == TSR_LZW_CLEAR && block_mode) {
			pos = tsr_lzw_align(pos, seg, n_bits);
			seg = pos;
			n_bits = 9;
			maxcode = (1u << n_bits) - 1;
			free_ent = 256; /* compress's quirk: the next entry made is 256, never used */
			continue;
		}
		uint32_t incode = code;
		size_t sp = 0;
		if (code >= free_ent) {
			if (code > free_ent) { /* only the entry being made may be used (KwKwK) */
				st = tsr_error(TSR_E_CORRUPT, "compress: code %u before table entry "
					       "%u exists (at bit %llu)", code, free_ent,
					       (unsigned long long)(pos - (uint64_t)n_bits));
				break;
			}
			stack[sp++] = finchar;
			code = (uint32_t)oldcode;
		}
		while (code >= 256) {
			/* entries point to older ones; a chain longer than the table is corrupt */
			if (sp >= ((size_t)1 << TSR_LZW_MAX_BITS) - 1 || code >= free_ent) {
				st = tsr_error(TSR_E_CORRUPT, "compress: corrupt code table");
				break;
			}
			stack[sp++] = suffix[code];
			code = prefix[code];
		}
		if (st)
			break;
		stack[sp++] = finchar = (unsigned char)code;
		if (cap - used < sp) {
			st = tsr_error(TSR_E_TOO_SMALL, "compress: output exceeds %zu bytes", cap);
			break;
		}
		while (sp > 0)
			out[used++] = stack[--sp];
		if (free_ent < maxmaxcode) {
			prefix[free_ent] = (uint16_t)oldcode;
			suffix[free_ent] = finchar;
			free_ent++;
		}
		oldcode = (int32_t)incode;
	}
	free(prefix);
	free(suffix);
	free(stack);
	*nbytes_ret = used;
	return st;
}
