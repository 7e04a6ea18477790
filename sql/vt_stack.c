/*
 * libumtrace SQLite module - stack(at [, thread]): the call stack of a
 * thread just before record AT executes (index.h section 12,
 * umt_stack_at), one row per open frame, innermost first: its position
 * (frame 0 is the innermost), the call's columns as in the calls table,
 * and the module of its return address at the record (return_module_id,
 * return_module, return_offset). THREAD is a thread-table row; without it,
 * the thread of record AT.
 */
#include <stdlib.h>

#include "usql.h"

enum { COL_FRAME, COL_CALL0, COL_RET_MODULE_ID = COL_CALL0 + USQL_CALL_NCOLS, COL_RET_MODULE,
       COL_RET_OFFSET, COL_AT, COL_THREAD };

enum { K_AT, K_THREAD }; /* usql_at_thread_args()'s order */

struct cursor {
	struct usql_cursor c;
	umt_frame *frames;     /* the stack (malloc'd, grown as needed) */
	size_t cap, depth, i;  /* its room, its frames, the current one */
	uint64_t at;
	int64_t thread;        /* the thread the stack is of */
};

static int plan(struct usql_vtab *vt, struct usql_shape *s, double *cost, double *rows)
{
	(void)vt, (void)s;
	*rows = 8;            /* frames, about */
	*cost = 20 + *rows;   /* a binary search and a walk up the parents */
	return SQLITE_OK;
}

/* umt_stack_at into k->frames, grown until the whole stack fits. */
static int read_stack(struct cursor *k, const umt_index *ix)
{
	for (;;) {
		int rc = umt_stack_at(ix, k->at, k->thread, k->frames, k->cap, &k->depth);
		if (rc < 0)
			return usql_fail(&k->c, rc);
		if (k->depth <= k->cap)
			return SQLITE_OK;
		umt_frame *f = realloc(k->frames, k->depth * sizeof *f);
		if (f == NULL)
			return usql_fail_msg(&k->c, NULL);
		k->frames = f;
		k->cap = k->depth;
	}
}

static int filter(struct usql_cursor *c, const struct usql_args *a)
{
	struct cursor *k = (struct cursor *)c;
	const umt_index *ix;
	umt_rec r;
	if (usql_at_thread_args(c, a, &k->thread) != SQLITE_OK || usql_cursor_index(c, &ix) != SQLITE_OK)
		return SQLITE_ERROR;
	k->at = (uint64_t)a->lo[K_AT];
	if (k->thread < 0) { /* the thread column: that of record at */
		int rc = umt_exec_get(c->t, k->at, &r);
		if (rc < 0)
			return usql_fail(c, rc);
		k->thread = r.thread_id;
	}
	if (read_stack(k, ix) != SQLITE_OK)
		return SQLITE_ERROR;
	usql_visit(c, k->depth + 1);
	k->i = 0;
	c->rowid = 0;
	c->eof = k->depth == 0;
	return SQLITE_OK;
}

static int next(struct usql_cursor *c)
{
	struct cursor *k = (struct cursor *)c;
	c->rowid = (sqlite3_int64)++k->i;
	c->eof = k->i >= k->depth;
	return SQLITE_OK;
}

static int column(struct usql_cursor *c, sqlite3_context *ctx, int col)
{
	struct cursor *k = (struct cursor *)c;
	const umt_frame *f = &k->frames[k->i];
	switch (col) {
	case COL_FRAME: sqlite3_result_int64(ctx, (sqlite3_int64)k->i); break;
	case COL_RET_MODULE_ID: usql_result_id(ctx, f->module); break;
	case COL_RET_MODULE: usql_result_module_name(c, ctx, f->module); break;
	case COL_RET_OFFSET: usql_result_module_offset(ctx, f->module, f->module_offset); break;
	case COL_AT: sqlite3_result_int64(ctx, (sqlite3_int64)k->at); break;
	case COL_THREAD: sqlite3_result_int64(ctx, k->thread); break;
	default: return usql_call_column(c, ctx, &f->call, col - COL_CALL0);
	}
	return SQLITE_OK;
}

static void close_cursor(struct usql_cursor *c)
{
	struct cursor *k = (struct cursor *)c;
	free(k->frames);
	k->frames = NULL;
	k->cap = k->depth = 0;
}

const struct usql_table usql_stack = USQL_AT_THREAD_TABLE(
	"stack",
	"CREATE TABLE x(frame INTEGER, " USQL_CALL_COLUMNS ", return_module_id INTEGER, "
	"return_module TEXT, return_offset INTEGER, at INTEGER HIDDEN, "
	"thread INTEGER HIDDEN)",
	struct cursor, COL_AT, COL_THREAD, plan, filter, next, column, close_cursor);
