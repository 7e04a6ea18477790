/*
 * libumtrace SQLite module - the threads table: one row per row of
 * thread.itable.
 */
#include "usql.h"

enum { COL_ID, COL_WIN_TID, COL_TIB, COL_FIRST_ID, COL_LAST_ID, COL_RECORDS };

static int count(const umt_trace *t, uint64_t *n)
{
	*n = umt_thread_count(t);
	return 0;
}

static int column(struct usql_cursor *c, sqlite3_context *ctx, int col)
{
	uint64_t id = ((struct usql_rows *)c)->id;
	const umt_thread_rec *row;
	int rc = umt_thread_get(c->t, id, &row);
	if (rc < 0)
		return usql_result_fail(c, ctx, rc);
	switch (col) {
	case COL_ID: sqlite3_result_int64(ctx, (sqlite3_int64)id); break;
	case COL_WIN_TID: sqlite3_result_int(ctx, row->WinTID); break;
	case COL_TIB: sqlite3_result_int64(ctx, row->TIBAddr); break;
	case COL_FIRST_ID: usql_result_id(ctx, row->FirstEID); break;
	case COL_LAST_ID: usql_result_id(ctx, row->LastEID); break;
	default: sqlite3_result_int64(ctx, row->RecCount); break;
	}
	return SQLITE_OK;
}

const struct usql_table usql_threads = USQL_ROWS_TABLE(
	"threads",
	"CREATE TABLE x(id INTEGER, win_tid INTEGER, tib INTEGER, first_id INTEGER, "
	"last_id INTEGER, records INTEGER)",
	column, count);
