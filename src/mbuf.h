/*
 * libumtrace - growable memory buffers of the writer (the small tables,
 * the syscall index, trace.xml), each kept whole in memory until finish.
 */
#ifndef UMTRACE_MBUF_H
#define UMTRACE_MBUF_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct umt_mbuf {
	uint8_t *p;
	size_t len, cap;
};

/** Room for @p n more bytes. @return 0; UMT_E_NOMEM (the buffer unchanged). */
static inline int umt__mb_reserve(struct umt_mbuf *b, size_t n)
{
	if (n <= b->cap - b->len)
		return 0;
	size_t cap = b->cap ? b->cap : 256;
	while (cap - b->len < n) {
		if (cap > SIZE_MAX / 2)
			return umt__failf(UMT_E_NOMEM, "writer: out of memory");
		cap *= 2;
	}
	uint8_t *p = realloc(b->p, cap);
	if (p == NULL)
		return umt__failf(UMT_E_NOMEM, "writer: out of memory");
	b->p = p;
	b->cap = cap;
	return 0;
}

/** Appends @p n bytes. @return 0; UMT_E_NOMEM (the buffer unchanged). */
static inline int umt__mb_put(struct umt_mbuf *b, const void *p, size_t n)
{
	int rc = umt__mb_reserve(b, n);
	if (rc < 0)
		return rc;
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

#endif
