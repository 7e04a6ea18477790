/*
 * libumtrace - sorted runs of index entries (runs.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "encode.h"
#include "runs.h"

/*
 * LSD radix sort on the list field over the range of lists the entries
 * actually hold (max - min): a chunk of a user-mode trace spans 28 to 40
 * bits of page numbers. The digits are as wide as UMT_IX_SORT_DIGIT allows
 * and as few as the range needs (28 bits: 2 passes of 14, 38: 3 of 13),
 * and one read of the entries counts every digit at once, so a chunk is
 * read passes + 1 times and written passes times. Each pass moves the
 * entries stably, so the (key, locator) order of each list survives.
 */
struct ix_entry *umt__ix_sort(struct ix_entry *a, struct ix_entry *tmp, size_t n,
                              uint32_t *counts)
{
	if (n < 2)
		return a;
	uint64_t lo = a[0].list, hi = a[0].list;
	for (size_t i = 1; i < n; i++) {
		lo = a[i].list < lo ? a[i].list : lo;
		hi = a[i].list > hi ? a[i].list : hi;
	}
	unsigned bits = hi == lo ? 0 : 64u - (unsigned)__builtin_clzll(hi - lo);
	if (bits == 0)
		return a;
	unsigned passes = (bits + UMT_IX_SORT_DIGIT - 1) / UMT_IX_SORT_DIGIT;
	unsigned width = (bits + passes - 1) / passes;
	size_t digits = (size_t)1 << width;
	uint64_t mask = digits - 1;
	memset(counts, 0, passes * digits * sizeof *counts);
	for (size_t i = 0; i < n; i++) {
		uint64_t v = a[i].list - lo;
		for (unsigned p = 0; p < passes; p++)
			counts[p * digits + ((v >> (p * width)) & mask)]++;
	}
	struct ix_entry *src = a, *dst = tmp;
	for (unsigned p = 0; p < passes; p++) {
		uint32_t sum = 0, *c = counts + p * digits;
		for (size_t v = 0; v < digits; v++) {
			uint32_t k = c[v];
			c[v] = sum;
			sum += k;
		}
		unsigned shift = p * width;
		for (size_t i = 0; i < n; i++)
			dst[c[((src[i].list - lo) >> shift) & mask]++] = src[i];
		struct ix_entry *t = src;
		src = dst;
		dst = t;
	}
	return src;
}

/* ---- file runs: frames of delta-coded entries ------------------------------------- */

/*
 * An entry in a frame, against the entry before it (zero for the frame's
 * first): varint list delta; varint key, a delta when the list did not
 * change, else whole; varint locator; varint thread (as u32); varint lo;
 * varint len; a byte kind | clobber << 2; then the value bytes when the
 * posting carries them (umt__ix_inline()). Entries are sorted, so the
 * deltas are never negative.
 */
#define ENTRY_MAX 48u /* 10 + 10 + 5 + 5 + 3 + 3 + 1 + 8, rounded up */

static size_t put_entry(uint8_t *p, const struct ix_entry *prev, const struct ix_entry *e)
{
	uint8_t *start = p;
	uint64_t dl = e->list - prev->list;
	p += umt__put_varint(p, dl);
	p += umt__put_varint(p, dl == 0 ? e->key - prev->key : e->key);
	p += umt__put_varint(p, e->locator);
	p += umt__put_varint(p, (uint32_t)e->thread);
	p += umt__put_varint(p, e->lo);
	p += umt__put_varint(p, e->len);
	*p++ = (uint8_t)(e->kind | e->clobber << 2);
	bool page_list = (e->list & 127) == UMT_IX_PAGE_LIST;
	if (umt__ix_inline(page_list, e->len, e->clobber)) {
		memcpy(p, &e->value, e->len);
		p += e->len;
	}
	return (size_t)(p - start);
}

