/*
 * The SQLite module's tables against the library's C API and umtgen's
 * ground truth, on generated traces (2015 flavour with 3 threads, 2014
 * flavour of 32-bit code with 2 threads, one thread) and the bundled sample:
 *   - every column of every row of records, instructions, threads, modules,
 *     syscalls, address_space and metadata, each value computed here through
 *     the C API (names from the trace's own XED headers);
 *   - counts per type and thread, thread and ID constraints together,
 *     joins of records with instructions and modules;
 *   - operands against umt_operand_*; the instructions' semantics (Zydis)
 *     against umt_sem_get();
 *   - accesses to random ranges, from the index and from the records, against
 *     a brute-force list of every access (the index.h definition written out
 *     in sqlcheck.c); mem() against umt_mem_at() and the truth's memory;
 *   - each pushdown by the rows the tables visited (umtrace_rows_visited()),
 *     and ORDER BY id consumed, by the query plan.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fixture.h"
#include "gen/jsonl.h"
#include "sqlcheck.h"

static char *base;
static struct gentrace g64, g32, g1;

static int setup(void **state)
{
	(void)state;
	base = fx_tmpdir();
	gen_trace(&g64, base, "g64", 30000, 3, 7, UMT_FLAVOUR_2015, 0);
	gen_trace(&g32, base, "g32", 8000, 2, 9, UMT_FLAVOUR_2014, 1);
	gen_trace(&g1, base, "g1", 4000, 1, 5, UMT_FLAVOUR_2015, 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	gen_free(&g64), gen_free(&g32), gen_free(&g1);
	fx_rmtree(base);
	free(base);
	return 0;
}

/* ---- column checks --------------------------------------------------------------------- */

static void col_int(sqlite3_stmt *st, int i, int64_t v)
{
	if (sqlite3_column_type(st, i) != SQLITE_INTEGER || sqlite3_column_int64(st, i) != v)
		fail_msg("column %s: %s, expected %lld", sqlite3_column_name(st, i),
		         sqlite3_column_text(st, i) ? (const char *)sqlite3_column_text(st, i) : "NULL",
		         (long long)v);
}

static void col_null(sqlite3_stmt *st, int i)
{
	if (sqlite3_column_type(st, i) != SQLITE_NULL)
		fail_msg("column %s: %s, expected NULL", sqlite3_column_name(st, i),
		         sqlite3_column_text(st, i));
}

static void col_text(sqlite3_stmt *st, int i, const char *s, size_t n)
{
	if (s == NULL) {
		col_null(st, i);
		return;
	}
	if (sqlite3_column_type(st, i) != SQLITE_TEXT || (size_t)sqlite3_column_bytes(st, i) != n ||
	    memcmp(sqlite3_column_text(st, i), s, n) != 0)
		fail_msg("column %s: \"%s\", expected \"%.*s\"", sqlite3_column_name(st, i),
		         sqlite3_column_text(st, i), (int)n, s);
}

static void col_str(sqlite3_stmt *st, int i, const char *s)
{
	col_text(st, i, s, s ? strlen(s) : 0);
}

static void col_blob(sqlite3_stmt *st, int i, const uint8_t *p, size_t n)
{
	if (sqlite3_column_type(st, i) != SQLITE_BLOB || (size_t)sqlite3_column_bytes(st, i) != n ||
	    (n && memcmp(sqlite3_column_blob(st, i), p, n) != 0))
		fail_msg("column %s: a different blob", sqlite3_column_name(st, i));
}

/* A value as the module shows it: an integer of 1 to 8 bytes, else a blob. */
static void col_value(sqlite3_stmt *st, int i, const uint8_t *p, size_t n)
{
	if (n == 0 || n > 8) {
		col_blob(st, i, p, n);
		return;
	}
	uint64_t v = 0;
	for (size_t k = 0; k < n; k++)
		v |= (uint64_t)p[k] << (8 * k);
	col_int(st, i, (int64_t)v);
}

/* The file name of a module, from the C API. */
static void module_file(const umt_trace *t, uint64_t id, char *buf, size_t cap)
{
	char path[1024];
	assert_true(umt_module_name(t, id, UMT_MODULE_WIN_NAME, path, sizeof path) >= 0);
	const char *s = path;
	for (const char *p = path; *p; p++)
		if (*p == '\\' || *p == '/')
			s = p + 1;
	size_t n = strlen(s) < cap - 1 ? strlen(s) : cap - 1; /* cap >= 1: the callers' arrays */
	memcpy(buf, s, n);
	buf[n] = '\0';
}

