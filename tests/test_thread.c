/*
 * thread.c: thread rows with RowSize 40 (real traces) and 48 (the spec),
 * every field, and the lookup by Windows thread ID.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "check.h"
#include "fixture.h"
#include "std_trace.h"

static void test_handmade(void **state)
{
	(void)state;
	struct fx_trace t;
	fx_handmade(&t);
	umt_trace *tr = NULL;
	assert_int_equal(fx_open(&t, &tr), 0);
	umt_trace_info info;
	assert_int_equal(umt_trace_get_info(tr, &info), 0);
	assert_int_equal(info.thread_count, 2);
	assert_int_equal(info.thread_row_size, 40);
	assert_int_equal(umt_thread_count(tr), 2);
	assert_int_equal(umt_thread_count(NULL), 0);

	static const int64_t first[2] = {0, 2}, last[2] = {13, 12};
	for (uint64_t i = 0; i < 2; i++) {
		const umt_thread_rec *r;
		assert_int_equal(umt_thread_get(tr, i, &r), 0);
		assert_ptr_equal(r, t.data[UMT_FILE_THREAD] + 32 + 40 * i);
		assert_int_equal(r->ID, i);
		assert_int_equal(r->WinTID, 0x100 * (i + 1));
		assert_int_equal(r->TIBAddr, 0x7ffde000 - 0x1000 * i);
		assert_int_equal(r->FirstEID, first[i]);
		assert_int_equal(r->LastEID, last[i]);
		assert_int_equal(r->RecCount, 7);
		uint64_t id = 99;
		assert_int_equal(umt_thread_find_win_tid(tr, (int32_t)(0x100 * (i + 1)), &id), 0);
		assert_int_equal(id, i);
	}
	/* Misses and misuse. */
	uint64_t id = 99;
	fx_expect_error(umt_thread_find_win_tid(tr, 0x300, &id), UMT_E_NOT_FOUND, "thread.itable",
	             "WinTID 768");
	assert_int_equal(id, 99);
	fx_expect_error(umt_thread_find_win_tid(tr, 0, &id), UMT_E_NOT_FOUND, "thread.itable", NULL);
	fx_expect_error(umt_thread_find_win_tid(tr, -0x100, &id), UMT_E_NOT_FOUND, "thread.itable",
	             NULL);
	assert_int_equal(umt_thread_find_win_tid(NULL, 0x100, &id), UMT_E_INVAL);
	assert_int_equal(umt_thread_find_win_tid(tr, 0x100, NULL), UMT_E_INVAL);
	const umt_thread_rec *r;
	fx_expect_error(umt_thread_get(tr, 2, &r), UMT_E_RANGE, "thread 2", "out of range");
	assert_int_equal(umt_thread_get(tr, UINT64_MAX, &r), UMT_E_RANGE);
	assert_int_equal(umt_thread_get(NULL, 0, &r), UMT_E_INVAL);
	assert_int_equal(umt_thread_get(tr, 0, NULL), UMT_E_INVAL);
	umt_trace_close(tr);
	fx_free(&t);
}

/* Expected rows of the standard trace, from its record table. */
static void check_std(umt_trace *tr, uint64_t row_size)
{
	umt_trace_info info;
	assert_int_equal(umt_trace_get_info(tr, &info), 0);
	assert_int_equal(info.thread_row_size, row_size);
	assert_int_equal(umt_thread_count(tr), STD_THREADS);
	const umt_thread_rec *r0;
	assert_int_equal(umt_thread_get(tr, 0, &r0), 0);
	for (int i = 0; i < STD_THREADS; i++) {
		int64_t first = -1, last = -1, count = 0;
		for (int id = 0; id < STD_RECORDS; id++) {
			if (std_threads[id] != i)
				continue;
			if (first < 0)
				first = id;
			last = id;
			count++;
		}
		uint8_t last_type = std_types[last];
		if (last_type != UMT_REC_THREAD_END && last_type != UMT_REC_APP_END)
			last = -1;
		const umt_thread_rec *r;
		assert_int_equal(umt_thread_get(tr, (uint64_t)i, &r), 0);
		assert_int_equal((const uint8_t *)r - (const uint8_t *)r0, row_size * (uint64_t)i);
		assert_int_equal(r->ID, i);
		assert_int_equal(r->WinTID, std_win_tid[i]);
		assert_int_equal(r->TIBAddr, std_tib[i]);
		assert_int_equal(r->FirstEID, first);
		assert_int_equal(r->LastEID, last);
		assert_int_equal(r->RecCount, count);
		uint64_t id = 99;
		assert_int_equal(umt_thread_find_win_tid(tr, std_win_tid[i], &id), 0);
		assert_int_equal(id, i);
	}
	/* All three threads end with a thread-end or app-end record. */
	assert_int_equal(r0->LastEID, 39);
	uint64_t id;
	fx_expect_error(umt_thread_find_win_tid(tr, 0x40, &id), UMT_E_NOT_FOUND, "thread.itable",
	             NULL);
}

