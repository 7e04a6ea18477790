/*
 * map.c: files mapped from a directory and caller buffers behave the same.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "check.h"
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

/* Replaces file @p f of trace directory @p dir with a FIFO that nothing ever writes. */
static void make_fifo(const char *dir, int f)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, umt_file_name(f));
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkfifo(path, 0600), 0);
}

/*
 * A file of the trace that is a FIFO: opening it for reading would wait for
 * a writer forever. Open must refuse it at once (the test runs under
 * alarm() and a ctest timeout, so a hang fails it), strict or salvage.
 */
static void test_fifo(void **state)
{
	(void)state;
	alarm(60);
	for (int f = 0; f < UMT_FILE_COUNT; f++) {
		char *dir = fx_tmpdir();
		assert_int_equal(fx_write_standard(dir, UMT_FLAVOUR_2015), 0);
		make_fifo(dir, f);
		umt_trace *tr = NULL;
		fx_expect_error(umt_trace_open(dir, 0, &tr), UMT_E_IO, umt_file_name(f),
		                "not a regular file");
		assert_null(tr);
		int rc = umt_trace_open(dir, UMT_OPEN_SALVAGE, &tr);
		if (f == UMT_FILE_EXEC_VTABLE) {
			fx_expect_error(rc, UMT_E_IO, "exec.vtable", "not a regular file");
		} else {
			/* salvage: that file's table is lost, the rest reads */
			assert_int_equal(rc, 0);
			umt_trace_info i;
			umt_trace_get_info(tr, &i);
			assert_int_equal(i.file_status[f], UMT_FILE_UNAVAILABLE);
			assert_string_equal(i.file_problem[f], "not a regular file");
			umt_rec r;
			assert_int_equal(umt_exec_get(tr, 0, &r), f == UMT_FILE_EXEC_OFFSETS ? UMT_E_IO : 0);
			umt_trace_close(tr);
		}
		fx_rmtree(dir);
		free(dir);
	}
	/* exec.prev_next.column is mapped on first use: a FIFO put there after open */
	char *dir = fx_tmpdir();
	assert_int_equal(fx_write_standard(dir, UMT_FLAVOUR_2015), 0);
	umt_trace *tr = fx_must_open_dir(dir);
	make_fifo(dir, UMT_FILE_EXEC_PREV_NEXT);
	int64_t prev, next;
	fx_expect_error(umt_exec_links(tr, 0, &prev, &next), UMT_E_IO, "exec.prev_next.column",
	                "not a regular file");
	umt_trace_close(tr);
	/* and a FIFO given as the trace directory */
	char fifo[4096];
	snprintf(fifo, sizeof fifo, "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	fx_expect_error(umt_trace_open(fifo, 0, &tr), UMT_E_IO, "fifo", "cannot open");
	fx_rmtree(dir);
	free(dir);
	alarm(0);
}

/* Overwrites @p n bytes at @p off of file @p f of trace @p dir in place (under a mapping). */
static void rewrite(const char *dir, int f, uint64_t off, const void *bytes, size_t n)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, umt_file_name(f));
	int fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, bytes, n, (off_t)off), (ssize_t)n);
	close(fd);
}

/*
 * A file rewritten in place while mapped (see Caveats): what an accessor
 * checked earlier is not trusted again where it yields a pointer or an
 * index. A read-only private mapping shows the file's new bytes.
 */
static void test_changed_under_the_mapping(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	assert_int_equal(fx_write_standard(dir, UMT_FLAVOUR_2015), 0);
	struct fx_trace bytes;
	fx_load_dir(dir, &bytes);
	umt_trace *t = fx_must_open_dir(dir);

	/* a decoded body checked once, then its DecodedFP pointed far away */
	umt_decoded d;
	assert_int_equal(umt_ins_decoded(t, 0, &d), 0);
	uint64_t row0 = fx_get64(bytes.data[UMT_FILE_INS] + 24); /* TableFP */
	uint8_t far[8];
	fx_put64(far, UINT64_C(1) << 40);
	rewrite(dir, UMT_FILE_INS, row0 + 48, far, sizeof far);
	fx_expect_error(umt_ins_decoded(t, 0, &d), UMT_E_BOUNDS, "ins.itable", "DecodedFP");

	/* a syscall record checked, then its ArgCount raised past the record */
	umt_syscall s;
	uint64_t v;
	assert_int_equal(umt_syscall_get(t, 0, &s), 0);
	unsigned args = s.rec->ArgCount;
	uint8_t many = 200;
	rewrite(dir, UMT_FILE_SYSCALL_VTABLE, s.offset + 6, &many, 1);
	assert_int_equal(s.rec->ArgCount, 200); /* the mapping shows it */
	fx_expect_error(umt_syscall_arg(&s, args + 10, &v), UMT_E_BOUNDS, "syscall.vtable",
	                "runs past the record");

	/* the context map's ElemCount raised past its 512 entries */
	uint8_t elems[2];
	fx_put16(elems, 600);
	rewrite(dir, UMT_FILE_CONTEXT_MAP, 2, elems, sizeof elems);
	umt_reg_desc r;
	fx_expect_error(umt_context_map_reg(t, 520, &r), UMT_E_RANGE, "", "outside the context map");
	assert_int_equal(umt_reg_by_name(t, "rax"), 74);
	fx_expect_error(umt_reg_by_name(t, "no-such-register"), UMT_E_NOT_FOUND, "", NULL);
	umt_trace_close(t);
	fx_free(&bytes);
	fx_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fifo),
		cmocka_unit_test(test_changed_under_the_mapping),
		cmocka_unit_test(test_dir_and_memory_agree),
		cmocka_unit_test(test_empty_buffer),
		cmocka_unit_test(test_empty_trace),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
