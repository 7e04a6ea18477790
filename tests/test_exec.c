/*
 * exec.c: record views, typed accessors, register contexts, iterators in
 * record and thread order; every access-time check.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "check.h"
#include "fixture.h"
#include "internal.h"
#include "std_trace.h"

static void expect_get_error(umt_trace *tr, uint64_t id, int code, const char *file)
{
	umt_rec r;
	int rc = umt_exec_get(tr, id, &r);
	if (rc != code)
		print_error("record %llu: expected %d, got %d: %s\n", (unsigned long long)id, code,
		            rc, umt_errmsg());
	assert_int_equal(rc, code);
	assert_non_null(strstr(umt_errmsg(), file));
}

/* ---- the hand-made trace ---- */

static void test_handmade_records(void **state)
{
	(void)state;
	struct fx_trace t;
	fx_handmade(&t);
	umt_trace *tr = fx_must_open(&t);
	for (uint64_t id = 0; id < FX_HM_RECORDS; id++) {
		umt_rec r;
		assert_int_equal(umt_exec_get(tr, id, &r), 0);
		assert_int_equal(r.id, id);
		assert_int_equal(r.offset, fx_hm_offsets[id]);
		assert_int_equal(r.size, fx_hm_offsets[id + 1] - fx_hm_offsets[id]);
		assert_ptr_equal(r.data, t.data[UMT_FILE_EXEC_VTABLE] + fx_hm_offsets[id]);
		assert_int_equal(r.type, fx_hm_types[id]);
		assert_int_equal(r.thread_id, fx_hm_threads[id]);
		assert_int_equal(r.flags, id == 4 ? 0x05 : 0x01);
		assert_int_equal(umt_rec_is_64bit(&r), 1);
		assert_int_equal(umt_rec_is_incomplete(&r), 0);
	}
	umt_rec r;
	assert_int_equal(umt_exec_get(tr, FX_HM_RECORDS, &r), UMT_E_RANGE);
	assert_int_equal(umt_exec_get(tr, UINT64_MAX, &r), UMT_E_RANGE);
	assert_int_equal(umt_exec_get(NULL, 0, &r), UMT_E_INVAL);
	assert_int_equal(umt_exec_get(tr, 0, NULL), UMT_E_INVAL);
	umt_trace_close(tr);
	fx_free(&t);
}

static void test_handmade_typed(void **state)
{
	(void)state;
	struct fx_trace t;
	fx_handmade(&t);
	umt_trace *tr = fx_must_open(&t);
	umt_rec r;
	int64_t ins_id = -5, sys;
	const uint8_t *lc = NULL;
	uint64_t lc_size;
	int32_t code;

	/* instruction records 1 and 4 */
	assert_int_equal(umt_exec_get(tr, 1, &r), 0);
	assert_int_equal(umt_rec_ins(&r, &ins_id, &lc, &lc_size), 0);
	assert_int_equal(ins_id, 0);
	assert_int_equal(lc_size, 8);
	for (int i = 0; i < 8; i++)
		assert_int_equal(lc[i], 0x10 + i);
	assert_int_equal(umt_exec_get(tr, 4, &r), 0);
	assert_int_equal(umt_rec_ins(&r, NULL, &lc, NULL), 0);
	assert_int_equal(lc[7], 0x27);
	assert_int_equal(r.flags & UMT_EXEC_F_NOT_EXECUTED, UMT_EXEC_F_NOT_EXECUTED);

	/* syscall IDs: entries 3 and 6, exit 5, skipped 7 */
	static const struct { uint64_t id; int64_t sys; } syscalls[] = {{3, 0}, {5, 0}, {6, 1}, {7, 1}};
	for (int i = 0; i < 4; i++) {
		assert_int_equal(umt_exec_get(tr, syscalls[i].id, &r), 0);
		assert_int_equal(umt_rec_syscall_id(&r, &sys), 0);
		assert_int_equal(sys, syscalls[i].sys);
	}
	/* exit codes */
	assert_int_equal(umt_exec_get(tr, 12, &r), 0);
	assert_int_equal(umt_rec_exit_code(&r, &code), 0);
	assert_int_equal(code, 0x1234);
	assert_int_equal(umt_exec_get(tr, 13, &r), 0);
	assert_int_equal(umt_rec_exit_code(&r, &code), 0);
	assert_int_equal(code, 7);

	/* accessors on the wrong type: UMT_E_INVAL naming the record */
	assert_int_equal(umt_exec_get(tr, 0, &r), 0);
	assert_int_equal(umt_rec_ins(&r, &ins_id, NULL, NULL), UMT_E_INVAL);
	assert_non_null(strstr(umt_errmsg(), "exec.vtable: record 0"));
	assert_int_equal(umt_rec_syscall_id(&r, &sys), UMT_E_INVAL);
	assert_int_equal(umt_rec_exit_code(&r, &code), UMT_E_INVAL);
	assert_int_equal(umt_exec_get(tr, 12, &r), 0);
	umt_context c;
	assert_int_equal(umt_rec_context(tr, &r, &c), UMT_E_INVAL);
	assert_int_equal(umt_exec_get(tr, 7, &r), 0);
	assert_int_equal(umt_rec_context(tr, &r, &c), UMT_E_INVAL);
	assert_int_equal(umt_rec_ins(NULL, NULL, NULL, NULL), UMT_E_INVAL);
	umt_trace_close(tr);
	fx_free(&t);
}