/* ---- records ----------------------------------------------------------------------------- */

/* The instruction columns of records (ins_id .. module) for record @p r. */
static void check_ins_columns(const struct gentrace *g, sqlite3_stmt *st, const umt_rec *r)
{
	int64_t ins = -1;
	if (umt_rec_ins(r, &ins, NULL, NULL) < 0) {
		for (int i = 6; i <= 11; i++)
			col_null(st, i);
		return;
	}
	const umt_ins_rec *row;
	umt_decoded d;
	const char *text;
	size_t len;
	uint64_t mod;
	char name[256];
	assert_int_equal(umt_ins_get(g->t, (uint64_t)ins, &row), 0);
	assert_int_equal(umt_ins_decoded(g->t, (uint64_t)ins, &d), 0);
	assert_int_equal(umt_ins_disasm(g->t, (uint64_t)ins, &text, &len), 0);
	col_int(st, 6, ins);
	col_int(st, 7, row->Address);
	col_str(st, 8, umt_names_mnemonic(g->names, d.ins->Mnemonic));
	assert_non_null(umt_names_mnemonic(g->names, d.ins->Mnemonic)); /* the headers name it */
	col_text(st, 9, text, len);
	if (umt_ins_module(g->t, (uint64_t)ins, &mod) == UMT_E_NOT_FOUND) {
		col_null(st, 10), col_null(st, 11);
	} else {
		col_int(st, 10, (int64_t)mod);
		module_file(g->t, mod, name, sizeof name);
		col_str(st, 11, name);
	}
}

