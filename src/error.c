/*
 * libumtrace - status codes and detailed, thread-local error messages.
 *
 * Messages are formatted only on failure paths, into a buffer owned by the
 * calling thread: the per-record paths never touch this file.
 */
#include <stdarg.h>
#include <stdio.h>

#include "internal.h"

#define UMT_ERRMSG_SIZE 512

static _Thread_local char errmsg[UMT_ERRMSG_SIZE];
/* Where the last failure was, for umt_verify() to fill umt_problem. */
static _Thread_local struct umt_loc last_loc = {-1, UMT_LOC_NONE, 0, 0};

const char *umt_version(void)
{
	return UMT_VERSION_STRING;
}

const char *umt_strerror(int status)
{
	switch (status) {
	case UMT_OK: return "success";
	case UMT_E_INVAL: return "invalid argument";
	case UMT_E_RANGE: return "ID or index out of range";
	case UMT_E_NOMEM: return "out of memory";
	case UMT_E_IO: return "input/output error";
	case UMT_E_MISSING: return "missing file";
	case UMT_E_VERSION: return "unsupported version";
	case UMT_E_TRUNCATED: return "truncated data";
	case UMT_E_BOUNDS: return "offset or size out of bounds";
	case UMT_E_TYPE: return "unknown record type";
	case UMT_E_CORRUPT: return "inconsistent data";
	case UMT_E_XML: return "malformed trace.xml";
	case UMT_E_NOT_FOUND: return "not found";
	case UMT_E_NO_VALUE: return "no value";
	case UMT_E_INCOMPLETE: return "incomplete: a writer did not finish";
	case UMT_E_STALE: return "stale index: the trace changed";
	default: return "unknown error";
	}
}

const char *umt_errmsg(void)
{
	return errmsg;
}

void umt__clear_error(void)
{
	errmsg[0] = '\0';
	last_loc = (struct umt_loc){-1, UMT_LOC_NONE, 0, 0};
}

void umt__last_loc(struct umt_loc *out)
{
	*out = last_loc;
}

void umt__fail_replay(const struct umt_loc *loc, const char *msg)
{
	last_loc = *loc;
	snprintf(errmsg, sizeof errmsg, "%s", msg);
}

/* Appends to errmsg at *len; truncation is silent (the buffer stays NUL-terminated). */
static void append(size_t *len, const char *fmt, va_list ap) UMT_PRINTF(2, 0);
static void append(size_t *len, const char *fmt, va_list ap)
{
	if (*len >= sizeof errmsg)
		return;
	int n = vsnprintf(errmsg + *len, sizeof errmsg - *len, fmt, ap);
	if (n > 0)
		*len += (size_t)n;
}

static void appendf(size_t *len, const char *fmt, ...) UMT_PRINTF(2, 3);
static void appendf(size_t *len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	append(len, fmt, ap);
	va_end(ap);
}

void umt__fail_record(int file, enum umt_loc_kind kind, uint64_t id, uint64_t offset,
                      const char *fmt, ...)
{
	size_t len = 0;
	last_loc = (struct umt_loc){file, kind, id, offset};
	if (file >= 0)
		appendf(&len, "%s: ", umt_file_name(file));
	switch (kind) {
	case UMT_LOC_NONE: break;
	case UMT_LOC_OFFSET: appendf(&len, "at offset 0x%llx: ", (unsigned long long)offset); break;
	case UMT_LOC_RECORD:
		appendf(&len, "record %llu at offset 0x%llx: ", (unsigned long long)id,
		        (unsigned long long)offset);
		break;
	case UMT_LOC_ROW:
		appendf(&len, "row %llu at offset 0x%llx: ", (unsigned long long)id,
		        (unsigned long long)offset);
		break;
	}
	va_list ap;
	va_start(ap, fmt);
	append(&len, fmt, ap);
	va_end(ap);
}

void umt__failf_record(const char *fmt, ...)
{
	size_t len = 0;
	last_loc = (struct umt_loc){-1, UMT_LOC_NONE, 0, 0};
	va_list ap;
	va_start(ap, fmt);
	append(&len, fmt, ap);
	va_end(ap);
}
