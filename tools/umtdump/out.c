/*
 * umtdump - the output module: buffered stdout, fast number formatting,
 * JSON Lines, text made safe for terminals, errors, notes, progress bar.
 *
 * stdout is written through one 64 KiB buffer with write(2): no stdio
 * locking and no allocation per record. SIGPIPE is ignored (main.c), so a
 * reader that went away shows up as EPIPE: the output is then dropped and
 * out_closed() tells the commands to stop, without a message.
 *
 * JSON numbers are used for IDs, counts, sizes and small codes; 64-bit
 * quantities such as addresses and values are "0x..." strings so that no
 * JSON tool loses precision. Strings from the trace are written as valid
 * UTF-8: an invalid byte becomes U+FFFD.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "umtdump.h"

char out_buf[OUT_SIZE];
size_t out_len;
static int ostate; /* 0 writing, EPIPE: reader gone, other errno: failed */

/* Writes all of [p, p + n) to fd 1 unless the output already ended. */
static void write_all(const char *p, size_t n)
{
	while (n > 0 && ostate == 0) {
		ssize_t w = write(STDOUT_FILENO, p, n);
		if (w < 0) {
			if (errno != EINTR)
				ostate = errno ? errno : EIO;
			continue;
		}
		p += w;
		n -= (size_t)w;
	}
}

bool out_flush(void)
{
	write_all(out_buf, out_len);
	out_len = 0;
	return ostate == 0;
}

bool out_closed(void)
{
	return ostate == EPIPE;
}

int out_error(void)
{
	return ostate == EPIPE ? 0 : ostate;
}

void out_write_slow(const void *p, size_t n)
{
	out_flush();
	if (n >= OUT_SIZE)
		write_all(p, n);
	else
		memcpy(out_buf, p, n), out_len = n;
}

