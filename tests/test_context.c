/*
 * context.c (reading): the context map (no table header, ERRATA 5),
 * register descriptions, names, and register values in rmContext dumps
 * through the 32- or 64-bit map. Checked on the hand-assembled trace
 * (DumpSize 16, rax at 0 and rip at 8 in the 64-bit map, written at the
 * spec's literal offsets) and on the writer's default map.
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

enum { RAX = 74, EAX = 58, RIP = 111, EIP = 112 };

/* Literal offsets of the context map (spec 11.2). */
#define CM_COMMON 16
#define CM_NAME 1040
#define CM_MAP32 9232
#define CM_MAP64 13328

static uint64_t value_u64(umt_trace *tr, const umt_context *c, int reg, uint32_t size)
{
	umt_value v;
	int rc = umt_context_reg(tr, c, reg, &v);
	if (rc != 0)
		print_error("register %d: %s\n", reg, umt_errmsg());
	assert_int_equal(rc, 0);
	assert_int_equal(v.size, size);
	assert_true(v.data >= c->regs && v.data + v.size <= c->regs + c->regs_size);
	return umt_value_u64(&v);
}

/* ---- the hand-assembled trace --------------------------------------------------- */

static void test_hand_map(void **state)
{
	(void)state;
	struct fx_trace t;
	fx_handmade(&t);
	umt_trace *tr = fx_must_open(&t);
	const umt_context_map *m = umt_context_map_get(tr);
	assert_ptr_equal((const void *)m, t.data[UMT_FILE_CONTEXT_MAP]); /* no header: offset 0 */
	assert_int_equal(m->DumpSize, 16);
	assert_int_equal(m->ElemCount, 280);
	assert_null(umt_context_map_get(NULL));

	umt_reg_desc d;
	assert_int_equal(umt_context_map_reg(tr, RAX, &d), 0);
	assert_int_equal(d.reg, RAX);
	assert_string_equal(d.name, "rax");
	assert_int_equal(d.common, RAX);
	assert_int_equal(d.in64, 1);
	assert_int_equal(d.in32, 0);
	assert_int_equal(d.map64.Offset, 0);
	assert_int_equal(d.map64.Size, 8);
	assert_int_equal(d.map64.EffLargest, RAX);
	assert_int_equal(d.map32.Offset, 0xffff);
	assert_int_equal(d.map32.Size, 0);
	assert_int_equal(umt_context_map_reg(tr, RIP, &d), 0);
	assert_string_equal(d.name, "rip");
	assert_int_equal(d.map64.Offset, 8);
	assert_int_equal(umt_context_map_reg(tr, 0, &d), 0);
	assert_string_equal(d.name, "");
	assert_int_equal(d.in64, 0);
	assert_int_equal(umt_context_map_reg(tr, 279, &d), 0);
	assert_int_equal(umt_context_map_reg(tr, 280, &d), UMT_E_RANGE); /* ElemCount */
	assert_int_equal(umt_context_map_reg(tr, -1, &d), UMT_E_RANGE);
	assert_int_equal(umt_context_map_reg(tr, RAX, NULL), UMT_E_INVAL);
	assert_int_equal(umt_context_map_reg(NULL, RAX, &d), UMT_E_INVAL);

	assert_int_equal(umt_reg_by_name(tr, "rax"), RAX);
	assert_int_equal(umt_reg_by_name(tr, "RAX"), RAX);
	assert_int_equal(umt_reg_by_name(tr, "Rip"), RIP);
	assert_int_equal(umt_reg_by_name(tr, "ra"), UMT_E_NOT_FOUND);
	assert_int_equal(umt_reg_by_name(tr, "raxx"), UMT_E_NOT_FOUND);
	assert_int_equal(umt_reg_by_name(tr, "rbx"), UMT_E_NOT_FOUND);
	assert_int_equal(umt_reg_by_name(tr, ""), UMT_E_INVAL);
	assert_int_equal(umt_reg_by_name(tr, NULL), UMT_E_INVAL);
	assert_int_equal(umt_reg_by_name(NULL, "rax"), UMT_E_INVAL);
	umt_trace_close(tr);
	fx_free(&t);
}

