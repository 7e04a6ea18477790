/*
 * libumtrace - memory history: the accesses overlapping [A, A + L) in a
 * record range, in record order or reversed (index.h section 4).
 *
 * One cursor per list that can hold the range's postings (the fine lists
 * of its granules, the page lists of its pages), merged by key through a
 * heap. The postings of one key (one record and phase) are gathered, each
 * access read whole from the trace once (an access split over several
 * lists has one posting in each), and sorted by address.
 */
#include <stdlib.h>

#include "ixint.h"

struct umt_history {
	const umt_index *ix;
	umt_history_query q;
	uint64_t lo_key, hi_key;  /* keys [lo_key, hi_key) */
	struct ix_cursor_l *cur;  /* one per list */
	size_t ncur, cap;
	struct ix_cursor_l **heap;
	size_t nheap;
	umt_access *group;        /* the accesses of the current key, sorted */
	size_t group_n, group_i, group_cap;
	uint64_t emitted;
};

void umt_history_query_init(umt_history_query *q, uint64_t address, uint64_t length)
{
	if (q == NULL)
		return;
	memset(q, 0, sizeof *q);
	q->address = address;
	q->length = length;
	q->to = UINT64_MAX;
	q->kinds = UMT_ACCESS_READ | UMT_ACCESS_WRITE | UMT_ACCESS_CONTEXT;
	q->thread = -1;
}

/* ---- the heap of cursors ---------------------------------------------------------- */

static bool before(const struct umt_history *h, const struct ix_cursor_l *a,
                   const struct ix_cursor_l *b)
{
	uint64_t x = umt__ix_lcursor_cur(a)->key, y = umt__ix_lcursor_cur(b)->key;
	return h->q.reverse ? x > y : x < y;
}

static void sift_down(struct umt_history *h, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, s = i;
		if (l < h->nheap && before(h, h->heap[l], h->heap[s]))
			s = l;
		if (r < h->nheap && before(h, h->heap[r], h->heap[s]))
			s = r;
		if (s == i)
			return;
		struct ix_cursor_l *t = h->heap[i];
		h->heap[i] = h->heap[s];
		h->heap[s] = t;
		i = s;
	}
}

/* ---- opening --------------------------------------------------------------------------- */

/* The bits of [A, A + L) in a list: bytes of its granule, or granules of its page. */
static uint64_t query_mask(const umt_history_query *q, const struct ix_list *l)
{
	uint64_t unit = l->page_list ? UMT_IX_PAGE : UMT_IX_GRANULE;
	uint64_t first = q->address > l->base ? q->address - l->base : 0;
	uint64_t last = q->address + q->length - 1 - l->base;
	if (last >= unit)
		last = unit - 1;
	if (l->page_list) {
		first >>= UMT_IX_GRANULE_SHIFT;
		last >>= UMT_IX_GRANULE_SHIFT;
	}
	uint64_t upto = last == 63 ? UINT64_MAX : ((1ull << (last + 1)) - 1);
	return upto & ~((1ull << first) - 1);
}

static int add_cursor(struct umt_history *h, const struct ix_list *l)
{
	if (h->ncur == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 8;
		struct ix_cursor_l *p = realloc(h->cur, cap * sizeof *p);
		if (p == NULL)
			return umt__failf(UMT_E_NOMEM, "umt_history_open: out of memory");
		h->cur = p;
		h->cap = cap;
	}
	struct ix_cursor_l *c = &h->cur[h->ncur];
	bool writes = h->q.kinds == UMT_ACCESS_WRITE;
	int rc = umt__ix_lcursor_seek(c, l, h->q.reverse ? h->hi_key : h->lo_key,
	                              h->q.reverse ? -1 : 1, query_mask(&h->q, l), writes);
	if (rc == 0 && !c->done)
		h->ncur++;
	return rc;
}

/* Cursors on the lists of page entry @p i that overlap the query. */
static int add_page(struct umt_history *h, uint64_t i)
{
	struct ix_page pg;
	int rc = umt__ix_page_at(h->ix, i, &pg);
	if (rc < 0)
		return rc;
	uint64_t base = pg.page << UMT_IX_PAGE_SHIFT, a = h->q.address;
	uint64_t last = a + h->q.length - 1;
	if (pg.page < a >> UMT_IX_PAGE_SHIFT || pg.page > last >> UMT_IX_PAGE_SHIFT)
		return 0; /* a damaged directory out of order: the page is not in the range */
	unsigned g0 = a > base ? (unsigned)((a - base) >> UMT_IX_GRANULE_SHIFT) : 0;
	unsigned g1 = last - base < UMT_IX_PAGE ? (unsigned)((last - base) >> UMT_IX_GRANULE_SHIFT)
	                                        : UMT_IX_GRANULES_PER_PAGE - 1;
	struct ix_list l;
	for (unsigned g = g0; rc >= 0 && g <= g1; g++)
		if ((rc = umt__ix_page_list(h->ix, &pg, g, &l)) > 0)
			rc = add_cursor(h, &l);
	if (rc >= 0 && (rc = umt__ix_page_list(h->ix, &pg, UMT_IX_PAGE_LIST, &l)) > 0)
		rc = add_cursor(h, &l);
	return rc < 0 ? rc : 0;
}

static int check_query(const umt_index *ix, const umt_history_query *q)
{
	if (ix == NULL || q == NULL || q->length == 0 || q->address + (q->length - 1) < q->address ||
	    q->kinds == 0 || (q->kinds & ~UMT_ACCESS_ALL) != 0)
		return umt__failf(UMT_E_INVAL, "umt_history_open: invalid query");
	return 0;
}

