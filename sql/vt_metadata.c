/*
 * libumtrace SQLite module - the metadata table: the leaf elements of
 * trace.xml in document order, with their paths ("/TraceMetaData/Xed/Version"
 * in a 2015 file, "/Xed/Version" in an older one) and texts. A malformed
 * trace.xml is an error of this table only.
 */
#include <string.h>

#include "usql.h"

enum { COL_ID, COL_PATH, COL_VALUE };

static int count(const umt_trace *t, uint64_t *n)
{
	const umt_meta *m;
	int rc = umt_trace_meta(t, &m);
	if (rc < 0)
		return rc;
	*n = umt_meta_leaf_count(m);
	return 0;
}

static int column(struct usql_cursor *c, sqlite3_context *ctx, int col)
{
	uint64_t id = ((struct usql_rows *)c)->id;
	const umt_meta *m;
	const char *path = "", *text = "";
	int rc = umt_trace_meta(c->t, &m);
	if (rc == 0)
		rc = umt_meta_leaf(m, (size_t)id, &path, &text);
	if (rc < 0)
		return usql_result_fail(c, ctx, rc);
	if (col == COL_ID)
		sqlite3_result_int64(ctx, (sqlite3_int64)id);
	else if (col == COL_PATH)
		usql_result_text(ctx, path, strlen(path));
	else
		usql_result_text(ctx, text, strlen(text));
	return SQLITE_OK;
}

const struct usql_table usql_metadata = USQL_ROWS_TABLE(
	"metadata",
	"CREATE TABLE x(id INTEGER, path TEXT, value TEXT)",
	column, count);
