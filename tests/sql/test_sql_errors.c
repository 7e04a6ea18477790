/*
 * The SQLite module when things go wrong, and when several connections and
 * traces meet: every failure is an SQLite error carrying the library's
 * message (file, record, offset), never a crash (the tests run under ASan
 * and UBSan):
 *   - no trace attached, SQL that does not compile, writes;
 *   - bad arguments to umtrace_open() and mem();
 *   - a missing index (the message says how to build it), a stale one;
 *   - corrupt traces: records, instruction rows, offsets, module names,
 *     syscall records, disassembly, trace.xml, each damaged in a copy;
 *   - a damaged trace opened with 'salvage';
 *   - one trace handle shared by connections in four threads
 *     (umt_sqlite_attach()), a trace of its own per CREATE VIRTUAL TABLE, and
 *     a statement that keeps reading its trace after umtrace_open() moved
 *     the connection to another.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "fixture.h"
#include "sqlcheck.h"

static char *base;
static struct gentrace ga, gb;

static int setup(void **state)
{
	(void)state;
	base = fx_tmpdir();
	gen_trace(&ga, base, "a", 6000, 2, 23, UMT_FLAVOUR_2015, 0);
	gen_trace(&gb, base, "b", 3000, 3, 29, UMT_FLAVOUR_2014, 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	gen_free(&ga), gen_free(&gb);
	fx_rmtree(base);
	free(base);
	return 0;
}

static const char *const tables[] = {"records",  "instructions", "operands",      "accesses",
                                     "threads",  "modules",      "syscalls",      "address_space",
                                     "metadata", NULL};

static void test_no_trace(void **state)
{
	(void)state;
	sqlite3 *db = db_open(NULL);
	for (int i = 0; tables[i]; i++)
		db_fails(db, false, "no trace: SELECT umtrace_open('/path/to/trace') first",
		         "SELECT * FROM %s", tables[i]);
	db_fails(db, false, "no trace", "SELECT * FROM mem(1, 2, 3)");
	/* and after umtrace_close() */
	db_exec(db, "SELECT umtrace_open('%s'); SELECT umtrace_close()", ga.dir);
	db_fails(db, false, "no trace", "SELECT count(*) FROM records");
	sqlite3_close(db);
}

static void test_bad_sql(void **state)
{
	(void)state;
	sqlite3 *db = db_open(&ga);
	db_fails(db, true, "syntax error", "SELEC 1");
	db_fails(db, true, "incomplete input", "SELECT * FROM records WHERE");
	db_fails(db, true, "no such column: nosuch", "SELECT nosuch FROM records");
	db_fails(db, true, "may not be modified", "INSERT INTO records(id) VALUES (1)");
	db_fails(db, true, "may not be modified", "DELETE FROM threads");
	db_fails(db, true, "may not be modified", "UPDATE modules SET name = 'x'");
	db_fails(db, true, "no such function", "SELECT umtrace_nosuch()");
	db_fails(db, false, "/no/such: cannot open trace directory",
	         "CREATE VIRTUAL TABLE temp.x USING records('/no/such')");
	db_fails(db, false, "unknown option 'frob'",
	         "CREATE VIRTUAL TABLE temp.y USING records('%s', 'frob')", ga.dir);
	sqlite3_close(db);
}

static void test_bad_arguments(void **state)
{
	(void)state;
	sqlite3 *db = db_open(&ga);
	db_fails(db, false, "NULL or empty", "SELECT umtrace_open()");
	db_fails(db, false, "NULL or empty", "SELECT umtrace_open(NULL)");
	db_fails(db, false, "NULL or empty", "SELECT umtrace_open('')");
	db_fails(db, false, "/no/such/trace", "SELECT umtrace_open('/no/such/trace')");
	db_fails(db, false, "unknown option 'idx=x'", "SELECT umtrace_open('%s', 'idx=x')", ga.dir);
	db_fails(db, false, "an option is NULL", "SELECT umtrace_open('%s', NULL)", ga.dir);
	db_fails(db, false, "xed=/no/such/dir", "SELECT umtrace_open('%s', 'xed=/no/such/dir')",
	         ga.dir);
	/* the connection still reads the trace it had */
	assert_int_equal(db_int(db, "SELECT count(*) FROM records"), 6000);
	db_fails(db, false, "three arguments needed", "SELECT * FROM mem(1, 2)");
	db_fails(db, false, "three arguments needed", "SELECT * FROM mem");
	db_fails(db, false, "at -1: no such record", "SELECT * FROM mem(-1, 4096, 4)");
	db_fails(db, false, "at 6000: no such record (6000 records)", "SELECT * FROM mem(6000, 4096, 4)");
	db_fails(db, false, "length 0", "SELECT * FROM mem(1, 4096, 0)");
	db_fails(db, false, "length -3", "SELECT * FROM mem(1, 4096, -3)");
	db_fails(db, false, "top of the address space", "SELECT * FROM mem(1, -1, 2)");
	db_fails(db, false, "must be integers", "SELECT * FROM mem('one', 4096, 4)");
	db_fails(db, false, "must be integers", "SELECT * FROM mem(1, NULL, 4)");
	db_fails(db, false, "must be integers", "SELECT * FROM mem(1, 4096, 2.5)");
	sqlite3_close(db);
}

