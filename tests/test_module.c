/*
 * module.c and utf.c: module rows (48 and 64 bytes), the 2015 fields,
 * uStr names and their checks, UTF-16 to UTF-8 conversion, FILETIME, the
 * module of an instruction and the lookup by address and record ID
 * (against a brute-force scan, and from several threads at once).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "check.h"
#include "fixture.h"
#include "std_trace.h"

/* The module found at (address, eid), or -1 when none. */
static int64_t find(umt_trace *tr, uint64_t address, uint64_t eid)
{
	uint64_t id = 12345;
	int rc = umt_module_find(tr, address, eid, &id);
	if (rc == UMT_E_NOT_FOUND) {
		assert_non_null(strstr(umt_errmsg(), "module.itable"));
		assert_int_equal(id, 12345);
		return -1;
	}
	assert_int_equal(rc, 0);
	return (int64_t)id;
}

/* UTF-8 of a module name, checking the returned length. */
static const char *name_of(umt_trace *tr, uint64_t id, int which)
{
	static char buf[256];
	long n = umt_module_name(tr, id, which, buf, sizeof buf);
	assert_true(n >= 0);
	assert_int_equal((size_t)n, strlen(buf));
	return buf;
}

/* Writes a trace holding only modules (and the writer's defaults). */
static char *write_modules(const umt_module_desc *m, size_t n, uint32_t row_size)
{
	char *dir = fx_tmpdir();
	umt_writer_options o;
	umt_writer_options_init(&o, UMT_FLAVOUR_2015);
	o.module_row_size = row_size;
	umt_writer *w;
	assert_int_equal(umt_writer_open(dir, &o, &w), 0);
	for (size_t i = 0; i < n; i++) {
		int64_t id = -1;
		assert_int_equal(umt_writer_add_module(w, &m[i], &id), 0);
		assert_int_equal(id, (int64_t)i);
	}
	assert_int_equal(umt_writer_finish(w), 0);
	return dir;
}

static void remove_dir(char *dir)
{
	fx_rmtree(dir);
	free(dir);
}

/* ---- the hand-made trace: one 48-byte row, names "a.exe" and "dev" ---- */

static void test_handmade(void **state)
{
	(void)state;
	struct fx_trace t;
	fx_handmade(&t);
	umt_trace *tr = fx_must_open(&t);
	const uint8_t *file = t.data[UMT_FILE_MODULE];
	umt_trace_info info;
	assert_int_equal(umt_trace_get_info(tr, &info), 0);
	assert_int_equal(info.module_count, 1);
	assert_int_equal(info.module_row_size, 48);
	assert_int_equal(umt_module_count(tr), 1);
	assert_int_equal(umt_module_count(NULL), 0);

	const umt_module_rec *m;
	assert_int_equal(umt_module_get(tr, 0, &m), 0);
	assert_ptr_equal(m, file + 48);
	assert_int_equal(m->LoadEID, 0);
	assert_int_equal(m->UnloadEID, -1);
	assert_int_equal(m->StartAddr, 0x400000);
	assert_int_equal(m->EndAddr, 0x40ffff);
	assert_int_equal(m->WinNameFP, 96);
	assert_int_equal(m->DeviceNameFP, 110);

	const uint8_t *units;
	size_t n;
	assert_int_equal(umt_module_name_utf16(tr, 0, UMT_MODULE_WIN_NAME, &units, &n), 0);
	assert_ptr_equal(units, file + 98);
	assert_int_equal(n, 5);
	assert_int_equal(units[0], 'a');
	assert_int_equal(units[1], 0);
	assert_int_equal(units[8], 'e');
	assert_int_equal(umt_module_name_utf16(tr, 0, UMT_MODULE_DEVICE_NAME, &units, &n), 0);
	assert_ptr_equal(units, file + 112);
	assert_int_equal(n, 3);
	assert_string_equal(name_of(tr, 0, UMT_MODULE_WIN_NAME), "a.exe");
	assert_string_equal(name_of(tr, 0, UMT_MODULE_DEVICE_NAME), "dev");
	char small[4];
	assert_int_equal(umt_module_name(tr, 0, UMT_MODULE_WIN_NAME, small, sizeof small), 5);
	assert_string_equal(small, "a.e");
	assert_int_equal(umt_module_name(tr, 0, UMT_MODULE_WIN_NAME, NULL, 0), 5);

	/* 48-byte rows have no 2015 fields. */
	const umt_module_rec_2015 *m15 = NULL;
	fx_expect_error(umt_module_get_2015(tr, 0, &m15), UMT_E_NO_VALUE, "module.itable: row 0",
	             "RowSize 48");
	assert_null(m15);

	/* Lookup: never unloaded, EndAddr inclusive. */
	assert_int_equal(find(tr, 0x400000, 0), 0);
	assert_int_equal(find(tr, 0x40ffff, 13), 0);
	assert_int_equal(find(tr, 0x40ffff, UINT64_MAX - 1), 0);
	assert_int_equal(find(tr, 0x410000, 0), -1);
	assert_int_equal(find(tr, 0x3fffff, 5), -1);
	assert_int_equal(find(tr, 0, 0), -1);
	assert_int_equal(find(tr, UINT64_MAX, 0), -1);

	/* The instruction's module. */
	uint64_t mod = 9;
	assert_int_equal(umt_ins_module(tr, 0, &mod), 0);
	assert_int_equal(mod, 0);
	fx_expect_error(umt_ins_module(tr, 1, &mod), UMT_E_RANGE, "ins.itable", "instruction 1");

	/* Caller misuse. */
	fx_expect_error(umt_module_get(tr, 1, &m), UMT_E_RANGE, "module.itable", "module 1");
	assert_int_equal(umt_module_get(tr, UINT64_MAX, &m), UMT_E_RANGE);
	fx_expect_error(umt_module_get_2015(tr, 1, &m15), UMT_E_RANGE, "module.itable", "module 1");
	fx_expect_error(umt_module_name_utf16(tr, 1, 0, &units, &n), UMT_E_RANGE, "module.itable",
	             "module 1");
	assert_int_equal(umt_module_get(NULL, 0, &m), UMT_E_INVAL);
	assert_int_equal(umt_module_get(tr, 0, NULL), UMT_E_INVAL);
	assert_int_equal(umt_module_get_2015(NULL, 0, &m15), UMT_E_INVAL);
	assert_int_equal(umt_module_name_utf16(tr, 0, 2, &units, &n), UMT_E_INVAL);
	assert_int_equal(umt_module_name_utf16(tr, 0, -1, &units, &n), UMT_E_INVAL);
	assert_int_equal(umt_module_name_utf16(tr, 0, 0, NULL, &n), UMT_E_INVAL);
	assert_int_equal(umt_module_name_utf16(NULL, 0, 0, &units, &n), UMT_E_INVAL);
	strcpy(small, "xyz");
	assert_int_equal(umt_module_name(tr, 0, 7, small, sizeof small), UMT_E_INVAL);
	assert_string_equal(small, "");
	assert_int_equal(umt_module_find(NULL, 0, 0, &mod), UMT_E_INVAL);
	assert_int_equal(umt_module_find(tr, 0, 0, NULL), UMT_E_INVAL);
	assert_int_equal(umt_ins_module(NULL, 0, &mod), UMT_E_INVAL);
	assert_int_equal(umt_ins_module(tr, 0, NULL), UMT_E_INVAL);
	umt_trace_close(tr);
	fx_free(&t);
}

