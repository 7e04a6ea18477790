/*
 * Helpers of the SQLite module's tests: generated traces with their index,
 * truth and name headers (made once per test program), connections with
 * the module registered, and queries that fail the test with SQLite's
 * message.
 */
#ifndef UMT_TEST_SQLCHECK_H
#define UMT_TEST_SQLCHECK_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "umtrace/index.h"
#include "umtrace/sqlite.h"

/** A umtgen trace of the tests, with its index, truth and XED headers. */
struct gentrace {
	char *dir, *index, *truth, *xed;
	umt_trace *t;
	umt_index *ix;
	umt_names *names;
};

/** Generates @p g under @p base/NAME: umtgen's options, built into an index. */
void gen_trace(struct gentrace *g, const char *base, const char *name, uint64_t records,
               unsigned threads, uint64_t seed, int flavour, int code32);
void gen_free(struct gentrace *g);

/**
 * The two traces a test program compares on, under one temporary directory @p base:
 * @p g64 of 64-bit code in the 2015 flavour with 3 threads, @p g32 of 32-bit code in the
 * 2014 flavour with 2 threads.
 */
struct genpair {
	char *base;
	struct gentrace g64, g32;
};

/**
 * For a cmocka group setup: generates @p p with umtgen's record counts and seeds and makes
 * it the group's @p state, which gen_pair_teardown() frees. @return 0.
 */
int gen_pair(void **state, struct genpair *p, uint64_t records64, uint64_t seed64,
             uint64_t records32, uint64_t seed32);

/** The cmocka group teardown of gen_pair(): frees both traces and removes their directory. */
int gen_pair_teardown(void **state);

/** A connection with the module registered and @p g attached by umtrace_open() (NULL: none). */
sqlite3 *db_open(const struct gentrace *g);

/** Runs SQL that must succeed (several statements allowed). */
void db_exec(sqlite3 *db, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** The integer of a query of one row and one column (NULL fails the test). */
int64_t db_int(sqlite3 *db, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** Prepares SQL that must compile. */
sqlite3_stmt *db_prepare(sqlite3 *db, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * Runs SQL that must fail while it runs (or compiling, when @p at_prepare),
 * with a message containing @p what.
 */
void db_fails(sqlite3 *db, bool at_prepare, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/** The rows the tables visited and returned since the last call (umtrace_rows_*()). */
void db_counters(sqlite3 *db, int64_t *visited, int64_t *returned);

/** The query plan (EXPLAIN QUERY PLAN), its details joined by '\n' (malloc'd). */
char *db_plan(sqlite3 *db, const char *sql);

/** Whether the access is indexed: index.h section 1, written out here. */
bool indexed_access(const umt_access *a);

#endif