static void check_records(const struct gentrace *g)
{
	sqlite3 *db = db_open(g);
	sqlite3_stmt *st = db_prepare(db, "SELECT id, thread_id, type, type_name, flags, size, "
	                                  "ins_id, address, mnemonic, disasm, module_id, module, "
	                                  "syscall_id, exit_code, prev, next FROM records");
	umt_exec_iter it;
	umt_rec r;
	assert_int_equal(umt_exec_iter_init(&it, g->t, 0, UINT64_MAX), 0);
	while (umt_exec_iter_next(&it, &r) > 0) {
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		col_int(st, 0, (int64_t)r.id);
		col_int(st, 1, r.thread_id);
		col_int(st, 2, r.type);
		col_str(st, 3, umt_rec_type_name(r.type));
		col_int(st, 4, r.flags);
		col_int(st, 5, (int64_t)r.size);
		check_ins_columns(g, st, &r);
		int64_t sid, prev, next;
		int32_t code;
		if (umt_rec_syscall_id(&r, &sid) == 0)
			col_int(st, 12, sid);
		else
			col_null(st, 12);
		if (umt_rec_exit_code(&r, &code) == 0)
			col_int(st, 13, code);
		else
			col_null(st, 13);
		assert_int_equal(umt_exec_links(g->t, r.id, &prev, &next), 0);
		prev < 0 ? col_null(st, 14) : col_int(st, 14, prev);
		next < 0 ? col_null(st, 15) : col_int(st, 15, next);
	}
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

static void test_records(void **state)
{
	(void)state;
	check_records(&g64);
	check_records(&g32);
}

/* ---- numbered-row tables ---------------------------------------------------------------- */

static void check_instructions(const struct gentrace *g)
{
	sqlite3 *db = db_open(g);
	sqlite3_stmt *st = db_prepare(db, "SELECT id, address, size, code, is_64bit, type, "
	                                  "mnemonic_id, mnemonic, category_id, category, form_id, "
	                                  "form, operands, lc_size, flags FROM instructions");
	for (uint64_t id = 0; id < umt_ins_count(g->t); id++) {
		const umt_ins_rec *row;
		umt_decoded d;
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(umt_ins_get(g->t, id, &row), 0);
		assert_int_equal(umt_ins_decoded(g->t, id, &d), 0);
		col_int(st, 0, (int64_t)id);
		col_int(st, 1, row->Address);
		col_int(st, 2, row->CodeSize);
		col_blob(st, 3, row->CodeBytes, row->CodeSize);
		col_int(st, 4, row->CSis64Bits);
		col_int(st, 5, row->Type);
		col_int(st, 6, d.ins->Mnemonic);
		col_str(st, 7, umt_names_mnemonic(g->names, d.ins->Mnemonic));
		col_int(st, 8, d.ins->Category);
		col_str(st, 9, umt_names_category(g->names, d.ins->Category));
		col_int(st, 10, d.ins->Form);
		col_str(st, 11, umt_names_form(g->names, d.ins->Form));
		col_int(st, 12, d.ins->ExpCount);
		col_int(st, 13, d.ins->LCSize);
		col_int(st, 14, d.ins->Flags);
	}
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

static void check_threads_modules(const struct gentrace *g, sqlite3 *db)
{
	sqlite3_stmt *st = db_prepare(db, "SELECT * FROM threads");
	for (uint64_t id = 0; id < umt_thread_count(g->t); id++) {
		const umt_thread_rec *row;
		assert_int_equal(umt_thread_get(g->t, id, &row), 0);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		col_int(st, 0, (int64_t)id), col_int(st, 1, row->WinTID), col_int(st, 2, row->TIBAddr);
		col_int(st, 3, row->FirstEID);
		row->LastEID < 0 ? col_null(st, 4) : col_int(st, 4, row->LastEID);
		col_int(st, 5, row->RecCount);
	}
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	st = db_prepare(db, "SELECT id, name, path, device_path, start, end, size, load_id, "
	                    "unload_id FROM modules");
	for (uint64_t id = 0; id < umt_module_count(g->t); id++) {
		const umt_module_rec *row;
		char name[256], path[1024], dev[1024];
		assert_int_equal(umt_module_get(g->t, id, &row), 0);
		module_file(g->t, id, name, sizeof name);
		assert_true(umt_module_name(g->t, id, UMT_MODULE_WIN_NAME, path, sizeof path) >= 0);
		assert_true(umt_module_name(g->t, id, UMT_MODULE_DEVICE_NAME, dev, sizeof dev) >= 0);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		col_int(st, 0, (int64_t)id), col_str(st, 1, name), col_str(st, 2, path);
		col_str(st, 3, dev), col_int(st, 4, row->StartAddr), col_int(st, 5, row->EndAddr);
		col_int(st, 6, row->EndAddr - row->StartAddr + 1), col_int(st, 7, row->LoadEID);
		row->UnloadEID < 0 ? col_null(st, 8) : col_int(st, 8, row->UnloadEID);
	}
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
}

static void check_syscalls(const struct gentrace *g, sqlite3 *db)
{
	sqlite3_stmt *st = db_prepare(db, "SELECT id, thread_id, raw_id, uniform_id, name, "
	                                  "completed, begin_id, end_id, result, arg_count, arg0, "
	                                  "arg5, args FROM syscalls");
	umt_trace_info info;
	assert_int_equal(umt_trace_get_info(g->t, &info), 0);
	assert_true(umt_syscall_count(g->t) > 0);
	for (uint64_t id = 0; id < umt_syscall_count(g->t); id++) {
		umt_syscall s;
		umt_rec r;
		assert_int_equal(umt_syscall_get(g->t, id, &s), 0);
		assert_int_equal(umt_exec_get(g->t, (uint64_t)s.rec->BeginEID, &r), 0);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		col_int(st, 0, (int64_t)id), col_int(st, 1, r.thread_id), col_int(st, 2, s.rec->RawID);
		col_int(st, 3, s.rec->UniformID);
		col_str(st, 4, umt_names_syscall(g->names, info.unified_ids_version, s.rec->UniformID));
		col_int(st, 5, s.rec->Completed), col_int(st, 6, s.rec->BeginEID);
		s.rec->EndEID < 0 ? col_null(st, 7) : col_int(st, 7, s.rec->EndEID);
		s.rec->Completed ? col_int(st, 8, s.rec->Result) : col_null(st, 8);
		col_int(st, 9, s.rec->ArgCount);
		char json[4096] = "[";
		uint64_t v;
		for (unsigned i = 0; i < s.rec->ArgCount; i++) {
			assert_int_equal(umt_syscall_arg(&s, i, &v), 0);
			snprintf(json + strlen(json), sizeof json - strlen(json), "%s%lld", i ? "," : "",
			         (long long)v);
			if (i == 0)
				col_int(st, 10, (int64_t)v);
			if (i == 5)
				col_int(st, 11, (int64_t)v);
		}
		if (s.rec->ArgCount < 6)
			col_null(st, 11);
		strcat(json, "]");
		col_str(st, 12, json);
	}
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
}

static void check_small_tables(const struct gentrace *g)
{
	sqlite3 *db = db_open(g);
	check_threads_modules(g, db);
	check_syscalls(g, db);
	sqlite3_stmt *st = db_prepare(db, "SELECT * FROM address_space");
	for (uint64_t id = 0; id < umt_address_range_count(g->t); id++) {
		const umt_address_range *row;
		assert_int_equal(umt_address_range_get(g->t, id, &row), 0);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		col_int(st, 0, (int64_t)id), col_int(st, 1, row->First), col_int(st, 2, row->Last);
		col_int(st, 3, row->Last - row->First + 1);
	}
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	const umt_meta *m;
	assert_int_equal(umt_trace_meta(g->t, &m), 0);
	assert_true(umt_meta_leaf_count(m) > 0);
	st = db_prepare(db, "SELECT * FROM metadata");
	for (size_t i = 0; i < umt_meta_leaf_count(m); i++) {
		const char *path, *text;
		assert_int_equal(umt_meta_leaf(m, i, &path, &text), 0);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		col_int(st, 0, (int64_t)i), col_str(st, 1, path), col_str(st, 2, text);
	}
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

static void test_numbered_tables(void **state)
{
	(void)state;
	check_instructions(&g64);
	check_instructions(&g32);
	check_small_tables(&g64);
	check_small_tables(&g32);
}

/* ---- counts, thread and ID constraints, joins ---------------------------------------------- */

/* Records of @p thread (-1: any) and @p type (-1: any) in [lo, hi], by a C scan. */
static int64_t c_count(const umt_trace *t, int64_t thread, int type, uint64_t lo, uint64_t hi)
{
	umt_exec_iter it;
	umt_rec r;
	int64_t n = 0;
	assert_int_equal(umt_exec_iter_init(&it, t, lo, hi + 1), 0);
	while (umt_exec_iter_next(&it, &r) > 0)
		n += (thread < 0 || r.thread_id == thread) && (type < 0 || r.type == type);
	return n;
}

static void check_counts(const struct gentrace *g)
{
	sqlite3 *db = db_open(g);
	uint64_t n = umt_exec_count(g->t);
	sqlite3_stmt *st = db_prepare(db, "SELECT thread_id, type, count(*) FROM records "
	                                  "GROUP BY thread_id, type");
	int64_t total = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t th = sqlite3_column_int64(st, 0), c = sqlite3_column_int64(st, 2);
		int type = sqlite3_column_int(st, 1);
		assert_int_equal(c, c_count(g->t, th, type, 0, n - 1));
		total += c;
	}
	sqlite3_finalize(st);
	assert_int_equal(total, (int64_t)n);
	srand(42);
	for (int i = 0; i < 40; i++) {
		uint64_t lo = (uint64_t)rand() % n, hi = lo + (uint64_t)rand() % (n / 4);
		if (hi >= n)
			hi = n - 1;
		int64_t th = rand() % (int)umt_thread_count(g->t);
		int type = i % 3 == 0 ? 0 : -1;
		int64_t got = db_int(db,
		                     "SELECT count(*) FROM records WHERE thread_id = %lld AND id >= %llu "
		                     "AND id < %llu %s",
		                     (long long)th, (unsigned long long)lo, (unsigned long long)hi + 1,
		                     type == 0 ? "AND type = 0" : "");
		assert_int_equal(got, c_count(g->t, th, type, lo, hi));
	}
	sqlite3_close(db);
}

static void test_counts(void **state)
{
	(void)state;
	check_counts(&g64);
	check_counts(&g32);
	check_counts(&g1);
}

/* Instruction records per module name, through a join, against the C API. */
static void test_joins(void **state)
{
	(void)state;
	sqlite3 *db = db_open(&g64);
	uint64_t nmod = umt_module_count(g64.t), *per = calloc(nmod + 1, sizeof *per);
	umt_exec_iter it;
	umt_rec r;
	assert_int_equal(umt_exec_iter_init(&it, g64.t, 0, UINT64_MAX), 0);
	while (umt_exec_iter_next(&it, &r) > 0) {
		int64_t ins = -1;
		uint64_t mod;
		if (umt_rec_ins(&r, &ins, NULL, NULL) == 0)
			per[umt_ins_module(g64.t, (uint64_t)ins, &mod) == 0 ? mod : nmod]++;
	}
	sqlite3_stmt *st = db_prepare(db, "SELECT m.id, m.name, count(*) FROM records r "
	                                  "JOIN instructions i ON i.id = r.ins_id "
	                                  "JOIN modules m ON m.id = i.module_id "
	                                  "WHERE r.type = 0 GROUP BY m.id ORDER BY m.id");
	uint64_t seen = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		uint64_t m = (uint64_t)sqlite3_column_int64(st, 0);
		char name[256];
		module_file(g64.t, m, name, sizeof name);
		col_str(st, 1, name);
		col_int(st, 2, (int64_t)per[m]);
		seen += per[m];
	}
	sqlite3_finalize(st);
	assert_int_equal(seen + per[nmod], (uint64_t)c_count(g64.t, -1, 0, 0, umt_exec_count(g64.t) - 1));
	/* floating code (JIT): records whose instruction has no module */
	assert_int_equal(db_int(db, "SELECT count(*) FROM records WHERE type = 0 AND module_id IS NULL"),
	                 (int64_t)per[nmod]);
	free(per);
	sqlite3_close(db);
}

/* ---- operands ---------------------------------------------------------------------------- */

static void check_operand_row(const umt_trace *t, sqlite3_stmt *st, const umt_ins_exec *x,
                              unsigned i)
{
	static const char *const kinds[] = {"register", "memory", "agen", "immediate"};
	static const char *const access[] = {"-", "r", "w", "rw"};
	const umt_exp_oper *op = umt_decoded_operand(&x->dec, i);
	char name[UMT_REG_NAME_MAX];
	umt_value v;
	uint64_t address;
	col_int(st, 0, (int64_t)x->record_id);
	col_int(st, 1, i);
	col_str(st, 2, op->RegName ? umt_reg_name(t, (uint16_t)op->RegName, name, sizeof name) : NULL);
	col_str(st, 3, kinds[umt_operand_kind(x, i)]);
	col_int(st, 4, op->Size);
	col_str(st, 5, access[op->Flags & 3]);
	if (umt_operand_address(x, i, &address) == 0)
		col_int(st, 6, (int64_t)address);
	else
		col_null(st, 6);
	for (int when = 0; when < 2; when++) {
		if (umt_operand_value(x, i, when, &v) == 0)
			col_value(st, 7 + when, v.data, v.size);
		else
			col_null(st, 7 + when);
	}
}

static void test_operands(void **state)
{
	(void)state;
	sqlite3 *db = db_open(&g64);
	sqlite3_stmt *st = db_prepare(db, "SELECT id, n, name, kind, size, access, address, before, "
	                                  "after FROM operands WHERE id BETWEEN 100 AND 3100");
	umt_exec_iter it;
	umt_rec r;
	uint64_t rows = 0;
	assert_int_equal(umt_exec_iter_init(&it, g64.t, 100, 3101), 0);
	while (umt_exec_iter_next(&it, &r) > 0) {
		umt_ins_exec x;
		if (r.type != UMT_REC_INSTRUCTION)
			continue;
		assert_int_equal(umt_rec_ins_exec(g64.t, &r, &x), 0);
		for (unsigned i = 0; i < x.dec.ins->ExpCount; i++, rows++) {
			assert_int_equal(sqlite3_step(st), SQLITE_ROW);
			check_operand_row(g64.t, st, &x, i);
		}
	}
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	assert_true(rows > 3000);
	/* the table-valued form and a join give the same rows */
	assert_int_equal(db_int(db, "SELECT count(*) FROM operands(1234)"),
	                 db_int(db, "SELECT count(*) FROM operands WHERE id = 1234"));
	assert_int_equal(db_int(db, "SELECT count(*) FROM records r JOIN operands o ON o.id = r.id "
	                            "WHERE r.id BETWEEN 100 AND 3100"),
	                 (int64_t)rows);
	sqlite3_close(db);
}

/* ---- accesses and mem -------------------------------------------------------------------- */

/* Every indexed access of the trace, in record order (malloc'd). */
static umt_access *all_accesses(const umt_trace *t, size_t *n)
{
	size_t cap = 1024;
	umt_access *v = malloc(cap * sizeof *v);
	umt_exec_iter it;
	umt_rec r;
	*n = 0;
	assert_int_equal(umt_exec_iter_init(&it, t, 0, UINT64_MAX), 0);
	while (umt_exec_iter_next(&it, &r) > 0) {
		umt_access_iter ai;
		umt_access a;
		assert_int_equal(umt_access_iter_init(&ai, t, &r, UMT_ACCESS_ALL), 0);
		while (umt_access_iter_next(&ai, &a) > 0) {
			if (!indexed_access(&a))
				continue;
			if (*n == cap)
				v = realloc(v, (cap *= 2) * sizeof *v);
			v[(*n)++] = a;
		}
	}
	return v;
}

static int acc_order(const void *x, const void *y)
{
	const umt_access *a = x, *b = y;
	if (a->record_id != b->record_id)
		return a->record_id < b->record_id ? -1 : 1;
	if (a->phase != b->phase)
		return a->phase - b->phase;
	if (a->locator != b->locator)
		return a->locator < b->locator ? -1 : 1;
	return (a->address > b->address) - (a->address < b->address);
}

/* The rows of an accesses query, as umt_access values (data points into the statement). */
static size_t sql_accesses(sqlite3 *db, const char *sql, umt_access **out)
{
	sqlite3_stmt *st = db_prepare(db, "SELECT id, thread_id, kind, phase, address, size, value, "
	                                  "trusted, locator FROM accesses WHERE %s", sql);
	size_t n = 0, cap = 64;
	umt_access *v = malloc(cap * sizeof *v);
	int64_t last = -1;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (n == cap)
			v = realloc(v, (cap *= 2) * sizeof *v);
		umt_access *a = &v[n++];
		memset(a, 0, sizeof *a);
		a->record_id = (uint64_t)sqlite3_column_int64(st, 0);
		assert_true((int64_t)a->record_id >= last); /* in record order */
		last = (int64_t)a->record_id;
		a->thread_id = sqlite3_column_int(st, 1);
		const char *kind = (const char *)sqlite3_column_text(st, 2);
		for (unsigned k = 1; k <= UMT_ACCESS_CONTEXT; k <<= 1)
			if (!strcmp(kind, umt_access_kind_name(k)))
				a->kind = (uint8_t)k;
		a->phase = (uint8_t)sqlite3_column_int(st, 3);
		a->address = (uint64_t)sqlite3_column_int64(st, 4);
		a->size = (uint64_t)sqlite3_column_int64(st, 5);
		assert_int_equal(sqlite3_column_bytes(st, 6), a->size);
		a->data = malloc(a->size);
		memcpy((void *)a->data, sqlite3_column_blob(st, 6), a->size);
		a->trust = sqlite3_column_int(st, 7) ? UMT_TRUST_VALUE : 0;
		a->locator = (uint32_t)sqlite3_column_int64(st, 8);
	}
	assert_int_equal(sqlite3_errcode(db), SQLITE_DONE);
	sqlite3_finalize(st);
	qsort(v, n, sizeof *v, acc_order);
	*out = v;
	return n;
}

