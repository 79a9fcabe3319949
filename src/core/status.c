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

int tsr_error(int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(tsr_msg, sizeof(tsr_msg), fmt, ap);
	va_end(ap);
	return status;
}

void tsr_error_prefix(const char *fmt, ...)
{
	char old[sizeof(tsr_msg)];
	va_list ap;
	memcpy(old, tsr_msg, sizeof(old));
	va_start(ap, fmt);
	int n = vsnprintf(tsr_msg, sizeof(tsr_msg), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n + 2 >= sizeof(tsr_msg))
		return;
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
	snprintf(tsr_msg, sizeof(tsr_msg), "%s", msg ? msg : "");
}

void tsr_error_clear(void)
{
	tsr_msg[0] = '\0';
}
