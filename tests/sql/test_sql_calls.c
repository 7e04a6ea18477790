/*
 * The calls table and stack(at [, thread]) against the C API (umt_calls_*,
 * umt_call_find, umt_stack_at, umt_call_args, umt_call_return_value) and
 * umtgen's ground truth ("call" lines: docs/umtgen.md), on generated traces
 * (2015 flavour, 64-bit, 3 threads; 2014 flavour of 32-bit code, 2 threads):
 *   - every row and column of calls is the call umt_calls_next() gives, in
 *     order; the calls per target are the truth's; a join with modules
 *     counts per module name what the C API's module rows say;
 *   - the pushdowns (thread_id =, target =, target ranges, module_id =, id
 *     ranges, id =) visit only the calls they return (umtrace_rows_visited);
 *   - stack() at sampled records is umt_stack_at(), frame by frame, and each
 *     frame is a truth call of the thread made before the record that had
 *     not returned by then;
 *   - bad arguments and a missing index are errors that say so; a damaged
 *     calls section (bytes overwritten, a file cut short) gives errors or
 *     rows, never a crash (ASan+UBSan), and a short file names itself.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "fixture.h"
#include "gen/jsonl.h"
#include "sqlcheck.h"

static struct genpair pair;

static int setup(void **state)
{
	return gen_pair(state, &pair, 20000, 31, 8000, 37);
}

/* Every call of the query @p q (C API). */
static umt_call *api_calls(const umt_index *ix, const umt_calls_query *q, size_t *n)
{
	umt_calls *it;
	size_t cap = 64;
	umt_call *v = malloc(cap * sizeof *v);
	assert_int_equal(umt_calls_open(ix, q, &it), 0);
	*n = 0;
	while (umt_calls_next(it, &v[*n]) > 0)
		if (++*n == cap)
			v = realloc(v, (cap *= 2) * sizeof *v);
	umt_calls_close(it);
	return v;
}

static void expect_record(sqlite3_stmt *st, int col, uint64_t id)
{
	if (id == UMT_NO_RECORD)
		assert_int_equal(sqlite3_column_type(st, col), SQLITE_NULL);
	else
		assert_int_equal((uint64_t)sqlite3_column_int64(st, col), id);
}

/* Columns @p col.. of @p st (USQL_CALL_COLUMNS' order) against call @p c. */
static void check_call(sqlite3_stmt *st, int col, const umt_call *c)
{
	static const char *const ends[] = {"returned", "abandoned", "open"};
	static const char *const sources[] = {"next", "decoded", "operand", "unknown"};
	assert_int_equal((uint64_t)sqlite3_column_int64(st, col), c->id);
	assert_int_equal(sqlite3_column_int(st, col + 1), c->thread_id);
	assert_int_equal(sqlite3_column_int64(st, col + 2), c->depth);
	assert_int_equal((uint64_t)sqlite3_column_int64(st, col + 3), c->caller);
	assert_int_equal((uint64_t)sqlite3_column_int64(st, col + 4), c->target);
	assert_string_equal((const char *)sqlite3_column_text(st, col + 5), sources[c->target_source]);
	assert_int_equal((uint64_t)sqlite3_column_int64(st, col + 6), c->return_address);
	expect_record(st, col + 7, c->return_id);
	expect_record(st, col + 8, c->end_id);
	assert_string_equal((const char *)sqlite3_column_text(st, col + 9), ends[c->end]);
	expect_record(st, col + 10, c->parent);
	expect_record(st, col + 11, c->module < 0 ? UMT_NO_RECORD : (uint64_t)c->module);
	assert_int_equal(sqlite3_column_type(st, col + 12), c->module < 0 ? SQLITE_NULL : SQLITE_TEXT);
	if (c->module >= 0)
		assert_int_equal((uint64_t)sqlite3_column_int64(st, col + 13), c->module_offset);
	assert_int_equal(sqlite3_column_int(st, col + 14), c->length);
}