static void test_handmade_contexts(void **state)
{
	(void)state;
	struct fx_trace t;
	fx_handmade(&t);
	umt_trace *tr = fx_must_open(&t);
	for (uint64_t id = 0; id < FX_HM_RECORDS; id++) {
		umt_rec r;
		umt_context c;
		assert_int_equal(umt_exec_get(tr, id, &r), 0);
		if (!umt_rec_type_has_context(r.type))
			continue;
		assert_int_equal(umt_rec_context(tr, &r, &c), 0);
		uint64_t at = (r.type == 4 || r.type == 5) ? 14 : 6;
		assert_ptr_equal(c.base, r.data + at);
		assert_int_equal(c.offset, r.offset + at);
		assert_int_equal(c.record_id, id);
		assert_int_equal(c.regs_size, 16);
		assert_int_equal(c.is_64bit, 1);
		assert_int_equal(fx_get64(c.regs), 0x1111111111111100ull + id);
		assert_int_equal(fx_get64(c.regs + 8), 0x401000ull + id);
		assert_int_equal(c.mem_count, id == 0 ? 1 : 0);
		umt_mem_ref m;
		if (id == 0) {
			assert_int_equal(umt_context_mem_get(&c, 0, &m), 0);
			assert_int_equal(m.address, 0x7ffde000);
			assert_int_equal(m.size, 16);
			for (int i = 0; i < 16; i++)
				assert_int_equal(m.data[i], 0xa0 + i);
			/* the block is the last 16 bytes of the record */
			assert_ptr_equal(m.data + 16, r.data + r.size);
		}
		assert_int_equal(umt_context_mem_get(&c, c.mem_count, &m), UMT_E_RANGE);
	}
	umt_trace_close(tr);
	fx_free(&t);
}

/* ---- iterators ---- */

