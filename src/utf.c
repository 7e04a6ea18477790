/*
 * libumtrace - UTF-8 <-> UTF-16LE conversion for uStr strings: UTF-8 to
 * UTF-16 for the writer, UTF-16 to UTF-8 (public, lenient: unpaired
 * surrogates become U+FFFD) for readers of module names.
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

/* ---- UTF-16LE to UTF-8 (uStr names) ------------------------------------- */

/* Encodes @p cp (at most U+10FFFF, no surrogate) into @p b; returns its length. */
static size_t encode_utf8(uint32_t cp, unsigned char b[4])
{
	if (cp < 0x80) {
		b[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800) {
		b[0] = (unsigned char)(0xc0 | (cp >> 6));
		b[1] = (unsigned char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		b[0] = (unsigned char)(0xe0 | (cp >> 12));
		b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (unsigned char)(0x80 | (cp & 0x3f));
		return 3;
	}
	b[0] = (unsigned char)(0xf0 | (cp >> 18));
	b[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
	b[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
	b[3] = (unsigned char)(0x80 | (cp & 0x3f));
	return 4;
}

size_t umt_utf16_to_utf8(const void *units, size_t n, char *out, size_t cap)
{
	/* Units are read bytewise: uStr data sits at any address in the mapping. */
	const uint8_t *p = units;
	size_t need = 0, written = 0;
	if (p == NULL)
		n = 0;
	if (out == NULL)
		cap = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t cp = (uint32_t)p[2 * i] | (uint32_t)p[2 * i + 1] << 8;
		if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < n) {
			uint32_t lo = (uint32_t)p[2 * i + 2] | (uint32_t)p[2 * i + 3] << 8;
			if (lo >= 0xdc00 && lo <= 0xdfff) {
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				i++;
			}
		}
		if (cp >= 0xd800 && cp <= 0xdfff)
			cp = 0xfffd; /* unpaired surrogate */
		unsigned char b[4];
		size_t len = encode_utf8(cp, b);
		/* Whole characters only, while all before fitted, with room for the NUL. */
		if (written == need && cap > 0 && len < cap - written) {
			memcpy(out + written, b, len);
			written += len;
		}
		need += len;
	}
	if (cap > 0)
		out[written] = '\0';
	return need;
}