/* ---- the standard writer trace ---- */

static void test_std_2015(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	assert_int_equal(fx_write_standard(dir, UMT_FLAVOUR_2015), 0);
	umt_trace *tr = fx_must_open_dir(dir);
	umt_trace_info info;
	assert_int_equal(umt_trace_get_info(tr, &info), 0);
	assert_int_equal(info.module_row_size, 64);
	assert_int_equal(umt_module_count(tr), STD_MODULES);

	const umt_module_rec_2015 *m;
	const umt_module_rec *m48;
	assert_int_equal(umt_module_get_2015(tr, 0, &m), 0);
	assert_int_equal(umt_module_get(tr, 0, &m48), 0);
	assert_ptr_equal(m, m48);
	assert_int_equal(m->LoadEID, 0);
	assert_int_equal(m->UnloadEID, -1);
	assert_int_equal(m->StartAddr, 0x400000);
	assert_int_equal(m->EndAddr, 0x40ffff);
	assert_int_equal(m->LastFileWriteTime, 130000000000000000ull);
	assert_int_equal(m->VersionInfo[0], 6);
	assert_int_equal(m->VersionInfo[1], 1);
	assert_int_equal(m->VersionInfo[2], 7601);
	assert_int_equal(m->VersionInfo[3], 17514);
	int64_t sec;
	uint32_t nsec;
	umt_filetime_to_unix(m->LastFileWriteTime, &sec, &nsec);
	assert_int_equal(sec, 1355526400); /* 2012-12-15 00:00:00 UTC */
	assert_int_equal(nsec, 0);
	assert_string_equal(name_of(tr, 0, UMT_MODULE_WIN_NAME),
	                    "C:\\Windows\\System32\\ntdll.dll");
	assert_string_equal(name_of(tr, 0, UMT_MODULE_DEVICE_NAME),
	                    "\\Device\\HarddiskVolume3\\Windows\\System32\\ntdll.dll");

	assert_int_equal(umt_module_get_2015(tr, 1, &m), 0);
	assert_int_equal(umt_module_get(tr, 1, &m48), 0);
	assert_ptr_equal(m48, m);
	assert_int_equal(m->LoadEID, 20);
	assert_int_equal(m->UnloadEID, 30);
	assert_int_equal(m->StartAddr, 0x10000000);
	assert_int_equal(m->EndAddr, 0x1000ffff);
	assert_int_equal(m->LastFileWriteTime, 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(m->VersionInfo[i], 0);
	const umt_module_rec *m0;
	assert_int_equal(umt_module_get(tr, 0, &m0), 0);
	assert_int_equal((const uint8_t *)m48 - (const uint8_t *)m0, 64);

	/* "C:\Prog\ümlaut.dll": 18 UTF-16 units, U+00FC at unit 8, 19 UTF-8 bytes. */
	const uint8_t *units;
	size_t n;
	assert_int_equal(umt_module_name_utf16(tr, 1, UMT_MODULE_WIN_NAME, &units, &n), 0);
	assert_int_equal(n, 18);
	assert_int_equal(units[16], 0xfc);
	assert_int_equal(units[17], 0x00);
	assert_string_equal(name_of(tr, 1, UMT_MODULE_WIN_NAME), "C:\\Prog\\\xc3\xbcmlaut.dll");
	assert_int_equal(strlen(name_of(tr, 1, UMT_MODULE_WIN_NAME)), 19);
	assert_string_equal(name_of(tr, 1, UMT_MODULE_DEVICE_NAME),
	                    "\\Device\\X\\\xc3\xbcmlaut.dll");

	/* Lookup: LoadEID inclusive, UnloadEID exclusive, addresses inclusive. */
	assert_int_equal(find(tr, 0x400000, 0), 0);
	assert_int_equal(find(tr, 0x401000, 39), 0);
	assert_int_equal(find(tr, 0x10000000, 19), -1);
	assert_int_equal(find(tr, 0x10000000, 20), 1);
	assert_int_equal(find(tr, 0x1000ffff, 29), 1);
	assert_int_equal(find(tr, 0x1000ffff, 30), -1);
	assert_int_equal(find(tr, 0x10010000, 25), -1);
	assert_int_equal(find(tr, 0x0fffffff, 25), -1);

	/* Instructions 0-3 belong to module 0; 4 is floating code. */
	uint64_t mod;
	for (uint64_t i = 0; i < 4; i++) {
		mod = 7;
		assert_int_equal(umt_ins_module(tr, i, &mod), 0);
		assert_int_equal(mod, 0);
	}
	fx_expect_error(umt_ins_module(tr, 4, &mod), UMT_E_NOT_FOUND, "ins.itable: row 4",
	             "ModuleID -1");
	fx_expect_error(umt_ins_module(tr, STD_INS, &mod), UMT_E_RANGE, "ins.itable", NULL);
	umt_trace_close(tr);
	remove_dir(dir);
}

/* 48-byte rows: from the 2014 flavour and from the option. */
static void test_rows_48(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	assert_int_equal(fx_write_standard(dir, UMT_FLAVOUR_2014), 0);
	umt_trace *tr = fx_must_open_dir(dir);
	const umt_module_rec *m0, *m1;
	const umt_module_rec_2015 *m15;
	assert_int_equal(umt_module_get(tr, 0, &m0), 0);
	assert_int_equal(umt_module_get(tr, 1, &m1), 0);
	assert_int_equal((const uint8_t *)m1 - (const uint8_t *)m0, 48);
	assert_int_equal(m1->LoadEID, 20);
	assert_int_equal(m1->UnloadEID, 30);
	assert_int_equal(m1->StartAddr, 0x10000000);
	assert_int_equal(m1->EndAddr, 0x1000ffff);
	fx_expect_error(umt_module_get_2015(tr, 1, &m15), UMT_E_NO_VALUE, "module.itable: row 1",
	             NULL);
	assert_string_equal(name_of(tr, 1, UMT_MODULE_WIN_NAME), "C:\\Prog\\\xc3\xbcmlaut.dll");
	assert_int_equal(find(tr, 0x10000000, 20), 1);
	umt_trace_close(tr);
	remove_dir(dir);

	umt_module_desc d = {.load_eid = 3, .unload_eid = 4, .start_addr = 0x1000,
	                     .end_addr = 0x1fff, .win_name = "x", .device_name = "y"};
	dir = write_modules(&d, 1, 48);
	tr = fx_must_open_dir(dir);
	assert_int_equal(umt_module_get(tr, 0, &m0), 0);
	assert_int_equal(m0->LoadEID, 3);
	assert_int_equal(umt_module_get_2015(tr, 0, &m15), UMT_E_NO_VALUE);
	assert_string_equal(name_of(tr, 0, UMT_MODULE_WIN_NAME), "x");
	assert_string_equal(name_of(tr, 0, UMT_MODULE_DEVICE_NAME), "y");
	umt_trace_close(tr);
	remove_dir(dir);
}

/* ---- UTF-16 to UTF-8 ---- */

/* Converts units given as numbers (stored little-endian at an odd address). */
static size_t conv(const uint16_t *u, size_t n, char *out, size_t cap)
{
	uint8_t raw[65];
	assert_true(n <= 32);
	for (size_t i = 0; i < n; i++) {
		raw[1 + 2 * i] = (uint8_t)u[i];
		raw[2 + 2 * i] = (uint8_t)(u[i] >> 8);
	}
	return umt_utf16_to_utf8(raw + 1, n, out, cap);
}

static void test_utf16_to_utf8(void **state)
{
	(void)state;
	char out[64];
	static const uint16_t ascii[] = {'a', '.', 'e', 'x', 'e'};
	assert_int_equal(conv(ascii, 5, out, sizeof out), 5);
	assert_string_equal(out, "a.exe");
	/* BMP: U+00FC (2 bytes), U+20AC (3 bytes), U+FFFF */
	static const uint16_t bmp[] = {0xfc, 0x20ac, 0xffff};
	assert_int_equal(conv(bmp, 3, out, sizeof out), 8);
	assert_string_equal(out, "\xc3\xbc\xe2\x82\xac\xef\xbf\xbf");
	/* Surrogate pairs: U+1F600, U+10000, U+10FFFF */
	static const uint16_t pairs[] = {0xd83d, 0xde00, 0xd800, 0xdc00, 0xdbff, 0xdfff};
	assert_int_equal(conv(pairs, 6, out, sizeof out), 12);
	assert_string_equal(out, "\xf0\x9f\x98\x80\xf0\x90\x80\x80\xf4\x8f\xbf\xbf");
	/* Lone high followed by a non-surrogate, lone low, high at the end. */
	static const uint16_t lone_high[] = {0xd83d, 'A'};
	assert_int_equal(conv(lone_high, 2, out, sizeof out), 4);
	assert_string_equal(out, "\xef\xbf\xbd" "A");
	static const uint16_t lone_low[] = {'A', 0xde00, 'B'};
	assert_int_equal(conv(lone_low, 3, out, sizeof out), 5);
	assert_string_equal(out, "A\xef\xbf\xbd" "B");
	static const uint16_t high_end[] = {'A', 0xd83d};
	assert_int_equal(conv(high_end, 2, out, sizeof out), 4);
	assert_string_equal(out, "A\xef\xbf\xbd");
	/* Two highs then a low: the first is lone, the second pairs. */
	static const uint16_t two_highs[] = {0xd83d, 0xd83d, 0xde00};
	assert_int_equal(conv(two_highs, 3, out, sizeof out), 7);
	assert_string_equal(out, "\xef\xbf\xbd\xf0\x9f\x98\x80");
	/* Low then high: both lone. */
	static const uint16_t low_high[] = {0xde00, 0xd83d};
	assert_int_equal(conv(low_high, 2, out, sizeof out), 6);
	assert_string_equal(out, "\xef\xbf\xbd\xef\xbf\xbd");
	/* Empty input. */
	strcpy(out, "junk");
	assert_int_equal(conv(ascii, 0, out, sizeof out), 0);
	assert_string_equal(out, "");
	assert_int_equal(umt_utf16_to_utf8(NULL, 3, out, sizeof out), 0);
	assert_string_equal(out, "");

	/* Output too small: whole characters only, NUL-terminated, the needed length returned. */
	static const uint16_t mixed[] = {'a', 'b', 0x20ac, 'c'}; /* "ab€c": 6 bytes */
	memset(out, 'Z', sizeof out);
	assert_int_equal(conv(mixed, 4, out, 7), 6);
	assert_string_equal(out, "ab\xe2\x82\xac" "c");
	memset(out, 'Z', sizeof out);
	assert_int_equal(conv(mixed, 4, out, 6), 6);
	assert_string_equal(out, "ab\xe2\x82\xac");
	memset(out, 'Z', sizeof out);
	assert_int_equal(conv(mixed, 4, out, 5), 6);
	assert_string_equal(out, "ab"); /* the euro sign does not fit, nor does the c after it */
	assert_int_equal(out[3], 'Z');
	memset(out, 'Z', sizeof out);
	assert_int_equal(conv(mixed, 4, out, 3), 6);
	assert_string_equal(out, "ab");
	memset(out, 'Z', sizeof out);
	assert_int_equal(conv(mixed, 4, out, 1), 6);
	assert_int_equal(out[0], '\0');
	assert_int_equal(out[1], 'Z');
	memset(out, 'Z', sizeof out);
	assert_int_equal(conv(mixed, 4, out, 0), 6);
	assert_int_equal(out[0], 'Z');
	assert_int_equal(conv(mixed, 4, NULL, 0), 6);
	assert_int_equal(conv(mixed, 4, NULL, 10), 6);
	/* A surrogate pair is never split. */
	memset(out, 'Z', sizeof out);
	assert_int_equal(conv(pairs, 2, out, 4), 4);
	assert_string_equal(out, "");
}

/* Names with unpaired surrogates stored by the writer (win_name_utf16). */
static void test_utf16_names(void **state)
{
	(void)state;
	static const uint16_t win[] = {'A', 0xd83d, 0xde00, 0xd800, 'B', 0xdc00, 0xdbff};
	static const uint16_t dev[] = {0xdc00};
	umt_module_desc d = {.load_eid = 0, .unload_eid = -1, .start_addr = 0x1000,
	                     .end_addr = 0x1fff, .win_name_utf16 = win, .win_name_utf16_len = 7,
	                     .device_name_utf16 = dev, .device_name_utf16_len = 1};
	char *dir = write_modules(&d, 1, 64);
	umt_trace *tr = fx_must_open_dir(dir);
	const uint8_t *units;
	size_t n;
	assert_int_equal(umt_module_name_utf16(tr, 0, UMT_MODULE_WIN_NAME, &units, &n), 0);
	assert_int_equal(n, 7);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(units[2 * i], win[i] & 0xff);
		assert_int_equal(units[2 * i + 1], win[i] >> 8);
	}
	assert_string_equal(name_of(tr, 0, UMT_MODULE_WIN_NAME),
	                    "A\xf0\x9f\x98\x80\xef\xbf\xbd" "B\xef\xbf\xbd\xef\xbf\xbd");
	assert_string_equal(name_of(tr, 0, UMT_MODULE_DEVICE_NAME), "\xef\xbf\xbd");
	umt_trace_close(tr);
	remove_dir(dir);
}