static void test_iter_ranges(void **state)
{
	(void)state;
	struct fx_trace t;
	fx_handmade(&t);
	umt_trace *tr = fx_must_open(&t);
	umt_exec_iter it;
	umt_rec r;
	/* whole table */
	assert_int_equal(umt_exec_iter_init(&it, tr, 0, UINT64_MAX), 0);
	uint64_t n = 0;
	int rc;
	while ((rc = umt_exec_iter_next(&it, &r)) == 1) {
		assert_int_equal(r.id, n);
		assert_int_equal(r.type, fx_hm_types[n]);
		n++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(n, FX_HM_RECORDS);
	assert_int_equal(umt_exec_iter_next(&it, &r), 0); /* stays at the end */
	/* split into three ranges for parallel use: together they cover it once */
	uint64_t cuts[4] = {0, 5, 9, FX_HM_RECORDS}, seen = 0;
	for (int k = 0; k < 3; k++) {
		assert_int_equal(umt_exec_iter_init(&it, tr, cuts[k], cuts[k + 1]), 0);
		while (umt_exec_iter_next(&it, &r) == 1) {
			assert_true(r.id >= cuts[k] && r.id < cuts[k + 1]);
			seen++;
		}
	}
	assert_int_equal(seen, FX_HM_RECORDS);
	/* empty and out-of-range */
	assert_int_equal(umt_exec_iter_init(&it, tr, FX_HM_RECORDS, FX_HM_RECORDS), 0);
	assert_int_equal(umt_exec_iter_next(&it, &r), 0);
	assert_int_equal(umt_exec_iter_init(&it, tr, 3, 2), 0);
	assert_int_equal(umt_exec_iter_next(&it, &r), 0);
	assert_int_equal(umt_exec_iter_init(&it, tr, FX_HM_RECORDS + 1, UINT64_MAX), UMT_E_RANGE);
	assert_int_equal(umt_exec_iter_init(NULL, tr, 0, 1), UMT_E_INVAL);
	umt_trace_close(tr);
	fx_free(&t);
}

static void walk_thread(umt_trace *tr, umt_thread_iter *it, const int64_t *want, int n)
{
	umt_rec r;
	int k = 0, rc;
	while ((rc = umt_thread_iter_next(it, &r)) == 1) {
		assert_true(k < n);
		assert_int_equal(r.id, want[k]);
		k++;
	}
	(void)tr;
	assert_int_equal(rc, 0);
	assert_int_equal(k, n);
}

static void test_thread_iter(void **state)
{
	(void)state;
	struct fx_trace t;
	fx_handmade(&t);
	umt_trace *tr = fx_must_open(&t);
	static const int64_t t0[] = {0, 1, 3, 5, 8, 9, 13}, t1[] = {2, 4, 6, 7, 10, 11, 12};
	static const int64_t t1_back[] = {12, 11, 10, 7, 6, 4, 2}, t0_mid[] = {5, 8, 9, 13};
	umt_thread_iter it;
	assert_int_equal(umt_thread_iter_init_thread(&it, tr, 0), 0);
	walk_thread(tr, &it, t0, 7);
	assert_int_equal(umt_thread_iter_init_thread(&it, tr, 1), 0);
	walk_thread(tr, &it, t1, 7);
	assert_int_equal(umt_thread_iter_init(&it, tr, 12, UMT_BACKWARD), 0);
	walk_thread(tr, &it, t1_back, 7);
	assert_int_equal(umt_thread_iter_init(&it, tr, 5, UMT_FORWARD), 0);
	walk_thread(tr, &it, t0_mid, 4);
	int64_t prev, next;
	assert_int_equal(umt_exec_links(tr, 4, &prev, &next), 0);
	assert_int_equal(prev, 2);
	assert_int_equal(next, 6);
	assert_int_equal(umt_exec_links(tr, 13, &prev, &next), 0);
	assert_int_equal(prev, 9);
	assert_int_equal(next, -1);
	assert_int_equal(umt_exec_links(tr, 14, &prev, &next), UMT_E_RANGE);
	assert_int_equal(umt_thread_iter_init(&it, tr, 14, UMT_FORWARD), UMT_E_RANGE);
	assert_int_equal(umt_thread_iter_init(&it, tr, 0, 0), UMT_E_INVAL);
	assert_int_equal(umt_thread_iter_init_thread(&it, tr, 2), UMT_E_RANGE);
	/* threads */
	assert_int_equal(umt_thread_count(tr), 2);
	const umt_thread_rec *row;
	assert_int_equal(umt_thread_get(tr, 1, &row), 0);
	assert_int_equal(row->ID, 1);
	assert_int_equal(row->WinTID, 0x200);
	assert_int_equal(row->TIBAddr, 0x7ffdd000);
	assert_int_equal(row->FirstEID, 2);
	assert_int_equal(row->LastEID, 12);
	assert_int_equal(row->RecCount, 7);
	assert_int_equal(umt_thread_get(tr, 2, &row), UMT_E_RANGE);
	umt_trace_close(tr);
	fx_free(&t);
}

/* Sets a link of the hand-made trace and checks the thread walk fails. */
static void expect_chain_error(int64_t id, int next_field, int64_t value, uint64_t start,
                               int direction, int code, int records_before)
{
	struct fx_trace t;
	fx_handmade(&t);
	fx_put64(t.data[UMT_FILE_EXEC_PREV_NEXT] + 16 * id + (next_field ? 8 : 0), (uint64_t)value);
	umt_trace *tr = fx_must_open(&t);
	umt_thread_iter it;
	umt_rec r;
	assert_int_equal(umt_thread_iter_init(&it, tr, start, direction), 0);
	int n = 0, rc;
	while ((rc = umt_thread_iter_next(&it, &r)) == 1)
		n++;
	assert_int_equal(rc, code);
	assert_int_equal(n, records_before);
	assert_non_null(strstr(umt_errmsg(), "exec.prev_next.column"));
	assert_int_equal(umt_thread_iter_next(&it, &r), 0); /* ended */
	umt_trace_close(tr);
	fx_free(&t);
}

static void test_thread_chain_errors(void **state)
{
	(void)state;
	expect_chain_error(3, 1, 3, 0, UMT_FORWARD, UMT_E_CORRUPT, 3);   /* self-link */
	expect_chain_error(5, 1, 1, 0, UMT_FORWARD, UMT_E_CORRUPT, 4);   /* cycle backwards */
	expect_chain_error(5, 1, 99, 0, UMT_FORWARD, UMT_E_BOUNDS, 4);   /* out of the table */
	expect_chain_error(5, 1, -7, 0, UMT_FORWARD, UMT_E_BOUNDS, 4);
	expect_chain_error(5, 1, 6, 0, UMT_FORWARD, UMT_E_CORRUPT, 4);   /* other thread */
	expect_chain_error(9, 0, 9, 13, UMT_BACKWARD, UMT_E_CORRUPT, 2); /* Prev self-link */
	expect_chain_error(9, 0, 12, 13, UMT_BACKWARD, UMT_E_CORRUPT, 2);
	/* a thread row whose FirstEID is outside the table */
	struct fx_trace t;
	fx_handmade(&t);
	fx_put64(t.data[UMT_FILE_THREAD] + 32 + 16, 14);
	umt_trace *tr = fx_must_open(&t);
	umt_thread_iter it;
	assert_int_equal(umt_thread_iter_init_thread(&it, tr, 0), UMT_E_BOUNDS);
	assert_non_null(strstr(umt_errmsg(), "thread.itable: row 0"));
	/* FirstEID of a record of another thread */
	fx_put64(t.data[UMT_FILE_THREAD] + 32 + 16, 2);
	assert_int_equal(umt_thread_iter_init_thread(&it, tr, 0), 0);
	umt_rec r;
	assert_int_equal(umt_thread_iter_next(&it, &r), UMT_E_CORRUPT);
	/* a thread with no records */
	fx_put64(t.data[UMT_FILE_THREAD] + 32 + 16, (uint64_t)-1);
	assert_int_equal(umt_thread_iter_init_thread(&it, tr, 0), 0);
	assert_int_equal(umt_thread_iter_next(&it, &r), 0);
	umt_trace_close(tr);
	fx_free(&t);
}

/* ---- access-time checks of one record ---- */

static void test_bad_offsets(void **state)
{
	(void)state;
	struct fx_trace t;
	fx_handmade(&t);
	uint8_t *o = t.data[UMT_FILE_EXEC_OFFSETS];
	fx_put64(o + 8 * 3, 90);   /* record 2 ends before it starts; 3 starts inside 1 */
	fx_put64(o + 8 * 6, 600);  /* record 5 ends past the file; 6 starts past it */
	fx_put64(o + 8 * 9, 4);    /* record 8 ends inside the header */
	umt_trace *tr = fx_must_open(&t);
	expect_get_error(tr, 2, UMT_E_CORRUPT, "exec.offsets: record 2");
	expect_get_error(tr, 5, UMT_E_BOUNDS, "exec.vtable: record 5");
	expect_get_error(tr, 6, UMT_E_CORRUPT, "exec.offsets: record 6");
	expect_get_error(tr, 9, UMT_E_BOUNDS, "exec.offsets: record 9");
	expect_get_error(tr, 8, UMT_E_CORRUPT, "exec.offsets: record 8");
	umt_rec r;
	assert_int_equal(umt_exec_get(tr, 3, &r), 0); /* overlapping, still inside: accepted */
	assert_int_equal(r.offset, 90);
	/* the iterator reports a bad record, moves past it and goes on */
	umt_exec_iter it;
	assert_int_equal(umt_exec_iter_init(&it, tr, 0, UINT64_MAX), 0);
	int good = 0, bad = 0, rc;
	while ((rc = umt_exec_iter_next(&it, &r)) != 0) {
		if (rc == 1)
			good++;
		else
			bad++;
	}
	assert_int_equal(bad, 5);
	assert_int_equal(good, FX_HM_RECORDS - 5);
	umt_trace_close(tr);
	fx_free(&t);
}

static void test_short_records_and_types(void **state)
{
	(void)state;
	struct fx_trace t;
	fx_handmade(&t);
	uint8_t *v = t.data[UMT_FILE_EXEC_VTABLE], *o = t.data[UMT_FILE_EXEC_OFFSETS];
	/* record 1 (instruction) cut to 13 bytes; record 2 now starts earlier */
	fx_put64(o + 8 * 2, fx_hm_offsets[1] + 13);
	/* record 4 cut to 5 bytes */
	fx_put64(o + 8 * 5, fx_hm_offsets[4] + 5);
	/* unknown types */
	v[fx_hm_offsets[7] + 4] = 7;
	v[fx_hm_offsets[8] + 4] = 200;
	v[fx_hm_offsets[9] + 4] = 12;
	/* record 12 (thread end, 10 bytes) relabelled as a syscall entry (needs 30) */
	v[fx_hm_offsets[12] + 4] = 4;
	umt_trace *tr = fx_must_open(&t);
	expect_get_error(tr, 1, UMT_E_TRUNCATED, "exec.vtable: record 1");
	assert_non_null(strstr(umt_errmsg(), "instruction record of 13 bytes"));
	expect_get_error(tr, 4, UMT_E_TRUNCATED, "exec.vtable: record 4");
	assert_non_null(strstr(umt_errmsg(), "6-byte"));
	expect_get_error(tr, 7, UMT_E_TYPE, "exec.vtable: record 7");
	assert_non_null(strstr(umt_errmsg(), "unknown record type 7"));
	expect_get_error(tr, 8, UMT_E_TYPE, "exec.vtable: record 8");
	expect_get_error(tr, 9, UMT_E_TYPE, "exec.vtable: record 9");
	expect_get_error(tr, 12, UMT_E_TRUNCATED, "exec.vtable: record 12");
	umt_trace_close(tr);
	fx_free(&t);
}

/* Patches the rmContext of record @p id at @p field and expects @p code from the accessors. */
static void expect_context_error(uint64_t id, size_t field, uint64_t value, int width,
                                 int code, int at_mem)
{
	struct fx_trace t;
	fx_handmade(&t);
	uint64_t ctx = fx_hm_offsets[id] + ((fx_hm_types[id] == 4 || fx_hm_types[id] == 5) ? 14 : 6);
	uint8_t *p = t.data[UMT_FILE_EXEC_VTABLE] + ctx + field;
	if (width == 4)
		fx_put32(p, (uint32_t)value);
	else
		fx_put64(p, value);
	umt_trace *tr = fx_must_open(&t);
	umt_rec r;
	umt_context c;
	umt_mem_ref m;
	assert_int_equal(umt_exec_get(tr, id, &r), 0);
	int rc = umt_rec_context(tr, &r, &c);
	if (at_mem) {
		assert_int_equal(rc, 0);
		rc = umt_context_mem_get(&c, 0, &m);
	}
	if (rc != code)
		print_error("record %llu field %zu: expected %d, got %d: %s\n", (unsigned long long)id,
		            field, code, rc, umt_errmsg());
	assert_int_equal(rc, code);
	if (code != 0)
		assert_non_null(strstr(umt_errmsg(), "exec.vtable: record"));
	umt_trace_close(tr);
	fx_free(&t);
}

static void test_context_bounds(void **state)
{
	(void)state;
	/* RegsFP: past the record, negative, so that the dump overruns by one byte */
	expect_context_error(2, 8, 1000, 8, UMT_E_BOUNDS, 0);
	expect_context_error(2, 8, (uint64_t)-16, 8, UMT_E_BOUNDS, 0);
	expect_context_error(2, 8, 17, 8, UMT_E_BOUNDS, 0);      /* 32 bytes available */
	expect_context_error(3, 8, UINT64_MAX - 4, 8, UMT_E_BOUNDS, 0);
	/* MemCount: negative, too large for the record */
	expect_context_error(2, 0, 0xffffffff, 4, UMT_E_BOUNDS, 0);
	expect_context_error(2, 0, 1, 4, UMT_E_BOUNDS, 0);       /* 24 bytes > 16 left */
	expect_context_error(0, 0, 0x7fffffff, 4, UMT_E_BOUNDS, 0);
	/* contextMem of record 0: Size, DataFP */
	expect_context_error(0, 16 + 8, 17, 8, UMT_E_BOUNDS, 1);
	expect_context_error(0, 16 + 8, (uint64_t)-1, 8, UMT_E_BOUNDS, 1);
	expect_context_error(0, 16 + 16, 57, 8, UMT_E_BOUNDS, 1);
	expect_context_error(0, 16 + 16, (uint64_t)-56, 8, UMT_E_BOUNDS, 1);
	expect_context_error(0, 16 + 8, INT64_MAX, 8, UMT_E_BOUNDS, 1);
	/* in range: a RegsFP pointing at the last 16 bytes is fine */
	expect_context_error(2, 8, 16, 8, 0, 0);
}

/* ---- names ---- */

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(umt_rec_type_name(0), "instruction");
	assert_string_equal(umt_rec_type_name(6), "syscall-skipped");
	assert_string_equal(umt_rec_type_name(11), "ctx-unknown");
	assert_null(umt_rec_type_name(7));
	assert_null(umt_rec_type_name(12));
	assert_null(umt_rec_type_name(-1));
	for (int i = 0; i < UMT_REC_TYPE_LIMIT; i++)
		if (umt_rec_type_name(i))
			assert_int_equal(umt_rec_type_from_name(umt_rec_type_name(i)), i);
	assert_int_equal(umt_rec_type_from_name("nope"), -1);
	assert_int_equal(umt_rec_type_from_name(NULL), -1);
	assert_string_equal(umt_exec_flag_name(0, 0x01), "64bit");
	assert_string_equal(umt_exec_flag_name(1, 0x08), "rep-first");
	assert_string_equal(umt_exec_flag_name(0, 0x10), "exc-input");
	assert_string_equal(umt_exec_flag_name(1, 0x10), "bad-inputs");
	assert_string_equal(umt_exec_flag_name(0, 0x80), "internal-error");
	assert_string_equal(umt_exec_flag_name(1, 0x40), "fault");
	assert_null(umt_exec_flag_name(2, 0x10));
	assert_null(umt_exec_flag_name(1, 0x03));
	assert_null(umt_exec_flag_name(1, 0x100));
	assert_null(umt_exec_flag_name(1, 0));
	for (int ty = 0; ty < 13; ty++)
		assert_int_equal(umt_rec_type_has_context(ty),
		                 ty == 1 || ty == 4 || ty == 5 || (ty >= 8 && ty <= 11));
}

