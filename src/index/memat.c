/*
 * libumtrace - memory contents at a record (index.h sections 1 and 5).
 *
 * Per 64-byte granule of the range: its fine list and its page's page list
 * are walked backwards from the record, merged by key, and each posting
 * settles the bytes it covers that are still open, until none is open or
 * both lists are exhausted. Blocks whose masks miss the open bytes are
 * skipped undecoded, so bytes never observed cost a few skip entries, not
 * the list's whole history. Small values come from the postings themselves
 * (umt__ix_inline()): the trace is read only for wide accesses, so a query
 * touches the index's pages, not one trace page per source record.
 */
#include <stdlib.h>

#include "ixint.h"

/* The output arrays and the value of the access read last (one fetch per access). */
struct memat {
	const umt_index *ix;
	uint64_t address, length;
	uint8_t *data, *known;
	uint64_t *sources;
	uint64_t cached_record;
	uint32_t cached_locator;
	bool cached;
	umt_access access;
};

/* Settles the open bytes of granule @p g0 (address) in @p open that posting @p p covers. */
static int settle(struct memat *m, uint64_t gbase, uint64_t *open, const struct ix_cursor_l *c,
                  const struct ix_posting *p)
{
	uint64_t first = c->l.base + p->lo, last = first + p->len - 1;
	if (last < gbase || first > gbase + UMT_IX_GRANULE - 1)
		return 0;
	uint64_t record = p->key >> 1;
	bool inl = umt__ix_inline(c->l.page_list, p->len, p->clobber);
	if (!p->clobber && !inl &&
	    !(m->cached && m->cached_record == record && m->cached_locator == p->locator)) {
		int rc = umt__ix_fetch(m->ix, record, p->locator, &m->access);
		if (rc < 0)
			return rc;
		m->cached = true;
		m->cached_record = record;
		m->cached_locator = p->locator;
	}
	uint64_t lo = first > gbase ? first - gbase : 0;
	uint64_t hi = last - gbase < UMT_IX_GRANULE ? last - gbase : UMT_IX_GRANULE - 1;
	for (uint64_t b = lo; b <= hi; b++) {
		if (!((*open >> b) & 1))
			continue;
		*open &= ~(1ull << b);
		uint64_t i = gbase + b - m->address; /* inside the query: open bits are */
		if (m->sources)
			m->sources[i] = record;
		if (p->clobber)
			continue; /* unknown from here on: data 0, known 0 */
		if (inl) { /* value holds bytes [first, last] in memory order */
			uint8_t v[8];
			memcpy(v, &p->value, sizeof v);
			if (m->data)
				m->data[i] = v[gbase + b - first];
			if (m->known)
				m->known[i] = 1;
			continue;
		}
		uint64_t off = gbase + b - m->access.address;
		if (off >= m->access.size)
			return umt__failf(UMT_E_CORRUPT,
			                  "index posting of record %llu, access %u covers 0x%llx, outside the access",
			                  (unsigned long long)record, p->locator,
			                  (unsigned long long)(gbase + b));
		if (m->data)
			m->data[i] = m->access.data[off];
		if (m->known)
			m->known[i] = 1;
	}
	return 0;
}

/* One granule: its fine list and the page list, backwards from key @p key. */
static int granule(struct memat *m, const struct ix_page *pg, unsigned g, uint64_t open,
                   uint64_t key, struct ix_cursor_l *f, struct ix_cursor_l *pl)
{
	uint64_t gbase = (pg->page << UMT_IX_PAGE_SHIFT) + ((uint64_t)g << UMT_IX_GRANULE_SHIFT);
	struct ix_list l;
	int rc = umt__ix_page_list(m->ix, pg, g, &l);
	f->done = true;
	if (rc > 0)
		rc = umt__ix_lcursor_seek(f, &l, key, -1, open, false);
	pl->done = true;
	if (rc >= 0 && (rc = umt__ix_page_list(m->ix, pg, UMT_IX_PAGE_LIST, &l)) > 0)
		rc = umt__ix_lcursor_seek(pl, &l, key, -1, 1ull << g, false);
	while (rc >= 0 && open) {
		const struct ix_posting *a = umt__ix_lcursor_cur(f), *b = umt__ix_lcursor_cur(pl);
		if (a == NULL && b == NULL)
			break;
		/* the later posting first: by key, then by locator (the last access of a
		 * record's phase wins, as in index.h section 1) */
		bool fine = b == NULL ||
		            (a != NULL && (a->key > b->key || (a->key == b->key && a->locator > b->locator)));
		struct ix_cursor_l *c = fine ? f : pl;
		rc = settle(m, gbase, &open, c, umt__ix_lcursor_cur(c));
		if (rc >= 0)
			rc = umt__ix_lcursor_next(c);
		if (rc >= 0 && c == f && !f->done)
			f->mask = open; /* skip blocks that touch only settled bytes */
	}
	return rc < 0 ? rc : 0;
}

