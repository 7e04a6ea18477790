/*
 * syscall.c: syscall records through their (Offset, Size) pairs, every
 * field, arguments (relative and absolute ArgsFP, ERRATA 7), extras, the
 * links between execution records and syscall records, and every check.
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

/* Expects umt_syscall_get(id) on the patched trace @p t to fail. */
static void expect_get_error(struct fx_trace *t, uint64_t id, int code, const char *file,
                             const char *what)
{
	umt_trace *tr = fx_must_open(t);
	umt_syscall s;
	fx_expect_error(umt_syscall_get(tr, id, &s), code, file, what);
	umt_trace_close(tr);
}

static uint64_t arg(const umt_syscall *s, unsigned i)
{
	uint64_t v = 0;
	assert_int_equal(umt_syscall_arg(s, i, &v), 0);
	return v;
}

/* ---- the hand-made trace ---- */

static void test_handmade_records(void **state)
{
	(void)state;
	struct fx_trace t;
	fx_handmade(&t);
	umt_trace *tr = fx_must_open(&t);
	umt_trace_info info;
	assert_int_equal(umt_trace_get_info(tr, &info), 0);
	assert_int_equal(info.syscall_count, 2);
	assert_int_equal(info.unified_ids_version, 1);
	assert_int_equal(umt_syscall_count(tr), 2);
	assert_int_equal(umt_syscall_count(NULL), 0);
	const uint8_t *vt = t.data[UMT_FILE_SYSCALL_VTABLE];

	/* Record 0 is stored second, at offset 88. */
	umt_syscall s;
	assert_int_equal(umt_syscall_get(tr, 0, &s), 0);
	assert_int_equal(s.id, 0);
	assert_int_equal(s.offset, 88);
	assert_int_equal(s.size, 92);
	assert_ptr_equal(s.rec, vt + 88);
	assert_int_equal(s.rec->RawID, 0x0c);
	assert_int_equal(s.rec->UniformID, 42);
	assert_int_equal(s.rec->Convention, UMT_SYSCALL_CONV_FAST64);
	assert_int_equal(s.rec->Completed, 1);
	assert_int_equal(s.rec->ArgCount, 4);
	assert_int_equal(s.rec->ExtraCount, 1);
	assert_int_equal(s.rec->BeginEID, 3);
	assert_int_equal(s.rec->EndEID, 5);
	assert_int_equal(s.rec->BeforeSP, 0x1000);
	assert_int_equal(s.rec->Result, 0xc0000034);
	assert_int_equal(s.rec->ArgsFP, 56);
	assert_int_equal(s.rec->ExtrasFP, 88);
	assert_ptr_equal(s.args, vt + 88 + 56);
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(arg(&s, i), i + 1);
	assert_int_equal(s.args_fp_absolute, 0);
	assert_ptr_equal(s.extras, vt + 88 + 88);
	assert_int_equal(s.extras_size, 4);
	assert_memory_equal(s.extras, "EXTR", 4);
	uint64_t v = 77;
	fx_expect_error(umt_syscall_arg(&s, 4, &v), UMT_E_RANGE, "syscall.vtable", "argument 4");
	assert_int_equal(v, 77);

	/* Record 1 is stored first, at offset 16: not completed, no extras. */
	assert_int_equal(umt_syscall_get(tr, 1, &s), 0);
	assert_int_equal(s.id, 1);
	assert_int_equal(s.offset, 16);
	assert_int_equal(s.size, 72);
	assert_ptr_equal(s.rec, vt + 16);
	assert_int_equal(s.rec->RawID, 0x55);
	assert_int_equal(s.rec->UniformID, 300);
	assert_int_equal(s.rec->Convention, 2);
	assert_int_equal(s.rec->Completed, 0);
	assert_int_equal(s.rec->ArgCount, 2);
	assert_int_equal(s.rec->ExtraCount, 0);
	assert_int_equal(s.rec->BeginEID, 6);
	assert_int_equal(s.rec->EndEID, 7);
	assert_int_equal(s.rec->BeforeSP, 0x2000);
	assert_int_equal(s.rec->Result, 0);
	assert_int_equal(arg(&s, 0), 0xaa);
	assert_int_equal(arg(&s, 1), 0xbb);
	assert_int_equal(umt_syscall_arg(&s, 2, &v), UMT_E_RANGE);
	assert_int_equal(s.args_fp_absolute, 0);
	assert_ptr_equal(s.extras, vt + 16 + 72); /* ExtrasFP == Size: empty */
	assert_int_equal(s.extras_size, 0);

	/* Caller misuse. */
	fx_expect_error(umt_syscall_get(tr, 2, &s), UMT_E_RANGE, "syscall.offsets", "syscall 2");
	assert_int_equal(umt_syscall_get(tr, UINT64_MAX, &s), UMT_E_RANGE);
	assert_int_equal(umt_syscall_get(NULL, 0, &s), UMT_E_INVAL);
	assert_int_equal(umt_syscall_get(tr, 0, NULL), UMT_E_INVAL);
	assert_int_equal(umt_syscall_arg(NULL, 0, &v), UMT_E_INVAL);
	assert_int_equal(umt_syscall_arg(&s, 0, NULL), UMT_E_INVAL);
	umt_trace_close(tr);
	fx_free(&t);
}