static void test_hand_values(void **state)
{
	(void)state;
	struct fx_trace t;
	fx_handmade(&t);
	/* record 8 becomes 32-bit code; the 32-bit map gets eax at 0 and eip at 8 */
	t.data[UMT_FILE_EXEC_VTABLE][fx_hm_offsets[8] + 5] = 0x00;
	uint8_t *cm = t.data[UMT_FILE_CONTEXT_MAP];
	memcpy(cm + CM_NAME + 16 * EAX, "eax", 4);
	fx_put16(cm + CM_MAP32 + 8 * EAX, 0);
	cm[CM_MAP32 + 8 * EAX + 2] = 4;
	fx_put16(cm + CM_MAP32 + 8 * EIP, 8);
	cm[CM_MAP32 + 8 * EIP + 2] = 4;
	umt_trace *tr = fx_must_open(&t);

	int contexts = 0;
	for (uint64_t id = 0; id < FX_HM_RECORDS; id++) {
		umt_rec r;
		umt_context c;
		umt_value v;
		assert_int_equal(umt_exec_get(tr, id, &r), 0);
		if (!umt_rec_type_has_context(r.type))
			continue;
		contexts++;
		assert_int_equal(umt_rec_context(tr, &r, &c), 0);
		if (id == 8) {
			assert_int_equal(c.is_64bit, 0);
			assert_int_equal(value_u64(tr, &c, EAX, 4), 0x11111108);
			assert_int_equal(value_u64(tr, &c, EIP, 4), 0x401008);
			assert_int_equal(umt_context_reg(tr, &c, RAX, &v), UMT_E_NOT_FOUND);
			continue;
		}
		assert_int_equal(c.is_64bit, 1);
		assert_int_equal(value_u64(tr, &c, RAX, 8), 0x1111111111111100ull + id);
		assert_int_equal(value_u64(tr, &c, RIP, 8), 0x401000 + id);
		assert_int_equal(umt_context_reg(tr, &c, EAX, &v), UMT_E_NOT_FOUND);
		assert_int_equal(umt_context_reg(tr, &c, 300, &v), UMT_E_RANGE);
		assert_int_equal(umt_context_reg(tr, &c, RAX, NULL), UMT_E_INVAL);
		assert_int_equal(umt_context_reg(tr, NULL, RAX, &v), UMT_E_INVAL);
		assert_int_equal(umt_context_reg(NULL, &c, RAX, &v), UMT_E_INVAL);
	}
	assert_int_equal(contexts, 9);
	umt_trace_close(tr);
	fx_free(&t);
}

/* Opens the hand trace with rip's 64-bit regInfo set to @p off / @p size. */
static void expect_dump_bounds(uint16_t off, uint8_t size)
{
	struct fx_trace t;
	fx_handmade(&t);
	uint8_t *ri = t.data[UMT_FILE_CONTEXT_MAP] + CM_MAP64 + 8 * RIP;
	fx_put16(ri, off);
	ri[2] = size;
	umt_trace *tr = fx_must_open(&t);
	umt_rec r;
	umt_context c;
	umt_value v;
	assert_int_equal(umt_exec_get(tr, 0, &r), 0);
	assert_int_equal(umt_rec_context(tr, &r, &c), 0);
	int rc = umt_context_reg(tr, &c, RIP, &v);
	if (rc != UMT_E_BOUNDS)
		print_error("got %d: %s\n", rc, umt_errmsg());
	assert_int_equal(rc, UMT_E_BOUNDS);
	/* the regInfo of rip in RegMap64: 13328 + 8 * 111 = 0x3788 */
	assert_non_null(strstr(umt_errmsg(), "context_map.itable: at offset 0x3788:"));
	assert_non_null(strstr(umt_errmsg(), "DumpSize 16"));
	assert_int_equal(value_u64(tr, &c, RAX, 8), 0x1111111111111100ull);
	umt_trace_close(tr);
	fx_free(&t);
}

