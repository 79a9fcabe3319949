/* test_json_real_text.c - reals in the metadata's JSON are written as Python's repr writes them: the fewest digits that read back, with ".0" on an integral value, and no exponent from 1e-4 to 1e16 (a FITS card's 10.0 was written "1e+01"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "formats/metadata.h"

static void check_text(double v, const char *want)
{
	char buf[TSR_JSON_REAL_MAX];
	tsr_json_real_text(v, buf);
	if (strcmp(buf, want)) {
		fprintf(stderr, "%.17g written \"%s\", expected \"%s\"\n", v, buf, want);
		CHECK(0);
	}
	if (isfinite(v))
		CHECK(strtod(buf, NULL) == v);
}

int main(void)
{
	/* Python 3: repr(float) of each */
	check_text(10.0, "10.0");
	check_text(2.0, "2.0");
	check_text(1200.0, "1200.0");
	check_text(100000.0, "100000.0");
	check_text(-32768.0, "-32768.0");
	check_text(0.1, "0.1");
	check_text(0.0015, "0.0015");
	check_text(0.0001, "0.0001");
	check_text(1e-05, "1e-05");
	check_text(1e15, "1000000000000000.0");
	check_text(1e16, "1e+16");
	check_text(1.2345678901234567e15, "1234567890123456.8");
	check_text(123456789012.5, "123456789012.5");
	check_text(-0.0, "-0.0");
	check_text(0.0, "0.0");
	check_text(5e-324, "5e-324");
	check_text(1.7976931348623157e308, "1.7976931348623157e+308");
	check_text(NAN, "NaN");
	check_text(-INFINITY, "-Infinity");
	CHECK_DONE();
}
