/*
 * state(at [, thread]) against the C API and umtgen's ground truth, on
 * generated traces (2015 flavour, 64-bit, 3 threads; 2014 flavour of 32-bit
 * code, 2 threads):
 *   - every row at random records, of their own thread and of others, is
 *     the whole register umt_state_at() + umt_state_reg() give, in the
 *     context map's order, with its name, size, value, bytes, known bytes
 *     and source;
 *   - every register state() knows whole at a "regs" line of the truth
 *     holds the true value (as tests/test_state.c checks umt_state_at);
 *   - bad arguments and a missing index are errors that say so.
 */
#include <ctype.h>
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

static struct genpair pair;

static int setup(void **state)
{
	return gen_pair(state, &pair, 20000, 17, 6000, 19);
}

/* One row of state() against register @p reg of @p s. */
static void check_row(sqlite3_stmt *st, const umt_trace *t, const umt_state *s, int reg,
                      const umt_reg_value *v)
{
	char name[UMT_REG_NAME_MAX];
	umt_reg_name(t, reg, name, sizeof name);
	for (char *p = name; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	assert_int_equal(sqlite3_column_int(st, 0), reg);
	assert_string_equal((const char *)sqlite3_column_text(st, 1), name);
	assert_int_equal(sqlite3_column_int(st, 2), v->size);
	if (v->size <= 8 && v->known_bytes == v->size) {
		uint64_t x = 0;
		memcpy(&x, v->data, v->size); /* little-endian host, as the dump */
		assert_int_equal(sqlite3_column_type(st, 3), SQLITE_INTEGER);
		assert_int_equal((uint64_t)sqlite3_column_int64(st, 3), x);
	} else {
		assert_int_equal(sqlite3_column_type(st, 3), SQLITE_NULL);
	}
	assert_int_equal(sqlite3_column_bytes(st, 4), v->size);
	assert_memory_equal(sqlite3_column_blob(st, 4), v->data, v->size);
	assert_int_equal(sqlite3_column_int(st, 5), v->known_bytes);
	if (v->source == UMT_NO_RECORD)
		assert_int_equal(sqlite3_column_type(st, 6), SQLITE_NULL);
	else
		assert_int_equal((uint64_t)sqlite3_column_int64(st, 6), v->source);
	assert_int_equal((uint64_t)sqlite3_column_int64(st, 7), s->at);
	assert_int_equal((uint64_t)sqlite3_column_int64(st, 8), s->thread);
}

/* Every row of state(at [, thread]) against umt_state_at(); @return the rows. */
static int check_state(sqlite3 *db, const struct gentrace *g, umt_state *s, uint64_t at,
                       int64_t thread)
{
	assert_int_equal(umt_state_at(g->ix, at, thread, s), 0);
	sqlite3_stmt *st = thread < 0
		? db_prepare(db, "SELECT reg, name, size, value, bytes, known, source, at, thread "
		                 "FROM state(%llu)", (unsigned long long)at)
		: db_prepare(db, "SELECT reg, name, size, value, bytes, known, source, at, thread "
		                 "FROM state(%llu, %lld)", (unsigned long long)at, (long long)thread);
	int rows = 0;
	for (int reg = 0; reg < umt_context_map_get(g->t)->ElemCount; reg++) {
		umt_reg_value v;
		if (umt_state_reg(s, reg, &v) != 0 || v.largest != reg)
			continue;
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		check_row(st, g->t, s, reg, &v);
		rows++;
	}
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	return rows;
}

static void test_state_api(void **state)
{
	(void)state;
	const struct gentrace *gs[] = {&pair.g64, &pair.g32};
	for (int k = 0; k < 2; k++) {
		const struct gentrace *g = gs[k];
		sqlite3 *db = db_open(g);
		umt_state s;
		assert_int_equal(umt_state_init(g->ix, &s), 0);
		srand(23);
		int rows = 0;
		for (int i = 0; i < 60; i++) {
			uint64_t at = (uint64_t)rand() % umt_exec_count(g->t);
			int64_t thread = i % 3 ? -1 : (int64_t)((uint64_t)rand() % umt_thread_count(g->t));
			rows += check_state(db, g, &s, at, thread);
		}
		rows += check_state(db, g, &s, 0, -1) + check_state(db, g, &s, umt_exec_count(g->t) - 1, 0);
		assert_true(rows > 60 * 8); /* whole registers: the general ones at least */
		/* A join: the registers at each of a few records, with the record's own thread. */
		assert_int_equal(db_int(db, "SELECT count(DISTINCT r.id) FROM records r, state(r.id) s "
		                            "WHERE r.id BETWEEN 100 AND 104 AND s.thread = r.thread_id"),
		                 5);
		umt_state_release(&s);
		sqlite3_close(db);
	}
}

/* The registers state() knows whole at one "regs" line of the truth; @return those compared. */
static unsigned truth_line(sqlite3 *db, const struct gentrace *g, const struct jv *v)
{
	uint64_t id, thread;
	const struct jv *regs = json_get(v, "regs");
	assert_int_equal(json_u64(v, "id", &id), 0);
	assert_int_equal(json_u64(v, "thread_id", &thread), 0);
	umt_rec rec;
	assert_int_equal(umt_exec_get(g->t, id, &rec), 0);
	/* A dump that is the state after its record, and rip: see tests/test_state.c. */
	if (rec.type == UMT_REC_SYSCALL_EXIT || rec.type >= UMT_REC_CTX_APC)
		return 0;
	unsigned compared = 0;
	for (int i = 0; i < regs->n; i++) {
		const char *name = regs->keys[i], *text = regs->items[i].text;
		if (!strcmp(name, "rip") || !strcmp(name, "eip"))
			continue;
		sqlite3_stmt *st = db_prepare(db, "SELECT bytes FROM state(%llu, %llu) WHERE name = '%s' "
		                                  "AND known = size", (unsigned long long)id,
		                              (unsigned long long)thread, name);
		if (sqlite3_step(st) == SQLITE_ROW) {
			uint8_t want[64] = {0};
			int n = sqlite3_column_bytes(st, 0);
			if (strncmp(text, "0x", 2) == 0) {
				uint64_t x = strtoull(text, NULL, 16);
				memcpy(want, &x, 8);
			} else {
				assert_int_equal(json_hex(text, want, sizeof want), n);
			}
			assert_true(n > 0 && n <= 64);
			assert_memory_equal(sqlite3_column_blob(st, 0), want, (size_t)n);
			compared++;
		}
		sqlite3_finalize(st);
	}
	return compared;
}

static void test_state_truth(void **state)
{
	(void)state;
	sqlite3 *db = db_open(&pair.g64);
	FILE *f = fopen(pair.g64.truth, "r");
	assert_non_null(f);
	char *line = NULL;
	size_t cap = 0;
	unsigned lines = 0, compared = 0;
	while (getline(&line, &cap, f) > 0 && lines < 200) {
		struct jv v;
		if (strstr(line, "\"kind\":\"regs\"") == NULL || json_parse(line, &v) < 0)
			continue;
		compared += truth_line(db, &pair.g64, &v), lines++;
		json_free(&v);
	}
	free(line);
	fclose(f);
	print_message("truth: %u register files, %u registers compared\n", lines, compared);
	assert_true(lines > 0 && compared > lines);
	sqlite3_close(db);
}

static void test_state_errors(void **state)
{
	(void)state;
	sqlite3 *db = db_open(&pair.g64);
	unsigned long long n = umt_exec_count(pair.g64.t);
	db_fails(db, false, "state: at -1: no such record", "SELECT * FROM state(-1)");
	db_fails(db, false, "no such record (20000 records)", "SELECT * FROM state(%llu)", n);
	db_fails(db, false, "state: thread 3: no such thread (3 threads)", "SELECT * FROM state(5, 3)");
	db_fails(db, false, "state: thread -2: no such thread", "SELECT * FROM state(5, -2)");
	db_fails(db, false, "the arguments must be integers", "SELECT * FROM state('x')");
	db_fails(db, false, "the arguments must be integers", "SELECT * FROM state(NULL)");
	db_fails(db, false, "state(at [, thread]): the record is needed", "SELECT * FROM state");
	db_exec(db, "SELECT umtrace_open('%s', 'index=%s/no-such-index')", pair.g64.dir, pair.base);
	db_fails(db, false, "build the index first", "SELECT * FROM state(5)");
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_state_api),
		cmocka_unit_test(test_state_truth),
		cmocka_unit_test(test_state_errors),
	};
	return cmocka_run_group_tests(tests, setup, gen_pair_teardown);
}
