/* status.c - status codes, their names, and each thread's detailed error message. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* Kept per thread so that threads sharing a context never see each other's messages. */
static _Thread_local char tsr_msg[1024];

const char *tsr_strerror(int status)
{
	switch (status) {
#define TSR_X_TEXT(name, value, text) \
	case value:                   \
		return text;
		TSR_STATUS_LIST(TSR_X_TEXT)
#undef TSR_X_TEXT
	}
	return "unknown status";
}

const char *tsr_status_name(int status)
{
	switch (status) {
#define TSR_X_NAME(name, value, text) \
	case value:                   \
		return #name;
		TSR_STATUS_LIST(TSR_X_NAME)
#undef TSR_X_NAME
	}
	return "TSR_E_UNKNOWN";
}

const char *tsr_errmsg(void)
{
	return tsr_msg;
}

const char *tsr_version(void)
{
	return TSR_VERSION_STRING;
}

size_t tsr_utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
	if (c < 0xc2 || c > 0xf4 || len > n)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0) || /* overlong, surrogate */
	    (c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90))   /* overlong, > U+10FFFF */
		return 0;
	return len;
}

size_t tsr_escape(char *dst, size_t cap, const char *src, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)src;
	size_t o = 0;
	if (!cap)
		return 0;
	for (size_t i = 0; i < n;) {
		size_t len = s[i] >= 0x20 && s[i] < 0x7f ? 1 : s[i] >= 0x80 ? tsr_utf8_len(s + i, n - i) : 0;
		if (len == 2 && s[i] == 0xc2 && s[i + 1] < 0xa0)
			len = 0; /* (a C1 control: escaped as the C0 ones are) */
		if (len) {
			if (o + len >= cap)
				break;
			memcpy(dst + o, s + i, len);
			o += len;
			i += len;
			continue;
		}
		if (o + 4 >= cap)
			break;
		dst[o++] = '\\';
		dst[o++] = 'x';
		dst[o++] = hex[s[i] >> 4];
		dst[o++] = hex[s[i] & 15];
		i++;
	}
	dst[o] = '\0';
	return o;
}

int tsr_error(int status, const char *fmt, ...)
{
	char raw[sizeof(tsr_msg)];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	tsr_escape(tsr_msg, sizeof(tsr_msg), raw, (size_t)n < sizeof(raw) ? (size_t)n : sizeof(raw) - 1);
	return status;
}

void tsr_error_prefix(const char *fmt, ...)
{
	char old[sizeof(tsr_msg)], raw[sizeof(tsr_msg)];
	va_list ap;
	memcpy(old, tsr_msg, sizeof(old));
	va_start(ap, fmt);
	int r = vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	if (r < 0)
		return;
	/* the old message was escaped when it was set */
	size_t n = tsr_escape(tsr_msg, sizeof(tsr_msg), raw,
			      (size_t)r < sizeof(raw) ? (size_t)r : sizeof(raw) - 1);
	if (n + 2 >= sizeof(tsr_msg)) {
		memcpy(tsr_msg, old, sizeof(old)); /* no room for the prefix: keep the cause */
		return;
	}
	tsr_msg[n++] = ':';
	tsr_msg[n++] = ' ';
	size_t room = sizeof(tsr_msg) - (size_t)n - 1, len = strlen(old);
	if (len > room)
		len = room;
	memcpy(tsr_msg + n, old, len);
	tsr_msg[(size_t)n + len] = '\0';
}

void tsr_error_set_text(const char *msg)
{
	tsr_escape(tsr_msg, sizeof(tsr_msg), msg ? msg : "", msg ? strlen(msg) : 0);
}

void tsr_error_clear(void)
{
	tsr_msg[0] = '\0';
}