/* SQL's rows against the brute force's accesses of @p want[] (sorted alike). */
static void same_accesses(umt_access *got, size_t n, const umt_access *want, size_t m,
                          const char *what)
{
	if (n != m)
		fail_msg("%s: %zu rows, expected %zu", what, n, m);
	for (size_t i = 0; i < n; i++) {
		const umt_access *a = &got[i], *b = &want[i];
		if (a->record_id != b->record_id || a->thread_id != b->thread_id ||
		    a->kind != b->kind || a->phase != b->phase || a->address != b->address ||
		    a->size != b->size || a->locator != b->locator ||
		    (a->trust != 0) != ((b->trust & UMT_TRUST_VALUE) != 0) ||
		    memcmp(a->data, b->data, a->size) != 0)
			fail_msg("%s: row %zu differs (record %llu)", what, i,
			         (unsigned long long)b->record_id);
		free((void *)a->data);
	}
	free(got);
}

/* One query both ways (index and records) against the brute force. */
static size_t check_access_query(sqlite3 *db, const umt_access *all, size_t nall, uint64_t lo,
                                 uint64_t hi, const char *extra, int64_t thread, unsigned kind,
                                 uint64_t id_lo, uint64_t id_hi)
{
	umt_access *want = malloc((nall + 1) * sizeof *want), *got;
	size_t m = 0;
	for (size_t i = 0; i < nall; i++) {
		const umt_access *a = &all[i];
		if (a->address >= lo && a->address <= hi && (thread < 0 || a->thread_id == thread) &&
		    (kind == 0 || a->kind == kind) && a->record_id >= id_lo && a->record_id <= id_hi)
			want[m++] = *a;
	}
	qsort(want, m, sizeof *want, acc_order);
	char sql[512];
	for (int plus = 0; plus < 2; plus++) {
		snprintf(sql, sizeof sql, "%saddress BETWEEN %llu AND %llu%s", plus ? "+" : "",
		         (unsigned long long)lo, (unsigned long long)hi, extra);
		size_t n = sql_accesses(db, sql, &got);
		same_accesses(got, n, want, m, sql);
	}
	free(want);
	return m;
}