/* Entry, exit and skipped-exit records to their syscall record and back. */
static void test_handmade_links(void **state)
{
	(void)state;
	struct fx_trace t;
	fx_handmade(&t);
	umt_trace *tr = fx_must_open(&t);
	static const struct {
		uint64_t rec, sys;
	} links[] = {{3, 0}, {5, 0}, {6, 1}, {7, 1}};
	for (int i = 0; i < 4; i++) {
		umt_rec r, back;
		umt_syscall s;
		assert_int_equal(umt_exec_get(tr, links[i].rec, &r), 0);
		assert_int_equal(umt_rec_syscall(tr, &r, &s), 0);
		assert_int_equal(s.id, links[i].sys);
		/* back: BeginEID is the entry record, EndEID the exit or skipped exit */
		int64_t sid;
		assert_int_equal(umt_exec_get(tr, (uint64_t)s.rec->BeginEID, &back), 0);
		assert_int_equal(back.type, UMT_REC_SYSCALL_ENTRY);
		assert_int_equal(umt_rec_syscall_id(&back, &sid), 0);
		assert_int_equal(sid, (int64_t)s.id);
		assert_int_equal(umt_exec_get(tr, (uint64_t)s.rec->EndEID, &back), 0);
		assert_int_equal(back.type,
		                 s.id == 0 ? UMT_REC_SYSCALL_EXIT : UMT_REC_SYSCALL_SKIPPED);
		assert_int_equal(umt_rec_syscall_id(&back, &sid), 0);
		assert_int_equal(sid, (int64_t)s.id);
		assert_true(s.rec->BeginEID == (int64_t)r.id || s.rec->EndEID == (int64_t)r.id);
	}
	/* Other record types, NULL arguments. */
	umt_rec r;
	umt_syscall s;
	assert_int_equal(umt_exec_get(tr, 1, &r), 0);
	fx_expect_error(umt_rec_syscall(tr, &r, &s), UMT_E_INVAL, "exec.vtable", "record 1");
	assert_int_equal(umt_rec_syscall(NULL, &r, &s), UMT_E_INVAL);
	assert_int_equal(umt_rec_syscall(tr, NULL, &s), UMT_E_INVAL);
	assert_int_equal(umt_rec_syscall(tr, &r, NULL), UMT_E_INVAL);
	umt_trace_close(tr);
	fx_free(&t);
}

/* ---- the standard writer trace ---- */