/* ---- the writer-built standard trace, read back through every accessor ---- */

static void check_std_record(umt_trace *tr, const umt_rec *r)
{
	uint64_t id = r->id;
	assert_int_equal(r->type, std_types[id]);
	assert_int_equal(r->thread_id, std_threads[id]);
	assert_int_equal(r->flags, std_flags(id));
	int64_t v;
	int32_t code;
	const uint8_t *lc;
	uint64_t n;
	umt_context c;
	switch (r->type) {
	case UMT_REC_INSTRUCTION:
		assert_int_equal(umt_rec_ins(r, &v, &lc, &n), 0);
		assert_int_equal(v, std_arg[id]);
		assert_int_equal(n, std_ins_lc_size[v]);
		for (uint64_t j = 0; j < n; j++)
			assert_int_equal(lc[j], std_lc_byte(id, j));
		return;
	case UMT_REC_THREAD_END:
	case UMT_REC_APP_END:
		assert_int_equal(umt_rec_exit_code(r, &code), 0);
		assert_int_equal(code, std_arg[id]);
		return;
	case UMT_REC_SYSCALL_SKIPPED:
		assert_int_equal(umt_rec_syscall_id(r, &v), 0);
		assert_int_equal(v, std_arg[id]);
		return;
	case UMT_REC_SYSCALL_ENTRY:
	case UMT_REC_SYSCALL_EXIT:
		assert_int_equal(umt_rec_syscall_id(r, &v), 0);
		assert_int_equal(v, std_arg[id]);
		break;
	default:
		break;
	}
	assert_int_equal(umt_rec_context(tr, r, &c), 0);
	assert_int_equal(c.regs_size, 512);
	for (uint64_t j = 0; j < 512; j++)
		assert_int_equal(c.regs[j], std_reg_byte(id, j));
	assert_int_equal(c.mem_count, r->type == UMT_REC_THREAD_BEGIN ? 1 : 0);
	if (c.mem_count) {
		umt_mem_ref m;
		assert_int_equal(umt_context_mem_get(&c, 0, &m), 0);
		assert_int_equal(m.address, std_tib[r->thread_id]);
		assert_int_equal(m.size, STD_TIB_SIZE);
		for (uint64_t j = 0; j < STD_TIB_SIZE; j++)
			assert_int_equal(m.data[j], std_tib_byte(id, j));
	}
}