static void test_index_missing_stale(void **state)
{
	(void)state;
	sqlite3 *db = db_open(NULL);
	char *missing = sqlite3_mprintf("%s/no-index", base);
	db_exec(db, "SELECT umtrace_open('%s', 'index=%s')", ga.dir, missing);
	char *how = sqlite3_mprintf("build the index first: umtdump index --out %s %s", missing, ga.dir);
	db_fails(db, false, how, "SELECT * FROM accesses WHERE address = 4096");
	db_fails(db, false, how, "SELECT * FROM mem(1, 4096, 4)");
	/* what needs no index still works */
	assert_true(db_int(db, "SELECT count(*) FROM accesses WHERE id < 100") > 0);
	/* the index of another trace */
	db_exec(db, "SELECT umtrace_open('%s', 'index=%s')", ga.dir, gb.index);
	db_fails(db, false, "stale index", "SELECT * FROM mem(1, 4096, 4)");
	/* the default place: the trace directory's umtindex, not there */
	db_exec(db, "SELECT umtrace_open('%s')", ga.dir);
	db_fails(db, false, "umtdump index ", "SELECT * FROM mem(1, 4096, 4)");
	sqlite3_free(missing);
	sqlite3_free(how);
	sqlite3_close(db);
}

/* ---- corrupt traces --------------------------------------------------------------------- */

/* The file offset of record @p id and of instruction row @p ins in their files. */
static uint64_t rec_offset(uint64_t id)
{
	umt_rec r;
	assert_int_equal(umt_exec_get(ga.t, id, &r), 0);
	return r.offset;
}

static uint64_t first_of_type(int type)
{
	umt_exec_iter it;
	umt_rec r;
	assert_int_equal(umt_exec_iter_init(&it, ga.t, 0, UINT64_MAX), 0);
	while (umt_exec_iter_next(&it, &r) > 0)
		if (r.type == type)
			return r.id;
	fail();
	return 0;
}

/* ins.itable's RowSize, TableFP and ExtraFP (its header: 8 reserved bytes, then three i64). */
static void ins_layout(const struct fx_trace *t, uint64_t *row_size, uint64_t *table, uint64_t *extra)
{
	*row_size = fx_get64(t->data[UMT_FILE_INS] + 16);
	*table = fx_get64(t->data[UMT_FILE_INS] + 24);
	*extra = fx_get64(t->data[UMT_FILE_INS] + 32);
}

/* Attaches a damaged copy of trace a; @p patch damages it. */
static sqlite3 *corrupt(struct fx_trace *copy, umt_trace **t, void (*patch)(struct fx_trace *))
{
	fx_load_dir(ga.dir, copy);
	patch(copy);
	fx_sync(copy);
	if (fx_open(copy, t) < 0)
		fail_msg("%s", umt_errmsg());
	sqlite3 *db = db_open(NULL);
	umt_sqlite_source src = {*t, ga.dir, ga.index, NULL};
	assert_int_equal(umt_sqlite_attach(db, &src), SQLITE_OK);
	return db;
}

static void patch_type(struct fx_trace *t)
{
	t->data[UMT_FILE_EXEC_VTABLE][rec_offset(10) + 4] = 7; /* an undefined type */
}

static void patch_insid(struct fx_trace *t)
{
	fx_put64(t->data[UMT_FILE_EXEC_VTABLE] + rec_offset(first_of_type(0)) + 6, 99999);
}

static void patch_offsets(struct fx_trace *t)
{
	fx_put64(t->data[UMT_FILE_EXEC_OFFSETS] + 8 * 21, t->size[UMT_FILE_EXEC_VTABLE] + 50);
}

static void patch_module(struct fx_trace *t)
{
	/* module row 0's WinNameFP (module.itable rows start at TableFP, offset 24 of the header) */
	uint64_t table = fx_get64(t->data[UMT_FILE_MODULE] + 24);
	fx_put64(t->data[UMT_FILE_MODULE] + table + 32, t->size[UMT_FILE_MODULE] + 1000);
}

