/*
 * libumtrace SQLite module - which SQLite API the sources call.
 *
 * The same sources build twice (sql/CMakeLists.txt): into the loadable
 * extension libumtrace_sqlite.so, where every sqlite3_* call goes through
 * the routine table the loading program hands to the entry point
 * (sqlite3ext.h: the extension then uses that program's SQLite, whichever
 * it is), and into a static library linked with -lsqlite3 (umtdump, the
 * tests). UMT_SQLITE_LOADABLE selects the first.
 */
#ifndef UMT_SQL_SQLITE_API_H
#define UMT_SQL_SQLITE_API_H

#ifdef UMT_SQLITE_LOADABLE
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#else
#include <sqlite3.h>
#endif

#endif
