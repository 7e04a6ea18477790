/*
 * libumtrace - UTF-8 <-> UTF-16LE conversion for uStr strings.
 */
#include "internal.h"

/* Decodes one UTF-8 sequence at *s; returns the code point or -1. */
static long decode_utf8(const unsigned char **s)
{
	const unsigned char *p = *s;
	unsigned c = p[0];
	int n;
	long cp;
	if (c < 0x80) {
		*s = p + 1;
		return c;
	} else if (c >= 0xc2 && c <= 0xdf) {
		n = 1;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 2;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 3;
		cp = c & 0x07;
	} else {
		return -1;
	}
	for (int i = 1; i <= n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return -1;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	static const long min[4] = {0, 0x80, 0x800, 0x10000};
	if (cp < min[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return -1;
	*s = p + n + 1;
	return cp;
}

long umt__utf8_to_utf16(const char *str, uint16_t *out, size_t cap)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = 0;
	while (*s) {
		long cp = decode_utf8(&s);
		if (cp < 0)
			return -1;
		if (cp >= 0x10000) {
			if (cap - n < 2)
				return -1;
			cp -= 0x10000;
			out[n++] = (uint16_t)(0xd800 | (cp >> 10));
			out[n++] = (uint16_t)(0xdc00 | (cp & 0x3ff));
		} else {
			if (n == cap)
				return -1;
			out[n++] = (uint16_t)cp;
		}
	}
	return (long)n;
}