static void check_std(umt_trace *tr)
{
	static const int64_t begin[STD_SYSCALLS] = {12, 19, 6}, end[STD_SYSCALLS] = {16, 22, 10};
	static const unsigned argc[STD_SYSCALLS] = {2, 3, 4};
	assert_int_equal(umt_syscall_count(tr), STD_SYSCALLS);
	umt_syscall s[STD_SYSCALLS];
	for (uint64_t id = 0; id < STD_SYSCALLS; id++) {
		umt_syscall *c = &s[id];
		assert_int_equal(umt_syscall_get(tr, id, c), 0);
		assert_int_equal(c->id, id);
		assert_int_equal(c->rec->RawID, 0x50 + id);
		assert_int_equal(c->rec->UniformID, 100 + id);
		assert_int_equal(c->rec->Convention, UMT_SYSCALL_CONV_FAST64);
		assert_int_equal(c->rec->Completed, id != 0);
		assert_int_equal(c->rec->ArgCount, argc[id]);
		assert_int_equal(c->rec->ExtraCount, id == 2 ? 1 : 0);
		assert_int_equal(c->rec->BeginEID, begin[id]);
		assert_int_equal(c->rec->EndEID, end[id]);
		assert_int_equal(c->rec->BeforeSP, 0x7f000 - 0x100 * id);
		assert_int_equal(c->rec->Result, id == 0 ? 0 : 0xc0000000 + id);
		assert_int_equal(c->args_fp_absolute, 0);
		for (unsigned i = 0; i < argc[id]; i++)
			assert_int_equal(arg(c, i), 0x100 * id + i);
		assert_int_equal(c->size, 56 + 8 * argc[id] + (id == 2 ? 2 : 0));
		assert_int_equal(c->extras_size, id == 2 ? 2 : 0);
		if (id == 2)
			assert_memory_equal(c->extras, "XY", 2);
	}
	/* Written in the order 2, 0, 1: the file is not sorted by ID. */
	assert_int_equal(s[2].offset, 16);
	assert_int_equal(s[0].offset, s[2].offset + s[2].size);
	assert_int_equal(s[1].offset, s[0].offset + s[0].size);

	/* Every syscall execution record leads to its record, and back. */
	for (uint64_t id = 0; id < STD_RECORDS; id++) {
		uint8_t type = std_types[id];
		if (type < UMT_REC_SYSCALL_ENTRY || type > UMT_REC_SYSCALL_SKIPPED)
			continue;
		umt_rec r;
		umt_syscall c;
		assert_int_equal(umt_exec_get(tr, id, &r), 0);
		int rc = umt_rec_syscall(tr, &r, &c);
		if (std_arg[id] == -1) {
			fx_expect_error(rc, UMT_E_NO_VALUE, "exec.vtable", "record 26");
			continue;
		}
		assert_int_equal(rc, 0);
		assert_int_equal(c.id, std_arg[id]);
		if (std_types[id] == UMT_REC_SYSCALL_ENTRY)
			assert_int_equal(c.rec->BeginEID, id);
		else
			assert_int_equal(c.rec->EndEID, id);
	}
}

static void test_std_trace(void **state)
{
	(void)state;
	for (int flavour = UMT_FLAVOUR_2015; flavour <= UMT_FLAVOUR_2014; flavour++) {
		char *dir = fx_tmpdir();
		assert_int_equal(fx_write_standard(dir, flavour), 0);
		umt_trace *tr = fx_must_open_dir(dir);
		umt_trace_info info;
		assert_int_equal(umt_trace_get_info(tr, &info), 0);
		assert_int_equal(info.unified_ids_version, flavour == UMT_FLAVOUR_2015 ? 1 : 0);
		check_std(tr);
		umt_trace_close(tr);
		fx_rmtree(dir);
		free(dir);
	}
}

/* Writes a trace holding only the given syscalls (in array order, IDs 0..n-1). */
static char *write_syscalls(const umt_syscall_desc *d, int n)
{
	char *dir = fx_tmpdir();
	umt_writer *w;
	assert_int_equal(umt_writer_open(dir, NULL, &w), 0);
	for (int i = 0; i < n; i++)
		assert_int_equal(umt_writer_add_syscall(w, i, &d[i]), 0);
	assert_int_equal(umt_writer_finish(w), 0);
	return dir;
}

