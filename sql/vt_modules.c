/*
 * libumtrace SQLite module - the modules table: one row per row of
 * module.itable (one per load: a module loaded twice has two rows), its
 * names in UTF-8 and, in 2015 traces, its file time and version.
 */
#include <string.h>

#include "usql.h"

enum {
	COL_ID, COL_NAME, COL_PATH, COL_DEVICE_PATH, COL_START, COL_END, COL_SIZE, COL_LOAD_ID,
	COL_UNLOAD_ID, COL_FILE_TIME, COL_VERSION
};

static int count(const umt_trace *t, uint64_t *n)
{
	*n = umt_module_count(t);
	return 0;
}

/* name, path and device_path: converted once per trace (usql_source_modules()). */
static int name_column(struct usql_cursor *c, sqlite3_context *ctx, uint64_t id, int col)
{
	const struct usql_module *m = usql_cursor_module(c, id);
	const char *s = m == NULL               ? NULL
	                : col == COL_NAME        ? m->name
	                : col == COL_PATH        ? m->path
	                                         : m->device;
	if (m == NULL)
		sqlite3_result_error_nomem(ctx);
	else if (s == NULL)
		sqlite3_result_error(ctx, m->err ? m->err : "module name unreadable", -1);
	else
		usql_result_text(ctx, s, strlen(s));
	return SQLITE_OK;
}

/* file_time (Unix seconds) and version ("w.x.y.z"): NULL in 48-byte rows. */
static int row2015_column(struct usql_cursor *c, sqlite3_context *ctx, uint64_t id, int col)
{
	const umt_module_rec_2015 *row;
	int rc = umt_module_get_2015(c->t, id, &row);
	if (rc == UMT_E_NO_VALUE) {
		sqlite3_result_null(ctx);
		return SQLITE_OK;
	}
	if (rc < 0)
		return usql_result_fail(c, ctx, rc);
	if (col == COL_FILE_TIME) {
		int64_t sec;
		umt_filetime_to_unix(row->LastFileWriteTime, &sec, NULL);
		sqlite3_result_int64(ctx, sec);
	} else {
		uint16_t v[4];
		memcpy(v, row->VersionInfo, sizeof v);
		char *s = sqlite3_mprintf("%u.%u.%u.%u", v[0], v[1], v[2], v[3]);
		if (s == NULL)
			sqlite3_result_error_nomem(ctx);
		else
			sqlite3_result_text(ctx, s, -1, sqlite3_free);
	}
	return SQLITE_OK;
}

static int column(struct usql_cursor *c, sqlite3_context *ctx, int col)
{
	uint64_t id = ((struct usql_rows *)c)->id;
	const umt_module_rec *row;
	if (col == COL_NAME || col == COL_PATH || col == COL_DEVICE_PATH)
		return name_column(c, ctx, id, col);
	if (col == COL_FILE_TIME || col == COL_VERSION)
		return row2015_column(c, ctx, id, col);
	int rc = umt_module_get(c->t, id, &row);
	if (rc < 0)
		return usql_result_fail(c, ctx, rc);
	switch (col) {
	case COL_ID: sqlite3_result_int64(ctx, (sqlite3_int64)id); break;
	case COL_START: sqlite3_result_int64(ctx, row->StartAddr); break;
	case COL_END: sqlite3_result_int64(ctx, row->EndAddr); break;
	case COL_SIZE: /* as unsigned 64-bit values, modulo 2^64 on a corrupt row */
		sqlite3_result_int64(
			ctx, (sqlite3_int64)((uint64_t)row->EndAddr - (uint64_t)row->StartAddr + 1));
		break;
	case COL_LOAD_ID: sqlite3_result_int64(ctx, row->LoadEID); break;
	default: usql_result_id(ctx, row->UnloadEID); break;
	}
	return SQLITE_OK;
}

const struct usql_table usql_modules = USQL_ROWS_TABLE(
	"modules",
	"CREATE TABLE x(id INTEGER, name TEXT, path TEXT, device_path TEXT, start INTEGER, "
	"end INTEGER, size INTEGER, load_id INTEGER, unload_id INTEGER, file_time INTEGER, "
	"version TEXT)",
	column, count);
