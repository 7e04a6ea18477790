/*
 * trace.c: opening traces and every O(1) header check, on the hand-made
 * trace (from memory) and on writer traces (from directories).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "fixture.h"

/* Asserts that opening @p t fails with @p code and a message naming @p file. */
static void expect_open_error(struct fx_trace *t, int code, int file)
{
	umt_trace *tr = NULL;
	int rc = fx_open(t, &tr);
	if (rc != code)
		print_error("expected %d, got %d: %s\n", code, rc, umt_errmsg());
	assert_int_equal(rc, code);
	assert_null(tr);
	assert_non_null(strstr(umt_errmsg(), umt_file_name(file)));
}

/* Patches a copy of the hand-made trace; expects an error naming @p named. */
static void patch64_named(int file, size_t at, uint64_t v, int code, int named)
{
	struct fx_trace t;
	fx_handmade(&t);
	fx_put64(t.data[file] + at, v);
	expect_open_error(&t, code, named);
	fx_free(&t);
}

static void patch64(int file, size_t at, uint64_t v, int code)
{
	patch64_named(file, at, v, code, file);
}

static void patch32(int file, size_t at, uint32_t v, int code)
{
	struct fx_trace t;
	fx_handmade(&t);
	fx_put32(t.data[file] + at, v);
	expect_open_error(&t, code, file);
	fx_free(&t);
}

static void test_open_handmade(void **state)
{
	(void)state;
	struct fx_trace t;
	fx_handmade(&t);
	umt_trace *tr;
	assert_int_equal(fx_open(&t, &tr), 0);
	umt_trace_info info;
	assert_int_equal(umt_trace_get_info(tr, &info), 0);
	assert_int_equal(info.exec_count, FX_HM_RECORDS);
	assert_int_equal(info.exec_version, 1);
	assert_int_equal(info.ins_record_version, 1);
	assert_int_equal(info.ins_count, 1);
	assert_int_equal(info.syscall_count, 2);
	assert_int_equal(info.syscall_version, 0);
	assert_int_equal(info.unified_ids_version, 1);
	assert_int_equal(info.module_count, 1);
	assert_int_equal(info.module_row_size, 48);
	assert_int_equal(info.thread_count, 2);
	assert_int_equal(info.thread_row_size, 40);
	assert_int_equal(info.address_range_count, 1);
	assert_int_equal(info.dump_size, 16);
	assert_int_equal(info.context_map_elems, 280);
	assert_int_equal(info.has_trace_xml, 0);
	assert_int_equal(umt_exec_count(tr), FX_HM_RECORDS);
	assert_int_equal(umt_trace_file_size(tr, UMT_FILE_EXEC_VTABLE), 500);
	assert_int_equal(umt_trace_file_size(tr, UMT_FILE_CONTEXT_MAP), 17424);
	assert_int_equal(umt_trace_file_size(tr, UMT_FILE_TRACE_XML), 0);
	assert_int_equal(umt_trace_file_size(tr, 99), 0);
	umt_trace_close(tr);
	fx_free(&t);
}

static void test_invalid_arguments(void **state)
{
	(void)state;
	umt_trace *tr;
	struct fx_trace t;
	fx_handmade(&t);
	assert_int_equal(umt_trace_open(NULL, 0, &tr), UMT_E_INVAL);
	assert_int_equal(umt_trace_open("/tmp", 0, NULL), UMT_E_INVAL);
	assert_int_equal(umt_trace_open("/tmp", UMT_OPEN_SEQUENTIAL | UMT_OPEN_RANDOM, &tr),
	                 UMT_E_INVAL);
	assert_int_equal(umt_trace_open("/tmp", 0x100, &tr), UMT_E_INVAL);
	assert_int_equal(umt_trace_open_mem(NULL, 0, &tr), UMT_E_INVAL);
	assert_int_equal(umt_trace_open_mem(t.buf, 0, NULL), UMT_E_INVAL);
	assert_int_equal(umt_trace_get_info(NULL, NULL), UMT_E_INVAL);
	assert_int_equal(umt_exec_count(NULL), 0);
	umt_trace_close(NULL);
	fx_free(&t);
}