static void check_accesses(const struct gentrace *g)
{
	sqlite3 *db = db_open(g);
	size_t nall;
	umt_access *all = all_accesses(g->t, &nall);
	uint64_t nrec = umt_exec_count(g->t);
	size_t rows[3] = {0, 0, 0};
	srand(7);
	for (int i = 0; i < 30; i++) {
		const umt_access *a = &all[(size_t)rand() % nall];
		uint64_t lo = a->address - (uint64_t)(rand() % 64), hi = a->address + (uint64_t)(rand() % 64);
		uint64_t id_lo = (uint64_t)rand() % nrec, id_hi = id_lo + nrec / 3;
		char extra[160];
		rows[0] += check_access_query(db, all, nall, lo, hi, "", -1, 0, 0, UINT64_MAX);
		snprintf(extra, sizeof extra, " AND kind = 'write' AND thread_id = %d", a->thread_id);
		rows[1] += check_access_query(db, all, nall, lo, hi, extra, a->thread_id,
		                              UMT_ACCESS_WRITE, 0, UINT64_MAX);
		snprintf(extra, sizeof extra, " AND id BETWEEN %llu AND %llu",
		         (unsigned long long)id_lo, (unsigned long long)id_hi);
		rows[2] += check_access_query(db, all, nall, lo, hi, extra, -1, 0, id_lo, id_hi);
	}
	/* the queries found something: 30 ranges around real accesses */
	assert_true(rows[0] >= 30 && rows[1] > 0 && rows[2] > 0);
	/* a whole page of context blocks (the TEB at thread begin) */
	check_access_query(db, all, nall, all[0].address & ~0xfffull, all[0].address | 0xfff, "", -1,
	                   0, 0, UINT64_MAX);
	free(all);
	sqlite3_close(db);
}

