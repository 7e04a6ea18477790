/*
 * libumtrace - sorted runs of index entries (runs.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "runs.h"

/*
 * LSD radix sort on the list field, 11 bits a pass, over the range of lists
 * the entries actually hold (max - min): a chunk of a user-mode trace spans
 * about 40 bits of page numbers, 4 passes instead of 5 bytes' worth. Each
 * pass counts its digit and moves the entries, stably, so the (key,
 * locator) order of each list survives. The 2048 counters stay in L1.
 */
#define DIGIT_BITS 11
#define DIGITS (1u << DIGIT_BITS)

struct ix_entry *umt__ix_sort(struct ix_entry *a, struct ix_entry *tmp, size_t n)
{
	if (n < 2)
		return a;
	uint64_t lo = a[0].list, hi = a[0].list;
	for (size_t i = 1; i < n; i++) {
		lo = a[i].list < lo ? a[i].list : lo;
		hi = a[i].list > hi ? a[i].list : hi;
	}
	unsigned bits = hi == lo ? 0 : 64u - (unsigned)__builtin_clzll(hi - lo);
	struct ix_entry *src = a, *dst = tmp;
	for (unsigned shift = 0; shift < bits; shift += DIGIT_BITS) {
		size_t count[DIGITS];
		memset(count, 0, sizeof count);
		for (size_t i = 0; i < n; i++)
			count[((src[i].list - lo) >> shift) & (DIGITS - 1)]++;
		size_t sum = 0;
		for (unsigned v = 0; v < DIGITS; v++) {
			size_t k = count[v];
			count[v] = sum;
			sum += k;
		}
		for (size_t i = 0; i < n; i++)
			dst[count[((src[i].list - lo) >> shift) & (DIGITS - 1)]++] = src[i];
		struct ix_entry *t = src;
		src = dst;
		dst = t;
	}
	return src;
}

int umt__ix_run_write(int fd, const struct ix_entry *e, uint64_t n)
{
	const uint8_t *p = (const uint8_t *)e;
	uint64_t left = n * sizeof *e, at = 0;
	while (left > 0) {
		size_t chunk = left < (1u << 30) ? (size_t)left : (1u << 30);
		ssize_t k = pwrite(fd, p + at, chunk, (off_t)at);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return umt__failf(UMT_E_IO, "index build: cannot write a sorted run: %s",
			                  k < 0 ? strerror(errno) : "no space");
		at += (uint64_t)k;
		left -= (uint64_t)k;
	}
	return 0;
}

/* Reads @p n entries from entry @p at of a file run into @p out. */
static int read_entries(int fd, uint64_t at, struct ix_entry *out, size_t n)
{
	uint8_t *p = (uint8_t *)out;
	size_t left = n * sizeof *out, done = 0;
	while (left > 0) {
		ssize_t k = pread(fd, p + done, left, (off_t)(at * sizeof *out + done));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return umt__failf(UMT_E_IO, "index build: cannot read a sorted run: %s",
			                  k < 0 ? strerror(errno) : "short file");
		done += (size_t)k;
		left -= (size_t)k;
	}
	return 0;
}

int umt__ix_run_get(const struct ix_run *r, uint64_t i, struct ix_entry *out)
{
	if (r->mem) {
		*out = r->mem[i];
		return 0;
	}
	return read_entries(r->fd, i, out, 1);
}

int umt__ix_run_seek(const struct ix_run *r, uint64_t page, uint64_t *out)
{
	uint64_t lo = 0, hi = r->count;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		struct ix_entry e;
		int rc = umt__ix_run_get(r, mid, &e);
		if (rc < 0)
			return rc;
		if ((e.list >> 7) < page)
			lo = mid + 1;
		else
			hi = mid;
	}
	*out = lo;
	return 0;
}

/* ---- cursors ------------------------------------------------------------------------- */

static int refill(struct ix_cursor *c)
{
	c->cur = NULL;
	if (c->next >= c->end)
		return 0;
	if (c->run->mem) {
		c->cur = &c->run->mem[c->next++];
		return 0;
	}
	uint64_t want = c->end - c->next;
	c->n = want < c->cap ? (size_t)want : c->cap;
	int rc = read_entries(c->run->fd, c->next, c->buf, c->n);
	if (rc < 0)
		return rc;
	c->next += c->n;
	c->i = 0;
	c->cur = &c->buf[0];
	return 0;
}

int umt__ix_cursor_init(struct ix_cursor *c, const struct ix_run *r, uint64_t from, uint64_t to,
                        struct ix_entry *buf, size_t cap)
{
	c->run = r;
	c->next = from;
	c->end = to;
	c->buf = buf;
	c->cap = cap;
	c->n = c->i = 0;
	return refill(c);
}

int umt__ix_cursor_next(struct ix_cursor *c)
{
	if (c->run->mem) {
		c->cur = c->next < c->end ? &c->run->mem[c->next++] : NULL;
		return 0;
	}
	if (++c->i < c->n) {
		c->cur = &c->buf[c->i];
		return 0;
	}
	return refill(c);
}

/* ---- the merge heap ------------------------------------------------------------------ */

static void sift_down(struct ix_merge *m, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, s = i;
		if (l < m->n && umt__ix_entry_less(m->heap[l]->cur, m->heap[s]->cur))
			s = l;
		if (r < m->n && umt__ix_entry_less(m->heap[r]->cur, m->heap[s]->cur))
			s = r;
		if (s == i)
			return;
		struct ix_cursor *t = m->heap[i];
		m->heap[i] = m->heap[s];
		m->heap[s] = t;
		i = s;
	}
}

int umt__ix_merge_init(struct ix_merge *m, struct ix_cursor *c, size_t n)
{
	m->n = 0;
	m->heap = malloc((n ? n : 1) * sizeof(struct ix_cursor *));
	if (m->heap == NULL)
		return umt__failf(UMT_E_NOMEM, "index build: out of memory");
	for (size_t i = 0; i < n; i++)
		if (c[i].cur)
			m->heap[m->n++] = &c[i];
	for (size_t i = m->n / 2; i-- > 0;)
		sift_down(m, i);
	return 0;
}

int umt__ix_merge_pop(struct ix_merge *m)
{
	int rc = umt__ix_cursor_next(m->heap[0]);
	if (rc < 0)
		return rc;
	if (m->heap[0]->cur == NULL)
		m->heap[0] = m->heap[--m->n];
	if (m->n)
		sift_down(m, 0);
	return 0;
}

void umt__ix_merge_free(struct ix_merge *m)
{
	free(m->heap);
	m->heap = NULL;
	m->n = 0;
}
