/*
 * libumtrace - reading the memory postings: pages of mem.dir, their
 * footers, their lists and the blocks of a list (docs/index-format.md).
 * Every offset is checked before it is followed; a damaged index gives an
 * error naming the file and the offset, never a read outside the mapping.
 */
#include "ixint.h"

static uint64_t ld64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

/* ---- pages --------------------------------------------------------------------------- */

static uint64_t dir_offset(const umt_index *ix, uint64_t i)
{
	return (uint64_t)((const uint8_t *)&ix->pages[i] - ix->files[IX_F_DIR].data);
}

int umt__ix_page_at(const umt_index *ix, uint64_t i, struct ix_page *out)
{
	umt_ix_page_entry e;
	memcpy(&e, &ix->pages[i], sizeof e);
	uint64_t start = i ? ix->pages[i - 1].PostEnd : 64, end = e.PostEnd;
	uint64_t size = ix->files[IX_F_POST].size, min = 16 + sizeof(umt_ix_footer_tail);
	if (start < 64 || end > size || start > end || end - start < min || e.SkipStart > ix->skip_count ||
	    e.Page > (UINT64_MAX >> UMT_IX_PAGE_SHIFT))
		return umt__ix_corrupt(UMT_E_BOUNDS, IX_F_DIR, dir_offset(ix, i),
		                       "page 0x%llx: not a page, or data [0x%llx, 0x%llx) or SkipStart "
		                       "%llu outside mem.post (%llu bytes) or mem.skip",
		                       (unsigned long long)e.Page, (unsigned long long)start,
		                       (unsigned long long)end, (unsigned long long)e.SkipStart,
		                       (unsigned long long)size);
	const uint8_t *post = ix->files[IX_F_POST].data;
	umt_ix_footer_tail tail;
	memcpy(&tail, post + end - sizeof tail, sizeof tail);
	uint64_t present[2] = {0, 0};
	if (tail.Magic == UMT_IX_FOOTER_MAGIC && tail.FooterSize >= min && tail.FooterSize <= end - start) {
		memcpy(present, post + end - tail.FooterSize, sizeof present);
	}
	unsigned n = (unsigned)__builtin_popcountll(present[0]) + (unsigned)(present[1] & 1);
	if (tail.Magic != UMT_IX_FOOTER_MAGIC || tail.FooterSize > end - start || n == 0 ||
	    (present[1] >> 1) != 0 || tail.FooterSize != 16 + n * sizeof(umt_ix_list_desc) + 8)
		return umt__ix_corrupt(UMT_E_CORRUPT, IX_F_POST, end - sizeof tail,
		                       "page 0x%llx: bad footer (size %u)", (unsigned long long)e.Page,
		                       tail.FooterSize);
	out->page = e.Page;
	out->data = post + start;
	out->data_off = start;
	out->lists_len = end - start - tail.FooterSize;
	out->skip_start = e.SkipStart;
	out->present[0] = present[0];
	out->present[1] = present[1];
	out->descs = post + end - tail.FooterSize + 16;
	return 1;
}

uint64_t umt__ix_top_at(const umt_index *ix, uint64_t i)
{
	return ld64(ix->top + i * 8);
}
#define top_at umt__ix_top_at

