/*
 * thread.c: thread rows with RowSize 40 (real traces) and 48 (the spec),
 * every field, and the lookup by Windows thread ID; the iterator along a
 * thread's chain against a plain walk of the links on traces longer than
 * a chunk of 4096 records, dense and sparse, with corrupt links and records.
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

/* ---- the chain iterator against a plain walk of the links ---- */

#define CHAIN_RECORDS (3 * 4096 + 700)

/* A walk: the records returned, then the final status and its message. */
struct walk {
	uint64_t *ids;
	size_t n;
	int rc;
	char msg[512];
};

/*
 * The plain walk: each link read from the column's bytes and checked as the
 * header documents (inside the table, strictly ahead), each record read by
 * umt_exec_get() on a handle on which nothing scans, its thread compared.
 * Link errors are located at the record the link leaves (@p where).
 */
static void plain_walk(struct fx_trace *t, int64_t id, int direction, int64_t thread,
                       struct walk *w, uint64_t *where)
{
	umt_trace *tr = fx_must_open(t);
	const uint8_t *pn = t->data[UMT_FILE_EXEC_PREV_NEXT];
	w->n = 0;
	w->rc = 0;
	for (int64_t prev = -1; id != -1;) {
		umt_rec r;
		if (prev >= 0 && (id < 0 || id >= CHAIN_RECORDS)) {
			w->rc = UMT_E_BOUNDS;
			*where = (uint64_t)prev;
			break;
		}
		if (prev >= 0 && (direction == UMT_FORWARD ? id <= prev : id >= prev)) {
			w->rc = UMT_E_CORRUPT;
			*where = (uint64_t)prev;
			break;
		}
		if ((w->rc = umt_exec_get(tr, (uint64_t)id, &r)) < 0) {
			snprintf(w->msg, sizeof w->msg, "%s", umt_errmsg());
			break;
		}
		if (thread >= 0 && r.thread_id != thread) {
			w->rc = UMT_E_CORRUPT;
			*where = (uint64_t)(prev >= 0 ? prev : id);
			break;
		}
		thread = r.thread_id;
		w->ids[w->n++] = (uint64_t)id;
		prev = id;
		id = (int64_t)fx_get64(pn + 16 * (uint64_t)id + (direction == UMT_FORWARD ? 8 : 0));
	}
	umt_trace_close(tr);
}

/* The iterator's walk from @p it into @p w. */
static void iter_walk(umt_thread_iter *it, struct walk *w)
{
	umt_rec r;
	w->n = 0;
	while ((w->rc = umt_thread_iter_next(it, &r)) == 1) {
		w->ids[w->n++] = r.id;
	}
	if (w->rc < 0)
		snprintf(w->msg, sizeof w->msg, "%s", umt_errmsg());
	assert_int_equal(umt_thread_iter_next(it, &r), 0); /* stays at its end */
}

/* The iterator's walk equals the plain one: same records, same error. */
static void expect_same_walk(const struct walk *want, const struct walk *got, uint64_t where)
{
	assert_int_equal(got->n, want->n);
	for (size_t k = 0; k < want->n; k++)
		if (got->ids[k] != want->ids[k])
			fail_msg("record %zu of the walk: %llu, want %llu", k,
			         (unsigned long long)got->ids[k], (unsigned long long)want->ids[k]);
	assert_int_equal(got->rc, want->rc);
	if (want->rc < 0 && want->msg[0]) /* a record's own error: umt_exec_get's message */
		assert_string_equal(got->msg, want->msg);
	else if (want->rc < 0) { /* a link's: located at the record it leaves */
		char at[64];
		snprintf(at, sizeof at, "exec.prev_next.column: record %llu ", (unsigned long long)where);
		if (strstr(got->msg, at) == NULL)
			fail_msg("message \"%s\" does not name \"%s\"", got->msg, at);
	}
}

/*
 * Every thread of @p t forward from its FirstEID and backward from its
 * LastEID, with the iterator on a fresh handle (no chunk known good) and
 * again after a scan marked the good chunks, against the plain walk.
 */
