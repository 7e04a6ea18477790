/*
 * sqlfloor - a virtual table that does no work, for sqlbench: what SQLite
 * itself costs per row of a scan and per statement of a lookup on this
 * machine, in the same run as the trace's tables. Table "noop": column n
 * (0 .. rows-1) and column type (always 0); "n = ?" and "type = ?" are
 * pushed down (the first seeks, the second is accepted and ignored), so that
 * the queries have the plans of the records table's (a constraint SQLite is
 * told to omit must be an argument: otherwise SQLite tests it on each row).
 */
#include <string.h>

#include "sqlfloor.h"

struct floor_cursor {
	sqlite3_vtab_cursor base;
	sqlite3_int64 i, end;
};

static sqlite3_int64 floor_rows;

static int f_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
                     char **err)
{
	(void)aux, (void)argc, (void)argv, (void)err;
	int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(n INTEGER, type INTEGER)");
	if (rc != SQLITE_OK)
		return rc;
	if ((*out = sqlite3_malloc(sizeof **out)) == NULL)
		return SQLITE_NOMEM;
	memset(*out, 0, sizeof **out);
	return SQLITE_OK;
}

static int f_disconnect(sqlite3_vtab *vt)
{
	sqlite3_free(vt);
	return SQLITE_OK;
}

/* idxNum bit 0: n = ? is an argument (the first); type = ? is one too, unused. */
static int f_best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
	(void)vt;
	int argc = 0;
	info->idxNum = 0;
	for (int i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *c = &info->aConstraint[i];
		if (!c->usable || c->op != SQLITE_INDEX_CONSTRAINT_EQ)
			continue;
		if (c->iColumn == 0 && !(info->idxNum & 1)) {
			info->idxNum |= 1;
			info->aConstraintUsage[i].argvIndex = ++argc;
			info->aConstraintUsage[i].omit = 1;
		} else if (c->iColumn == 1 && !(info->idxNum & 2)) {
			info->idxNum |= 2; /* every row has type 0: "filtered" by ignoring it */
			info->aConstraintUsage[i].argvIndex = ++argc;
			info->aConstraintUsage[i].omit = 1;
		}
	}
	info->estimatedCost = info->idxNum & 1 ? 1 : (double)floor_rows;
	info->estimatedRows = info->idxNum & 1 ? 1 : floor_rows;
	return SQLITE_OK;
}

static int f_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	(void)vt;
	struct floor_cursor *c = sqlite3_malloc(sizeof *c);
	if (c == NULL)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof *c);
	*out = &c->base;
	return SQLITE_OK;
}

static int f_close(sqlite3_vtab_cursor *c)
{
	sqlite3_free(c);
	return SQLITE_OK;
}

static int f_filter(sqlite3_vtab_cursor *cur, int idx_num, const char *idx_str, int argc,
                    sqlite3_value **argv)
{
	(void)idx_str, (void)argc;
	struct floor_cursor *c = (struct floor_cursor *)cur;
	c->i = 0;
	c->end = floor_rows;
	if (idx_num & 1) {
		sqlite3_int64 n = sqlite3_value_int64(argv[0]);
		c->i = n;
		c->end = n >= 0 && n < floor_rows ? n + 1 : n;
	}
	return SQLITE_OK;
}

static int f_next(sqlite3_vtab_cursor *cur)
{
	((struct floor_cursor *)cur)->i++;
	return SQLITE_OK;
}

static int f_eof(sqlite3_vtab_cursor *cur)
{
	const struct floor_cursor *c = (const struct floor_cursor *)cur;
	return c->i >= c->end;
}

static int f_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	sqlite3_result_int64(ctx, col == 0 ? ((struct floor_cursor *)cur)->i : 0);
	return SQLITE_OK;
}

static int f_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = ((struct floor_cursor *)cur)->i;
	return SQLITE_OK;
}

static const sqlite3_module floor_module = {
	.xConnect = f_connect,
	.xBestIndex = f_best_index,
	.xDisconnect = f_disconnect,
	.xOpen = f_open,
	.xClose = f_close,
	.xFilter = f_filter,
	.xNext = f_next,
	.xEof = f_eof,
	.xColumn = f_column,
	.xRowid = f_rowid,
};

int sqlfloor_register(sqlite3 *db, sqlite3_int64 rows)
{
	floor_rows = rows;
	return sqlite3_create_module(db, "noop", &floor_module, NULL);
}