static void test_std(void **state)
{
	(void)state;
	for (uint32_t row = 40; row <= 48; row += 8) {
		char *dir = fx_tmpdir();
		umt_writer_options o;
		umt_writer_options_init(&o, UMT_FLAVOUR_2015);
		o.thread_row_size = row;
		umt_writer *w;
		assert_int_equal(umt_writer_open(dir, &o, &w), 0);
		assert_int_equal(std_write(w), 0);
		assert_int_equal(umt_writer_finish(w), 0);
		umt_trace *tr = fx_must_open_dir(dir);
		check_std(tr, row);
		umt_trace_close(tr);
		fx_rmtree(dir);
		free(dir);
	}
}

/* Windows reuses thread IDs: the first row with the TID is returned. */
static void test_reused_tids(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	umt_writer_options o;
	umt_writer_options_init(&o, UMT_FLAVOUR_2014);
	o.thread_row_size = 48;
	umt_writer *w;
	assert_int_equal(umt_writer_open(dir, &o, &w), 0);
	static const int32_t tids[5] = {7, -3, 7, INT32_MIN, -3};
	for (int i = 0; i < 5; i++) {
		int32_t id = -1;
		assert_int_equal(umt_writer_add_thread(w, tids[i], 0x1000 * i, &id), 0);
		assert_int_equal(id, i);
	}
	assert_int_equal(umt_writer_finish(w), 0);
	umt_trace *tr = fx_must_open_dir(dir);
	assert_int_equal(umt_thread_count(tr), 5);
	uint64_t id = 99;
	assert_int_equal(umt_thread_find_win_tid(tr, 7, &id), 0);
	assert_int_equal(id, 0);
	assert_int_equal(umt_thread_find_win_tid(tr, -3, &id), 0);
	assert_int_equal(id, 1);
	assert_int_equal(umt_thread_find_win_tid(tr, INT32_MIN, &id), 0);
	assert_int_equal(id, 3);
	fx_expect_error(umt_thread_find_win_tid(tr, INT32_MAX, &id), UMT_E_NOT_FOUND, "thread.itable",
	             NULL);
	/* Threads without records. */
	const umt_thread_rec *r;
	assert_int_equal(umt_thread_get(tr, 4, &r), 0);
	assert_int_equal(r->ID, 4);
	assert_int_equal(r->WinTID, -3);
	assert_int_equal(r->TIBAddr, 0x4000);
	assert_int_equal(r->FirstEID, -1);
	assert_int_equal(r->LastEID, -1);
	assert_int_equal(r->RecCount, 0);
	umt_trace_close(tr);
	fx_rmtree(dir);
	free(dir);
}

static void test_empty(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	umt_writer *w;
	assert_int_equal(umt_writer_open(dir, NULL, &w), 0);
	assert_int_equal(umt_writer_finish(w), 0);
	umt_trace *tr = fx_must_open_dir(dir);
	assert_int_equal(umt_thread_count(tr), 0);
	uint64_t id;
	fx_expect_error(umt_thread_find_win_tid(tr, 0, &id), UMT_E_NOT_FOUND, "thread.itable", NULL);
	const umt_thread_rec *r;
	fx_expect_error(umt_thread_get(tr, 0, &r), UMT_E_RANGE, "thread 0", NULL);
	umt_trace_close(tr);
	fx_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handmade),
		cmocka_unit_test(test_std),
		cmocka_unit_test(test_reused_tids),
		cmocka_unit_test(test_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
