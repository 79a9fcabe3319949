/* test_escape.c - tsr_escape, through which every error message passes: printable ASCII and
 * valid UTF-8 stay, control characters (C0, DEL, C1) and bytes that are not UTF-8 (stray
 * continuations, overlongs, surrogates, past U+10FFFF, cut sequences) become \xNN, and
 * truncation never splits a character or an escape. tsr_error applies it to what it formats. */
#include <string.h>

#include "check.h"
#include "core/internal.h"

static void check_escape(const char *in, size_t n, const char *want)
{
	char out[128];
	size_t len = tsr_escape(out, sizeof(out), in, n);
	if (strcmp(out, want) != 0 || len != strlen(want)) {
		fprintf(stderr, "escape of %zu bytes: got '%s' (%zu), want '%s'\n", n, out, len, want);
		check_failures++;
	}
}

#define S(lit) lit, sizeof(lit) - 1

int main(void)
{
	check_escape(S("plain 'key' = 1.5/x"), "plain 'key' = 1.5/x");
	check_escape(S("a\tb\nc\rd\x1b[31m\x7f"), "a\\x09b\\x0ac\\x0dd\\x1b[31m\\x7f");
	check_escape(S("\0z"), "\\x00z");
	/* valid UTF-8 of each length stays */
	check_escape(S("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82"), "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82");
	/* C1 controls (U+0080..U+009F, CSI among them) are escaped; U+00A0 is not */
	check_escape(S("\xc2\x9b\xc2\xa0"), "\\xc2\\x9b\xc2\xa0");
	/* not UTF-8: a lone continuation, 0xff, an overlong '/', a surrogate, past U+10FFFF,
	 * a sequence cut short */
	check_escape(S("\x80\xff"), "\\x80\\xff");
	check_escape(S("\xc0\xaf"), "\\xc0\\xaf");
	check_escape(S("\xed\xa0\x80"), "\\xed\\xa0\\x80");
	check_escape(S("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");
	check_escape(S("\xe2\x82"), "\\xe2\\x82");

	/* truncation: whole characters and whole escapes only */
	char small[6];
	CHECK_EQ_INT(tsr_escape(small, sizeof(small), S("ab\xe2\x82\xac")), 5);
	CHECK_EQ_INT(tsr_escape(small, sizeof(small), S("abc\xe2\x82\xac")), 3);
	CHECK(strcmp(small, "abc") == 0);
	CHECK_EQ_INT(tsr_escape(small, sizeof(small), S("ab\x01")), 2);
	CHECK(strcmp(small, "ab") == 0);
	CHECK_EQ_INT(tsr_escape(small, sizeof(small), S("a\x01")), 5);
	CHECK(strcmp(small, "a\\x01") == 0);

	/* every message is escaped as it is set, and a prefix as it is added */
	CHECK_EQ_INT(tsr_error(TSR_E_FORMAT, "dtype '%s'", "<M8\x1b\n\xff"), TSR_E_FORMAT);
	CHECK(strcmp(tsr_errmsg(), "dtype '<M8\\x1b\\x0a\\xff'") == 0);
	tsr_error_prefix("array %s", "a\tb");
	CHECK(strcmp(tsr_errmsg(), "array a\\x09b: dtype '<M8\\x1b\\x0a\\xff'") == 0);
	CHECK_DONE();
}