static void test_filetime(void **state)
{
	(void)state;
	int64_t sec = 1;
	uint32_t nsec = 1;
	umt_filetime_to_unix(116444736000000000ull, &sec, &nsec); /* the Unix epoch */
	assert_int_equal(sec, 0);
	assert_int_equal(nsec, 0);
	umt_filetime_to_unix(116444736000000001ull, &sec, &nsec);
	assert_int_equal(sec, 0);
	assert_int_equal(nsec, 100);
	umt_filetime_to_unix(116444735999999999ull, &sec, &nsec); /* 100 ns before: rounded down */
	assert_int_equal(sec, -1);
	assert_int_equal(nsec, 999999900);
	umt_filetime_to_unix(0, &sec, &nsec); /* 1601-01-01 */
	assert_int_equal(sec, -11644473600LL);
	assert_int_equal(nsec, 0);
	umt_filetime_to_unix(UINT64_MAX, &sec, &nsec);
	assert_int_equal(sec, 1844674407370LL - 11644473600LL);
	assert_int_equal(nsec, 955161500);
	umt_filetime_to_unix(130000000000000000ull, NULL, &nsec);
	umt_filetime_to_unix(130000000000000000ull, &sec, NULL);
	assert_int_equal(sec, 1355526400);
}

/* ---- bad names and module IDs ---- */

