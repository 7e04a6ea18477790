/*
 * umtdump - the output module: JSON Lines writing and error reporting.
 *
 * JSON numbers are used for IDs, counts, sizes and small codes; 64-bit
 * quantities such as addresses and values are "0x..." strings so that no
 * JSON tool loses precision.
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "umtdump.h"

void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

void jw_begin(struct jw *j)
{
	j->fields = 0;
	j->depth = 0;
	fputc('{', stdout);
}

void jw_end(struct jw *j)
{
	fputs("}\n", stdout);
	j->fields = 0;
}

void jw_key(struct jw *j, const char *key)
{
	if (j->fields++)
		fputc(',', stdout);
	if (key) {
		json_string(stdout, key);
		fputc(':', stdout);
	}
}

void jw_u64(struct jw *j, const char *key, uint64_t v)
{
	jw_key(j, key);
	printf("%llu", (unsigned long long)v);
}

void jw_i64(struct jw *j, const char *key, int64_t v)
{
	jw_key(j, key);
	printf("%lld", (long long)v);
}

void jw_hex(struct jw *j, const char *key, uint64_t v)
{
	jw_key(j, key);
	printf("\"0x%llx\"", (unsigned long long)v);
}

void jw_str(struct jw *j, const char *key, const char *s)
{
	jw_key(j, key);
	if (s)
		json_string(stdout, s);
	else
		fputs("null", stdout);
}

void jw_bool(struct jw *j, const char *key, bool v)
{
	jw_key(j, key);
	fputs(v ? "true" : "false", stdout);
}

void jw_null(struct jw *j, const char *key)
{
	jw_key(j, key);
	fputs("null", stdout);
}

void jw_bytes(struct jw *j, const char *key, const uint8_t *p, uint64_t n)
{
	jw_key(j, key);
	fputc('"', stdout);
	for (uint64_t i = 0; i < n; i++)
		printf("%02x", p[i]);
	fputc('"', stdout);
}

void jw_open(struct jw *j, const char *key, char bracket)
{
	jw_key(j, key);
	fputc(bracket, stdout);
	j->fields = 0;
	j->depth++;
}

void jw_close(struct jw *j, char bracket)
{
	fputc(bracket, stdout);
	j->depth--;
	j->fields = 1;
}

void report_error(int rc)
{
	const char *msg = umt_errmsg();
	fprintf(stderr, "umtdump: %s\n", *msg ? msg : umt_strerror(rc));
}

void report(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("umtdump: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

bool out_closed(void)
{
	return ferror(stdout) && errno == EPIPE;
}
