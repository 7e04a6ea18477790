/*
 * libumtrace - address_space.itable: used page ranges and lookup by address.
 *
 * Valid tables are sorted and disjoint (umt_verify() checks it); lookups
 * binary-search them and compare addresses as unsigned 64-bit values. On a
 * corrupt table the search still ends after O(log n) steps and reads only
 * rows of the table: it may answer wrong, never crash or loop.
 */
#include "internal.h"

uint64_t umt_address_range_count(const umt_trace *t)
{
	return t ? t->aspace.count : 0;
}

static const umt_address_range *range_row(const umt_trace *t, uint64_t id)
{
	return (const umt_address_range *)(t->aspace.rows + id * t->aspace.row_size);
}

int umt_address_range_get(const umt_trace *t, uint64_t id, const umt_address_range **row)
{
	if (t == NULL || row == NULL)
		return umt__failf(UMT_E_INVAL, "umt_address_range_get: invalid argument");
	static const struct umt_range_msg m = {UMT_FILE_ADDRESS_SPACE, UMT_LOC_ROW,
	                                       UMT_FILE_ADDRESS_SPACE, "range", "ranges"};
	if (id >= t->aspace.count)
		return umt__out_of_range(t, &m, id, t->aspace.count, t->aspace.declared);
	*row = range_row(t, id);
	return 0;
}

int umt_address_space_find(const umt_trace *t, uint64_t address, uint64_t *id)
{
	if (t == NULL)
		return umt__failf(UMT_E_INVAL, "umt_address_space_find: invalid argument");
	int rc = umt__lost(t, UMT_FILE_ADDRESS_SPACE, UMT_LOC_NONE, 0, 0); /* the table was lost */
	if (rc < 0)
		return rc;
	/* lo = number of ranges with First <= address, in a sorted table. */
	uint64_t lo = 0, hi = t->aspace.count;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if ((uint64_t)range_row(t, mid)->First <= address)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || address > (uint64_t)range_row(t, lo - 1)->Last)
		return 0;
	if (id)
		*id = lo - 1;
	return 1;
}