/* Every header field boundary of every file, truncated, is an error. */
static void test_truncated_headers(void **state)
{
	(void)state;
	static const struct { int file; size_t sizes[9]; } cases[] = {
		{UMT_FILE_EXEC_VTABLE, {0, 4, 8, 15}},
		{UMT_FILE_SYSCALL_VTABLE, {0, 4, 8, 15}},
		{UMT_FILE_INS, {0, 4, 8, 16, 24, 32, 40, 47}},
		{UMT_FILE_MODULE, {0, 4, 8, 16, 24, 32, 40, 47}},
		{UMT_FILE_THREAD, {0, 4, 8, 16, 24, 31}},
		{UMT_FILE_ADDRESS_SPACE, {0, 4, 8, 16, 24, 31}},
		{UMT_FILE_CONTEXT_MAP, {0, 2, 4, 16, 1040, 9232, 13328, 17423}},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		for (int i = 0; i < 9; i++) {
			size_t size = cases[c].sizes[i];
			if (i > 0 && size == 0)
				break;
			struct fx_trace t;
			fx_handmade(&t);
			fx_truncate(&t, cases[c].file, size);
			expect_open_error(&t, UMT_E_TRUNCATED, cases[c].file);
			fx_free(&t);
		}
	}
}

/* Tables whose rows no longer fit once the file is cut inside them. */
static void test_truncated_tables(void **state)
{
	(void)state;
	static const struct { int file; size_t size; int code; } cases[] = {
		{UMT_FILE_INS, 48 + 63, UMT_E_BOUNDS},      /* inside the row */
		{UMT_FILE_INS, 48 + 64 + 50, UMT_E_BOUNDS}, /* inside the extra area */
		{UMT_FILE_MODULE, 48 + 20, UMT_E_BOUNDS},
		{UMT_FILE_THREAD, 32 + 60, UMT_E_BOUNDS},
		{UMT_FILE_ADDRESS_SPACE, 40, UMT_E_BOUNDS},
		{UMT_FILE_EXEC_OFFSETS, 8 * 14, UMT_E_TRUNCATED},
		{UMT_FILE_EXEC_OFFSETS, 0, UMT_E_TRUNCATED},
		{UMT_FILE_EXEC_PREV_NEXT, 16 * 13, UMT_E_TRUNCATED},
		{UMT_FILE_SYSCALL_OFFSETS, 16, UMT_E_TRUNCATED},
		{UMT_FILE_EXEC_VTABLE, 499, UMT_E_BOUNDS}, /* last record cut: end offset outside */
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		struct fx_trace t;
		fx_handmade(&t);
		fx_truncate(&t, cases[c].file, cases[c].size);
		int file = cases[c].file == UMT_FILE_EXEC_VTABLE ? UMT_FILE_EXEC_OFFSETS : cases[c].file;
		expect_open_error(&t, cases[c].code, file);
		fx_free(&t);
	}
}

static void test_oversized_index_files(void **state)
{
	(void)state;
	static const int files[] = {UMT_FILE_EXEC_OFFSETS, UMT_FILE_EXEC_PREV_NEXT,
	                            UMT_FILE_SYSCALL_OFFSETS};
	for (size_t i = 0; i < 3; i++) {
		struct fx_trace t;
		fx_handmade(&t);
		int f = files[i];
		t.data[f] = realloc(t.data[f], t.size[f] + 8);
		memset(t.data[f] + t.size[f], 0, 8);
		t.size[f] += 8;
		expect_open_error(&t, UMT_E_BOUNDS, f);
		fx_free(&t);
	}
}

static void test_bad_versions(void **state)
{
	(void)state;
	patch32(UMT_FILE_EXEC_VTABLE, 0, 2, UMT_E_VERSION);
	patch32(UMT_FILE_EXEC_VTABLE, 0, 0xffffffff, UMT_E_VERSION);
	patch32(UMT_FILE_SYSCALL_VTABLE, 0, 1, UMT_E_VERSION);
	patch32(UMT_FILE_SYSCALL_VTABLE, 4, 2, UMT_E_VERSION);
	patch32(UMT_FILE_INS, 0, 1, UMT_E_VERSION);   /* HeaderVer */
	patch32(UMT_FILE_INS, 4, 2, UMT_E_VERSION);   /* RecordVer */
	patch32(UMT_FILE_MODULE, 0, 1, UMT_E_VERSION);
	patch32(UMT_FILE_MODULE, 4, 1, UMT_E_VERSION);
	patch32(UMT_FILE_THREAD, 0, 7, UMT_E_VERSION);
	patch32(UMT_FILE_THREAD, 4, 1, UMT_E_VERSION);
	patch32(UMT_FILE_ADDRESS_SPACE, 4, 0xffffffff, UMT_E_VERSION);
}