/* The bits of the query's bytes in granule @p gbase. */
static uint64_t open_bits(const struct memat *m, uint64_t gbase)
{
	uint64_t last = m->address + m->length - 1;
	uint64_t lo = m->address > gbase ? m->address - gbase : 0;
	uint64_t hi = last - gbase < UMT_IX_GRANULE ? last - gbase : UMT_IX_GRANULE - 1;
	uint64_t upto = hi == 63 ? UINT64_MAX : ((1ull << (hi + 1)) - 1);
	return upto & ~((1ull << lo) - 1);
}

static int page(struct memat *m, uint64_t i, uint64_t key, struct ix_cursor_l *cur)
{
	struct ix_page pg;
	int rc = umt__ix_page_at(m->ix, i, &pg);
	if (rc < 0)
		return rc;
	uint64_t base = pg.page << UMT_IX_PAGE_SHIFT, last = m->address + m->length - 1;
	if (pg.page < m->address >> UMT_IX_PAGE_SHIFT || pg.page > last >> UMT_IX_PAGE_SHIFT)
		return 0; /* a damaged directory out of order: the page is not in the range */
	unsigned g0 = m->address > base ? (unsigned)((m->address - base) >> UMT_IX_GRANULE_SHIFT) : 0;
	unsigned g1 = last - base < UMT_IX_PAGE ? (unsigned)((last - base) >> UMT_IX_GRANULE_SHIFT)
	                                        : UMT_IX_GRANULES_PER_PAGE - 1;
	for (unsigned g = g0; rc >= 0 && g <= g1; g++)
		rc = granule(m, &pg, g, open_bits(m, base + ((uint64_t)g << UMT_IX_GRANULE_SHIFT)), key,
		             &cur[0], &cur[1]);
	return rc < 0 ? rc : 0;
}

int umt_mem_at(const umt_index *ix, uint64_t at, uint64_t address, uint64_t length,
               uint8_t *data, uint8_t *known, uint64_t *sources)
{
	if (ix == NULL || length == 0 || address + (length - 1) < address)
		return umt__failf(UMT_E_INVAL, "umt_mem_at: invalid argument");
	if (at >= ix->header.Trace.RecordCount)
		return umt__failf(UMT_E_RANGE, "record %llu is out of range (%llu records)",
		                  (unsigned long long)at,
		                  (unsigned long long)ix->header.Trace.RecordCount);
	for (uint64_t i = 0; i < length; i++) {
		if (data)
			data[i] = 0;
		if (known)
			known[i] = 0;
		if (sources)
			sources[i] = UMT_NO_RECORD;
	}
	struct memat m = {ix, address, length, data, known, sources, 0, 0, false, {0}};
	struct ix_cursor_l *cur = malloc(2 * sizeof *cur); /* 6 KiB: not on the caller's stack */
	if (cur == NULL)
		return umt__failf(UMT_E_NOMEM, "umt_mem_at: out of memory");
	uint64_t key = at * 2 + 1, last_page = (address + length - 1) >> UMT_IX_PAGE_SHIFT;
	int rc = 0;
	for (uint64_t i = umt__ix_page_lower_bound(ix, address >> UMT_IX_PAGE_SHIFT);
	     rc == 0 && i < ix->page_count && ix->pages[i].Page <= last_page; i++)
		rc = page(&m, i, key, cur);
	free(cur);
	return rc;
}