static void check_std_trace(int flavour)
{
	char *dir = fx_tmpdir();
	assert_int_equal(fx_write_standard(dir, flavour), 0);
	umt_trace *tr;
	assert_int_equal(umt_trace_open(dir, 0, &tr), 0);
	assert_int_equal(umt_exec_count(tr), STD_RECORDS);
	umt_exec_iter it;
	umt_rec r;
	assert_int_equal(umt_exec_iter_init(&it, tr, 0, UINT64_MAX), 0);
	uint64_t n = 0;
	while (umt_exec_iter_next(&it, &r) == 1) {
		assert_int_equal(r.id, n++);
		check_std_record(tr, &r);
	}
	assert_int_equal(n, STD_RECORDS);
	/* every thread's chain visits exactly its records, in order, both ways */
	for (int th = 0; th < STD_THREADS; th++) {
		const umt_thread_rec *row;
		assert_int_equal(umt_thread_get(tr, (uint64_t)th, &row), 0);
		int64_t ids[STD_RECORDS], k = 0;
		for (int64_t id = 0; id < STD_RECORDS; id++)
			if (std_threads[id] == th)
				ids[k++] = id;
		assert_int_equal(row->WinTID, std_win_tid[th]);
		assert_int_equal(row->TIBAddr, std_tib[th]);
		assert_int_equal(row->FirstEID, ids[0]);
		assert_int_equal(row->LastEID, ids[k - 1]); /* all three threads end */
		assert_int_equal(row->RecCount, k);
		umt_thread_iter ti;
		assert_int_equal(umt_thread_iter_init_thread(&ti, tr, (uint64_t)th), 0);
		int64_t i = 0;
		while (umt_thread_iter_next(&ti, &r) == 1)
			assert_int_equal(r.id, ids[i++]);
		assert_int_equal(i, k);
		assert_int_equal(umt_thread_iter_init(&ti, tr, (uint64_t)ids[k - 1], UMT_BACKWARD), 0);
		while (umt_thread_iter_next(&ti, &r) == 1)
			assert_int_equal(r.id, ids[--i]);
		assert_int_equal(i, 0);
	}
	umt_trace_info info;
	umt_trace_get_info(tr, &info);
	assert_int_equal(info.exec_version, flavour == UMT_FLAVOUR_2015 ? 1 : 0);
	umt_trace_close(tr);
	fx_rmtree(dir);
	free(dir);
}