/* Hand-made module.itable: row at 48, extra area [96, 120), "a.exe" at 96, "dev" at 110. */
static void expect_name_error(int64_t fp_off, uint64_t fp, int len_at, int len, int which,
                              const char *what)
{
	struct fx_trace t;
	fx_handmade(&t);
	uint8_t *m = t.data[UMT_FILE_MODULE];
	if (fp_off)
		fx_put64(m + fp_off, fp);
	if (len_at)
		fx_put16(m + len_at, (uint16_t)len);
	umt_trace *tr = fx_must_open(&t);
	const uint8_t *units;
	size_t n;
	fx_expect_error(umt_module_name_utf16(tr, 0, which, &units, &n), UMT_E_BOUNDS,
	             "module.itable: row 0", what);
	char buf[8] = "junk";
	fx_expect_error(umt_module_name(tr, 0, which, buf, sizeof buf), UMT_E_BOUNDS,
	             "module.itable: row 0", what);
	assert_string_equal(buf, "");
	/* The other name is unaffected. */
	assert_true(umt_module_name(tr, 0, !which, NULL, 0) >= 0);
	umt_trace_close(tr);
	fx_free(&t);
}

static void test_bad_names(void **state)
{
	(void)state;
	enum { WIN = UMT_MODULE_WIN_NAME, DEV = UMT_MODULE_DEVICE_NAME };
	/* FP negative, before the area, past it, or with no room for Length. */
	expect_name_error(48 + 32, (uint64_t)-1, 0, 0, WIN, "WinNameFP");
	expect_name_error(48 + 32, (uint64_t)INT64_MIN, 0, 0, WIN, "WinNameFP");
	expect_name_error(48 + 40, (uint64_t)-96, 0, 0, DEV, "DeviceNameFP");
	expect_name_error(48 + 32, 0, 0, 0, WIN, "WinNameFP");
	expect_name_error(48 + 32, 95, 0, 0, WIN, "WinNameFP");
	expect_name_error(48 + 32, 119, 0, 0, WIN, "WinNameFP");
	expect_name_error(48 + 40, 120, 0, 0, DEV, "DeviceNameFP");
	expect_name_error(48 + 40, 1u << 20, 0, 0, DEV, "DeviceNameFP");
	/* Length negative. */
	expect_name_error(0, 0, 96, -1, WIN, "negative Length -1");
	expect_name_error(0, 0, 110, INT16_MIN, DEV, "negative Length -32768");
	/* Length running past the area: "dev" at 110 ends exactly at 120 with its NUL. */
	expect_name_error(0, 0, 110, 4, DEV, "Length 4");
	expect_name_error(0, 0, 96, 11, WIN, "Length 11");
	expect_name_error(0, 0, 96, INT16_MAX, WIN, "Length 32767");
	/* A uStr at the very end of the area: Length fits, its NUL does not. */
	expect_name_error(48 + 40, 118, 118, 0, DEV, "Length 0");

	/* Fine: Length 10 at 96 ends at 118, its NUL at 120; the NUL unit need not be 0. */
	struct fx_trace t;
	fx_handmade(&t);
	uint8_t *m = t.data[UMT_FILE_MODULE];
	fx_put16(m + 96, 10);
	fx_put16(m + 110 + 2 + 6, 'X'); /* "dev" without its NUL */
	umt_trace *tr = fx_must_open(&t);
	const uint8_t *units;
	size_t n;
	assert_int_equal(umt_module_name_utf16(tr, 0, UMT_MODULE_WIN_NAME, &units, &n), 0);
	assert_int_equal(n, 10);
	assert_int_equal(umt_module_name_utf16(tr, 0, UMT_MODULE_DEVICE_NAME, &units, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(name_of(tr, 0, UMT_MODULE_DEVICE_NAME), "dev");
	umt_trace_close(tr);
	/* An empty name at the end of the area. */
	fx_put64(m + 48 + 40, 116);
	fx_put16(m + 116, 0);
	fx_put16(m + 118, 0);
	tr = fx_must_open(&t);
	assert_int_equal(umt_module_name_utf16(tr, 0, UMT_MODULE_DEVICE_NAME, &units, &n), 0);
	assert_int_equal(n, 0);
	assert_string_equal(name_of(tr, 0, UMT_MODULE_DEVICE_NAME), "");
	umt_trace_close(tr);
	fx_free(&t);
}

/* insRec.ModuleID: -1 floating, otherwise inside the module table. */
static void expect_ins_module(int32_t module_id, int code, const char *what)
{
	struct fx_trace t;
	fx_handmade(&t);
	fx_put32(t.data[UMT_FILE_INS] + 48 + 12, (uint32_t)module_id);
	umt_trace *tr = fx_must_open(&t);
	uint64_t mod = 5;
	fx_expect_error(umt_ins_module(tr, 0, &mod), code, "ins.itable: row 0", what);
	assert_int_equal(mod, 5);
	umt_trace_close(tr);
	fx_free(&t);
}

static void test_bad_module_ids(void **state)
{
	(void)state;
	expect_ins_module(1, UMT_E_BOUNDS, "ModuleID 1");
	expect_ins_module(INT32_MAX, UMT_E_BOUNDS, "ModuleID 2147483647");
	expect_ins_module(-2, UMT_E_BOUNDS, "ModuleID -2");
	expect_ins_module(INT32_MIN, UMT_E_BOUNDS, "outside");
	expect_ins_module(-1, UMT_E_NOT_FOUND, "floating");
}

/* ---- lookup by address and time ---- */

/* Address reuse over time, boundaries, the top of the address space. */
static void test_find_reuse(void **state)
{
	(void)state;
	const uint64_t top = UINT64_MAX;
	umt_module_desc d[] = {
		/* 0, 1: the same addresses, one after the other (adjacent EID windows) */
		{.load_eid = 10, .unload_eid = 20, .start_addr = 0x1000, .end_addr = 0x1fff},
		{.load_eid = 20, .unload_eid = 30, .start_addr = 0x1000, .end_addr = 0x1fff},
		/* 2: partly over them, later, never unloaded */
		{.load_eid = 30, .unload_eid = -1, .start_addr = 0x1800, .end_addr = 0x27ff},
		/* 3: the low half of 0's addresses again, after a gap */
		{.load_eid = 40, .unload_eid = 41, .start_addr = 0x1000, .end_addr = 0x17ff},
		/* 4: early, elsewhere */
		{.load_eid = 0, .unload_eid = 5, .start_addr = 0x5000, .end_addr = 0x5fff},
		/* 5: the last page of the address space */
		{.load_eid = 0, .unload_eid = -1, .start_addr = (int64_t)(top - 0xfff),
		 .end_addr = -1},
		/* 6, 7: never contain anything (start after end, unloaded before loaded) */
		{.load_eid = 0, .unload_eid = -1, .start_addr = 0x9000, .end_addr = 0x8fff},
		{.load_eid = 9, .unload_eid = 9, .start_addr = 0xa000, .end_addr = 0xafff},
		/* 8: a single byte */
		{.load_eid = 1, .unload_eid = 2, .start_addr = 0xb000, .end_addr = 0xb000},
	};
	char *dir = write_modules(d, sizeof d / sizeof d[0], 64);
	umt_trace *tr = fx_must_open_dir(dir);
	assert_int_equal(find(tr, 0x1000, 9), -1);
	assert_int_equal(find(tr, 0x1000, 10), 0);
	assert_int_equal(find(tr, 0x1fff, 19), 0);
	assert_int_equal(find(tr, 0x1fff, 20), 1);
	assert_int_equal(find(tr, 0x1000, 29), 1);
	assert_int_equal(find(tr, 0x1000, 30), -1);
	assert_int_equal(find(tr, 0x17ff, 30), -1);
	assert_int_equal(find(tr, 0x1800, 30), 2);
	assert_int_equal(find(tr, 0x1fff, 1000000), 2);
	assert_int_equal(find(tr, 0x27ff, UINT64_MAX - 1), 2);
	assert_int_equal(find(tr, 0x2800, 35), -1);
	assert_int_equal(find(tr, 0x1800, 29), 1);
	assert_int_equal(find(tr, 0x1000, 40), 3);
	assert_int_equal(find(tr, 0x1000, 41), -1);
	assert_int_equal(find(tr, 0x0fff, 15), -1);
	assert_int_equal(find(tr, 0x2000, 15), -1);
	assert_int_equal(find(tr, 0x5000, 0), 4);
	assert_int_equal(find(tr, 0x5fff, 4), 4);
	assert_int_equal(find(tr, 0x5000, 5), -1);
	assert_int_equal(find(tr, 0x6000, 0), -1);
	assert_int_equal(find(tr, top, 0), 5);
	assert_int_equal(find(tr, top - 0xfff, 123456), 5);
	assert_int_equal(find(tr, top - 0x1000, 0), -1);
	assert_int_equal(find(tr, 0x9000, 0), -1);
	assert_int_equal(find(tr, 0x8fff, 0), -1);
	assert_int_equal(find(tr, 0xa000, 9), -1);
	assert_int_equal(find(tr, 0xb000, 1), 8);
	assert_int_equal(find(tr, 0xb000, 2), -1);
	assert_int_equal(find(tr, 0xb001, 1), -1);
	assert_int_equal(find(tr, 0xafff, 1), -1);
	assert_int_equal(find(tr, 0, 0), -1);
	umt_trace_close(tr);
	remove_dir(dir);
}

static void test_find_empty(void **state)
{
	(void)state;
	char *dir = write_modules(NULL, 0, 64);
	umt_trace *tr = fx_must_open_dir(dir);
	assert_int_equal(umt_module_count(tr), 0);
	assert_int_equal(find(tr, 0, 0), -1);
	assert_int_equal(find(tr, 0x400000, 5), -1);
	const umt_module_rec *m;
	fx_expect_error(umt_module_get(tr, 0, &m), UMT_E_RANGE, "module.itable", NULL);
	umt_trace_close(tr);
	remove_dir(dir);
}

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rnd(uint64_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state % n;
}

static bool contains(const umt_module_desc *m, uint64_t a, uint64_t e)
{
	uint64_t unload = m->unload_eid == -1 ? UINT64_MAX : (uint64_t)m->unload_eid;
	return (uint64_t)m->start_addr <= a && a <= (uint64_t)m->end_addr &&
	       (uint64_t)m->load_eid <= e && e < unload;
}

/* Query points by number of matching modules: 0, 1, more (so the test shows it covers each). */
static unsigned long scan_hits[3];

/* Checks every query point against a brute-force scan of the modules. */
static void check_against_scan(umt_trace *tr, const umt_module_desc *d, size_t n, uint64_t a,
                               uint64_t e, bool exact)
{
	int64_t want = -1;
	size_t matches = 0;
	for (size_t i = 0; i < n; i++)
		if (contains(&d[i], a, e)) {
			want = (int64_t)i;
			matches++;
		}
	int64_t got = find(tr, a, e);
	scan_hits[matches < 2 ? matches : 2]++;
	if (exact)
		assert_true(matches <= 1); /* the generator made no overlaps */
	if (matches == 0 || (exact && matches == 1)) {
		if (got != want)
			print_error("0x%llx at %llu: got %lld, want %lld\n", (unsigned long long)a,
			            (unsigned long long)e, (long long)got, (long long)want);
		assert_int_equal(got, want);
	} else {
		/* Several overlapping modules: any of them. */
		assert_true(got >= 0);
		assert_true(contains(&d[got], a, e));
	}
}

static void check_many(const umt_module_desc *d, size_t n, bool exact, uint64_t max_addr,
                       uint64_t max_eid)
{
	char *dir = write_modules(d, n, 64);
	umt_trace *tr = fx_must_open_dir(dir);
	memset(scan_hits, 0, sizeof scan_hits);
	/* Every corner of every module and the points just outside. */
	for (size_t i = 0; i < n; i++) {
		uint64_t xs[4] = {(uint64_t)d[i].start_addr, (uint64_t)d[i].end_addr,
		                  (uint64_t)d[i].start_addr - 1, (uint64_t)d[i].end_addr + 1};
		uint64_t unload = d[i].unload_eid == -1 ? 1000000 : (uint64_t)d[i].unload_eid;
		uint64_t es[4] = {(uint64_t)d[i].load_eid, unload - 1, (uint64_t)d[i].load_eid - 1,
		                  unload};
		for (int x = 0; x < 4; x++)
			for (int y = 0; y < 4; y++)
				check_against_scan(tr, d, n, xs[x], es[y], exact);
	}
	/* Random points. */
	for (int k = 0; k < 20000; k++)
		check_against_scan(tr, d, n, rnd(max_addr), rnd(max_eid), exact);
	assert_true(scan_hits[0] > 5000 && scan_hits[1] > 5000);
	assert_true(exact ? scan_hits[2] == 0 : scan_hits[2] > 1000);
	umt_trace_close(tr);
	remove_dir(dir);
}

/* 1000 modules in 40 address slots, each slot reused over time without overlap. */
static void test_find_many(void **state)
{
	(void)state;
	enum { N = 1000, SLOTS = 40 };
	static umt_module_desc d[N];
	uint64_t slot_time[SLOTS] = {0};
	bool closed[SLOTS] = {false};
	for (size_t i = 0; i < N; i++) {
		uint64_t s;
		do
			s = rnd(SLOTS);
		while (closed[s]);
		/* Slot s is [s MiB, s + 1 MiB); a module takes a random page range in it. */
		uint64_t base = s << 20, lo = rnd(128), hi = lo + rnd(128);
		uint64_t load = slot_time[s] + rnd(20), len = 1 + rnd(40);
		slot_time[s] = load + len;
		/* A module never unloaded is the last of its slot. */
		closed[s] = i % 97 == 50;
		d[i] = (umt_module_desc){
			.load_eid = (int64_t)load,
			.unload_eid = closed[s] ? -1 : (int64_t)(load + len),
			.start_addr = (int64_t)(base + lo * 0x1000),
			.end_addr = (int64_t)(base + hi * 0x1000 + 0xfff),
			.win_name = "m.dll", .device_name = "d"};
	}
	check_many(d, N, true, 0x2900000, 1000);

	/* The same count at random: overlapping in time and space (corrupt tables). */
	for (size_t i = 0; i < N; i++) {
		uint64_t start = rnd(0x4000000), load = rnd(10000);
		d[i] = (umt_module_desc){
			.load_eid = (int64_t)load,
			.unload_eid = rnd(10) == 0 ? -1 : (int64_t)(load + rnd(2000)),
			.start_addr = (int64_t)start,
			.end_addr = (int64_t)(start + rnd(0x100000)),
			.win_name = "r.dll", .device_name = "d"};
	}
	check_many(d, N, false, 0x4000000, 12000);
}

/* The first lookups race to build the index. */
struct race {
	umt_trace *tr;
	int64_t got[4];
};

static void *race_thread(void *arg)
{
	struct race *r = arg;
	static const uint64_t q[4][2] = {{0x400000, 0}, {0x10000000, 20}, {0x10000000, 30},
	                                 {0x1000ffff, 29}};
	for (int i = 0; i < 4; i++) {
		uint64_t id;
		r->got[i] = umt_module_find(r->tr, q[i][0], q[i][1], &id) == 0 ? (int64_t)id : -1;
	}
	return NULL;
}

static void test_find_threads(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	assert_int_equal(fx_write_standard(dir, UMT_FLAVOUR_2015), 0);
	for (int round = 0; round < 5; round++) {
		umt_trace *tr = fx_must_open_dir(dir);
		enum { T = 8 };
		pthread_t th[T];
		struct race r[T];
		for (int i = 0; i < T; i++) {
			r[i].tr = tr;
			assert_int_equal(pthread_create(&th[i], NULL, race_thread, &r[i]), 0);
		}
		for (int i = 0; i < T; i++) {
			assert_int_equal(pthread_join(th[i], NULL), 0);
			assert_int_equal(r[i].got[0], 0);
			assert_int_equal(r[i].got[1], 1);
			assert_int_equal(r[i].got[2], -1);
			assert_int_equal(r[i].got[3], 1);
		}
		umt_trace_close(tr);
	}
	remove_dir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handmade),
		cmocka_unit_test(test_std_2015),
		cmocka_unit_test(test_rows_48),
		cmocka_unit_test(test_utf16_to_utf8),
		cmocka_unit_test(test_utf16_names),
		cmocka_unit_test(test_filetime),
		cmocka_unit_test(test_bad_names),
		cmocka_unit_test(test_bad_module_ids),
		cmocka_unit_test(test_find_reuse),
		cmocka_unit_test(test_find_empty),
		cmocka_unit_test(test_find_many),
		cmocka_unit_test(test_find_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