static void test_hand_errors(void **state)
{
	(void)state;
	expect_dump_bounds(12, 8);      /* 12 + 8 > 16 */
	expect_dump_bounds(0, 17);      /* size alone too large */
	expect_dump_bounds(0xfffe, 8);  /* no 16-bit wrap-around */
	expect_dump_bounds(16, 1);      /* one past the end */

	/* StrName of 16 bytes without NUL: a 16-character name (ERRATA 16) */
	struct fx_trace t;
	fx_handmade(&t);
	uint8_t *cm = t.data[UMT_FILE_CONTEXT_MAP];
	memcpy(cm + CM_NAME + 16 * 200, "abcdefghijklmnop", 16);
	memcpy(cm + CM_NAME + 16 * 201, "QRSTUVWXYZ012345", 16); /* next entry also full */
	memcpy(cm + CM_NAME + 16 * 300, "beyond", 7);            /* past ElemCount 280 */
	umt_trace *tr = fx_must_open(&t);
	umt_reg_desc d;
	assert_int_equal(umt_context_map_reg(tr, 200, &d), 0);
	assert_string_equal(d.name, "abcdefghijklmnop");
	assert_int_equal(strlen(d.name), 16);
	assert_int_equal(umt_context_map_reg(tr, 201, &d), 0);
	assert_string_equal(d.name, "QRSTUVWXYZ012345");
	assert_int_equal(umt_reg_by_name(tr, "ABCDEFGHIJKLMNOP"), 200);
	assert_int_equal(umt_reg_by_name(tr, "qrstuvwxyz012345"), 201);
	assert_int_equal(umt_reg_by_name(tr, "abcdefghijklmno"), UMT_E_NOT_FOUND);
	assert_int_equal(umt_reg_by_name(tr, "abcdefghijklmnopQ"), UMT_E_NOT_FOUND);
	assert_non_null(strstr(umt_errmsg(), "abcdefghijklmnopQ"));
	assert_int_equal(umt_reg_by_name(tr, "beyond"), UMT_E_NOT_FOUND);
	umt_trace_close(tr);
	fx_free(&t);
}

/* ---- the writer's default map ------------------------------------------------------ */

static umt_trace *open_std(int flavour, char **dir)
{
	*dir = fx_tmpdir();
	assert_int_equal(fx_write_standard(*dir, flavour), 0);
	umt_trace *tr = NULL;
	assert_int_equal(umt_trace_open(*dir, 0, &tr), 0);
	return tr;
}

static void close_std(umt_trace *tr, char *dir)
{
	umt_trace_close(tr);
	fx_rmtree(dir);
	free(dir);
}

static int reg(umt_trace *tr, const char *name)
{
	int r = umt_reg_by_name(tr, name);
	if (r < 0)
		print_error("%s: %s\n", name, umt_errmsg());
	assert_true(r >= 0);
	return r;
}

static void expect_desc(umt_trace *tr, const char *name, const char *common, int off64,
                        int size64, const char *eff64, int off32, int size32, const char *eff32)
{
	umt_reg_desc d;
	assert_int_equal(umt_context_map_reg(tr, reg(tr, name), &d), 0);
	assert_string_equal(d.name, name);
	assert_int_equal(d.common, reg(tr, common));
	assert_int_equal(d.in64, size64 > 0);
	assert_int_equal(d.in32, size32 > 0);
	if (size64) {
		assert_int_equal(d.map64.Offset, off64);
		assert_int_equal(d.map64.Size, size64);
		assert_int_equal(d.map64.EffLargest, reg(tr, eff64));
	}
	if (size32) {
		assert_int_equal(d.map32.Offset, off32);
		assert_int_equal(d.map32.Size, size32);
		assert_int_equal(d.map32.EffLargest, reg(tr, eff32));
	}
}