static void test_std_2015(void **state)
{
	(void)state;
	check_std_trace(UMT_FLAVOUR_2015);
}

static void test_std_2014(void **state)
{
	(void)state;
	check_std_trace(UMT_FLAVOUR_2014);
}

/* ---- parallel ranges, batched lookups, access hints ---- */

/* Expected bounds by brute force: the first record at or after k/n of the bytes. */
static void expect_split(umt_trace *tr, const uint64_t *off, uint64_t count, unsigned n)
{
	uint64_t bounds[130];
	assert_true(n < 129);
	assert_int_equal(umt_exec_split(tr, n, bounds), 0);
	assert_int_equal(bounds[0], 0);
	assert_int_equal(bounds[n], count);
	uint64_t bytes = off[count] - off[0]; /* small: no overflow below */
	for (unsigned k = 1; k < n; k++) {
		uint64_t target = off[0] + bytes * k / n, want = 0;
		while (want < count && off[want] < target)
			want++;
		assert_int_equal(bounds[k], want);
		assert_true(bounds[k] >= bounds[k - 1]);
	}
}

static void test_split(void **state)
{
	(void)state;
	struct fx_trace t;
	fx_handmade(&t);
	umt_trace *tr = fx_must_open(&t);
	for (unsigned n = 1; n <= 20; n++)
		expect_split(tr, fx_hm_offsets, FX_HM_RECORDS, n);
	uint64_t b[4];
	assert_int_equal(umt_exec_split(tr, 3, b), 0);
	assert_int_equal(b[1], 4); /* 1/3 of 484 bytes: offset 177; record 4 starts at 200 */
	assert_int_equal(umt_exec_split(tr, 0, b), UMT_E_INVAL);
	assert_int_equal(umt_exec_split(NULL, 3, b), UMT_E_INVAL);
	assert_int_equal(umt_exec_split(tr, 3, NULL), UMT_E_INVAL);
	umt_trace_close(tr);
	/* corrupt, decreasing offsets: ranges stay ordered and cover every record once */
	fx_put64(t.data[UMT_FILE_EXEC_OFFSETS] + 8 * 7, 20);
	fx_put64(t.data[UMT_FILE_EXEC_OFFSETS] + 8 * 3, 490);
	tr = fx_must_open(&t);
	uint64_t c[9];
	assert_int_equal(umt_exec_split(tr, 8, c), 0);
	assert_int_equal(c[0], 0);
	assert_int_equal(c[8], FX_HM_RECORDS);
	for (int k = 1; k <= 8; k++)
		assert_true(c[k] >= c[k - 1]);
	umt_trace_close(tr);
	fx_free(&t);
}

static void test_get_batch(void **state)
{
	(void)state;
	struct fx_trace t;
	fx_handmade(&t);
	fx_put64(t.data[UMT_FILE_EXEC_OFFSETS] + 8 * 6, 600); /* records 5 and 6 bad */
	umt_trace *tr = fx_must_open(&t);
	uint64_t ids[60];
	umt_rec got[60];
	for (int i = 0; i < 60; i++)
		ids[i] = (uint64_t)(i * 7919) % 17; /* 14..16 are out of range */
	int rc = umt_exec_get_batch(tr, ids, 60, got);
	int first = 0;
	for (int i = 0; i < 60; i++) {
		umt_rec want;
		int w = umt_exec_get(tr, ids[i], &want);
		if (w < 0) {
			if (first == 0)
				first = w;
			assert_null(got[i].data);
			continue;
		}
		assert_ptr_equal(got[i].data, want.data);
		assert_int_equal(got[i].id, want.id);
		assert_int_equal(got[i].size, want.size);
		assert_int_equal(got[i].type, want.type);
		assert_int_equal(got[i].thread_id, want.thread_id);
	}
	assert_int_not_equal(first, 0);
	assert_int_equal(rc, first);
	/* all good: 0 */
	uint64_t good[3] = {13, 0, 7};
	assert_int_equal(umt_exec_get_batch(tr, good, 3, got), 0);
	assert_int_equal(got[0].type, UMT_REC_APP_END);
	assert_int_equal(got[2].type, UMT_REC_SYSCALL_SKIPPED);
	assert_int_equal(umt_exec_get_batch(tr, good, 0, NULL), 0);
	assert_int_equal(umt_exec_get_batch(tr, NULL, 3, got), UMT_E_INVAL);
	umt_trace_close(tr);
	fx_free(&t);
}