int umt__ix_page_find(const umt_index *ix, uint64_t page, struct ix_page *out)
{
	/* the last top entry <= page, then the run of page entries it starts */
	uint64_t lo = 0, hi = ix->top_count;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (top_at(ix, mid) <= page)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return 0;
	uint64_t first = (lo - 1) * UMT_IX_TOP_STRIDE;
	uint64_t last = first + UMT_IX_TOP_STRIDE < ix->page_count ? first + UMT_IX_TOP_STRIDE
	                                                            : ix->page_count;
	lo = first;
	hi = last;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		uint64_t p = ix->pages[mid].Page;
		if (p == page)
			return umt__ix_page_at(ix, mid, out);
		if (p < page)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* ---- lists --------------------------------------------------------------------------- */

/* Bits of the present set below list @p list. */
static unsigned present_below(const struct ix_page *pg, unsigned list)
{
	if (list == UMT_IX_PAGE_LIST)
		return (unsigned)__builtin_popcountll(pg->present[0]);
	return (unsigned)__builtin_popcountll(pg->present[0] & ((1ull << list) - 1));
}

static bool is_present(const struct ix_page *pg, unsigned list)
{
	return list == UMT_IX_PAGE_LIST ? (pg->present[1] & 1) : ((pg->present[0] >> list) & 1);
}

static int bad_list(const struct ix_page *pg, unsigned list, uint64_t at,
                    const char *what)
{
	return umt__ix_corrupt(UMT_E_CORRUPT, IX_F_POST, at, "page 0x%llx, list %u: %s",
	                       (unsigned long long)pg->page, list, what);
}

int umt__ix_page_list(const umt_index *ix, const struct ix_page *pg, unsigned list,
                      struct ix_list *out)
{
	if (list >= UMT_IX_LISTS_PER_PAGE || !is_present(pg, list))
		return 0;
	unsigned j = present_below(pg, list);
	unsigned n = (unsigned)__builtin_popcountll(pg->present[0]) + (unsigned)(pg->present[1] & 1);
	umt_ix_list_desc d;
	memcpy(&d, pg->descs + (uint64_t)j * sizeof d, sizeof d);
	uint64_t end = pg->lists_len;
	if (j + 1 < n)
		end = ld64(pg->descs + (uint64_t)(j + 1) * sizeof d);
	uint64_t at = pg->data_off + pg->lists_len + 16 + (uint64_t)j * sizeof d;
	if (d.DataOff > end || end > pg->lists_len || d.Count == 0 || d.Count > end - d.DataOff)
		return bad_list(pg, list, at, "data or count outside the page");
	uint64_t blocks = (d.Count + UMT_IX_BLOCK - 1) / UMT_IX_BLOCK;
	out->skip = NULL;
	if (blocks > 1) {
		uint64_t first = pg->skip_start + d.SkipFirst;
		if (d.SkipFirst > ix->skip_count || first > ix->skip_count ||
		    blocks > ix->skip_count - first)
			return bad_list(pg, list, at + 16, "skip entries outside mem.skip");
		out->skip = &ix->skips[first];
		out->skip_index = first;
	}
	out->ix = ix;
	out->data = pg->data + d.DataOff;
	out->len = end - d.DataOff;
	out->file_off = pg->data_off + d.DataOff;
	out->count = d.Count;
	out->blocks = blocks;
	out->page_list = list == UMT_IX_PAGE_LIST;
	out->base = (pg->page << UMT_IX_PAGE_SHIFT) +
	            (out->page_list ? 0 : (uint64_t)list << UMT_IX_GRANULE_SHIFT);
	return 1;
}

uint64_t umt__ix_block_before(const struct ix_list *l, uint64_t key)
{
	if (l->skip == NULL)
		return 0;
	uint64_t lo = 0, hi = l->blocks; /* the first block with FirstKey >= key */
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (l->skip[mid].FirstKey < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : 0;
}

/* ---- blocks -------------------------------------------------------------------------- */

static int bad_block(const struct ix_list *l, uint64_t b, uint64_t at, const char *what)
{
	return umt__ix_corrupt(UMT_E_CORRUPT, IX_F_POST, l->file_off + at,
	                       "list at 0x%llx, block %llu: %s", (unsigned long long)l->file_off,
	                       (unsigned long long)b, what);
}

/* One posting's bits, thread and locator after its key. */
static bool decode_rest(const struct ix_list *l, const uint8_t **p, const uint8_t *end,
                        struct ix_posting *o, int32_t *thread, bool first)
{
	uint32_t bits;
	bool same;
	if (l->page_list) {
		if (end - *p < 4)
			return false;
		memcpy(&bits, *p, 4);
		*p += 4;
		o->lo = (uint16_t)UMT_IX_PAGE_LO(bits);
		o->len = (uint16_t)UMT_IX_PAGE_LEN(bits);
		o->kind = (uint8_t)UMT_IX_PAGE_KIND(bits);
		o->clobber = (bits & UMT_IX_PAGE_CLOBBER) != 0;
		same = (bits & UMT_IX_PAGE_SAME_THREAD) != 0;
		if (bits >> 28 || (uint32_t)o->lo + o->len > UMT_IX_PAGE)
			return false;
	} else {
		uint16_t b16;
		if (end - *p < 2)
			return false;
		memcpy(&b16, *p, 2);
		*p += 2;
		o->lo = (uint16_t)UMT_IX_FINE_LO(b16);
		o->len = (uint16_t)UMT_IX_FINE_LEN(b16);
		o->kind = (uint8_t)UMT_IX_FINE_KIND(b16);
		o->clobber = (b16 & UMT_IX_FINE_CLOBBER) != 0;
		same = (b16 & UMT_IX_FINE_SAME_THREAD) != 0;
		if ((uint32_t)o->lo + o->len > UMT_IX_GRANULE)
			return false;
	}
	uint64_t v;
	if (first || !same) {
		if (!umt__get_varint(p, end, &v) || v > UINT32_MAX)
			return false;
		*thread = (int32_t)(uint32_t)v;
	}
	o->thread = *thread;
	if (!umt__get_varint(p, end, &v) || v > UINT32_MAX)
		return false;
	o->locator = (uint32_t)v;
	o->value = 0;
	if (umt__ix_inline(l->page_list, o->len, o->clobber)) {
		if (end - *p < o->len)
			return false;
		memcpy(&o->value, *p, o->len);
		*p += o->len;
	}
	return !(o->clobber && o->kind != UMT_IX_K_WRITE);
}

int umt__ix_block_decode(const struct ix_list *l, uint64_t b, struct ix_posting *out)
{
	uint64_t from = 0, to = l->len;
	if (l->skip) {
		from = l->skip[b].DataOff;
		to = b + 1 < l->blocks ? l->skip[b + 1].DataOff : l->len;
	}
	if (from >= to || to > l->len)
		return bad_block(l, b, from, "extent outside its list");
	const uint8_t *p = l->data + from, *end = l->data + to;
	uint64_t n = b + 1 < l->blocks ? UMT_IX_BLOCK : l->count - b * UMT_IX_BLOCK;
	uint64_t key = 0, records = l->ix->header.Trace.RecordCount;
	int32_t thread = 0;
	for (uint64_t i = 0; i < n; i++) {
		const uint8_t *at = p;
		uint64_t k;
		if (!umt__get_varint(&p, end, &k) || (i > 0 && k > UINT64_MAX - key))
			return bad_block(l, b, (uint64_t)(at - l->data), "bad key");
		key = i == 0 ? k : key + k;
		if ((key >> 1) >= records || (i == 0 && l->skip && key != l->skip[b].FirstKey))
			return bad_block(l, b, (uint64_t)(at - l->data), "key outside the trace or the skip table");
		out[i].key = key;
		if (!decode_rest(l, &p, end, &out[i], &thread, i == 0))
			return bad_block(l, b, (uint64_t)(at - l->data), "bad posting");
	}
	if (p != end)
		return bad_block(l, b, (uint64_t)(p - l->data), "bytes after the last posting");
	return (int)n;
}

/* ---- the access a posting names ---------------------------------------------------- */

int umt__ix_fetch(const umt_index *ix, uint64_t record, uint32_t locator, umt_access *out)
{
	umt_rec r;
	int rc = umt_exec_view_get(&ix->view, record, &r);
	umt_access_iter it;
	if (rc == 0)
		rc = umt_access_iter_init(&it, ix->trace, &r, UMT_ACCESS_ALL);
	while (rc == 0 && (rc = umt_access_iter_next(&it, out)) > 0) {
		if (out->locator == locator)
			return 0;
		rc = 0;
	}
	if (rc < 0)
		return rc;
	return umt__failf(UMT_E_CORRUPT,
	                  "index posting names access %u of record %llu, which it does not have",
	                  locator, (unsigned long long)record);
}

/* ---- pages in address order -------------------------------------------------------- */

uint64_t umt__ix_page_lower_bound(const umt_index *ix, uint64_t page)
{
	uint64_t lo = 0, hi = ix->top_count; /* the first top entry > page */
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (top_at(ix, mid) <= page)
			lo = mid + 1;
		else
			hi = mid;
	}
	uint64_t first = lo ? (lo - 1) * UMT_IX_TOP_STRIDE : 0;
	uint64_t last = lo * UMT_IX_TOP_STRIDE < ix->page_count ? lo * UMT_IX_TOP_STRIDE
	                                                         : ix->page_count;
	lo = first;
	hi = last;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (ix->pages[mid].Page < page)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ---- list cursors ------------------------------------------------------------------- */

/* Whether block @p b may hold postings the cursor wants (its masks). */
static bool block_wanted(const struct ix_cursor_l *c, uint64_t b)
{
	if (c->mask == 0 || c->l.skip == NULL)
		return true;
	uint64_t m = c->writes_only ? c->l.skip[b].WriteMask : c->l.skip[b].SeenMask;
	return (m & c->mask) != 0;
}

/* Backwards: whether no block up to @p b (included) has a posting the cursor wants. */
static bool nothing_before(const struct ix_cursor_l *c, uint64_t b)
{
	if (c->dir > 0 || c->mask == 0 || c->l.skip == NULL)
		return false;
	uint64_t m = c->writes_only ? c->l.skip[b].WrittenBefore : c->l.skip[b].SeenBefore;
	return (m & c->mask) == 0;
}

/* Decodes the next wanted block from @p b on, in the cursor's direction. */
static int load_block(struct ix_cursor_l *c, uint64_t b)
{
	for (;;) {
		if (nothing_before(c, b)) { /* a backward walk ends here: nothing earlier helps */
			c->done = true;
			return 0;
		}
		if (block_wanted(c, b)) {
			int n = umt__ix_block_decode(&c->l, b, c->buf);
			if (n < 0)
				return n;
			c->block = b;
			c->n = n;
			c->i = c->dir > 0 ? 0 : n - 1;
			return 0;
		}
		if (c->dir > 0 ? b + 1 >= c->l.blocks : b == 0) {
			c->done = true;
			return 0;
		}
		b = c->dir > 0 ? b + 1 : b - 1;
	}
}

int umt__ix_lcursor_next(struct ix_cursor_l *c)
{
	if (c->done)
		return 0;
	c->i += c->dir;
	if (c->i >= 0 && c->i < c->n)
		return 0;
	if (c->dir > 0 ? c->block + 1 >= c->l.blocks : c->block == 0) {
		c->done = true;
		return 0;
	}
	return load_block(c, c->dir > 0 ? c->block + 1 : c->block - 1);
}

int umt__ix_lcursor_seek(struct ix_cursor_l *c, const struct ix_list *l, uint64_t key,
                         int dir, uint64_t mask, bool writes_only)
{
	c->l = *l;
	c->dir = dir;
	c->done = false;
	c->mask = mask;
	c->writes_only = writes_only;
	int rc = load_block(c, umt__ix_block_before(l, key));
	/* within and after the block: forward to key >= key, backward to key < key */
	while (rc == 0 && !c->done &&
	       (dir > 0 ? c->buf[c->i].key < key : c->buf[c->i].key >= key))
		rc = umt__ix_lcursor_next(c);
	return rc;
}