static void every_chain(struct fx_trace *t, unsigned threads)
{
	struct walk want = {.ids = malloc(CHAIN_RECORDS * sizeof(uint64_t))};
	struct walk got = {.ids = malloc(CHAIN_RECORDS * sizeof(uint64_t))};
	assert_true(want.ids && got.ids);
	for (int scanned = 0; scanned < 2; scanned++) {
		umt_trace *tr = fx_must_open(t);
		if (scanned) {
			umt_exec_iter it;
			umt_rec r;
			assert_int_equal(umt_exec_iter_init(&it, tr, 0, UINT64_MAX), 0);
			while (umt_exec_iter_next(&it, &r) != 0)
				;
		}
		for (unsigned th = 0; th < threads; th++) {
			const umt_thread_rec *row;
			assert_int_equal(umt_thread_get(tr, th, &row), 0);
			uint64_t where = 0;
			umt_thread_iter it;
			plain_walk(t, row->FirstEID, UMT_FORWARD, th, &want, &where);
			assert_int_equal(umt_thread_iter_init_thread(&it, tr, th), 0);
			iter_walk(&it, &got);
			expect_same_walk(&want, &got, where);
			plain_walk(t, row->LastEID, UMT_BACKWARD, -1, &want, &where);
			assert_int_equal(umt_thread_iter_init(&it, tr, (uint64_t)row->LastEID, UMT_BACKWARD), 0);
			iter_walk(&it, &got);
			expect_same_walk(&want, &got, where);
		}
		umt_trace_close(tr);
	}
	free(want.ids);
	free(got.ids);
}

/* The ID of the @p k-th record (from 0) of thread @p th at or after @p from. */
static uint64_t record_of(uint64_t from, unsigned th, unsigned threads, int k)
{
	for (uint64_t id = from;; id++)
		if (fx_chain_thread(id, threads) == th && k-- == 0)
			return id;
}

static void set_link(struct fx_trace *t, uint64_t id, int next, int64_t to)
{
	fx_put64(t->data[UMT_FILE_EXEC_PREV_NEXT] + 16 * id + (next ? 8 : 0), (uint64_t)to);
}

static void test_chains(void **state)
{
	(void)state;
	for (unsigned threads = 1; threads <= 3; threads += 2) {
		struct fx_trace clean;
		fx_chain_trace(&clean, CHAIN_RECORDS, threads);
		every_chain(&clean, threads);
		/* one damage per copy: a walk stops at the first */
		for (int kind = 0; kind < 8; kind++) {
			struct fx_trace t;
			fx_copy(&t, &clean);
			uint64_t a = record_of(5000, 0, threads, 0), b = record_of(a + 1, 0, threads, 0);
			uint64_t other = record_of(a + 1, threads - 1, threads, threads > 1 ? 3 : 10);
			uint8_t *vt = t.data[UMT_FILE_EXEC_VTABLE];
			const uint8_t *off = t.data[UMT_FILE_EXEC_OFFSETS];
			switch (kind) {
			case 0: set_link(&t, a, 1, (int64_t)a - 1); break;              /* Next backwards */
			case 1: set_link(&t, a, 1, (int64_t)a); break;                  /* Next to itself */
			case 2: set_link(&t, a, 1, CHAIN_RECORDS + 5); break;          /* out of the table */
			case 3: set_link(&t, a, 1, (int64_t)other); break;             /* another thread's */
			case 4: set_link(&t, b, 0, (int64_t)b + 2); break;             /* Prev ahead */
			case 5: vt[fx_get64(off + 8 * b) + 4] = 9 + 7; break;          /* b: undefined type */
			case 6: fx_put64(t.data[UMT_FILE_EXEC_OFFSETS] + 8 * (b + 1), 3); break; /* b's end */
			default: vt[fx_get64(off + 8 * 4095) + 4] = 7; break;          /* a chunk's last */
			}
			fx_sync(&t);
			every_chain(&t, threads);
			fx_free(&t);
		}
		fx_free(&clean);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handmade),
		cmocka_unit_test(test_std),
		cmocka_unit_test(test_reused_tids),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_chains),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
