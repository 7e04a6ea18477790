/*
 * libumtrace SQLite module - the address_space table: the used address
 * ranges of address_space.itable, [first, last] inclusive.
 */
#include "usql.h"

enum { COL_ID, COL_FIRST, COL_LAST, COL_SIZE };

static int count(const umt_trace *t, uint64_t *n)
{
	*n = umt_address_range_count(t);
	return 0;
}

static int column(struct usql_cursor *c, sqlite3_context *ctx, int col)
{
	uint64_t id = ((struct usql_rows *)c)->id;
	const umt_address_range *row;
	int rc = umt_address_range_get(c->t, id, &row);
	if (rc < 0)
		return usql_result_fail(c, ctx, rc);
	switch (col) {
	case COL_ID: sqlite3_result_int64(ctx, (sqlite3_int64)id); break;
	case COL_FIRST: sqlite3_result_int64(ctx, row->First); break;
	case COL_LAST: sqlite3_result_int64(ctx, row->Last); break;
	default: /* as unsigned 64-bit values, modulo 2^64 on a corrupt row */
		sqlite3_result_int64(ctx, (sqlite3_int64)((uint64_t)row->Last - (uint64_t)row->First + 1));
		break;
	}
	return SQLITE_OK;
}

const struct usql_table usql_address_space = USQL_ROWS_TABLE(
	"address_space",
	"CREATE TABLE x(id INTEGER, first INTEGER, last INTEGER, size INTEGER)",
	column, count);