static void test_advise(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	assert_int_equal(fx_write_standard(dir, UMT_FLAVOUR_2015), 0);
	static const unsigned flags[] = {0, UMT_OPEN_SEQUENTIAL, UMT_OPEN_RANDOM};
	for (int f = 0; f < 3; f++) {
		umt_trace *tr;
		assert_int_equal(umt_trace_open(dir, flags[f], &tr), 0);
		for (int a = UMT_ADVISE_NORMAL; a <= UMT_ADVISE_DONTNEED; a++) {
			assert_int_equal(umt_exec_advise(tr, 0, STD_RECORDS, a), 0);
			assert_int_equal(umt_exec_advise(tr, 5, 9, a), 0);
			for (int file = 0; file < UMT_FILE_COUNT; file++)
				assert_int_equal(umt_trace_advise(tr, file, a), 0);
		}
		/* after DONTNEED the data reads back the same (the page cache keeps it) */
		umt_rec r;
		assert_int_equal(umt_exec_get(tr, 39, &r), 0);
		assert_int_equal(r.type, UMT_REC_APP_END);
		int64_t p, n;
		assert_int_equal(umt_exec_links(tr, 39, &p, &n), 0); /* maps prev/next */
		assert_int_equal(umt_exec_advise(tr, 0, STD_RECORDS, UMT_ADVISE_RANDOM), 0);
		umt_exec_iter it;
		assert_int_equal(umt_exec_iter_init(&it, tr, 3, 30), 0);
		assert_int_equal(umt_exec_iter_advise(&it, UMT_ADVISE_SEQUENTIAL), 0);
		assert_int_equal(umt_exec_advise(tr, 0, STD_RECORDS + 1, 0), UMT_E_RANGE);
		assert_int_equal(umt_exec_advise(tr, 9, 5, 0), UMT_E_RANGE);
		assert_int_equal(umt_exec_advise(tr, 0, 1, 5), UMT_E_INVAL);
		assert_int_equal(umt_exec_advise(tr, 0, 1, -1), UMT_E_INVAL);
		assert_int_equal(umt_trace_advise(tr, UMT_FILE_COUNT, 0), UMT_E_INVAL);
		assert_int_equal(umt_exec_advise(NULL, 0, 1, 0), UMT_E_INVAL);
		umt_trace_close(tr);
	}
	/* from memory: hints are accepted and do nothing */
	struct fx_trace t;
	fx_handmade(&t);
	umt_trace *tr;
	fx_sync(&t);
	assert_int_equal(umt_trace_open_mem(t.buf, UMT_OPEN_RANDOM, &tr), 0);
	assert_int_equal(umt_exec_advise(tr, 0, FX_HM_RECORDS, UMT_ADVISE_WILLNEED), 0);
	umt_trace_close(tr);
	fx_free(&t);
	fx_rmtree(dir);
	free(dir);
}

/* ---- inline lookups through a view ---- */

static void test_view(void **state)
{
	(void)state;
	struct fx_trace t;
	fx_handmade(&t);
	uint8_t *o = t.data[UMT_FILE_EXEC_OFFSETS], *v = t.data[UMT_FILE_EXEC_VTABLE];
	fx_put64(o + 8 * 3, 90);    /* bad extents around records 2 and 3 */
	fx_put64(o + 8 * 6, 600);
	fx_put64(o + 8 * 9, 4);
	v[fx_hm_offsets[12] + 4] = 7;  /* unknown type */
	fx_put64(o + 8 * 11, fx_hm_offsets[10] + 21); /* record 10 one byte short of its type */
	umt_trace *tr = fx_must_open(&t);
	umt_exec_view view;
	assert_int_equal(umt_exec_view_init(&view, tr), 0);
	assert_int_equal(view.count, FX_HM_RECORDS);
	for (uint64_t id = 0; id < FX_HM_RECORDS + 3; id++) {
		umt_rec a, b;
		int want = umt_exec_get(tr, id, &a);
		char msg[512];
		snprintf(msg, sizeof msg, "%s", umt_errmsg());
		int got = umt_exec_view_get(&view, id, &b);
		assert_int_equal(got, want);
		if (want < 0) {
			assert_string_equal(umt_errmsg(), msg);
			continue;
		}
		assert_ptr_equal(b.data, a.data);
		assert_int_equal(b.size, a.size);
		assert_int_equal(b.id, a.id);
		assert_int_equal(b.offset, a.offset);
		assert_int_equal(b.thread_id, a.thread_id);
		assert_int_equal(b.type, a.type);
		assert_int_equal(b.flags, a.flags);
	}
	assert_int_equal(umt_exec_view_init(NULL, tr), UMT_E_INVAL);
	assert_int_equal(umt_exec_view_init(&view, NULL), UMT_E_INVAL);
	umt_trace_close(tr);
	fx_free(&t);
}

/* ---- block iteration ---- */

/* Walks [begin, end) in blocks of at most @p max; returns good and bad counts. */
static void walk_blocks(umt_trace *tr, uint64_t begin, uint64_t end, uint32_t max, int *good,
                        int *bad)
{
	umt_exec_iter it;
	umt_exec_block b;
	assert_int_equal(umt_exec_iter_init(&it, tr, begin, end), 0);
	*good = *bad = 0;
	uint64_t expect = begin;
	int n;
	while ((n = umt_exec_iter_next_block(&it, &b, max)) != 0) {
		if (n < 0) {
			(*bad)++;
			expect++;
			continue;
		}
		assert_true((uint32_t)n <= max);
		assert_int_equal(b.first, expect);
		for (int i = 0; i < n; i++) {
			umt_rec want, got;
			assert_int_equal(umt_exec_get(tr, b.first + (uint64_t)i, &want), 0);
			umt_block_rec(&b, (uint32_t)i, &got);
			assert_ptr_equal(got.data, want.data);
			assert_int_equal(got.size, want.size);
			assert_int_equal(got.id, want.id);
			assert_int_equal(got.offset, want.offset);
			assert_int_equal(got.thread_id, want.thread_id);
			assert_int_equal(got.type, want.type);
			assert_int_equal(got.flags, want.flags);
			assert_ptr_equal(umt_block_data(&b, (uint32_t)i), want.data);
			assert_int_equal(umt_block_size(&b, (uint32_t)i), want.size);
		}
		*good += n;
		expect += (uint64_t)n;
	}
	assert_int_equal(expect, end);
}