int umt_history_open(const umt_index *ix, const umt_history_query *q, umt_history **out)
{
	int rc = out ? check_query(ix, q) : umt__failf(UMT_E_INVAL, "umt_history_open: invalid argument");
	if (rc < 0)
		return rc;
	umt_history *h = calloc(1, sizeof *h);
	if (h == NULL)
		return umt__failf(UMT_E_NOMEM, "umt_history_open: out of memory");
	h->ix = ix;
	h->q = *q;
	uint64_t records = ix->header.Trace.RecordCount;
	uint64_t from = q->from < records ? q->from : records, to = q->to < records ? q->to : records;
	h->lo_key = from * 2;
	h->hi_key = to > from ? to * 2 : from * 2;
	uint64_t last_page = (q->address + q->length - 1) >> UMT_IX_PAGE_SHIFT;
	for (uint64_t i = umt__ix_page_lower_bound(ix, q->address >> UMT_IX_PAGE_SHIFT);
	     rc == 0 && h->lo_key < h->hi_key && i < ix->page_count && ix->pages[i].Page <= last_page; i++)
		rc = add_page(h, i);
	h->heap = malloc((h->ncur ? h->ncur : 1) * sizeof(struct ix_cursor_l *));
	if (rc == 0 && h->heap == NULL)
		rc = umt__failf(UMT_E_NOMEM, "umt_history_open: out of memory");
	for (size_t i = 0; rc == 0 && i < h->ncur; i++)
		h->heap[h->nheap++] = &h->cur[i];
	for (size_t i = h->nheap / 2; rc == 0 && i-- > 0;)
		sift_down(h, i);
	if (rc < 0) {
		umt_history_close(h);
		return rc;
	}
	*out = h;
	return 0;
}

void umt_history_close(umt_history *h)
{
	if (h == NULL)
		return;
	free(h->cur);
	free(h->heap);
	free(h->group);
	free(h);
}

/* ---- reading ----------------------------------------------------------------------------- */

/* Whether a posting passes the query's filters (range, kind, thread). */
static bool wanted(const struct umt_history *h, const struct ix_cursor_l *c,
                   const struct ix_posting *p)
{
	uint64_t first = c->l.base + p->lo, last = first + p->len - 1;
	if (last < h->q.address || first > h->q.address + (h->q.length - 1))
		return false;
	if (!(h->q.kinds & umt__ix_access_kind(p->kind)))
		return false;
	return h->q.thread < 0 || p->thread == h->q.thread;
}

static int add_to_group(struct umt_history *h, uint64_t key, const struct ix_posting *p)
{
	for (size_t i = 0; i < h->group_n; i++)
		if (h->group[i].locator == p->locator)
			return 0; /* the same access, posted in another list */
	if (h->group_n == h->group_cap) {
		size_t cap = h->group_cap ? 2 * h->group_cap : 8;
		umt_access *g = realloc(h->group, cap * sizeof *g);
		if (g == NULL)
			return umt__failf(UMT_E_NOMEM, "umt_history_next: out of memory");
		h->group = g;
		h->group_cap = cap;
	}
	umt_access *a = &h->group[h->group_n];
	int rc = umt__ix_fetch(h->ix, key >> 1, p->locator, a);
	if (rc < 0)
		return rc;
	if (a->kind != umt__ix_access_kind(p->kind) || a->phase != (key & 1))
		return umt__failf(UMT_E_CORRUPT,
		                  "index posting of record %llu, access %u: kind or phase differs from the trace",
		                  (unsigned long long)(key >> 1), p->locator);
	h->group_n++;
	return 0;
}

static int cmp_forward(const void *x, const void *y)
{
	const umt_access *a = x, *b = y;
	if (a->address != b->address)
		return a->address < b->address ? -1 : 1;
	return (a->locator > b->locator) - (a->locator < b->locator);
}

static int cmp_reverse(const void *x, const void *y)
{
	return cmp_forward(y, x);
}

/* Gathers the next key's wanted accesses into the group. @return 1, 0 at the end, < 0. */
static int next_group(struct umt_history *h)
{
	h->group_n = h->group_i = 0;
	while (h->group_n == 0 && h->nheap > 0) {
		uint64_t key = umt__ix_lcursor_cur(h->heap[0])->key;
		if (h->q.reverse ? key < h->lo_key : key >= h->hi_key)
			return 0;
		while (h->nheap > 0 && umt__ix_lcursor_cur(h->heap[0])->key == key) {
			struct ix_cursor_l *c = h->heap[0];
			const struct ix_posting *p = umt__ix_lcursor_cur(c);
			int rc = wanted(h, c, p) ? add_to_group(h, key, p) : 0;
			if (rc == 0)
				rc = umt__ix_lcursor_next(c);
			if (rc < 0)
				return rc;
			if (c->done)
				h->heap[0] = h->heap[--h->nheap];
			if (h->nheap)
				sift_down(h, 0);
		}
	}
	if (h->group_n > 1)
		qsort(h->group, h->group_n, sizeof *h->group, h->q.reverse ? cmp_reverse : cmp_forward);
	return h->group_n > 0;
}

int umt_history_next(umt_history *h, umt_access *out)
{
	if (h == NULL || out == NULL)
		return umt__failf(UMT_E_INVAL, "umt_history_next: invalid argument");
	if (h->q.limit && h->emitted >= h->q.limit)
		return 0;
	if (h->group_i == h->group_n) {
		int rc = next_group(h);
		if (rc <= 0)
			return rc;
	}
	*out = h->group[h->group_i++];
	h->emitted++;
	return 1;
}