/* ERRATA 7: an absolute ArgsFP is used when only that reading fits. */
static void test_absolute_args_fp(void **state)
{
	(void)state;
	static const int64_t args[3] = {0x1111, 0x2222, 0x3333};
	uint8_t big[200];
	for (int i = 0; i < 200; i++)
		big[i] = (uint8_t)i;
	umt_syscall_desc d[3] = {
		/* at 16, size 56 + 8 + 200: the absolute ArgsFP 72 also fits read as relative */
		{.arg_count = 1, .args = args, .extras = big, .extras_size = 200,
		 .args_fp_absolute = 1},
		/* absolute, only that reading fits */
		{.arg_count = 3, .args = args, .args_fp_absolute = 1, .extras = "E",
		 .extras_size = 1},
		/* relative */
		{.arg_count = 2, .args = args},
	};
	char *dir = write_syscalls(d, 3);
	umt_trace *tr = fx_must_open_dir(dir);
	umt_syscall s;

	/* Both readings fit: the spec's relative reading wins (bytes of the extras). */
	assert_int_equal(umt_syscall_get(tr, 0, &s), 0);
	assert_int_equal(s.offset, 16);
	assert_int_equal(s.rec->ArgsFP, 16 + 56);
	assert_int_equal(s.args_fp_absolute, 0);
	assert_int_equal(arg(&s, 0), 0x0f0e0d0c0b0a0908); /* extras bytes 8..15 */

	assert_int_equal(umt_syscall_get(tr, 1, &s), 0);
	assert_int_equal(s.offset, 16 + 264);
	assert_int_equal(s.rec->ArgsFP, 16 + 264 + 56);
	assert_int_equal(s.args_fp_absolute, 1);
	assert_ptr_equal(s.args, (const uint8_t *)s.rec + 56);
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(arg(&s, i), args[i]);
	assert_int_equal(s.extras_size, 1);
	assert_int_equal(s.extras[0], 'E');

	assert_int_equal(umt_syscall_get(tr, 2, &s), 0);
	assert_int_equal(s.rec->ArgsFP, 56);
	assert_int_equal(s.args_fp_absolute, 0);
	assert_int_equal(arg(&s, 1), 0x2222);
	umt_trace_close(tr);
	fx_rmtree(dir);
	free(dir);

	/* The same on the hand-made trace: record 0 at 88 with ArgsFP 88 + 56. */
	struct fx_trace t;
	fx_handmade(&t);
	fx_put64(t.data[UMT_FILE_SYSCALL_VTABLE] + 88 + 40, 144);
	tr = fx_must_open(&t);
	assert_int_equal(umt_syscall_get(tr, 0, &s), 0);
	assert_int_equal(s.args_fp_absolute, 1);
	assert_ptr_equal(s.args, t.data[UMT_FILE_SYSCALL_VTABLE] + 144);
	assert_int_equal(arg(&s, 3), 4);
	umt_trace_close(tr);
	fx_free(&t);
}

static void test_empty_table(void **state)
{
	(void)state;
	char *dir = write_syscalls(NULL, 0);
	umt_trace *tr = fx_must_open_dir(dir);
	umt_syscall s;
	assert_int_equal(umt_syscall_count(tr), 0);
	fx_expect_error(umt_syscall_get(tr, 0, &s), UMT_E_RANGE, "syscall.offsets", NULL);
	umt_trace_close(tr);
	fx_rmtree(dir);
	free(dir);
}

/* ---- bad (Offset, Size) pairs ---- */

/* Sets the pair of record 0 (normally 88, 92 in a 180-byte syscall.vtable). */
static void expect_pair_error(int64_t off, int64_t size, int code, const char *what)
{
	struct fx_trace t;
	fx_handmade(&t);
	fx_put64(t.data[UMT_FILE_SYSCALL_OFFSETS] + 0, (uint64_t)off);
	fx_put64(t.data[UMT_FILE_SYSCALL_OFFSETS] + 8, (uint64_t)size);
	expect_get_error(&t, 0, code, "syscall.offsets: record 0", what);
	/* The other record is unaffected. */
	umt_trace *tr = fx_must_open(&t);
	umt_syscall s;
	assert_int_equal(umt_syscall_get(tr, 1, &s), 0);
	umt_trace_close(tr);
	fx_free(&t);
}