static void patch_syscall(struct fx_trace *t)
{
	fx_put64(t->data[UMT_FILE_SYSCALL_OFFSETS] + 8, 10); /* record 0's Size, below 56 */
}

static void patch_disasm(struct fx_trace *t)
{
	uint64_t row_size, table, extra;
	ins_layout(t, &row_size, &table, &extra);
	fx_put64(t->data[UMT_FILE_INS] + table + 3 * row_size + 40, (uint64_t)-5);
}

static void patch_xml(struct fx_trace *t)
{
	uint8_t *x = t->data[UMT_FILE_TRACE_XML];
	size_t n = t->size[UMT_FILE_TRACE_XML];
	x[n - 3] = 'Q'; /* the end tag no longer matches */
}

static void test_corrupt(void **state)
{
	(void)state;
	static const struct {
		void (*patch)(struct fx_trace *);
		const char *fails, *message, *works;
	} cases[] = {
		{patch_type, "SELECT count(*) FROM records", "exec.vtable: record 10 at offset 0x",
		 "SELECT count(*) FROM records WHERE id < 10"},
		{patch_type, "SELECT count(*) FROM accesses", "record 10", "SELECT count(*) FROM threads"},
		{patch_insid, "SELECT address FROM records WHERE type = 0", "InsID 99999",
		 "SELECT count(*) FROM records"},
		{patch_insid, "SELECT * FROM operands WHERE id < 100", "InsID 99999",
		 "SELECT count(*) FROM instructions"},
		{patch_offsets, "SELECT count(*) FROM records", "exec.vtable: record 20 at offset 0x",
		 "SELECT count(*) FROM records WHERE id < 20"},
		{patch_module, "SELECT name FROM modules", "module.itable",
		 "SELECT count(*) FROM modules"},
		{patch_module, "SELECT module FROM records", "module.itable",
		 "SELECT count(*) FROM records WHERE module_id = 0"},
		{patch_syscall, "SELECT * FROM syscalls", "syscall", "SELECT count(*) FROM syscalls"},
		{patch_disasm, "SELECT disasm FROM instructions", "ins.itable",
		 "SELECT count(*) FROM instructions WHERE id <> 3 AND disasm IS NOT NULL"},
		{patch_xml, "SELECT * FROM metadata", "trace.xml", "SELECT count(*) FROM records"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct fx_trace copy;
		umt_trace *t;
		sqlite3 *db = corrupt(&copy, &t, cases[i].patch);
		db_fails(db, false, cases[i].message, "%s", cases[i].fails);
		db_int(db, "%s", cases[i].works);
		/* and every table read whole: an error or rows, never a crash */
		for (int k = 0; tables[k]; k++) {
			sqlite3_stmt *st = db_prepare(db, "SELECT * FROM %s", tables[k]);
			int rc;
			while ((rc = sqlite3_step(st)) == SQLITE_ROW)
				;
			assert_true(rc == SQLITE_DONE || strlen(sqlite3_errmsg(db)) > 10);
			sqlite3_finalize(st);
		}
		sqlite3_close(db);
		umt_trace_close(t);
		fx_free(&copy);
	}
}

/* A copy of trace a on disk with exec.vtable cut short: salvage reads what is left. */
static void test_salvage(void **state)
{
	(void)state;
	struct fx_trace copy;
	fx_load_dir(ga.dir, &copy);
	char *dir = sqlite3_mprintf("%s/damaged", base);
	assert_int_equal(mkdir(dir, 0755), 0);
	for (int f = 0; f < UMT_FILE_COUNT; f++) {
		if (copy.data[f] == NULL)
			continue;
		char *path = sqlite3_mprintf("%s/%s", dir, umt_file_name(f));
		FILE *out = fopen(path, "wb");
		size_t n = f == UMT_FILE_EXEC_VTABLE ? copy.size[f] - 100 : copy.size[f];
		assert_int_equal(fwrite(copy.data[f], 1, n, out), n);
		fclose(out);
		sqlite3_free(path);
	}
	fx_free(&copy);
	umt_trace *t;
	assert_int_equal(umt_trace_open(dir, UMT_OPEN_SALVAGE, &t), 0);
	sqlite3 *db = db_open(NULL);
	db_fails(db, false, "exec", "SELECT umtrace_open('%s')", dir);
	db_exec(db, "SELECT umtrace_open('%s', 'salvage')", dir);
	assert_int_equal(db_int(db, "SELECT count(*) FROM records"), (int64_t)umt_exec_count(t));
	assert_true(umt_exec_count(t) < 6000);
	sqlite3_close(db);
	umt_trace_close(t);
	sqlite3_free(dir);
}

/* ---- connections and traces ---------------------------------------------------------------- */

struct worker {
	pthread_t thread;
	int64_t instructions, writes, known;
	int failed;
};

/* Queries a worker runs on its own connection to the shared handle of trace a. */
static void *work(void *arg)
{
	struct worker *w = arg;
	sqlite3 *db;
	sqlite3_stmt *st;
	umt_sqlite_source src = {ga.t, ga.dir, ga.index, ga.names};
	w->failed = sqlite3_open(":memory:", &db) != SQLITE_OK || umt_sqlite_register(db) != SQLITE_OK ||
	            umt_sqlite_attach(db, &src) != SQLITE_OK;
	const char *sql = "SELECT (SELECT count(*) FROM records WHERE type = 0), "
	                  "(SELECT count(*) FROM accesses WHERE kind = 'write' AND "
	                  "address BETWEEN 0 AND 0x7fffffffffff), "
	                  "(SELECT sum(known) FROM mem(5999, 0, 1) JOIN accesses a "
	                  "ON a.id < 50 AND a.kind = 'write')";
	for (int round = 0; !w->failed && round < 5; round++) {
		w->failed = sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK ||
		            sqlite3_step(st) != SQLITE_ROW;
		if (!w->failed) {
			w->instructions = sqlite3_column_int64(st, 0);
			w->writes = sqlite3_column_int64(st, 1);
			w->known = sqlite3_column_int64(st, 2);
		}
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	return NULL;
}

static void test_shared_handle(void **state)
{
	(void)state;
	struct worker w[4];
	sqlite3 *db = db_open(&ga);
	int64_t instructions = db_int(db, "SELECT count(*) FROM records WHERE type = 0");
	int64_t writes = db_int(db, "SELECT count(*) FROM accesses WHERE +kind = 'write' AND "
	                            "+address BETWEEN 0 AND 0x7fffffffffff");
	sqlite3_close(db);
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&w[i].thread, NULL, work, &w[i]), 0);
	for (int i = 0; i < 4; i++) {
		pthread_join(w[i].thread, NULL);
		assert_false(w[i].failed);
		assert_int_equal(w[i].instructions, instructions);
		assert_int_equal(w[i].writes, writes);
		assert_int_equal(w[i].known, w[0].known);
	}
}