void out_printf(const char *fmt, ...)
{
	char small[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof small) {
		out_write(small, (size_t)n);
		return;
	}
	char *big = malloc((size_t)n + 1);
	if (big == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	out_write(big, (size_t)n);
	free(big);
}

/* Decimal digits of @p v ending at @p end; returns the first. */
static char *fmt_u64(char *end, uint64_t v)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

void out_u64(uint64_t v)
{
	char b[24];
	char *s = fmt_u64(b + sizeof b, v);
	out_write(s, (size_t)(b + sizeof b - s));
}

void out_i64(int64_t v)
{
	if (v < 0) {
		out_char('-');
		out_u64(0 - (uint64_t)v);
	} else {
		out_u64((uint64_t)v);
	}
}

static const char hexdig[] = "0123456789abcdef";

void out_hex(uint64_t v)
{
	char b[20];
	char *s = b + sizeof b;
	do {
		*--s = hexdig[v & 15];
		v >>= 4;
	} while (v);
	*--s = 'x';
	*--s = '0';
	out_write(s, (size_t)(b + sizeof b - s));
}

void out_hex_left(uint64_t v, int width)
{
	char b[20];
	char *e = b + sizeof b, *s = e;
	do {
		*--s = hexdig[v & 15];
		v >>= 4;
	} while (v);
	*--s = 'x';
	*--s = '0';
	out_write(s, (size_t)(e - s));
	out_spaces(width - (int)(e - s) > 0 ? width - (int)(e - s) : 1);
}

void out_i64_left(int64_t v, int width)
{
	char b[24];
	char *e = b + sizeof b;
	char *s = fmt_u64(e, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
	if (v < 0)
		*--s = '-';
	out_write(s, (size_t)(e - s));
	out_spaces(width - (int)(e - s) > 0 ? width - (int)(e - s) : 1);
}

void out_spaces(int n)
{
	static const char sp[] = "                                ";
	while (n > 0) {
		int k = n < (int)sizeof sp - 1 ? n : (int)sizeof sp - 1;
		out_write(sp, (size_t)k);
		n -= k;
	}
}

void out_u64_pad(uint64_t v, int width)
{
	char b[24];
	char *s = fmt_u64(b + sizeof b, v);
	int len = (int)(b + sizeof b - s);
	out_spaces(width - len);
	out_write(s, (size_t)len);
}

void out_i64_pad(int64_t v, int width)
{
	char b[24];
	char *s = fmt_u64(b + sizeof b, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
	if (v < 0)
		*--s = '-';
	int len = (int)(b + sizeof b - s);
	out_spaces(width - len);
	out_write(s, (size_t)len);
}

void out_str_pad(const char *s, int width)
{
	size_t n = strlen(s);
	out_write(s, n);
	out_spaces(width - (int)n > 0 ? width - (int)n : 1);
}

void out_hexbytes(const uint8_t *p, size_t n)
{
	char b[256];
	while (n > 0) {
		size_t k = n < sizeof b / 2 ? n : sizeof b / 2;
		for (size_t i = 0; i < k; i++) {
			b[2 * i] = hexdig[p[i] >> 4];
			b[2 * i + 1] = hexdig[p[i] & 15];
		}
		out_write(b, 2 * k);
		p += k;
		n -= k;
	}
}

/* ---- UTF-8 --------------------------------------------------------------------- */

/*
 * Length of the valid UTF-8 sequence at @p s (at most @p n bytes), RFC 3629:
 * no overlong forms, no surrogates, nothing above U+10FFFF. 0 when invalid.
 * *cp receives the code point.
 */
static size_t utf8_seq(const unsigned char *s, size_t n, uint32_t *cp)
{
	unsigned char c = s[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	size_t len;
	unsigned char lo = 0x80, hi = 0xbf;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
	else
		return 0;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	uint32_t v = c & (0x7fu >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = (v << 6) | (s[i] & 0x3fu);
	}
	*cp = v;
	return len;
}

/* Whether code point @p cp would act on a terminal: C0, DEL, C1. */
static bool is_control(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp < 0xa0);
}

/*
 * Text for terminals: printable UTF-8 as it is, control characters and
 * invalid bytes as \xNN (C1 controls as their UTF-8 bytes), so that one
 * record stays on one line and no escape sequence reaches the terminal.
 */
void out_text(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		size_t run = i;
		while (run < n && p[run] >= 0x20 && p[run] < 0x7f)
			run++;
		out_write(p + i, run - i);
		if ((i = run) >= n)
			break;
		uint32_t cp;
		size_t len = utf8_seq(p + i, n - i, &cp);
		if (len > 0 && !is_control(cp)) {
			out_write(p + i, len);
			i += len;
			continue;
		}
		if (len == 0)
			len = 1;
		for (size_t k = 0; k < len; k++) {
			char e[4] = {'\\', 'x', hexdig[p[i + k] >> 4], hexdig[p[i + k] & 15]};
			out_write(e, sizeof e);
		}
		i += len;
	}
}

void out_textz(const char *s)
{
	out_text(s, strlen(s));
}

void text_sanitize(const char *s, char *dst, size_t cap)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, o = 0;
	if (cap == 0)
		return;
	while (i < n) {
		uint32_t cp;
		size_t len = utf8_seq(p + i, n - i, &cp);
		if (len > 0 && !is_control(cp)) {
			if (o + len >= cap)
				break;
			memcpy(dst + o, p + i, len);
			o += len;
			i += len;
			continue;
		}
		if (len == 0)
			len = 1;
		if (o + 4 * len >= cap)
			break;
		for (size_t k = 0; k < len; k++, o += 4) {
			dst[o] = '\\';
			dst[o + 1] = 'x';
			dst[o + 2] = hexdig[p[i + k] >> 4];
			dst[o + 3] = hexdig[p[i + k] & 15];
		}
		i += len;
	}
	dst[o] = '\0';
}

/* 1 for the bytes a JSON string holds as they are: printable ASCII but " and \\. */
static uint8_t json_plain[256];

static void json_plain_init(void)
{
	for (int c = 0x20; c < 0x7f; c++)
		json_plain[c] = c != '"' && c != '\\';
}

void out_json_string(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	if (!json_plain['a'])
		json_plain_init();
	out_char('"');
	while (i < n) {
		size_t run = i;
		while (run < n && json_plain[p[run]])
			run++;
		out_write(p + i, run - i);
		if ((i = run) >= n)
			break;
		unsigned char c = p[i];
		uint32_t cp;
		size_t len;
		switch (c) {
		case '"': out_write("\\\"", 2); i++; continue;
		case '\\': out_write("\\\\", 2); i++; continue;
		case '\b': out_write("\\b", 2); i++; continue;
		case '\f': out_write("\\f", 2); i++; continue;
		case '\n': out_write("\\n", 2); i++; continue;
		case '\r': out_write("\\r", 2); i++; continue;
		case '\t': out_write("\\t", 2); i++; continue;
		default: break;
		}
		if (c < 0x20 || c == 0x7f) {
			char e[6] = {'\\', 'u', '0', '0', hexdig[c >> 4], hexdig[c & 15]};
			out_write(e, sizeof e);
			i++;
		} else if ((len = utf8_seq(p + i, n - i, &cp)) > 0) {
			out_write(p + i, len);
			i += len;
		} else {
			out_write("\\ufffd", 6); /* an invalid byte of the trace */
			i++;
		}
	}
	out_char('"');
}

/* ---- JSON objects ------------------------------------------------------------ */

void jw_begin(struct jw *j)
{
	j->fields = 0;
	out_char('{');
}

void jw_end(struct jw *j)
{
	out_write("}\n", 2);
	j->fields = 0;
}

/* Program keys are plain ASCII: written as they are, the hot path of JSON. */
void jw_key(struct jw *j, const char *key)
{
	if (j->fields++)
		out_char(',');
	if (key) {
		out_char('"');
		out_str(key);
		out_write("\":", 2);
	}
}

void jw_tkey(struct jw *j, const char *key)
{
	if (j->fields++)
		out_char(',');
	out_json_string(key, strlen(key));
	out_char(':');
	j->fields = 0; /* the value follows with a NULL key: no comma before it */
}

void jw_u64(struct jw *j, const char *key, uint64_t v)
{
	jw_key(j, key);
	out_u64(v);
}

void jw_i64(struct jw *j, const char *key, int64_t v)
{
	jw_key(j, key);
	out_i64(v);
}

void jw_hex(struct jw *j, const char *key, uint64_t v)
{
	jw_key(j, key);
	out_char('"');
	out_hex(v);
	out_char('"');
}

void jw_str(struct jw *j, const char *key, const char *s)
{
	if (s)
		jw_strn(j, key, s, strlen(s));
	else
		jw_null(j, key);
}

void jw_strn(struct jw *j, const char *key, const char *s, size_t n)
{
	jw_key(j, key);
	out_json_string(s, n);
}

void jw_bool(struct jw *j, const char *key, bool v)
{
	jw_key(j, key);
	out_str(v ? "true" : "false");
}

void jw_null(struct jw *j, const char *key)
{
	jw_key(j, key);
	out_write("null", 4);
}

void jw_bytes(struct jw *j, const char *key, const uint8_t *p, uint64_t n)
{
	jw_key(j, key);
	out_char('"');
	out_hexbytes(p, (size_t)n);
	out_char('"');
}

void jw_open(struct jw *j, const char *key, char bracket)
{
	jw_key(j, key);
	out_char(bracket);
	j->fields = 0;
}

void jw_close(struct jw *j, char bracket)
{
	out_char(bracket);
	j->fields = 1; /* the container was a field of its parent */
}

/* ---- errors, notes, progress ---------------------------------------------------- */

static struct progress *active; /* the bar on screen, erased before a message */

static void progress_erase(void)
{
	if (active)
		fputs("\r\033[K", stderr);
}

/* Prints "umtdump: [prefix]message" on stderr after what stdout holds. */
static void message(const char *prefix, const char *msg)
{
	char safe[2048];
	out_flush();
	progress_erase();
	text_sanitize(msg, safe, sizeof safe);
	fprintf(stderr, "umtdump: %s%s\n", prefix, safe);
	if (active)
		active->next_check = 0; /* redraw at the next tick */
}

void report_error(int rc)
{
	const char *msg = umt_errmsg();
	message("", *msg ? msg : umt_strerror(rc));
}

bool failed_row(const struct opts *o, int *status)
{
	*status = EXIT_BAD_TRACE;
	return !o->keep_going;
}

void report(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	message("", msg);
}

void errlist_add(struct errlist *e, int rc)
{
	const char *msg = umt_errmsg();
	errlist_addf(e, rc, "%s", *msg ? msg : umt_strerror(rc));
}

void errlist_addf(struct errlist *e, int rc, const char *fmt, ...)
{
	if (e->n == 0)
		e->first_rc = rc;
	if (e->n < (int)(sizeof e->msg / sizeof e->msg[0])) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(e->msg[e->n], sizeof e->msg[0], fmt, ap);
		va_end(ap);
	}
	e->n++;
}

