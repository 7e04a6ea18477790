/*
 * sqlfloor - a virtual table "noop" that does no work (sqlfloor.c): SQLite's
 * own cost per row and per statement, measured beside the trace's tables.
 */
#ifndef SQLFLOOR_H
#define SQLFLOOR_H

#include <sqlite3.h>

/** Registers "noop" with @p rows rows on @p db. @return an SQLite code. */
int sqlfloor_register(sqlite3 *db, sqlite3_int64 rows);

#endif
