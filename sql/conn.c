/*
 * libumtrace SQLite module - one connection's state and the SQL functions:
 *   umtrace_open(DIR [, 'index=DIR'] [, 'xed=DIR'] [, 'salvage'])
 *                                the connection's tables read trace DIR
 *   umtrace_close()              they read none
 *   umtrace_rows_visited()       rows the tables read from the trace or the
 *   umtrace_rows_returned()      index, and handed to SQLite, since the
 *                                module was loaded (the pushdown tests)
 * and the two the C API calls with pointers bound by sqlite3_bind_pointer()
 * (which SQL text cannot forge): umtrace__attach(), umtrace__progress().
 */
#include <stdlib.h>
#include <string.h>

#include "umtrace/sqlite.h"
#include "usql.h"

/* Rows between two progress reports. */
#define REPORT_EVERY ((uint64_t)1 << 20)

void usql_conn_unref(struct usql_conn *c)
{
	if (c && --c->refs == 0) {
		usql_source_unref(c->current);
		sqlite3_free(c);
	}
}

static void conn_unref_cb(void *p)
{
	usql_conn_unref(p);
}

void usql_conn_set_current(struct usql_conn *conn, struct usql_source *s)
{
	usql_source_unref(conn->current); /* cursors reading it hold their own references */
	conn->current = s;
}

void usql_conn_progress(struct usql_conn *conn)
{
	conn->next_report = conn->visited + REPORT_EVERY;
	if (conn->on_rows)
		conn->on_rows(conn->visited, conn->on_rows_ctx);
}

/* Reads one option of umtrace_open() ("index=DIR", "xed=DIR", "salvage") into @p o. */
static int open_option(sqlite3_context *ctx, const char *opt, struct usql_open_options *o)
{
	if (opt == NULL) {
		sqlite3_result_error(ctx, "umtrace_open: an option is NULL", -1);
		return 0;
	}
	if (!strncmp(opt, "index=", 6))
		o->index_dir = opt + 6;
	else if (!strncmp(opt, "xed=", 4))
		o->xed_dir = opt + 4;
	else if (!strcmp(opt, "salvage"))
		o->flags |= UMT_OPEN_SALVAGE;
	else {
		char *msg = sqlite3_mprintf("umtrace_open: unknown option '%s' (index=DIR, xed=DIR, "
		                            "salvage)", opt);
		sqlite3_result_error(ctx, msg ? msg : "umtrace_open: unknown option", -1);
		sqlite3_free(msg);
		return 0;
	}
	return 1;
}

static void fn_open(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct usql_conn *conn = sqlite3_user_data(ctx);
	struct usql_open_options o = {NULL, getenv("UMT_XED_DIR"), 0};
	const char *dir = argc > 0 ? (const char *)sqlite3_value_text(argv[0]) : NULL;
	if (dir == NULL || *dir == '\0') {
		sqlite3_result_error(ctx, "umtrace_open: the trace directory is NULL or empty", -1);
		return;
	}
	for (int i = 1; i < argc; i++)
		if (!open_option(ctx, (const char *)sqlite3_value_text(argv[i]), &o))
			return;
	struct usql_source *s = NULL;
	char *err = NULL;
	int rc = usql_source_open(dir, &o, &s, &err);
	if (rc != SQLITE_OK) {
		if (rc == SQLITE_NOMEM)
			sqlite3_result_error_nomem(ctx);
		else
			sqlite3_result_error(ctx, err ? err : "umtrace_open failed", -1);
		sqlite3_free(err);
		return;
	}
	usql_conn_set_current(conn, s);
	sqlite3_result_int64(ctx, (sqlite3_int64)umt_exec_count(s->t));
}

static void fn_close(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc, (void)argv;
	usql_conn_set_current(sqlite3_user_data(ctx), NULL);
	sqlite3_result_null(ctx);
}

static void fn_visited(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc, (void)argv;
	struct usql_conn *conn = sqlite3_user_data(ctx);
	sqlite3_result_int64(ctx, (sqlite3_int64)conn->visited);
}

static void fn_returned(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc, (void)argv;
	struct usql_conn *conn = sqlite3_user_data(ctx);
	sqlite3_result_int64(ctx, (sqlite3_int64)conn->returned);
}

/* umtrace__attach(pointer to umt_sqlite_source): umt_sqlite_attach(). */
static void fn_attach(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	const umt_sqlite_source *src = sqlite3_value_pointer(argv[0], "umt_sqlite_source");
	if (src == NULL || src->trace == NULL) {
		sqlite3_result_error(ctx, "umtrace__attach: not a umt_sqlite_source", -1);
		return;
	}
	struct usql_source *s =
		usql_source_borrow(src->trace, src->trace_dir, src->index_dir, src->names);
	if (s == NULL) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	usql_conn_set_current(sqlite3_user_data(ctx), s);
	sqlite3_result_int64(ctx, (sqlite3_int64)umt_exec_count(s->t));
}

/* umtrace__progress(pointer to struct usql_progress): umt_sqlite_set_progress(). */
static void fn_progress(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	struct usql_conn *conn = sqlite3_user_data(ctx);
	const struct usql_progress *p = sqlite3_value_pointer(argv[0], "usql_progress");
	if (p == NULL) {
		sqlite3_result_error(ctx, "umtrace__progress: not a progress callback", -1);
		return;
	}
	conn->on_rows = p->on_rows;
	conn->on_rows_ctx = p->ctx;
	sqlite3_result_null(ctx);
}

int usql_conn_functions(struct usql_conn *conn)
{
	static const struct {
		const char *name;
		int nargs; /* -1: any */
		int flags;
		void (*fn)(sqlite3_context *, int, sqlite3_value **);
	} fns[] = {
		/* opening files is for statements the user types, not for a schema's
		 * triggers and views (SQLITE_DIRECTONLY) */
		{"umtrace_open", -1, SQLITE_DIRECTONLY, fn_open},
		{"umtrace_close", 0, SQLITE_DIRECTONLY, fn_close},
		{"umtrace_rows_visited", 0, 0, fn_visited},
		{"umtrace_rows_returned", 0, 0, fn_returned},
		{"umtrace__attach", 1, SQLITE_DIRECTONLY, fn_attach},
		{"umtrace__progress", 1, SQLITE_DIRECTONLY, fn_progress},
	};
	for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
		conn->refs++; /* released by conn_unref_cb, also when the call fails */
		int rc = sqlite3_create_function_v2(conn->db, fns[i].name, fns[i].nargs,
		                                    SQLITE_UTF8 | fns[i].flags, conn, fns[i].fn, NULL,
		                                    NULL, conn_unref_cb);
		if (rc != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}
