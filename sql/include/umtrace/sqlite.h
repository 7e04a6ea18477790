/*
 * libumtrace SQLite module - SQL over a trace where it lies: SQLite virtual
 * tables that read the trace's mapping and its index (docs/sql.md).
 *
 * Two ways to use it:
 *   - the loadable extension libumtrace_sqlite.so, from any SQLite program
 *     (".load libumtrace_sqlite" in the sqlite3 shell, load_extension() in
 *     Python's sqlite3 module), then SELECT umtrace_open('/path/to/trace');
 *   - this header and the static library libumtrace_sql.a (linked with
 *     libumtrace and -lsqlite3), for C programs: umt_sqlite_register() on a
 *     connection, then umtrace_open() in SQL or umt_sqlite_attach() with a
 *     trace the program opened itself (one handle may serve any number of
 *     connections, in any threads: the reader is thread-safe).
 *
 * Functions return SQLite result codes (SQLITE_OK, ...); the message is
 * sqlite3_errmsg(db). A connection is used by one thread at a time, as
 * SQLite requires; the tables are read-only.
 */
#ifndef UMTRACE_SQLITE_H
#define UMTRACE_SQLITE_H

#include <sqlite3.h>
#include <stdint.h>

#include "umtrace/index.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Registers the tables (records, instructions, operands, accesses, threads,
 * modules, syscalls, address_space, metadata, mem) and the functions
 * (umtrace_open(), umtrace_close(), umtrace_rows_visited(),
 * umtrace_rows_returned()) on @p db: what the extension's entry point does.
 * @return SQLITE_OK; SQLITE_NOMEM; SQLITE_MISUSE (NULL @p db); an error of
 *   sqlite3_create_module_v2() or sqlite3_create_function_v2().
 */
int umt_sqlite_register(sqlite3 *db);

/** A trace for umt_sqlite_attach(). */
typedef struct umt_sqlite_source {
	const umt_trace *trace;  /**< borrowed: stays open while @p db may read it */
	const char *trace_dir;   /**< its directory, for the index's default place and the
	                              message that says how to build it; may be NULL */
	const char *index_dir;   /**< the index's directory; NULL: umt_index_default_dir() */
	const umt_names *names;  /**< borrowed name tables (XED, syscalls), or NULL */
} umt_sqlite_source;

/**
 * Makes @p src the trace that the tables of @p db (registered by
 * umt_sqlite_register()) read, as umtrace_open() does with a directory.
 * Nothing is copied but the strings: the trace and the names must stay
 * valid until @p db is closed, or another trace is attached and the
 * statements that read this one are finished.
 * @return SQLITE_OK; SQLITE_MISUSE (NULL argument, or the module not
 *   registered on @p db); SQLITE_NOMEM.
 */
int umt_sqlite_attach(sqlite3 *db, const umt_sqlite_source *src);

/**
 * Calls @p on_rows about every 2^20 rows the tables of @p db read from the
 * trace or its index (with the total since registration), from inside the
 * statement that reads them: a progress report for long queries (NULL: none).
 * @return SQLITE_OK; SQLITE_MISUSE (the module not registered on @p db).
 */
int umt_sqlite_set_progress(sqlite3 *db, void (*on_rows)(uint64_t visited, void *ctx),
                            void *ctx);

#ifdef __cplusplus
}
#endif

#endif