int errlist_report(struct errlist *e)
{
	int kept = (int)(sizeof e->msg / sizeof e->msg[0]);
	for (int i = 0; i < e->n && i < kept; i++)
		message("", e->msg[i]);
	int rc = e->n ? e->first_rc : 0;
	e->n = 0;
	return rc;
}

void note(const struct opts *o, const char *fmt, ...)
{
	if (o->quiet)
		return;
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	message("note: ", msg);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void progress_start(struct progress *p, const struct opts *o, const char *label, uint64_t total,
                    bool wanted)
{
	memset(p, 0, sizeof *p);
	p->on = wanted && !o->quiet && isatty(STDERR_FILENO);
	p->label = label;
	p->total = total;
	if (p->on) {
		active = p;
		progress_draw(p, 0);
	}
}

/* Draws at most ten times a second; the clock is read every 4096 units. */
void progress_draw(struct progress *p, uint64_t done)
{
	enum { WIDTH = 30 };
	p->next_check = done + 4096;
	uint64_t t = now_ns();
	if (p->last_ns != 0 && t - p->last_ns < 100000000u && done < p->total)
		return;
	p->last_ns = t;
	unsigned pct = p->total ? (unsigned)(done >= p->total ? 100 : done * 100.0 / p->total) : 0;
	char bar[WIDTH + 1];
	unsigned fill = pct * WIDTH / 100;
	for (unsigned i = 0; i < WIDTH; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[WIDTH] = '\0';
	fprintf(stderr, "\r%s [%s] %3u%%  %llu/%llu\033[K", p->label, bar, pct,
	        (unsigned long long)done, (unsigned long long)p->total);
}

void progress_end(struct progress *p)
{
	if (p->on) {
		fputs("\r\033[K", stderr);
		active = NULL;
		p->on = false;
	}
}
