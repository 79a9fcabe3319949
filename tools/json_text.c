/* json_text.c - the library's metadata text read back by the CLI, its numbers kept as written. */
#include <cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The document may hold what cJSON neither parses nor prints back as written: the bare tokens
 * NaN, Infinity and -Infinity (a file's non-finite values, as Python's json writes them), reals
 * whose text says they are reals (1.0, -0.0) and integers beyond a double's 2^53. Each such
 * token is parsed as a string marked by this prefix (control characters, which a document's
 * own strings never start with in practice, and escaped in JSON), then made a number again
 * that keeps its text, which tsr_cli_json_raw has printing write as it was. */
#define TSR_MARK "\\u0001\\u0002tsr"
#define TSR_MARK_BYTES "\x01\x02tsr"

/* The length of the token at q to keep as written, 0 for none (the text is outside strings). */
static size_t tsr_keep_len(const char *q)
{
	static const char *const words[] = {"NaN", "Infinity", "-Infinity"};
	for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++)
		if (!strncmp(q, words[i], strlen(words[i])))
			return strlen(words[i]);
	if (*q != '-' && (*q < '0' || *q > '9'))
		return 0;
	size_t n = strspn(q, "+-0123456789.eE"), digits = strspn(q + (*q == '-'), "0123456789");
	return strcspn(q, ".eE") < n || digits > 15 ? n : 0;
}

/* The marked strings of j made numbers again, their text kept in valuestring (which cJSON
 * frees and duplicates with them) for tsr_cli_json_raw. */
static void tsr_unmark(cJSON *j)
{
	size_t m = strlen(TSR_MARK_BYTES);
	for (cJSON *c = j; c; c = c->next) {
		if (cJSON_IsString(c) && !strncmp(c->valuestring, TSR_MARK_BYTES, m)) {
			char *t = c->valuestring;
			memmove(t, t + m, strlen(t + m) + 1);
			c->type = cJSON_Number;
			c->valuedouble = !strcmp(t, "NaN")	  ? NAN
					 : !strcmp(t, "Infinity")  ? INFINITY
					 : !strcmp(t, "-Infinity") ? -INFINITY
								   : strtod(t, NULL);
			c->valueint = 0;
		} else if (c->child) {
			tsr_unmark(c->child);
		}
	}
}

void tsr_cli_json_raw(cJSON *j)
{
	for (cJSON *c = j; c; c = c->next) {
		if (cJSON_IsNumber(c) && c->valuestring)
			c->type = cJSON_Raw;
		else if (c->child)
			tsr_cli_json_raw(c->child);
	}
}

cJSON *tsr_cli_json_parse(const char *text)
{
	size_t n = strlen(text), mark = strlen(TSR_MARK), extra = 0;
	for (const char *q = text; *q; q++)
		extra += *q == '-' || *q == 'N' || *q == 'I' || (*q >= '0' && *q <= '9');
	char *copy = malloc(n + extra * (mark + 2) + 1), *o = copy;
	if (!copy)
		return NULL;
	for (const char *q = text; *q;) {
		size_t k;
		if (*q == '"') { /* a string, to its closing quote, past escapes */
			const char *s = q++;
			while (*q && *q != '"')
				q += q[0] == '\\' && q[1] ? 2 : 1;
			q += *q == '"';
			memcpy(o, s, (size_t)(q - s));
			o += q - s;
		} else if ((k = tsr_keep_len(q))) {
			*o++ = '"';
			memcpy(o, TSR_MARK, mark);
			memcpy(o + mark, q, k);
			o += mark + k;
			*o++ = '"';
			q += k;
		} else {
			/* (a number's digits go on together: a real's tail is not a token of its own) */
			k = *q == '-' || (*q >= '0' && *q <= '9') ? strspn(q, "+-0123456789.eE") : 1;
			memcpy(o, q, k);
			o += k;
			q += k;
		}
	}
	*o = '\0';
	cJSON *j = cJSON_Parse(copy);
	free(copy);
	if (j)
		tsr_unmark(j);
	return j;
}

/* The length of the valid UTF-8 character at s (n bytes left): no overlong form, surrogate or
 * code point past U+10FFFF; 0 for none. (The library's tsr_utf8_len and its metadata's
 * tsr_json_utf8 do the same for its documents; tools make only public calls, DESIGN.md §2, and
 * these strings are the CLI's own.) */
static size_t tsr_cli_utf8_len(const unsigned char *s, size_t n)
{
	if (s[0] < 0x80)
		return 1;
	size_t len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
	if (!len || len > n || s[0] > 0xf4)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
		return 0;
	return len;
}

char *tsr_cli_json_utf8(char *text)
{
	if (!text)
		return NULL;
	const unsigned char *s = (const unsigned char *)text;
	size_t n = strlen(text), bad = 0;
	for (size_t i = 0; i < n;) {
		size_t k = tsr_cli_utf8_len(s + i, n - i);
		bad += !k;
		i += k ? k : 1;
	}
	if (!bad)
		return text;
	char *out = malloc(n + 2 * bad + 1), *o = out;
	if (!out) {
		free(text);
		return NULL;
	}
	for (size_t i = 0; i < n;) {
		size_t k = tsr_cli_utf8_len(s + i, n - i);
		if (k) {
			memcpy(o, s + i, k);
			o += k;
			i += k;
		} else { /* U+FFFD, as Python's errors="replace" makes a byte that starts none */
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		}
	}
	*o = '\0';
	free(text);
	return out;
}
