/*
 * libumtrace SQLite module - entry points: the loadable extension's
 * (sqlite3_umtrace_init, found by its file name libumtrace_sqlite.so, and
 * sqlite3_extension_init) and the C API of umtrace/sqlite.h.
 */
#include <string.h>

#include "umtrace/sqlite.h"
#include "usql.h"

#ifdef UMT_SQLITE_LOADABLE
SQLITE_EXTENSION_INIT1
#endif

#define USQL_EXPORT __attribute__((visibility("default")))

const struct usql_table *const usql_tables[] = {
	&usql_records, &usql_instructions, &usql_operands, &usql_accesses, &usql_threads,
	&usql_modules, &usql_syscalls, &usql_address_space, &usql_metadata, &usql_mem,
	&usql_state, &usql_calls, &usql_stack, NULL};

int umt_sqlite_register(sqlite3 *db)
{
	if (db == NULL)
		return SQLITE_MISUSE;
	struct usql_conn *conn = sqlite3_malloc(sizeof *conn);
	if (conn == NULL)
		return SQLITE_NOMEM;
	memset(conn, 0, sizeof *conn);
	conn->db = db;
	conn->refs = 1; /* this function's, until the registrations hold theirs */
	conn->next_report = (uint64_t)1 << 20;
	int rc = usql_conn_functions(conn);
	for (size_t i = 0; rc == SQLITE_OK && usql_tables[i]; i++)
		rc = usql_register_table(conn, usql_tables[i]);
	usql_conn_unref(conn);
	return rc;
}

/* Runs "SELECT FN(?1)" with @p p bound as a pointer of type @p type. */
static int call_with_pointer(sqlite3 *db, const char *sql, void *p, const char *type)
{
	sqlite3_stmt *st;
	if (db == NULL || p == NULL)
		return SQLITE_MISUSE;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return SQLITE_MISUSE; /* no such function: the module is not registered */
	int rc = sqlite3_bind_pointer(st, 1, p, type, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st) == SQLITE_ROW ? SQLITE_OK : sqlite3_errcode(db);
	int frc = sqlite3_finalize(st);
	return rc != SQLITE_OK ? rc : frc;
}

int umt_sqlite_attach(sqlite3 *db, const umt_sqlite_source *src)
{
	return call_with_pointer(db, "SELECT umtrace__attach(?1)", (void *)src, "umt_sqlite_source");
}

int umt_sqlite_set_progress(sqlite3 *db, void (*on_rows)(uint64_t visited, void *ctx), void *ctx)
{
	struct usql_progress p = {on_rows, ctx};
	return call_with_pointer(db, "SELECT umtrace__progress(?1)", &p, "usql_progress");
}

USQL_EXPORT int sqlite3_umtrace_init(sqlite3 *db, char **errmsg,
                                     const sqlite3_api_routines *api);

USQL_EXPORT int sqlite3_umtrace_init(sqlite3 *db, char **errmsg,
                                     const sqlite3_api_routines *api)
{
#ifdef UMT_SQLITE_LOADABLE
	SQLITE_EXTENSION_INIT2(api);
#else
	(void)api;
#endif
	int rc = umt_sqlite_register(db);
	if (rc != SQLITE_OK && errmsg)
		*errmsg = sqlite3_mprintf("umtrace: %s", sqlite3_errstr(rc));
	return rc;
}

#ifdef UMT_SQLITE_LOADABLE
/* The default entry point, for programs that name none. */
USQL_EXPORT int sqlite3_extension_init(sqlite3 *db, char **errmsg,
                                       const sqlite3_api_routines *api);

USQL_EXPORT int sqlite3_extension_init(sqlite3 *db, char **errmsg,
                                       const sqlite3_api_routines *api)
{
	return sqlite3_umtrace_init(db, errmsg, api);
}
#endif
