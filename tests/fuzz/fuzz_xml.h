/*
 * The library must never print (umtrace.h, section 14: libxml2 errors go to
 * a handler of the parser context). The fuzz targets that reach libxml2
 * install a generic error handler that aborts, so that a message libxml2
 * would print on the library's behalf is caught as a failure.
 */
#ifndef UMT_FUZZ_XML_H
#define UMT_FUZZ_XML_H

#include <stdarg.h>

#include <libxml/parser.h>

#include "fuzz.h"

static void fuzz_xml_printed(void *ctx, const char *msg, ...)
	__attribute__((format(printf, 2, 3)));
static void fuzz_xml_printed(void *ctx, const char *msg, ...)
{
	va_list ap;
	(void)ctx;
	fprintf(stderr, "libxml2 printed on the library's behalf: ");
	va_start(ap, msg);
	vfprintf(stderr, msg, ap);
	va_end(ap);
	abort();
}

/* Installs the handler once per thread (fuzzers and the replay driver run one). */
static inline void fuzz_forbid_xml_print(void)
{
	static int done;
	if (!done) {
		xmlSetGenericErrorFunc(NULL, fuzz_xml_printed);
		done = 1;
	}
}

#endif