static void test_bad_pairs(void **state)
{
	(void)state;
	expect_pair_error(-1, 92, UMT_E_BOUNDS, "negative");
	expect_pair_error(INT64_MIN, 92, UMT_E_BOUNDS, "negative");
	expect_pair_error(88, -1, UMT_E_BOUNDS, "negative");
	expect_pair_error(88, INT64_MIN, UMT_E_BOUNDS, "negative");
	expect_pair_error(INT64_MAX - 10, 92, UMT_E_BOUNDS, "overflows");
	expect_pair_error(88, INT64_MAX, UMT_E_BOUNDS, "overflows");
	expect_pair_error(INT64_MAX, INT64_MAX, UMT_E_BOUNDS, "overflows");
	expect_pair_error(89, 92, UMT_E_BOUNDS, "past the end");
	expect_pair_error(181, 56, UMT_E_BOUNDS, "past the end");
	expect_pair_error(1000, 60, UMT_E_BOUNDS, "past the end");
	expect_pair_error(0, 92, UMT_E_BOUNDS, "header");
	expect_pair_error(15, 92, UMT_E_BOUNDS, "header");
	expect_pair_error(88, 55, UMT_E_TRUNCATED, "Size 55");
	expect_pair_error(88, 0, UMT_E_TRUNCATED, "Size 0");
	expect_pair_error(180, 0, UMT_E_TRUNCATED, "Size 0");

	/* Limits that are fine: 56 bytes (no args then), and a record ending at the file end. */
	struct fx_trace t;
	fx_handmade(&t);
	uint8_t *r1 = t.data[UMT_FILE_SYSCALL_VTABLE] + 16;
	r1[6] = 0;              /* ArgCount */
	fx_put64(r1 + 48, 56);  /* ExtrasFP */
	fx_put64(t.data[UMT_FILE_SYSCALL_OFFSETS] + 24, 56);
	umt_trace *tr = fx_must_open(&t);
	umt_syscall s;
	assert_int_equal(umt_syscall_get(tr, 1, &s), 0);
	assert_int_equal(s.size, 56);
	assert_int_equal(s.extras_size, 0);
	assert_int_equal(umt_syscall_get(tr, 0, &s), 0);
	assert_int_equal(s.offset + s.size, t.size[UMT_FILE_SYSCALL_VTABLE]);
	umt_trace_close(tr);
	fx_free(&t);
}

/* ---- bad FPs and counts inside a record ---- */

/* Record 0: at 88, size 92, 4 args at 56, extras at 88. */
static void expect_field_error(int field_off, int width, uint64_t value, const char *what)
{
	struct fx_trace t;
	fx_handmade(&t);
	uint8_t *r0 = t.data[UMT_FILE_SYSCALL_VTABLE] + 88;
	if (width == 1)
		r0[field_off] = (uint8_t)value;
	else
		fx_put64(r0 + field_off, value);
	expect_get_error(&t, 0, UMT_E_BOUNDS, "syscall.vtable: record 0", what);
	fx_free(&t);
}

