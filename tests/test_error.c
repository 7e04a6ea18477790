/*
 * error.c: status strings, thread-local detailed messages, versions.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "fixture.h"

static void test_strerror(void **state)
{
	(void)state;
	static const struct { int code; const char *text; } codes[] = {
		{UMT_OK, "success"},
		{UMT_E_INVAL, "invalid argument"},
		{UMT_E_RANGE, "ID or index out of range"},
		{UMT_E_NOMEM, "out of memory"},
		{UMT_E_IO, "input/output error"},
		{UMT_E_MISSING, "missing file"},
		{UMT_E_VERSION, "unsupported version"},
		{UMT_E_TRUNCATED, "truncated data"},
		{UMT_E_BOUNDS, "offset or size out of bounds"},
		{UMT_E_TYPE, "unknown record type"},
		{UMT_E_CORRUPT, "inconsistent data"},
		{UMT_E_XML, "malformed trace.xml"},
		{UMT_E_NOT_FOUND, "not found"},
		{UMT_E_NO_VALUE, "no value"},
	};
	for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
		assert_string_equal(umt_strerror(codes[i].code), codes[i].text);
	assert_string_equal(umt_strerror(-999), "unknown error");
	assert_string_equal(umt_strerror(5), "unknown error");
}

static void test_version(void **state)
{
	(void)state;
	char want[32];
	snprintf(want, sizeof want, "%d.%d.%d", UMT_VERSION_MAJOR, UMT_VERSION_MINOR,
	         UMT_VERSION_PATCH);
	assert_string_equal(umt_version(), want);
	assert_string_equal(UMT_VERSION_STRING, want);
}

static void test_file_names(void **state)
{
	(void)state;
	assert_string_equal(umt_file_name(UMT_FILE_EXEC_VTABLE), "exec.vtable");
	assert_string_equal(umt_file_name(UMT_FILE_EXEC_PREV_NEXT), "exec.prev_next.column");
	assert_string_equal(umt_file_name(UMT_FILE_CONTEXT_MAP), "context_map.itable");
	assert_string_equal(umt_file_name(UMT_FILE_TRACE_XML), "trace.xml");
	assert_string_equal(umt_file_name(UMT_FILE_COUNT), "?");
	assert_string_equal(umt_file_name(-1), "?");
}

/* Message layouts: record, row, offset, and free form. */
static void test_message_layouts(void **state)
{
	(void)state;
	struct fx_trace t;
	fx_handmade(&t);
	fx_put64(t.data[UMT_FILE_EXEC_OFFSETS] + 8 * 6, 600);
	umt_trace *tr;
	assert_int_equal(fx_open(&t, &tr), 0);
	umt_rec r;
	assert_int_equal(umt_exec_get(tr, 5, &r), UMT_E_BOUNDS);
	assert_string_equal(umt_errmsg(), "exec.vtable: record 5 at offset 0xde: record ends at "
	                                  "0x258, past the end of the file (500 bytes)");
	assert_int_equal(umt_exec_get(tr, 99, &r), UMT_E_RANGE);
	assert_string_equal(umt_errmsg(), "record 99 is out of range (14 records)");
	umt_trace_close(tr);
	fx_put64(t.data[UMT_FILE_THREAD] + 16, 12);
	assert_int_equal(fx_open(&t, &tr), UMT_E_BOUNDS);
	assert_string_equal(umt_errmsg(), "thread.itable: at offset 0x10: RowSize 12 is smaller "
	                                  "than the 40 bytes of a threadRec");
	fx_free(&t);
}

/* Each thread sees its own last message. */
static void *fail_in_thread(void *arg)
{
	(void)arg;
	umt_trace *tr;
	umt_trace_open("/nonexistent/umt-thread-test", 0, &tr);
	return (void *)(strstr(umt_errmsg(), "umt-thread-test") != NULL ? (void *)1 : NULL);
}

static void test_thread_local_messages(void **state)
{
	(void)state;
	umt_rec r;
	assert_int_equal(umt_exec_get(NULL, 0, &r), UMT_E_INVAL);
	assert_string_equal(umt_errmsg(), "umt_exec_get: invalid argument");
	pthread_t th;
	void *ok = NULL;
	assert_int_equal(pthread_create(&th, NULL, fail_in_thread, NULL), 0);
	assert_int_equal(pthread_join(th, &ok), 0);
	assert_ptr_equal(ok, (void *)1);
	/* this thread's message is unchanged */
	assert_string_equal(umt_errmsg(), "umt_exec_get: invalid argument");
}

/* Very long messages are cut, never overflow. */
static void test_long_message(void **state)
{
	(void)state;
	char dir[2000];
	memset(dir, 'd', sizeof dir - 1);
	dir[0] = '/';
	dir[sizeof dir - 1] = 0;
	umt_trace *tr;
	assert_true(umt_trace_open(dir, 0, &tr) < 0);
	assert_true(strlen(umt_errmsg()) < 512);
	assert_memory_equal(umt_errmsg(), "/ddd", 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strerror),
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_file_names),
		cmocka_unit_test(test_message_layouts),
		cmocka_unit_test(test_thread_local_messages),
		cmocka_unit_test(test_long_message),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
