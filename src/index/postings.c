/*
 * libumtrace - the postings of a memory access (docs/index-format.md,
 * "What is indexed"): the build and the index check derive them here, the
 * same way.
 */
#include "ixint.h"

unsigned umt__ix_kind(unsigned access_kind)
{
	switch (access_kind) {
	case UMT_ACCESS_WRITE: return UMT_IX_K_WRITE;
	case UMT_ACCESS_PEEK: return UMT_IX_K_PEEK;
	case UMT_ACCESS_CONTEXT: return UMT_IX_K_CONTEXT;
	default: return UMT_IX_K_READ;
	}
}

unsigned umt__ix_access_kind(unsigned stored)
{
	static const unsigned kinds[4] = {UMT_ACCESS_READ, UMT_ACCESS_WRITE, UMT_ACCESS_PEEK,
	                                  UMT_ACCESS_CONTEXT};
	return kinds[stored & 3];
}

/*
 * Postings of bytes [first, last] (inclusive, so that the top of the
 * address space needs no overflow), one per unit of 2^shift bytes: fine
 * granules or pages.
 */
static int split(struct ix_entry *e, const umt_access *a, uint64_t first, uint64_t last,
                 unsigned shift, umt_ix_emit emit, void *ctx)
{
	uint64_t unit_last = (1ull << shift) - 1;
	for (uint64_t u = first >> shift; u <= last >> shift; u++) {
		uint64_t base = u << shift;
		uint64_t lo = first > base ? first : base;
		uint64_t hi = last < base + unit_last ? last : base + unit_last;
		e->lo = (uint16_t)(lo - base);
		e->len = (uint16_t)(hi - lo + 1);
		e->list = shift == UMT_IX_GRANULE_SHIFT
		                  ? ((u >> 6) << 7) | (u & 63)
		                  : (u << 7) | UMT_IX_PAGE_LIST;
		e->value = 0;
		if (umt__ix_inline(shift != UMT_IX_GRANULE_SHIFT, e->len, e->clobber))
			memcpy(&e->value, a->data + (lo - a->address), e->len);
		int rc = emit(ctx, e);
		if (rc)
			return rc;
		if (u == UINT64_MAX >> shift)
			break;
	}
	return 0;
}

int umt__ix_postings(const umt_access *a, umt_ix_emit emit, void *ctx)
{
	struct ix_entry e;
	memset(&e, 0, sizeof e);
	e.key = a->record_id << 1 | a->phase;
	e.locator = a->locator;
	e.thread = a->thread_id;
	e.kind = (uint8_t)umt__ix_kind(a->kind);
	e.clobber = !(a->trust & UMT_TRUST_VALUE);
	/* the access's bytes [first, last], cut at the top of the address space */
	uint64_t first = a->address;
	uint64_t last = a->size - 1 > UINT64_MAX - first ? UINT64_MAX : first + (a->size - 1);
	uint64_t granules = (last >> UMT_IX_GRANULE_SHIFT) - (first >> UMT_IX_GRANULE_SHIFT) + 1;
	unsigned shift = granules <= UMT_IX_FINE_MAX ? UMT_IX_GRANULE_SHIFT : UMT_IX_PAGE_SHIFT;
	return split(&e, a, first, last, shift, emit, ctx);
}

int umt__ix_record_postings(const umt_trace *t, const umt_rec *r, umt_ix_emit emit, void *ctx,
                            uint64_t *accesses)
{
	if (r->type != UMT_REC_INSTRUCTION && !umt_rec_type_has_context(r->type))
		return 0;
	umt_access_iter it;
	int rc = umt_access_iter_init(&it, t, r, UMT_ACCESS_ALL);
	umt_access a;
	while (rc == 0 && (rc = umt_access_iter_next(&it, &a)) > 0) {
		if (!umt__ix_indexed(&a)) {
			rc = 0;
			continue;
		}
		(*accesses)++;
		rc = umt__ix_postings(&a, emit, ctx);
	}
	return rc;
}
