/*
 * The SQLite module's pushdowns, each checked by the rows its query visits
 * (umtrace_rows_visited(): rows read from the trace or the index) and
 * returns to SQLite (umtrace_rows_returned()), against counts computed here
 * through the C API; ORDER BY id consumed, by the query plan; and that
 * constraints the module enforces itself give SQLite's answers (affinity,
 * reals, NULL, text, IN lists, bounds past the ends).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fixture.h"
#include "sqlcheck.h"

static char *base;
static struct gentrace g3, g1;

static int setup(void **state)
{
	(void)state;
	base = fx_tmpdir();
	gen_trace(&g3, base, "g3", 20000, 3, 17, UMT_FLAVOUR_2015, 0);
	gen_trace(&g1, base, "g1", 3000, 1, 19, UMT_FLAVOUR_2015, 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	gen_free(&g3), gen_free(&g1);
	fx_rmtree(base);
	free(base);
	return 0;
}

/* Runs @p sql (one integer) and checks its result and the rows visited and returned. */
static void expect(sqlite3 *db, const char *sql, int64_t result, int64_t visited,
                   int64_t returned)
{
	int64_t v, r;
	db_counters(db, &v, &r);
	int64_t got = db_int(db, "%s", sql);
	db_counters(db, &v, &r);
	if (got != result || v != visited || (returned >= 0 && r != returned))
		fail_msg("%s: %lld, %lld visited, %lld returned; expected %lld, %lld, %lld", sql,
		         (long long)got, (long long)v, (long long)r, (long long)result,
		         (long long)visited, (long long)returned);
}

/* Accesses of records [lo, hi] (every kind, as umt_access_iter gives them) and the indexed ones. */
static void c_accesses(const umt_trace *t, uint64_t lo, uint64_t hi, int64_t *all, int64_t *kept)
{
	umt_exec_iter it;
	umt_rec r;
	*all = *kept = 0;
	assert_int_equal(umt_exec_iter_init(&it, t, lo, hi + 1), 0);
	while (umt_exec_iter_next(&it, &r) > 0) {
		umt_access_iter ai;
		umt_access a;
		assert_int_equal(umt_access_iter_init(&ai, t, &r, UMT_ACCESS_ALL), 0);
		while (umt_access_iter_next(&ai, &a) > 0) {
			++*all;
			*kept += indexed_access(&a);
		}
	}
}

static void test_records_pushdowns(void **state)
{
	(void)state;
	sqlite3 *db = db_open(&g3);
	int64_t n = (int64_t)umt_exec_count(g3.t), ins = 0, v, r;
	umt_exec_iter it;
	umt_rec rec;
	assert_int_equal(umt_exec_iter_init(&it, g3.t, 0, UINT64_MAX), 0);
	while (umt_exec_iter_next(&it, &rec) > 0)
		ins += rec.type == UMT_REC_INSTRUCTION;
	expect(db, "SELECT count(*) FROM records WHERE id = 1234", 1, 1, 1);
	expect(db, "SELECT count(*) FROM records WHERE id BETWEEN 100 AND 199", 100, 100, 100);
	expect(db, "SELECT count(*) FROM records WHERE id > 19990", 9, 9, 9);
	expect(db, "SELECT count(*) FROM records WHERE id IN (5, 7, 99999)", 2, 2, 2);
	expect(db, "SELECT count(*) FROM records WHERE id < 0", 0, 0, 0);
	/* type: every record read, only the matching ones handed to SQLite */
	expect(db, "SELECT count(*) FROM records WHERE type = 0", ins, n, ins);
	expect(db, "SELECT count(*) FROM records WHERE +type = 0", ins, n, n);
	/* a thread: its chain only */
	for (uint64_t th = 0; th < umt_thread_count(g3.t); th++) {
		const umt_thread_rec *row;
		char sql[128];
		assert_int_equal(umt_thread_get(g3.t, th, &row), 0);
		snprintf(sql, sizeof sql, "SELECT count(*) FROM records WHERE thread_id = %llu",
		         (unsigned long long)th);
		expect(db, sql, row->RecCount, row->RecCount, row->RecCount);
	}
	/* a thread from record 5000 on: a scan to its first record there, then its chain */
	uint64_t first = 5000, count = 0;
	assert_int_equal(umt_exec_iter_init(&it, g3.t, 5000, UINT64_MAX), 0);
	while (umt_exec_iter_next(&it, &rec) > 0 && rec.thread_id != 2)
		first++;
	assert_int_equal(umt_exec_iter_init(&it, g3.t, first, 10000), 0);
	while (umt_exec_iter_next(&it, &rec) > 0)
		count += rec.thread_id == 2;
	expect(db, "SELECT count(*) FROM records WHERE thread_id = 2 AND id BETWEEN 5000 AND 9999",
	       (int64_t)count, (int64_t)(first - 5000 + 1 + count), (int64_t)count);
	/* a join: each thread's records through the pushdown (the threads' rows, then chains) */
	db_counters(db, &v, &r);
	assert_int_equal(db_int(db, "SELECT count(*) FROM threads t JOIN records r ON r.thread_id = t.id"), n);
	db_counters(db, &v, &r);
	assert_int_equal(v, n + (int64_t)umt_thread_count(g3.t));
	sqlite3_close(db);
	/* one thread: its chain is every record, a scan reads them faster */
	db = db_open(&g1);
	expect(db, "SELECT count(*) FROM records WHERE thread_id = 0", (int64_t)umt_exec_count(g1.t),
	       (int64_t)umt_exec_count(g1.t), -1);
	sqlite3_close(db);
}

