/*
 * map.c: files mapped from a directory and caller buffers behave the same.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fixture.h"
#include "std_trace.h"

static void test_dir_and_memory_agree(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	assert_int_equal(fx_write_standard(dir, UMT_FLAVOUR_2015), 0);
	struct fx_trace mem;
	fx_load_dir(dir, &mem);
	umt_trace *a, *b;
	assert_int_equal(umt_trace_open(dir, 0, &a), 0);
	assert_int_equal(fx_open(&mem, &b), 0);
	for (int f = 0; f < UMT_FILE_COUNT; f++)
		assert_int_equal(umt_trace_file_size(a, f), mem.size[f]);
	umt_trace_info ia, ib;
	umt_trace_get_info(a, &ia);
	umt_trace_get_info(b, &ib);
	assert_memory_equal(&ia, &ib, sizeof ia);
	for (uint64_t id = 0; id < STD_RECORDS; id++) {
		umt_rec ra, rb;
		assert_int_equal(umt_exec_get(a, id, &ra), 0);
		assert_int_equal(umt_exec_get(b, id, &rb), 0);
		assert_int_equal(ra.size, rb.size);
		assert_int_equal(ra.offset, rb.offset);
		assert_memory_equal(ra.data, rb.data, ra.size);
		/* from memory, record pointers point into the caller's buffer */
		assert_ptr_equal(rb.data, mem.data[UMT_FILE_EXEC_VTABLE] + rb.offset);
		int64_t pa, na, pb, nb;
		assert_int_equal(umt_exec_links(a, id, &pa, &na), 0);
		assert_int_equal(umt_exec_links(b, id, &pb, &nb), 0);
		assert_int_equal(pa, pb);
		assert_int_equal(na, nb);
	}
	umt_trace_close(a);
	umt_trace_close(b);
	fx_free(&mem);
	fx_rmtree(dir);
	free(dir);
}

/* Empty buffers are present files of size 0 (not missing ones). */
static void test_empty_buffer(void **state)
{
	(void)state;
	struct fx_trace t;
	fx_handmade(&t);
	t.size[UMT_FILE_ADDRESS_SPACE] = 0;
	umt_trace *tr;
	assert_int_equal(fx_open(&t, &tr), UMT_E_TRUNCATED);
	assert_non_null(strstr(umt_errmsg(), "address_space.itable"));
	/* an empty trace.xml is present (and not checked at open) */
	static const char empty[1];
	t.size[UMT_FILE_ADDRESS_SPACE] = 48;
	fx_sync(&t);
	t.buf[UMT_FILE_TRACE_XML].data = empty;
	t.buf[UMT_FILE_TRACE_XML].size = 0;
	assert_int_equal(umt_trace_open_mem(t.buf, 0, &tr), 0);
	umt_trace_info info;
	umt_trace_get_info(tr, &info);
	assert_int_equal(info.has_trace_xml, 1);
	umt_trace_close(tr);
	fx_free(&t);
}

/* An empty trace (no records, no rows) is valid. */
static void test_empty_trace(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	umt_writer *w;
	assert_int_equal(umt_writer_open(dir, NULL, &w), 0);
	assert_int_equal(umt_writer_finish(w), 0);
	umt_trace *tr;
	assert_int_equal(umt_trace_open(dir, 0, &tr), 0);
	assert_int_equal(umt_exec_count(tr), 0);
	assert_int_equal(umt_trace_file_size(tr, UMT_FILE_EXEC_PREV_NEXT), 0);
	umt_exec_iter it;
	umt_rec r;
	assert_int_equal(umt_exec_iter_init(&it, tr, 0, UINT64_MAX), 0);
	assert_int_equal(umt_exec_iter_next(&it, &r), 0);
	int64_t p, n;
	assert_int_equal(umt_exec_links(tr, 0, &p, &n), UMT_E_RANGE);
	umt_trace_close(tr);
	fx_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dir_and_memory_agree),
		cmocka_unit_test(test_empty_buffer),
		cmocka_unit_test(test_empty_trace),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