static void test_calls_api(void **state)
{
	(void)state;
	const struct gentrace *gs[] = {&pair.g64, &pair.g32};
	for (int k = 0; k < 2; k++) {
		sqlite3 *db = db_open(gs[k]);
		umt_calls_query q;
		umt_calls_query_init(&q);
		size_t n;
		umt_call *want = api_calls(gs[k]->ix, &q, &n);
		sqlite3_stmt *st = db_prepare(db, "SELECT * FROM calls");
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(sqlite3_step(st), SQLITE_ROW);
			check_call(st, 0, &want[i]);
		}
		assert_int_equal(sqlite3_step(st), SQLITE_DONE);
		sqlite3_finalize(st);
		umt_calls_info info;
		assert_int_equal(umt_calls_info_get(gs[k]->ix, &info), 0);
		assert_int_equal(info.calls, n);
		assert_true(n > 100);
		/* the arguments and return values of the first calls of the table */
		umt_state s;
		assert_int_equal(umt_state_init(gs[k]->ix, &s), 0);
		st = db_prepare(db, "SELECT arg0, arg1, arg2, arg3, return_value FROM calls LIMIT 40");
		for (size_t i = 0; i < 40 && i < n; i++) {
			uint64_t v[4], rv;
			uint8_t known[4];
			assert_int_equal(sqlite3_step(st), SQLITE_ROW);
			assert_int_equal(umt_call_args(gs[k]->ix, &want[i], &s, 4, v, known), 0);
			for (int a = 0; a < 4; a++) {
				assert_int_equal(sqlite3_column_type(st, a), known[a] ? SQLITE_INTEGER : SQLITE_NULL);
				if (known[a])
					assert_int_equal((uint64_t)sqlite3_column_int64(st, a), v[a]);
			}
			int has = umt_call_return_value(gs[k]->ix, &want[i], &s, &rv);
			assert_true(has >= 0);
			assert_int_equal(sqlite3_column_type(st, 4), has ? SQLITE_INTEGER : SQLITE_NULL);
			if (has)
				assert_int_equal((uint64_t)sqlite3_column_int64(st, 4), rv);
		}
		sqlite3_finalize(st);
		umt_state_release(&s);
		free(want);
		sqlite3_close(db);
	}
}