static void test_accesses_pushdowns(void **state)
{
	(void)state;
	sqlite3 *db = db_open(&g3);
	int64_t n = (int64_t)umt_exec_count(g3.t), all, kept, v, r;
	c_accesses(g3.t, 0, (uint64_t)n - 1, &all, &kept);
	/* without a constraint: every record and every access read, the indexed ones returned */
	expect(db, "SELECT count(*) FROM accesses", kept, n + all, kept);
	c_accesses(g3.t, 1000, 1999, &all, &kept);
	expect(db, "SELECT count(*) FROM accesses WHERE id BETWEEN 1000 AND 1999", kept, 1000 + all, kept);
	/* an address range: the history's accesses only (those overlapping it) */
	umt_history_query q;
	umt_history *h;
	umt_access a;
	int64_t overlapping = 0, starting = 0;
	uint64_t lo = 0, hi;
	umt_access_iter ai;
	umt_rec rec;
	for (uint64_t id = 0; lo == 0; id++) { /* the first write of the trace */
		assert_int_equal(umt_exec_get(g3.t, id, &rec), 0);
		assert_int_equal(umt_access_iter_init(&ai, g3.t, &rec, UMT_ACCESS_WRITE), 0);
		if (umt_access_iter_next(&ai, &a) > 0)
			lo = a.address;
	}
	hi = lo + 31;
	umt_history_query_init(&q, lo, 32);
	q.kinds = UMT_ACCESS_ALL;
	assert_int_equal(umt_history_open(g3.ix, &q, &h), 0);
	while (umt_history_next(h, &a) > 0) {
		overlapping++;
		starting += a.address >= lo && a.address <= hi;
	}
	umt_history_close(h);
	char sql[256];
	snprintf(sql, sizeof sql, "SELECT count(*) FROM accesses WHERE address BETWEEN %llu AND %llu",
	         (unsigned long long)lo, (unsigned long long)hi);
	expect(db, sql, starting, overlapping, starting);
	assert_true(starting > 0 && overlapping < n / 10);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM accesses WHERE address = %llu",
	         (unsigned long long)lo);
	db_counters(db, &v, &r);
	assert_true(db_int(db, "%s", sql) > 0);
	db_counters(db, &v, &r);
	assert_true(v <= overlapping);
	/* one bound alone is not pushed (half the address space): a scan */
	c_accesses(g3.t, 0, (uint64_t)n - 1, &all, &kept);
	db_counters(db, &v, &r);
	db_int(db, "SELECT count(*) FROM accesses WHERE address >= 0");
	db_counters(db, &v, &r);
	assert_int_equal(v, n + all);
	sqlite3_close(db);
}

static void test_other_pushdowns(void **state)
{
	(void)state;
	sqlite3 *db = db_open(&g3);
	expect(db, "SELECT count(*) FROM operands(100)", db_int(db, "SELECT count(*) FROM operands "
	                                                            "WHERE id = 100"), 1, -1);
	expect(db, "SELECT count(*) FROM instructions WHERE id = 5", 1, 1, 1);
	expect(db, "SELECT count(*) FROM instructions WHERE id BETWEEN 10 AND 19", 10, 10, 10);
	expect(db, "SELECT count(*) FROM syscalls WHERE id = 0", 1, 1, 1);
	expect(db, "SELECT count(*) FROM mem(100, 4096, 16)", 16, 16, 16);
	/* a join of records with their instruction rows: one lookup per record */
	int64_t ins = db_int(db, "SELECT count(*) FROM records WHERE id < 1000 AND type = 0");
	expect(db, "SELECT count(*) FROM records r JOIN instructions i ON i.id = r.ins_id "
	           "WHERE r.id < 1000", ins, 1000 + ins, 1000 + ins);
	sqlite3_close(db);
}