static void test_bad_fields(void **state)
{
	(void)state;
	/* ArgCount too large for the record: 5 * 8 bytes at 56 end at 96 > 92. */
	expect_field_error(6, 1, 5, "ArgCount 5");
	expect_field_error(6, 1, 255, "ArgCount 255");
	/* ArgsFP outside, read either way. */
	expect_field_error(40, 8, 1000, "points outside");
	expect_field_error(40, 8, (uint64_t)-8, "points outside");
	expect_field_error(40, 8, (uint64_t)INT64_MIN, "points outside");
	expect_field_error(40, 8, 8, "points outside");      /* into the fixed fields */
	expect_field_error(40, 8, 55, "points outside");
	expect_field_error(40, 8, 93, "points outside");     /* past the record, absolute 5 too */
	/* One reading points into the data, but the args do not fit there. */
	expect_field_error(40, 8, 61, "relative ArgsFP");
	expect_field_error(40, 8, 88 + 61, "absolute ArgsFP");
	/* ExtrasFP outside the data area [56, 92]. */
	expect_field_error(48, 8, 93, "ExtrasFP");
	expect_field_error(48, 8, 55, "ExtrasFP");
	expect_field_error(48, 8, 0, "ExtrasFP");
	expect_field_error(48, 8, (uint64_t)-1, "ExtrasFP");
	expect_field_error(48, 8, 88 + 88, "ExtrasFP"); /* absolute is not accepted for extras */

	/* Limits that are fine: ArgsFP 60 (32 bytes end at 92), ExtrasFP 56 and 92. */
	struct fx_trace t;
	fx_handmade(&t);
	uint8_t *r0 = t.data[UMT_FILE_SYSCALL_VTABLE] + 88;
	fx_put64(r0 + 40, 60);
	fx_put64(r0 + 48, 92);
	umt_trace *tr = fx_must_open(&t);
	umt_syscall s;
	assert_int_equal(umt_syscall_get(tr, 0, &s), 0);
	assert_ptr_equal(s.args, r0 + 60);
	assert_int_equal(s.args_fp_absolute, 0);
	assert_int_equal(s.extras_size, 0);
	umt_trace_close(tr);
	fx_put64(r0 + 48, 56);
	tr = fx_must_open(&t);
	assert_int_equal(umt_syscall_get(tr, 0, &s), 0);
	assert_int_equal(s.extras_size, 36);
	assert_ptr_equal(s.extras, r0 + 56);
	umt_trace_close(tr);
	fx_free(&t);
}

/* ---- bad SyscallIDs in execution records ---- */

static void expect_rec_error(uint64_t rec, int64_t sid, int code, const char *what)
{
	struct fx_trace t;
	fx_handmade(&t);
	fx_put64(t.data[UMT_FILE_EXEC_VTABLE] + fx_hm_offsets[rec] + 6, (uint64_t)sid);
	umt_trace *tr = fx_must_open(&t);
	umt_rec r;
	umt_syscall s;
	assert_int_equal(umt_exec_get(tr, rec, &r), 0);
	char where[64];
	snprintf(where, sizeof where, "exec.vtable: record %llu", (unsigned long long)rec);
	fx_expect_error(umt_rec_syscall(tr, &r, &s), code, where, what);
	umt_trace_close(tr);
	fx_free(&t);
}

static void test_bad_syscall_ids(void **state)
{
	(void)state;
	expect_rec_error(3, 2, UMT_E_BOUNDS, "SyscallID 2");        /* entry */
	expect_rec_error(3, -1, UMT_E_BOUNDS, "SyscallID -1");      /* -1 only on exits */
	expect_rec_error(5, 2, UMT_E_BOUNDS, "SyscallID 2");        /* exit */
	expect_rec_error(5, INT64_MAX, UMT_E_BOUNDS, "outside");
	expect_rec_error(5, -2, UMT_E_BOUNDS, "SyscallID -2");
	expect_rec_error(5, -1, UMT_E_NO_VALUE, "SyscallID -1");    /* exit with no entry */
	expect_rec_error(7, 99, UMT_E_BOUNDS, "SyscallID 99");      /* skipped exit */
	expect_rec_error(7, -1, UMT_E_BOUNDS, "SyscallID -1");

	/* A valid SyscallID whose record is bad: the error of umt_syscall_get(). */
	struct fx_trace t;
	fx_handmade(&t);
	fx_put64(t.data[UMT_FILE_SYSCALL_OFFSETS] + 16, 8);
	umt_trace *tr = fx_must_open(&t);
	umt_rec r;
	umt_syscall s;
	assert_int_equal(umt_exec_get(tr, 6, &r), 0);
	fx_expect_error(umt_rec_syscall(tr, &r, &s), UMT_E_BOUNDS, "syscall.offsets: record 1",
	             "header");
	umt_trace_close(tr);
	fx_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handmade_records),
		cmocka_unit_test(test_handmade_links),
		cmocka_unit_test(test_std_trace),
		cmocka_unit_test(test_absolute_args_fp),
		cmocka_unit_test(test_empty_table),
		cmocka_unit_test(test_bad_pairs),
		cmocka_unit_test(test_bad_fields),
		cmocka_unit_test(test_bad_syscall_ids),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
