/*
 * libumtrace - the full check of an index against its trace
 * (umt_index_verify, index.h section 6).
 *
 * Structure: every page, list, block and skip entry decodes inside its
 * file; pages strictly increase; skip entries follow each other list by
 * list; masks and counts are what the postings make them. Content: every
 * posting is, byte for byte, a posting its access has (umt__ix_postings()
 * of the access read from the trace); (key, locator) strictly increases
 * within a list; and the number of postings equals what a fresh scan of the
 * trace extracts. Together these say the index holds exactly the trace's
 * postings.
 */
#include <stdlib.h>

#include "section.h"

struct vstate {
	const umt_index *ix;
	uint64_t postings, skips;
	/* the posting being looked for among its access's postings */
	const struct ix_posting *want;
	uint64_t want_list;
	bool found;
};

static int match(void *ctx, const struct ix_entry *e)
{
	struct vstate *v = ctx;
	const struct ix_posting *p = v->want;
	if (e->list == v->want_list && e->key == p->key && e->locator == p->locator &&
	    e->thread == p->thread && e->lo == p->lo && e->len == p->len && e->kind == p->kind &&
	    e->clobber == p->clobber && e->value == p->value)
		v->found = true;
	return 0;
}

static int check_posting(struct vstate *v, uint64_t list_id, const struct ix_posting *p)
{
	umt_access a;
	int rc = umt__ix_fetch(v->ix, p->key >> 1, p->locator, &a);
	if (rc < 0)
		return rc;
	v->want = p;
	v->want_list = list_id;
	v->found = false;
	if (umt__ix_indexed(&a))
		umt__ix_postings(&a, match, v);
	if (!v->found)
		return umt__failf(UMT_E_CORRUPT,
		                  "index posting (record %llu, access %u, list 0x%llx) is not a posting "
		                  "of that access", (unsigned long long)(p->key >> 1), p->locator,
		                  (unsigned long long)list_id);
	return 0;
}

static uint64_t mask_of(const struct ix_list *l, const struct ix_posting *p)
{
	unsigned lo = p->lo, last = p->lo + p->len - 1u;
	if (l->page_list) {
		lo >>= UMT_IX_GRANULE_SHIFT;
		last >>= UMT_IX_GRANULE_SHIFT;
	}
	uint64_t upto = last == 63 ? UINT64_MAX : ((1ull << (last + 1)) - 1);
	return upto & ~((1ull << lo) - 1);
}

static int check_list(struct vstate *v, const struct ix_list *l, uint64_t list_id,
                      struct ix_posting *buf)
{
	if (l->skip && (l->skip_index != v->skips || l->skip[0].DataOff != 0))
		return umt__ix_corrupt(UMT_E_CORRUPT, IX_F_SKIP,
		                       64 + l->skip_index * sizeof(umt_ix_skip_entry),
		                       "skip entries of list 0x%llx out of sequence",
		                       (unsigned long long)list_id);
	uint64_t prev_key = 0, count = 0, seen_before = 0, written_before = 0;
	uint32_t prev_loc = 0;
	for (uint64_t b = 0; b < l->blocks; b++) {
		int n = umt__ix_block_decode(l, b, buf);
		if (n < 0)
			return n;
		uint64_t seen = 0, written = 0;
		for (int i = 0; i < n; i++) {
			const struct ix_posting *p = &buf[i];
			if (count > 0 && (p->key < prev_key || (p->key == prev_key && p->locator <= prev_loc)))
				return umt__ix_corrupt(UMT_E_CORRUPT, IX_F_POST, l->file_off,
				                       "list 0x%llx: postings out of order",
				                       (unsigned long long)list_id);
			int rc = check_posting(v, list_id, p);
			if (rc < 0)
				return rc;
			seen |= mask_of(l, p);
			if (p->kind == UMT_IX_K_WRITE)
				written |= mask_of(l, p);
			prev_key = p->key;
			prev_loc = p->locator;
			count++;
		}
		seen_before |= seen;
		written_before |= written;
		if (l->skip && (l->skip[b].SeenMask != seen || l->skip[b].WriteMask != written ||
		                l->skip[b].SeenBefore != seen_before ||
		                l->skip[b].WrittenBefore != written_before))
			return umt__ix_corrupt(UMT_E_CORRUPT, IX_F_SKIP,
			                       64 + (l->skip_index + b) * sizeof(umt_ix_skip_entry),
			                       "masks of block %llu of list 0x%llx differ from its postings",
			                       (unsigned long long)b, (unsigned long long)list_id);
	}
	v->postings += count;
	if (l->skip)
		v->skips += l->blocks;
	return 0;
}

