/*
 * Helpers of the SQLite module's tests (sqlcheck.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "fixture.h"
#include "gen.h"
#include "sqlcheck.h"

void gen_trace(struct gentrace *g, const char *base, const char *name, uint64_t records,
               unsigned threads, uint64_t seed, int flavour, int code32)
{
	memset(g, 0, sizeof *g);
	char *sub = fx_path(base, name);
	assert_int_equal(mkdir(sub, 0755), 0);
	g->dir = fx_path(sub, "trace");
	g->index = fx_path(sub, "index");
	g->truth = fx_path(sub, "truth.jsonl");
	g->xed = fx_path(sub, "xed");
	free(sub);
	struct umtgen_params p;
	umtgen_params_init(&p);
	p.records = records;
	p.threads = threads;
	p.instructions = 600;
	p.seed = seed;
	p.flavour = flavour;
	p.code32 = code32;
	p.quiet = 1;
	p.truth = g->truth;
	p.truth_every = 97;
	p.xed_headers = g->xed;
	assert_int_equal(umtgen_write(g->dir, &p), 0);
	if (umt_trace_open(g->dir, 0, &g->t) < 0)
		fail_msg("%s", umt_errmsg());
	umt_index_build_options o;
	umt_index_build_options_init(&o);
	o.threads = 1;
	if (umt_index_build(g->t, g->index, &o, NULL) < 0 || umt_index_open(g->t, g->index, &g->ix) < 0 ||
	    umt_names_load_dir(g->xed, &g->names) < 0)
		fail_msg("%s", umt_errmsg());
}

void gen_free(struct gentrace *g)
{
	umt_index_close(g->ix);
	umt_trace_close(g->t);
	umt_names_free(g->names);
	free(g->dir), free(g->index), free(g->truth), free(g->xed);
}

int gen_pair(void **state, struct genpair *p, uint64_t records64, uint64_t seed64,
             uint64_t records32, uint64_t seed32)
{
	p->base = fx_tmpdir();
	gen_trace(&p->g64, p->base, "g64", records64, 3, seed64, UMT_FLAVOUR_2015, 0);
	gen_trace(&p->g32, p->base, "g32", records32, 2, seed32, UMT_FLAVOUR_2014, 1);
	*state = p;
	return 0;
}

int gen_pair_teardown(void **state)
{
	struct genpair *p = *state;
	gen_free(&p->g64), gen_free(&p->g32);
	fx_rmtree(p->base);
	free(p->base);
	return 0;
}

static char *vformat(const char *fmt, va_list ap)
{
	char *s = sqlite3_vmprintf(fmt, ap);
	assert_non_null(s);
	return s;
}

sqlite3 *db_open(const struct gentrace *g)
{
	sqlite3 *db;
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(umt_sqlite_register(db), SQLITE_OK);
	if (g) {
		char *sql = sqlite3_mprintf("SELECT umtrace_open(%Q, 'index=%q', 'xed=%q')", g->dir,
		                            g->index, g->xed);
		db_exec(db, "%s", sql);
		sqlite3_free(sql);
	}
	return db;
}

void db_exec(sqlite3 *db, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *sql = vformat(fmt, ap);
	va_end(ap);
	char *err = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("%s: %s", sql, err);
	sqlite3_free(sql);
}

sqlite3_stmt *db_prepare(sqlite3 *db, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *sql = vformat(fmt, ap);
	va_end(ap);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	sqlite3_free(sql);
	return st;
}

int64_t db_int(sqlite3 *db, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *sql = vformat(fmt, ap);
	va_end(ap);
	sqlite3_stmt *st = db_prepare(db, "%s", sql);
	if (sqlite3_step(st) != SQLITE_ROW || sqlite3_column_type(st, 0) == SQLITE_NULL)
		fail_msg("%s: no integer (%s)", sql, sqlite3_errmsg(db));
	int64_t v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return v;
}

void db_fails(sqlite3 *db, bool at_prepare, const char *what, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *sql = vformat(fmt, ap);
	va_end(ap);
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (at_prepare != (rc != SQLITE_OK))
		fail_msg("%s: prepare %s: %s", sql, rc == SQLITE_OK ? "succeeded" : "failed",
		         sqlite3_errmsg(db));
	if (rc == SQLITE_OK)
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			;
	if (rc == SQLITE_DONE)
		fail_msg("%s: succeeded, expected an error with \"%s\"", sql, what);
	if (strstr(sqlite3_errmsg(db), what) == NULL)
		fail_msg("%s: message \"%s\" lacks \"%s\"", sql, sqlite3_errmsg(db), what);
	sqlite3_finalize(st);
	sqlite3_free(sql);
}

void db_counters(sqlite3 *db, int64_t *visited, int64_t *returned)
{
	static sqlite3 *last_db;
	static int64_t last_v, last_r;
	int64_t v = db_int(db, "SELECT umtrace_rows_visited()");
	int64_t r = db_int(db, "SELECT umtrace_rows_returned()");
	if (db != last_db)
		last_v = last_r = 0, last_db = db;
	*visited = v - last_v;
	*returned = r - last_r;
	last_v = v, last_r = r;
}

char *db_plan(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = db_prepare(db, "EXPLAIN QUERY PLAN %s", sql);
	size_t n = 1;
	char *out = calloc(1, 1);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *d = (const char *)sqlite3_column_text(st, 3);
		n += strlen(d) + 1;
		out = realloc(out, n);
		strcat(out, d);
		strcat(out, "\n");
	}
	sqlite3_finalize(st);
	return out;
}

bool indexed_access(const umt_access *a)
{
	return (a->trust & UMT_TRUST_ADDRESS) && a->size > 0 &&
	       ((a->trust & UMT_TRUST_VALUE) || a->kind == UMT_ACCESS_WRITE);
}