static void test_std_map(void **state)
{
	(void)state;
	char *dir;
	umt_trace *tr = open_std(UMT_FLAVOUR_2015, &dir);
	const umt_context_map *m = umt_context_map_get(tr);
	assert_int_equal(m->DumpSize, 512);
	assert_int_equal(m->ElemCount, 280);
	/* XED 20150121 numbers (ERRATA 17) and spec 11.1 common names (insRec version 1) */
	assert_int_equal(reg(tr, "rax"), RAX);
	assert_int_equal(reg(tr, "AH"), 106);
	assert_int_equal(reg(tr, "XMM15"), 199);
	assert_int_equal(reg(tr, "St0"), 175);
	expect_desc(tr, "rax", "ax", 0, 8, "rax", 0, 0, NULL);
	expect_desc(tr, "eax", "ax", 0, 4, "rax", 0, 4, "eax");
	expect_desc(tr, "al", "ax", 0, 1, "rax", 0, 1, "eax");
	expect_desc(tr, "ah", "ax", 1, 1, "rax", 1, 1, "eax");
	expect_desc(tr, "r8d", "r8", 64, 4, "r8", 0, 0, NULL);
	expect_desc(tr, "rflags", "flags", 128, 8, "rflags", 0, 0, NULL);
	expect_desc(tr, "eip", "ip", 136, 4, "rip", 136, 4, "eip");
	expect_desc(tr, "mmx7", "st0", 176, 8, "st0", 176, 8, "st0");
	expect_desc(tr, "fsbase", "fsbase", 156, 8, "fsbase", 156, 4, "fsbase");
	expect_desc(tr, "xmm8", "xmm8", 384, 16, "xmm8", 0, 0, NULL);
	umt_reg_desc d;
	assert_int_equal(umt_context_map_reg(tr, reg(tr, "ymm3"), &d), 0);
	assert_int_equal(d.common, reg(tr, "xmm3"));
	assert_int_equal(d.in64, 0);

	int contexts = 0;
	for (uint64_t id = 0; id < STD_RECORDS; id++) {
		umt_rec r;
		umt_context c;
		umt_value v;
		assert_int_equal(umt_exec_get(tr, id, &r), 0);
		if (!umt_rec_type_has_context(r.type))
			continue;
		contexts++;
		assert_int_equal(umt_rec_context(tr, &r, &c), 0);
		assert_int_equal(c.is_64bit, 1);
		uint64_t rax = 0;
		for (int b = 7; b >= 0; b--)
			rax = rax << 8 | std_reg_byte(id, (uint64_t)b);
		assert_int_equal(value_u64(tr, &c, RAX, 8), rax);
		assert_int_equal(value_u64(tr, &c, reg(tr, "ah"), 1), std_reg_byte(id, 1));
		assert_int_equal(value_u64(tr, &c, reg(tr, "rip"), 8) & 0xff,
		                 std_reg_byte(id, 136));
		assert_int_equal(umt_context_reg(tr, &c, reg(tr, "xmm0"), &v), 0);
		assert_int_equal(v.size, 16);
		assert_ptr_equal(v.data, c.regs + 256);
		assert_int_equal(v.data[15], std_reg_byte(id, 271));
		assert_int_equal(umt_context_reg(tr, &c, reg(tr, "st0"), &v), 0);
		assert_int_equal(v.size, 10);
		assert_ptr_equal(v.data, c.regs + 176);
		assert_int_equal(umt_context_reg(tr, &c, reg(tr, "zmm0"), &v), UMT_E_NOT_FOUND);
		/* the same dump read as 32-bit code: the 32-bit map */
		umt_context c32 = c;
		c32.is_64bit = 0;
		assert_int_equal(value_u64(tr, &c32, EAX, 4), rax & 0xffffffff);
		assert_int_equal(value_u64(tr, &c32, reg(tr, "fsbase"), 4),
		                 value_u64(tr, &c, reg(tr, "fsbase"), 8) & 0xffffffff);
		assert_int_equal(umt_context_reg(tr, &c32, RAX, &v), UMT_E_NOT_FOUND);
		assert_int_equal(umt_context_reg(tr, &c32, reg(tr, "r8d"), &v), UMT_E_NOT_FOUND);
	}
	assert_int_equal(contexts, 13); /* 3 thread-begin, 3 entries, 3 exits, 4 context changes */
	close_std(tr, dir);
}

/* insRec version 0 and XED 20140106: other numbers, "largest enclosing" common names. */
static void test_std_map_2014(void **state)
{
	(void)state;
	char *dir;
	umt_trace *tr = open_std(UMT_FLAVOUR_2014, &dir);
	assert_int_equal(reg(tr, "rax"), RAX - 6);
	assert_int_equal(reg(tr, "gsbase"), 0x87);
	expect_desc(tr, "al", "rax", 0, 1, "rax", 0, 1, "eax");
	expect_desc(tr, "eflags", "rflags", 128, 4, "rflags", 128, 4, "eflags");
	umt_rec r;
	umt_context c;
	assert_int_equal(umt_exec_get(tr, 0, &r), 0);
	assert_int_equal(umt_rec_context(tr, &r, &c), 0);
	assert_int_equal(value_u64(tr, &c, reg(tr, "al"), 1), std_reg_byte(0, 0));
	assert_int_equal(value_u64(tr, &c, reg(tr, "bh"), 1), std_reg_byte(0, 25));
	close_std(tr, dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand_map),
		cmocka_unit_test(test_hand_values),
		cmocka_unit_test(test_hand_errors),
		cmocka_unit_test(test_std_map),
		cmocka_unit_test(test_std_map_2014),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