static void test_accepted_versions(void **state)
{
	(void)state;
	struct fx_trace t;
	fx_handmade(&t);
	fx_put32(t.data[UMT_FILE_EXEC_VTABLE], 0);
	fx_put32(t.data[UMT_FILE_INS] + 4, 0);
	fx_put32(t.data[UMT_FILE_SYSCALL_VTABLE] + 4, 0);
	umt_trace *tr;
	assert_int_equal(fx_open(&t, &tr), 0);
	umt_trace_info info;
	umt_trace_get_info(tr, &info);
	assert_int_equal(info.exec_version, 0);
	assert_int_equal(info.ins_record_version, 0);
	assert_int_equal(info.unified_ids_version, 0);
	umt_trace_close(tr);
	fx_free(&t);
}

static void test_bad_counts_and_sizes(void **state)
{
	(void)state;
	/* RowCount: negative, too many rows, count * size overflowing */
	patch64(UMT_FILE_INS, 8, (uint64_t)-1, UMT_E_BOUNDS);
	patch64(UMT_FILE_INS, 8, 3, UMT_E_BOUNDS);
	patch64(UMT_FILE_INS, 8, 1ull << 60, UMT_E_BOUNDS);
	patch64(UMT_FILE_THREAD, 8, 3, UMT_E_BOUNDS);
	patch64(UMT_FILE_MODULE, 8, 0x4000000000000001ull, UMT_E_BOUNDS);
	patch64(UMT_FILE_ADDRESS_SPACE, 8, (uint64_t)INT64_MIN, UMT_E_BOUNDS);
	/* RowSize smaller than the fields read, negative, overflowing */
	patch64(UMT_FILE_INS, 16, 55, UMT_E_BOUNDS);
	patch64(UMT_FILE_THREAD, 16, 39, UMT_E_BOUNDS);
	patch64(UMT_FILE_MODULE, 16, 0, UMT_E_BOUNDS);
	patch64(UMT_FILE_ADDRESS_SPACE, 16, 15, UMT_E_BOUNDS);
	patch64(UMT_FILE_THREAD, 16, (uint64_t)-1, UMT_E_BOUNDS);
	patch64(UMT_FILE_THREAD, 16, 1ull << 62, UMT_E_BOUNDS);
	/* TableFP: inside the header, past the end, negative */
	patch64(UMT_FILE_INS, 24, 0, UMT_E_BOUNDS);
	patch64(UMT_FILE_INS, 24, 47, UMT_E_BOUNDS);
	patch64(UMT_FILE_THREAD, 24, 1000, UMT_E_BOUNDS);
	patch64(UMT_FILE_ADDRESS_SPACE, 24, (uint64_t)-8, UMT_E_BOUNDS);
	/* ExtraFP / ExtraSize */
	patch64(UMT_FILE_INS, 32, 219, UMT_E_BOUNDS);
	patch64(UMT_FILE_INS, 32, (uint64_t)-1, UMT_E_BOUNDS);
	patch64(UMT_FILE_INS, 40, 107, UMT_E_BOUNDS);
	patch64(UMT_FILE_INS, 40, (uint64_t)-1, UMT_E_BOUNDS);
	patch64(UMT_FILE_INS, 40, UINT64_MAX / 2, UMT_E_BOUNDS);
	patch64(UMT_FILE_MODULE, 32, 121, UMT_E_BOUNDS);
	patch64(UMT_FILE_MODULE, 40, 25, UMT_E_BOUNDS);
	/* RecordCount of the variable-size tables */
	patch64(UMT_FILE_EXEC_VTABLE, 8, (uint64_t)-1, UMT_E_BOUNDS);
	patch64_named(UMT_FILE_EXEC_VTABLE, 8, 15, UMT_E_TRUNCATED, UMT_FILE_EXEC_OFFSETS);
	patch64_named(UMT_FILE_EXEC_VTABLE, 8, 13, UMT_E_BOUNDS, UMT_FILE_EXEC_OFFSETS);
	patch64(UMT_FILE_EXEC_VTABLE, 8, UINT64_MAX / 16, UMT_E_BOUNDS);
	patch64(UMT_FILE_EXEC_VTABLE, 8, 0x1000000000000000ull, UMT_E_BOUNDS);
	patch64(UMT_FILE_SYSCALL_VTABLE, 8, (uint64_t)-2, UMT_E_BOUNDS);
	patch64_named(UMT_FILE_SYSCALL_VTABLE, 8, 3, UMT_E_TRUNCATED, UMT_FILE_SYSCALL_OFFSETS);
	patch64_named(UMT_FILE_SYSCALL_VTABLE, 8, 0x1000000000000000ull, UMT_E_BOUNDS,
	              UMT_FILE_SYSCALL_OFFSETS);
	/* context map ElemCount beyond the 512 entries */
	struct fx_trace t;
	fx_handmade(&t);
	fx_put16(t.data[UMT_FILE_CONTEXT_MAP] + 2, 513);
	expect_open_error(&t, UMT_E_BOUNDS, UMT_FILE_CONTEXT_MAP);
	fx_free(&t);
}

