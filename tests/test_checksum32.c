/* test_checksum32.c - Fletcher-32 and lookup3 give the values their references give. */
#include <string.h>

#include "check.h"
#include "codecs/codecs.h"

int main(void)
{
	/* lookup3.c's own driver values for hashlittle */
	const char *four = "Four score and seven years ago";
	CHECK_EQ_INT(tsr_lookup3("", 0, 0), 0xdeadbeefu);
	CHECK_EQ_INT(tsr_lookup3("", 0, 0xdeadbeefu), 0xbd5b7ddeu);
	CHECK_EQ_INT(tsr_lookup3(four, 30, 0), 0x17770551u);
	CHECK_EQ_INT(tsr_lookup3(four, 30, 1), 0xcd628161u);

	/* numcodecs' Fletcher32 (HDF5's): odd and even lengths, a sum that folds */
	CHECK_EQ_INT(tsr_fletcher32("abcde", 5), 0x4ff029c7u);
	CHECK_EQ_INT(tsr_fletcher32("abcdef", 6), 0x50562a2du);
	CHECK_EQ_INT(tsr_fletcher32("12345678", 8), 0x000ad0d4u);
	/* bytes all zero: 0, as numcodecs writes it (sums that started at 0xffff gave 0xffffffff
	 * and refused such chunks); sums of 0xffff words stay 0xffff */
	static unsigned char zeros[721], ones[800];
	memset(ones, 0xff, sizeof(ones));
	CHECK_EQ_INT(tsr_fletcher32(zeros, 1), 0u);
	CHECK_EQ_INT(tsr_fletcher32(zeros, 4), 0u);
	CHECK_EQ_INT(tsr_fletcher32(zeros, 721), 0u);
	CHECK_EQ_INT(tsr_fletcher32(ones, 2), 0xffffffffu);
	CHECK_EQ_INT(tsr_fletcher32(ones, 800), 0xffffffffu);
	CHECK_EQ_INT(tsr_fletcher32("\x00\x01", 2), 0x00010001u);

	/* neither reads past its n bytes, nor depends on their alignment */
	char buf[64];
	memset(buf, 'x', sizeof(buf));
	memcpy(buf + 3, four, 30);
	CHECK_EQ_INT(tsr_lookup3(buf + 3, 30, 1), 0xcd628161u);
	memcpy(buf + 1, "abcde", 5);
	CHECK_EQ_INT(tsr_fletcher32(buf + 1, 5), 0x4ff029c7u);
	CHECK_DONE();
}
