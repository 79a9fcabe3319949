/* crc32c.c - CRC-32C (Castagnoli), as Zarr v3's crc32c codec uses it. */
#include <pthread.h>

#include "codecs.h"

/* Slicing-by-8 tables, built once. */
static uint32_t tsr_crc_tab[8][256];
static pthread_once_t tsr_crc_once = PTHREAD_ONCE_INIT;

static void tsr_crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1)));
		tsr_crc_tab[0][i] = c;
	}
	for (int t = 1; t < 8; t++)
		for (int i = 0; i < 256; i++)
			tsr_crc_tab[t][i] = (tsr_crc_tab[t - 1][i] >> 8) ^
					    tsr_crc_tab[0][tsr_crc_tab[t - 1][i] & 0xff];
}

uint32_t tsr_crc32c(const void *data, size_t n)
{
	pthread_once(&tsr_crc_once, tsr_crc_init);
	const unsigned char *p = data;
	uint32_t c = 0xFFFFFFFFu;
	while (n >= 8) {
		uint32_t lo = c ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
				   (uint32_t)p[3] << 24);
		c = tsr_crc_tab[7][lo & 0xff] ^ tsr_crc_tab[6][(lo >> 8) & 0xff] ^
		    tsr_crc_tab[5][(lo >> 16) & 0xff] ^ tsr_crc_tab[4][lo >> 24] ^
		    tsr_crc_tab[3][p[4]] ^ tsr_crc_tab[2][p[5]] ^ tsr_crc_tab[1][p[6]] ^
		    tsr_crc_tab[0][p[7]];
		p += 8;
		n -= 8;
	}
	while (n--)
		c = (c >> 8) ^ tsr_crc_tab[0][(c ^ *p++) & 0xff];
	return c ^ 0xFFFFFFFFu;
}