static void test_traces(void **state)
{
	(void)state;
	sqlite3 *db = db_open(&ga);
	/* a table with a trace of its own, beside the connection's */
	db_exec(db, "CREATE VIRTUAL TABLE temp.b_records USING records('%s', 'index=%s')", gb.dir,
	        gb.index);
	assert_int_equal(db_int(db, "SELECT count(*) FROM records"), 6000);
	assert_int_equal(db_int(db, "SELECT count(*) FROM b_records"), 3000);
	/* a statement keeps its trace when the connection moves to another */
	sqlite3_stmt *st = db_prepare(db, "SELECT id FROM records");
	int64_t rows = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (++rows == 10)
			db_exec(db, "SELECT umtrace_open('%s')", gb.dir);
	}
	assert_int_equal(sqlite3_errcode(db), SQLITE_DONE);
	sqlite3_finalize(st);
	assert_int_equal(rows, 6000);
	assert_int_equal(db_int(db, "SELECT count(*) FROM records"), 3000);
	db_exec(db, "DROP TABLE temp.b_records");
	sqlite3_close(db);
	/* the C API: attach errors */
	assert_int_equal(umt_sqlite_attach(NULL, NULL), SQLITE_MISUSE);
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	umt_sqlite_source src = {ga.t, NULL, NULL, NULL};
	assert_int_equal(umt_sqlite_attach(db, &src), SQLITE_MISUSE); /* not registered */
	assert_int_equal(umt_sqlite_register(db), SQLITE_OK);
	assert_int_equal(umt_sqlite_attach(db, &src), SQLITE_OK);
	db_fails(db, false, "no trace directory to find it in", "SELECT * FROM mem(1, 4096, 1)");
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_trace),      cmocka_unit_test(test_bad_sql),
		cmocka_unit_test(test_bad_arguments), cmocka_unit_test(test_index_missing_stale),
		cmocka_unit_test(test_corrupt),       cmocka_unit_test(test_salvage),
		cmocka_unit_test(test_shared_handle), cmocka_unit_test(test_traces),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