static int check_pages(struct vstate *v)
{
	const umt_index *ix = v->ix;
	struct ix_posting *buf = malloc(UMT_IX_BLOCK * sizeof *buf);
	int rc = buf ? 0 : umt__failf(UMT_E_NOMEM, "umt_index_verify: out of memory");
	for (uint64_t i = 0; rc == 0 && i < ix->page_count; i++) {
		struct ix_page pg;
		if (i > 0 && ix->pages[i].Page <= ix->pages[i - 1].Page) {
			rc = umt__ix_corrupt(UMT_E_CORRUPT, IX_F_DIR, 64 + ix->top_count * 8 + i * 24,
			                     "pages do not increase");
			break;
		}
		if (i % UMT_IX_TOP_STRIDE == 0 && ix->pages[i].Page != umt__ix_top_at(ix, i / UMT_IX_TOP_STRIDE)) {
			rc = umt__ix_corrupt(UMT_E_CORRUPT, IX_F_DIR, 64 + i / UMT_IX_TOP_STRIDE * 8,
			                     "top index entry differs from its page");
			break;
		}
		if ((rc = umt__ix_page_at(ix, i, &pg)) < 0)
			break;
		rc = 0;
		if (pg.skip_start != v->skips)
			rc = umt__ix_corrupt(UMT_E_CORRUPT, IX_F_DIR, 64 + ix->top_count * 8 + i * 24 + 16,
			                     "SkipStart out of sequence");
		for (unsigned list = 0; rc == 0 && list < UMT_IX_LISTS_PER_PAGE; list++) {
			struct ix_list l;
			if ((rc = umt__ix_page_list(ix, &pg, list, &l)) > 0)
				rc = check_list(v, &l, pg.page << 7 | list, buf);
		}
		if (rc > 0)
			rc = 0;
	}
	free(buf);
	return rc;
}

static int count_postings(void *ctx, const struct ix_entry *e)
{
	(void)e;
	(*(uint64_t *)ctx)++;
	return 0;
}

/* The postings and accesses a fresh scan of the trace extracts. */
static int extract_counts(const umt_trace *t, uint64_t *postings, uint64_t *accesses)
{
	umt_exec_iter it;
	umt_rec r;
	int rc = umt_exec_iter_init(&it, t, 0, UINT64_MAX);
	while (rc == 0 && (rc = umt_exec_iter_next(&it, &r)) > 0)
		rc = umt__ix_record_postings(t, &r, count_postings, postings, accesses);
	return rc;
}

int umt_index_verify(const umt_index *ix)
{
	if (ix == NULL)
		return umt__failf(UMT_E_INVAL, "umt_index_verify: invalid argument");
	struct vstate v = {.ix = ix};
	int rc = check_pages(&v);
	if (rc < 0)
		return rc;
	if (v.postings != ix->header.Memory.Postings || v.skips != ix->skip_count)
		return umt__ix_corrupt(UMT_E_CORRUPT, -1, 2048,
		                       "%llu postings and %llu skip entries found, the header says %llu and %llu",
		                       (unsigned long long)v.postings, (unsigned long long)v.skips,
		                       (unsigned long long)ix->header.Memory.Postings,
		                       (unsigned long long)ix->skip_count);
	uint64_t postings = 0, accesses = 0;
	if ((rc = extract_counts(ix->trace, &postings, &accesses)) < 0)
		return rc;
	if (postings != v.postings || accesses != ix->header.Memory.Accesses)
		return umt__failf(UMT_E_CORRUPT,
		                  "index: %llu postings of %llu accesses, the trace has %llu of %llu",
		                  (unsigned long long)v.postings,
		                  (unsigned long long)ix->header.Memory.Accesses,
		                  (unsigned long long)postings, (unsigned long long)accesses);
	for (unsigned i = 0; umt__ix_sections[i]; i++)
		if ((ix->header.Sections & (1ull << umt__ix_sections[i]->bit)) &&
		    (rc = umt__ix_sections[i]->verify(ix)) < 0)
			return rc;
	return 0;
}