static void test_accesses(void **state)
{
	(void)state;
	check_accesses(&g64);
	check_accesses(&g32);
}

/* mem(at, address, length) against umt_mem_at() at random records and addresses. */
static void check_mem_at(sqlite3 *db, const struct gentrace *g, uint64_t at, uint64_t address,
                         uint64_t length)
{
	uint8_t data[256], known[256];
	uint64_t src[256];
	assert_int_equal(umt_mem_at(g->ix, at, address, length, data, known, src), 0);
	sqlite3_stmt *st = db_prepare(db, "SELECT address, value, known, source FROM mem(%llu, %llu, %llu)",
	                              (unsigned long long)at, (unsigned long long)address,
	                              (unsigned long long)length);
	for (uint64_t i = 0; i < length; i++) {
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		col_int(st, 0, (int64_t)(address + i));
		known[i] ? col_int(st, 1, data[i]) : col_null(st, 1);
		col_int(st, 2, known[i] != 0);
		src[i] == UMT_NO_RECORD ? col_null(st, 3) : col_int(st, 3, (int64_t)src[i]);
	}
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
}

/* The truth's memory samples: every byte mem() knows is the true one. */
static void check_mem_truth(sqlite3 *db, const struct gentrace *g)
{
	FILE *f = fopen(g->truth, "r");
	assert_non_null(f);
	char *line = NULL;
	size_t cap = 0, checked = 0;
	while (getline(&line, &cap, f) > 0 && checked < 300) {
		struct jv v;
		uint64_t id, address;
		uint8_t bytes[4096];
		if (strstr(line, "\"kind\":\"mem\"") == NULL || json_parse(line, &v) < 0)
			continue;
		const struct jv *data = json_get(&v, "data");
		long n = data ? json_hex(data->text, bytes, sizeof bytes) : -1;
		if (n > 0 && json_u64(&v, "id", &id) == 0 && json_u64(&v, "address", &address) == 0) {
			sqlite3_stmt *st = db_prepare(db, "SELECT value FROM mem(%llu, %llu, %ld)",
			                              (unsigned long long)id, (unsigned long long)address, n);
			for (long i = 0; i < n; i++) {
				assert_int_equal(sqlite3_step(st), SQLITE_ROW);
				if (sqlite3_column_type(st, 0) != SQLITE_NULL)
					assert_int_equal(sqlite3_column_int(st, 0), bytes[i]);
			}
			sqlite3_finalize(st);
			checked++;
		}
		json_free(&v);
	}
	free(line);
	fclose(f);
	assert_true(checked > 10);
}