static void test_bad_first_last_offsets(void **state)
{
	(void)state;
	patch64(UMT_FILE_EXEC_OFFSETS, 0, 8, UMT_E_BOUNDS);                 /* into the header */
	patch64(UMT_FILE_EXEC_OFFSETS, 8 * 14, 501, UMT_E_BOUNDS);          /* end past the file */
	patch64(UMT_FILE_EXEC_OFFSETS, 8 * 14, (uint64_t)-1, UMT_E_BOUNDS);
	patch64(UMT_FILE_EXEC_OFFSETS, 0, 600, UMT_E_BOUNDS);               /* first > last */
}

static void test_missing_buffers(void **state)
{
	(void)state;
	for (int f = 0; f < UMT_FILE_COUNT; f++) {
		struct fx_trace t;
		fx_handmade(&t);
		free(t.data[f]);
		t.data[f] = NULL;
		t.size[f] = 0;
		if (f == UMT_FILE_TRACE_XML) {
			umt_trace *tr;
			assert_int_equal(fx_open(&t, &tr), 0);
			umt_trace_close(tr);
		} else {
			expect_open_error(&t, UMT_E_MISSING, f);
		}
		fx_free(&t);
	}
}

/* ---- directories ---- */

static void test_open_directory(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	assert_int_equal(fx_write_standard(dir, UMT_FLAVOUR_2015), 0);
	umt_trace *tr;
	assert_int_equal(umt_trace_open(dir, 0, &tr), 0);
	umt_trace_info info;
	umt_trace_get_info(tr, &info);
	assert_int_equal(info.exec_count, FX_STD_RECORDS);
	assert_int_equal(info.has_trace_xml, 1);
	assert_int_equal(info.module_row_size, 64);
	/* the prev/next column is mapped on first use */
	int64_t prev, next;
	assert_int_equal(umt_exec_links(tr, 1, &prev, &next), 0);
	assert_int_equal(prev, 0);
	assert_int_equal(next, 2);
	umt_trace_close(tr);
	fx_rmtree(dir);
	free(dir);
}

static void test_directory_errors(void **state)
{
	(void)state;
	umt_trace *tr = NULL;
	assert_int_equal(umt_trace_open("/nonexistent/trace/dir", 0, &tr), UMT_E_MISSING);
	assert_non_null(strstr(umt_errmsg(), "/nonexistent/trace/dir"));
	assert_null(tr);

	char *dir = fx_tmpdir();
	/* an empty directory: the first required file is missing */
	assert_int_equal(umt_trace_open(dir, 0, &tr), UMT_E_MISSING);
	assert_non_null(strstr(umt_errmsg(), "exec.vtable"));

	/* a file path instead of a directory */
	char path[4200];
	snprintf(path, sizeof path, "%s/file", dir);
	FILE *fp = fopen(path, "w");
	fputs("x", fp);
	fclose(fp);
	assert_int_equal(umt_trace_open(path, 0, &tr), UMT_E_IO);
	assert_non_null(strstr(umt_errmsg(), "Not a directory"));
	remove(path);

	/* each file missing in turn */
	assert_int_equal(fx_write_standard(dir, UMT_FLAVOUR_2015), 0);
	for (int f = 0; f < UMT_FILE_COUNT; f++) {
		char from[4200], to[4300];
		snprintf(from, sizeof from, "%s/%s", dir, umt_file_name(f));
		snprintf(to, sizeof to, "%s/%s.away", dir, umt_file_name(f));
		assert_int_equal(rename(from, to), 0);
		int rc = umt_trace_open(dir, 0, &tr);
		if (f == UMT_FILE_TRACE_XML) {
			assert_int_equal(rc, 0);
			umt_trace_close(tr);
		} else {
			/* without exec.vtable, the writer's commit record, the others are
			 * the remains of an unfinished write */
			assert_int_equal(rc, f == UMT_FILE_EXEC_VTABLE ? UMT_E_INCOMPLETE : UMT_E_MISSING);
			assert_non_null(strstr(umt_errmsg(), umt_file_name(f)));
		}
		assert_int_equal(rename(to, from), 0);
	}
	/* a directory where a file should be */
	snprintf(path, sizeof path, "%s/thread.itable", dir);
	remove(path);
	mkdir(path, 0755);
	assert_int_equal(umt_trace_open(dir, 0, &tr), UMT_E_IO);
	assert_non_null(strstr(umt_errmsg(), "thread.itable"));
	fx_rmtree(dir);
	free(dir);
}