/* The truth's calls (made by complete records: the index leaves the others out) per target. */
static void test_calls_truth(void **state)
{
	(void)state;
	sqlite3 *db = db_open(&pair.g64);
	FILE *f = fopen(pair.g64.truth, "r");
	assert_non_null(f);
	char *line = NULL;
	size_t cap = 0, calls = 0;
	db_exec(db, "CREATE TEMP TABLE truth(id INTEGER, target INTEGER)");
	sqlite3_stmt *ins = db_prepare(db, "INSERT INTO truth VALUES (?, ?)");
	while (getline(&line, &cap, f) > 0) {
		struct jv v;
		uint64_t id, target;
		umt_rec r;
		if (strstr(line, "\"kind\":\"call\"") == NULL)
			continue;
		assert_int_equal(json_parse(line, &v), 0);
		assert_int_equal(json_u64(&v, "id", &id), 0);
		assert_int_equal(json_u64(&v, "target", &target), 0);
		json_free(&v);
		assert_int_equal(umt_exec_get(pair.g64.t, id, &r), 0);
		if (umt_rec_is_incomplete(&r))
			continue;
		sqlite3_bind_int64(ins, 1, (sqlite3_int64)id);
		sqlite3_bind_int64(ins, 2, (sqlite3_int64)target);
		assert_int_equal(sqlite3_step(ins), SQLITE_DONE);
		sqlite3_reset(ins);
		calls++;
	}
	sqlite3_finalize(ins);
	free(line);
	fclose(f);
	assert_true(calls > 100);
	/* counts per target: the same targets with the same counts, whichever side */
	const char *diff =
		"SELECT count(*) FROM (SELECT target, count(*) FROM calls GROUP BY target EXCEPT "
		"SELECT target, count(*) FROM truth GROUP BY target)";
	assert_int_equal(db_int(db, "%s", diff), 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM (SELECT target, count(*) FROM truth "
	                            "GROUP BY target EXCEPT SELECT target, count(*) FROM calls "
	                            "GROUP BY target)"), 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM calls"), (int64_t)calls);
	/* a join with modules: calls per module name, against the C API's module rows */
	umt_calls_query q;
	umt_calls_query_init(&q);
	size_t n;
	umt_call *all = api_calls(pair.g64.ix, &q, &n);
	for (uint64_t m = 0; m < umt_module_count(pair.g64.t); m++) {
		int64_t want = 0;
		for (size_t i = 0; i < n; i++)
			want += all[i].module == (int64_t)m;
		assert_int_equal(db_int(db, "SELECT count(*) FROM calls c JOIN modules m "
		                            "ON m.id = c.module_id WHERE m.id = %llu AND "
		                            "m.name = c.module", (unsigned long long)m), want);
	}
	free(all);
	sqlite3_close(db);
}

/* Runs @p sql (one integer) and checks it and the rows it visited. */
static void expect(sqlite3 *db, int64_t result, int64_t visited, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void expect(sqlite3 *db, int64_t result, int64_t visited, const char *fmt, ...)
{
	char sql[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(sql, sizeof sql, fmt, ap);
	va_end(ap);
	int64_t v, r;
	db_counters(db, &v, &r);
	int64_t got = db_int(db, "%s", sql);
	db_counters(db, &v, &r);
	if (got != result || v != visited)
		fail_msg("%s: %lld, %lld visited; expected %lld, %lld", sql, (long long)got,
		         (long long)v, (long long)result, (long long)visited);
}

static void test_calls_pushdown(void **state)
{
	(void)state;
	sqlite3 *db = db_open(&pair.g64);
	umt_calls_query q;
	umt_calls_query_init(&q);
	size_t n;
	umt_call *all = api_calls(pair.g64.ix, &q, &n);
	const umt_call *c = &all[n / 2];
	int64_t of_thread = 0, to_target = 0, in_range = 0, of_module = 0, in_targets = 0;
	uint64_t lo = all[n / 4].id, hi = all[n / 2].id;
	for (size_t i = 0; i < n; i++) {
		of_thread += all[i].thread_id == 1;
		to_target += all[i].target == c->target;
		in_range += all[i].id >= lo && all[i].id <= hi;
		of_module += all[i].module == c->module;
		in_targets += all[i].target >= c->target && all[i].target <= c->target + 0x100;
	}
	assert_true(of_thread > 0 && of_thread < (int64_t)n && to_target > 1 && in_targets >= to_target &&
	            in_range > 1 && of_module > to_target);
	expect(db, (int64_t)n, (int64_t)n, "SELECT count(*) FROM calls");
	expect(db, of_thread, of_thread, "SELECT count(*) FROM calls WHERE thread_id = 1");
	expect(db, to_target, to_target, "SELECT count(*) FROM calls WHERE target = %lld",
	       (long long)c->target);
	expect(db, in_targets, in_targets, "SELECT count(*) FROM calls WHERE target BETWEEN %lld "
	       "AND %lld", (long long)c->target, (long long)c->target + 0x100);
	expect(db, in_range, in_range, "SELECT count(*) FROM calls WHERE id BETWEEN %llu AND %llu",
	       (unsigned long long)lo, (unsigned long long)hi);
	expect(db, of_module, of_module, "SELECT count(*) FROM calls WHERE module_id = %lld",
	       (long long)c->module);
	expect(db, 1, 1, "SELECT count(*) FROM calls WHERE id = %llu", (unsigned long long)c->id);
	expect(db, 0, 0, "SELECT count(*) FROM calls WHERE id = %llu", (unsigned long long)c->id + 1);
	expect(db, 0, 0, "SELECT count(*) FROM calls WHERE thread_id = 99");
	/* the constraint hidden from xBestIndex: every call */
	expect(db, of_thread, (int64_t)n, "SELECT count(*) FROM calls WHERE +thread_id = 1");
	/* ORDER BY id is consumed: no sorter in the plan */
	char *plan = db_plan(db, "SELECT * FROM calls WHERE thread_id = 2 ORDER BY id");
	assert_null(strstr(plan, "TEMP B-TREE"));
	free(plan);
	free(all);
	sqlite3_close(db);
}

/* stack(at [, thread]) against umt_stack_at() and the truth's open calls. @return its depth. */
static size_t check_stack(sqlite3 *db, const struct gentrace *g, uint64_t at, int64_t thread)
{
	umt_frame frames[64];
	size_t depth;
	assert_int_equal(umt_stack_at(g->ix, at, thread, frames, 64, &depth), 0);
	assert_true(depth <= 64);
	sqlite3_stmt *st = thread < 0
		? db_prepare(db, "SELECT * , at, thread FROM stack(%llu)", (unsigned long long)at)
		: db_prepare(db, "SELECT *, at, thread FROM stack(%llu, %lld)", (unsigned long long)at,
		             (long long)thread);
	for (size_t i = 0; i < depth; i++) {
		const umt_frame *f = &frames[i];
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int64(st, 0), (int64_t)i);
		check_call(st, 1, &f->call);
		expect_record(st, 16, f->module < 0 ? UMT_NO_RECORD : (uint64_t)f->module);
		if (f->module >= 0)
			assert_int_equal((uint64_t)sqlite3_column_int64(st, 18), f->module_offset);
		assert_int_equal((uint64_t)sqlite3_column_int64(st, 19), at);
		assert_int_equal(sqlite3_column_int64(st, 20), f->call.thread_id);
		/* the truth: a call of the thread made before at that had not returned by then */
		assert_true(f->call.id < at && f->call.end_id >= at);
		assert_int_equal(db_int(db, "SELECT count(*) FROM truth WHERE id = %llu AND (ret IS NULL "
		                            "OR ret >= %llu)", (unsigned long long)f->call.id,
		                        (unsigned long long)at), 1);
	}
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	return depth;
}

static void test_stack(void **state)
{
	(void)state;
	sqlite3 *db = db_open(&pair.g64);
	/* the truth's calls, their ret (NULL: none) */
	db_exec(db, "CREATE TEMP TABLE truth(id INTEGER, ret INTEGER)");
	FILE *f = fopen(pair.g64.truth, "r");
	assert_non_null(f);
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, f) > 0) {
		struct jv v;
		uint64_t id, ret;
		if (strstr(line, "\"kind\":\"call\"") == NULL)
			continue;
		assert_int_equal(json_parse(line, &v), 0);
		assert_int_equal(json_u64(&v, "id", &id), 0);
		if (json_u64(&v, "return_id", &ret) < 0)
			db_exec(db, "INSERT INTO truth VALUES (%llu, NULL)", (unsigned long long)id);
		else
			db_exec(db, "INSERT INTO truth VALUES (%llu, %llu)", (unsigned long long)id,
			        (unsigned long long)ret);
		json_free(&v);
	}
	free(line);
	fclose(f);
	srand(41);
	size_t frames = 0, deepest = 0;
	for (int i = 0; i < 80; i++) {
		uint64_t at = (uint64_t)rand() % umt_exec_count(pair.g64.t);
		int64_t thread = i % 3 ? -1 : (int64_t)((uint64_t)rand() % 3);
		size_t d = check_stack(db, &pair.g64, at, thread);
		frames += d;
		deepest = d > deepest ? d : deepest;
	}
	check_stack(db, &pair.g64, 0, -1);
	check_stack(db, &pair.g64, umt_exec_count(pair.g64.t) - 1, 2);
	print_message("stack: %zu frames at 80 records, %zu the deepest\n", frames, deepest);
	assert_true(frames > 80 && deepest >= 3);
	sqlite3_close(db);
}