/* Decodes the entry at *p (at most @p end) after @p prev. @return false when malformed. */
static bool get_entry(const uint8_t **p, const uint8_t *end, struct ix_entry *prev,
                      struct ix_entry *e)
{
	uint64_t dl, key, locator, thread, lo, len;
	if (!umt__get_varint(p, end, &dl) || !umt__get_varint(p, end, &key) ||
	    !umt__get_varint(p, end, &locator) || !umt__get_varint(p, end, &thread) ||
	    !umt__get_varint(p, end, &lo) || !umt__get_varint(p, end, &len) || *p >= end)
		return false;
	uint8_t flags = *(*p)++;
	memset(e, 0, sizeof *e);
	e->list = prev->list + dl;
	e->key = dl == 0 ? prev->key + key : key;
	e->locator = (uint32_t)locator;
	e->thread = (int32_t)(uint32_t)thread;
	e->lo = (uint16_t)lo;
	e->len = (uint16_t)len;
	e->kind = flags & 3u;
	e->clobber = (flags >> 2) & 1u;
	bool page_list = (e->list & 127) == UMT_IX_PAGE_LIST;
	uint64_t room = page_list ? UMT_IX_PAGE : UMT_IX_GRANULE;
	if (locator > UINT32_MAX || thread > UINT32_MAX || lo >= room || len == 0 || len > room - lo ||
	    flags >> 3 || (e->clobber && e->kind != UMT_IX_K_WRITE))
		return false;
	if (umt__ix_inline(page_list, e->len, e->clobber)) {
		if ((size_t)(end - *p) < e->len)
			return false;
		memcpy(&e->value, *p, e->len);
		*p += e->len;
	}
	*prev = *e;
	return true;
}

static int run_io_error(const char *what, ssize_t k)
{
	return umt__failf(UMT_E_IO, "index build: cannot %s a sorted run: %s", what,
	                  k < 0 ? strerror(errno) : "short file");
}

int umt__ix_runw_init(struct ix_run_writer *w, int fd, size_t cap)
{
	memset(w, 0, sizeof *w);
	w->fd = fd;
	w->cap = cap < UMT_IX_CURSOR_MIN ? UMT_IX_CURSOR_MIN : cap;
	w->buf = malloc(w->cap);
	w->sum = UMT_FNV_SEED;
	return w->buf ? 0 : umt__failf(UMT_E_NOMEM, "index build: out of memory");
}

static int runw_flush(struct ix_run_writer *w)
{
	if (w->summed)
		w->sum = umt__fnv(w->sum, w->buf, w->len);
	int rc = umt__ix_pwrite_all(w->fd, w->buf, w->len, w->offset - w->len);
	w->len = 0;
	return rc;
}

int umt__ix_runw_put(struct ix_run_writer *w, const struct ix_entry *e)
{
	if (w->cap - w->len < ENTRY_MAX) {
		int rc = runw_flush(w);
		if (rc < 0)
			return rc;
	}
	if (w->count % UMT_IX_FRAME == 0) {
		if (w->nframes == w->frames_cap) {
			size_t cap = w->frames_cap ? 2 * w->frames_cap : 16;
			struct ix_frame *f = realloc(w->frames, cap * sizeof *f);
			if (f == NULL)
				return umt__failf(UMT_E_NOMEM, "index build: out of memory");
			w->frames = f;
			w->frames_cap = cap;
		}
		w->frames[w->nframes++] = (struct ix_frame){w->offset, e->list >> 7};
		memset(&w->prev, 0, sizeof w->prev);
	}
	size_t k = put_entry(w->buf + w->len, &w->prev, e);
	w->prev = *e;
	w->len += k;
	w->offset += k;
	w->count++;
	return 0;
}

int umt__ix_runw_finish(struct ix_run_writer *w, struct ix_run *out)
{
	int rc = runw_flush(w);
	if (rc < 0) {
		umt__ix_runw_free(w);
		return rc;
	}
	*out = (struct ix_run){NULL, w->fd, w->count, 0, w->frames, w->offset, NULL};
	w->frames = NULL;
	umt__ix_runw_free(w);
	return 0;
}

void umt__ix_runw_free(struct ix_run_writer *w)
{
	free(w->buf);
	free(w->frames);
	w->buf = NULL;
	w->frames = NULL;
}

#define SPILL_BUFFER (1u << 20)

int umt__ix_run_write(int fd, const struct ix_entry *e, uint64_t n, struct ix_run *out)
{
	struct ix_run_writer w;
	int rc = umt__ix_runw_init(&w, fd, SPILL_BUFFER);
	for (uint64_t i = 0; rc == 0 && i < n; i++)
		rc = umt__ix_runw_put(&w, &e[i]);
	if (rc == 0)
		return umt__ix_runw_finish(&w, out);
	umt__ix_runw_free(&w);
	return rc;
}