static void test_zero_length_files(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	assert_int_equal(fx_write_standard(dir, UMT_FLAVOUR_2015), 0);
	for (int f = 0; f < UMT_FILE_COUNT; f++) {
		if (f == UMT_FILE_TRACE_XML)
			continue;
		char path[4200], save[4300];
		snprintf(path, sizeof path, "%s/%s", dir, umt_file_name(f));
		snprintf(save, sizeof save, "%s.save", path);
		rename(path, save);
		fclose(fopen(path, "w"));
		umt_trace *tr;
		int rc = umt_trace_open(dir, 0, &tr);
		assert_int_equal(rc, UMT_E_TRUNCATED);
		assert_non_null(strstr(umt_errmsg(), umt_file_name(f)));
		rename(save, path);
	}
	fx_rmtree(dir);
	free(dir);
}

static void test_prev_next_changed_before_first_use(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	assert_int_equal(fx_write_standard(dir, UMT_FLAVOUR_2015), 0);
	umt_trace *tr;
	assert_int_equal(umt_trace_open(dir, 0, &tr), 0);
	char path[4200];
	snprintf(path, sizeof path, "%s/exec.prev_next.column", dir);
	FILE *fp = fopen(path, "ab");
	fputs("garbage!", fp);
	fclose(fp);
	int64_t prev, next;
	assert_int_equal(umt_exec_links(tr, 0, &prev, &next), UMT_E_IO);
	assert_non_null(strstr(umt_errmsg(), "exec.prev_next.column"));
	umt_rec r;
	umt_thread_iter it;
	assert_int_equal(umt_exec_get(tr, 0, &r), 0); /* the rest still works */
	assert_int_equal(umt_thread_iter_init(&it, tr, 0, UMT_FORWARD), UMT_E_IO);
	umt_trace_close(tr);
	fx_rmtree(dir);
	free(dir);
}

/* umt_trace_changed(): size, mtime and identity recorded at open. */
static void test_changed(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	assert_int_equal(fx_write_standard(dir, UMT_FLAVOUR_2015), 0);
	umt_trace *tr;
	assert_int_equal(umt_trace_open(dir, 0, &tr), 0);
	assert_int_equal(umt_trace_changed(tr), 0);
	char path[4200], save[4300];
	/* a file appended to */
	snprintf(path, sizeof path, "%s/address_space.itable", dir);
	FILE *fp = fopen(path, "ab");
	fputc(0, fp);
	fclose(fp);
	assert_int_equal(umt_trace_changed(tr), 1);
	umt_trace_close(tr);
	/* trace.xml appearing, and a file replaced by another of the same size */
	snprintf(path, sizeof path, "%s/trace.xml", dir);
	snprintf(save, sizeof save, "%s.save", path);
	rename(path, save);
	assert_int_equal(umt_trace_open(dir, 0, &tr), 0);
	assert_int_equal(umt_trace_changed(tr), 0);
	rename(save, path);
	assert_int_equal(umt_trace_changed(tr), 1);
	umt_trace_close(tr);
	assert_int_equal(umt_trace_open(dir, 0, &tr), 0);
	snprintf(path, sizeof path, "%s/thread.itable", dir);
	snprintf(save, sizeof save, "%s.copy", path);
	char cmd[17100];
	snprintf(cmd, sizeof cmd, "cp '%s' '%s' && mv '%s' '%s'", path, save, save, path);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(umt_trace_changed(tr), 1);
	umt_trace_close(tr);
	/* traces from memory never change */
	struct fx_trace t;
	fx_handmade(&t);
	assert_int_equal(fx_open(&t, &tr), 0);
	assert_int_equal(umt_trace_changed(tr), 0);
	umt_trace_close(tr);
	fx_free(&t);
	assert_int_equal(umt_trace_changed(NULL), UMT_E_INVAL);
	fx_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_handmade),
		cmocka_unit_test(test_invalid_arguments),
		cmocka_unit_test(test_truncated_headers),
		cmocka_unit_test(test_truncated_tables),
		cmocka_unit_test(test_oversized_index_files),
		cmocka_unit_test(test_bad_versions),
		cmocka_unit_test(test_accepted_versions),
		cmocka_unit_test(test_bad_counts_and_sizes),
		cmocka_unit_test(test_bad_first_last_offsets),
		cmocka_unit_test(test_missing_buffers),
		cmocka_unit_test(test_open_directory),
		cmocka_unit_test(test_directory_errors),
		cmocka_unit_test(test_zero_length_files),
		cmocka_unit_test(test_prev_next_changed_before_first_use),
		cmocka_unit_test(test_changed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