static void test_errors(void **state)
{
	(void)state;
	sqlite3 *db = db_open(&pair.g64);
	unsigned long long n = umt_exec_count(pair.g64.t);
	db_fails(db, false, "stack: at -1: no such record", "SELECT * FROM stack(-1)");
	db_fails(db, false, "no such record (20000 records)", "SELECT * FROM stack(%llu)", n);
	db_fails(db, false, "stack: thread 3: no such thread (3 threads)", "SELECT * FROM stack(5, 3)");
	db_fails(db, false, "the arguments must be integers", "SELECT * FROM stack('x')");
	db_fails(db, false, "the arguments must be integers", "SELECT * FROM stack(NULL)");
	db_fails(db, false, "stack(at [, thread]): the record is needed", "SELECT * FROM stack");
	assert_int_equal(db_int(db, "SELECT count(*) FROM calls WHERE module_id = 1000"), 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM calls WHERE id = 'x'"), 0);
	db_exec(db, "SELECT umtrace_open('%s', 'index=%s/no-such-index')", pair.g64.dir, pair.base);
	db_fails(db, false, "build the index first", "SELECT * FROM stack(5)");
	db_fails(db, false, "build the index first", "SELECT * FROM calls");
	sqlite3_close(db);
}

/* Every query over calls and stack() on the index in @p dir; @return the statements that failed. */
static int damaged_queries(const char *dir, const char *want_in_errors)
{
	static const char *const queries[] = {
		"SELECT count(*), sum(depth), max(end_id) FROM calls",
		"SELECT count(*) FROM calls WHERE thread_id = 1",
		"SELECT count(*) FROM calls WHERE target BETWEEN 0 AND 0x7fffffffffff",
		"SELECT count(*) FROM calls WHERE id BETWEEN 5000 AND 9000",
		"SELECT count(*) FROM calls WHERE id = 5001",
		"SELECT count(*), sum(id) FROM stack(12345)",
		"SELECT count(*) FROM stack(19999, 2)",
	};
	sqlite3 *db = db_open(NULL);
	db_exec(db, "SELECT umtrace_open('%s', 'index=%s')", pair.g64.dir, dir);
	int failed = 0;
	for (size_t i = 0; i < sizeof queries / sizeof queries[0]; i++) {
		sqlite3_stmt *st = db_prepare(db, "%s", queries[i]);
		int rc;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			;
		if (rc != SQLITE_DONE) {
			failed++;
			if (want_in_errors && strstr(sqlite3_errmsg(db), want_in_errors) == NULL)
				fail_msg("%s: %s", queries[i], sqlite3_errmsg(db));
		}
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	return failed;
}

/* Overwrites 8 bytes of @p path at @p off with 0xff 0x7f... */
static void damage(const char *path, long off)
{
	static const unsigned char junk[8] = {0xff, 0x7f, 0xff, 0xff, 0x00, 0x80, 0xff, 0x7f};
	FILE *f = fopen(path, "r+b");
	assert_non_null(f);
	assert_int_equal(fseek(f, off, SEEK_SET), 0);
	assert_int_equal(fwrite(junk, 1, sizeof junk, f), sizeof junk);
	fclose(f);
}

static void test_damaged_index(void **state)
{
	(void)state;
	static const char *const files[] = {"calls.tab", "calls.thr", "calls.tgt", "calls.byt"};
	char dir[4096], path[4200];
	snprintf(dir, sizeof dir, "%s/damaged-index", pair.base);
	int failed = 0, runs = 0;
	for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
		for (int k = 0; k < 6; k++) {
			umt_index_build_options o;
			umt_index_build_options_init(&o);
			o.threads = 1;
			fx_rmtree(dir);
			if (umt_index_build(pair.g64.t, dir, &o, NULL) < 0)
				fail_msg("%s", umt_errmsg());
			snprintf(path, sizeof path, "%s/%s", dir, files[f]);
			struct stat st;
			assert_int_equal(stat(path, &st), 0);
			if (k == 5) { /* cut short: the error names the file */
				assert_int_equal(truncate(path, st.st_size / 2), 0);
				assert_int_equal(damaged_queries(dir, files[f]), 7);
				continue;
			}
			damage(path, (long)((uint64_t)st.st_size * (uint64_t)k / 5) & ~7L);
			failed += damaged_queries(dir, NULL), runs++;
		}
	}
	print_message("damaged calls sections: %d of %d statements failed, none crashed\n", failed,
	              runs * 7);
	fx_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_calls_api),
		cmocka_unit_test(test_calls_truth),
		cmocka_unit_test(test_calls_pushdown),
		cmocka_unit_test(test_stack),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_damaged_index),
	};
	return cmocka_run_group_tests(tests, setup, gen_pair_teardown);
}