static void test_blocks(void **state)
{
	(void)state;
	struct fx_trace t;
	fx_handmade(&t);
	umt_trace *tr = fx_must_open(&t);
	int good, bad;
	for (uint32_t max = 1; max <= 20; max++) {
		walk_blocks(tr, 0, FX_HM_RECORDS, max, &good, &bad);
		assert_int_equal(good, FX_HM_RECORDS);
		assert_int_equal(bad, 0);
	}
	walk_blocks(tr, 3, 9, 4, &good, &bad);
	assert_int_equal(good, 6);
	umt_exec_iter it;
	umt_exec_block b;
	umt_exec_iter_init(&it, tr, 0, UINT64_MAX);
	assert_int_equal(umt_exec_iter_next_block(&it, &b, 0), UMT_E_INVAL);
	assert_int_equal(umt_exec_iter_next_block(NULL, &b, 4), UMT_E_INVAL);
	assert_int_equal(umt_exec_iter_next_block(&it, NULL, 4), UMT_E_INVAL);
	umt_trace_close(tr);
	/* bad records end a block; the next call reports them, as the record iterator does */
	uint8_t *o = t.data[UMT_FILE_EXEC_OFFSETS], *v = t.data[UMT_FILE_EXEC_VTABLE];
	fx_put64(o + 8 * 3, 90);
	fx_put64(o + 8 * 6, 600);
	fx_put64(o + 8 * 9, 4);
	v[fx_hm_offsets[12] + 4] = 7;
	tr = fx_must_open(&t);
	walk_blocks(tr, 0, FX_HM_RECORDS, 64, &good, &bad);
	assert_int_equal(bad, 6);
	assert_int_equal(good, FX_HM_RECORDS - 6);
	umt_exec_iter_init(&it, tr, 12, 13);
	assert_int_equal(umt_exec_iter_next_block(&it, &b, 8), UMT_E_TYPE);
	assert_non_null(strstr(umt_errmsg(), "exec.vtable: record 12"));
	assert_int_equal(umt_exec_iter_next_block(&it, &b, 8), 0);
	umt_trace_close(tr);
	fx_free(&t);
}

/* Whole chunks of 4096 good records are remembered; runs stop at chunk ends. */
static void test_block_chunks(void **state)
{
	(void)state;
	enum { N = 10000 };
	char *dir = fx_tmpdir();
	umt_writer *w;
	assert_int_equal(umt_writer_open(dir, NULL, &w), 0);
	assert_int_equal(umt_writer_add_thread(w, 1, 0, NULL), 0);
	for (int i = 0; i < N; i++) {
		umt_exec_desc d = {.type = UMT_REC_THREAD_END, .exit_code = i};
		assert_int_equal(umt_writer_add_exec(w, &d, NULL), 0);
	}
	assert_int_equal(umt_writer_finish(w), 0);
	umt_trace *tr;
	assert_int_equal(umt_trace_open(dir, 0, &tr), 0);
	umt_exec_iter it;
	umt_exec_block b;
	/* an unaligned range: the first run ends at the chunk boundary */
	umt_exec_iter_init(&it, tr, 100, 5000);
	assert_int_equal(umt_exec_iter_next_block(&it, &b, 8192), 4096 - 100);
	assert_int_equal(umt_exec_iter_next_block(&it, &b, 8192), 5000 - 4096);
	assert_int_equal(umt_exec_iter_next_block(&it, &b, 8192), 0);
	const uint8_t *map = atomic_load(&tr->lazy->slot[UMT_LAZY_EXEC_CHECKED].value);
	assert_non_null(map);
	assert_int_equal(map[0] | map[1] | map[2], 0); /* no whole chunk was checked */
	int good, bad;
	walk_blocks(tr, 0, N, 4096, &good, &bad);
	assert_int_equal(good, N);
	/* chunks 0 and 1; chunk 2 holds only 1808 records */
	assert_int_equal(map[0], 1);
	assert_int_equal(map[1], 1);
	assert_int_equal(map[2], 0);
	walk_blocks(tr, 0, N, 4096, &good, &bad); /* the remembered chunks read the same */
	assert_int_equal(good, N);
	umt_trace_close(tr);
	fx_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handmade_records),
		cmocka_unit_test(test_handmade_typed),
		cmocka_unit_test(test_handmade_contexts),
		cmocka_unit_test(test_iter_ranges),
		cmocka_unit_test(test_thread_iter),
		cmocka_unit_test(test_thread_chain_errors),
		cmocka_unit_test(test_bad_offsets),
		cmocka_unit_test(test_short_records_and_types),
		cmocka_unit_test(test_context_bounds),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_std_2015),
		cmocka_unit_test(test_std_2014),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_get_batch),
		cmocka_unit_test(test_advise),
		cmocka_unit_test(test_view),
		cmocka_unit_test(test_blocks),
		cmocka_unit_test(test_block_chunks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