void umt__ix_run_free(struct ix_run *r)
{
	free(r->frames);
	r->frames = NULL;
}

/* ---- cursors ------------------------------------------------------------------------- */

/* Reads more of the file after the bytes not yet decoded (moved to the front). */
static int fill(struct ix_cursor *c)
{
	size_t keep = c->len - c->pos;
	memmove(c->buf, c->buf + c->pos, keep);
	c->len = keep;
	c->pos = 0;
	uint64_t left = c->run->end - c->file_off;
	size_t want = c->cap - keep < left ? c->cap - keep : (size_t)left;
	while (want > 0) {
		ssize_t k = pread(c->run->fd, c->buf + c->len, want, (off_t)c->file_off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return run_io_error("read", k);
		if (c->sum)
			*c->sum = umt__fnv(*c->sum, c->buf + c->len, (size_t)k);
		c->len += (size_t)k;
		c->file_off += (uint64_t)k;
		want -= (size_t)k;
	}
	return 0;
}

/* Decodes entry c->next of a file run into c->one. */
static int decode_next(struct ix_cursor *c)
{
	if (c->len - c->pos < ENTRY_MAX && c->file_off < c->run->end) {
		int rc = fill(c);
		if (rc < 0)
			return rc;
	}
	struct ix_entry prev = c->one, last = c->one;
	if (c->next % UMT_IX_FRAME == 0)
		memset(&prev, 0, sizeof prev); /* what a frame's first entry is coded against */
	const uint8_t *p = c->buf + c->pos;
	/* runs may come from other processes' part files (parts.c): check the order too */
	if (!get_entry(&p, c->buf + c->len, &prev, &c->one) ||
	    (c->cur != NULL && umt__ix_entry_less(&c->one, &last)))
		return umt__failf(UMT_E_CORRUPT, "%s: sorted run damaged near byte %llu",
		                  c->run->name ? c->run->name : "index build",
		                  (unsigned long long)(c->file_off - (c->len - c->pos)));
	c->pos = (size_t)(p - c->buf);
	c->next++;
	c->cur = &c->one;
	return 0;
}

int umt__ix_cursor_init(struct ix_cursor *c, const struct ix_run *r, uint64_t from, uint64_t to,
                        uint8_t *buf, size_t cap)
{
	c->run = r;
	c->end = to;
	c->buf = buf;
	c->cap = cap;
	c->len = c->pos = 0;
	c->cur = NULL;
	c->sum = NULL;
	if (r->mem) {
		c->next = from;
		c->cur = from < to ? &r->mem[c->next++] : NULL;
		return 0;
	}
	if (from >= to)
		return 0;
	/* from the start of from's frame, decoding up to it */
	uint64_t f = from / UMT_IX_FRAME;
	c->next = f * UMT_IX_FRAME;
	c->file_off = r->frames[f].offset;
	int rc = 0;
	while (rc == 0 && c->next <= from)
		rc = decode_next(c);
	return rc;
}

int umt__ix_cursor_next(struct ix_cursor *c)
{
	if (c->next >= c->end) {
		c->cur = NULL;
		return 0;
	}
	if (c->run->mem) {
		c->cur = &c->run->mem[c->next++];
		return 0;
	}
	return decode_next(c);
}

int umt__ix_run_seek(const struct ix_run *r, uint64_t page, uint64_t *out)
{
	uint64_t lo = 0, hi = r->count;
	if (r->mem) {
		while (lo < hi) {
			uint64_t mid = lo + (hi - lo) / 2;
			if ((r->mem[mid].list >> 7) < page)
				lo = mid + 1;
			else
				hi = mid;
		}
		*out = lo;
		return 0;
	}
	/* the last frame starting below the page, then its entries */
	uint64_t frames = (r->count + UMT_IX_FRAME - 1) / UMT_IX_FRAME, a = 0, z = frames;
	while (a < z) {
		uint64_t mid = a + (z - a) / 2;
		if (r->frames[mid].first_page < page)
			a = mid + 1;
		else
			z = mid;
	}
	if (a == 0) {
		*out = 0;
		return 0;
	}
	uint8_t *buf = malloc(UMT_IX_CURSOR_MIN);
	if (buf == NULL)
		return umt__failf(UMT_E_NOMEM, "index build: out of memory");
	struct ix_cursor c;
	uint64_t end = a * UMT_IX_FRAME < r->count ? a * UMT_IX_FRAME : r->count;
	int rc = umt__ix_cursor_init(&c, r, (a - 1) * UMT_IX_FRAME, end, buf, UMT_IX_CURSOR_MIN);
	while (rc == 0 && c.cur && (c.cur->list >> 7) < page)
		rc = umt__ix_cursor_next(&c);
	*out = c.cur ? c.next - 1 : end;
	free(buf);
	return rc;
}

/* ---- runs from part files ----------------------------------------------------------- */

#define LOAD_BUFFER (1u << 20)
#define ENTRY_MIN 7u /* six varints and the flags byte */

static int run_corrupt(const struct ix_run *r, uint64_t at, const char *what)
{
	return umt__failf(UMT_E_CORRUPT, "%s: sorted run damaged at byte %llu: %s", r->name,
	                  (unsigned long long)at, what);
}

int umt__ix_run_load(struct ix_run *r, uint64_t start, uint64_t *sum)
{
	if (r->end < start || r->count > (r->end - start) / ENTRY_MIN)
		return run_corrupt(r, start, "more entries than bytes");
	uint64_t nframes = (r->count + UMT_IX_FRAME - 1) / UMT_IX_FRAME;
	r->frames = malloc((size_t)(nframes ? nframes : 1) * sizeof *r->frames);
	uint8_t *buf = malloc(LOAD_BUFFER);
	*sum = UMT_FNV_SEED;
	struct ix_cursor c = {.run = r, .end = r->count, .buf = buf, .cap = LOAD_BUFFER,
	                      .file_off = start, .sum = sum};
	int rc = r->frames && buf ? 0 : umt__failf(UMT_E_NOMEM, "index build: out of memory");
	for (uint64_t i = 0; rc == 0 && i < r->count; i++) {
		uint64_t at = c.file_off - (c.len - c.pos);
		rc = decode_next(&c);
		if (rc == 0 && i % UMT_IX_FRAME == 0)
			r->frames[i / UMT_IX_FRAME] = (struct ix_frame){at, c.one.list >> 7};
	}
	uint64_t at = c.file_off - (c.len - c.pos);
	if (rc == 0 && at != r->end)
		rc = run_corrupt(r, at, "bytes after the last entry");
	free(buf);
	if (rc < 0)
		umt__ix_run_free(r);
	return rc;
}

/* ---- the merge heap ------------------------------------------------------------------ */

static inline bool slot_less(const struct ix_merge_slot *a, const struct ix_merge_slot *b)
{
	return umt__ix_order_less(a->list, a->key, a->locator, b->list, b->key, b->locator);
}

static inline void slot_load(struct ix_merge_slot *s)
{
	const struct ix_entry *e = s->c->cur;
	s->list = e->list, s->key = e->key, s->locator = e->locator;
}

/* Moves the slot at @p i down to its place (the hole moves, the slot is written once). */
static void sift_down(struct ix_merge *m, size_t i)
{
	struct ix_merge_slot x = m->heap[i];
	for (;;) {
		size_t l = 2 * i + 1, s = l;
		if (l >= m->n)
			break;
		if (l + 1 < m->n && slot_less(&m->heap[l + 1], &m->heap[l]))
			s = l + 1;
		if (!slot_less(&m->heap[s], &x))
			break;
		m->heap[i] = m->heap[s];
		i = s;
	}
	m->heap[i] = x;
}

int umt__ix_merge_init(struct ix_merge *m, struct ix_cursor *c, size_t n)
{
	m->n = 0;
	m->heap = malloc((n ? n : 1) * sizeof *m->heap);
	if (m->heap == NULL)
		return umt__failf(UMT_E_NOMEM, "index build: out of memory");
	for (size_t i = 0; i < n; i++)
		if (c[i].cur) {
			m->heap[m->n].c = &c[i];
			slot_load(&m->heap[m->n++]);
		}
	for (size_t i = m->n / 2; i-- > 0;)
		sift_down(m, i);
	return 0;
}

int umt__ix_merge_pop(struct ix_merge *m)
{
	int rc = umt__ix_cursor_next(m->heap[0].c);
	if (rc < 0)
		return rc;
	if (m->heap[0].c->cur == NULL)
		m->heap[0] = m->heap[--m->n];
	else
		slot_load(&m->heap[0]);
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