/* ORDER BY id costs nothing (rows come in ID order); DESC and other columns are sorted. */
static void test_order_by(void **state)
{
	(void)state;
	sqlite3 *db = db_open(&g3);
	static const struct {
		const char *sql;
		int sorted;
	} plans[] = {
		{"SELECT * FROM records ORDER BY id", 0},
		{"SELECT * FROM records WHERE thread_id = 1 ORDER BY id", 0},
		{"SELECT * FROM accesses WHERE address BETWEEN 4096 AND 8191 ORDER BY id", 0},
		{"SELECT * FROM accesses WHERE id < 100 ORDER BY id", 0},
		{"SELECT * FROM instructions ORDER BY id", 0},
		{"SELECT * FROM records ORDER BY id DESC", 1},
		{"SELECT * FROM records ORDER BY thread_id", 1},
	};
	for (size_t i = 0; i < sizeof plans / sizeof plans[0]; i++) {
		char *plan = db_plan(db, plans[i].sql);
		if ((strstr(plan, "TEMP B-TREE") != NULL) != plans[i].sorted)
			fail_msg("%s: plan\n%s", plans[i].sql, plan);
		free(plan);
	}
	/* and the rows really come in order */
	assert_int_equal(db_int(db, "SELECT count(*) FROM (SELECT id, lag(id) OVER () AS p FROM "
	                            "records WHERE thread_id = 1) WHERE p >= id"),
	                 0);
	sqlite3_close(db);
}

/* Constraints the tables enforce themselves answer as SQLite compares values in a table. */
static void test_comparisons(void **state)
{
	(void)state;
	sqlite3 *db = db_open(&g3);
	/* the reference: the same columns in a native table (INTEGER affinity, as declared) */
	db_exec(db, "CREATE TEMP TABLE ref AS SELECT id, thread_id, type FROM records");
	static const struct {
		const char *where;
		int64_t count;
	} cases[] = {
		{"id = '7'", 1},           {"id = 7.0", 1},          {"id = 7.5", 0},
		{"id = NULL", 0},          {"id = 'seven'", 0},      {"id < 'seven'", 20000},
		{"id > 'seven'", 0},       {"id > x'00'", 0},        {"id < 2.5", 3},
		{"id <= 2.0", 3},          {"id > 19997.5", 2},      {"id >= 19997.5", 2},
		{"id > -1e300", 20000},    {"id < 1e300", 20000},    {"id > 1e300", 0},
		{"id BETWEEN 5 AND 4", 0}, {"id > 9223372036854775807", 0},
		{"id < -9223372036854775808", 0},                    {"thread_id = '1'", -1},
		{"type = 0.5", 0},         {"type = 300", 0},        {"thread_id = 5000000000", 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int64_t want = db_int(db, "SELECT count(*) FROM ref WHERE %s", cases[i].where);
		int64_t got = db_int(db, "SELECT count(*) FROM records WHERE %s", cases[i].where);
		if (got != want || (cases[i].count >= 0 && got != cases[i].count))
			fail_msg("WHERE %s: %lld rows, SQLite says %lld, expected %lld", cases[i].where,
			         (long long)got, (long long)want, (long long)cases[i].count);
	}
	/* accesses: text kinds and addresses past 2^63 (negative as SQLite sees them) */
	assert_int_equal(db_int(db, "SELECT count(*) FROM accesses WHERE kind = 'write' AND id < 5000"),
	                 db_int(db, "SELECT count(*) FROM accesses WHERE +kind = 'write' AND id < 5000"));
	assert_int_equal(db_int(db, "SELECT count(*) FROM accesses WHERE kind = 'WRITE'"), 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM accesses WHERE kind = 2"), 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM accesses WHERE address BETWEEN -5 AND 8191"),
	                 db_int(db, "SELECT count(*) FROM accesses WHERE +address BETWEEN -5 AND 8191"));
	assert_int_equal(db_int(db, "SELECT count(*) FROM accesses WHERE address BETWEEN "
	                            "-9223372036854775808 AND -1"),
	                 0);
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records_pushdowns), cmocka_unit_test(test_accesses_pushdowns),
		cmocka_unit_test(test_other_pushdowns),   cmocka_unit_test(test_order_by),
		cmocka_unit_test(test_comparisons),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