static void test_mem(void **state)
{
	(void)state;
	const struct gentrace *gs[] = {&g64, &g32};
	for (int k = 0; k < 2; k++) {
		const struct gentrace *g = gs[k];
		sqlite3 *db = db_open(g);
		size_t nall;
		umt_access *all = all_accesses(g->t, &nall);
		srand(11);
		for (int i = 0; i < 40; i++) {
			const umt_access *a = &all[(size_t)rand() % nall];
			uint64_t at = a->record_id + (uint64_t)(rand() % 500);
			if (at >= umt_exec_count(g->t))
				at = umt_exec_count(g->t) - 1;
			check_mem_at(db, g, at, a->address - 8, 1 + (uint64_t)(rand() % 200));
		}
		check_mem_truth(db, g);
		free(all);
		sqlite3_close(db);
	}
}

/* ---- instruction semantics (Zydis) -------------------------------------------------------- */

static void check_name(sqlite3_stmt *st, int i, const char *want)
{
	if (want == NULL)
		assert_int_equal(sqlite3_column_type(st, i), SQLITE_NULL);
	else
		assert_string_equal((const char *)sqlite3_column_text(st, i), want);
}

/* Every row's zydis_mnemonic, sem_category, zydis_category and target against umt_sem_get(). */
static void test_sem(void **state)
{
	(void)state;
	const struct gentrace *gs[] = {&g64, &g32};
	for (int k = 0; k < 2; k++) {
		const struct gentrace *g = gs[k];
		sqlite3 *db = db_open(g);
		sqlite3_stmt *st = db_prepare(db, "SELECT id, zydis_mnemonic, sem_category, "
		                                  "zydis_category, target FROM instructions");
		uint64_t n = 0, targets = 0;
		for (; sqlite3_step(st) == SQLITE_ROW; n++) {
			umt_sem s;
			assert_int_equal((uint64_t)sqlite3_column_int64(st, 0), n);
			assert_int_equal(umt_sem_get(g->t, n, &s), 0);
			check_name(st, 1, umt_sem_mnemonic_name(s.mnemonic));
			check_name(st, 2, umt_sem_category_name(s.category));
			check_name(st, 3, umt_sem_zydis_category_name(s.zydis_category));
			if (s.flags & UMT_SEM_F_TARGET) {
				col_int(st, 4, (int64_t)s.target);
				targets++;
			} else {
				col_null(st, 4);
			}
		}
		assert_int_equal(n, umt_ins_count(g->t));
		assert_true(targets > 0);
		sqlite3_finalize(st);
		sqlite3_close(db);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records),   cmocka_unit_test(test_numbered_tables),
		cmocka_unit_test(test_counts),    cmocka_unit_test(test_joins),
		cmocka_unit_test(test_operands),  cmocka_unit_test(test_accesses),
		cmocka_unit_test(test_mem),       cmocka_unit_test(test_sem),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
