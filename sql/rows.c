/*
 * libumtrace SQLite module - the tables of numbered rows (instructions,
 * syscalls, modules, threads, address_space, metadata): rows [0, count)
 * in order, the ID (column 0, pushable column 0) by equality or range in
 * O(1), ORDER BY id consumed.
 */
#include "usql.h"

const struct usql_pushable usql_rows_push[1] = {{0, USQL_EQ | USQL_RANGE}};

int usql_rows_plan(struct usql_vtab *vt, struct usql_shape *s, double *cost, double *rows)
{
	const umt_trace *t = usql_vtab_trace(vt);
	uint64_t n = 1000; /* when no trace is open yet */
	if (t && vt->def->count(t, &n) < 0)
		n = 1000;
	*rows = usql_id_rows(s, 0, n ? (double)n : 1);
	*cost = *rows;
	return SQLITE_OK;
}

int usql_rows_filter(struct usql_cursor *c, const struct usql_args *a)
{
	struct usql_rows *r = (struct usql_rows *)c;
	uint64_t n, lo, hi;
	int rc = c->vt->def->count(c->t, &n);
	if (rc < 0)
		return usql_fail(c, rc);
	if (!usql_id_range(a, 0, n, &lo, &hi)) {
		c->eof = 1;
		return SQLITE_OK;
	}
	r->id = lo;
	r->end = hi + 1;
	c->rowid = (sqlite3_int64)lo;
	usql_visit(c, 1);
	return SQLITE_OK;
}

int usql_rows_next(struct usql_cursor *c)
{
	struct usql_rows *r = (struct usql_rows *)c;
	if (++r->id >= r->end) {
		c->eof = 1;
		return SQLITE_OK;
	}
	c->rowid = (sqlite3_int64)r->id;
	usql_visit(c, 1);
	return SQLITE_OK;
}
